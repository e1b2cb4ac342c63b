//! What the clients' drift check costs (BENCHMARKS.md, "Drift check").
//!
//! - At connect, when nothing changed: the digest of a 100- and a 1,000-tool list, against
//!   parsing that list's JSON (which every `tools/list` round trip pays anyway: the anchor);
//!   and the check as a client of 20 of those 1,000 tools runs it (only those 20 hashed).
//! - When something changed: the classification of the largest capture in the corpus against a
//!   changed copy (a property made required, a tool removed, a description changed).
//!
//! The tools are the corpus captures' own, repeated under new names up to the count.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen_core::digest;
use mcp_bindgen_diff::{Options, Tool, diff};
use serde_json::Value;

fn corpus() -> Vec<(String, Vec<Value>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/captures/corpus");
    let mut captures = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("readable");
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let tools = value
            .get("tools")
            .or_else(|| value.pointer("/result/tools"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        captures.push((name, tools));
    }
    captures
}

/// `n` tools from the corpus, renamed `tool_0`.. so that every name is distinct.
fn tools(corpus: &[(String, Vec<Value>)], n: usize) -> Vec<Value> {
    let all: Vec<&Value> = corpus.iter().flat_map(|(_, t)| t).collect();
    (0..n)
        .map(|i| {
            let mut tool = all[i % all.len()].clone();
            tool["name"] = Value::String(format!("tool_{i}"));
            tool
        })
        .collect()
}

fn connect(c: &mut Criterion) {
    let corpus = corpus();
    let mut group = c.benchmark_group("drift/unchanged");
    for n in [100, 1000] {
        let list = tools(&corpus, n);
        let text = serde_json::to_string(&serde_json::json!({ "tools": list })).expect("JSON");
        group.bench_function(format!("parse {n} tools (anchor)"), |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&text)).expect("parses"))
        });
        group.bench_function(format!("digest {n} tools"), |b| {
            b.iter(|| digest::digest(black_box(&list)))
        });
    }
    // What the client's check does for a module that calls 20 of a server's 1,000 tools:
    // the live list restricted to the module's names, and only those hashed (the runtime's
    // `client::drift::judge` when nothing changed).
    let list = tools(&corpus, 1000);
    let names: Vec<String> = (0..1000).step_by(50).map(|i| format!("tool_{i}")).collect();
    group.bench_function("check 20 of 1000 tools", |b| {
        b.iter(|| {
            let names: std::collections::HashSet<&str> =
                black_box(&names).iter().map(String::as_str).collect();
            let mine = black_box(&list)
                .iter()
                .filter(|t| names.contains(t.get("name").and_then(Value::as_str).unwrap_or("")));
            digest::digest(mine)
        })
    });
    group.finish();
}

fn changed(c: &mut Criterion) {
    let corpus = corpus();
    let (name, old) = corpus
        .iter()
        .max_by_key(|(_, tools)| serde_json::to_string(tools).map_or(0, |t| t.len()))
        .expect("a capture");
    let mut new = old.clone();
    if let Some(Value::Object(schema)) = new[0].get_mut("inputSchema") {
        let first = schema
            .get("properties")
            .and_then(Value::as_object)
            .and_then(|p| p.keys().next().cloned());
        if let Some(first) = first {
            schema.insert("required".into(), serde_json::json!([first]));
        }
    }
    new[1]["description"] = Value::String("changed".into());
    new.pop();
    let old_tools: Vec<Tool<'_>> = old.iter().filter_map(Tool::from_json).collect();
    let new_tools: Vec<Tool<'_>> = new.iter().filter_map(Tool::from_json).collect();
    let report = diff(&old_tools, &new_tools, &Options::default());
    assert!(!report.changes.is_empty(), "the copy differs");
    let mut group = c.benchmark_group("drift/changed");
    group.bench_function(format!("classify {name}"), |b| {
        b.iter(|| {
            let old: Vec<Tool<'_>> = old.iter().filter_map(Tool::from_json).collect();
            let new: Vec<Tool<'_>> = new.iter().filter_map(Tool::from_json).collect();
            diff(black_box(&old), black_box(&new), &Options::default())
        })
    });
    group.finish();
}

criterion_group!(benches, connect, changed);
criterion_main!(benches);
