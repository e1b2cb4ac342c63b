//! Hostile and odd inputs (issue 6): the compiled `hostile` snapshot behaves, and the largest
//! inputs generate without panicking.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use mcp_bindgen_codegen::{Generator, ServerConfig, capture};
use mcp_bindgen_tests::hostile::types;
use serde_json::{Value, json};

/// `userId` and `user_id` are two fields, each with its own wire name.
#[test]
fn colliding_property_names_keep_their_wire_names() {
    let args = types::GetUserArgs {
        user_id: Some("camel".into()),
        user_id_2: Some("snake".into()),
    };
    assert_eq!(
        serde_json::to_value(&args).expect("serialises"),
        json!({"userId": "camel", "user_id": "snake"})
    );
    let back: types::GetUserArgs =
        serde_json::from_value(json!({"userId": "camel", "user_id": "snake"})).expect("decodes");
    assert_eq!(back, args);
}

/// A schema nested 64 deep generates, compiles, and round-trips.
#[test]
fn sixty_four_levels_round_trip() {
    let mut value = json!("the bottom");
    for i in (0..64).rev() {
        value = json!({ format!("l{i}"): value });
    }
    let args = json!({ "root": value });
    let typed: types::DeepArgs = serde_json::from_value(args.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(&typed).expect("serialises"), args);
}

/// Integer bounds at the edge of u64 keep the exact type; keywords are fields.
#[test]
fn big_integers_and_keywords() {
    let args: types::HugeIntegersArgs =
        serde_json::from_value(json!({"big": 18446744073709551615u64})).expect("u64::MAX");
    assert_eq!(args.big, u64::MAX);
    let args: types::SelfArgs =
        serde_json::from_value(json!({"crate": "c", "gen": 2, "Self": true})).expect("decodes");
    assert_eq!(args.crate_.as_deref(), Some("c"));
    assert_eq!(args.self_, Some(true));
}

fn generate(value: &Value) -> mcp_bindgen_codegen::Module {
    let parsed = capture::parse(Path::new("big.tools.json"), value.to_string()).expect("parses");
    Generator::new()
        .generate_capture(&ServerConfig::new("big", "big.tools.json"), &parsed)
        .expect("generates")
}

/// An enum of 5,000 values (including ones that differ only in punctuation) generates a
/// 5,000-variant enum with distinct names.
#[test]
fn enum_of_five_thousand_values() {
    let values: Vec<String> = (0..5000)
        .map(|i| match i % 3 {
            0 => format!("v-{i}"),
            1 => format!("v_{}", i - 1),
            _ => format!("v.{}", i - 2),
        })
        .collect();
    let capture = json!({"tools": [{"name": "pick", "inputSchema": {"type": "object",
        "properties": {"value": {"type": "string", "enum": values}}, "required": ["value"]}}]});
    let started = Instant::now();
    let module = generate(&capture);
    let text = module.to_module_file("test");
    // The enum, read as Rust: its variants' names and the wire values they stand for.
    let file = syn::parse_file(&text).expect("valid Rust");
    let variants = enum_variants(&file.items, "PickArgsValue").expect("the enum of `value`");
    let names: HashSet<String> = variants.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(variants.len(), 5000, "one variant per value");
    assert_eq!(names.len(), 5000, "5,000 distinct variant names");
    let wire: HashSet<&str> = variants.iter().map(|(_, value)| value.as_str()).collect();
    let expected: HashSet<&str> = values.iter().map(String::as_str).collect();
    assert_eq!(wire, expected, "each value is the wire name of one variant");
    println!(
        "5,000-value enum: {:?}, {} lines",
        started.elapsed(),
        text.lines().count()
    );
}

/// The variants of the enum `name` (searched in nested modules): each one's name and its wire
/// value (its `#[serde(rename = "..")]`, else its name).
fn enum_variants(items: &[syn::Item], name: &str) -> Option<Vec<(String, String)>> {
    items.iter().find_map(|item| match item {
        syn::Item::Enum(e) if e.ident == name => Some(
            e.variants
                .iter()
                .map(|v| {
                    let mut wire = v.ident.to_string();
                    for attr in v.attrs.iter().filter(|a| a.path().is_ident("serde")) {
                        let _ = attr.parse_nested_meta(|meta| {
                            if meta.path.is_ident("rename") {
                                wire = meta.value()?.parse::<syn::LitStr>()?.value();
                            }
                            Ok(())
                        });
                    }
                    (v.ident.to_string(), wire)
                })
                .collect(),
        ),
        syn::Item::Mod(m) => enum_variants(&m.content.as_ref()?.1, name),
        _ => None,
    })
}

/// The 1,000-tool capture synthesised from real servers generates (it also compiles: see the
/// closing note of issue 2; compiling it here would cost CI a minute and 2 GB).
#[test]
fn thousand_tool_capture() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/large/synth_1000.tools.json"),
    )
    .expect("fixture");
    let value: Value = serde_json::from_str(&text).expect("json");
    let started = Instant::now();
    let module = generate(&value);
    assert_eq!(module.tools, 1000);
    assert!(module.types > 1000, "{}", module.types);
    println!(
        "1,000 tools: {:?}, {} types",
        started.elapsed(),
        module.types
    );
}

/// JSON nested deeper than the reader's bound is a located error, not a stack overflow.
#[test]
fn absurd_nesting_is_a_located_error() {
    let text = format!(
        "{{\"tools\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = capture::parse(Path::new("deep.json"), text).expect_err("too deep");
    let message = err.to_string();
    assert!(message.starts_with("deep.json:1:"), "{message}");
    assert!(message.contains("nested deeper than 256"), "{message}");
}
