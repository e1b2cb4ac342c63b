//! The three renderings of a [`Report`]: text for a terminal, Markdown for a pull-request
//! comment, JSON for programs.
//!
//! The JSON is the [`Report`] as it is: `{"changes": [{"rule", "severity", "tool",
//! "pointer", "message"}], "summary": {"breaking", "warning", "info", "old_tools",
//! "new_tools", "added", "removed", "changed", "level"}}`. Fields are only ever added.

use std::fmt::Write;

use crate::{Change, Report};

/// How to print a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// Grouped by tool, the breaking ones first.
    #[default]
    Text,
    /// A Markdown table, for a pull-request comment.
    Markdown,
    /// The report as JSON (see the module docs for its shape).
    Json,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Format::Text),
            "markdown" | "md" => Ok(Format::Markdown),
            "json" => Ok(Format::Json),
            _ => Err(format!("unknown format `{s}`: use text, markdown or json")),
        }
    }
}

impl Format {
    /// Renders `report`; `old` and `new` name the two sides (file names or server commands).
    pub fn render(self, report: &Report, old: &str, new: &str) -> String {
        match self {
            Format::Text => text(report, old, new),
            Format::Markdown => markdown(report, old, new),
            Format::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        }
    }
}

/// What a change is about, as headings show it: a tool by its name, the rest by kind and name
/// (`prompt briefing`).
fn subject(change: &Change) -> String {
    match change.kind {
        crate::Kind::Tool => change.tool.clone(),
        kind => format!("{} {}", kind.as_str(), change.tool),
    }
}

/// Runs of consecutive changes of one tool (the report is grouped by tool already).
fn groups(changes: &[Change]) -> Vec<&[Change]> {
    changes
        .chunk_by(|a, b| (a.kind, &a.tool) == (b.kind, &b.tool))
        .collect::<Vec<_>>()
}

fn tools_line(report: &Report) -> String {
    let s = &report.summary;
    format!(
        "tools: {} -> {} ({} added, {} removed, {} changed)",
        s.old_tools, s.new_tools, s.added, s.removed, s.changed
    )
}

fn text(report: &Report, old: &str, new: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{old} -> {new}: {}", report.counts());
    let _ = writeln!(out, "{}", tools_line(report));
    for group in groups(&report.changes) {
        let _ = writeln!(out, "\n{}", subject(&group[0]));
        for c in group {
            let at = if c.pointer.is_empty() {
                String::new()
            } else {
                format!("{}: ", c.pointer)
            };
            let _ = writeln!(
                out,
                "  {:<8}  {at}{}  [{}]",
                c.severity.as_str(),
                c.message,
                c.rule
            );
        }
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn markdown(report: &Report, old: &str, new: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### MCP tool changes: {}\n", report.counts());
    let _ = writeln!(
        out,
        "`{}` → `{}`; {}\n",
        cell(old),
        cell(new),
        tools_line(report)
    );
    if report.changes.is_empty() {
        return out;
    }
    let _ = writeln!(out, "| severity | tool | where | change | rule |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for c in &report.changes {
        let severity = match c.severity {
            crate::Severity::Breaking => "**breaking**",
            crate::Severity::Warning => "warning",
            crate::Severity::Info => "info",
        };
        let at = if c.pointer.is_empty() {
            String::new()
        } else {
            format!("`{}`", cell(&c.pointer))
        };
        let _ = writeln!(
            out,
            "| {severity} | `{}` | {at} | {} | `{}` |",
            cell(&subject(c)),
            cell(&c.message),
            c.rule
        );
    }
    out
}
