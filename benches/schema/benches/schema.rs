//! Checking one call's arguments against the tool's input schema, three ways, in one run:
//! - `interpreted`: `mcp_bindgen::__private::validate_value`, the keyword-by-keyword interpreter the
//!   runtime used before (and keeps as the reference the compiled checker is tested against);
//! - `compiled`: `mcp_bindgen::__private::CompiledSchema`, what `ToolSchema` and the server's registry use;
//! - `jsonschema`: the jsonschema crate's compiled validator.
//!
//! Each schema is compiled once, outside the timed loop (`compile/...` times that step). The
//! values are valid arguments, the case every call pays for. Before timing, the three must agree
//! on every value here.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::__private::{CompiledSchema, validate_value};
use serde_json::{Value, json};

/// An input schema from a checked-in capture.
fn captured(capture: &str, tool: &str) -> Value {
    let capture: Value = serde_json::from_str(capture).expect("capture is JSON");
    capture["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == tool))
        .map(|t| t["inputSchema"].clone())
        .unwrap_or_else(|| panic!("no tool {tool} in the capture"))
}

fn cases() -> Vec<(&'static str, Value, Value)> {
    let saving_throw = include_str!("../../../generated/captures/saving_throw.tools.json");
    vec![
        // The `add {a: i64, b: i64}` tool of the dispatch benches, as schemars derives it.
        (
            "add_a_b",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Add",
                   "description": "Add two numbers.", "type": "object",
                   "properties": {"a": {"type": "integer", "format": "int64"},
                                  "b": {"type": "integer", "format": "int64"}},
                   "required": ["a", "b"]}),
            json!({"a": 2, "b": 3}),
        ),
        // enum, minimum, additionalProperties: false, allOf of two if/then.
        (
            "saving_throw_submit_action",
            captured(saving_throw, "submit_action"),
            json!({"run_id": "run-7f3a", "content": "I pick the second door.",
                   "action_type": "choice", "choice": 2}),
        ),
        (
            "hex_id_pattern",
            json!({"type": "object",
                   "properties": {"id": {"type": "string", "pattern": "^[0-9a-f]{24}$"},
                                  "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
                   "required": ["id"], "additionalProperties": false}),
            json!({"id": "64b7f0c2a1e4d3b2c1a09f8e", "limit": 50}),
        ),
        (
            "ranges",
            json!({"type": "object",
                   "properties": {
                       "x": {"type": "number", "minimum": -1000, "maximum": 1000},
                       "y": {"type": "number", "exclusiveMinimum": -1000, "exclusiveMaximum": 1000},
                       "seed": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64},
                       "count": {"type": "integer", "minimum": 1, "maximum": 9007199254740993u64},
                       "name": {"type": "string", "minLength": 1, "maxLength": 32}},
                   "required": ["x", "y"]}),
            json!({"x": 12.5, "y": -3, "seed": 9007199254740993u64, "count": 3, "name": "Ælfrida"}),
        ),
        (
            "if_then_shapes",
            json!({"type": "object",
                   "properties": {"kind": {"enum": ["circle", "rect"]},
                                  "radius": {"type": "number", "exclusiveMinimum": 0},
                                  "width": {"type": "number", "minimum": 0},
                                  "height": {"type": "number", "minimum": 0}},
                   "required": ["kind"],
                   "if": {"properties": {"kind": {"const": "circle"}}},
                   "then": {"required": ["radius"]},
                   "else": {"required": ["width", "height"]}}),
            json!({"kind": "rect", "width": 3, "height": 4.5}),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, schema, value) in cases() {
        let compiled = CompiledSchema::new(&schema);
        let peer = jsonschema::validator_for(&schema).expect("jsonschema compiles the schema");
        assert_eq!(validate_value(&schema, &value), Ok(()), "{name}");
        assert_eq!(compiled.validate(&value), Ok(()), "{name}");
        assert!(peer.is_valid(&value), "{name}");

        let mut check = c.benchmark_group(format!("schema_check/{name}"));
        check.bench_function("interpreted", |b| {
            b.iter(|| validate_value(black_box(&schema), black_box(&value)))
        });
        check.bench_function("compiled", |b| {
            b.iter(|| compiled.validate(black_box(&value)))
        });
        check.bench_function("jsonschema", |b| {
            b.iter(|| peer.validate(black_box(&value)).is_ok())
        });
        check.finish();

        let mut compile = c.benchmark_group(format!("schema_compile/{name}"));
        compile.bench_function("compiled", |b| {
            b.iter(|| CompiledSchema::new(black_box(&schema)))
        });
        compile.bench_function("jsonschema", |b| {
            b.iter(|| jsonschema::validator_for(black_box(&schema)).is_ok())
        });
        compile.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
