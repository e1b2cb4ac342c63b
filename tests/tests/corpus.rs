//! The corpus of real captures (`fixtures/captures/corpus/`, see the README there): 23 published
//! servers from npm and PyPI. Every one generates, every tool's arguments are typed (none
//! degrades to a JSON object), and every module is self-consistent (each type its client names
//! is in `types`). `cargo test -p mcp-bindgen-tests --test corpus -- --nocapture` prints the
//! per-server table.

use std::path::Path;

use mcp_bindgen_codegen::{Generator, ServerConfig};

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

#[test]
fn every_corpus_server_generates_with_every_tool_typed_and_consistent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("fixtures/captures/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/captures/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus has {} servers", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".tools.json"))
            .expect("name")
            .to_owned();
        let config = ServerConfig::new(&name, file.clone());
        let module = match Generator::new().generate(&config) {
            Ok(module) => module,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let degraded: Vec<String> = module
            .warnings
            .iter()
            .filter(|w| w.message.ends_with("arguments typed as a JSON object"))
            .map(ToString::to_string)
            .collect();
        let missing = undefined_type_names(&module.to_module_file("test"));
        println!(
            "{name:20} {:3} tools, {:3} degraded, {:3} warnings",
            module.tools,
            degraded.len(),
            module.warnings.len()
        );
        failures.extend(degraded);
        if !missing.is_empty() {
            failures.push(format!(
                "{name}: the client names missing types {missing:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
