//! Property tests ("fuzzing" on stable Rust: cargo-fuzz needs nightly) of the inputs users and
//! peers control: the capture reader and `dispatch`. Properties: nothing panics; an error is a
//! located diagnostic inside the text; every request gets exactly one well-formed JSON-RPC
//! answer.
//!
//! `FUZZ_CASES` sets the cases per property (default 2,000 for CI; the counts in the closing
//! notes come from `FUZZ_CASES=1000000`); `FUZZ_GEN_CASES` those of the generator property;
//! `FUZZ_SEED` the seed (`random` for a fresh one); `FUZZ_LAST=FILE` keeps each contracts case
//! in FILE while it runs (an abort or a hang leaves it there).

use std::path::Path;

use mcp_bindgen::server::{Handler, McpTool, Registry, ToolError};
use mcp_bindgen_codegen::{Generator, ServerConfig, Stage, capture};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

/// A fixed seed unless `FUZZ_SEED` asks for another (`random` for a fresh one): CI must not
/// pass or fail by chance.
fn config(cases: u32) -> ProptestConfig {
    let rng_seed = match std::env::var("FUZZ_SEED").ok().as_deref() {
        Some("random") => proptest::test_runner::RngSeed::Random,
        Some(seed) => proptest::test_runner::RngSeed::Fixed(seed.parse().unwrap_or(7)),
        None => proptest::test_runner::RngSeed::Fixed(7),
    };
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed,
        ..ProptestConfig::default()
    }
}

/// Arbitrary JSON, biased towards the keys captures and JSON Schemas use.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("tools".to_owned()),
        Just("name".to_owned()),
        Just("inputSchema".to_owned()),
        Just("outputSchema".to_owned()),
        Just("type".to_owned()),
        Just("properties".to_owned()),
        Just("required".to_owned()),
        Just("enum".to_owned()),
        Just("const".to_owned()),
        Just("$ref".to_owned()),
        Just("$defs".to_owned()),
        Just("items".to_owned()),
        Just("anyOf".to_owned()),
        Just("oneOf".to_owned()),
        Just("allOf".to_owned()),
        Just("additionalProperties".to_owned()),
        Just("prefixItems".to_owned()),
        Just("pattern".to_owned()),
        Just("result".to_owned()),
        Just("jsonrpc".to_owned()),
        Just("id".to_owned()),
        Just("method".to_owned()),
        Just("params".to_owned()),
        Just("arguments".to_owned()),
        "[a-z$#/_]{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop_oneof![
            Just("object".to_owned()),
            Just("string".to_owned()),
            Just("integer".to_owned()),
            Just("#".to_owned()),
            Just("#/$defs/A".to_owned()),
            Just("#/properties/a".to_owned()),
            Just("2.0".to_owned()),
            Just("tools/call".to_owned()),
            Just("tools/list".to_owned()),
            Just("initialize".to_owned()),
            ".{0,12}",
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A capture-shaped document with random tools.
fn capture_like() -> impl Strategy<Value = Value> {
    let tool = (
        "[a-zA-Z_.-]{1,10}",
        json_value(),
        proptest::option::of(json_value()),
    )
        .prop_map(|(name, schema, output)| {
            let mut tool = json!({"name": name, "inputSchema": schema});
            if let Some(output) = output {
                tool["outputSchema"] = output;
            }
            tool
        });
    prop::collection::vec(tool, 0..5).prop_map(|tools| json!({"tools": tools}))
}

fn check_capture(text: &str) {
    match capture::parse(Path::new("fuzz.json"), text.to_owned()) {
        Ok(_) => {}
        Err(e) => {
            let d = e.diagnostic().expect("parse errors are diagnostics");
            if let Some(at) = d.at {
                let lines = text.lines().count().max(1);
                assert!(at.line >= 1 && at.line <= lines + 1, "{d}");
            }
            let _ = d.to_string();
        }
    }
}

proptest! {
    #![proptest_config(config(cases()))]

    #[test]
    fn capture_reader_never_panics_on_text(text in ".{0,200}") {
        check_capture(&text);
    }

    #[test]
    fn capture_reader_never_panics_on_json(value in json_value()) {
        check_capture(&value.to_string());
    }
}

/// Generation runs typify: `FUZZ_GEN_CASES` (default 200).
fn generator_cases() -> u32 {
    std::env::var("FUZZ_GEN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

proptest! {
    #![proptest_config(config(generator_cases()))]

    #[test]
    fn generator_never_panics_on_capture_shaped_input(value in capture_like()) {
        let text = serde_json::to_string_pretty(&value).expect("json");
        if let Ok(parsed) = capture::parse(Path::new("fuzz.json"), text) {
            match Generator::new().generate_capture(&ServerConfig::new("fuzz", "fuzz.json"), &parsed) {
                Ok(module) => { let _ = module.to_module_file("fuzz"); }
                Err(e) => { let _ = e.to_string(); }
            }
        }
    }
}

/// The names the module's code uses as `types::Name` that no `pub struct`, `pub enum` or
/// `pub type` defines.
fn undefined_type_names(code: &str) -> Vec<String> {
    let word = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut defined = std::collections::BTreeSet::new();
    for kind in ["pub struct ", "pub enum ", "pub type "] {
        for (i, _) in code.match_indices(kind) {
            defined.insert(word(&code[i + kind.len()..]));
        }
    }
    let mut missing: Vec<String> = code
        .match_indices("types::")
        .map(|(i, _)| word(&code[i + "types::".len()..]))
        .filter(|name| !defined.contains(name))
        .collect();
    missing.dedup();
    missing
}

/// The fixture captures, read.
fn fixture_captures() -> Vec<mcp_bindgen_codegen::model::Capture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/captures");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/captures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("fixture");
            capture::parse(p, text).expect("fixture parses")
        })
        .collect()
}

proptest! {
    // A fifth of the generator cases: each generates a whole fixture capture.
    #![proptest_config(config(generator_cases() / 5))]

    /// Self-consistency as a property of the generator: whichever tool of a real capture is
    /// made to fail, at whichever stage, generation succeeds, only that tool is warned about,
    /// and every type the client names is in `types` (the five modules of
    /// `snapshots/forced/` are compiled).
    #[test]
    fn a_failure_forced_at_any_stage_leaves_the_module_consistent(
        which in any::<prop::sample::Index>(),
        tool in any::<prop::sample::Index>(),
        stage in prop::sample::select(Stage::ALL.to_vec()),
    ) {
        let captures = fixture_captures();
        let capture = which.get(&captures);
        let tool = tool.get(&capture.tools).name.clone();
        let module = Generator::new()
            .with_fault(tool.clone(), stage)
            .generate_capture(&ServerConfig::new("fuzz", "fuzz.json"), capture)
            .expect("a forced failure never stops generation");
        let code = module.to_module_file("fuzz");
        let missing = undefined_type_names(&code);
        prop_assert!(missing.is_empty(), "{tool} at {stage:?}: missing {missing:?}");
        for warning in &module.warnings {
            prop_assert!(
                warning.tool.as_deref() == Some(tool.as_str())
                    || !warning.message.contains("forced"),
                "a forced failure of {tool} warned about another tool: {warning}"
            );
        }
    }
}

proptest! {
    #![proptest_config(config(generator_cases()))]

    /// The same on capture-shaped noise: whatever survives parsing, with any tool failing at
    /// any stage, yields a consistent module or a located error, never a panic.
    #[test]
    fn a_failure_forced_on_noise_leaves_the_module_consistent(
        value in capture_like(),
        tool in any::<prop::sample::Index>(),
        stage in prop::sample::select(Stage::ALL.to_vec()),
    ) {
        let text = serde_json::to_string_pretty(&value).expect("json");
        if let Ok(parsed) = capture::parse(Path::new("fuzz.json"), text)
            && !parsed.tools.is_empty()
        {
            let tool = tool.get(&parsed.tools).name.clone();
            let generated = Generator::new()
                .with_fault(tool.clone(), stage)
                .generate_capture(&ServerConfig::new("fuzz", "fuzz.json"), &parsed);
            if let Ok(module) = generated {
                let missing = undefined_type_names(&module.to_module_file("fuzz"));
                prop_assert!(missing.is_empty(), "{tool} at {stage:?}: missing {missing:?}");
            }
        }
    }
}

/// TypeScript-shaped declarations: interfaces and aliases over the constructs the lowering
/// maps (and some it refuses), referring to each other.
fn declarations() -> impl Strategy<Value = String> {
    let ty = prop_oneof![
        Just("string".to_owned()),
        Just("number".to_owned()),
        Just("boolean".to_owned()),
        Just("unknown".to_owned()),
        Just("null".to_owned()),
        Just("'a' | 'b'".to_owned()),
        Just("'\u{2b06}' | '\u{2b06}\u{fe0f}'".to_owned()),
        Just("0 | 1".to_owned()),
        Just("true".to_owned()),
        Just("A".to_owned()),
        Just("B<string>".to_owned()),
        Just("keyof A".to_owned()),
        Just("keyof typeof OBJ".to_owned()),
        Just("typeof MAX".to_owned()),
        Just("typeof OBJ.x".to_owned()),
        Just("A['x']".to_owned()),
        Just("A[keyof A]".to_owned()),
        Just("C[number]".to_owned()),
        Just("Partial<A>".to_owned()),
        Just("Required<C>".to_owned()),
        Just("Pick<A, 'x' | 'y'>".to_owned()),
        Just("Omit<A, keyof C>".to_owned()),
        Just("Record<keyof A, number>".to_owned()),
        Just("Exclude<'a' | 'b' | 'c', 'a'>".to_owned()),
        Just("Extract<A, { x: string }>".to_owned()),
        Just("NonNullable<A | null>".to_owned()),
        Just("Readonly<string[]>".to_owned()),
        Just("string & { __brand: 'x' }".to_owned()),
        Just("N.T".to_owned()),
        Just("(x: number) => void".to_owned()),
        Just("{ [K in 'x']: number }".to_owned()),
        Just("A extends B ? 1 : 2".to_owned()),
        "[a-zA-Z]{1,6}",
    ];
    let ty = ty.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| format!("{t}[]")),
            inner.clone().prop_map(|t| format!("Array<{t}>")),
            inner.clone().prop_map(|t| format!("Record<string, {t}>")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} & {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
            prop::collection::vec(("[a-z]{1,5}", any::<bool>(), inner), 0..4).prop_map(|members| {
                let body: Vec<String> = members
                    .into_iter()
                    .map(|(n, opt, t)| format!("{n}{}: {t};", if opt { "?" } else { "" }))
                    .collect();
                format!("{{ {} }}", body.join(" "))
            }),
        ]
    });
    let decl = prop_oneof![
        (
            prop_oneof![Just("A"), Just("B<T = number>"), Just("C")],
            ty.clone()
        )
            .prop_map(|(n, t)| format!("export type {n} = {t};")),
        (
            prop_oneof![Just("A"), Just("C extends A")],
            prop::collection::vec(("[a-z]{1,5}", any::<bool>(), ty.clone()), 0..5)
        )
            .prop_map(|(n, members)| {
                let body: Vec<String> = members
                    .into_iter()
                    .map(|(m, opt, t)| {
                        format!("  /** {m} */\n  {m}{}: {t};", if opt { "?" } else { "" })
                    })
                    .collect();
                format!("export interface {n} {{\n{}\n}}", body.join("\n"))
            }),
        any::<i32>().prop_map(|v| format!("export declare const MAX = {v};")),
        Just("export declare const OBJ: { readonly x: 1; readonly y: 'y' };".to_owned()),
        prop_oneof![Just("A"), Just("C"), Just("D")]
            .prop_map(|n| format!("export interface {n} extends Array<A> {{}}")),
        (prop_oneof![Just("A"), Just("C")], ty.clone()).prop_map(|(n, t)| format!(
            "export namespace N {{ export type T = {t}; export interface {n} {{ t: T }} }}"
        )),
        (ty.clone(), ty.clone())
            .prop_map(|(a, b)| format!("export type D = {{ x: {a}; y?: never }} & {{ x: {b} }};")),
    ];
    prop::collection::vec(decl, 1..5).prop_map(|d| d.join("\n"))
}

fn check_contract(dir: &Path, text: &str) {
    // A stack overflow aborts before proptest can report the input, and a hang never reports
    // it: `FUZZ_LAST=FILE` keeps the case being run there, for long runs.
    if let Some(last) = std::env::var_os("FUZZ_LAST") {
        std::fs::write(last, text).expect("write FUZZ_LAST");
    }
    std::fs::write(dir.join("c.d.ts"), text).expect("write");
    let config = ServerConfig::contracts_only("fuzz").with_contract("c.d.ts");
    match Generator::new().with_base(dir).generate(&config) {
        Ok(module) => {
            let _ = module.to_module_file("fuzz");
        }
        Err(e) => {
            // Located: the file, and a line:column when the text has lines.
            let message = e.to_string();
            assert!(message.starts_with("c.d.ts"), "{message}");
        }
    }
}

proptest! {
    // Arbitrary text mostly stops at the parser: as many cases as the other readers.
    #![proptest_config(config(cases()))]

    #[test]
    fn contracts_lowering_never_panics_on_text(text in ".{0,300}") {
        let dir = tempfile::tempdir().expect("tempdir");
        check_contract(dir.path(), &text);
    }
}

proptest! {
    #![proptest_config(config(generator_cases()))]

    #[test]
    fn contracts_lowering_never_panics_on_declarations(text in declarations()) {
        let dir = tempfile::tempdir().expect("tempdir");
        check_contract(dir.path(), &text);
    }
}

struct Ctx;

/// Adds.
#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    #[schemars(range(min = 0, max = 10))]
    b: i64,
}

impl Handler<Ctx> for Add {
    type Output = i64;
    fn call(self, _: &mut Ctx) -> Result<i64, ToolError> {
        self.a
            .checked_add(self.b)
            .ok_or_else(|| ToolError::new("overflow"))
    }
}

fn registry() -> Registry<Ctx> {
    let mut r = Registry::new("fuzz", "0");
    r.register::<Add>();
    r
}

fn check_reply(request: &str, reply: Option<String>) {
    let Some(reply) = reply else {
        // No reply only for notifications and responses: messages without an id.
        let parsed: Value = serde_json::from_str(request).expect("a message without reply parsed");
        assert!(parsed.get("id").is_none(), "{request}");
        return;
    };
    let reply: Value = serde_json::from_str(&reply).expect("replies are JSON");
    assert_eq!(reply["jsonrpc"], "2.0");
    assert!(
        reply.get("result").is_some() != reply.get("error").is_some(),
        "{reply}"
    );
    if let Some(code) = reply.pointer("/error/code") {
        assert!(
            [-32700, -32600, -32601, -32602, -32603].contains(&code.as_i64().unwrap_or(0)),
            "{reply}"
        );
    }
}

fn rpc_like() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just(json!("2.0")), json_value()],
        proptest::option::of(prop_oneof![
            any::<i64>().prop_map(Value::from),
            json_value()
        ]),
        prop_oneof![
            Just(json!("tools/call")),
            Just(json!("tools/list")),
            Just(json!("initialize")),
            Just(json!("ping")),
            json_value()
        ],
        prop_oneof![
            (json_value(), json_value())
                .prop_map(|(a, b)| json!({"name": "add", "arguments": {"a": a, "b": b}})),
            json_value(),
        ],
    )
        .prop_map(|(jsonrpc, id, method, params)| {
            let mut m = json!({"jsonrpc": jsonrpc, "method": method, "params": params});
            if let Some(id) = id {
                m["id"] = id;
            }
            m
        })
}

proptest! {
    #![proptest_config(config(cases()))]

    #[test]
    fn dispatch_answers_text(text in ".{0,200}") {
        let mut r = registry();
        let reply = r.dispatch(&mut Ctx, &text);
        if reply.is_some() || serde_json::from_str::<Value>(&text).is_err() {
            check_reply(&text, Some(reply.expect("invalid JSON gets -32700")));
        }
    }

    #[test]
    fn dispatch_answers_json_rpc_shaped_messages(message in rpc_like()) {
        let mut r = registry();
        let text = message.to_string();
        let reply = r.dispatch(&mut Ctx, &text);
        check_reply(&text, reply);
        // The registry keeps working afterwards.
        let ping = r.dispatch(&mut Ctx, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        prop_assert_eq!(ping.as_deref(), Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    }
}
