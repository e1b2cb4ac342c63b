//! Positions in input files: [`LineCol`], the line:column of a byte offset, and of a JSON
//! pointer in JSON text, so that errors about a value (found by walking `serde_json::Value`,
//! which keeps no positions) can point into the file.

/// A position in a text file, both 1-based; `column` counts characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// The position of the value at `pointer` in `text`, or `None` when `text` is not valid JSON
/// or has no such value. For an object member, the position is that of its key.
pub(crate) fn locate(text: &str, pointer: &str) -> Option<LineCol> {
    let tokens: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| mcp_bindgen_core::pointer::unescape(t).into_owned())
            .collect()
    };
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        pos: 0,
    };
    scanner.skip_ws();
    // A capture may hold several JSON documents one after another; the pointer is into the
    // first one unless it is prefixed by the caller.
    let mut key_pos = None;
    for token in &tokens {
        match scanner.peek()? {
            b'{' => {
                scanner.pos += 1;
                loop {
                    scanner.skip_ws();
                    if scanner.peek()? == b'}' {
                        return None;
                    }
                    let start = scanner.pos;
                    let key = scanner.string()?;
                    scanner.skip_ws();
                    scanner.expect(b':')?;
                    scanner.skip_ws();
                    if key == *token {
                        key_pos = Some(start);
                        break;
                    }
                    scanner.skip_value()?;
                    scanner.skip_ws();
                    if scanner.peek()? == b',' {
                        scanner.pos += 1;
                    }
                }
            }
            b'[' => {
                let index: usize = token.parse().ok()?;
                scanner.pos += 1;
                for _ in 0..index {
                    scanner.skip_ws();
                    if scanner.peek()? == b']' {
                        return None;
                    }
                    scanner.skip_value()?;
                    scanner.skip_ws();
                    scanner.expect(b',')?;
                }
                scanner.skip_ws();
                if scanner.peek()? == b']' {
                    return None;
                }
                key_pos = None;
            }
            _ => return None,
        }
    }
    Some(line_col(text, key_pos.unwrap_or(scanner.pos)))
}

/// The line:column of byte offset `pos` in `text`.
pub(crate) fn line_col(text: &str, pos: usize) -> LineCol {
    let before = &text[..pos.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    LineCol {
        line,
        column: before[line_start..].chars().count() + 1,
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.pos += 1)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Reads a string token and returns its decoded value.
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let raw = std::str::from_utf8(self.bytes.get(start..self.pos)?).ok()?;
        serde_json::from_str(raw).ok()
    }

    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                // Depth-counted scan that steps over strings.
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.pos += 1;
                }
                Some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_items() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\"},\n    {\"name\": 3, \"x\": [1, {\"y\": 2}]}\n  ]\n}";
        assert_eq!(locate(text, ""), Some(LineCol { line: 1, column: 1 }));
        assert_eq!(locate(text, "/tools"), Some(LineCol { line: 2, column: 3 }));
        assert_eq!(
            locate(text, "/tools/1"),
            Some(LineCol { line: 4, column: 5 })
        );
        assert_eq!(
            locate(text, "/tools/1/name"),
            Some(LineCol { line: 4, column: 6 })
        );
        assert_eq!(
            locate(text, "/tools/1/x/1/y"),
            Some(LineCol {
                line: 4,
                column: 27
            })
        );
        assert_eq!(locate(text, "/tools/2"), None);
        assert_eq!(locate(text, "/nope"), None);
    }

    #[test]
    fn escaped_keys_and_strings() {
        let text = r#"{"a\"b": "x}]", "c/d": {"e~f": 1}}"#;
        assert_eq!(
            locate(text, "/c~1d/e~0f"),
            Some(LineCol {
                line: 1,
                column: 25
            })
        );
    }
}
