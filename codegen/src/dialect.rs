//! The JSON Schema dialects a schema may name in `$schema`.

use mcp_bindgen_core::pointer::escape;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::error::Error;

/// Dialects a schema may name in `$schema`; anything else is an error (MCP 2025-11-25: "MUST
/// handle unsupported dialects gracefully by returning an appropriate error").
const DIALECTS: &[&str] = &[
    "json-schema.org/draft-04/schema",
    "json-schema.org/draft-06/schema",
    "json-schema.org/draft-07/schema",
    "json-schema.org/draft/2019-09/schema",
    "json-schema.org/draft/2020-12/schema",
];

/// An unknown `$schema` dialect is an error (MCP 2025-11-25: "MUST handle unsupported dialects
/// gracefully by returning an appropriate error"), whether or not the schema has properties.
pub(crate) fn check(
    schema: &Value,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Result<(), Error> {
    if let Some(dialect) = schema.get("$schema") {
        let known = dialect.as_str().is_some_and(|d| {
            DIALECTS
                .iter()
                .any(|k| d.trim_end_matches('#').ends_with(k))
        });
        if !known {
            return Err(Error::from(diag(
                "/$schema",
                format!("unsupported JSON Schema dialect {dialect}"),
                "MCP schemas are JSON Schema 2020-12 unless they say otherwise; draft-04, -06, -07 and 2019-09 are also read. Remove \"$schema\" or name one of those",
            )));
        }
    }
    Ok(())
}

/// The type names JSON Schema has.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Keywords whose value is a schema, and those whose value is an array or map of schemas.
const SUBSCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
const SUBSCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// A `type` within two edits of a JSON Schema type (`"integr"`, `"strng"`) is an error at the
/// typo, rather than a type that quietly accepts anything. Other names that are no JSON Schema
/// type (draft-03's `"any"`, Gemini's `"STRING"`, Swagger's `"file"`) are what some servers
/// really send: those degrade to a JSON value with a warning, one tool at a time.
pub(crate) fn check_type_names(
    schema: &Value,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Result<(), Error> {
    check_types_at(schema, "", 0, diag)
}

fn check_types_at(
    schema: &Value,
    pointer: &str,
    depth: usize,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Result<(), Error> {
    // Deep schemas are cut later (with a warning); nothing to check past that.
    let Some(object) = schema.as_object().filter(|_| depth < 128) else {
        return Ok(());
    };
    let names: Vec<(String, &str)> = match object.get("type") {
        Some(Value::String(name)) => vec![(format!("{pointer}/type"), name.as_str())],
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((format!("{pointer}/type/{i}"), v.as_str()?)))
            .collect(),
        _ => Vec::new(),
    };
    for (at, name) in names {
        if TYPES.contains(&name) {
            continue;
        }
        let guess = TYPES
            .iter()
            .map(|t| (edit_distance(name, t), *t))
            .min()
            .filter(|(d, _)| *d <= 2);
        if let Some((_, meant)) = guess {
            return Err(Error::from(diag(
                &at,
                format!("unknown type {name:?}"),
                &format!(
                    "JSON Schema's types are null, boolean, object, array, number, string and \
                     integer: did you mean \"{meant}\"?"
                ),
            )));
        }
    }
    for (key, value) in object {
        if SUBSCHEMA.contains(&key.as_str()) {
            check_types_at(
                value,
                &format!("{pointer}/{}", escape(key)),
                depth + 1,
                diag,
            )?;
        }
        if SUBSCHEMA_LISTS.contains(&key.as_str())
            && let Some(list) = value.as_array()
        {
            for (i, item) in list.iter().enumerate() {
                check_types_at(
                    item,
                    &format!("{pointer}/{}/{i}", escape(key)),
                    depth + 1,
                    diag,
                )?;
            }
        }
        if SUBSCHEMA_MAPS.contains(&key.as_str())
            && let Some(map) = value.as_object()
        {
            for (name, item) in map {
                let at = format!("{pointer}/{}/{}", escape(key), escape(name));
                check_types_at(item, &at, depth + 1, diag)?;
            }
        }
    }
    Ok(())
}

/// Levenshtein distance, for a "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}
