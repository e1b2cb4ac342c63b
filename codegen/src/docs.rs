//! Doc comments as a person writes them, for every item the generator emits: one `///`
//! line per line of text, markdown continuations indented the way their author meant them
//! (and as clippy's doc lints want), fences without a language made `text`, and long lines
//! wrapped at spaces.

use proc_macro2::TokenStream;
use quote::quote;

/// `text` without the indentation its lines after the first share, and without the first
/// line's: a description written as an indented docstring (Python's `inspect.cleandoc`). Left
/// indented, its lines would be markdown code blocks, too wide to wrap.
pub(crate) fn dedent(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_start();
    let rest: Vec<&str> = lines.collect();
    let common = rest
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    if common == 0 {
        return text.to_owned();
    }
    let mut out = vec![first];
    out.extend(rest.iter().map(|line| line.get(common..).unwrap_or("")));
    out.join("\n").trim().to_owned()
}

/// The lines of a doc comment for `text`, each with its leading space (`/// text`), so that
/// the comment reads as markdown the way its author meant it and passes clippy's doc lints:
/// a line that continues a list item is indented to the item's text, one that continues a
/// block quote gets its `>`, and a code fence without a language is `text` (not a doc test).
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut item: Option<usize> = None;
    let mut quoted = false;
    let mut fence: Option<&str> = None;
    for line in text.trim().lines() {
        let line = line.trim_end();
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        if let Some(open) = fence {
            if marker == Some(open) && trimmed.trim_start_matches(open).trim().is_empty() {
                fence = None;
            }
            out.push(line.to_owned());
            continue;
        }
        if let Some(marker) = marker {
            fence = Some(marker);
            item = None;
            quoted = false;
            let info = trimmed.trim_start_matches(marker).trim();
            // rustdoc reads a fence's info as its attributes: none makes a doc test, and one
            // it cannot read (`${language}`, from a template) is a warning.
            let readable = info.split([',', ' ']).all(|word| {
                word.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.'))
            });
            if info.is_empty() || !readable {
                out.push(format!("{}{marker}text", &line[..indent]));
            } else {
                out.push(line.to_owned());
            }
            continue;
        }
        if trimmed.is_empty() {
            item = None;
            quoted = false;
            out.push(String::new());
        } else if let Some(content) = list_item(line) {
            item = Some(content);
            quoted = false;
            out.push(line.to_owned());
        } else if trimmed.starts_with('>') {
            quoted = true;
            item = None;
            out.push(line.to_owned());
        } else if quoted {
            out.push(format!("> {trimmed}"));
        } else if let Some(content) = item.filter(|&content| indent < content) {
            out.push(format!("{}{trimmed}", " ".repeat(content)));
        } else {
            out.push(line.to_owned());
        }
    }
    out.into_iter()
        .map(|line| {
            if line.is_empty() {
                line
            } else {
                format!(" {line}")
            }
        })
        .collect()
}

/// `text` with its long lines broken at spaces so that none passes `width` characters, as a
/// person wraps a doc comment: code fences and table rows are left as they are, a long word (a
/// URL) keeps a line of its own, a line never breaks before a word that would start a list, a
/// quote, a heading or a table row, a list item's continuation lines are indented to its text
/// ([`doc_lines`] keeps them in the item), and an indented line's to its own indent (an
/// indented code block stays one; a long heading goes on as a paragraph).
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        if let Some(open) = fence {
            if marker == Some(open) {
                fence = None;
            }
            out.push(line.to_owned());
            continue;
        }
        if let Some(marker) = marker {
            fence = Some(marker);
            out.push(line.to_owned());
            continue;
        }
        if line.chars().count() <= width || trimmed.starts_with('|') {
            out.push(line.to_owned());
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        // The words are joined by one space each: a list item's text starts one space after
        // its marker, however many it had.
        let words: Vec<&str> = trimmed.split(' ').filter(|w| !w.is_empty()).collect();
        let collapsed = format!("{indent}{}", words.join(" "));
        let hanging =
            list_item(&collapsed).map_or_else(|| indent.to_owned(), |col| " ".repeat(col));
        let quote = if trimmed.starts_with('>') { "> " } else { "" };
        let mut lines: Vec<Vec<&str>> = vec![Vec::new()];
        let mut len = indent.chars().count();
        for &word in &words {
            let chars = word.chars().count();
            if lines.last().is_some_and(|l| !l.is_empty()) && len + 1 + chars > width {
                lines.push(Vec::new());
                len = hanging.chars().count() + quote.len();
            }
            if let Some(current) = lines.last_mut() {
                if !current.is_empty() {
                    len += 1;
                }
                current.push(word);
                len += chars;
            }
        }
        // A line must not begin with what would start a block: the word before goes with it.
        for i in 1..lines.len() {
            while starts_block(lines[i][0]) && lines[i - 1].len() > 1 {
                if let Some(moved) = lines[i - 1].pop() {
                    lines[i].insert(0, moved);
                }
            }
        }
        for (i, words) in lines.iter().enumerate() {
            let lead = if i == 0 {
                indent.to_owned()
            } else {
                format!("{hanging}{quote}")
            };
            out.push(format!("{lead}{}", words.join(" ")));
        }
    }
    out.join("\n")
}

/// Whether a line starting with `word` would start a markdown block (a list item, a quote, a
/// heading, a table row) instead of continuing a paragraph.
fn starts_block(word: &str) -> bool {
    matches!(word, "-" | "*" | "+" | ">" | "|")
        || word.starts_with(['#', '>', '|', '='])
        || word
            .strip_suffix(['.', ')'])
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// For a markdown list item line (`- x`, `* x`, `12. x`), the column its text starts at.
fn list_item(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let marker = if trimmed.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        let after = trimmed[digits..].chars().next();
        if (1..=9).contains(&digits) && matches!(after, Some('.' | ')')) {
            digits + 1
        } else {
            return None;
        }
    };
    let rest = &trimmed[marker..];
    let spaces = rest.len() - rest.trim_start_matches(' ').len();
    if rest.is_empty() {
        return Some(indent + marker + 1);
    }
    if spaces == 0 {
        return None;
    }
    Some(indent + marker + spaces.min(4))
}

/// The width of a module-level item's doc text: 100 columns less `/// ` and the indent of
/// the `pub mod NAME { .. }` a single-file module is wrapped in.
pub(crate) const ITEM_DOC_WIDTH: usize = 92;

/// The width of a method's doc text: one indent more.
pub(crate) const METHOD_DOC_WIDTH: usize = ITEM_DOC_WIDTH - 4;

/// `#[doc = ".."]` attributes for text `width` columns wide (an item one module deeper, a method, a field).
pub(crate) fn doc_at(text: &str, width: usize) -> TokenStream {
    let lines = doc_lines(&wrap(text, width));
    quote! { #(#[doc = #lines])* }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_lose_their_common_indentation() {
        let text =
            "Reads a page.\n\n        Args:\n            url: where\n\n        Returns text.";
        assert_eq!(
            dedent(text),
            "Reads a page.\n\nArgs:\n    url: where\n\nReturns text."
        );
        // Nothing shared, nothing changed.
        assert_eq!(dedent("One.\n- a\n  - b"), "One.\n- a\n  - b");
    }

    #[test]
    fn list_continuations_are_indented() {
        let lines = doc_lines("Modes:\n- fast: quick\nbut rough\n- slow\n\nAfter.\n> quoted\nlazy");
        assert_eq!(
            lines,
            [
                " Modes:",
                " - fast: quick",
                "   but rough",
                " - slow",
                "",
                " After.",
                " > quoted",
                " > lazy"
            ]
        );
    }

    #[test]
    fn fences_without_a_language_are_text() {
        let lines = doc_lines("Example:\n```\n- not a list\n```");
        assert_eq!(lines, [" Example:", " ```text", " - not a list", " ```"]);
        // A fence whose info rustdoc cannot read as attributes (a template's placeholder).
        let lines = doc_lines("```${language}\n${value}\n```");
        assert_eq!(lines, [" ```text", " ${value}", " ```"]);
        let lines = doc_lines("```typescript\nlet x = 1;\n```");
        assert_eq!(lines, [" ```typescript", " let x = 1;", " ```"]);
    }

    #[test]
    fn numbered_items_indent_to_their_text() {
        assert_eq!(list_item("12. twelve"), Some(4));
        assert_eq!(list_item("  - x"), Some(4));
        assert_eq!(list_item("-1 degrees"), None);
        assert_eq!(list_item("*bold*"), None);
    }

    #[test]
    fn long_doc_lines_wrap_at_spaces_and_never_start_a_block() {
        let text = "List runnable scenarios (own + public store). Required scope: read:scores + simulation entitlement - 2 of them.";
        let wrapped = wrap(text, 60);
        for line in wrapped.lines() {
            assert!(line.chars().count() <= 60, "{line:?}");
            assert!(
                !line.starts_with("- ") && !line.starts_with("+ "),
                "{line:?}"
            );
        }
        // "- 2" at a break: the word before moves down with it.
        assert_eq!(wrap("aaaa bbbb - cccc", 10), "aaaa\nbbbb - cccc");
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        // A list item's continuation is indented to its text; fences and tables are kept.
        let wrapped = wrap(
            "- one two three four five six
```
long line in a fence stays
```
| a | b c d e f |",
            12,
        );
        assert_eq!(
            wrapped,
            "- one two
  three four
  five six
```
long line in a fence stays
```
| a | b c d e f |"
        );
        // A word longer than the width keeps a line of its own.
        assert_eq!(
            wrap("see https://example.com/a/very/long/path now", 10),
            "see
https://example.com/a/very/long/path
now"
        );
    }
}
