//! What generated typed fakes stand on: test doubles that answer as the server could.
//!
//! Every generated module has, beside its `Client<C>`, a `Fake` trait with one async method
//! per tool (the tool's typed arguments in, its typed result or a [`ToolError`] out) and a
//! `Faked<F>` adapter that makes any implementation a [`ToolCaller`](crate::ToolCaller). A test
//! implements the tools it needs; the others fail with [`not_faked`]. Each call through the
//! adapter goes through [`Schemas::answer`]: the arguments are checked against the tool's input schema
//! before the fake runs, and the fake's result against the tool's output schema after, both as
//! the server listed them when the module was generated, so a fake cannot accept what the
//! server would refuse or answer what the server never could.
//!
//! ```
//! # mod saving_throw {
//! #     pub mod types {
//! #         #[derive(Debug, serde::Deserialize)]
//! #         pub struct GetStatusArgs { pub run_id: String }
//! #         #[derive(Debug, serde::Serialize, serde::Deserialize)]
//! #         pub struct RunStatus { pub status: String }
//! #     }
//! #     pub static PROVENANCE: mcp_bindgen::Provenance = mcp_bindgen::Provenance::new(
//! #         "", "", &["get_status"],
//! #         r#"[{"name":"get_status","inputSchema":{"type":"object","required":["run_id"]}}]"#,
//! #     );
//! #     static SCHEMAS: mcp_bindgen::fake::Schemas = mcp_bindgen::fake::Schemas::new(&PROVENANCE);
//! #     pub trait Fake: Send + Sync {
//! #         fn get_status(&self, args: types::GetStatusArgs)
//! #             -> impl Future<Output = Result<types::RunStatus, mcp_bindgen::ToolError>> + Send {
//! #             let _ = args;
//! #             async { Err(mcp_bindgen::fake::not_faked("get_status", "get_status")) }
//! #         }
//! #     }
//! #     pub struct Faked<F>(pub F);
//! #     impl<F: Fake> mcp_bindgen::ToolCaller for Faked<F> {
//! #         async fn call_tool(&self, name: &str, arguments: serde_json::Map<String, serde_json::Value>)
//! #             -> Result<mcp_bindgen::CallToolResult, mcp_bindgen::Error> {
//! #             match name {
//! #                 "get_status" => SCHEMAS.answer(name, arguments, |args| self.0.get_status(args)).await,
//! #                 _ => Err(mcp_bindgen::fake::unknown_tool(name)),
//! #             }
//! #         }
//! #     }
//! # }
//! use mcp_bindgen::ToolError;
//! use saving_throw::{Fake, Faked, types};
//!
//! /// A run that is always finished, except run "missing".
//! struct Finished;
//!
//! impl Fake for Finished {
//!     async fn get_status(&self, args: types::GetStatusArgs) -> Result<types::RunStatus, ToolError> {
//!         match args.run_id.as_str() {
//!             "missing" => Err(ToolError::new("no such run").with_code("not_found")),
//!             _ => Ok(types::RunStatus { status: "finished".into() }),
//!         }
//!     }
//! }
//!
//! # async fn run() -> Result<(), mcp_bindgen::Error> {
//! // Code under test takes a `saving_throw::Client<C>`; give it `Client::new(Faked(Finished))`.
//! use mcp_bindgen::ToolCaller;
//! let caller = Faked(Finished);
//! let status: types::RunStatus =
//!     caller.call_tool_decoded("get_status", serde_json::json!({"run_id": "r1"}).as_object().unwrap().clone()).await?;
//! assert_eq!(status.status, "finished");
//! # Ok(()) }
//! # futures_lite_block_on(run()).unwrap();
//! # fn futures_lite_block_on<F: Future>(f: F) -> F::Output {
//! #     let mut f = std::pin::pin!(f);
//! #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
//! #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
//! # }
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{CallToolResult, CompiledSchema, Error, Provenance, ToolError};

/// The input and output schemas of a module's tools, read from its [`Provenance`] and compiled
/// on the first call through its fake. A generated module holds one in a `static`.
pub struct Schemas {
    provenance: &'static Provenance,
    tools: OnceLock<HashMap<String, ToolSchemas>>,
}

/// One tool's compiled schemas.
struct ToolSchemas {
    input: Option<CompiledSchema>,
    output: Option<CompiledSchema>,
}

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas")
            .field("tools", &self.provenance.names())
            .finish_non_exhaustive()
    }
}

impl Schemas {
    /// The schemas of the tools `provenance` records (nothing is parsed yet).
    pub const fn new(provenance: &'static Provenance) -> Self {
        Schemas {
            provenance,
            tools: OnceLock::new(),
        }
    }

    fn tool(&self, name: &str) -> Option<&ToolSchemas> {
        self.tools
            .get_or_init(|| {
                // The generator wrote this JSON from the parsed capture: it is an array of
                // tool objects. Anything else checks nothing rather than failing every call.
                self.provenance
                    .definitions()
                    .iter()
                    .filter_map(|tool| {
                        let name = tool.get("name")?.as_str()?.to_owned();
                        let compile = |key: &str| tool.get(key).map(CompiledSchema::new);
                        let schemas = ToolSchemas {
                            input: compile("inputSchema"),
                            output: compile("outputSchema"),
                        };
                        Some((name, schemas))
                    })
                    .collect()
            })
            .get(name)
    }

    /// Answers one call of `tool` through a typed fake, as the server would: `arguments` are
    /// checked against the tool's input schema and decoded into the fake's argument type (or
    /// [`Error::InvalidArguments`], and the fake does not run); then `run`; then its result is
    /// checked against the output schema and sent as a server sends results: an object as
    /// `structuredContent` with its JSON in a text block, any other value as JSON text, and a
    /// [`ToolError`] as a failed result (`isError: true`).
    pub async fn answer<A, O, Fut>(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        run: impl FnOnce(A) -> Fut,
    ) -> Result<CallToolResult, Error>
    where
        A: DeserializeOwned,
        O: Serialize,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let arguments = Value::Object(arguments);
        self.check_arguments(tool, &arguments)?;
        let args: A = serde_path_to_error::deserialize(arguments).map_err(|e| {
            let path = e.path().to_string();
            Error::InvalidArguments {
                tool: tool.to_owned(),
                pointer: serde_path_pointer(&path),
                message: format!(
                    "the fake's argument type does not accept them: {}",
                    e.inner()
                ),
            }
        })?;
        let output = match run(args).await {
            Ok(output) => output,
            Err(failure) => return Ok(failure.to_result()),
        };
        let value = serde_json::to_value(&output).map_err(|e| Error::Decode {
            tool: tool.to_owned(),
            path: ".".to_owned(),
            message: format!("the fake's result is not JSON: {e}"),
            value: Box::new(Value::Null),
        })?;
        self.check_result(tool, &value)?;
        Ok(match value {
            Value::Object(_) => CallToolResult::structured(value),
            other => CallToolResult::text(other.to_string()),
        })
    }

    /// Checks a call's `arguments` against the input schema of `tool`.
    pub fn check_arguments(&self, tool: &str, arguments: &Value) -> Result<(), Error> {
        let Some(schema) = self.tool(tool).and_then(|t| t.input.as_ref()) else {
            return Ok(());
        };
        schema
            .validate(arguments)
            .map_err(|violation| Error::InvalidArguments {
                tool: tool.to_owned(),
                pointer: violation.pointer,
                message: violation.message,
            })
    }

    /// Checks a fake's result `value` against the output schema of `tool`: a value the server
    /// could not have sent is [`Error::Decode`] at the JSON pointer of the refused field.
    pub fn check_result(&self, tool: &str, value: &Value) -> Result<(), Error> {
        let Some(schema) = self.tool(tool).and_then(|t| t.output.as_ref()) else {
            return Ok(());
        };
        schema.validate(value).map_err(|violation| Error::Decode {
            tool: tool.to_owned(),
            path: pointer_path(&violation.pointer),
            message: format!(
                "the fake's result does not match the tool's output schema: {}",
                violation.message
            ),
            value: Box::new(value.clone()),
        })
    }
}

/// The failure of a tool a fake does not implement: a [`ToolError`] with code `not_faked`
/// naming the tool and the `Fake` method to write. What the trait's default methods return.
pub fn not_faked(tool: &str, method: &str) -> ToolError {
    ToolError::new(format!(
        "the tool {tool} is not faked: implement `Fake::{method}` to answer it"
    ))
    .with_code("not_faked")
}

/// The error for a call of a tool the module does not know, as a server answers it: JSON-RPC
/// `-32602`.
pub fn unknown_tool(tool: &str) -> Error {
    Error::Protocol {
        code: -32602,
        message: format!("Unknown tool: {tool} (the fake's module was not generated with it)"),
        data: None,
    }
}

/// A JSON pointer (`""`, `/a/b/2`) as the path [`Error::Decode`] names (`.`, `a.b[2]`), as
/// serde's errors give it on the real path.
fn pointer_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return ".".to_owned();
    }
    let mut path = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            path.push_str(&format!("[{segment}]"));
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&segment);
        }
    }
    path
}

/// A serde path (`.`, `a.b[2]`) as a JSON pointer (`""`, `/a/b/2`), for an
/// [`Error::InvalidArguments`] pointer.
fn serde_path_pointer(path: &str) -> String {
    if path == "." {
        return String::new();
    }
    let mut pointer = String::new();
    for segment in path.split('.') {
        let mut rest = segment;
        // `name[1][2]`: the name, then each index.
        let name_end = rest.find('[').unwrap_or(rest.len());
        let (name, indexes) = rest.split_at(name_end);
        if !name.is_empty() {
            pointer.push('/');
            pointer.push_str(&mcp_bindgen_core::pointer::escape(name));
        }
        rest = indexes;
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find(']') else {
                break;
            };
            pointer.push('/');
            pointer.push_str(&rest[open + 1..open + close]);
            rest = &rest[open + close + 1..];
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_paths_become_json_pointers() {
        assert_eq!(serde_path_pointer("."), "");
        assert_eq!(serde_path_pointer("a"), "/a");
        assert_eq!(serde_path_pointer("a.b[2].c"), "/a/b/2/c");
        assert_eq!(serde_path_pointer("a[0][1]"), "/a/0/1");
        assert_eq!(serde_path_pointer("x/y"), "/x~1y");
    }

    #[test]
    fn json_pointers_become_serde_paths() {
        assert_eq!(pointer_path(""), ".");
        assert_eq!(pointer_path("/hp"), "hp");
        assert_eq!(pointer_path("/tags/1"), "tags[1]");
        assert_eq!(pointer_path("/a/b/2/c"), "a.b[2].c");
        assert_eq!(pointer_path("/x~1y"), "x/y");
        for path in ["a.b[2].c", "tags[1]", "hp"] {
            assert_eq!(pointer_path(&serde_path_pointer(path)), path);
        }
    }
}

/// The event types' occurrences a fake serves (the Events extension): a test emits them, and a
/// generated client over the fake reads them with its `poll_<event>` and `stream_<event>`
/// methods, as it would from a server. A generated `Fake` whose module has event types has an
/// `events` method: return `Some(&self.events)` from it to serve these.
///
/// Each payload is checked against the event type's `payloadSchema` in the module's
/// `PROVENANCE` by the client's typed decoding. Every subscription hears every occurrence of
/// its type (a fake does not know the server's filters). The last 1,024 occurrences of each
/// type are kept for polls; a stream that is not read while 256 wait is told `truncated`.
#[derive(Debug, Clone, Default)]
pub struct FakeEvents {
    inner: std::sync::Arc<std::sync::Mutex<FakeEventsInner>>,
}

#[derive(Debug, Default)]
struct FakeEventsInner {
    /// The last occurrence's number (cursors are `fake.N`).
    last: u64,
    /// Each type's kept occurrences, oldest first: (number, occurrence).
    kept: std::collections::BTreeMap<String, std::collections::VecDeque<(u64, Value)>>,
    /// Open streams: their type, their feeder, and whether they missed something.
    streams: Vec<(String, FakeStream)>,
}

struct FakeStream {
    feeder: crate::events::Feeder,
    missed: bool,
}

impl std::fmt::Debug for FakeStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeStream")
            .field("missed", &self.missed)
            .finish()
    }
}

/// Occurrences a [`FakeEvents`] keeps per type.
const FAKE_KEPT: usize = 1024;

impl FakeEvents {
    /// No occurrences yet.
    pub fn new() -> Self {
        FakeEvents::default()
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, FakeEventsInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An occurrence of the event type `name` with `payload` (the module's `types::{Event}Event`),
    /// for the streams open on it and the polls to come.
    pub fn emit<P: Serialize>(&self, name: &str, payload: &P) {
        let data = serde_json::to_value(payload).unwrap_or(Value::Null);
        let mut inner = self.inner();
        inner.last += 1;
        let seq = inner.last;
        let occurrence = serde_json::json!({
            "eventId": format!("fake-{seq}"),
            "name": name,
            "timestamp": "1970-01-01T00:00:00Z",
            "data": data,
            "cursor": format!("fake.{seq}"),
        });
        let kept = inner.kept.entry(name.to_owned()).or_default();
        kept.push_back((seq, occurrence.clone()));
        if kept.len() > FAKE_KEPT {
            kept.pop_front();
        }
        inner.streams.retain_mut(|(kind, stream)| {
            if kind != name {
                return !stream.feeder.is_dropped();
            }
            let item = |o: &Value| {
                let o = serde_json::from_value(o.clone()).ok()?;
                Some(crate::events::Feed::Item(crate::events::EventItem::Event(
                    o,
                )))
            };
            if std::mem::take(&mut stream.missed) {
                let gap = crate::events::EventItem::Truncated {
                    cursor: Some(format!("fake.{}", seq - 1)),
                };
                if stream.feeder.offer(crate::events::Feed::Item(gap)) == Some(false) {
                    stream.missed = true;
                    return true;
                }
            }
            match item(&occurrence).map(|feed| stream.feeder.offer(feed)) {
                Some(None) => false,
                Some(Some(false)) => {
                    stream.missed = true;
                    true
                }
                _ => true,
            }
        });
    }

    /// `events/poll` of the fake: what was emitted after `cursor` (none: from now).
    pub(crate) fn poll(&self, name: &str, cursor: Option<&str>) -> crate::events::EventPage {
        let inner = self.inner();
        let now = format!("fake.{}", inner.last);
        let after = cursor
            .and_then(|c| c.strip_prefix("fake."))
            .and_then(|n| n.parse::<u64>().ok());
        let kept = inner.kept.get(name);
        let (events, truncated) = match after {
            None => (Vec::new(), cursor.is_some()),
            Some(after) => {
                let oldest = kept.and_then(|k| k.front()).map_or(u64::MAX, |(n, _)| *n);
                let events = kept
                    .into_iter()
                    .flatten()
                    .filter(|(n, _)| *n > after)
                    .filter_map(|(_, o)| {
                        let mut o = o.clone();
                        o.as_object_mut()?.remove("cursor");
                        serde_json::from_value(o).ok()
                    })
                    .collect();
                (events, oldest != u64::MAX && after + 1 < oldest)
            }
        };
        crate::events::EventPage {
            events,
            cursor: Some(now),
            truncated,
            has_more: false,
            next_poll_ms: Some(1000),
        }
    }

    /// `events/stream` of the fake: what is emitted from now on.
    pub(crate) fn stream(&self, name: &str) -> crate::events::EventStream {
        let mut inner = self.inner();
        let cursor = format!("fake.{}", inner.last);
        let (stream, feeder) = crate::events::EventStream::channel(Some(cursor));
        inner.streams.push((
            name.to_owned(),
            FakeStream {
                feeder,
                missed: false,
            },
        ));
        stream
    }

    /// [`ToolCaller::poll_events`](crate::ToolCaller::poll_events) for a generated `Faked`
    /// (what its impl calls); `events` is what the fake's `events` method returned.
    #[doc(hidden)]
    pub fn poll_for(
        events: Option<&FakeEvents>,
        name: &str,
        cursor: Option<&str>,
    ) -> Result<crate::events::EventPage, Error> {
        match events {
            Some(events) => Ok(events.poll(name, cursor)),
            None => Err(not_faked_events(name)),
        }
    }

    /// [`ToolCaller::stream_events`](crate::ToolCaller::stream_events) for a generated
    /// `Faked`.
    #[doc(hidden)]
    pub fn stream_for(events: Option<&FakeEvents>, name: &str) -> crate::events::EventStream {
        match events {
            Some(events) => events.stream(name),
            None => crate::events::EventStream::failed(not_faked_events(name)),
        }
    }
}

/// A fake asked for occurrences without serving any.
fn not_faked_events(name: &str) -> Error {
    Error::transport(format!(
        "the fake serves no events: return Some(&FakeEvents) from its `events` method to \
         serve `{name}`"
    ))
}
