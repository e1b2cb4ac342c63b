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

pub use mcp_bindgen_core::digest;
pub use mcp_bindgen_diff::{
    Annotations, Change, Format, Kind, Level, Options, Report, Severity, Summary, Tool, catalog,
    inclusion, rules,
};

use crate::model::{self, Capture};

/// Compares two captures: what a client of `old` meets when the server becomes `new`: its
/// tools, then its prompts, resources, resource templates and skills.
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
        skills: capture
            .skills
            .iter()
            .map(|s| catalog::Skill {
                name: &s.name,
                uri: &s.uri,
                files: s
                    .files
                    .iter()
                    .flatten()
                    .map(|(uri, digest)| (uri.as_str(), digest.as_str()))
                    .collect(),
            })
            .collect(),
        events: capture
            .events
            .iter()
            .map(|e| catalog::EventType {
                name: &e.name,
                delivery: e.delivery.iter().map(String::as_str).collect(),
                input_schema: &e.input_schema,
                payload_schema: &e.payload_schema,
                raw: &e.raw,
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
    let recorded = provenance(&file.items).ok_or_else(|| {
        Diagnostic::new(path, "no `PROVENANCE` in this module").help(
            "modules record the tools they were generated from since mcp-bindgen 0.1.0: \
             run `mcp-bindgen regenerate` (or `generate`) again, or diff the capture itself",
        )
    })?;
    let tools = recorded.tools().map_err(|what| {
        Diagnostic::new(path, format!("`PROVENANCE` cannot be read back: {what}"))
            .help("regenerate the module, or diff the capture it was made from")
    })?;
    // The catalog is an object of `prompts`, `resources` and `resourceTemplates`, shaped as a
    // capture holds them: the tools join it.
    let document = match recorded.catalog {
        Some(catalog) if catalog.starts_with('{') && catalog.len() > 2 => {
            format!("{{\"tools\": {tools}, {}", &catalog[1..])
        }
        _ => format!("{{\"tools\": {tools}}}"),
    };
    crate::capture::parse(path, document)
}

/// What a module's `PROVENANCE` records, as written in its source.
#[derive(Default)]
struct Recorded {
    /// The tools' canonical JSON (`Provenance::new`'s last argument).
    tools: String,
    /// The catalog's canonical JSON (`with_catalog`'s last argument).
    catalog: Option<String>,
    /// The tools' names, in `TOOL_NAMES`' order.
    names: Vec<String>,
    /// `with_input_schemas`' statics, one per name, when the schemas are kept beside the JSON.
    schemas: Vec<String>,
    /// The module's `schemas` statics: each name and its JSON text.
    statics: Vec<(String, String)>,
}

impl Recorded {
    /// The tools' JSON, each input schema put back from its static when they are kept apart.
    fn tools(&self) -> Result<String, String> {
        if self.schemas.is_empty() {
            return Ok(self.tools.clone());
        }
        let mut tools: Vec<serde_json::Value> = serde_json::from_str(&self.tools)
            .map_err(|e| format!("its tools' JSON does not parse: {e}"))?;
        if self.schemas.len() != self.names.len() {
            return Err(format!(
                "{} input schemas for {} tool names",
                self.schemas.len(),
                self.names.len()
            ));
        }
        mcp_bindgen_core::recorded::put_back_input_schemas(&mut tools, |name| {
            let Some(i) = self.names.iter().position(|n| n == name) else {
                return Ok(None);
            };
            let schema = &self.schemas[i];
            let text = self
                .statics
                .iter()
                .find_map(|(ident, text)| (ident == schema).then_some(text))
                .ok_or_else(|| format!("no static `schemas::{schema}`"))?;
            serde_json::from_str(text)
                .map(Some)
                .map_err(|e| format!("`schemas::{schema}` does not parse: {e}"))
        })?;
        serde_json::to_string(&tools).map_err(|e| e.to_string())
    }
}

/// A string literal's value, or that of `concat!` of string literals (how a generated module
/// writes a long JSON text).
fn literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(text.value()),
        syn::Expr::Macro(syn::ExprMacro { mac, .. }) if mac.path.is_ident("concat") => {
            let pieces = mac
                .parse_body_with(
                    syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated,
                )
                .ok()?;
            Some(pieces.iter().map(syn::LitStr::value).collect())
        }
        _ => None,
    }
}

/// `&[&schemas::A, ..]`: the statics' names.
fn schema_list(expr: &syn::Expr) -> Option<Vec<String>> {
    let syn::Expr::Reference(array) = expr else {
        return None;
    };
    let syn::Expr::Array(array) = &*array.expr else {
        return None;
    };
    array
        .elems
        .iter()
        .map(|element| match element {
            syn::Expr::Reference(syn::ExprReference { expr, .. }) => match &**expr {
                syn::Expr::Path(path) => Some(path.path.segments.last()?.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Reads `PROVENANCE`'s expression: `Provenance::new(..)` inside
/// `Provenance::with_input_schemas(.., &[&schemas::A, ..])` (modules whose definitions hold
/// their schemas have none) inside `Provenance::with_catalog(.., digest, catalog)` (when the
/// module uses prompts or resources); each of the two also as a method call.
fn read_expression(expr: &syn::Expr, recorded: &mut Recorded) -> Option<()> {
    match expr {
        syn::Expr::MethodCall(call) => {
            read_expression(&call.receiver, recorded)?;
            match call.method.to_string().as_str() {
                "with_catalog" => recorded.catalog = Some(literal(call.args.last()?)?),
                "with_input_schemas" => recorded.schemas = schema_list(call.args.first()?)?,
                _ => return None,
            }
            Some(())
        }
        syn::Expr::Call(call) => {
            let syn::Expr::Path(function) = &*call.func else {
                return None;
            };
            match function.path.segments.last()?.ident.to_string().as_str() {
                "new" => recorded.tools = literal(call.args.last()?)?,
                "with_catalog" => {
                    read_expression(call.args.first()?, recorded)?;
                    recorded.catalog = Some(literal(call.args.last()?)?);
                }
                "with_input_schemas" => {
                    read_expression(call.args.first()?, recorded)?;
                    recorded.schemas = schema_list(call.args.last()?)?;
                }
                _ => return None,
            }
            Some(())
        }
        _ => None,
    }
}

/// `PROVENANCE`, `TOOL_NAMES` and the `schemas` statics among the module's items, or among
/// those of a `pub mod` wrapping them.
fn provenance(items: &[syn::Item]) -> Option<Recorded> {
    let mut recorded = Recorded::default();
    let mut found = false;
    for item in items {
        match item {
            syn::Item::Static(s) if s.ident == "PROVENANCE" => {
                read_expression(&s.expr, &mut recorded)?;
                found = true;
            }
            syn::Item::Const(c) if c.ident == "TOOL_NAMES" => {
                let syn::Expr::Reference(array) = &*c.expr else {
                    continue;
                };
                if let syn::Expr::Array(array) = &*array.expr {
                    recorded.names = array.elems.iter().filter_map(literal).collect();
                }
            }
            syn::Item::Mod(m) if m.ident == "schemas" => {
                let Some((_, items)) = &m.content else {
                    continue;
                };
                for item in items {
                    if let syn::Item::Static(s) = item
                        && let syn::Expr::Call(call) = &*s.expr
                        && let Some(text) = call.args.first().and_then(literal)
                    {
                        recorded.statics.push((s.ident.to_string(), text));
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some(found) = m.content.as_ref().and_then(|(_, items)| provenance(items)) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    found.then_some(recorded)
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
