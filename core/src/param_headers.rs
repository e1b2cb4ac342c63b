//! `x-mcp-header` (2026-07-28, SEP-2243): a tool's input schema marks the arguments that a
//! Streamable HTTP request mirrors in `Mcp-Param-{name}` headers, so that proxies can route on
//! them without reading the body. One reading of the annotations for everyone who needs it:
//! the client (which writes the headers, and must drop a tool whose annotations are invalid),
//! the server (which checks that headers and body agree) and the generator (which warns about
//! a tool the client would drop).
//!
//! ```
//! use mcp_bindgen_core::param_headers::param_headers;
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//!     "target": {"type": "object", "properties": {
//!         "id": {"type": "integer", "x-mcp-header": "Target-Id"}}}}});
//! let params = param_headers(&schema).unwrap();
//! assert_eq!(params[1].name, "Target-Id");
//! assert_eq!(params[1].path, ["target", "id"]);
//!
//! let bad = json!({"properties": {"v": {"type": "number", "x-mcp-header": "V"}}});
//! let error = param_headers(&bad).unwrap_err();
//! assert_eq!(error.pointer, "/properties/v/x-mcp-header");
//! ```

use std::fmt;

use serde_json::Value;

/// One argument a tool mirrors in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The header's name after `Mcp-Param-` (`Region` for `Mcp-Param-Region`), as annotated.
    pub name: String,
    /// The argument's property path from the arguments object (`["target", "id"]`).
    pub path: Vec<String>,
}

impl ParamHeader {
    /// The argument in `arguments`, `None` when it is absent or `null` (then no header is
    /// sent).
    pub fn argument<'v>(&self, arguments: &'v Value) -> Option<&'v Value> {
        let mut value = arguments;
        for key in &self.path {
            value = value.get(key)?;
        }
        (!value.is_null()).then_some(value)
    }

    /// `target.id`: the argument's path, for messages.
    pub fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// Why a schema's `x-mcp-header` annotations are invalid (the revision requires clients to
/// drop such a tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// A JSON pointer into the input schema, to the offending annotation.
    pub pointer: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {})", self.message, self.pointer)
    }
}

impl std::error::Error for Invalid {}

/// The arguments `input_schema` marks with `x-mcp-header`, in the schema's order, or why the
/// annotations are invalid: a name that is not an HTTP token (or is empty, or not a string), a
/// name given twice (header names ignore case), an annotation on a property that is not a
/// string, integer or boolean, or one that is not reached through `properties` alone (inside
/// `items`, `anyOf`, `$defs`, ...).
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, Invalid> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    walk(input_schema, &mut path, &mut found)?;
    // Every annotation anywhere in the schema must have been reached above.
    let mut pointer = String::new();
    if let Some(stray) = stray(input_schema, &mut pointer, true) {
        return Err(Invalid {
            pointer: stray,
            message: "x-mcp-header is only allowed on properties reached through `properties` \
                      alone (not inside items, anyOf, oneOf, allOf or $defs)"
                .to_owned(),
        });
    }
    Ok(found)
}

/// `/properties/a/properties/b` for the path `[a, b]`, escaped as RFC 6901 says.
fn pointer_of(path: &[String]) -> String {
    let mut pointer = String::new();
    for key in path {
        pointer.push_str("/properties/");
        pointer.push_str(&crate::pointer::escape(key));
    }
    pointer
}

fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), Invalid> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, property) in properties {
        path.push(key.clone());
        if let Some(name) = property.get("x-mcp-header") {
            let invalid = |message: String| Invalid {
                pointer: format!("{}/x-mcp-header", pointer_of(path)),
                message,
            };
            let dotted = path.join(".");
            let name = name
                .as_str()
                .ok_or_else(|| invalid(format!("x-mcp-header of {dotted} is not a string")))?;
            if name.is_empty() {
                return Err(invalid(format!("x-mcp-header of {dotted} is empty")));
            }
            let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
            if !name.chars().all(tchar) {
                return Err(invalid(format!(
                    "x-mcp-header {name:?} of {dotted} is not an HTTP token (letters, digits \
                     and !#$%&'*+-.^_`|~ only)"
                )));
            }
            match property.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Err(invalid(format!(
                        "x-mcp-header {name:?} is on {dotted} of type {}, not string, integer \
                         or boolean",
                        other.unwrap_or("(none)")
                    )));
                }
            }
            if let Some(first) = found.iter().find(|p| p.name.eq_ignore_ascii_case(name)) {
                return Err(invalid(format!(
                    "x-mcp-header {name:?} appears twice (on {} and {dotted}; header names \
                     ignore case)",
                    first.dotted()
                )));
            }
            found.push(ParamHeader {
                name: name.to_owned(),
                path: path.clone(),
            });
        }
        walk(property, path, found)?;
        path.pop();
    }
    Ok(())
}

/// The pointer of an `x-mcp-header` that [`walk`] did not reach, if any. `schema`: `value` is
/// the root schema or a schema reached through `properties` alone, whose `properties` [`walk`]
/// reads; `property`: `value` is one of those properties, which may carry an annotation.
fn stray(value: &Value, pointer: &mut String, schema: bool) -> Option<String> {
    stray_in(value, pointer, schema, false)
}

fn stray_in(value: &Value, pointer: &mut String, schema: bool, property: bool) -> Option<String> {
    match value {
        Value::Object(map) => {
            if map.contains_key("x-mcp-header") && !property {
                return Some(format!("{pointer}/x-mcp-header"));
            }
            for (key, child) in map {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::pointer::escape(key));
                let hit = if key == "properties" && (schema || property) {
                    // Each property of a schema on the path is on the path too.
                    child.as_object().and_then(|properties| {
                        properties.iter().find_map(|(name, property)| {
                            let inner = pointer.len();
                            pointer.push('/');
                            pointer.push_str(&crate::pointer::escape(name));
                            let hit = stray_in(property, pointer, true, true);
                            pointer.truncate(inner);
                            hit
                        })
                    })
                } else if key == "x-mcp-header" {
                    None
                } else {
                    stray_in(child, pointer, false, false)
                };
                pointer.truncate(len);
                if hit.is_some() {
                    return hit;
                }
            }
            None
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
            let len = pointer.len();
            pointer.push_str(&format!("/{i}"));
            let hit = stray_in(item, pointer, false, false);
            pointer.truncate(len);
            hit
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_properties_are_found_in_order() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {
                "n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "number"}}});
        let mut params = param_headers(&schema).expect("valid");
        // serde_json's key order depends on `preserve_order`, which a workspace build unifies in.
        params.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(params[0].path, ["nested", "n"]);
        assert_eq!(params[1].path, ["region"]);
        let arguments = json!({"region": null, "nested": {"n": 42}});
        assert_eq!(params[0].argument(&arguments), Some(&json!(42)));
        assert_eq!(params[1].argument(&arguments), None, "null is absent");
    }

    #[test]
    fn every_invalid_annotation_is_refused_with_its_location() {
        for (bad, pointer) in [
            (
                json!({"properties": {"v": {"type": "string", "x-mcp-header": ""}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "string", "x-mcp-header": 7}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "number", "x-mcp-header": "V"}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "object", "x-mcp-header": "V"}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "string", "x-mcp-header": "My V"}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "string", "x-mcp-header": "R\u{e9}gion"}}}),
                "/properties/v/x-mcp-header",
            ),
            (
                json!({"properties": {"a/b": {"type": "object", "properties": {
                    "c": {"type": "string", "x-mcp-header": "A"},
                    "d": {"type": "string", "x-mcp-header": "a"}}}}}),
                "/properties/a~1b/properties/d/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"type": "array",
                    "items": {"type": "string", "x-mcp-header": "V"}}}}),
                "/properties/v/items/x-mcp-header",
            ),
            (
                json!({"properties": {"v": {"anyOf": [
                    {"type": "string", "x-mcp-header": "V"}]}}}),
                "/properties/v/anyOf/0/x-mcp-header",
            ),
            (
                json!({"$defs": {"v": {"type": "string", "x-mcp-header": "V"}}}),
                "/$defs/v/x-mcp-header",
            ),
        ] {
            let error = param_headers(&bad).expect_err(&bad.to_string());
            assert_eq!(error.pointer, pointer, "{bad}: {error}");
        }
    }
}
