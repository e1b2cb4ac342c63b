//! The client side: one client, [`McpClient`], over Streamable HTTP ([`HttpClient`]) or a
//! child process's stdio ([`StdioClient`]); a [`ToolCaller`](crate::ToolCaller).
//!
//! Both speak the two protocol eras (see [`crate::era`]) through one engine (the session): they
//! try the modern, stateless revision (2026-07-28) first and fall back to the legacy
//! `initialize` handshake when the server does not speak it, following the revision's dual-era
//! rules, within one time budget for the whole connect; [`Protocol`] pins an era or a version
//! instead. The outcome is remembered for the connection and reported by `protocol_version()`.
//!
//! The I/O runs on a small runtime this crate owns (one background thread, started on first
//! use), so the clients work from any executor: tokio, `pollster::block_on`, a game loop's own.
//! Dropping a call's future, or its timeout, cancels the request on the server
//! (`notifications/cancelled` in the legacy era and on stdio; closing the response stream over
//! modern HTTP). Progress and log notifications reach the handlers of [`CallOptions`] while the
//! call runs; requests from the server (`ping`, elicitation, sampling, ... in the legacy era; the
//! `inputRequests` of an `input_required` result in the modern one) are answered by the
//! handler set with `on_request` on the builders, `ping` always, anything else with `-32601`.

pub(crate) mod body;
mod builder;
mod changes;
pub(crate) mod decode;
mod drift;
mod events;
pub mod http;
mod inbox;
pub(crate) mod io;
mod mcp_client;
mod outgoing;
mod session;
mod skills;
mod sse;
pub mod stdio;
mod tasks;
mod transport;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::Error;
use crate::era::{self, Era};

pub(crate) use builder::Settings;
pub(crate) use decode::{Response, Route};
pub(crate) use inbox::Routed;
pub(crate) use outgoing::{Outgoing, describe};
pub(crate) use session::{Negotiated, Session};
pub(crate) use transport::{Reply, refused};

pub use builder::ClientBuilder;
pub use http::{HttpClient, HttpClientBuilder, HttpOptions, HttpTransport, TokenProvider};
pub use mcp_client::McpClient;
pub use skills::{LoadedSkill, SkillList};
pub use stdio::{StdioClient, StdioClientBuilder, StdioOptions, StdioTransport};
pub use transport::Transport;

/// Which protocol era or version a client speaks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// The modern era if the server speaks it, else the legacy `initialize` handshake (the
    /// default).
    #[default]
    Auto,
    /// The modern era only: a server that does not speak it is an error.
    Modern,
    /// The legacy `initialize` handshake only (asking for the newest legacy version).
    Legacy,
    /// Exactly this version (`"2026-07-28"`, `"2025-06-18"`, ...): modern or legacy by the
    /// version, without fallback.
    Version(String),
}

impl Protocol {
    /// The version to try first, and its era (an unknown version is tried as a legacy one,
    /// through `initialize`, which lets the server name the version it speaks instead).
    fn first(&self) -> (String, Era) {
        match self {
            Protocol::Auto | Protocol::Modern => (era::LATEST_MODERN.to_owned(), Era::Stateless),
            Protocol::Legacy => (era::LATEST_LEGACY.to_owned(), Era::Session),
            Protocol::Version(v) => (v.clone(), era::era_of(v).unwrap_or(Era::Session)),
        }
    }

    /// Whether a legacy fallback is allowed.
    fn may_fall_back(&self) -> bool {
        matches!(self, Protocol::Auto)
    }

    /// The newest version of `supported` this client may switch to.
    fn pick(&self, supported: &Value) -> Option<String> {
        let supported: Vec<&str> = supported
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let ours: Vec<&str> = match self {
            Protocol::Auto => era::all_versions().collect(),
            Protocol::Modern => era::versions(Era::Stateless).collect(),
            Protocol::Legacy => era::versions(Era::Session).collect(),
            Protocol::Version(v) => vec![v.as_str()],
        };
        ours.into_iter()
            .find(|v| supported.contains(v))
            .map(str::to_owned)
    }
}

/// A `notifications/progress` for a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far (increases with every notification).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A message for a person, when the server sent one.
    pub message: Option<String>,
}

/// A `notifications/message` (a log line from the server).
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// `debug`, `info`, `notice`, `warning`, `error`, ...
    pub level: String,
    /// The logger's name, when the server sent one.
    pub logger: Option<String>,
    /// The logged value.
    pub data: Value,
}

/// Receives the progress notifications of one call.
pub type ProgressHandler = Arc<dyn Fn(Progress) + Send + Sync>;
/// Receives log notifications.
pub type LogHandler = Arc<dyn Fn(LogMessage) + Send + Sync>;
/// Answers a request from the server (`elicitation/create`, `sampling/createMessage`,
/// `roots/list`, ...): the method and its params in, the result out. An
/// [`Error::Protocol`] is sent back as that JSON-RPC error; any other error as `-32603`. It runs
/// on a blocking thread of the client's I/O runtime.
pub type RequestHandler = Arc<dyn Fn(&str, &Value) -> Result<Value, Error> + Send + Sync>;

/// Receives the server's tool list each time the server announces that its tools changed
/// (see the builders' `on_tools_changed`).
pub type ToolsChangedHandler = Arc<dyn Fn(&ToolList) + Send + Sync>;

/// Options for one call: progress and log handlers, and a timeout.
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) progress: Option<ProgressHandler>,
    pub(crate) log: Option<LogHandler>,
    pub(crate) timeout: Option<Duration>,
    /// Declare the tasks extension on this request (2026-07-28): a call made as a task.
    pub(crate) as_task: bool,
    /// Where an `events/stream`'s notifications go.
    pub(crate) events: Option<events::EventSink>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.as_ref().map(|_| "<handler>"))
            .field("log", &self.log.as_ref().map(|_| "<handler>"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CallOptions {
    /// No handlers, the client's timeout.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Receives the call's progress notifications, in order, before the result; the request
    /// then carries a `progressToken`.
    pub fn on_progress(mut self, handler: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(handler));
        self
    }

    /// Receives the log notifications sent while the call runs (instead of the client's log
    /// handler).
    pub fn on_log(mut self, handler: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(handler));
        self
    }

    /// How long this call may take (instead of the client's timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

/// A `tools/list`, every page.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolList {
    /// The tools as the server sent them (less those refused, see `rejected`).
    pub tools: Vec<Value>,
    /// How long the list may be cached, in milliseconds (modern era), from the first page.
    pub ttl_ms: Option<u64>,
    /// Who may share a cached copy (`"public"`, `"private"`; modern era).
    pub cache_scope: Option<String>,
    /// Tools left out, with the reason: over HTTP, a tool whose `x-mcp-header` annotations
    /// are invalid (the 2026-07-28 revision requires clients to drop those).
    pub rejected: Vec<(String, String)>,
}

impl ToolList {
    /// The tools' names, in the server's order (a tool without a string `name` is skipped).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().filter_map(|tool| tool["name"].as_str())
    }
}

/// The handlers of one exchange.
#[derive(Clone, Default)]
pub(crate) struct CallContext {
    pub(crate) progress: Option<ProgressHandler>,
    pub(crate) log: Option<LogHandler>,
    pub(crate) events: Option<events::EventSink>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) use crate::loopback::is_loopback;
