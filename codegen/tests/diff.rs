//! `diff`: one pair of tool lists per rule (both directions where direction matters) with the
//! expected changes as snapshots; a capture against itself and its keys reordered; hostile
//! inputs; real releases of published servers (`tests/fixtures/diff/`).

use std::path::{Path, PathBuf};

use expect_test::{Expect, expect, expect_file};
use mcp_bindgen_codegen::capture;
use mcp_bindgen_codegen::diff::{self, Format, Level, Options, Report};
use mcp_bindgen_codegen::model::Capture;
use serde_json::{Value, json};

fn parse(name: &str, tools: &Value) -> Capture {
    let text = serde_json::to_string_pretty(&json!({ "tools": tools })).expect("json");
    capture::parse(Path::new(name), text).expect("valid capture")
}

fn run(old: &Value, new: &Value, level: Level) -> Report {
    diff::diff(
        &parse("old.json", old),
        &parse("new.json", new),
        &Options { level },
    )
}

/// One line per change: `severity rule tool pointer: message`.
fn lines(report: &Report) -> String {
    let mut out = String::new();
    for c in &report.changes {
        out.push_str(&format!(
            "{} {} {} {}: {}\n",
            c.severity.as_str(),
            c.rule,
            c.tool,
            if c.pointer.is_empty() {
                "-"
            } else {
                &c.pointer
            },
            c.message
        ));
    }
    out
}

fn check(old: Value, new: Value, expected: Expect) {
    expected.assert_eq(&lines(&run(&old, &new, Level::Wire)));
}

fn check_source(old: Value, new: Value, expected: Expect) {
    expected.assert_eq(&lines(&run(&old, &new, Level::Source)));
}

/// A tool named `t` with this input schema.
fn input(schema: Value) -> Value {
    json!([{ "name": "t", "inputSchema": schema }])
}

/// A tool named `t` without arguments and with this output schema.
fn output(schema: Value) -> Value {
    json!([{ "name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema }])
}

/// An object schema with these properties and required names.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// The same property schema `a` and `b` in both directions: `(input report, output report)`.
fn both_ways(a: Value, b: Value) -> String {
    let wrap = |s: &Value| object(json!({ "p": s }), &["p"]);
    let (a, b) = (wrap(&a), wrap(&b));
    format!(
        "input:\n{}output:\n{}",
        lines(&run(&input(a.clone()), &input(b.clone()), Level::Wire)),
        lines(&run(&output(a), &output(b), Level::Wire))
    )
}

#[test]
fn tool_removed_and_added() {
    check(
        json!([{"name": "a", "inputSchema": {"type": "object"}}]),
        json!([{"name": "b", "inputSchema": object(json!({"x": {"type": "string"}}), &["x"])}]),
        expect![[r#"
            breaking tool-removed a -: tool removed
            info tool-added b -: new tool
        "#]],
    );
}

#[test]
fn removed_tool_probably_renamed_by_close_name() {
    let schema = object(json!({"n": {"type": "integer"}}), &["n"]);
    check(
        json!([{"name": "getTinyImages", "inputSchema": schema}]),
        json!([
            {"name": "get-tiny-image", "inputSchema": schema},
            {"name": "get-big-image", "inputSchema": schema},
        ]),
        expect![[r#"
            breaking tool-removed getTinyImages -: tool removed; probably renamed to `get-tiny-image`
            info tool-added get-tiny-image -: new tool (probably the new name of `getTinyImages`)
            info tool-added get-big-image -: new tool
        "#]],
    );
}

/// The only added tool that accepts the old arguments is the rename, whatever its name;
/// descriptions and a dropped `additionalProperties: false` do not matter.
#[test]
fn removed_tool_probably_renamed_as_the_only_candidate() {
    let old = json!({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "number", "description": "first"}, "b": {"type": "number"}},
        "required": ["a", "b"]});
    let new = json!({"type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}},
        "required": ["a", "b"]});
    check(
        json!([{"name": "add", "inputSchema": old}]),
        json!([
            {"name": "get-sum", "inputSchema": new},
            // Takes none of the old arguments: ignoring them is no rename.
            {"name": "get-env", "inputSchema": {"type": "object"}},
            // Needs an argument the old callers do not send.
            {"name": "get-product", "inputSchema": object(json!({"a": {}, "z": {}}), &["a", "z"])},
        ]),
        expect![[r#"
            breaking tool-removed add -: tool removed; probably renamed to `get-sum`
            info tool-added get-sum -: new tool (probably the new name of `add`)
            info tool-added get-env -: new tool
            info tool-added get-product -: new tool
        "#]],
    );
}

/// Two candidates and neither name is close: no guess.
#[test]
fn no_rename_when_ambiguous() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    check(
        json!([{"name": "find", "inputSchema": schema}]),
        json!([{"name": "search", "inputSchema": schema}, {"name": "lookup", "inputSchema": schema}]),
        expect![[r#"
            breaking tool-removed find -: tool removed
            info tool-added search -: new tool
            info tool-added lookup -: new tool
        "#]],
    );
}

#[test]
fn title_and_description_are_info() {
    check(
        json!([{"name": "t", "description": "Old.", "inputSchema":
            object(json!({"p": {"type": "string", "description": "a"}}), &[])}]),
        json!([{"name": "t", "title": "T", "description": "New.", "inputSchema":
            object(json!({"p": {"type": "string", "description": "b"}}), &[])}]),
        expect![[r#"
            info title-changed t /title: title none -> "T"
            info description-changed t /description: description "Old." -> "New."
            info description-changed t /inputSchema/properties/p/description: description "a" -> "b"
        "#]],
    );
}

/// Hints compare by effective value: an absent `destructiveHint` is `true`, so stating `true`
/// is no change and stating `false` is one; `readOnlyHint` flipping is a warning.
#[test]
fn hints_compare_by_effective_value() {
    let tool = |annotations: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}]);
    check(
        tool(json!({})),
        tool(
            json!({"destructiveHint": true, "openWorldHint": true, "readOnlyHint": false, "idempotentHint": false}),
        ),
        expect![[r#""#]],
    );
    check(
        tool(json!({"readOnlyHint": true, "destructiveHint": false})),
        tool(json!({"idempotentHint": true, "openWorldHint": false})),
        expect![[r#"
            warning read-only-hint-changed t /annotations/readOnlyHint: readOnlyHint true -> false (absent hints count as the spec's default): the tool may now change its environment, destructively (destructiveHint true or absent)
            info idempotent-hint-changed t /annotations/idempotentHint: idempotentHint false -> true (absent hints count as the spec's default)
            info open-world-hint-changed t /annotations/openWorldHint: openWorldHint true -> false (absent hints count as the spec's default)
        "#]],
    );
}

/// A new required argument breaks even with a default; a new optional one does not.
#[test]
fn input_properties() {
    check(
        input(object(
            json!({"a": {"type": "string"}, "b": {"type": "string"}, "gone": {}}),
            &["a"],
        )),
        input(object(
            json!({"a": {"type": "string"}, "b": {"type": "string"},
                   "c": {"type": "integer", "default": 3}, "d": {"type": "boolean"}}),
            &["b", "c"],
        )),
        expect![[r#"
            breaking input-property-became-required t /inputSchema/properties/b: argument `b` became required
            breaking input-required-property-added t /inputSchema/properties/c: new required argument `c` (it has a default, but a validating server refuses calls without it)
            warning input-property-removed t /inputSchema/properties/gone: argument `gone` removed (a client still sending it may be refused)
            info input-property-became-optional t /inputSchema/properties/a: argument `a` became optional
            info input-property-added t /inputSchema/properties/d: new optional argument `d`
        "#]],
    );
}

/// A result property removed or made optional breaks; a new one does not.
#[test]
fn output_properties() {
    check(
        output(object(
            json!({"a": {"type": "string"}, "b": {"type": "string"}, "gone": {}}),
            &["a"],
        )),
        output(object(
            json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "integer"}}),
            &["b"],
        )),
        expect![[r#"
            breaking output-property-became-optional t /outputSchema/properties/a: result property `a` is no longer required: it may be absent
            breaking output-property-removed t /outputSchema/properties/gone: result property `gone` removed
            info output-property-became-required t /outputSchema/properties/b: result property `b` became required
            info output-property-added t /outputSchema/properties/c: new optional result property `c`
        "#]],
    );
}

#[test]
fn output_schema_added_and_removed() {
    let with = json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": object(json!({}), &[])}]);
    let without = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    check(
        without.clone(),
        with.clone(),
        expect![[r#"
            info output-schema-added t /outputSchema: outputSchema added: results are now typed
        "#]],
    );
    check(
        with,
        without,
        expect![[r#"
            breaking output-schema-removed t /outputSchema: outputSchema removed: structuredContent is no longer promised
        "#]],
    );
}

/// `integer` is part of `number`: integer -> number widens, number -> integer narrows.
#[test]
fn type_narrowed_and_widened() {
    expect![[r#"
        input:
        breaking input-type-narrowed t /inputSchema/properties/p/type: type number -> integer: non-integer number values of `p` are no longer accepted
        output:
        info output-type-narrowed t /outputSchema/properties/p/type: type number -> integer
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "number"}),
        json!({"type": "integer"}),
    ));
    expect![[r#"
        input:
        info input-type-widened t /inputSchema/properties/p/type: type string -> string | null
        output:
        breaking output-type-widened t /outputSchema/properties/p/type: type string -> string | null: `p` may now be null
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string"}),
        json!({"type": ["string", "null"]}),
    ));
    expect![[r#"
        input:
        breaking input-type-changed t /inputSchema/properties/p/type: type string -> boolean: string values of `p` are no longer accepted
        output:
        breaking output-type-changed t /outputSchema/properties/p/type: type string -> boolean: `p` may now be boolean
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string"}),
        json!({"type": "boolean"}),
    ));
}

#[test]
fn enum_values_removed_and_added() {
    expect![[r#"
        input:
        breaking input-enum-changed t /inputSchema/properties/p/enum: the value "b" is no longer accepted; the value "c" is now accepted
        output:
        breaking output-enum-changed t /outputSchema/properties/p/enum: the value "b" is no longer returned; results may now hold the value "c"
    "#]]
    .assert_eq(&both_ways(
        json!({"enum": ["a", "b"]}),
        json!({"enum": ["a", "c"]}),
    ));
    expect![[r#"
        input:
        breaking input-enum-narrowed t /inputSchema/properties/p/const: now limited to the value "a": other values are no longer accepted
        output:
        info output-enum-narrowed t /outputSchema/properties/p/const: now limited to the value "a"
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string"}),
        json!({"type": "string", "const": "a"}),
    ));
}

/// Bounds compare by the values they admit: on integers, `exclusiveMinimum: 0` is
/// `minimum: 1` (draft 4's boolean form too); on numbers it is not.
#[test]
fn bounds_compare_by_admitted_values() {
    expect![[r#"
        input:
        output:
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "integer", "exclusiveMinimum": 0, "maximum": 10}),
        json!({"type": "integer", "minimum": 1, "exclusiveMaximum": 11}),
    ));
    expect![[r#"
        input:
        output:
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true}),
        json!({"type": "integer", "minimum": 1}),
    ));
    expect![[r#"
        input:
        info input-minimum-widened t /inputSchema/properties/p/minimum: minimum > 0 -> >= 0
        output:
        breaking output-minimum-widened t /outputSchema/properties/p/minimum: minimum > 0 -> >= 0
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "number", "exclusiveMinimum": 0}),
        json!({"type": "number", "minimum": 0}),
    ));
    expect![[r#"
        input:
        breaking input-maximum-narrowed t /inputSchema/properties/p/maximum: maximum <= 100 -> <= 50
        output:
        info output-maximum-narrowed t /outputSchema/properties/p/maximum: maximum <= 100 -> <= 50
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "integer", "maximum": 100}),
        json!({"type": "integer", "maximum": 50}),
    ));
    expect![[r#"
        input:
        info input-maximum-widened t /inputSchema/properties/p/maximum: maximum <= 100 -> none
        output:
        breaking output-maximum-widened t /outputSchema/properties/p/maximum: maximum <= 100 -> none
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "integer", "maximum": 100}),
        json!({"type": "integer"}),
    ));
}

#[test]
fn lengths_patterns_and_counts() {
    expect![[r#"
        input:
        breaking input-max-length-narrowed t /inputSchema/properties/p/maxLength: maxLength 100 -> 10
        breaking input-pattern-narrowed t /inputSchema/properties/p/pattern: pattern none -> "^[a-z]+$"
        info input-min-length-widened t /inputSchema/properties/p/minLength: minLength 2 -> 1
        output:
        breaking output-min-length-widened t /outputSchema/properties/p/minLength: minLength 2 -> 1
        info output-max-length-narrowed t /outputSchema/properties/p/maxLength: maxLength 100 -> 10
        info output-pattern-narrowed t /outputSchema/properties/p/pattern: pattern none -> "^[a-z]+$"
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string", "maxLength": 100, "minLength": 2}),
        json!({"type": "string", "maxLength": 10, "minLength": 1, "pattern": "^[a-z]+$"}),
    ));
    expect![[r#"
        input:
        breaking input-pattern-changed t /inputSchema/properties/p/pattern: pattern "^a" -> "^b"
        breaking input-format-narrowed t /inputSchema/properties/p/format: format none -> "uri"
        output:
        breaking output-pattern-changed t /outputSchema/properties/p/pattern: pattern "^a" -> "^b"
        info output-format-narrowed t /outputSchema/properties/p/format: format none -> "uri"
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string", "pattern": "^a"}),
        json!({"type": "string", "pattern": "^b", "format": "uri"}),
    ));
    expect![[r#"
        input:
        breaking input-max-items-narrowed t /inputSchema/properties/p/maxItems: maxItems none -> 5
        breaking input-unique-items-narrowed t /inputSchema/properties/p/uniqueItems: uniqueItems false -> true
        breaking input-type-narrowed t /inputSchema/properties/p/items/type: type number -> integer: non-integer number values of the items are no longer accepted
        output:
        info output-max-items-narrowed t /outputSchema/properties/p/maxItems: maxItems none -> 5
        info output-unique-items-narrowed t /outputSchema/properties/p/uniqueItems: uniqueItems false -> true
        info output-type-narrowed t /outputSchema/properties/p/items/type: type number -> integer
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "array", "items": {"type": "number"}}),
        json!({"type": "array", "items": {"type": "integer"}, "maxItems": 5, "uniqueItems": true}),
    ));
}

/// A new `anyOf` branch widens: it breaks what a client receives, not what it sends. An
/// optional field written as `anyOf: [X, null]` (pydantic) is X widened, not a new schema.
#[test]
fn alternatives_added_and_removed() {
    expect![[r#"
        input:
        info input-any-of-widened t /inputSchema/properties/p/anyOf/2: the value null for `p` is now also accepted
        output:
        breaking output-any-of-widened t /outputSchema/properties/p/anyOf/2: `p` may now be returned as the value null
    "#]]
    .assert_eq(&both_ways(
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
    ));
    expect![[r#"
        input:
        breaking input-one-of-narrowed t /inputSchema/properties/p/oneOf: the integer form of `p` is no longer accepted
        output:
        info output-one-of-narrowed t /outputSchema/properties/p/oneOf: the integer form of `p` is no longer returned
    "#]]
    .assert_eq(&both_ways(
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"oneOf": [{"type": "string"}]}),
    ));
    expect![[r#"
        input:
        info description-changed t /inputSchema/properties/p/title: title "P" -> none
        info input-any-of-widened t /inputSchema/properties/p/anyOf/1: the value null for `p` is now also accepted
        output:
        breaking output-any-of-widened t /outputSchema/properties/p/anyOf/1: `p` may now be returned as the value null
        info description-changed t /outputSchema/properties/p/title: title "P" -> none
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string", "title": "P"}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ));
}

#[test]
fn additional_properties_false_appearing() {
    let open = object(json!({"a": {"type": "string"}}), &[]);
    let mut closed = open.clone();
    closed["additionalProperties"] = json!(false);
    check(
        input(open.clone()),
        input(closed.clone()),
        expect![[r#"
            warning input-additional-properties-closed t /inputSchema/additionalProperties: additionalProperties: false appeared: arguments not in the schema are refused
        "#]],
    );
    check(
        output(open.clone()),
        output(closed.clone()),
        expect![[r#"
            info output-additional-properties-closed t /outputSchema/additionalProperties: additionalProperties: false appeared in the result
        "#]],
    );
    check(
        input(closed),
        input(open),
        expect![[r#"
            info input-additional-properties-opened t /inputSchema/additionalProperties: additionalProperties: false is gone
        "#]],
    );
}

#[test]
fn default_changed_is_a_warning_on_arguments() {
    check(
        input(object(
            json!({"n": {"type": "integer", "default": 10}}),
            &[],
        )),
        input(object(
            json!({"n": {"type": "integer", "default": 20}}),
            &[],
        )),
        expect![[r#"
            warning input-default-changed t /inputSchema/properties/n/default: default 10 -> 20: calls that omit it behave differently
        "#]],
    );
}

/// Moving a definition (`definitions` to `$defs`, renamed, inlined) is not a change; a change
/// inside it is reported at the path a value takes.
#[test]
fn refs_are_resolved_before_comparing() {
    let old = json!({"type": "object", "properties": {"user": {"$ref": "#/definitions/User"}},
        "definitions": {"User": object(json!({"id": {"type": "integer"}}), &["id"])}});
    let moved = json!({"type": "object", "properties": {"user": {"$ref": "#/$defs/Person"}},
        "$defs": {"Person": {"$ref": "#/$defs/Inner"},
                  "Inner": object(json!({"id": {"type": "integer"}}), &["id"])}});
    let inlined = json!({"type": "object",
        "properties": {"user": object(json!({"id": {"type": "integer", "maximum": 9}}), &["id"])}});
    check(input(old.clone()), input(moved), expect![[r#""#]]);
    check(
        input(old),
        input(inlined),
        expect![[r#"
            breaking input-maximum-narrowed t /inputSchema/properties/user/properties/id/maximum: maximum none -> <= 9
        "#]],
    );
}

/// Recursive schemas terminate; a change inside the recursion is reported once.
#[test]
fn recursion_terminates() {
    let tree = |leaf: &str| {
        json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object",
            "properties": {"value": {"type": leaf},
                           "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}})
    };
    check(
        input(tree("string")),
        input(tree("string")),
        expect![[r#""#]],
    );
    check(
        input(tree("integer")),
        input(tree("number")),
        expect![[r#"
            info input-type-widened t /inputSchema/properties/value/type: type integer -> number
        "#]],
    );
}

/// `--level source` adds what changes the generated Rust.
#[test]
fn source_level() {
    let old = json!([{"name": "t",
        "inputSchema": object(json!({"path": {"type": "string"}}), &["path"]),
        "outputSchema": object(json!({"kind": {"enum": ["a"]}, "old_name": {"type": "integer"}}), &[])}]);
    let new = json!([{"name": "t",
        "inputSchema": object(json!({"path": {"type": "string"}, "depth": {"type": "integer"}}), &["path"]),
        "outputSchema": object(json!({"kind": {"enum": ["a", "b"]}, "new_name": {"type": "integer"}}), &[])}]);
    check_source(
        old.clone(),
        new.clone(),
        expect![[r#"
            breaking source-field-added t /inputSchema/properties/depth: the arguments struct gains field `depth` (struct literals stop compiling)
            breaking output-enum-widened t /outputSchema/properties/kind/enum: results may now hold the value "b"
            breaking output-property-removed t /outputSchema/properties/old_name: result property `old_name` removed
            breaking source-field-renamed t /outputSchema/properties/new_name: `old_name` renamed to `new_name`: its field is renamed
            warning source-variant-added t /outputSchema/properties/kind/enum: the generated enum gains a variant (exhaustive matches stop compiling)
            info input-property-added t /inputSchema/properties/depth: new optional argument `depth`
            info output-property-added t /outputSchema/properties/new_name: new optional result property `new_name`
        "#]],
    );
    // On the wire the same pair has no source rules.
    let wire = lines(&run(&old, &new, Level::Wire));
    assert!(!wire.contains("source-"), "{wire}");
    check_source(
        json!([{"name": "t", "inputSchema": {"type": "object"}}]),
        json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": object(json!({}), &[])}]),
        expect![[r#"
            breaking source-result-type-changed t /outputSchema: the method returns a result struct instead of Value
            info output-schema-added t /outputSchema: outputSchema added: results are now typed
        "#]],
    );
}

/// The three formats of one report; JSON has the documented shape.
#[test]
fn formats() {
    let report = run(
        &json!([{"name": "a", "inputSchema": {"type": "object"}},
                {"name": "b|c", "inputSchema": object(json!({"x": {}}), &[])}]),
        &json!([{"name": "b|c", "inputSchema": object(json!({"x": {}}), &["x"])}]),
        Level::Wire,
    );
    expect![[r#"
        old.json -> new.json: 2 breaking, 0 warnings, 0 info
        tools: 2 -> 1 (0 added, 1 removed, 1 changed)

        a
          breaking  tool removed  [tool-removed]

        b|c
          breaking  /inputSchema/properties/x: argument `x` became required  [input-property-became-required]
    "#]]
    .assert_eq(&Format::Text.render(&report, "old.json", "new.json"));
    expect![[r#"
        ### MCP tool changes: 2 breaking, 0 warnings, 0 info

        `old.json` → `new.json`; tools: 2 -> 1 (0 added, 1 removed, 1 changed)

        | severity | tool | where | change | rule |
        |---|---|---|---|---|
        | **breaking** | `a` |  | tool removed | `tool-removed` |
        | **breaking** | `b\|c` | `/inputSchema/properties/x` | argument `x` became required | `input-property-became-required` |
    "#]]
    .assert_eq(&Format::Markdown.render(&report, "old.json", "new.json"));
    let json: Value =
        serde_json::from_str(&Format::Json.render(&report, "old.json", "new.json")).expect("json");
    assert_eq!(
        json["changes"][1],
        json!({"rule": "input-property-became-required", "severity": "breaking", "kind": "tool", "tool": "b|c",
               "pointer": "/inputSchema/properties/x",
               "message": "argument `x` became required"})
    );
    assert_eq!(
        json["summary"],
        json!({"breaking": 2, "warning": 0, "info": 0, "old_tools": 2, "new_tools": 1,
               "added": 0, "removed": 1, "changed": 1, "level": "wire"})
    );
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

/// Every capture the repo holds, adversarial and large ones included.
fn all_captures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "tests/fixtures/captures",
        "tests/fixtures/edge",
        "tests/fixtures/large",
        "generated/captures",
    ] {
        for entry in std::fs::read_dir(workspace().join(dir))
            .expect("dir")
            .flatten()
        {
            let path = entry.path();
            if path.to_string_lossy().ends_with(".tools.json") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "{out:?}");
    out
}

/// Reverses the key order of every object.
fn reorder(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reorder(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reorder).collect()),
        other => other.clone(),
    }
}

/// A capture against itself, and against its own keys reordered (with a vendor field on each
/// tool, so that no tool is skipped as identical and every schema is walked): no changes.
#[test]
fn a_capture_against_itself_and_reordered_has_no_changes() {
    for path in all_captures() {
        let old = capture::read(&path).expect("reads");
        let same = diff::diff(&old, &old, &Options::default());
        assert!(
            same.changes.is_empty(),
            "{}: {:?}",
            path.display(),
            same.changes
        );
        let text = std::fs::read_to_string(&path).expect("read");
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit(); // the adversarial captures nest deeper than serde's 128
        let mut value = reorder(&serde::Deserialize::deserialize(&mut de).expect("json"));
        if let Some(tools) = value.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools {
                tool["x-touched"] = json!(true);
            }
        }
        let new = capture::parse(&path, value.to_string()).expect("parses");
        let report = diff::diff(
            &old,
            &new,
            &Options {
                level: Level::Source,
            },
        );
        assert!(
            report.changes.is_empty(),
            "{}: {}",
            path.display(),
            lines(&report)
        );
    }
}

/// Every pair of the repo's captures, adversarial ones included, compares without a panic.
#[test]
fn hostile_pairs_do_not_panic() {
    let captures: Vec<Capture> = all_captures()
        .iter()
        .map(|p| capture::read(p).expect("reads"))
        .collect();
    for old in &captures {
        for new in &captures {
            let report = diff::diff(
                old,
                new,
                &Options {
                    level: Level::Source,
                },
            );
            assert_eq!(
                report.summary.breaking + report.summary.warning + report.summary.info,
                report.changes.len()
            );
        }
    }
}

/// A definition that refers to the next one twice, 40 deep (2^40 paths), compares once per
/// definition; a chain of definitions deeper than the comparison goes is reported, not
/// followed without end.
#[test]
fn exponential_and_deep_refs_are_bounded() {
    let laughs = |leaf: &str| {
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {
                    "l": {"$ref": format!("#/$defs/D{}", i + 1)},
                    "r": {"$ref": format!("#/$defs/D{}", i + 1)}}}),
            );
        }
        defs.insert("D40".into(), json!({"type": leaf}));
        json!({"$ref": "#/$defs/D0", "$defs": defs})
    };
    let report = run(
        &input(laughs("string")),
        &input(laughs("integer")),
        Level::Wire,
    );
    assert_eq!(report.changes.len(), 1, "{}", lines(&report));
    assert_eq!(report.changes[0].rule, "input-type-changed");

    let chain = |leaf: &str| {
        let mut defs = serde_json::Map::new();
        for i in 0..400 {
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {"n": {"$ref": format!("#/$defs/D{}", i + 1)}}}),
            );
        }
        defs.insert("D400".into(), json!({"type": leaf}));
        json!({"$ref": "#/$defs/D0", "$defs": defs})
    };
    let report = run(
        &input(chain("string")),
        &input(chain("integer")),
        Level::Wire,
    );
    assert_eq!(report.changes.len(), 1, "{}", lines(&report));
    assert_eq!(report.changes[0].rule, "comparison-incomplete");
    assert_eq!(report.changes[0].severity, diff::Severity::Warning);
}

/// Every rule the engine can emit is in the rules table (`diff/RULES.md`, also the `rules`
/// module's docs).
#[test]
fn every_rule_is_documented() {
    let readme = std::fs::read_to_string(workspace().join("diff/RULES.md")).expect("RULES.md");
    for rule in diff::rules::RULES {
        assert!(
            readme.contains(&format!("`{}`", rule.id)),
            "{} is not in diff/RULES.md",
            rule.id
        );
    }
    for constraint in diff::rules::CONSTRAINTS {
        assert!(
            readme.contains(&format!("`{constraint}`")),
            "{constraint} is not in diff/RULES.md"
        );
    }
    assert_eq!(
        diff::rules::lookup("input-max-length-narrowed"),
        Some((diff::Severity::Breaking, Level::Wire))
    );
    assert_eq!(
        diff::rules::lookup("output-any-of-widened"),
        Some((diff::Severity::Breaking, Level::Wire))
    );
    assert_eq!(diff::rules::lookup("nonsense"), None);
}

/// Real releases of published servers, captured with `mcp-bindgen capture` (see
/// `tests/fixtures/diff/README.md` for the versions and commands). What each report must hold
/// is checked against the hand-written `expected.toml` of each pair (`tests/diff_pairs.rs`);
/// these snapshots pin only how the text report words and groups it.
fn release_pair(name: &str) -> String {
    let dir = workspace().join("tests/fixtures/diff").join(name);
    let old = capture::read(&dir.join("old.tools.json")).expect("old");
    let new = capture::read(&dir.join("new.tools.json")).expect("new");
    let report = diff::diff(&old, &new, &Options::default());
    Format::Text.render(&report, "old.tools.json", "new.tools.json")
}

#[test]
fn release_server_everything() {
    expect_file!["../../tests/fixtures/diff/server-everything/report.txt"]
        .assert_eq(&release_pair("server-everything"));
}

#[test]
fn release_server_github() {
    expect_file!["../../tests/fixtures/diff/server-github/report.txt"]
        .assert_eq(&release_pair("server-github"));
}

#[test]
fn release_mcp_server_git() {
    expect_file!["../../tests/fixtures/diff/mcp-server-git/report.txt"]
        .assert_eq(&release_pair("mcp-server-git"));
}

#[test]
fn release_mcp_server_git_2026() {
    expect_file!["../../tests/fixtures/diff/mcp-server-git-2026/report.txt"]
        .assert_eq(&release_pair("mcp-server-git-2026"));
}

#[test]
fn release_server_filesystem() {
    expect_file!["../../tests/fixtures/diff/server-filesystem/report.txt"]
        .assert_eq(&release_pair("server-filesystem"));
}

/// At `--level source`: every method's result type changes.
#[test]
fn release_server_memory_at_source_level() {
    let dir = workspace().join("tests/fixtures/diff/server-memory");
    let old = capture::read(&dir.join("old.tools.json")).expect("old");
    let new = capture::read(&dir.join("new.tools.json")).expect("new");
    let report = diff::diff(
        &old,
        &new,
        &Options {
            level: Level::Source,
        },
    );
    let text = Format::Text.render(&report, "old.tools.json", "new.tools.json");
    expect_file!["../../tests/fixtures/diff/server-memory/report-source.txt"].assert_eq(&text);
}

// The kinds of error issue 25 found on real release pairs, and the code defects it listed:
// each test below fails on the shape-based comparison it replaced.

/// Kind 1: an argument removed from closed arguments is refused by the server: breaking,
/// whether it was required (every old call sent it) or optional (calls that sent it).
#[test]
fn removed_argument_on_closed_arguments_breaks() {
    let closed = |props: Value, required: &[&str]| {
        let mut o = object(props, required);
        o["additionalProperties"] = json!(false);
        o
    };
    check(
        input(closed(
            json!({"q": {"type": "string"}, "limit": {"type": "integer"}, "page": {"type": "integer"}}),
            &["q", "limit"],
        )),
        input(closed(json!({"q": {"type": "string"}}), &["q"])),
        expect![[r#"
            breaking input-property-refused t /inputSchema/properties/limit: argument `limit` removed and the arguments are closed (additionalProperties: false): every old call sent it, and the server refuses them
            breaking input-property-refused t /inputSchema/properties/page: argument `page` removed and the arguments are closed (additionalProperties: false): calls that send it, and the server refuses them
        "#]],
    );
    // Near miss: open arguments may ignore it.
    check(
        input(object(json!({"q": {"type": "string"}, "page": {}}), &["q"])),
        input(object(json!({"q": {"type": "string"}}), &["q"])),
        expect![[r#"
            warning input-property-removed t /inputSchema/properties/page: argument `page` removed (a client still sending it may be refused)
        "#]],
    );
}

/// Kind 2: the same values spelled differently are no change, in either direction: zod 4's
/// `anyOf` of `const`s for an `enum`, a `oneOf` of single-value closed objects for one closed
/// object with an `enum` member.
#[test]
fn same_values_in_another_spelling_are_no_change() {
    let e = json!({"type": "string", "enum": ["a", "b"]});
    let any =
        json!({"anyOf": [{"type": "string", "const": "a"}, {"type": "string", "const": "b"}]});
    let one_of = json!({"oneOf": [{"const": "a"}, {"const": "b"}]});
    for (a, b) in [(&e, &any), (&any, &e), (&e, &one_of), (&one_of, &any)] {
        assert_eq!(
            both_ways(a.clone(), b.clone()),
            "input:\noutput:\n",
            "{a} -> {b}"
        );
    }
    let single = |v: &str| {
        json!({"type": "object", "properties": {"kind": {"const": v}}, "required": ["kind"],
               "additionalProperties": false})
    };
    let union = json!({"oneOf": [single("x"), single("y")]});
    let merged = json!({"type": "object", "properties": {"kind": {"enum": ["x", "y"]}},
        "required": ["kind"], "additionalProperties": false});
    assert_eq!(
        both_ways(union.clone(), merged.clone()),
        "input:\noutput:\n"
    );
    assert_eq!(both_ways(merged, union), "input:\noutput:\n");
    // Near miss: a value really gone.
    expect![[r#"
        input:
        breaking input-enum-narrowed t /inputSchema/properties/p: the value "b" is no longer accepted
        output:
        info output-enum-narrowed t /outputSchema/properties/p: the value "b" is no longer returned
    "#]]
    .assert_eq(&both_ways(
        e,
        json!({"anyOf": [{"type": "string", "const": "a"}]}),
    ));
}

/// Kind 2: a branch that admits everything an old branch did widens (breaking only for
/// results), and names the values that are new.
#[test]
fn branches_match_by_inclusion() {
    let closed = json!({"type": "object", "properties": {"a": {"type": "string"}},
        "additionalProperties": false});
    expect![[r#"
        input:
        info input-additional-properties-opened t /inputSchema/properties/p/additionalProperties: additionalProperties: false is gone
        output:
        info output-additional-properties-opened t /outputSchema/properties/p/additionalProperties: additionalProperties: false is gone
    "#]]
    .assert_eq(&both_ways(
        closed.clone(),
        json!({"type": "object", "properties": {"a": {"type": "string"}},
               "additionalProperties": true}),
    ));
    expect![[r#"
        input:
        info input-any-of-widened t /inputSchema/properties/p/anyOf/1: the string form of `p` is now also accepted
        output:
        breaking output-any-of-widened t /outputSchema/properties/p/anyOf/1: `p` may now be returned as the string form
    "#]]
    .assert_eq(&both_ways(
        closed.clone(),
        json!({"anyOf": [closed.clone(), {"type": "string"}]}),
    ));
    // A branch gone: the message says which form a client loses.
    expect![[r#"
        input:
        breaking input-any-of-narrowed t /inputSchema/properties/p/anyOf: the string form of `p` is no longer accepted
        output:
        info output-any-of-narrowed t /outputSchema/properties/p/anyOf: the string form of `p` is no longer returned
    "#]]
    .assert_eq(&both_ways(
        json!({"anyOf": [closed.clone(), {"type": "string"}]}),
        closed,
    ));
}

/// Kind 3: hints by direction. Toward safety is information; a read-only tool's
/// `destructiveHint` means nothing; becoming less safe is a warning.
#[test]
fn hint_flips_are_judged_by_direction() {
    let tool = |annotations: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}]);
    // A release that only added annotations, all toward safety.
    check(
        tool(json!({})),
        tool(json!({"readOnlyHint": true, "destructiveHint": true})),
        expect![[r#"
            info read-only-hint-safer t /annotations/readOnlyHint: readOnlyHint false -> true (absent hints count as the spec's default): the tool no longer changes its environment
        "#]],
    );
    check(
        tool(json!({"readOnlyHint": true, "destructiveHint": false})),
        tool(json!({"readOnlyHint": true, "destructiveHint": true})),
        expect![[r#""#]],
    );
    check(
        tool(json!({})),
        tool(json!({"destructiveHint": false})),
        expect![[r#"
            info destructive-hint-safer t /annotations/destructiveHint: destructiveHint true -> false (absent hints count as the spec's default): its updates are now only additive
        "#]],
    );
    // Less safe: warnings.
    check(
        tool(json!({"readOnlyHint": true})),
        tool(json!({"readOnlyHint": false, "destructiveHint": false})),
        expect![[r#"
            warning read-only-hint-changed t /annotations/readOnlyHint: readOnlyHint true -> false: the tool may now change its environment, additively (destructiveHint false)
        "#]],
    );
    check(
        tool(json!({"destructiveHint": false})),
        tool(json!({})),
        expect![[r#"
            warning destructive-hint-changed t /annotations/destructiveHint: destructiveHint false -> true (absent hints count as the spec's default): the tool may now destroy data
        "#]],
    );
}

/// Kind 4: no old call omitted a required argument, so its default changing changes nothing
/// for them.
#[test]
fn default_of_a_required_argument_is_moot() {
    check(
        input(object(
            json!({"n": {"type": "integer", "default": 1}}),
            &["n"],
        )),
        input(object(
            json!({"n": {"type": "integer", "default": 2}}),
            &["n"],
        )),
        expect![[r#""#]],
    );
    check(
        input(object(
            json!({"n": {"type": "integer", "default": 1}}),
            &["n"],
        )),
        input(object(json!({"n": {"type": "integer", "default": 2}}), &[])),
        expect![[r#"
            info input-property-became-optional t /inputSchema/properties/n: argument `n` became optional
        "#]],
    );
}

/// Kind 5: one change, one finding, at its place: an array's items changing from objects to
/// strings is a type change of the items, not also "argument `id` removed" inside them.
#[test]
fn one_change_is_reported_once() {
    check(
        input(object(
            json!({"ids": {"type": "array", "items": object(json!({"id": {"type": "integer"}}), &["id"])}}),
            &["ids"],
        )),
        input(object(
            json!({"ids": {"type": "array", "items": {"type": "string"}}}),
            &["ids"],
        )),
        expect![[r#"
            breaking input-type-changed t /inputSchema/properties/ids/items/type: type object -> string: object values of the items are no longer accepted
        "#]],
    );
    // A value gone from a list names the value; a union branch gone names its form.
    check(
        input(object(json!({"format": {"enum": ["pdf", "png"]}}), &[])),
        input(object(json!({"format": {"enum": ["png"]}}), &[])),
        expect![[r#"
            breaking input-enum-narrowed t /inputSchema/properties/format/enum: the value "pdf" is no longer accepted
        "#]],
    );
    check(
        input(object(
            json!({"cmd": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}),
            &["cmd"],
        )),
        input(object(
            json!({"cmd": {"type": "array", "items": {"type": "string"}}}),
            &["cmd"],
        )),
        expect![[r#"
            breaking input-any-of-narrowed t /inputSchema/properties/cmd/anyOf: the string form of `cmd` is no longer accepted
        "#]],
    );
}

/// Kind 6: a successor whose name differs only by separator or case is named even when it
/// narrowed its arguments.
#[test]
fn rename_by_spelling_even_when_narrowed() {
    check(
        json!([{"name": "web-search", "inputSchema": object(json!({"q": {"type": "string"}, "n": {"type": "integer"}}), &["q"])}]),
        json!([{"name": "web_search", "inputSchema": object(json!({"q": {"type": "string"}, "n": {"type": "integer"}}), &["q", "n"])}]),
        expect![[r#"
            breaking tool-removed web-search -: tool removed; probably renamed to `web_search`, and narrowed (some calls it accepted are refused)
            info tool-added web_search -: new tool (probably the new name of `web-search`)
        "#]],
    );
}

/// Renames pair the closest names first: an earlier removed tool with a weaker match does not
/// take a later tool's exact one; and words included in a longer name are no rename.
#[test]
fn renames_take_the_closest_pairs_first() {
    let schema = object(json!({"id": {"type": "string"}}), &["id"]);
    check(
        json!([{"name": "get-items", "inputSchema": schema}, {"name": "get_item", "inputSchema": schema}]),
        json!([{"name": "getItem", "inputSchema": schema}]),
        expect![[r#"
            breaking tool-removed get-items -: tool removed
            breaking tool-removed get_item -: tool removed; probably renamed to `getItem`
            info tool-added getItem -: new tool (probably the new name of `get_item`)
        "#]],
    );
    let q = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    check(
        json!([{"name": "search", "inputSchema": q}]),
        json!([{"name": "web-search", "inputSchema": q}, {"name": "lookup", "inputSchema": q}]),
        expect![[r#"
            breaking tool-removed search -: tool removed
            info tool-added web-search -: new tool
            info tool-added lookup -: new tool
        "#]],
    );
}

/// `allOf` is a conjunction: a new constraint narrows (breaking for arguments), a dropped one
/// widens (breaking for results).
#[test]
fn all_of_narrows_when_a_constraint_is_added() {
    expect![[r#"
        input:
        breaking input-all-of-narrowed t /inputSchema/properties/p/allOf/1: new constraint allOf/1 on `p`: values it refuses are no longer accepted
        output:
        info output-all-of-narrowed t /outputSchema/properties/p/allOf/1: new constraint allOf/1 on `p`
    "#]]
    .assert_eq(&both_ways(
        json!({"allOf": [{"type": "string"}]}),
        json!({"allOf": [{"type": "string"}, {"maxLength": 5}]}),
    ));
    expect![[r#"
        input:
        info input-all-of-widened t /inputSchema/properties/p/allOf: constraint allOf/1 (old) on `p` is gone
        output:
        breaking output-all-of-widened t /outputSchema/properties/p/allOf: constraint allOf/1 (old) on `p` is gone: results may hold values it refused
    "#]]
    .assert_eq(&both_ways(
        json!({"allOf": [{"type": "string"}, {"maxLength": 5}]}),
        json!({"allOf": [{"type": "string"}]}),
    ));
    // Near miss: a constraint the old schema already implied takes nothing away.
    expect![[r#"
        input:
        output:
    "#]]
    .assert_eq(&both_ways(
        json!({"type": "string", "maxLength": 3}),
        json!({"allOf": [{"type": "string", "maxLength": 3}, {"maxLength": 5}]}),
    ));
}

/// A change far into a long description is shown where it is, on both sides, in every format
/// (the report's message is what text, Markdown and JSON print), not cut away with the same
/// first 57 characters on both.
#[test]
fn a_change_deep_in_a_long_description_is_shown() {
    let property = |tz: &str| {
        input(object(
            json!({"timezone": {"type": "string", "description": format!(
                "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use '{tz}' as local timezone if no timezone provided by the user."
            )}}),
            &["timezone"],
        ))
    };
    check(
        property("UTC"),
        property("Etc/UTC"),
        expect![[r#"
            info description-changed t /inputSchema/properties/timezone/description: description ".../London'). Use 'UTC' as local ti..." -> ".../London'). Use 'Etc/UTC' as local ti..."
        "#]],
    );
    // Short texts stay whole; a tool's own description too.
    let tool =
        |d: &str| json!([{"name": "t", "description": d, "inputSchema": {"type": "object"}}]);
    check(
        tool("Reads a file."),
        tool(&format!("Reads a file.{}", " More.".repeat(12))),
        expect![[r#"
            info description-changed t /description: description "Reads a file." -> "Reads a file. More. More. More. More. More. More. More. More..."
        "#]],
    );
}
