//! typify's loop, closed: every fixture capture generates a snapshot under `snapshots/`, and
//! every snapshot is compiled as a module of this crate (`src/lib.rs`), under the workspace's
//! clippy `-D warnings`. Refresh on purpose with `UPDATE_EXPECT=1 cargo test -p
//! mcp-bindgen-tests --test snapshots`.

use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::{Generator, ServerConfig, Stage};

const COMMAND: &str = "UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test snapshots";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every capture under fixtures/, with the module name its snapshot gets.
fn fixtures() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in [
        "fixtures/captures",
        "fixtures/captures/peers",
        "fixtures/edge",
    ] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".tools.json") {
                out.push((stem.replace('-', "_"), Path::new(dir).join(&name)));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_fixture_matches_its_snapshot() {
    let fixtures = fixtures();
    assert!(!fixtures.is_empty(), "no fixtures found");
    let generator = Generator::new().with_base(root());
    for (module, capture) in &fixtures {
        let config = ServerConfig::new(module.clone(), capture.clone());
        let generated = generator
            .generate(&config)
            .unwrap_or_else(|e| panic!("{}: {e}", capture.display()));
        let snapshot = root().join("snapshots").join(format!("{module}.rs"));
        let code = generated.to_module_file(COMMAND);
        // Lines a person reads: the schemas' JSON included (but in `hostile`, whose names
        // nest 27 levels deep on purpose).
        for (n, line) in code.lines().enumerate().filter(|_| module != "hostile") {
            let len = line.chars().count();
            assert!(
                len <= 100,
                "{module}.rs:{}: {len} characters: {line}",
                n + 1
            );
        }
        expect_test::expect_file![snapshot].assert_eq(&code);
    }
}

#[test]
fn every_snapshot_is_compiled() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    for (module, _) in fixtures() {
        let line = format!("#[path = \"../snapshots/{module}.rs\"]");
        assert!(
            lib.contains(&line),
            "snapshots/{module}.rs is not compiled: add `{line} pub mod {module};` to tests/src/lib.rs"
        );
    }
}

/// Two tools that take the same constrained id (one as a field, one as the items of an array)
/// share one type, named from the descriptions' `OrderId`; the page size bounded 1..=100 is a
/// plain integer, checked with the schema before each call.
#[test]
fn identical_constrained_ids_are_one_type() {
    use mcp_bindgen_tests::shared_ids::types::*;
    let id: OrderId = "0123456789ab".try_into().expect("12 hex digits");
    let cancel = CancelOrdersArgs {
        order_ids: vec![id.clone()],
        reason: None,
    };
    let get = GetOrderArgs {
        order_id: cancel.order_ids[0].clone(),
        page_size: 20,
    };
    assert_eq!(get.order_id, id);
    let err = OrderId::try_from("0123").expect_err("too short");
    assert_eq!(
        err.to_string(),
        r#"invalid OrderId "0123": shorter than 12 characters"#
    );
    let module = std::fs::read_to_string(root().join("snapshots/shared_ids.rs")).expect("snapshot");
    assert_eq!(
        module.matches("Regex::new(").count(),
        1,
        "one id type, one check"
    );
}

/// The warnings for the edge cases are part of the contract too: each names the tool, the
/// JSON pointer and line:column of the construct, and what became of it.
#[test]
fn edge_case_warnings() {
    let config = ServerConfig::new("edge_cases", "fixtures/edge/edge_cases.tools.json");
    let generated = Generator::new()
        .with_base(root())
        .generate(&config)
        .expect("generates");
    let text: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    expect_test::expect_file!["../snapshots/edge_cases.warnings.txt"]
        .assert_eq(&(text.join("\n") + "\n"));
}

/// A tool that fails at any stage of the generator degrades alone, and the module still
/// compiles: `convert_time` of the time capture is made to fail at each stage in turn, and
/// each module is compiled with the others (`src/lib.rs`).
#[test]
fn a_failure_at_each_stage_still_yields_a_module_that_compiles() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    for (stage, name) in [
        (Stage::Normalise, "normalise"),
        (Stage::Typify, "typify"),
        (Stage::Render, "render"),
        (Stage::PostPass, "post_pass"),
        (Stage::Output, "output"),
    ] {
        let module = format!("forced_{name}");
        let config = ServerConfig::new(&module, "fixtures/captures/time.tools.json");
        let generated = Generator::new()
            .with_base(root())
            .with_fault("convert_time", stage)
            .generate(&config)
            .expect("generates");
        let tools: Vec<Option<&str>> = generated
            .warnings
            .iter()
            .map(|w| w.tool.as_deref())
            .collect();
        assert_eq!(tools, vec![Some("convert_time")], "{stage:?}");
        let snapshot = root().join("snapshots/forced").join(format!("{module}.rs"));
        expect_test::expect_file![snapshot].assert_eq(&generated.to_module_file(COMMAND));
        let line = format!("#[path = \"../snapshots/forced/{module}.rs\"]");
        assert!(
            lib.contains(&line),
            "add `{line} pub mod {module};` to tests/src/lib.rs"
        );
    }
}
