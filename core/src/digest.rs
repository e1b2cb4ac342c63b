//! A tool list's fingerprint: the SHA-256 of its canonical JSON.
//!
//! The canonical form keeps what a client of the tools relies on, for each tool: `name`,
//! `title`, `description`, `inputSchema`, `outputSchema`, `annotations` and `execution` (whether
//! calls run as tasks; not `_meta`, icons or fields a client does not read). Tools are sorted by name; every object's keys are
//! sorted (by their UTF-8 bytes); there is no whitespace; strings and numbers are written as
//! `serde_json` writes them. Two lists that differ only in key order, whitespace or tool order
//! have the same digest.
//!
//! ```
//! use mcp_bindgen_core::digest;
//! use serde_json::json;
//!
//! let a = json!({"name": "echo", "inputSchema": {"type": "object", "required": []}});
//! let b = json!({"inputSchema": {"required": [], "type": "object"}, "name": "echo",
//!                "_meta": {"ignored": true}});
//! assert_eq!(digest::digest([&a]), digest::digest([&b]));
//! assert!(digest::digest([&a]).starts_with("sha256:"));
//! ```

use serde_json::Value;

/// The fields of a tool the canonical form keeps, in canonical (sorted) order.
pub const FIELDS: [&str; 7] = [
    "annotations",
    "description",
    "execution",
    "inputSchema",
    "name",
    "outputSchema",
    "title",
];

/// The canonical JSON of `tools` (tool objects as a server sends them).
pub fn canonical<'a>(tools: impl IntoIterator<Item = &'a Value>) -> String {
    let mut out = Vec::new();
    write_list(tools, &mut out);
    // Only valid UTF-8 goes in: JSON text from `serde_json` and `str` keys.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The canonical JSON of any value: object keys sorted at every depth, no white space, so that
/// equal values give equal text whatever their key order (and whichever map type serde_json
/// was built with).
pub fn canonical_value(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(value, &mut out);
    // Only valid UTF-8 goes in: JSON text from `serde_json` and `str` keys.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `sha256:` and the hex SHA-256 of the [`canonical`] JSON of `tools`.
pub fn digest<'a>(tools: impl IntoIterator<Item = &'a Value>) -> String {
    let mut hasher = Hasher::new();
    write_list(tools, &mut hasher);
    hasher.finish()
}

/// `sha256:` and the hex SHA-256 of `text` (a canonical form written elsewhere, such as a
/// `mcp_bindgen_diff::catalog::Catalog`'s).
pub fn digest_text(text: &str) -> String {
    digest_bytes(text.as_bytes())
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes` (a skill file's raw bytes, say).
pub fn digest_bytes(bytes: &[u8]) -> String {
    let mut hasher = Hasher::new();
    hasher.context.update(bytes);
    hasher.finish()
}

/// Where canonical JSON is written: a buffer, or a hash of it.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// SHA-256 of what is written, fed to the hash in blocks of [`Hasher::BLOCK`] bytes.
struct Hasher {
    context: ring::digest::Context,
    buffer: Vec<u8>,
}

impl Hasher {
    const BLOCK: usize = 16 * 1024;

    fn new() -> Self {
        Hasher {
            context: ring::digest::Context::new(&ring::digest::SHA256),
            buffer: Vec::with_capacity(Self::BLOCK),
        }
    }

    fn finish(mut self) -> String {
        self.context.update(&self.buffer);
        let digest = self.context.finish();
        let mut text = String::with_capacity(7 + 64);
        text.push_str("sha256:");
        for byte in digest.as_ref() {
            text.push(char::from(HEX[usize::from(byte >> 4)]));
            text.push(char::from(HEX[usize::from(byte & 15)]));
        }
        text
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Sink for Hasher {
    fn put(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= Self::BLOCK {
            self.context.update(&self.buffer);
            self.buffer.clear();
        }
    }
}

fn write_list<'a>(tools: impl IntoIterator<Item = &'a Value>, out: &mut impl Sink) {
    let mut tools: Vec<(&str, &Value)> = tools
        .into_iter()
        .map(|tool| (tool.get("name").and_then(Value::as_str).unwrap_or(""), tool))
        .collect();
    tools.sort_by(|a, b| a.0.cmp(b.0));
    out.put(b"[");
    for (i, (_, tool)) in tools.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        out.put(b"{");
        let mut first = true;
        for key in FIELDS {
            let Some(value) = tool.get(key) else { continue };
            if !first {
                out.put(b",");
            }
            first = false;
            write_string(key, out);
            out.put(b":");
            write_value(value, out);
        }
        out.put(b"}");
    }
    out.put(b"]");
}

fn write_value(value: &Value, out: &mut impl Sink) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => out.put(n.to_string().as_bytes()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_value(item, out);
            }
            out.put(b"]");
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.put(b"{");
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_string(key, out);
                out.put(b":");
                write_value(value, out);
            }
            out.put(b"}");
        }
    }
}

/// A JSON string as `serde_json` writes it: `"` and `\` escaped, control characters as
/// `\n`-style or `\u00XX` escapes, everything else as is.
fn write_string(s: &str, out: &mut impl Sink) {
    out.put(b"\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => {
                out.put(&bytes[start..i]);
                out.put(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 15)],
                ]);
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.put(&bytes[start..i]);
        out.put(escape);
        start = i + 1;
    }
    out.put(&bytes[start..]);
    out.put(b"\"");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_sorts_keys_and_tools_and_keeps_only_what_clients_read() {
        let tools = [
            json!({"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}},
                   "_meta": {"x": 1}, "icons": []}),
            json!({"title": "A", "name": "a", "inputSchema": true,
                   "annotations": {"readOnlyHint": true, "destructiveHint": false}}),
        ];
        assert_eq!(
            canonical(&tools),
            r#"[{"annotations":{"destructiveHint":false,"readOnlyHint":true},"inputSchema":true,"name":"a","title":"A"},{"inputSchema":{"properties":{"a":{},"z":{}},"type":"object"},"name":"b"}]"#
        );
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let odd = "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} é 😀";
        let mut out = Vec::new();
        write_string(odd, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(odd).unwrap()
        );
    }

    #[test]
    fn the_digest_is_the_sha256_of_the_canonical_form() {
        // SHA-256 of `[]`, computed independently (`printf '[]' | sha256sum`).
        assert_eq!(
            digest([]),
            "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
        let tools = [json!({"name": "a", "description": "x".repeat(40_000), "inputSchema": {}})];
        let text = canonical(&tools);
        let expected = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
        let hex: String = expected
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest(&tools), format!("sha256:{hex}"));
    }

    #[test]
    fn any_change_to_what_a_client_reads_changes_the_digest() {
        let base = json!({"name": "a", "description": "d", "inputSchema": {"type": "object"}});
        let mut changed = Vec::new();
        for (key, value) in [
            ("name", json!("b")),
            ("title", json!("T")),
            ("description", json!("e")),
            ("inputSchema", json!({"type": "string"})),
            ("outputSchema", json!({"type": "object"})),
            ("annotations", json!({"readOnlyHint": true})),
        ] {
            let mut tool = base.clone();
            tool[key] = value;
            changed.push(digest([&tool]));
        }
        changed.push(digest([&base]));
        changed.sort();
        changed.dedup();
        assert_eq!(changed.len(), 7, "each field changes the digest");
        let mut meta = base.clone();
        meta["_meta"] = json!({"a": 1});
        assert_eq!(digest([&meta]), digest([&base]), "_meta is not part of it");
    }
}
