//! Recorded sessions (cassettes): record the calls an agent makes against the real server once,
//! replay them in CI without it.
//!
//! [`Recorder`] wraps any [`ToolCaller`] (an [`HttpClient`](crate::HttpClient), a
//! [`StdioClient`](crate::StdioClient), either era) and writes each call and its outcome to a
//! file as it completes; [`Replayer`] is a `ToolCaller` that answers from such a file, by default
//! strictly (the same calls in the same order), or matched by tool and arguments in any order
//! ([`Replayer::any_order`]). A generated `Client::new(recorder_or_replayer)` works either way.
//!
//! ```no_run
//! use mcp_bindgen::cassette::{Recorder, Replayer};
//! # fn connect() -> mcp_bindgen::mock::MockCaller { mcp_bindgen::mock::MockCaller::new() }
//! # fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // Once, by hand or behind an environment variable: against the real server (an
//! // `HttpClient` or a `StdioClient`).
//! let client = connect();
//! let recorder = Recorder::create(client, "tests/cassettes/status.jsonl")?;
//! // ... run the code under test with `Client::new(&recorder)` ...
//!
//! // In CI: no server.
//! let replayer = Replayer::open("tests/cassettes/status.jsonl")?;
//! // ... run it with `Client::new(&replayer)`, then:
//! assert!(replayer.unplayed().is_empty());
//! # Ok(()) }
//! ```
//!
//! # The format (version 1)
//!
//! Line-oriented JSON, one object per line, meant to be read in review:
//!
//! ```text
//! {"mcp_bindgen_cassette":1,"recorded_by":"mcp-bindgen 0.1.0"}
//! {"call":1,"tool":"get_status","arguments":{"run_id":"r1"},"result":{"content":[...],"structuredContent":{...}}}
//! {"call":2,"tool":"count","arguments":{"n":2},"progress":[{"progress":1.0},{"progress":2.0,"total":2.0}],"result":{...}}
//! {"call":3,"tool":"slow","arguments":{},"error":{"kind":"timeout","message":"tools/call slow","after_ms":2000}}
//! ```
//!
//! - The first line is the header: `mcp_bindgen_cassette` is the format's version. A reader
//!   refuses a version it does not know, with both versions named.
//! - Then one line per call, in the order the calls were made (`call` counts from 1): `tool`,
//!   `arguments` as sent, then `result` (the `tools/call` result as the server sent it, failed
//!   results with `isError: true` included) or `error` (`kind` is `protocol`, with the JSON-RPC
//!   `code`, `message` and `data`; `timeout`, with `after_ms`; `auth`, with `status` and
//!   `www_authenticate`; or `transport`; each with its `message`).
//! - `progress` and `logs` (`level`, `logger`, `data`) when the call was made with
//!   `call_tool_with` and the server sent any; omitted when empty.
//! - An event stream (`stream_events`, a generated `stream_<event>`) is one line per item it
//!   handed over, as it passed: `{"call":4,"events":"unit_died","arguments":{..},"item":..}`,
//!   the item being `{"event":{occurrence}}`, `{"truncated":cursor}` or
//!   `{"terminated":{code,message,data}}`. Replayed, the stream hands over the recorded items
//!   and ends. [`read`] returns the calls only.
//!
//! Two checks tell a stale cassette: [`stale`] against a server's new tool list (would the
//! recorded calls still go through?), and [`verify`] against the live server (do its read-only
//! tools still answer as recorded?).
//!
//! Only what the [`ToolCaller`] sees is written: tool names, arguments and results. Bearer
//! tokens, OAuth tokens, API keys and configured headers travel below it, in the transport, and
//! never reach the file. Arguments are the caller's own: do not record secrets passed as
//! arguments.

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

mod verify;

pub use verify::{Verdict, Verified, verify};

use crate::drift::{DriftReport, Provenance, Severity};
use crate::events::EventItem;
use crate::{CallToolResult, CompiledSchema, Error, ToolCaller};

/// The version of the format this crate writes and reads.
pub const VERSION: u64 = 1;

const HEADER_KEY: &str = "mcp_bindgen_cassette";

/// A cassette that cannot be written or read: the file, the line (from 1; 0 for the file as a
/// whole) and what is wrong.
#[derive(Debug)]
pub struct CassetteError {
    /// The cassette's path.
    pub path: PathBuf,
    /// The line, from 1; 0 when the error is not about one line.
    pub line: usize,
    /// What is wrong, and what to do.
    pub message: String,
    source: Option<std::io::Error>,
}

impl fmt::Display for CassetteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.path.display(), self.message),
            line => write!(f, "{}:{line}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for CassetteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

fn io_error(path: &Path, what: &str, source: std::io::Error) -> CassetteError {
    CassetteError {
        path: path.to_owned(),
        line: 0,
        message: format!("could not {what}: {source}"),
        source: Some(source),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Its place in the session, from 1.
    pub call: u64,
    /// The tool's name.
    pub tool: String,
    /// The arguments as sent.
    pub arguments: Map<String, Value>,
    /// The progress notifications received while it ran (`progress`, `total`, `message`).
    pub progress: Vec<Value>,
    /// The log notifications received while it ran (`level`, `logger`, `data`).
    pub logs: Vec<Value>,
    /// What it ended with.
    pub outcome: Result<CallToolResult, Value>,
}

impl Recorded {
    fn to_line(&self) -> String {
        let mut line = Map::new();
        line.insert("call".into(), self.call.into());
        line.insert("tool".into(), self.tool.clone().into());
        line.insert("arguments".into(), Value::Object(self.arguments.clone()));
        if !self.progress.is_empty() {
            line.insert("progress".into(), Value::Array(self.progress.clone()));
        }
        if !self.logs.is_empty() {
            line.insert("logs".into(), Value::Array(self.logs.clone()));
        }
        match &self.outcome {
            Ok(result) => {
                let result = serde_json::to_value(result).unwrap_or(Value::Null);
                line.insert("result".into(), result);
            }
            Err(error) => {
                line.insert("error".into(), error.clone());
            }
        }
        Value::Object(line).to_string()
    }

    fn from_line(value: Value) -> Result<Self, String> {
        let Value::Object(mut line) = value else {
            return Err("a call must be a JSON object".into());
        };
        let call = line
            .get("call")
            .and_then(Value::as_u64)
            .ok_or("`call` must be a positive integer")?;
        let tool = match line.remove("tool") {
            Some(Value::String(tool)) => tool,
            _ => return Err("`tool` must be a string".into()),
        };
        let arguments = match line.remove("arguments") {
            Some(Value::Object(arguments)) => arguments,
            None => Map::new(),
            Some(_) => return Err("`arguments` must be an object".into()),
        };
        let list = |line: &mut Map<String, Value>, key: &str| match line.remove(key) {
            Some(Value::Array(items)) => Ok(items),
            None => Ok(Vec::new()),
            Some(_) => Err(format!("`{key}` must be an array")),
        };
        let progress = list(&mut line, "progress")?;
        let logs = list(&mut line, "logs")?;
        let outcome = match (line.remove("result"), line.remove("error")) {
            (Some(result), None) => Ok(serde_json::from_value(result)
                .map_err(|e| format!("`result` is not a tools/call result: {e}"))?),
            (None, Some(error @ Value::Object(_))) => Err(error),
            _ => return Err("a call needs exactly one of `result` and `error` (an object)".into()),
        };
        Ok(Recorded {
            call,
            tool,
            arguments,
            progress,
            logs,
            outcome,
        })
    }

    /// `tool {arguments}`, for messages.
    fn show(&self) -> String {
        show_call(&self.tool, &self.arguments)
    }

    fn replay(&self) -> Result<CallToolResult, Error> {
        match &self.outcome {
            Ok(result) => Ok(result.clone()),
            Err(error) => Err(error_from_json(error)),
        }
    }
}

fn show_call(tool: &str, arguments: &Map<String, Value>) -> String {
    format!("{tool} {}", Value::Object(arguments.clone()))
}

/// An error as the cassette writes it.
fn error_to_json(error: &Error) -> Value {
    match error {
        Error::Protocol {
            code,
            message,
            data,
        } => {
            let mut e = json!({ "kind": "protocol", "code": code, "message": message });
            if let Some(data) = data {
                e["data"] = data.clone();
            }
            e
        }
        Error::Timeout { message, after } => {
            json!({ "kind": "timeout", "message": message, "after_ms": after.as_millis() as u64 })
        }
        Error::Auth {
            status,
            message,
            www_authenticate,
        } => json!({
            "kind": "auth", "status": status, "message": message,
            "www_authenticate": www_authenticate,
        }),
        Error::Transport { message, .. } => json!({ "kind": "transport", "message": message }),
        other => json!({ "kind": "transport", "message": other.to_string() }),
    }
}

/// The error a recorded `error` replays as.
fn error_from_json(error: &Value) -> Error {
    let text = |key: &str| error[key].as_str().unwrap_or_default().to_owned();
    match error["kind"].as_str() {
        Some("protocol") => Error::Protocol {
            code: error["code"].as_i64().unwrap_or(-32603),
            message: text("message"),
            data: error.get("data").cloned(),
        },
        Some("timeout") => Error::Timeout {
            message: text("message"),
            after: Duration::from_millis(error["after_ms"].as_u64().unwrap_or(0)),
        },
        Some("auth") => Error::Auth {
            status: error["status"].as_u64().and_then(|s| u16::try_from(s).ok()),
            message: text("message"),
            www_authenticate: error["www_authenticate"].as_str().map(str::to_owned),
        },
        _ => Error::Transport {
            message: text("message"),
            source: None,
        },
    }
}

/// A [`ToolCaller`] that passes every call to `C` and writes it, with its outcome, to a
/// cassette (see [the format](self#the-format-version-1)). Each call is written and flushed
/// when it completes, so a test that fails half-way keeps what it recorded.
pub struct Recorder<C> {
    inner: C,
    path: PathBuf,
    file: Arc<Mutex<File>>,
    calls: AtomicU64,
    /// The first write that failed; calls go on, [`Recorder::finish`] reports it.
    failed: Arc<Mutex<Option<CassetteError>>>,
}

impl<C> fmt::Debug for Recorder<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .field("calls", &self.calls.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<C> Recorder<C> {
    /// Records the calls through `inner` into a new cassette at `path` (replacing a file
    /// that is there).
    pub fn create(inner: C, path: impl AsRef<Path>) -> Result<Self, CassetteError> {
        let path = path.as_ref().to_owned();
        let mut file =
            File::create(&path).map_err(|e| io_error(&path, "create the cassette", e))?;
        let header = json!({
            HEADER_KEY: VERSION,
            "recorded_by": concat!("mcp-bindgen ", env!("CARGO_PKG_VERSION")),
        });
        writeln!(file, "{header}").map_err(|e| io_error(&path, "write the cassette", e))?;
        Ok(Recorder {
            inner,
            path,
            file: Arc::new(Mutex::new(file)),
            calls: AtomicU64::new(0),
            failed: Arc::default(),
        })
    }

    /// The caller the calls go through.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// The cassette's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ends the recording: the caller back, or the first write that failed (the calls
    /// themselves went through).
    pub fn finish(self) -> Result<C, CassetteError> {
        match lock(&self.failed).take() {
            Some(error) => Err(error),
            None => Ok(self.inner),
        }
    }

    fn start(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn write(&self, recorded: &Recorded) {
        write_line(&self.file, &self.failed, &self.path, &recorded.to_line());
    }

    fn record(
        &self,
        call: u64,
        tool: &str,
        arguments: Map<String, Value>,
        heard: Heard,
        outcome: &Result<CallToolResult, Error>,
    ) {
        self.write(&Recorded {
            call,
            tool: tool.to_owned(),
            arguments,
            progress: heard.progress,
            logs: heard.logs,
            outcome: match outcome {
                Ok(result) => Ok(result.clone()),
                Err(error) => Err(error_to_json(error)),
            },
        });
    }
}

/// Writes and flushes one line; the first failure is kept for [`Recorder::finish`].
fn write_line(file: &Mutex<File>, failed: &Mutex<Option<CassetteError>>, path: &Path, line: &str) {
    let mut file = lock(file);
    if let Err(e) = writeln!(file, "{line}").and_then(|()| file.flush()) {
        lock(failed).get_or_insert_with(|| io_error(path, "write the cassette", e));
    }
}

/// An event stream's item as a cassette line holds it.
fn item_to_json(item: &EventItem<Value>) -> Value {
    match item {
        EventItem::Event(occurrence) => {
            json!({"event": serde_json::to_value(occurrence).unwrap_or(Value::Null)})
        }
        EventItem::Truncated { cursor } => json!({"truncated": cursor}),
        EventItem::Terminated(ended) => {
            json!({"terminated": {"code": ended.code, "message": ended.message, "data": ended.data}})
        }
    }
}

/// The item a cassette line holds.
fn item_from_json(item: &Value) -> Result<EventItem<Value>, String> {
    if let Some(occurrence) = item.get("event") {
        return serde_json::from_value(occurrence.clone())
            .map(EventItem::Event)
            .map_err(|e| format!("`item.event` is not an occurrence: {e}"));
    }
    if let Some(cursor) = item.get("truncated") {
        return Ok(EventItem::Truncated {
            cursor: cursor.as_str().map(str::to_owned),
        });
    }
    if let Some(ended) = item.get("terminated") {
        return Ok(EventItem::Terminated(crate::events::Ended {
            code: ended["code"].as_i64().unwrap_or_default(),
            message: ended["message"].as_str().unwrap_or_default().to_owned(),
            data: ended.get("data").filter(|d| !d.is_null()).cloned(),
        }));
    }
    Err("`item` must be {\"event\":..}, {\"truncated\":..} or {\"terminated\":..}".into())
}

/// One recorded event stream: its place, its event type and arguments, and what it handed
/// over.
#[derive(Debug, Clone, PartialEq)]
struct RecordedStream {
    call: u64,
    name: String,
    arguments: Map<String, Value>,
    items: Vec<EventItem<Value>>,
}

/// What a call heard while it ran.
#[derive(Debug, Default)]
struct Heard {
    progress: Vec<Value>,
    logs: Vec<Value>,
}

impl<C: ToolCaller + Sync> ToolCaller for Recorder<C> {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        let call = self.start();
        let outcome = self.inner.call_tool(name, arguments.clone()).await;
        self.record(call, name, arguments, Heard::default(), &outcome);
        outcome
    }

    /// Passed to the recorded caller, not recorded (a cassette holds tool calls).
    fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<crate::GetPromptResult, Error>> + Send {
        self.inner.get_prompt(name, arguments)
    }

    /// Passed to the recorded caller, not recorded (a cassette holds tool calls).
    fn complete(
        &self,
        reference: &crate::CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> impl Future<Output = Result<crate::Completion, Error>> + Send {
        self.inner.complete(reference, argument, value, context)
    }

    /// Passed to the recorded caller, not recorded (a cassette holds tool calls).
    fn read_resource(
        &self,
        uri: &str,
    ) -> impl Future<Output = Result<crate::ReadResourceResult, Error>> + Send {
        self.inner.read_resource(uri)
    }

    fn check_tool(
        &self,
        provenance: &'static Provenance,
        tool: &str,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.inner.check_tool(provenance, tool)
    }

    fn check_catalog(
        &self,
        provenance: &'static Provenance,
        kind: crate::drift::Kind,
        name: &str,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.inner.check_catalog(provenance, kind, name)
    }

    fn drift(&self, provenance: &Provenance) -> Option<DriftReport> {
        self.inner.drift(provenance)
    }

    fn check_drift(
        &self,
        provenance: &'static Provenance,
    ) -> impl Future<Output = Result<Option<DriftReport>, Error>> + Send {
        self.inner.check_drift(provenance)
    }

    /// Passed to the recorded caller, not recorded (a poll's page depends on when it is
    /// made; record the stream instead).
    fn poll_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cursor: Option<&str>,
        max_events: Option<u32>,
    ) -> impl Future<Output = Result<crate::events::EventPage, Error>> + Send {
        self.inner.poll_events(name, arguments, cursor, max_events)
    }

    /// The recorded caller's stream, each item it hands over written as it passes.
    fn stream_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: crate::events::EventOptions,
    ) -> crate::events::EventStream {
        let call = self.start();
        let (file, failed, path) = (self.file.clone(), self.failed.clone(), self.path.clone());
        let (name_owned, recorded_arguments) = (name.to_owned(), arguments.clone());
        self.inner
            .stream_events(name, arguments, options)
            .tapped(move |item| {
                let line = json!({
                    "call": call,
                    "events": name_owned,
                    "arguments": recorded_arguments,
                    "item": item_to_json(item),
                });
                write_line(&file, &failed, &path, &line.to_string());
            })
    }
}

/// How a [`Replayer`] matches the calls it receives to those it recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Matching {
    /// The next recorded call, which must be the same tool with the same arguments.
    Strict,
    /// The first recorded call not yet replayed with the same tool and arguments.
    AnyOrder,
}

/// The calls of the cassette at `path`, in the order they were made.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<Recorded>, CassetteError> {
    read_all(path.as_ref()).map(|(calls, _)| calls)
}

/// The calls and the event streams of the cassette at `path`.
fn read_all(path: &Path) -> Result<(Vec<Recorded>, Vec<RecordedStream>), CassetteError> {
    let file = File::open(path).map_err(|e| io_error(path, "open the cassette", e))?;
    let at = |line: usize, message: String| CassetteError {
        path: path.to_owned(),
        line,
        message,
        source: None,
    };
    let mut calls = Vec::new();
    let mut streams: Vec<RecordedStream> = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let number = index + 1;
        let line = line.map_err(|e| io_error(path, "read the cassette", e))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(&line).map_err(|e| {
            at(
                number,
                format!("not JSON ({e}); a cassette has one JSON object per line"),
            )
        })?;
        if number == 1 {
            match value.get(HEADER_KEY).and_then(Value::as_u64) {
                Some(VERSION) => continue,
                Some(other) => {
                    return Err(at(
                        1,
                        format!(
                            "cassette format version {other}, but this mcp-bindgen reads \
                             version {VERSION}: record it again, or update mcp-bindgen"
                        ),
                    ));
                }
                None => {
                    return Err(at(
                        1,
                        format!(
                            "not a cassette: the first line must be the header \
                             {{\"{HEADER_KEY}\":{VERSION},..}} a Recorder writes"
                        ),
                    ));
                }
            }
        }
        if let Some(name) = value.get("events") {
            let item = item_from_json(&value["item"]).map_err(|message| at(number, message))?;
            let (Some(call), Some(name)) = (value["call"].as_u64(), name.as_str()) else {
                return Err(at(
                    number,
                    "an event stream's line needs `call` and `events`".into(),
                ));
            };
            match streams.iter_mut().find(|s| s.call == call) {
                Some(stream) => stream.items.push(item),
                None => streams.push(RecordedStream {
                    call,
                    name: name.to_owned(),
                    arguments: value["arguments"].as_object().cloned().unwrap_or_default(),
                    items: vec![item],
                }),
            }
            continue;
        }
        calls.push(Recorded::from_line(value).map_err(|message| at(number, message))?);
    }
    calls.sort_by_key(|c| c.call);
    streams.sort_by_key(|s| s.call);
    Ok((calls, streams))
}

/// One recorded call that a server with new tools would no longer answer as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The call's place in the session.
    pub call: u64,
    /// The tool it called.
    pub tool: String,
    /// [`Severity::Breaking`]: the call itself would fail (the tool is gone, or its arguments
    /// no longer satisfy its input schema); [`Severity::Warning`]: the call would go through,
    /// but its recorded result no longer satisfies the tool's output schema, so the replay
    /// answers what the server would not.
    pub severity: Severity,
    /// JSON pointer into the arguments (breaking) or the result (warning); `""` for the whole.
    pub pointer: String,
    /// What no longer holds.
    pub message: String,
}

/// Which of `calls` a server listing `tools` (the `tools` array of a `tools/list` or a
/// capture) would no longer answer as recorded: "would these recorded calls still be valid?".
/// Calls that ended in an error are judged by their arguments only.
pub fn stale(calls: &[Recorded], tools: &[Value]) -> Vec<Stale> {
    use std::collections::HashMap;
    let mut schemas: HashMap<&str, (Option<CompiledSchema>, Option<CompiledSchema>)> =
        HashMap::new();
    for tool in tools {
        if let Some(name) = tool.get("name").and_then(Value::as_str) {
            let compile = |key: &str| tool.get(key).map(CompiledSchema::new);
            schemas.insert(name, (compile("inputSchema"), compile("outputSchema")));
        }
    }
    let mut out = Vec::new();
    for call in calls {
        let stale = |severity, pointer: String, message: String| Stale {
            call: call.call,
            tool: call.tool.clone(),
            severity,
            pointer,
            message,
        };
        let Some((input, output)) = schemas.get(call.tool.as_str()) else {
            out.push(stale(
                Severity::Breaking,
                String::new(),
                "the server no longer lists this tool".into(),
            ));
            continue;
        };
        let arguments = Value::Object(call.arguments.clone());
        if let Some(Err(violation)) = input.as_ref().map(|s| s.validate(&arguments)) {
            out.push(stale(
                Severity::Breaking,
                violation.pointer,
                format!(
                    "the recorded arguments no longer fit: {}",
                    violation.message
                ),
            ));
            continue;
        }
        if let (Some(output), Ok(result)) = (output, &call.outcome)
            && !result.is_error()
        {
            let value = crate::envelope::envelope_value(result);
            if let Err(violation) = output.validate(&value) {
                out.push(stale(
                    Severity::Warning,
                    violation.pointer,
                    format!(
                        "the recorded result no longer fits the output schema: {}; record again",
                        violation.message
                    ),
                ));
            }
        }
    }
    out
}

/// A [`ToolCaller`] that answers from a cassette a [`Recorder`] wrote: each call gets the
/// recorded call's outcome, errors included, and its progress and logs when it is made with
/// [`Replayer::call_tool_with`]. A call the cassette does not have fails with both calls shown.
pub struct Replayer {
    path: PathBuf,
    matching: Matching,
    left: Mutex<VecDeque<Recorded>>,
    /// The event streams not replayed yet.
    streams: Mutex<VecDeque<RecordedStream>>,
}

impl fmt::Debug for Replayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replayer")
            .field("path", &self.path)
            .field("matching", &self.matching)
            .field("left", &lock(&self.left).len())
            .finish()
    }
}

impl Replayer {
    /// Reads the cassette at `path`, to replay strictly: the calls must come in the recorded
    /// order, each with the recorded tool and arguments.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CassetteError> {
        let path = path.as_ref().to_owned();
        let (calls, streams) = read_all(&path)?;
        Ok(Replayer {
            path,
            matching: Matching::Strict,
            left: Mutex::new(calls.into()),
            streams: Mutex::new(streams.into()),
        })
    }

    /// Matches each call to the first recorded call not yet replayed with the same tool and
    /// arguments, in any order (for code whose calls run concurrently).
    pub fn any_order(mut self) -> Self {
        self.matching = Matching::AnyOrder;
        self
    }

    /// The recorded calls not replayed yet: empty when the code under test made every call
    /// it made when recorded.
    pub fn unplayed(&self) -> Vec<Recorded> {
        lock(&self.left).iter().cloned().collect()
    }

    /// The recorded event streams not opened again yet (their event types), in order.
    pub fn unplayed_streams(&self) -> Vec<String> {
        lock(&self.streams).iter().map(|s| s.name.clone()).collect()
    }

    /// The recorded stream of `name` with `arguments`: the next one (strict), or the first
    /// not replayed yet (any order).
    fn take_stream(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<RecordedStream, Error> {
        let mut streams = lock(&self.streams);
        let same = |s: &RecordedStream| s.name == name && s.arguments == *arguments;
        let found = match self.matching {
            Matching::Strict => streams
                .front()
                .filter(|s| same(s))
                .is_some()
                .then(|| streams.pop_front())
                .flatten(),
            Matching::AnyOrder => streams
                .iter()
                .position(same)
                .and_then(|i| streams.remove(i)),
        };
        found.ok_or_else(|| {
            let recorded: Vec<String> = streams
                .iter()
                .map(|s| format!("  {} {}", s.name, Value::Object(s.arguments.clone())))
                .collect();
            mismatch(
                &self.path,
                format!(
                    "the cassette has no such event stream\n  received: {name} {}\n  \
                     recorded streams not yet replayed ({}):{}{}",
                    Value::Object(arguments.clone()),
                    recorded.len(),
                    if recorded.is_empty() { "" } else { "\n" },
                    recorded.join("\n")
                ),
            )
        })
    }

    fn take(&self, tool: &str, arguments: &Map<String, Value>) -> Result<Recorded, Error> {
        let mut left = lock(&self.left);
        let same = |r: &Recorded| r.tool == tool && r.arguments == *arguments;
        let found = match self.matching {
            Matching::Strict => match left.front() {
                Some(next) if same(next) => left.pop_front(),
                Some(next) => {
                    return Err(mismatch(
                        &self.path,
                        format!(
                            "call {} does not match the cassette\n  recorded: {}\n  received: {}",
                            next.call,
                            next.show(),
                            show_call(tool, arguments)
                        ),
                    ));
                }
                None => None,
            },
            Matching::AnyOrder => left.iter().position(same).and_then(|i| left.remove(i)),
        };
        found.ok_or_else(|| {
            let unplayed: Vec<String> = left.iter().map(|r| format!("  {}", r.show())).collect();
            mismatch(
                &self.path,
                format!(
                    "the cassette has no such call\n  received: {}\n  not yet replayed ({}):{}{}",
                    show_call(tool, arguments),
                    unplayed.len(),
                    if unplayed.is_empty() { "" } else { "\n" },
                    unplayed.join("\n")
                ),
            )
        })
    }
}

fn mismatch(path: &Path, message: String) -> Error {
    Error::Replay {
        cassette: path.display().to_string(),
        message,
    }
}

impl ToolCaller for Replayer {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        self.take(name, &arguments)?.replay()
    }

    /// The recorded stream's items, then its end.
    fn stream_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: crate::events::EventOptions,
    ) -> crate::events::EventStream {
        let _ = options;
        match self.take_stream(name, &arguments) {
            Ok(recorded) => crate::events::EventStream::from_items(recorded.items),
            Err(error) => crate::events::EventStream::failed(error),
        }
    }
}

#[cfg(feature = "client")]
mod with_options {
    use std::sync::{Arc, Mutex};

    use serde_json::{Map, Value, json};

    use super::{Heard, Recorder, Replayer, lock};
    use crate::client::{CallOptions, LogMessage, McpClient, Progress, Transport};
    use crate::{CallToolResult, Error};

    fn progress_json(p: &Progress) -> Value {
        let mut v = json!({ "progress": p.progress });
        if let Some(total) = p.total {
            v["total"] = total.into();
        }
        if let Some(message) = &p.message {
            v["message"] = message.clone().into();
        }
        v
    }

    fn log_json(l: &LogMessage) -> Value {
        let mut v = json!({ "level": l.level, "data": l.data });
        if let Some(logger) = &l.logger {
            v["logger"] = logger.clone().into();
        }
        v
    }

    impl<T: Transport> Recorder<McpClient<T>> {
        /// [`McpClient::call_tool_with`], recorded with the progress and log notifications
        /// the call receives (which still reach `options`' handlers, or the client's log
        /// handler).
        pub async fn call_tool_with(
            &self,
            name: &str,
            arguments: Map<String, Value>,
            options: &CallOptions,
        ) -> Result<CallToolResult, Error> {
            let call = self.start();
            let heard = Arc::new(Mutex::new(Heard::default()));
            let (progress, log) = (heard.clone(), heard.clone());
            let forward_progress = options.progress.clone();
            let forward_log = options.log.clone().or_else(|| self.inner.log_handler());
            let mut tapped = CallOptions::new()
                .on_progress(move |p: Progress| {
                    lock(&progress).progress.push(progress_json(&p));
                    if let Some(forward) = &forward_progress {
                        forward(p);
                    }
                })
                .on_log(move |l: LogMessage| {
                    lock(&log).logs.push(log_json(&l));
                    if let Some(forward) = &forward_log {
                        forward(l);
                    }
                });
            if options.progress.is_none() {
                // No progress handler: no `progressToken` either, as without the recorder.
                tapped.progress = None;
            }
            tapped.timeout = options.timeout;
            let outcome = self
                .inner
                .call_tool_with(name, arguments.clone(), &tapped)
                .await;
            let heard = std::mem::take(&mut *lock(&heard));
            self.record(call, name, arguments, heard, &outcome);
            outcome
        }
    }

    impl Replayer {
        /// Replays a call made with [`McpClient::call_tool_with`]: the recorded progress and
        /// log notifications reach `options`' handlers, in order, before the outcome.
        pub async fn call_tool_with(
            &self,
            name: &str,
            arguments: Map<String, Value>,
            options: &CallOptions,
        ) -> Result<CallToolResult, Error> {
            let recorded = self.take(name, &arguments)?;
            if let Some(handler) = &options.progress {
                for p in &recorded.progress {
                    handler(Progress {
                        progress: p["progress"].as_f64().unwrap_or_default(),
                        total: p["total"].as_f64(),
                        message: p["message"].as_str().map(str::to_owned),
                    });
                }
            }
            if let Some(handler) = &options.log {
                for l in &recorded.logs {
                    handler(LogMessage {
                        level: l["level"].as_str().unwrap_or("info").to_owned(),
                        logger: l["logger"].as_str().map(str::to_owned),
                        data: l["data"].clone(),
                    });
                }
            }
            recorded.replay()
        }
    }
}

#[cfg(test)]
mod tests;
