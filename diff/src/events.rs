//! Event types (the `io.modelcontextprotocol/events` extension), what a generated client's
//! `poll_<event>` and `stream_<event>` methods rely on. An event type is matched by its name.
//! What breaks a client: the type gone, a delivery mode gone (the client may read it that
//! way), its arguments' schema narrowed (a subscription the client makes is refused), its
//! payload's widened (an occurrence the client cannot read). The schemas are compared by the
//! rules of a tool's, in the direction they flow: a subscription's arguments by the `input-*`
//! rules, the payload by the `output-*` rules (the pointers say `/inputSchema` and
//! `/payloadSchema`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::rules;
use crate::{Annotations, Change, Kind, Options, Tool};

/// An event type: its name, delivery modes and schemas (see [`crate::Kind::Event`]).
#[derive(Debug, Clone)]
pub struct EventType<'a> {
    /// The event type's name.
    pub name: &'a str,
    /// Its delivery modes (`poll`, `push`, `webhook`).
    pub delivery: Vec<&'a str>,
    /// The JSON Schema of a subscription's arguments.
    pub input_schema: &'a Value,
    /// The JSON Schema of an occurrence's data.
    pub payload_schema: &'a Value,
    /// The descriptor as sent.
    pub raw: &'a Value,
}

/// What changed between two servers' event types, in the old list's order (then the new ones).
pub(crate) fn diff(old: &[EventType<'_>], new: &[EventType<'_>], changes: &mut Vec<Change>) {
    let now: BTreeMap<&str, &EventType<'_>> = new.iter().map(|e| (e.name, e)).collect();
    for event in old {
        let Some(found) = now.get(event.name) else {
            changes.push(change(
                rules::EVENT_REMOVED,
                event.name,
                "",
                "event type removed".into(),
            ));
            continue;
        };
        for mode in &event.delivery {
            if !found.delivery.contains(mode) {
                changes.push(change(
                    rules::EVENT_DELIVERY_REMOVED,
                    event.name,
                    "/delivery",
                    format!("no longer delivered by {mode}"),
                ));
            }
        }
        for mode in &found.delivery {
            if !event.delivery.contains(mode) {
                changes.push(change(
                    rules::EVENT_DELIVERY_ADDED,
                    event.name,
                    "/delivery",
                    format!("now delivered by {mode} too"),
                ));
            }
        }
        schemas(event, found, changes);
    }
    for event in new {
        if !old.iter().any(|e| e.name == event.name) {
            changes.push(change(
                rules::EVENT_ADDED,
                event.name,
                "",
                "new event type".into(),
            ));
        }
    }
}

/// The arguments' and the payload's schemas, by the rules of a tool's input and output.
fn schemas(old: &EventType<'_>, new: &EventType<'_>, changes: &mut Vec<Change>) {
    let report = crate::diff(&[as_tool(old)], &[as_tool(new)], &Options::default());
    for mut found in report.changes {
        found.kind = Kind::Event;
        if let Some(rest) = found.pointer.strip_prefix("/outputSchema") {
            found.pointer = format!("/payloadSchema{rest}");
        }
        changes.push(found);
    }
}

/// An event type as a tool whose arguments are a subscription's and whose result is the
/// payload.
fn as_tool<'a>(event: &EventType<'a>) -> Tool<'a> {
    Tool {
        name: event.name,
        title: None,
        description: None,
        input_schema: event.input_schema,
        output_schema: Some(event.payload_schema),
        annotations: Annotations::default(),
        task_support: None,
        raw: event.raw,
    }
}

fn change(rule: rules::Rule, name: &str, pointer: &str, message: String) -> Change {
    Change {
        rule: rule.id.to_owned(),
        severity: rule.severity,
        kind: Kind::Event,
        tool: name.to_owned(),
        pointer: pointer.to_owned(),
        message,
    }
}

/// The canonical JSON of a schema: keys sorted at every depth, no white space (whatever map
/// type serde_json was built with).
pub(crate) fn canonical(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let entries: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            format!("{{{}}}", entries.join(","))
        }
        scalar => scalar.to_string(),
    }
}
