//! Property tests ("fuzzing" on stable Rust: cargo-fuzz needs nightly) of the inputs users and
//! peers control: the capture reader, the generator, the contracts lowering and `dispatch`.
//! Properties: nothing panics; an error is a located diagnostic inside the text; every request
//! gets exactly one well-formed JSON-RPC answer, with its own id.
//!
//! The seed changes with the commit (the first 16 hex digits of `git rev-parse HEAD`; a fresh
//! random seed outside a git checkout), so each commit explores new cases, and it is printed
//! with every failure:
//! `FUZZ_SEED=0x...` replays a run (`FUZZ_SEED=random` picks a fresh seed and prints it). A
//! failing case is kept in `fuzz.proptest-regressions` beside this file and replayed first on
//! every later run: commit that file with the fix. The generator and contracts properties run in
//! a child process, so a crash (a stack overflow aborts) still names its input; such an input
//! is kept in `fuzz-regressions/` and replayed first likewise.
//!
//! `FUZZ_CASES` sets the cases per property (default 2,000 for CI; the counts in the closing
//! notes come from `FUZZ_CASES=1000000`); `FUZZ_GEN_CASES` those of the generator properties.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_bindgen::server::{Handler, McpTool, Registry, ToolError};
use mcp_bindgen_codegen::{Generator, ServerConfig, Stage, capture};
use mcp_bindgen_fuzz_seed::seed;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};

fn cases() -> u32 {
    mcp_bindgen_fuzz_seed::cases(2_000)
}

/// `cases` cases from the run's seed (printed); a failure is saved as a regression case beside
/// this file, and every saved one is replayed first.
fn config(cases: u32) -> ProptestConfig {
    mcp_bindgen_fuzz_seed::config(
        cases,
        // Absolute, so the regressions file is found whatever the working directory.
        Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz.rs")),
    )
}

/// A runner for a property written as a plain `#[test]` (to run it in a child process, or to
/// check something after all its cases).
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(config(cases))
}

/// Where inputs that crashed a child process are kept, one file per input.
fn crash_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions")
}

/// Runs `property` in a child process: this test binary, re-run on the test `name` alone. The
/// child replays the kept crash inputs of `name` through `check`, then runs `property`, writing
/// each case's input (through [`record_case`]) to a file first; when the child dies (a stack
/// overflow aborts), the test fails with that input, which is also kept in
/// [`crash_dir`] for every later run.
fn in_child(name: &str, check: impl Fn(&str), property: impl FnOnce()) {
    if std::env::var("FUZZ_CHILD").as_deref() == Ok(name) {
        let mut kept: Vec<PathBuf> = std::fs::read_dir(crash_dir())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&format!("{name}.")))
            })
            .collect();
        kept.sort();
        for path in kept {
            let input = std::fs::read_to_string(&path).expect("a kept input");
            record_case(&input);
            check(&input);
        }
        property();
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let case_file = dir.path().join("case");
    let (seed, _) = seed();
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env("FUZZ_CHILD", name)
        .env("FUZZ_CASE_FILE", &case_file)
        .env("FUZZ_SEED", format!("{seed:#x}"))
        .output()
        .expect("runs the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    if out.status.success() {
        // A renamed or filtered-out property runs nothing and exits 0: that is not a pass.
        assert!(
            stdout.contains("test result: ok. 1 passed"),
            "the child process ran no property named {name}:\n{stdout}\n{stderr}"
        );
        return;
    }
    let input = std::fs::read_to_string(&case_file).unwrap_or_default();
    let mut kept = String::new();
    #[cfg(unix)]
    if std::os::unix::process::ExitStatusExt::signal(&out.status).is_some() {
        // Killed (an abort): proptest in the child could not save the case; keep it here.
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(&input);
        let path = crash_dir().join(format!("{name}.{hash:016x}.txt"));
        if std::fs::create_dir_all(crash_dir()).is_ok() && std::fs::write(&path, &input).is_ok() {
            kept = format!(" (kept as {})", path.display());
        }
    }
    panic!(
        "{name} failed in its child process ({}) on this input{kept}:\n{input}\n--- the child's output:\n{stdout}\n{stderr}",
        out.status
    );
}

/// Notes the input a child process is about to run (see [`in_child`]).
fn record_case(input: &str) {
    if let Some(path) = std::env::var_os("FUZZ_CASE_FILE") {
        std::fs::write(path, input).expect("records the case");
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

/// A JSON Schema built from the constructs tool schemas use (types, formats, enums that collide
/// once named, nullable types, arrays, objects, `anyOf`/`oneOf`/`allOf`, maps, `$ref`), with
/// a little noise at the leaves: most of what it makes is a schema the generator takes.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        4 => prop_oneof![
            Just(json!({"type": "string"})),
            Just(json!({"type": "string", "format": "date-time"})),
            Just(json!({"type": "string", "enum": ["a", "b-c", "b_c", "+1", "-1", ""]})),
            Just(json!({"type": "integer", "minimum": 0})),
            Just(json!({"type": "integer", "minimum": -5, "maximum": 300})),
            Just(json!({"type": "number", "default": 1.5})),
            Just(json!({"type": "boolean"})),
            Just(json!({"type": "null"})),
            Just(json!({"type": ["string", "null"]})),
            Just(json!({"const": "fixed"})),
            Just(json!({})),
            Just(json!(true)),
            Just(json!({"$ref": "#/$defs/Shared"})),
            "[a-z]{1,6}".prop_map(|p| json!({"type": "string", "pattern": format!("^{p}$")})),
        ],
        1 => json_value(),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|i| json!({"type": "array", "items": i})),
            object_schema(inner.clone()),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v})),
            (object_schema(inner.clone()), object_schema(inner.clone()))
                .prop_map(|(a, b)| json!({"allOf": [a, b]})),
            inner
                .clone()
                .prop_map(|i| json!({"type": "object", "additionalProperties": i})),
            inner.prop_map(|i| json!({"description": "or null", "anyOf": [i, {"type": "null"}]})),
        ]
    })
}

/// An object schema with `properties` drawn from `property` and some of them required.
fn object_schema(property: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-z][a-zA-Z_-]{0,6}", property, 0..5),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(properties, cut)| {
            let names: Vec<&String> = properties.keys().collect();
            let required = &names[..cut.index(names.len() + 1)];
            json!({"type": "object", "properties": properties, "required": required})
        })
}

/// A tool's input or output schema: an object, with the `$defs` that `$ref`s point at.
fn root_schema() -> impl Strategy<Value = Value> {
    (object_schema(schema()), schema()).prop_map(|(mut root, shared)| {
        root["$defs"] = json!({"Shared": shared});
        root
    })
}

/// A capture with 1 to 4 tools whose names are distinct and whose schemas are [`root_schema`]s:
/// valid by construction, so nearly every case reaches typify.
fn capture_like() -> impl Strategy<Value = Value> {
    let tool = (
        "[a-z][a-zA-Z_.-]{0,8}",
        root_schema(),
        proptest::option::of(root_schema()),
    );
    prop::collection::vec(tool, 1..5).prop_map(|tools| {
        let tools: Vec<Value> = tools
            .into_iter()
            .enumerate()
            .map(|(i, (name, input, output))| {
                let mut tool = json!({"name": format!("{name}{i}"), "inputSchema": input});
                if let Some(output) = output {
                    tool["outputSchema"] = output;
                }
                tool
            })
            .collect();
        json!({"tools": tools})
    })
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

/// Cases of the properties on generated captures: a quarter of the generator cases, since
/// nearly every one runs typify on up to four tools.
fn capture_cases() -> u32 {
    (generator_cases() / 4).max(1)
}

/// How far one capture text got: parsed, and generated (every tool through typify).
fn check_generation(text: &str) -> (bool, bool) {
    match capture::parse(Path::new("fuzz.json"), text.to_owned()) {
        Err(e) => {
            let _ = e.to_string();
            (false, false)
        }
        Ok(parsed) => match Generator::new()
            .generate_capture(&ServerConfig::new("fuzz", "fuzz.json"), &parsed)
        {
            Ok(module) => {
                let code = module.to_module_file("fuzz");
                assert!(syn::parse_file(&code).is_ok(), "not valid Rust:\n{code}");
                (true, true)
            }
            Err(e) => {
                let _ = e.to_string();
                (true, false)
            }
        },
    }
}

/// Capture-shaped input never panics the generator, and nearly all of it is generated: the
/// count of cases that reach typify is printed and must be at least 90%.
#[test]
fn generator_never_panics_on_capture_shaped_input() {
    let name = "generator_never_panics_on_capture_shaped_input";
    in_child(
        name,
        |text| {
            check_generation(text);
        },
        || {
            let (parsed, generated) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let cases = capture_cases();
            runner(cases)
                .run(&capture_like(), |value| {
                    let text = serde_json::to_string_pretty(&value).expect("json");
                    record_case(&text);
                    let (p, g) = check_generation(&text);
                    parsed.fetch_add(usize::from(p), Ordering::Relaxed);
                    generated.fetch_add(usize::from(g), Ordering::Relaxed);
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{e}"));
            let (parsed, generated) = (parsed.into_inner(), generated.into_inner());
            println!(
                "{name}: {cases} cases, {parsed} parsed, {generated} generated through typify"
            );
            assert!(
                generated * 10 >= cases as usize * 9,
                "only {generated} of {cases} cases reached typify: the strategy explores little"
            );
        },
    );
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

/// One forced-failure case: `{"capture": .., "tool": .., "stage": ".."}`; whatever survives
/// parsing, with that tool failing at that stage, yields a consistent module or an error.
fn check_forced(input: &str) {
    let case: Value = serde_json::from_str(input).expect("a forced-failure case");
    let text = case["capture"].as_str().expect("capture");
    let tool = case["tool"].as_str().expect("tool");
    let stage = Stage::ALL
        .into_iter()
        .find(|s| format!("{s:?}") == case["stage"])
        .expect("stage");
    if let Ok(parsed) = capture::parse(Path::new("fuzz.json"), text.to_owned()) {
        let generated = Generator::new()
            .with_fault(tool, stage)
            .generate_capture(&ServerConfig::new("fuzz", "fuzz.json"), &parsed);
        if let Ok(module) = generated {
            let missing = undefined_type_names(&module.to_module_file("fuzz"));
            assert!(
                missing.is_empty(),
                "{tool} at {stage:?}: missing {missing:?}"
            );
        }
    }
}

/// The same on generated captures: with any tool failing at any stage, the module is
/// consistent or the error located, never a panic.
#[test]
fn a_failure_forced_on_noise_leaves_the_module_consistent() {
    in_child(
        "a_failure_forced_on_noise_leaves_the_module_consistent",
        check_forced,
        || {
            let strategy = (
                capture_like(),
                any::<prop::sample::Index>(),
                prop::sample::select(Stage::ALL.to_vec()),
            );
            runner(capture_cases())
                .run(&strategy, |(value, tool, stage)| {
                    let tools = value["tools"].as_array().expect("tools");
                    let tool = tool.get(tools)["name"].clone();
                    let case = json!({
                        "capture": serde_json::to_string_pretty(&value).expect("json"),
                        "tool": tool,
                        "stage": format!("{stage:?}"),
                    })
                    .to_string();
                    record_case(&case);
                    check_forced(&case);
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{e}"));
        },
    );
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

fn check_contract(text: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path();
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

/// Runs the contracts lowering on every text `strategy` makes, in a child process.
fn contracts_property(name: &str, cases: u32, strategy: impl Strategy<Value = String>) {
    in_child(name, check_contract, || {
        runner(cases)
            .run(&strategy, |text| {
                record_case(&text);
                check_contract(&text);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
    });
}

/// Arbitrary text mostly stops at the parser: as many cases as the other readers.
#[test]
fn contracts_lowering_never_panics_on_text() {
    contracts_property(
        "contracts_lowering_never_panics_on_text",
        cases(),
        ".{0,300}",
    );
}

#[test]
fn contracts_lowering_never_panics_on_declarations() {
    contracts_property(
        "contracts_lowering_never_panics_on_declarations",
        generator_cases(),
        declarations(),
    );
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

/// What the calls of `add` that a run's replies answered did.
#[derive(Default)]
struct Outcomes {
    added: AtomicUsize,
    overflowed: AtomicUsize,
}

fn check_reply(request: &str, reply: Option<String>, outcomes: &Outcomes) {
    let parsed: Option<Value> = serde_json::from_str(request).ok();
    let Some(reply) = reply else {
        // No reply only for notifications and responses: messages without an id.
        let parsed = parsed.expect("a message without reply parsed");
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
            // -32022: a `_meta` naming a protocol version the server does not speak.
            [-32700, -32600, -32601, -32602, -32603, -32022].contains(&code.as_i64().unwrap_or(0)),
            "{reply}"
        );
    }
    // The reply carries its request's id: always when the request is well formed, and never
    // another one (a request whose id cannot be read is answered with null).
    let id = parsed.as_ref().and_then(|p| p.get("id"));
    let well_formed = parsed
        .as_ref()
        .is_some_and(|p| p["jsonrpc"] == "2.0" && p["method"].is_string())
        && id.is_some_and(|id| id.is_string() || id.is_i64() || id.is_u64());
    if well_formed {
        assert_eq!(Some(&reply["id"]), id, "{request} -> {reply}");
    } else {
        // A fractional id comes back as serde_json read it: without its `float_roundtrip`
        // feature (which a library must not turn on for its users) that may be one unit in
        // the last place off the text sent.
        let same = |a: &Value, b: &Value| {
            a == b
                || matches!((a.as_f64(), b.as_f64()), (Some(x), Some(y))
                    if a.is_f64() && (x - y).abs() <= x.abs() * 4.0 * f64::EPSILON)
        };
        assert!(
            reply["id"].is_null() || id.is_some_and(|id| same(&reply["id"], id)),
            "{request} -> {reply}"
        );
    }
    if let Some(result) = reply
        .get("result")
        .filter(|_| parsed.as_ref().is_some_and(|p| p["method"] == "tools/call"))
    {
        if result["isError"] == false {
            outcomes.added.fetch_add(1, Ordering::Relaxed);
        } else if result.to_string().contains("overflow") {
            outcomes.overflowed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Arguments of `add`: mostly valid, often at the edge of i64 where the sum overflows.
fn add_arguments() -> impl Strategy<Value = Value> {
    prop_oneof![
        2 => (
            prop_oneof![any::<i64>(), (i64::MAX - 12)..=i64::MAX],
            0i64..=10,
        )
            .prop_map(|(a, b)| json!({"a": a, "b": b})),
        1 => (json_value(), json_value()).prop_map(|(a, b)| json!({"a": a, "b": b})),
    ]
}

/// `params._meta`: a 2026-07-28 one whose members are sometimes of the wrong type or missing,
/// or any JSON.
fn meta() -> impl Strategy<Value = Value> {
    let member = |good: Value| {
        prop_oneof![
            3 => Just(Some(good)),
            1 => Just(None),
            1 => json_value().prop_map(Some),
        ]
    };
    prop_oneof![
        3 => (
            prop_oneof![
                member(json!("2026-07-28")),
                member(json!("2025-11-25")),
                member(json!("2099-01-01")),
            ],
            member(json!({"sampling": {}})),
            member(json!({"name": "fuzz", "version": "0"})),
            member(json!("tok")),
            member(json!("info")),
        )
            .prop_map(|(version, capabilities, info, token, level)| {
                let mut meta = Map::new();
                for (key, value) in [
                    ("io.modelcontextprotocol/protocolVersion", version),
                    ("io.modelcontextprotocol/clientCapabilities", capabilities),
                    ("io.modelcontextprotocol/clientInfo", info),
                    ("progressToken", token),
                    ("io.modelcontextprotocol/logLevel", level),
                ] {
                    if let Some(value) = value {
                        meta.insert(key.to_owned(), value);
                    }
                }
                Value::Object(meta)
            }),
        1 => json_value(),
    ]
}

fn rpc_like() -> impl Strategy<Value = Value> {
    (
        prop_oneof![3 => Just(json!("2.0")), 1 => json_value()],
        proptest::option::of(prop_oneof![
            any::<i64>().prop_map(Value::from),
            "[a-z0-9-]{0,8}".prop_map(Value::from),
            json_value()
        ]),
        prop_oneof![
            3 => Just(json!("tools/call")),
            1 => Just(json!("tools/list")),
            1 => Just(json!("initialize")),
            1 => Just(json!("ping")),
            1 => json_value()
        ],
        prop_oneof![
            3 => add_arguments().prop_map(|arguments| json!({"name": "add", "arguments": arguments})),
            2 => (add_arguments(), meta()).prop_map(|(arguments, meta)| {
                json!({"name": "add", "arguments": arguments, "_meta": meta})
            }),
            1 => json_value(),
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
            check_reply(&text, Some(reply.expect("invalid JSON gets -32700")), &Outcomes::default());
        }
    }
}

/// JSON-RPC-shaped messages each get one well-formed answer with their id, and the tool
/// arguments reach the handler: both its sum and its overflow error are seen.
#[test]
fn dispatch_answers_json_rpc_shaped_messages() {
    let outcomes = Outcomes::default();
    runner(cases())
        .run(&rpc_like(), |message| {
            let mut r = registry();
            let text = message.to_string();
            let reply = r.dispatch(&mut Ctx, &text);
            check_reply(&text, reply, &outcomes);
            // The registry keeps working afterwards.
            let ping = r.dispatch(&mut Ctx, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
            prop_assert_eq!(
                ping.as_deref(),
                Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let (added, overflowed) = (
        outcomes.added.into_inner(),
        outcomes.overflowed.into_inner(),
    );
    println!("dispatch: {added} sums, {overflowed} overflows");
    assert!(added > 0, "no call reached the handler's sum");
    assert!(overflowed > 0, "no call reached the handler's overflow");
}
