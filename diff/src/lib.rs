//! What changed between two MCP tool lists, and what it breaks: the rules of
//! `mcp-bindgen diff`, shared by the generator's CLI and the runtime's drift guard.
//!
//! [`diff`] compares two tool lists tool by tool and reports every change with a stable rule id
//! ([`rules`] lists them all), a [`Severity`], the tool, a JSON pointer into the tool and a
//! one-line message. Schemas are compared by the values they admit, in the direction they
//! flow: `inputSchema` is what the client sends, `outputSchema` what it receives. `$ref`s are
//! resolved first, so moving a definition is not a change.
//!
//! Tools are read from the JSON a server sends ([`Tool::from_json`]). What the comparison shares
//! with the runtime and the generator (JSON pointers, value equality, `x-mcp-header`
//! annotations, recorded tools, a tool list's digest, the big-stack runner) is in
//! `mcp-bindgen-core`: this crate is the comparison and nothing else.
//!
//! ```
//! use mcp_bindgen_diff::{Options, Severity, Tool, diff};
//! use serde_json::json;
//!
//! let old = json!({"name": "echo", "inputSchema": {"type": "object",
//!     "properties": {"message": {"type": "string"}}}});
//! let new = json!({"name": "echo", "inputSchema": {"type": "object",
//!     "properties": {"message": {"type": "string"}, "loud": {"type": "boolean"}},
//!     "required": ["message", "loud"]}});
//! let (old, new) = (Tool::from_json(&old).unwrap(), Tool::from_json(&new).unwrap());
//! let report = diff(&[old], &[new], &Options::default());
//! assert_eq!(report.changes[0].rule, "input-property-became-required");
//! assert_eq!(report.changes[1].rule, "input-required-property-added");
//! assert!(report.breaks(Severity::Breaking));
//! ```

#![deny(missing_docs)]

pub mod catalog;
mod events;
mod format;
pub mod inclusion;
mod rename;
mod resolve;
pub mod rules;
mod schema;
mod tool;

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

pub use format::Format;
use rules::{Direction, Rule};
pub use rules::{Level, Severity};
use schema::Compare;
pub use tool::{Annotations, Tool};

/// What to compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `Wire` (default) or also `Source`: what changes in the generated Rust.
    pub level: Level,
}

/// What a change is about: a tool (most), or a prompt, a resource or a resource template
/// (see [`catalog`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A tool.
    #[default]
    Tool,
    /// A prompt.
    Prompt,
    /// A resource at a fixed URI.
    Resource,
    /// A resource template.
    ResourceTemplate,
    /// An Agent Skill (the `io.modelcontextprotocol/skills` extension).
    Skill,
    /// An event type (the `io.modelcontextprotocol/events` extension).
    Event,
}

impl Kind {
    /// `tool`, `prompt`, `resource`, `resource template`, `skill` or `event type`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
            Kind::ResourceTemplate => "resource template",
            Kind::Skill => "skill",
            Kind::Event => "event type",
        }
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The stable rule id (`input-required-property-added`).
    pub rule: String,
    /// How much it matters to a client built against the old list.
    pub severity: Severity,
    /// What `tool` names: a tool, or a prompt, resource or template.
    pub kind: Kind,
    /// The tool's name (the old name for a removed tool); a prompt's, resource's or
    /// template's name for the other kinds.
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
    /// Adds `changes` (the [`catalog`]'s, after the tools') and counts them in the summary.
    pub fn extend(&mut self, changes: Vec<Change>) {
        for change in &changes {
            match change.severity {
                Severity::Breaking => self.summary.breaking += 1,
                Severity::Warning => self.summary.warning += 1,
                Severity::Info => self.summary.info += 1,
            }
        }
        self.changes.extend(changes);
    }

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

/// Compares two tool lists: what a client of `old` meets when the server becomes `new`.
pub fn diff(old: &[Tool<'_>], new: &[Tool<'_>], options: &Options) -> Report {
    // Schemas nest deeply and `$ref`s add to it: compare on a stack that cannot run out.
    mcp_bindgen_core::stack::with_big_stack("mcp-bindgen-diff", || {
        diff_on_this_stack(old, new, options)
    })
}

fn diff_on_this_stack(old: &[Tool<'_>], new: &[Tool<'_>], options: &Options) -> Report {
    let source = options.level == Level::Source;
    let new_by_name: BTreeMap<&str, &Tool<'_>> = new.iter().map(|t| (t.name, t)).collect();
    let old_by_name: BTreeMap<&str, &Tool<'_>> = old.iter().map(|t| (t.name, t)).collect();
    let added: Vec<&Tool<'_>> = new
        .iter()
        .filter(|t| !old_by_name.contains_key(t.name))
        .collect();
    let removed: Vec<&Tool<'_>> = old
        .iter()
        .filter(|t| !new_by_name.contains_key(t.name))
        .collect();
    let renames = renames(&removed, &added);

    let mut changes = Vec::new();
    let mut changed = 0;
    for tool in old {
        match new_by_name.get(tool.name) {
            Some(now) => {
                let before = changes.len();
                compare_tool(tool, now, source, &mut changes);
                if changes.len() > before {
                    changed += 1;
                }
            }
            None => {
                let message = match renames.get(tool.name) {
                    Some(Rename { to, narrowed: true }) => format!(
                        "tool removed; probably renamed to `{to}`, and narrowed (some calls it \
                         accepted are refused)"
                    ),
                    Some(Rename { to, .. }) => format!("tool removed; probably renamed to `{to}`"),
                    None => "tool removed".to_owned(),
                };
                changes.push(change(rules::TOOL_REMOVED, tool.name, "", message));
            }
        }
    }
    for tool in &added {
        let from = renames
            .iter()
            .find(|(_, r)| r.to == tool.name)
            .map(|(from, _)| *from);
        let message = match from {
            Some(from) => format!("new tool (probably the new name of `{from}`)"),
            None => "new tool".to_owned(),
        };
        changes.push(change(rules::TOOL_ADDED, tool.name, "", message));
    }
    sort(&mut changes);
    let count = |s: Severity| changes.iter().filter(|c| c.severity == s).count();
    let summary = Summary {
        breaking: count(Severity::Breaking),
        warning: count(Severity::Warning),
        info: count(Severity::Info),
        old_tools: old.len(),
        new_tools: new.len(),
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
        kind: Kind::Tool,
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
        message,
    }
}

/// A guessed rename: the added tool, and whether it accepts fewer calls than the old one.
#[derive(Debug, Clone, Copy)]
struct Rename<'t> {
    to: &'t str,
    narrowed: bool,
}

/// Removed tool name -> the added tool it was probably renamed to.
///
/// Candidates are scored, best first: the same name but for case and separators, accepting
/// every old call (4); the same words, accepting every old call (3); the same name but for
/// case and separators, accepting fewer calls (2: "and narrowed"). The best pairs are taken
/// first, each tool once, so an earlier removed tool with a weaker match cannot take a later
/// one's better match. A removed tool left over is renamed to the only added tool that accepts
/// every old call, when there is exactly one and it is not taken.
fn renames<'t>(removed: &[&Tool<'t>], added: &[&Tool<'t>]) -> BTreeMap<&'t str, Rename<'t>> {
    // Tools often share an input schema: each distinct one is compared with the added tools once.
    let mut by_schema: HashMap<String, Vec<bool>> = HashMap::new();
    let mut accepting: Vec<Vec<bool>> = Vec::new();
    for old in removed {
        let key = old.input_schema.to_string();
        let row = by_schema
            .entry(key)
            .or_insert_with(|| {
                added
                    .iter()
                    .map(|new| {
                        may_accept(old.input_schema, new.input_schema)
                            && accepts_what_it_accepted(old, new)
                    })
                    .collect()
            })
            .clone();
        accepting.push(row);
    }
    let mut scored: Vec<(u8, usize, usize)> = Vec::new();
    for (i, old) in removed.iter().enumerate() {
        for (j, new) in added.iter().enumerate() {
            let score = match (rename::closeness(old.name, new.name), accepting[i][j]) {
                (Some(rename::Closeness::Spelling), true) => 4,
                (Some(rename::Closeness::Words), true) => 3,
                (Some(rename::Closeness::Spelling), false) => 2,
                _ => continue,
            };
            scored.push((score, i, j));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut old_taken = vec![false; removed.len()];
    let mut new_taken = vec![false; added.len()];
    let mut out = BTreeMap::new();
    for (score, i, j) in scored {
        if old_taken[i] || new_taken[j] {
            continue;
        }
        old_taken[i] = true;
        new_taken[j] = true;
        out.insert(
            removed[i].name,
            Rename {
                to: added[j].name,
                narrowed: score == 2,
            },
        );
    }
    for (i, old) in removed.iter().enumerate() {
        if old_taken[i] {
            continue;
        }
        let candidates: Vec<usize> = (0..added.len()).filter(|&j| accepting[i][j]).collect();
        if let [j] = candidates.as_slice()
            && !new_taken[*j]
        {
            new_taken[*j] = true;
            out.insert(
                old.name,
                Rename {
                    to: added[*j].name,
                    narrowed: false,
                },
            );
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

/// Whether `new` accepts every call `old` accepted: every value of its input schema passes the
/// new one (by the inclusion algebra; `Unknown` is not enough).
fn accepts_what_it_accepted(old: &Tool<'_>, new: &Tool<'_>) -> bool {
    inclusion::Inclusion::declared(old.input_schema, new.input_schema)
        .includes(old.input_schema, new.input_schema)
        == inclusion::Verdict::Yes
}

fn compare_tool(old: &Tool<'_>, new: &Tool<'_>, source: bool, changes: &mut Vec<Change>) {
    if old.raw == new.raw {
        return;
    }
    let name = new.name;
    let (a, b) = (
        old.title.or(old.annotations.title),
        new.title.or(new.annotations.title),
    );
    if a != b {
        changes.push(change(rules::TITLE_CHANGED, name, "/title", {
            let (a, b) = schema::quoted_pair(a, b);
            format!("title {a} -> {b}")
        }));
    }
    if old.description != new.description {
        changes.push(change(rules::DESCRIPTION_CHANGED, name, "/description", {
            let (a, b) = schema::quoted_pair(old.description, new.description);
            format!("description {a} -> {b}")
        }));
    }
    hints(old, new, changes);
    task_support(old, new, changes);
    schemas(
        name,
        old.input_schema,
        new.input_schema,
        Direction::Input,
        "/inputSchema",
        source,
        changes,
    );
    match (old.output_schema, new.output_schema) {
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

/// `execution.taskSupport` by effective value (absent, or a value this crate does not know,
/// is `forbidden`): becoming `required` breaks every client that calls it plainly (it is
/// refused: `-32021` in 2026-07-28, `-32601` before); no longer running as tasks is a warning
/// for clients that made tasks of it; anything that accepts more calls is information.
fn task_support(old: &Tool<'_>, new: &Tool<'_>, changes: &mut Vec<Change>) {
    let level = |t: &Tool<'_>| match t.task_support {
        Some("optional") => 1,
        Some("required") => 2,
        _ => 0,
    };
    let name = |t: &Tool<'_>| match level(t) {
        1 => "optional",
        2 => "required",
        _ => "forbidden",
    };
    let (a, b) = (level(old), level(new));
    if a == b {
        return;
    }
    let at = "/execution/taskSupport";
    let (from, to) = (name(old), name(new));
    changes.push(match (a, b) {
        (_, 2) => change(
            rules::TASK_REQUIRED,
            new.name,
            at,
            format!("taskSupport {from} -> required: a call that is not made as a task is refused"),
        ),
        (_, 0) => change(
            rules::TASK_SUPPORT_REMOVED,
            new.name,
            at,
            format!("taskSupport {from} -> forbidden: calls no longer run as tasks"),
        ),
        _ => change(
            rules::TASK_SUPPORT_RELAXED,
            new.name,
            at,
            format!("taskSupport {from} -> {to}: calls may now run as tasks or not"),
        ),
    });
}

/// Annotation hints by effective value. A tool that becomes less safe (no longer read-only,
/// now destructive) is a warning; one that becomes safer is information. `destructiveHint`
/// means something only on a tool that is not read-only: on a read-only tool it is not
/// compared, and a read-only tool counts as not destructive.
fn hints(old: &Tool<'_>, new: &Tool<'_>, changes: &mut Vec<Change>) {
    let name = new.name;
    let (a, b) = (&old.annotations, &new.annotations);
    let note = |x: Option<bool>, y: Option<bool>| {
        if x.is_none() || y.is_none() {
            " (absent hints count as the spec's default)"
        } else {
            ""
        }
    };
    let ro_old = a.read_only.unwrap_or(false);
    let ro_new = b.read_only.unwrap_or(false);
    let at = "/annotations/readOnlyHint";
    let ro_note = note(a.read_only, b.read_only);
    match (ro_old, ro_new) {
        (true, false) => {
            // One change, one finding: what it may now do includes whether destructively.
            let how = if b.destructive.unwrap_or(true) {
                ", destructively (destructiveHint true or absent)"
            } else {
                ", additively (destructiveHint false)"
            };
            changes.push(change(
                rules::READ_ONLY_HINT_CHANGED,
                name,
                at,
                format!("readOnlyHint true -> false{ro_note}: the tool may now change its environment{how}"),
            ));
        }
        (false, true) => changes.push(change(
            rules::READ_ONLY_HINT_SAFER,
            name,
            at,
            format!(
                "readOnlyHint false -> true{ro_note}: the tool no longer changes its environment"
            ),
        )),
        _ => {}
    }
    if !ro_new && !ro_old {
        let was = a.destructive.unwrap_or(true);
        let is = b.destructive.unwrap_or(true);
        let at = "/annotations/destructiveHint";
        let d_note = note(a.destructive, b.destructive);
        let shown = |ro: bool, d: bool| {
            if ro {
                "(read-only)".to_owned()
            } else {
                d.to_string()
            }
        };
        let from = shown(ro_old, a.destructive.unwrap_or(true));
        match (was, is) {
            (false, true) => changes.push(change(
                rules::DESTRUCTIVE_HINT_CHANGED,
                name,
                at,
                format!("destructiveHint {from} -> true{d_note}: the tool may now destroy data"),
            )),
            (true, false) => changes.push(change(
                rules::DESTRUCTIVE_HINT_SAFER,
                name,
                at,
                format!(
                    "destructiveHint {from} -> false{d_note}: its updates are now only additive"
                ),
            )),
            _ => {}
        }
    }
    for (rule, key, was, is, x, y) in [
        (
            rules::IDEMPOTENT_HINT_CHANGED,
            "idempotentHint",
            a.idempotent.unwrap_or(false),
            b.idempotent.unwrap_or(false),
            a.idempotent,
            b.idempotent,
        ),
        (
            rules::OPEN_WORLD_HINT_CHANGED,
            "openWorldHint",
            a.open_world.unwrap_or(true),
            b.open_world.unwrap_or(true),
            a.open_world,
            b.open_world,
        ),
    ] {
        if was != is {
            changes.push(change(
                rule,
                name,
                &format!("/annotations/{key}"),
                format!("{key} {was} -> {is}{}", note(x, y)),
            ));
        }
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
        kind: Kind::Tool,
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
