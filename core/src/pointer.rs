//! JSON pointers (RFC 6901) and local `$ref`s, written once for the generator, the runtime's
//! schema checkers and `diff`: escaping a reference token, and following a `$ref` whose
//! fragment is a percent-encoded pointer (`#/$defs/a%20b` names the definition `a b`).

use std::borrow::Cow;

use serde_json::Value;

/// One reference token, escaped for a pointer: `~` as `~0`, `/` as `~1`.
pub fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// One reference token as it was before [`escape`].
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Decodes the `%XX` escapes of a URI fragment; `None` when one is not two hex digits or the
/// bytes decoded are not UTF-8.
pub fn percent_decode(text: &str) -> Option<Cow<'_, str>> {
    if !text.contains('%') {
        return Some(Cow::Borrowed(text));
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// The JSON pointer a local `$ref` names (`#/$defs/a%20b` is `/$defs/a b`; `#` is the root,
/// the empty pointer), or `None` for a reference this crate does not follow: a remote one
/// (`other.json#/x`), an anchor (`#name`), or a fragment that is not valid percent-encoding.
pub fn local_pointer(reference: &str) -> Option<Cow<'_, str>> {
    let fragment = reference.strip_prefix('#')?;
    let pointer = percent_decode(fragment)?;
    (pointer.is_empty() || pointer.starts_with('/')).then_some(pointer)
}

/// What the local `$ref` `reference` points at inside `root` (see [`local_pointer`]).
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = local_pointer(reference)?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&pointer)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tokens_round_trip() {
        for token in ["plain", "a/b", "c~d", "~1/~0", ""] {
            assert_eq!(unescape(&escape(token)), token);
        }
        assert_eq!(escape("a/b~"), "a~1b~0");
    }

    #[test]
    fn local_references_are_followed_percent_decoded() {
        let root = json!({"$defs": {"a b": {"type": "integer"}, "c/d": {"type": "string"},
            "%": {"type": "null"}}});
        assert_eq!(
            resolve(&root, "#/$defs/a%20b"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(
            resolve(&root, "#/$defs/c~1d"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve(&root, "#/$defs/%25"),
            Some(&json!({"type": "null"}))
        );
        assert_eq!(resolve(&root, "#"), Some(&root));
        for unfollowed in [
            "#anchor",
            "other.json#/$defs/x",
            "#/$defs/%zz",
            "#/$defs/%é",
            "#/$defs/%2",
        ] {
            assert_eq!(resolve(&root, unfollowed), None, "{unfollowed}");
        }
    }
}
