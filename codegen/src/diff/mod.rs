//! What changed between two tool lists, and what it breaks (`mcp-bindgen diff OLD NEW`).
//!
//! [`diff`] compares two captures tool by tool and reports every change with a stable rule id
//! ([`rules`] lists them all), a [`Severity`], the tool, a JSON pointer into the tool and a
//! one-line message. Schemas are compared by the values they admit, in the direction they
//! flow: `inputSchema` is what the client sends, `outputSchema` what it receives. `$ref`s are
//! resolved first, so moving a definition is not a change.
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

mod format;
pub mod inclusion;
mod rename;
mod resolve;
pub mod rules;
mod schema;

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use crate::model::{Capture, Tool};
pub use format::Format;
use rules::{Direction, Rule};
pub use rules::{Level, Severity};
use schema::Compare;

/// What to compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `Wire` (default) or also `Source`: what changes in the generated Rust.
    pub level: Level,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The stable rule id (`input-required-property-added`).
    pub rule: String,
    /// How much it matters to a client built against the old list.
    pub severity: Severity,
    /// The tool's name (the old name for a removed tool).
    pub tool: String,
    /// JSON pointer into the tool object (`/inputSchema/properties/path`; `""` for the tool
    /// itself). Inside schemas it follows `$ref`s: it is the path a value takes.
    pub pointer: String,
    /// One line saying what changed.
    pub message: String,
}

/// The counts of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Breaking changes.
    pub breaking: usize,
    /// Warnings.
    pub warning: usize,
    /// Informational changes.
    pub info: usize,
    /// Tools in the old list.
    pub old_tools: usize,
    /// Tools in the new list.
    pub new_tools: usize,
    /// Tools only in the new list.
    pub added: usize,
    /// Tools only in the old list.
    pub removed: usize,
    /// Tools in both with at least one change.
    pub changed: usize,
    /// `wire` or `source`.
    pub level: Level,
}

/// Every change between two tool lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The changes, tool by tool in the order of the old list (then the added tools), each
    /// tool's changes in the order of the schemas.
    pub changes: Vec<Change>,
    /// The counts.
    pub summary: Summary,
}

impl Report {
    /// Whether any change is at least `severity` (the exit code of `diff`).
    pub fn breaks(&self, severity: Severity) -> bool {
        self.changes.iter().any(|c| c.severity >= severity)
    }

    /// `2 breaking, 1 warning, 3 info` (or `no changes`).
    pub fn counts(&self) -> String {
        let s = &self.summary;
        if self.changes.is_empty() {
            return "no changes".into();
        }
        format!(
            "{} breaking, {} warning{}, {} info",
            s.breaking,
            s.warning,
            if s.warning == 1 { "" } else { "s" },
            s.info
        )
    }
}

/// Compares two captures: what a client of `old` meets when the server becomes `new`.
pub fn diff(old: &Capture, new: &Capture, options: &Options) -> Report {
    // Schemas nest up to the capture reader's limit and `$ref`s add to it: compare on a stack
    // that cannot run out.
    crate::generate::with_big_stack(|| diff_on_this_stack(old, new, options))
}

fn diff_on_this_stack(old: &Capture, new: &Capture, options: &Options) -> Report {
    let source = options.level == Level::Source;
    let new_by_name: BTreeMap<&str, &Tool> =
        new.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let old_by_name: BTreeMap<&str, &Tool> =
        old.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let added: Vec<&Tool> = new
        .tools
        .iter()
        .filter(|t| !old_by_name.contains_key(t.name.as_str()))
        .collect();
    let removed: Vec<&Tool> = old
        .tools
        .iter()
        .filter(|t| !new_by_name.contains_key(t.name.as_str()))
        .collect();
    let renames = renames(&removed, &added);

    let mut changes = Vec::new();
    let mut changed = 0;
    for tool in &old.tools {
        match new_by_name.get(tool.name.as_str()) {
            Some(now) => {
                let before = changes.len();
                compare_tool(tool, now, source, &mut changes);
                if changes.len() > before {
                    changed += 1;
                }
            }
            None => {
                let message = match renames.get(tool.name.as_str()) {
                    Some(to) => format!("tool removed; probably renamed to `{to}`"),
                    None => "tool removed".to_owned(),
                };
                changes.push(change(rules::TOOL_REMOVED, &tool.name, "", message));
            }
        }
    }
    for tool in &added {
        let from = renames
            .iter()
            .find(|(_, to)| **to == tool.name)
            .map(|(from, _)| *from);
        let message = match from {
            Some(from) => format!("new tool (probably the new name of `{from}`)"),
            None => "new tool".to_owned(),
        };
        changes.push(change(rules::TOOL_ADDED, &tool.name, "", message));
    }
    sort(&mut changes);
    let count = |s: Severity| changes.iter().filter(|c| c.severity == s).count();
    let summary = Summary {
        breaking: count(Severity::Breaking),
        warning: count(Severity::Warning),
        info: count(Severity::Info),
        old_tools: old.tools.len(),
        new_tools: new.tools.len(),
        added: added.len(),
        removed: removed.len(),
        changed,
        level: options.level,
    };
    Report { changes, summary }
}

/// Groups changes by tool, the tools with the most severe changes first (then in list order),
/// and each tool's changes most severe first (then in schema order).
fn sort(changes: &mut [Change]) {
    let mut tools: Vec<(&str, Severity, usize)> = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        match tools.iter_mut().find(|(t, _, _)| *t == c.tool) {
            Some(entry) => entry.1 = entry.1.max(c.severity),
            None => tools.push((&c.tool, c.severity, i)),
        }
    }
    tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let rank: BTreeMap<String, usize> = tools
        .iter()
        .enumerate()
        .map(|(rank, (tool, _, _))| ((*tool).to_owned(), rank))
        .collect();
    changes.sort_by_key(|c| (rank.get(&c.tool).copied(), std::cmp::Reverse(c.severity)));
}

fn change(rule: Rule, tool: &str, pointer: &str, message: String) -> Change {
    Change {
        rule: rule.id.to_owned(),
        severity: rule.severity,
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
        message,
    }
}

/// Removed tool name -> the added tool it was probably renamed to.
fn renames<'t>(removed: &[&'t Tool], added: &[&'t Tool]) -> BTreeMap<&'t str, &'t str> {
    let mut out = BTreeMap::new();
    let mut taken: Vec<&str> = Vec::new();
    // Tools often share an input schema: each distinct one is compared with the added tools once.
    let mut by_schema: HashMap<String, Vec<&'t Tool>> = HashMap::new();
    for old in removed {
        let key = old.input_schema.to_string();
        let candidates = by_schema
            .entry(key)
            .or_insert_with(|| {
                added
                    .iter()
                    .copied()
                    .filter(|new| {
                        may_accept(&old.input_schema, &new.input_schema)
                            && accepts_what_it_accepted(old, new)
                    })
                    .collect()
            })
            .clone();
        let close = candidates
            .iter()
            .filter(|new| !taken.contains(&new.name.as_str()))
            .filter_map(|new| rename::closeness(&old.name, &new.name).map(|score| (score, *new)))
            .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.name.cmp(&a.1.name)));
        let chosen = match (close, candidates.as_slice()) {
            (Some((_, new)), _) => Some(new),
            (None, [only]) if !taken.contains(&only.name.as_str()) => Some(*only),
            _ => None,
        };
        if let Some(new) = chosen {
            taken.push(&new.name);
            out.insert(old.name.as_str(), new.name.as_str());
        }
    }
    out
}

/// A quick necessary condition for [`accepts_what_it_accepted`] on the top-level property
/// names: `new` declares every argument `old` declared and requires none that `old` callers
/// might not send.
fn may_accept(old: &Value, new: &Value) -> bool {
    let names = |schema: &Value, key: &str| -> Vec<String> {
        let schema = resolve::resolve(schema, schema);
        match (key, schema.get(key)) {
            ("properties", Some(Value::Object(map))) => map.keys().cloned().collect(),
            ("required", Some(Value::Array(items))) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let (old_props, new_props) = (names(old, "properties"), names(new, "properties"));
    let old_required = names(old, "required");
    old_props.iter().all(|p| new_props.contains(p))
        && names(new, "required")
            .iter()
            .all(|r| old_required.contains(r))
}

/// Whether `new` accepts every call `old` accepted (its input schema narrows nothing).
fn accepts_what_it_accepted(old: &Tool, new: &Tool) -> bool {
    let budget = Cell::new(schema::NODE_BUDGET);
    let compare = Compare::new(
        &old.input_schema,
        &new.input_schema,
        Direction::Input,
        false,
        &budget,
    )
    .run("");
    // A tool that merely ignores the old arguments (`{"type": "object"}`) is no rename.
    compare.incomplete.is_none()
        && compare
            .found
            .iter()
            .all(|f| f.severity != Severity::Breaking && f.rule != rules::INPUT_PROPERTY_REMOVED.id)
}

fn compare_tool(old: &Tool, new: &Tool, source: bool, changes: &mut Vec<Change>) {
    if old.raw == new.raw {
        return;
    }
    let name = new.name.as_str();
    let title = |t: &Tool| t.title.clone().or_else(|| t.annotations.title.clone());
    let (a, b) = (title(old), title(new));
    if a != b {
        changes.push(change(
            rules::TITLE_CHANGED,
            name,
            "/title",
            format!("title {} -> {}", quote(&a), quote(&b)),
        ));
    }
    if old.description != new.description {
        changes.push(change(
            rules::DESCRIPTION_CHANGED,
            name,
            "/description",
            format!(
                "description {} -> {}",
                quote(&old.description),
                quote(&new.description)
            ),
        ));
    }
    let hints = [
        (
            rules::READ_ONLY_HINT_CHANGED,
            "readOnlyHint",
            old.annotations.read_only.unwrap_or(false),
            new.annotations.read_only.unwrap_or(false),
            old.annotations.read_only.is_none() || new.annotations.read_only.is_none(),
        ),
        (
            rules::DESTRUCTIVE_HINT_CHANGED,
            "destructiveHint",
            old.annotations.destructive.unwrap_or(true),
            new.annotations.destructive.unwrap_or(true),
            old.annotations.destructive.is_none() || new.annotations.destructive.is_none(),
        ),
        (
            rules::IDEMPOTENT_HINT_CHANGED,
            "idempotentHint",
            old.annotations.idempotent.unwrap_or(false),
            new.annotations.idempotent.unwrap_or(false),
            old.annotations.idempotent.is_none() || new.annotations.idempotent.is_none(),
        ),
        (
            rules::OPEN_WORLD_HINT_CHANGED,
            "openWorldHint",
            old.annotations.open_world.unwrap_or(true),
            new.annotations.open_world.unwrap_or(true),
            old.annotations.open_world.is_none() || new.annotations.open_world.is_none(),
        ),
    ];
    for (rule, key, was, is, defaulted) in hints {
        if was != is {
            let note = if defaulted {
                " (absent hints count as the spec's default)"
            } else {
                ""
            };
            changes.push(change(
                rule,
                name,
                &format!("/annotations/{key}"),
                format!("{key} {was} -> {is}{note}"),
            ));
        }
    }
    schemas(
        name,
        &old.input_schema,
        &new.input_schema,
        Direction::Input,
        "/inputSchema",
        source,
        changes,
    );
    match (&old.output_schema, &new.output_schema) {
        (Some(a), Some(b)) => schemas(
            name,
            a,
            b,
            Direction::Output,
            "/outputSchema",
            source,
            changes,
        ),
        (Some(_), None) => {
            changes.push(change(
                rules::OUTPUT_SCHEMA_REMOVED,
                name,
                "/outputSchema",
                "outputSchema removed: structuredContent is no longer promised".to_owned(),
            ));
            if source {
                changes.push(change(
                    rules::SOURCE_RESULT_TYPE_CHANGED,
                    name,
                    "/outputSchema",
                    "the method returns Value instead of its result struct".to_owned(),
                ));
            }
        }
        (None, Some(_)) => {
            changes.push(change(
                rules::OUTPUT_SCHEMA_ADDED,
                name,
                "/outputSchema",
                "outputSchema added: results are now typed".to_owned(),
            ));
            if source {
                changes.push(change(
                    rules::SOURCE_RESULT_TYPE_CHANGED,
                    name,
                    "/outputSchema",
                    "the method returns a result struct instead of Value".to_owned(),
                ));
            }
        }
        (None, None) => {}
    }
}

fn schemas(
    tool: &str,
    old: &Value,
    new: &Value,
    direction: Direction,
    pointer: &str,
    source: bool,
    changes: &mut Vec<Change>,
) {
    let budget = Cell::new(schema::NODE_BUDGET);
    let compare = Compare::new(old, new, direction, source, &budget).run(pointer);
    changes.extend(compare.found.into_iter().map(|f| Change {
        rule: f.rule,
        severity: f.severity,
        tool: tool.to_owned(),
        pointer: f.pointer,
        message: f.message,
    }));
    if let Some(at) = compare.incomplete {
        changes.push(change(
            rules::COMPARISON_INCOMPLETE,
            tool,
            &at,
            format!(
                "not compared past here (deeper than {} levels or more than {} schema nodes)",
                schema::MAX_DEPTH,
                schema::NODE_BUDGET
            ),
        ));
    }
}

fn quote(s: &Option<String>) -> String {
    match s {
        Some(s) => schema::short(Some(&Value::String(s.clone()))),
        None => "none".to_owned(),
    }
}
