//! A cassette checked against the live server: its calls of read-only tools played again, and
//! what answers differently reported, to tell when a cassette has gone stale (`mcp-recorder`
//! calls this verify).

use serde_json::{Map, Value};

use super::{Recorded, error_to_json};
use crate::ToolCaller;

/// One recorded call, played again against the live server (or not).
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// The call's place in the session.
    pub call: u64,
    /// The tool it called.
    pub tool: String,
    /// What the server answers now, against what was recorded.
    pub verdict: Verdict,
}

/// What a call played again found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// The server answers as recorded.
    Same,
    /// It answers otherwise: the first place that differs (a JSON pointer into the outcome as
    /// the cassette writes it: `/structuredContent/count`, `/error/code`), and what each had
    /// there (`null` where one has nothing).
    Differs {
        /// Where.
        pointer: String,
        /// What the cassette recorded there.
        recorded: Value,
        /// What the server answers there now.
        live: Value,
    },
    /// Not played, and why: the tool is not read-only by its annotations (`verify`'s `all`
    /// plays it), or the server no longer lists it.
    Skipped(String),
}

/// Plays `calls` again through `caller` (a client of the live server) and reports, call by
/// call, whether the server answers as recorded. Only calls of tools that `tools` (the
/// server's `tools/list` now) marks `readOnlyHint: true` are played, unless `all`: a call that
/// changes the server may change it again, so play every call only against a server meant for
/// it. The comparison covers what a caller reads (`structuredContent`, or `content` where there
/// is none, and `isError`; an error's kind and code, not its message), numbers by value, and
/// leaves out `_meta`.
pub async fn verify<C: ToolCaller>(
    calls: &[Recorded],
    tools: &[Value],
    caller: &C,
    all: bool,
) -> Vec<Verified> {
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        let tool = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(call.tool.as_str()));
        let verdict = match tool {
            None => Verdict::Skipped("the server no longer lists this tool".into()),
            Some(tool) if !all && tool["annotations"]["readOnlyHint"] != Value::Bool(true) => {
                Verdict::Skipped("the tool is not read-only by its annotations".into())
            }
            Some(_) => {
                let live = caller
                    .call_tool(&call.tool, call.arguments.clone())
                    .await
                    .map_err(|e| error_to_json(&e));
                compare(&outcome(&call.outcome), &outcome(&live))
            }
        };
        out.push(Verified {
            call: call.call,
            tool: call.tool.clone(),
            verdict,
        });
    }
    out
}

/// An outcome as compared: a result's `structuredContent` (or its `content` when it has none)
/// and `isError`, or an error's `kind` and `code`.
fn outcome(outcome: &Result<crate::CallToolResult, Value>) -> Value {
    let mut kept = Map::new();
    match outcome {
        Ok(result) => {
            let value = serde_json::to_value(result).unwrap_or(Value::Null);
            // A structured result's content is its rendering: compare the structure alone.
            let keys: &[&str] = match value.get("structuredContent") {
                Some(v) if !v.is_null() => &["structuredContent", "isError"],
                _ => &["content", "isError"],
            };
            for &key in keys {
                if let Some(v) = value.get(key).filter(|v| !v.is_null()) {
                    kept.insert(key.into(), strip_meta(v));
                }
            }
            if kept.get("isError") == Some(&Value::Bool(false)) {
                kept.remove("isError");
            }
        }
        Err(error) => {
            let mut e = Map::new();
            for key in ["kind", "code"] {
                if let Some(v) = error.get(key) {
                    e.insert(key.into(), v.clone());
                }
            }
            kept.insert("error".into(), Value::Object(e));
        }
    }
    Value::Object(kept)
}

/// `value` without `_meta` members, at any depth.
fn strip_meta(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "_meta")
                .map(|(k, v)| (k.clone(), strip_meta(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_meta).collect()),
        other => other.clone(),
    }
}

/// [`Verdict::Same`], or where `recorded` and `live` first differ.
fn compare(recorded: &Value, live: &Value) -> Verdict {
    match first_difference(recorded, live, String::new()) {
        None => Verdict::Same,
        Some((pointer, recorded, live)) => Verdict::Differs {
            pointer,
            recorded,
            live,
        },
    }
}

fn first_difference(a: &Value, b: &Value, at: String) -> Option<(String, Value, Value)> {
    use mcp_bindgen_core::pointer::escape;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                let (u, v) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                if let Some(found) = first_difference(u, v, format!("{at}/{}", escape(key))) {
                    return Some(found);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(u, v, format!("{at}/{i}"))),
        _ if mcp_bindgen_core::value::equal(a, b) => None,
        _ => Some((at, a.clone(), b.clone())),
    }
}
