//! Every rule of `diff` (the README's table: the fixed ids and each `input-`/`output-`
//! constraint family) has a synthetic pair of tool lists that triggers it and a near miss that
//! must not; the README's severities are the engine's.

use std::collections::BTreeSet;
use std::path::Path;

use mcp_bindgen_codegen::capture;
use mcp_bindgen_codegen::diff::{self, Level, Options, Report};
use serde_json::{Value, json};

/// `old` and `new` are tool lists, or whole captures (objects: prompts, resources, templates).
fn run(old: &Value, new: &Value, level: Level) -> Report {
    let parse = |name: &str, side: &Value| {
        let document = match side {
            Value::Object(document) => {
                let mut document = document.clone();
                document.entry("tools").or_insert_with(|| json!([]));
                Value::Object(document)
            }
            tools => json!({ "tools": tools }),
        };
        let text = serde_json::to_string(&document).expect("json");
        capture::parse(Path::new(name), text).expect("valid capture")
    };
    diff::diff(
        &parse("old.json", old),
        &parse("new.json", new),
        &Options { level },
    )
}

fn rules_of(report: &Report) -> BTreeSet<String> {
    report.changes.iter().map(|c| c.rule.clone()).collect()
}

fn lines(report: &Report) -> String {
    report
        .changes
        .iter()
        .map(|c| {
            format!(
                "{} {} {}: {}\n",
                c.severity.as_str(),
                c.rule,
                c.pointer,
                c.message
            )
        })
        .collect()
}

/// A tool `t`.
fn tool(fields: Value) -> Value {
    let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
    for (k, v) in fields.as_object().expect("fields") {
        t[k] = v.clone();
    }
    json!([t])
}

fn args(properties: Value, required: &[&str]) -> Value {
    tool(json!({"inputSchema": {"type": "object", "properties": properties, "required": required}}))
}

fn closed_args(properties: Value, required: &[&str]) -> Value {
    tool(
        json!({"inputSchema": {"type": "object", "properties": properties, "required": required,
        "additionalProperties": false}}),
    )
}

fn result(properties: Value, required: &[&str]) -> Value {
    tool(
        json!({"outputSchema": {"type": "object", "properties": properties, "required": required}}),
    )
}

fn ann(annotations: Value) -> Value {
    tool(json!({ "annotations": annotations }))
}

fn exec(task_support: Value) -> Value {
    tool(json!({ "execution": { "taskSupport": task_support } }))
}

/// A pair of tool lists: (old, new).
type Pair = (Value, Value);

struct Case {
    rule: &'static str,
    level: Level,
    trigger: Pair,
    near: Pair,
}

fn wire(rule: &'static str, trigger: Pair, near: Pair) -> Case {
    Case {
        rule,
        level: Level::Wire,
        trigger,
        near,
    }
}

fn source(rule: &'static str, trigger: Pair, near: Pair) -> Case {
    Case {
        rule,
        level: Level::Source,
        trigger,
        near,
    }
}

/// A capture with one prompt `p` taking `arguments` (`(name, required)`).
fn prompt(arguments: &[(&str, bool)]) -> Value {
    let arguments: Vec<Value> = arguments
        .iter()
        .map(|(name, required)| json!({"name": name, "required": required}))
        .collect();
    json!({"prompts": [{"name": "p", "arguments": arguments}]})
}

/// A capture with the resource `r` at `uri`, or the template `t` of `uri_template`.
fn resource(uri: &str) -> Value {
    json!({"resources": [{"name": "r", "uri": uri}]})
}

/// A capture with the skill `name` (its `SKILL.md` at `skill://<folder>/SKILL.md`) whose one
/// file has `digest`.
fn skill(name: &str, folder: &str, digest: char) -> Value {
    let uri = format!("skill://{folder}/SKILL.md");
    let digest = format!("sha256:{}", digest.to_string().repeat(64));
    json!({"skills": [{"uri": uri, "frontmatter": {"name": name, "description": "d"},
                       "resources": [{"uri": uri, "digest": digest, "size": 1}]}]})
}

/// A capture with the event type `e`, delivered by `delivery`, its payload's `kind` one of
/// `kinds`.
fn event(delivery: &[&str], kinds: &[&str]) -> Value {
    json!({"events": [{"name": "e", "delivery": delivery, "inputSchema": {"type": "object"},
        "payloadSchema": {"type": "object", "properties": {"kind": {"enum": kinds}},
            "required": ["kind"]}}]})
}

fn template(uri_template: &str) -> Value {
    json!({"resourceTemplates": [{"name": "t", "uriTemplate": uri_template}]})
}

fn fixed_cases() -> Vec<Case> {
    let s = json!({"type": "string"});
    let i = json!({"type": "integer"});
    vec![
        wire(
            "prompt-removed",
            (prompt(&[]), json!({})),
            (prompt(&[]), prompt(&[("a", false)])),
        ),
        wire(
            "prompt-added",
            (json!({}), prompt(&[])),
            (prompt(&[]), prompt(&[("a", false)])),
        ),
        wire(
            "prompt-argument-required-added",
            (prompt(&[]), prompt(&[("a", true)])),
            (prompt(&[]), prompt(&[("a", false)])),
        ),
        wire(
            "prompt-argument-became-required",
            (prompt(&[("a", false)]), prompt(&[("a", true)])),
            (prompt(&[("a", true)]), prompt(&[("a", true)])),
        ),
        wire(
            "prompt-argument-became-optional",
            (prompt(&[("a", true)]), prompt(&[("a", false)])),
            (prompt(&[("a", false)]), prompt(&[("a", false)])),
        ),
        wire(
            "prompt-argument-added",
            (prompt(&[]), prompt(&[("a", false)])),
            (prompt(&[]), prompt(&[("a", true)])),
        ),
        wire(
            "prompt-argument-removed",
            (prompt(&[("a", false)]), prompt(&[])),
            (prompt(&[("a", false)]), prompt(&[("a", true)])),
        ),
        wire(
            "resource-removed",
            (resource("game://level"), json!({})),
            (resource("game://level"), resource("game://other")),
        ),
        wire(
            "resource-added",
            (json!({}), resource("game://level")),
            (resource("game://level"), resource("game://other")),
        ),
        wire(
            "resource-uri-changed",
            (resource("game://level"), resource("game://other")),
            (resource("game://level"), resource("game://level")),
        ),
        wire(
            "resource-template-removed",
            (template("game://e/{id}"), json!({})),
            (template("game://e/{id}"), template("game://e/{key}")),
        ),
        wire(
            "resource-template-added",
            (json!({}), template("game://e/{id}")),
            (template("game://e/{id}"), template("game://e/{key}")),
        ),
        wire(
            "resource-template-changed",
            (template("game://e/{id}"), template("game://e/{key}")),
            (template("game://e/{id}"), template("game://e/{id}")),
        ),
        wire(
            "event-removed",
            (event(&["poll"], &["a"]), json!({})),
            (event(&["poll"], &["a"]), event(&["poll", "push"], &["a"])),
        ),
        wire(
            "event-added",
            (json!({}), event(&["poll"], &["a"])),
            (event(&["poll"], &["a"]), event(&["poll"], &["a"])),
        ),
        wire(
            "event-delivery-removed",
            (event(&["poll", "push"], &["a"]), event(&["poll"], &["a"])),
            (event(&["poll"], &["a"]), event(&["poll", "push"], &["a"])),
        ),
        wire(
            "event-delivery-added",
            (event(&["poll"], &["a"]), event(&["poll", "push"], &["a"])),
            (event(&["poll", "push"], &["a"]), event(&["poll"], &["a"])),
        ),
        // A payload is compared as a result is: a value it may now carry breaks a reader.
        wire(
            "output-enum-widened",
            (event(&["poll"], &["a"]), event(&["poll"], &["a", "b"])),
            (event(&["poll"], &["a", "b"]), event(&["poll"], &["a"])),
        ),
        wire(
            "skill-removed",
            (skill("arena", "arena", 'a'), json!({})),
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'b')),
        ),
        // A skill renamed is one removed and one added.
        wire(
            "skill-removed",
            (skill("arena", "arena", 'a'), skill("pit", "pit", 'a')),
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'a')),
        ),
        wire(
            "skill-added",
            (json!({}), skill("arena", "arena", 'a')),
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'b')),
        ),
        wire(
            "skill-uri-changed",
            (
                skill("arena", "arena", 'a'),
                skill("arena", "games/arena", 'a'),
            ),
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'b')),
        ),
        wire(
            "skill-changed",
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'b')),
            (skill("arena", "arena", 'a'), skill("arena", "arena", 'a')),
        ),
        wire(
            "tool-removed",
            (tool(json!({})), json!([])),
            (tool(json!({})), tool(json!({"description": "d"}))),
        ),
        wire(
            "tool-added",
            (json!([]), tool(json!({}))),
            (tool(json!({})), tool(json!({"description": "d"}))),
        ),
        // Through `annotations.title`; the near miss moves the same title between the two.
        wire(
            "title-changed",
            (ann(json!({"title": "A"})), ann(json!({"title": "B"}))),
            (tool(json!({"title": "A"})), ann(json!({"title": "A"}))),
        ),
        wire(
            "description-changed",
            (
                tool(json!({"description": "a"})),
                tool(json!({"description": "b"})),
            ),
            (
                tool(json!({"description": "a"})),
                tool(json!({"description": "a", "x-vendor": 1})),
            ),
        ),
        wire(
            "read-only-hint-changed",
            (
                ann(json!({"readOnlyHint": true})),
                ann(json!({"readOnlyHint": false})),
            ),
            (ann(json!({"readOnlyHint": false})), ann(json!({}))),
        ),
        wire(
            "read-only-hint-safer",
            (ann(json!({})), ann(json!({"readOnlyHint": true}))),
            (ann(json!({})), ann(json!({"readOnlyHint": false}))),
        ),
        wire(
            "destructive-hint-changed",
            (
                ann(json!({"destructiveHint": false})),
                ann(json!({"destructiveHint": true})),
            ),
            (
                ann(json!({"readOnlyHint": true, "destructiveHint": false})),
                ann(json!({"readOnlyHint": true, "destructiveHint": true})),
            ),
        ),
        wire(
            "destructive-hint-safer",
            (
                ann(json!({"destructiveHint": true})),
                ann(json!({"destructiveHint": false})),
            ),
            (ann(json!({})), ann(json!({"destructiveHint": true}))),
        ),
        wire(
            "idempotent-hint-changed",
            (
                ann(json!({"idempotentHint": false})),
                ann(json!({"idempotentHint": true})),
            ),
            (ann(json!({})), ann(json!({"idempotentHint": false}))),
        ),
        wire(
            "task-support-required",
            (exec(json!("optional")), exec(json!("required"))),
            (exec(json!("required")), exec(json!("required"))),
        ),
        wire(
            "task-support-removed",
            (exec(json!("optional")), tool(json!({}))),
            (tool(json!({})), exec(json!("forbidden"))),
        ),
        wire(
            "task-support-relaxed",
            (exec(json!("required")), exec(json!("optional"))),
            (exec(json!("optional")), exec(json!("required"))),
        ),
        wire(
            "open-world-hint-changed",
            (
                ann(json!({"openWorldHint": true})),
                ann(json!({"openWorldHint": false})),
            ),
            (ann(json!({})), ann(json!({"openWorldHint": true}))),
        ),
        wire(
            "input-required-property-added",
            (args(json!({}), &[]), args(json!({"n": i}), &["n"])),
            (args(json!({}), &[]), args(json!({"n": i}), &[])),
        ),
        wire(
            "input-property-became-required",
            (args(json!({"n": i}), &[]), args(json!({"n": i}), &["n"])),
            (args(json!({"n": i}), &["n"]), args(json!({"n": i}), &["n"])),
        ),
        wire(
            "input-property-became-optional",
            (args(json!({"n": i}), &["n"]), args(json!({"n": i}), &[])),
            (
                args(json!({"n": i}), &[]),
                args(json!({"n": {"type": "integer", "description": "d"}}), &[]),
            ),
        ),
        wire(
            "input-property-added",
            (args(json!({}), &[]), args(json!({"n": i}), &[])),
            (
                args(json!({"n": i}), &[]),
                args(json!({"n": {"type": "integer", "description": "d"}}), &[]),
            ),
        ),
        wire(
            "input-property-removed",
            (
                args(json!({"n": i, "s": s}), &[]),
                args(json!({"s": s}), &[]),
            ),
            (
                closed_args(json!({"n": i, "s": s}), &[]),
                closed_args(json!({"s": s}), &[]),
            ),
        ),
        wire(
            "input-property-refused",
            (
                closed_args(json!({"n": i, "s": s}), &[]),
                closed_args(json!({"s": s}), &[]),
            ),
            (
                args(json!({"n": i, "s": s}), &[]),
                args(json!({"s": s}), &[]),
            ),
        ),
        wire(
            "input-default-changed",
            (
                args(json!({"n": {"type": "integer", "default": 1}}), &[]),
                args(json!({"n": {"type": "integer", "default": 2}}), &[]),
            ),
            (
                args(json!({"n": {"type": "integer", "default": 1}}), &["n"]),
                args(json!({"n": {"type": "integer", "default": 2}}), &["n"]),
            ),
        ),
        wire(
            "input-additional-properties-closed",
            (
                args(json!({"n": i}), &[]),
                closed_args(json!({"n": i}), &[]),
            ),
            (
                args(json!({"n": i}), &[]),
                tool(
                    json!({"inputSchema": {"type": "object", "properties": {"n": i}, "required": [],
                    "additionalProperties": true}}),
                ),
            ),
        ),
        wire(
            "input-additional-properties-opened",
            (
                closed_args(json!({"n": i}), &[]),
                args(json!({"n": i}), &[]),
            ),
            (
                closed_args(json!({"n": i}), &[]),
                closed_args(json!({"n": {"type": "integer", "description": "d"}}), &[]),
            ),
        ),
        wire(
            "output-property-removed",
            (
                result(json!({"n": i, "s": s}), &[]),
                result(json!({"s": s}), &[]),
            ),
            (
                args(json!({"n": i, "s": s}), &[]),
                args(json!({"s": s}), &[]),
            ),
        ),
        wire(
            "output-property-became-optional",
            (
                result(json!({"n": i}), &["n"]),
                result(json!({"n": i}), &[]),
            ),
            (
                result(json!({"n": i}), &["n"]),
                result(json!({"n": i}), &["n"]),
            ),
        ),
        wire(
            "output-property-became-required",
            (
                result(json!({"n": i}), &[]),
                result(json!({"n": i}), &["n"]),
            ),
            (
                result(json!({"n": i}), &[]),
                result(json!({"n": {"type": "integer", "description": "d"}}), &[]),
            ),
        ),
        wire(
            "output-property-added",
            (result(json!({}), &[]), result(json!({"n": i}), &[])),
            (args(json!({}), &[]), args(json!({"n": i}), &[])),
        ),
        wire(
            "output-additional-properties-closed",
            (
                result(json!({"n": i}), &[]),
                tool(
                    json!({"outputSchema": {"type": "object", "properties": {"n": i}, "additionalProperties": false}}),
                ),
            ),
            (
                args(json!({"n": i}), &[]),
                closed_args(json!({"n": i}), &[]),
            ),
        ),
        wire(
            "output-additional-properties-opened",
            (
                tool(
                    json!({"outputSchema": {"type": "object", "properties": {"n": i}, "additionalProperties": false}}),
                ),
                result(json!({"n": i}), &[]),
            ),
            (
                closed_args(json!({"n": i}), &[]),
                args(json!({"n": i}), &[]),
            ),
        ),
        wire(
            "output-schema-added",
            (tool(json!({})), result(json!({}), &[])),
            (result(json!({}), &[]), result(json!({"n": i}), &[])),
        ),
        wire(
            "output-schema-removed",
            (result(json!({}), &[]), tool(json!({}))),
            (result(json!({"n": i}), &[]), result(json!({}), &[])),
        ),
        // A keyword the algebra does not model changed: it cannot tell, and says so.
        wire(
            "comparison-incomplete",
            (
                args(json!({"s": s}), &[]),
                args(json!({"s": {"type": "string", "not": {"const": "x"}}}), &[]),
            ),
            (
                args(json!({"s": {"type": "string", "not": {"const": "x"}}}), &[]),
                args(
                    json!({"s": {"type": "string", "not": {"const": "x"}, "description": "d"}}),
                    &[],
                ),
            ),
        ),
        wire(
            "unresolved-ref-changed",
            (
                args(json!({"s": {"$ref": "https://example.com/a.json"}}), &[]),
                args(json!({"s": {"$ref": "https://example.com/b.json"}}), &[]),
            ),
            (
                args(json!({"s": {"$ref": "https://example.com/a.json"}}), &[]),
                args(
                    json!({"s": {"$ref": "https://example.com/a.json"}, "t": s}),
                    &[],
                ),
            ),
        ),
        source(
            "source-result-type-changed",
            (tool(json!({})), result(json!({}), &[])),
            (result(json!({}), &[]), result(json!({"n": i}), &[])),
        ),
        source(
            "source-field-renamed",
            (
                result(json!({"old_name": i}), &[]),
                result(json!({"new_name": i}), &[]),
            ),
            (
                result(json!({"old_name": i}), &[]),
                result(json!({"new_name": s}), &[]),
            ),
        ),
        source(
            "source-field-added",
            (args(json!({}), &[]), args(json!({"n": i}), &[])),
            (result(json!({}), &[]), result(json!({"n": i}), &[])),
        ),
        source(
            "source-variant-added",
            (
                result(json!({"k": {"enum": ["a"]}}), &[]),
                result(json!({"k": {"enum": ["a", "b"]}}), &[]),
            ),
            (
                result(json!({"k": {"enum": ["a", "b"]}}), &[]),
                result(json!({"k": {"enum": ["a"]}}), &[]),
            ),
        ),
    ]
}

/// A constraint case on one property `p`: `narrow` admits fewer values than `wide`; `near`
/// is a pair that must not trigger the constraint in either direction; `changed`, when
/// given, admits different values.
struct Constraint {
    name: &'static str,
    wide: Value,
    narrow: Value,
    near: (Value, Value),
    changed: Option<(Value, Value)>,
}

fn c(name: &'static str, wide: Value, narrow: Value, near: (Value, Value)) -> Constraint {
    Constraint {
        name,
        wide,
        narrow,
        near,
        changed: None,
    }
}

fn constraint_cases() -> Vec<Constraint> {
    let string = |extra: Value| {
        let mut s = json!({"type": "string"});
        for (k, v) in extra.as_object().expect("object") {
            s[k] = v.clone();
        }
        s
    };
    let integer = |extra: Value| {
        let mut s = json!({"type": "integer"});
        for (k, v) in extra.as_object().expect("object") {
            s[k] = v.clone();
        }
        s
    };
    let array = |extra: Value| {
        let mut s = json!({"type": "array", "items": {"type": "string"}});
        for (k, v) in extra.as_object().expect("object") {
            s[k] = v.clone();
        }
        s
    };
    let object = |extra: Value| {
        let mut s = json!({"type": "object"});
        for (k, v) in extra.as_object().expect("object") {
            s[k] = v.clone();
        }
        s
    };
    vec![
        Constraint {
            changed: Some((json!({"type": "string"}), json!({"type": "boolean"}))),
            ..c(
                "type",
                json!({"type": "number"}),
                json!({"type": "integer"}),
                (json!({"type": "string"}), json!({"type": ["string"]})),
            )
        },
        Constraint {
            changed: Some((json!({"enum": ["a", "b"]}), json!({"enum": ["a", "c"]}))),
            ..c(
                "enum",
                json!({"enum": ["a", "b"]}),
                json!({"enum": ["a"]}),
                (
                    json!({"enum": ["a", "b"]}),
                    json!({"anyOf": [{"const": "a"}, {"const": "b"}]}),
                ),
            )
        },
        c(
            "maximum",
            integer(json!({"maximum": 10})),
            integer(json!({"maximum": 5})),
            (
                integer(json!({"exclusiveMaximum": 11})),
                integer(json!({"maximum": 10})),
            ),
        ),
        c(
            "minimum",
            integer(json!({"minimum": 0})),
            integer(json!({"minimum": 1})),
            (
                integer(json!({"exclusiveMinimum": 0})),
                integer(json!({"minimum": 1})),
            ),
        ),
        c(
            "max-length",
            string(json!({"maxLength": 10})),
            string(json!({"maxLength": 5})),
            (
                string(json!({"maxLength": 10})),
                string(json!({"maxLength": 10, "description": "d"})),
            ),
        ),
        c(
            "min-length",
            string(json!({})),
            string(json!({"minLength": 2})),
            (string(json!({})), string(json!({"minLength": 0}))),
        ),
        Constraint {
            changed: Some((
                string(json!({"pattern": "^a"})),
                string(json!({"pattern": "^b"})),
            )),
            ..c(
                "pattern",
                string(json!({})),
                string(json!({"pattern": "^[a-z]+$"})),
                (
                    string(json!({"pattern": "^a"})),
                    string(json!({"pattern": "^a", "title": "T"})),
                ),
            )
        },
        Constraint {
            changed: Some((
                string(json!({"format": "uri"})),
                string(json!({"format": "email"})),
            )),
            ..c(
                "format",
                string(json!({})),
                string(json!({"format": "uri"})),
                (
                    string(json!({"format": "uri"})),
                    string(json!({"format": "uri", "title": "T"})),
                ),
            )
        },
        c(
            "max-items",
            array(json!({})),
            array(json!({"maxItems": 3})),
            (
                array(json!({"maxItems": 3})),
                array(json!({"maxItems": 3, "title": "T"})),
            ),
        ),
        c(
            "min-items",
            array(json!({})),
            array(json!({"minItems": 1})),
            (array(json!({})), array(json!({"minItems": 0}))),
        ),
        c(
            "unique-items",
            array(json!({})),
            array(json!({"uniqueItems": true})),
            (array(json!({})), array(json!({"uniqueItems": false}))),
        ),
        c(
            "max-properties",
            object(json!({})),
            object(json!({"maxProperties": 3})),
            (
                object(json!({"maxProperties": 3})),
                object(json!({"maxProperties": 3, "title": "T"})),
            ),
        ),
        c(
            "min-properties",
            object(json!({})),
            object(json!({"minProperties": 1})),
            (object(json!({})), object(json!({"minProperties": 0}))),
        ),
        Constraint {
            changed: Some((
                integer(json!({"multipleOf": 2})),
                integer(json!({"multipleOf": 3})),
            )),
            ..c(
                "multiple-of",
                integer(json!({"multipleOf": 2})),
                integer(json!({"multipleOf": 4})),
                (
                    integer(json!({"multipleOf": 2})),
                    integer(json!({"multipleOf": 2, "title": "T"})),
                ),
            )
        },
        c(
            "any-of",
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"anyOf": [{"type": "string"}]}),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
            ),
        ),
        c(
            "one-of",
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"oneOf": [{"type": "string"}]}),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
                json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}),
            ),
        ),
        c(
            "all-of",
            json!({"allOf": [{"type": "string"}]}),
            json!({"allOf": [{"type": "string"}, {"maxLength": 5}]}),
            (
                json!({"type": "string", "maxLength": 3}),
                json!({"allOf": [{"type": "string", "maxLength": 3}, {"maxLength": 5}]}),
            ),
        ),
        c(
            "schema",
            json!({"type": "string"}),
            json!(false),
            (json!(true), json!({})),
        ),
    ]
}

/// `p` with schema `s` in both directions.
fn both(s: &Value) -> (Value, Value) {
    (
        args(json!({ "p": s }), &["p"]),
        result(json!({ "p": s }), &["p"]),
    )
}

/// Checks one trigger and its near miss; returns the rule ids the trigger produced.
fn check(rule: &str, level: Level, trigger: &Pair, near: &Pair) {
    let report = run(&trigger.0, &trigger.1, level);
    let got = rules_of(&report);
    assert!(
        got.contains(rule),
        "{rule} not triggered:\n{}",
        lines(&report)
    );
    for c in &report.changes {
        let (severity, _) = diff::rules::lookup(&c.rule).expect("a known rule");
        assert_eq!(severity, c.severity, "{}", c.rule);
    }
    let report = run(&near.0, &near.1, level);
    assert!(
        !rules_of(&report).contains(rule),
        "{rule} triggered by its near miss:\n{}",
        lines(&report)
    );
}

#[test]
fn every_rule_has_a_trigger_and_a_near_miss() {
    let mut covered: BTreeSet<String> = BTreeSet::new();
    for case in fixed_cases() {
        check(case.rule, case.level, &case.trigger, &case.near);
        covered.insert(case.rule.to_owned());
    }
    for k in constraint_cases() {
        let (wide_in, wide_out) = both(&k.wide);
        let (narrow_in, narrow_out) = both(&k.narrow);
        let (near_a_in, near_a_out) = both(&k.near.0);
        let (near_b_in, near_b_out) = both(&k.near.1);
        for (dir, wide, narrow, near_a, near_b) in [
            ("input", &wide_in, &narrow_in, &near_a_in, &near_b_in),
            ("output", &wide_out, &narrow_out, &near_a_out, &near_b_out),
        ] {
            for (outcome, pair) in [
                ("narrowed", (wide.clone(), narrow.clone())),
                ("widened", (narrow.clone(), wide.clone())),
            ] {
                let rule = format!("{dir}-{}-{outcome}", k.name);
                check(&rule, Level::Wire, &pair, &(near_a.clone(), near_b.clone()));
                // The near miss backwards, too.
                check(&rule, Level::Wire, &pair, &(near_b.clone(), near_a.clone()));
                covered.insert(rule);
            }
            if let Some((a, b)) = &k.changed {
                let (a_in, a_out) = both(a);
                let (b_in, b_out) = both(b);
                let pair = if dir == "input" {
                    (a_in, b_in)
                } else {
                    (a_out, b_out)
                };
                let rule = format!("{dir}-{}-changed", k.name);
                check(&rule, Level::Wire, &pair, &(near_a.clone(), near_b.clone()));
                covered.insert(rule);
            }
        }
    }
    // Every fixed rule, and every constraint narrowed and widened both ways, is covered.
    for rule in diff::rules::RULES {
        assert!(covered.contains(rule.id), "{} has no case", rule.id);
    }
    for name in diff::rules::CONSTRAINTS {
        for dir in ["input", "output"] {
            for outcome in ["narrowed", "widened"] {
                let rule = format!("{dir}-{name}-{outcome}");
                assert!(covered.contains(&rule), "{rule} has no case");
            }
        }
    }
}

/// The rules table (`diff/RULES.md`, also the `rules` module's docs) gives each fixed rule the
/// engine's severity and level, the constraint families' rows say what the engine does, and
/// it names no rule the engine does not have.
#[test]
fn the_rules_table_is_the_engine() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../diff/RULES.md"))
            .expect("RULES.md");
    let mut rows = 0;
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].starts_with('`') {
            continue;
        }
        let id = cells[1].trim_matches('`');
        let (severity, level) = (cells[2], cells[3]);
        if id.contains("<constraint>") {
            let example = id.replace("<constraint>", "max-length");
            let (s, _) = diff::rules::lookup(&example).expect("a family");
            assert_eq!(s.as_str(), severity, "{id}");
            rows += 1;
            continue;
        }
        let Some((s, l)) = diff::rules::lookup(id) else {
            panic!("RULES.md lists `{id}`, which the engine does not have");
        };
        assert_eq!(s.as_str(), severity, "{id}");
        assert_eq!(
            match l {
                Level::Wire => "wire",
                Level::Source => "source",
            },
            level,
            "{id}"
        );
        rows += 1;
    }
    assert_eq!(
        rows,
        diff::rules::RULES.len() + 6,
        "one row per rule and family"
    );
}

/// A comparison cut short by the node budget (not the depth limit) says so once.
#[test]
fn the_node_budget_is_reported() {
    let mut props = serde_json::Map::new();
    for i in 0..210_000 {
        props.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let old = args(Value::Object(props.clone()), &[]);
    props.insert("p0".into(), json!({"type": "integer"}));
    let new = args(Value::Object(props), &[]);
    let report = run(&old, &new, Level::Wire);
    let incomplete: Vec<_> = report
        .changes
        .iter()
        .filter(|c| c.rule == "comparison-incomplete")
        .collect();
    assert_eq!(incomplete.len(), 1, "{}", lines(&report));
    assert!(
        incomplete[0].message.contains("200000 schema nodes"),
        "{}",
        incomplete[0].message
    );
}

/// An event type's changes name it as an event type, at pointers under its own schemas.
#[test]
fn an_event_types_changes_are_its_own() {
    let old = event(&["poll", "push"], &["a"]);
    let mut new = event(&["poll"], &["a", "b"]);
    new["events"][0]["inputSchema"] = json!({"type": "object",
        "properties": {"team": {"type": "string"}}, "required": ["team"]});
    let report = run(&old, &new, Level::Wire);
    let found: Vec<(String, String, String)> = report
        .changes
        .iter()
        .map(|c| {
            assert_eq!(c.kind, diff::Kind::Event, "{}", c.rule);
            assert_eq!(c.tool, "e");
            (
                c.rule.clone(),
                c.pointer.clone(),
                c.severity.as_str().to_owned(),
            )
        })
        .collect();
    for expected in [
        ("event-delivery-removed", "/delivery", "breaking"),
        (
            "input-required-property-added",
            "/inputSchema/properties/team",
            "breaking",
        ),
        (
            "output-enum-widened",
            "/payloadSchema/properties/kind/enum",
            "breaking",
        ),
    ] {
        assert!(
            found
                .iter()
                .any(|(r, p, s)| (r.as_str(), p.as_str(), s.as_str()) == expected),
            "{expected:?} not in {found:?}"
        );
    }
}
