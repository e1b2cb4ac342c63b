//! What changed between two tool lists, and what it breaks (`mcp-bindgen diff OLD NEW`).
//!
//! The rules live in the `mcp-bindgen-diff` crate, shared with the runtime's drift guard; this
//! module compares [`Capture`]s with them. Everything of that crate is re-exported here.
//!
//! ```
//! use std::path::Path;
//! use mcp_bindgen_codegen::{capture, diff};
//!
//! let old = capture::parse(Path::new("old.json"), r#"{"tools": [
//!     {"name": "echo", "inputSchema": {"type": "object",
//!         "properties": {"message": {"type": "string"}}}}]}"#.into())?;
//! let new = capture::parse(Path::new("new.json"), r#"{"tools": [
//!     {"name": "echo", "inputSchema": {"type": "object",
//!         "properties": {"message": {"type": "string"}, "loud": {"type": "boolean"}},
//!         "required": ["message", "loud"]}}]}"#.into())?;
//! let report = diff::diff(&old, &new, &diff::Options::default());
//! assert_eq!(report.changes[0].rule, "input-property-became-required");
//! assert_eq!(report.changes[1].rule, "input-required-property-added");
//! assert!(report.breaks(diff::Severity::Breaking));
//! # Ok::<(), mcp_bindgen_codegen::Error>(())
//! ```

pub use mcp_bindgen_diff::{
    Annotations, Change, Format, Kind, Level, Options, Report, Severity, Summary, Tool, catalog,
    digest, inclusion, rules,
};

use crate::model::{self, Capture};

/// Compares two captures: what a client of `old` meets when the server becomes `new`: its
/// tools, then its prompts, resources and resource templates.
pub fn diff(old: &Capture, new: &Capture, options: &Options) -> Report {
    let mut report = mcp_bindgen_diff::diff(&tools(old), &tools(new), options);
    report.extend(catalog::diff(&catalog_of(old), &catalog_of(new)));
    report
}

/// The capture's prompts, resources and templates as the rules read them.
pub fn catalog_of(capture: &Capture) -> catalog::Catalog<'_> {
    catalog::Catalog {
        prompts: capture
            .prompts
            .iter()
            .map(|p| catalog::Prompt {
                name: &p.name,
                arguments: p
                    .arguments
                    .iter()
                    .map(|a| (a.name.as_str(), a.required))
                    .collect(),
            })
            .collect(),
        resources: capture
            .resources
            .iter()
            .map(|r| catalog::Resource {
                name: &r.name,
                uri: &r.uri,
            })
            .collect(),
        templates: capture
            .templates
            .iter()
            .map(|t| catalog::Template {
                name: &t.name,
                uri_template: &t.uri_template,
            })
            .collect(),
    }
}

/// The capture's tools as the rules read them (the fields the capture reader checked).
pub fn tools(capture: &Capture) -> Vec<Tool<'_>> {
    capture.tools.iter().map(tool).collect()
}

fn tool(tool: &model::Tool) -> Tool<'_> {
    let a = &tool.annotations;
    Tool {
        name: &tool.name,
        title: tool.title.as_deref(),
        description: tool.description.as_deref(),
        input_schema: &tool.input_schema,
        output_schema: tool.output_schema.as_ref(),
        annotations: Annotations {
            title: a.title.as_deref(),
            read_only: a.read_only,
            destructive: a.destructive,
            idempotent: a.idempotent,
            open_world: a.open_world,
        },
        task_support: tool
            .raw
            .get("execution")
            .and_then(|e| e.get("taskSupport"))
            .and_then(serde_json::Value::as_str),
        raw: &tool.raw,
    }
}

/// The tools, prompts, resources and templates a generated module was made from, read back
/// from its `PROVENANCE` (for `diff --against-module FILE.rs`: does a checked-in client still
/// match the server?).
pub fn read_module(path: &std::path::Path) -> Result<Capture, crate::error::Error> {
    use crate::diagnostic::Diagnostic;
    let text = std::fs::read_to_string(path).map_err(|source| crate::error::Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file = syn::parse_file(&text).map_err(|e| {
        Diagnostic::new(path, format!("not a Rust file: {e}"))
            .help("name a module written by `mcp-bindgen generate` or `regenerate`")
    })?;
    let (tools, catalog) = provenance(&file.items).ok_or_else(|| {
        Diagnostic::new(path, "no `PROVENANCE` in this module").help(
            "modules record the tools they were generated from since mcp-bindgen 0.1.0: \
             run `mcp-bindgen regenerate` (or `generate`) again, or diff the capture itself",
        )
    })?;
    // The catalog is an object of `prompts`, `resources` and `resourceTemplates`, shaped as a
    // capture holds them: the tools join it.
    let document = match catalog {
        Some(catalog) if catalog.starts_with('{') && catalog.len() > 2 => {
            format!("{{\"tools\": {tools}, {}", &catalog[1..])
        }
        _ => format!("{{\"tools\": {tools}}}"),
    };
    crate::capture::parse(path, document)
}

/// From `PROVENANCE`'s `Provenance::new(..)`, its last argument (the tools' canonical JSON),
/// and from a `Provenance::with_catalog(Provenance::new(..), digest, catalog)` around it, the
/// catalog's. The module's items, or
/// those of a `pub mod` wrapping them.
fn provenance(items: &[syn::Item]) -> Option<(String, Option<String>)> {
    /// The last argument, when it is a string literal.
    fn last(args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>) -> Option<String> {
        match args.last() {
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            })) => Some(text.value()),
            _ => None,
        }
    }
    for item in items {
        match item {
            syn::Item::Static(s) if s.ident == "PROVENANCE" => {
                let syn::Expr::Call(call) = &*s.expr else {
                    return None;
                };
                // `Provenance::with_catalog(Provenance::new(..), digest, catalog)`.
                if let Some(syn::Expr::Call(inner)) = call.args.first() {
                    return Some((last(&inner.args)?, Some(last(&call.args)?)));
                }
                return Some((last(&call.args)?, None));
            }
            syn::Item::Mod(m) => {
                if let Some(found) = m.content.as_ref().and_then(|(_, items)| provenance(items)) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}
