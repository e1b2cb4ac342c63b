//! The corpus of real captures (`fixtures/captures/corpus/`, see the README there): 23 published
//! servers from npm and PyPI. Every one generates, every tool's arguments are typed (none
//! degrades to a JSON object), every module is self-consistent (each type its client names is
//! in `types`), and every module is a snapshot (`snapshots/corpus/NAME.rs`) compiled as a
//! module of this crate (`snapshots/corpus/mod.rs`, with `missing_docs` denied), so that the
//! workspace's clippy `-D warnings` covers what the generator makes of real servers: their
//! descriptions become doc comments, and markdown in them (list items continued on the next
//! line, block quotes, code fences) must be doc comments clippy and rustdoc accept.
//!
//! `cargo test -p mcp-bindgen-tests --test corpus -- --nocapture` prints the per-server table
//! (tools fully typed, partly typed, degraded). Refresh the snapshots on purpose with
//! `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test corpus`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::{Generator, Module, ServerConfig};
use syn::visit_mut::VisitMut;

const COMMAND: &str = "UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test corpus";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The corpus captures, with the module names their snapshots get.
fn corpus() -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> =
        std::fs::read_dir(root().join("fixtures/captures/corpus"))
            .expect("fixtures/captures/corpus")
            .flatten()
            .filter_map(|e| {
                let name = e
                    .file_name()
                    .to_str()?
                    .strip_suffix(".tools.json")?
                    .replace('-', "_");
                Some((name, e.path()))
            })
            .collect();
    files.sort();
    files
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

#[test]
fn every_corpus_server_is_typed_consistent_and_pinned() {
    let files = corpus();
    assert!(files.len() >= 20, "the corpus has {} servers", files.len());
    let mut failures = Vec::new();
    let mut total = Typing::default();
    println!(
        "{:20} {:>5} {:>6} {:>6} {:>8}",
        "server", "tools", "fully", "partly", "degraded"
    );
    let list = std::fs::read_to_string(root().join("snapshots/corpus/mod.rs"))
        .expect("snapshots/corpus/mod.rs");
    let generator = Generator::new().with_base(root());
    for (name, file) in &files {
        let capture = file.strip_prefix(root()).expect("under the crate");
        let config = ServerConfig::new(name.clone(), capture);
        let module = match generator.generate(&config) {
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
        let code = module.to_module_file(COMMAND);
        let missing = undefined_type_names(&code);
        // Code within 100 columns (but for a function whose name alone is longer); prose the
        // generator must not reflow (a fenced example, a table row, a URL) may pass it.
        failures.extend(
            long_lines(&code)
                .filter(|(_, line)| {
                    let line = line.trim_start();
                    let comment = line.starts_with("//");
                    let bare_name = line.starts_with("pub(super) fn ") && line.ends_with("()");
                    !comment && !bare_name
                })
                .map(|(n, line)| {
                    let len = line.chars().count();
                    format!("{name}.rs:{n}: a line of {len} characters (at most 100)")
                }),
        );
        // Pinned, and compiled under clippy (`snapshots/corpus/mod.rs`).
        expect_test::expect_file![root().join(format!("snapshots/corpus/{name}.rs"))]
            .assert_eq(&code);
        assert!(
            list.lines().any(|l| l == format!("pub mod {name};")),
            "snapshots/corpus/{name}.rs is not compiled: add `#[rustfmt::skip] pub mod {name};` to snapshots/corpus/mod.rs"
        );
        let typing = typing(&module);
        println!(
            "{name:20} {:5} {:6} {:6} {:8}",
            module.tools,
            typing.fully,
            typing.partly.len(),
            typing.degraded.len()
        );
        for (tool, members) in &typing.partly {
            println!("    partly typed: {tool}: {}", members.join(", "));
        }
        assert_eq!(
            typing.fully + typing.partly.len() + typing.degraded.len(),
            module.tools,
            "{name}: every tool is counted once"
        );
        total.fully += typing.fully;
        total.partly.extend(
            typing
                .partly
                .into_iter()
                .map(|(t, m)| (format!("{name}.{t}"), m)),
        );
        total
            .degraded
            .extend(typing.degraded.iter().map(|t| format!("{name}.{t}")));
        failures.extend(degraded);
        failures.extend(
            typing
                .degraded
                .iter()
                .map(|t| format!("{name}: `{t}` takes a JSON object")),
        );
        if !missing.is_empty() {
            failures.push(format!(
                "{name}: the client names missing types {missing:?}"
            ));
        }
    }
    println!(
        "{:20} {:5} {:6} {:6} {:8}",
        "total",
        total.fully + total.partly.len() + total.degraded.len(),
        total.fully,
        total.partly.len(),
        total.degraded.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The lines of `code` over 100 characters, with their numbers (from 1).
fn long_lines(code: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    code.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(_, line)| line.chars().count() > 100)
}

/// How a server's tools are typed: arguments with no `serde_json::Value` anywhere in them
/// (`fully`), with some member as `Value` (`partly`, by tool, with the paths to those members),
/// or as a bare JSON object (`degraded`). The `extra` map of an open object is not a member.
#[derive(Default)]
struct Typing {
    fully: usize,
    partly: BTreeMap<String, Vec<String>>,
    degraded: Vec<String>,
}

fn typing(module: &Module) -> Typing {
    let mut types: BTreeMap<String, syn::Item> = BTreeMap::new();
    let mut methods = Vec::new();
    let file = syn::parse_file(&module.code()).expect("the code parses");
    for item in &file.items {
        match item {
            syn::Item::Mod(m) if m.ident == "types" => {
                for item in m.content.iter().flat_map(|(_, items)| items) {
                    let name = match item {
                        syn::Item::Struct(s) => s.ident.to_string(),
                        syn::Item::Enum(e) => e.ident.to_string(),
                        syn::Item::Type(t) => t.ident.to_string(),
                        _ => continue,
                    };
                    types.insert(name, item.clone());
                }
            }
            // `Client`'s methods (not the fake adapter's `ToolCaller` impl).
            syn::Item::Impl(imp) if imp.trait_.is_none() => {
                for item in &imp.items {
                    if let syn::ImplItem::Fn(f) = item
                        && f.sig.asyncness.is_some()
                        && !f.sig.ident.to_string().ends_with("_raw")
                        // The client's own method (a reserved name no tool takes).
                        && f.sig.ident != "check_drift"
                    {
                        methods.push(f.sig.clone());
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Typing::default();
    for sig in methods {
        let tool = sig.ident.to_string();
        let args = sig.inputs.iter().find_map(|arg| match arg {
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::Reference(r) => Some((*r.elem).clone()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        });
        let Some(mut args) = args else {
            out.fully += 1;
            continue;
        };
        let mut names = Paths::default();
        names.visit_type_mut(&mut args);
        let alias_of_object = names
            .names
            .iter()
            .any(|n| matches!(types.get(n), Some(syn::Item::Type(t)) if is_json_object(&t.ty)));
        if is_json_object(&args) || alias_of_object {
            out.degraded.push(tool);
            continue;
        }
        // The types the arguments reach, and where a `Value` is.
        let mut seen = BTreeSet::new();
        let mut todo: Vec<(String, String)> =
            names.names.into_iter().map(|n| (n.clone(), n)).collect();
        let mut values = Vec::new();
        while let Some((name, path)) = todo.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let Some(item) = types.get(&name) else {
                continue;
            };
            let fields: Vec<(String, syn::Type, bool)> = match item {
                syn::Item::Struct(s) => fields(&s.fields),
                syn::Item::Enum(e) => e
                    .variants
                    .iter()
                    .flat_map(|v| {
                        fields(&v.fields).into_iter().map(move |(f, t, x)| {
                            (
                                format!("{}.{f}", v.ident).trim_end_matches('.').to_owned(),
                                t,
                                x,
                            )
                        })
                    })
                    .collect(),
                syn::Item::Type(t) => vec![(String::new(), (*t.ty).clone(), false)],
                _ => Vec::new(),
            };
            for (field, mut ty, extra) in fields {
                if extra {
                    continue;
                }
                let mut found = Paths::default();
                found.visit_type_mut(&mut ty);
                let here = format!("{path}.{field}");
                if found.value {
                    values.push(here.clone());
                }
                todo.extend(found.names.into_iter().map(|n| (n, here.clone())));
            }
        }
        if values.is_empty() {
            out.fully += 1;
        } else {
            values.sort();
            out.partly.insert(tool, values);
        }
    }
    out
}

/// `serde_json::Map<..>`: arguments as a bare JSON object.
fn is_json_object(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    p.path.segments.iter().any(|s| s.ident == "serde_json")
        && p.path.segments.last().is_some_and(|s| s.ident == "Map")
}

/// A struct's or variant's fields: name, type, and whether it is the flattened `extra` map.
fn fields(fields: &syn::Fields) -> Vec<(String, syn::Type, bool)> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let flatten = f.attrs.iter().any(|a| {
                a.path().is_ident("serde")
                    && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().contains("flatten"))
            });
            let name = f.ident.as_ref().map_or_else(|| i.to_string(), ToString::to_string);
            (if fields.len() == 1 && f.ident.is_none() { String::new() } else { name }, f.ty.clone(), flatten)
        })
        .collect()
}

/// The type names a type mentions (the last segment of each path), and whether it is or
/// holds a `serde_json::Value`.
#[derive(Default)]
struct Paths {
    names: BTreeSet<String>,
    value: bool,
}

impl VisitMut for Paths {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(last) = path.segments.last() {
            let serde_json = path.segments.iter().any(|s| s.ident == "serde_json");
            if serde_json && (last.ident == "Value" || last.ident == "Map") {
                self.value = true;
            }
            self.names.insert(last.ident.to_string());
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}
