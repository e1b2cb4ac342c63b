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
    Annotations, Change, Format, Level, Options, Report, Severity, Summary, Tool, digest,
    inclusion, rules,
};

use crate::model::{self, Capture};

/// Compares two captures: what a client of `old` meets when the server becomes `new`.
pub fn diff(old: &Capture, new: &Capture, options: &Options) -> Report {
    let (old, new) = (tools(old), tools(new));
    mcp_bindgen_diff::diff(&old, &new, options)
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
        raw: &tool.raw,
    }
}
