//! The client side: MCP client transports over Streamable HTTP ([`HttpClient`]) and a child
//! process's stdio ([`StdioClient`]), both [`ToolCaller`](crate::ToolCaller)s.
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

mod changes;
mod decode;
mod drift;
mod drift_check;
pub mod http;
mod io;
#[cfg(feature = "oauth")]
pub mod oauth;
mod outgoing;
mod session;
mod sse;
pub mod stdio;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::Error;
use crate::era::{self, Era};

#[doc(hidden)]
pub use decode::decode_tool_response;
pub(crate) use decode::{Response, Route};
pub(crate) use outgoing::Outgoing;
pub(crate) use session::{Negotiated, Reply, Session, Transport};

pub use http::{HttpClient, HttpClientBuilder, TokenProvider};
pub use stdio::{StdioClient, StdioClientBuilder};

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
            Protocol::Auto | Protocol::Modern => (era::LATEST_MODERN.to_owned(), Era::Modern),
            Protocol::Legacy => (era::LATEST_LEGACY.to_owned(), Era::Legacy),
            Protocol::Version(v) => (v.clone(), era::era_of(v).unwrap_or(Era::Legacy)),
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
            Protocol::Modern => era::versions(Era::Modern).collect(),
            Protocol::Legacy => era::versions(Era::Legacy).collect(),
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
    progress: Option<ProgressHandler>,
    log: Option<LogHandler>,
    timeout: Option<Duration>,
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

/// Builder settings both transports share.
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) client_name: String,
    pub(crate) client_version: String,
    pub(crate) capabilities: Value,
    pub(crate) timeout: Duration,
    pub(crate) protocol: Protocol,
    pub(crate) log: Option<LogHandler>,
    pub(crate) requests: Option<RequestHandler>,
    pub(crate) drift_policy: crate::DriftPolicy,
    pub(crate) on_drift: Option<drift::DriftHandler>,
    pub(crate) on_tools_changed: Vec<ToolsChangedHandler>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            capabilities: json!({}),
            timeout: Duration::from_secs(30),
            protocol: Protocol::Auto,
            log: None,
            requests: None,
            drift_policy: crate::DriftPolicy::default(),
            on_drift: None,
            on_tools_changed: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("client_name", &self.client_name)
            .field("client_version", &self.client_version)
            .field("capabilities", &self.capabilities)
            .field("timeout", &self.timeout)
            .field("protocol", &self.protocol)
            .field("log", &self.log.as_ref().map(|_| "<handler>"))
            .field("requests", &self.requests.as_ref().map(|_| "<handler>"))
            .field("drift_policy", &self.drift_policy)
            .field("on_drift", &self.on_drift.as_ref().map(|_| "<handler>"))
            .field("on_tools_changed", &self.on_tools_changed.len())
            .finish()
    }
}

/// The builder methods both transports share, written once.
macro_rules! settings_methods {
    () => {
        /// The client's name and version, sent as `clientInfo` (default: this crate's).
        pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
            self.settings.client_name = name.into();
            self.settings.client_version = version.into();
            self
        }

        /// The client capabilities declared to the server (default `{}`).
        pub fn capabilities(mut self, capabilities: serde_json::Value) -> Self {
            self.settings.capabilities = capabilities;
            self
        }

        /// How long one request may take before it fails with [`Error::Timeout`] and is
        /// cancelled on the server (default 30 s).
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeout = timeout;
            self
        }

        /// Which protocol era or version to speak (default
        /// [`Protocol::Auto`](crate::client::Protocol::Auto): modern if the server speaks it,
        /// else legacy).
        pub fn protocol(mut self, protocol: $crate::client::Protocol) -> Self {
            self.settings.protocol = protocol;
            self
        }

        /// Receives the server's log notifications (unless a call has its own handler).
        pub fn on_log(
            mut self,
            handler: impl Fn($crate::client::LogMessage) + Send + Sync + 'static,
        ) -> Self {
            self.settings.log = Some(std::sync::Arc::new(handler));
            self
        }

        /// Answers the server's requests (elicitation, sampling, roots, ...), in both eras.
        /// `ping` is answered by the client itself, never passed here; without a handler,
        /// everything else gets `-32601` (method not found).
        pub fn on_request(
            mut self,
            handler: impl Fn(&str, &serde_json::Value) -> Result<serde_json::Value, Error>
            + Send
            + Sync
            + 'static,
        ) -> Self {
            self.settings.requests = Some(std::sync::Arc::new(handler));
            self
        }

        /// What generated clients do when the server's tools changed since they were
        /// generated (default [`DriftPolicy::Warn`](crate::DriftPolicy::Warn): report, and
        /// call). See [`crate::drift`].
        pub fn drift_policy(mut self, policy: $crate::DriftPolicy) -> Self {
            self.settings.drift_policy = policy;
            self
        }

        /// Receives each drift report that found changes (they also go to `log`: `warn` when
        /// one breaks a call, else `info`).
        pub fn on_drift(
            mut self,
            handler: impl Fn(&$crate::DriftReport) + Send + Sync + 'static,
        ) -> Self {
            self.settings.on_drift = Some(std::sync::Arc::new(handler));
            self
        }

        /// Receives the server's new tool list each time it announces that its tools changed
        /// (the legacy era's `notifications/tools/list_changed`; in 2026-07-28, the
        /// `subscriptions/listen` stream the HTTP client opens when the server advertises
        /// `tools.listChanged`). The list is fetched once per announcement, however many
        /// handlers there are, and handed to each in the order they were added, on a blocking
        /// thread of the client's I/O runtime. Announcements that come while a list is being
        /// fetched are answered by one more fetch. Generated clients' drift checks go stale on
        /// the same announcements, with or without a handler.
        pub fn on_tools_changed(
            mut self,
            handler: impl Fn(&$crate::client::ToolList) + Send + Sync + 'static,
        ) -> Self {
            self.settings
                .on_tools_changed
                .push(std::sync::Arc::new(handler));
            self
        }
    };
}
pub(crate) use settings_methods;

/// The [`ToolCaller`](crate::ToolCaller) of a transport's client: the same for every
/// transport, since the session does the work (a call with default options, a typed call
/// decoded from the bytes, the drift check).
macro_rules! transport_tool_caller {
    ($client:ty) => {
        impl $crate::ToolCaller for $client {
            async fn call_tool(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> Result<CallToolResult, Error> {
                self.call_tool_with(name, arguments, &CallOptions::default())
                    .await
            }

            async fn call_tool_decoded<T: serde::de::DeserializeOwned + Send>(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> Result<T, Error> {
                session::call_tool_decoded(self, name, arguments).await
            }

            async fn check_tool(
                &self,
                provenance: &'static crate::Provenance,
                tool: &str,
            ) -> Result<(), Error> {
                super::drift_check::check_tool(self, provenance, tool).await
            }

            fn drift(&self, provenance: &crate::Provenance) -> Option<crate::DriftReport> {
                session::Transport::session(self).drift.report(provenance)
            }

            async fn check_drift(
                &self,
                provenance: &'static crate::Provenance,
            ) -> Result<Option<crate::DriftReport>, Error> {
                super::drift_check::check_drift(self, provenance).await
            }
        }
    };
}
pub(crate) use transport_tool_caller;

/// The handlers of one exchange.
#[derive(Clone, Default)]
pub(crate) struct CallContext {
    pub(crate) progress: Option<ProgressHandler>,
    pub(crate) log: Option<LogHandler>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `localhost`, `*.localhost`, `127.0.0.0/8`, `::1` (and `::ffff:127.x.y.z`), with or
/// without the brackets of a URL's IPv6 host.
pub(crate) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.to_canonical().is_loopback(),
        Err(_) => {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            host == "localhost" || host.ends_with(".localhost")
        }
    }
}
