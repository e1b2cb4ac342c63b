//! `$ref` resolution inside one tool schema: a local reference (`#`, `#/$defs/X`,
//! `#/definitions/X`, any JSON pointer) is followed to its target, so that moving a definition
//! is not a change. Chains are followed a bounded number of times; a reference that does not
//! resolve (remote, anchor, a cycle of bare references) is left as it is and compared as text.

use serde_json::Value;

/// Chains of references longer than this are left unresolved.
const MAX_HOPS: usize = 64;

/// The schema `node` stands for inside `root`: its `$ref` target when it has a local one
/// (followed through chains), else `node` itself.
pub(crate) fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..MAX_HOPS {
        match reference(node).and_then(|r| mcp_bindgen_core::pointer::resolve(root, r)) {
            Some(next) => node = next,
            None => return node,
        }
    }
    node
}

/// The `$ref` of `node`, when it has one.
pub(crate) fn reference(node: &Value) -> Option<&str> {
    node.as_object()?.get("$ref")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn follows_chains_and_stops_on_cycles() {
        let root = json!({
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"},
                      "C": {"$ref": "#/$defs/D"}, "D": {"$ref": "#/$defs/C"},
                      "a b": {"type": "integer"}},
        });
        let a = json!({"$ref": "#/$defs/A"});
        assert_eq!(resolve(&root, &a), &json!({"type": "string"}));
        let c = json!({"$ref": "#/$defs/C"});
        assert!(
            reference(resolve(&root, &c)).is_some(),
            "a cycle stays a reference"
        );
        let spaced = json!({"$ref": "#/$defs/a%20b"});
        assert_eq!(resolve(&root, &spaced), &json!({"type": "integer"}));
        let remote = json!({"$ref": "https://example.com/s.json"});
        assert_eq!(resolve(&root, &remote), &remote);
    }
}
