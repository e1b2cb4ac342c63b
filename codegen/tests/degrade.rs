//! One tool's failure degrades that tool alone, whatever stage it fails at, with a located
//! warning naming the stage; and the module stays self-consistent (every type the client names
//! is in `types`). Failures are forced with the generator's test hook, one stage at a time.

use std::collections::BTreeSet;
use std::path::Path;

use mcp_bindgen_codegen::{Generator, Module, ServerConfig, Stage, capture};

/// Two tools with arguments and result types; `convert` is made to fail.
const CAPTURE: &str = r#"{"tools": [
  {"name": "lookup", "inputSchema": {"type": "object",
     "properties": {"key": {"type": "string"}, "limit": {"type": "integer", "default": 10}},
     "required": ["key"]},
   "outputSchema": {"type": "object", "properties": {"found": {"type": "boolean"}}, "required": ["found"]}},
  {"name": "convert", "inputSchema": {"type": "object",
     "properties": {"unit": {"type": "string", "enum": ["c", "f"]}, "value": {"type": "number"}},
     "required": ["unit", "value"]},
   "outputSchema": {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]}}
]}"#;

fn generate(generator: Generator, text: &str) -> Module {
    let parsed = capture::parse(Path::new("x.tools.json"), text.to_owned()).expect("parses");
    generator
        .generate_capture(&ServerConfig::new("x", "x.tools.json"), &parsed)
        .expect("generates")
}

/// Every `types::Name` the module's client uses, and every item `types` defines.
fn names(module: &Module) -> (BTreeSet<String>, BTreeSet<String>) {
    let code = module.to_module_file("test");
    let mut used = BTreeSet::new();
    for (i, _) in code.match_indices("types::") {
        let rest = &code[i + "types::".len()..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        used.insert(rest[..end].to_owned());
    }
    let mut defined = BTreeSet::new();
    let file = syn::parse_file(&module.code()).expect("the code parses");
    for item in &file.items {
        if let syn::Item::Mod(m) = item
            && m.ident == "types"
            && let Some((_, items)) = &m.content
        {
            for item in items {
                let ident = match item {
                    syn::Item::Struct(s) => &s.ident,
                    syn::Item::Enum(e) => &e.ident,
                    syn::Item::Type(t) => &t.ident,
                    _ => continue,
                };
                defined.insert(ident.to_string());
            }
        }
    }
    (used, defined)
}

fn assert_consistent(module: &Module) {
    let (used, defined) = names(module);
    let missing: Vec<&String> = used.difference(&defined).collect();
    assert!(
        missing.is_empty(),
        "the client names types not in `types`: {missing:?}"
    );
}

#[test]
fn without_a_failure_every_tool_is_typed() {
    let module = generate(Generator::new(), CAPTURE);
    assert!(module.warnings.is_empty(), "{:?}", module.warnings);
    let code = module.to_module_file("test");
    assert!(code.contains("pub struct ConvertArgs"));
    assert!(code.contains("pub struct LookupOutput"));
    assert_consistent(&module);
}

#[test]
fn a_failure_at_any_stage_degrades_that_tool_alone() {
    for (stage, pointer, says, degraded) in [
        (
            Stage::Normalise,
            "/tools/1/inputSchema",
            "normaliser panicked: failure forced by a test; arguments typed as a JSON object",
            "pub type ConvertArgs = Map<String, Value>;",
        ),
        (
            Stage::Typify,
            "/tools/1/inputSchema",
            "typify: failure forced by a test; arguments typed as a JSON object",
            "pub type ConvertArgs = Map<String, Value>;",
        ),
        (
            Stage::Render,
            "/tools/1/inputSchema",
            "typify panicked writing the types: failure forced by a test (beside the other tools' types); arguments typed as a JSON object",
            "pub type ConvertArgs = Map<String, Value>;",
        ),
        (
            Stage::PostPass,
            "/tools/1/inputSchema",
            "self-consistency check: the generated `ConvertArgs` names `McpBindgenForcedFailure`, which is not in the module; arguments typed as a JSON object",
            "pub type ConvertArgs = Map<String, Value>;",
        ),
        (
            Stage::Output,
            "/tools/1/outputSchema",
            "typify: failure forced by a test; result typed as serde_json::Value",
            "Result<Value, Error>",
        ),
    ] {
        let module = generate(Generator::new().with_fault("convert", stage), CAPTURE);
        let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 1, "{stage:?}: {warnings:#?}");
        let warning = &module.warnings[0];
        assert_eq!(warning.tool.as_deref(), Some("convert"), "{stage:?}");
        assert_eq!(warning.pointer.as_deref(), Some(pointer), "{stage:?}");
        assert!(warning.at.is_some(), "{stage:?}: the warning has a line");
        assert_eq!(warning.message, says, "{stage:?}");
        let code = module.to_module_file("test");
        assert!(code.contains(degraded), "{stage:?}: {degraded} in\n{code}");
        // The other tool keeps its types.
        assert!(code.contains("pub struct LookupArgs"), "{stage:?}");
        assert!(code.contains("pub struct LookupOutput"), "{stage:?}");
        assert!(
            code.contains("-> Result<types::LookupOutput, Error>"),
            "{stage:?}"
        );
        assert_consistent(&module);
    }
}

/// The failure of issue 16: a schema typify accepts but cannot write (here forced) used to
/// take every tool's types with it, and the client named 186 types `types` did not hold.
#[test]
fn a_type_typify_cannot_write_beside_others_is_found_and_left_out() {
    let many: Vec<String> = (0..9)
        .map(|i| {
            format!(
                r#"{{"name": "tool_{i}", "inputSchema": {{"type": "object", "properties": {{"n{i}": {{"type": "integer"}}}}, "required": ["n{i}"]}}}}"#
            )
        })
        .collect();
    let text = format!(r#"{{"tools": [{}]}}"#, many.join(","));
    let module = generate(Generator::new().with_fault("tool_6", Stage::Render), &text);
    let warned: Vec<Option<&str>> = module.warnings.iter().map(|w| w.tool.as_deref()).collect();
    assert_eq!(warned, vec![Some("tool_6")]);
    let (used, defined) = names(&module);
    assert_eq!(used.len(), 9);
    assert!(used.is_subset(&defined));
    assert!(
        module
            .to_module_file("test")
            .contains("pub type Tool6Args = Map<String, Value>;")
    );
}

/// A `$ref` whose `%` is not followed by two hex digits (here by a letter and half of a
/// two-byte character) is no valid URI fragment: the property degrades with a warning that says
/// so, and the generator neither panics nor guesses. A valid percent-encoded one is followed.
#[test]
fn a_ref_that_is_not_valid_percent_encoding_degrades_with_a_warning() {
    let text = r##"{"tools": [{"name": "cells", "inputSchema": {"type": "object",
        "$defs": {"grid cell": {"type": "integer"}},
        "properties": {"bad": {"$ref": "#/$defs/%aé"}, "good": {"$ref": "#/$defs/grid%20cell"}}}}]}"##;
    let module = generate(Generator::new(), text);
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("/properties/bad") && w.contains("not valid percent-encoding")),
        "{warnings:#?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("/properties/good")),
        "{warnings:#?}"
    );
    assert_consistent(&module);
}
