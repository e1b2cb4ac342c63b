//! The portable schema profile, the one every SDK we interoperate with reads (ARCHITECTURE.md):
//! an object root, `$defs` inlined where the type is not recursive, only standard `format`
//! values, `Option` as "not required" with a plain type, no `$schema`, no root title or
//! description (the tool has its own).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The `format` values of JSON Schema 2020-12; schemars' `uint32`, `double`, ... are dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

fn generate<T: JsonSchema + ?Sized>(serialize: bool) -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    if serialize {
        settings = settings.for_serialize();
    }
    let mut value = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
        root.remove("description");
        root.remove("$schema");
    }
    portable(&mut value);
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The input schema of a tool's arguments type: always an object schema.
pub fn input_schema<T: JsonSchema + ?Sized>() -> Map<String, Value> {
    let mut schema = generate::<T>(false);
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        schema.insert("type".into(), Value::String("object".into()));
    }
    schema
}

/// The schema of an event's payload type as it is serialized (always an object schema: an
/// occurrence's `data` is an object), and the type's doc comment.
pub(crate) fn payload_schema<T: JsonSchema + ?Sized>() -> (Map<String, Value>, Option<String>) {
    let doc = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut schema = generate::<T>(true);
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        schema.insert("type".into(), Value::String("object".into()));
    }
    (schema, doc)
}

/// The output schema of a handler's result type, and whether values must be wrapped as
/// `{"result": value}` to make `structuredContent` an object (MCP 2025-06-18 to 2025-11-25).
/// `()` gives an empty object.
pub fn output_schema<T: JsonSchema + ?Sized>() -> (Map<String, Value>, bool) {
    let schema = generate::<T>(true);
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => (schema, false),
        Some("null") => {
            let mut empty = Map::new();
            empty.insert("type".into(), Value::String("object".into()));
            empty.insert("additionalProperties".into(), Value::Bool(false));
            (empty, false)
        }
        _ => {
            // `$defs` (kept only for recursive types) move to the new root, where their
            // `#/$defs/..` references still resolve.
            let mut inner = schema;
            let defs = inner.remove("$defs");
            let mut wrapper = Map::new();
            wrapper.insert("type".into(), Value::String("object".into()));
            let mut properties = Map::new();
            properties.insert("result".into(), Value::Object(inner));
            wrapper.insert("properties".into(), Value::Object(properties));
            wrapper.insert("required".into(), Value::Array(vec!["result".into()]));
            if let Some(defs) = defs {
                wrapper.insert("$defs".into(), defs);
            }
            (wrapper, true)
        }
    }
}

fn portable(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(format)) = object.get("format")
                && !STANDARD_FORMATS.contains(&format.as_str())
            {
                // The width of an `i32` field survives as its bounds, which a client's
                // generator reads back as `i32`.
                if let Some((min, max)) = integer_bounds(format) {
                    tighten(object, "minimum", min, |new, old| new > old);
                    tighten(object, "maximum", max, |new, old| new < old);
                }
                object.remove("format");
            }
            // `Option<T>` of a field that is not required: the plain type.
            let required: Vec<String> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        strip_null(property);
                    }
                }
            }
            object.values_mut().for_each(portable);
        }
        Value::Array(items) => items.iter_mut().for_each(portable),
        _ => {}
    }
}

/// The range of schemars' integer formats narrower than 64 bits.
fn integer_bounds(format: &str) -> Option<(i64, i64)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        _ => return None,
    })
}

/// Sets `key` to `bound` unless the schema already has one at least as tight.
fn tighten(object: &mut Map<String, Value>, key: &str, bound: i64, tighter: fn(f64, f64) -> bool) {
    let keep = object
        .get(key)
        .and_then(Value::as_f64)
        .is_some_and(|old| !tighter(bound as f64, old));
    if !keep {
        object.insert(key.into(), Value::from(bound));
    }
}

/// `{"type": ["T", "null"]}` → `{"type": "T"}`; `{"anyOf": [X, {"type": "null"}]}` → X.
fn strip_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            object.insert("type".into(), only);
        }
        return;
    }
    if let Some(Value::Array(any)) = object.get("anyOf")
        && any.len() == 2
        && let Some(i) = any
            .iter()
            .position(|s| s == &serde_json::json!({"type": "null"}))
        && let Value::Object(other) = any[1 - i].clone()
    {
        object.remove("anyOf");
        for (k, v) in other {
            object.entry(k).or_insert(v);
        }
    }
}

/// No arguments: any object (an event type whose subscriptions take none).
impl JsonSchema for crate::NoArguments {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArguments".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}
