//! The client side: MCP client transports over Streamable HTTP ([`HttpClient`]) and a child
//! process's stdio ([`StdioClient`]), both [`ToolCaller`](crate::ToolCaller)s.
//!
//! Both speak the two protocol eras (see [`crate::era`]): they try the modern, stateless
//! revision (2026-07-28) first and fall back to the legacy `initialize` handshake when the
//! server does not speak it, following the revision's dual-era rules; [`Protocol`] pins an era
//! or a version instead. The outcome is remembered for the connection and reported by
//! `protocol_version()`.
//!
//! The I/O runs on a small runtime this crate owns (one background thread, started on first
//! use), so the clients work from any executor: tokio, `pollster::block_on`, a game loop's own.
//! Dropping a call's future, or its timeout, cancels the request on the server
//! (`notifications/cancelled` in the legacy era and on stdio; closing the response stream over
//! modern HTTP). Progress and log notifications reach the handlers of [`CallOptions`] while the
//! call runs; requests from the server (`ping`, elicitation, sampling, ... in the legacy era; the
//! `inputRequests` of an `input_required` result in the modern one) are answered by the
//! handler set with `on_request` on the builders, `ping` always, anything else with `-32601`.

mod decode;
pub mod http;
mod io;
mod outgoing;
mod sse;
pub mod stdio;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::era::{self, meta};
use crate::{CallToolResult, Error};

#[doc(hidden)]
pub use decode::decode_tool_response;
use decode::{Decoder, Step, Typed, ValueResult};
pub(crate) use decode::{Response, Route};
pub(crate) use outgoing::Outgoing;
use outgoing::{MetaKeys, Modern};

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
    /// The version to try first, and whether it is modern.
    fn first(&self) -> (String, bool) {
        match self {
            Protocol::Auto | Protocol::Modern => (era::LATEST_MODERN.to_owned(), true),
            Protocol::Legacy => (era::LATEST_LEGACY.to_owned(), false),
            Protocol::Version(v) => (v.clone(), era::is_modern(v)),
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
            Protocol::Auto => era::MODERN_VERSIONS
                .iter()
                .rev()
                .chain(era::LEGACY_VERSIONS.iter().rev())
                .copied()
                .collect(),
            Protocol::Modern => era::MODERN_VERSIONS.iter().rev().copied().collect(),
            Protocol::Legacy => era::LEGACY_VERSIONS.iter().rev().copied().collect(),
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

        /// Which protocol era or version to speak (default [`Protocol::Auto`]: modern if the
        /// server speaks it, else legacy).
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

        /// Answers the server's requests (elicitation, sampling, roots, ...). Without one,
        /// `ping` is answered and everything else gets `-32601` (method not found).
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
    };
}
pub(crate) use settings_methods;

/// The handlers of one exchange.
#[derive(Clone, Default)]
pub(crate) struct CallContext {
    pub(crate) progress: Option<ProgressHandler>,
    pub(crate) log: Option<LogHandler>,
}

/// The negotiated version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub(crate) version: String,
    pub(crate) modern: bool,
}

/// The `x-mcp-header` parameters of one tool: header name and the property path.
pub(crate) type HeaderParams = Vec<(String, Vec<String>)>;

/// Session state both transports share.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) settings: Settings,
    next_id: AtomicU64,
    negotiated: Mutex<Option<Negotiated>>,
    server_info: Mutex<Value>,
    header_params: Mutex<HashMap<String, HeaderParams>>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Session {
    pub(crate) fn new(settings: Settings) -> Self {
        Session {
            settings,
            next_id: AtomicU64::new(1),
            negotiated: Mutex::new(None),
            server_info: Mutex::new(Value::Null),
            header_params: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.negotiated).clone()
    }

    pub(crate) fn set_negotiated(&self, version: String, modern: bool) {
        *lock(&self.negotiated) = Some(Negotiated { version, modern });
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        lock(&self.negotiated).as_ref().map(|n| n.version.clone())
    }

    pub(crate) fn server_info(&self) -> Value {
        lock(&self.server_info).clone()
    }

    pub(crate) fn set_server_info(&self, info: Value) {
        *lock(&self.server_info) = info;
    }

    pub(crate) fn header_params(&self, tool: &str) -> Option<HeaderParams> {
        lock(&self.header_params).get(tool).cloned()
    }

    /// The `clientInfo` object.
    pub(crate) fn client_info(&self) -> Value {
        json!({"name": self.settings.client_name, "version": self.settings.client_version})
    }

    /// The `initialize` params for `version`.
    pub(crate) fn initialize_params(&self, version: &str) -> Value {
        json!({
            "protocolVersion": version,
            "capabilities": self.settings.capabilities,
            "clientInfo": self.client_info(),
        })
    }

    /// A JSON-RPC request, written: `params` with the modern `_meta` keys when `version` is a
    /// 2026-07-28 one, and the `progressToken` when there is one.
    pub(crate) fn outgoing<'a>(
        &self,
        id: u64,
        method: &'a str,
        params: &'a Value,
        version: Option<&Negotiated>,
        progress_token: Option<u64>,
    ) -> Result<Outgoing<'a>, Error> {
        let keys = MetaKeys {
            modern: version.filter(|n| n.modern).map(|n| Modern {
                version: &n.version,
                capabilities: &self.settings.capabilities,
                client_name: &self.settings.client_name,
                client_version: &self.settings.client_version,
            }),
            progress_token,
        };
        Outgoing::new(id, method, params, keys)
    }

    /// Hands a notification to the handler it is for.
    pub(crate) fn notify(&self, message: &Value, context: &CallContext) {
        let params = &message["params"];
        match message["method"].as_str() {
            Some("notifications/progress") => {
                if let (Some(handler), Some(progress)) =
                    (&context.progress, params["progress"].as_f64())
                {
                    handler(Progress {
                        progress,
                        total: params["total"].as_f64(),
                        message: params["message"].as_str().map(str::to_owned),
                    });
                }
            }
            Some("notifications/message") => {
                if let Some(handler) = context.log.as_ref().or(self.settings.log.as_ref()) {
                    handler(LogMessage {
                        level: params["level"].as_str().unwrap_or("info").to_owned(),
                        logger: params["logger"].as_str().map(str::to_owned),
                        data: params["data"].clone(),
                    });
                }
            }
            _ => {}
        }
    }

    /// The result of the server's request `method`: `ping` answers `{}`; otherwise the
    /// request handler, or `-32601`.
    pub(crate) fn answer(&self, method: &str, params: &Value) -> Result<Value, Error> {
        match &self.settings.requests {
            Some(handler) => handler(method, params),
            None if method == "ping" => Ok(json!({})),
            None => Err(Error::Protocol {
                code: -32601,
                message: format!("Method not found: {method} (this client has no handler for it)"),
                data: None,
            }),
        }
    }

    /// The JSON-RPC response to the server's request `message`.
    pub(crate) fn response_to(&self, message: &Value) -> Value {
        let id = message["id"].clone();
        let method = message["method"].as_str().unwrap_or("");
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let answer = if method == "ping" {
            Ok(json!({}))
        } else {
            self.answer(method, &params)
        };
        match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(Error::Protocol {
                code,
                message,
                data,
            }) => {
                let mut error = json!({"code": code, "message": message});
                if let Some(data) = data {
                    error["data"] = data;
                }
                json!({"jsonrpc": "2.0", "id": id, "error": error})
            }
            Err(other) => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": other.to_string()}}),
        }
    }

    /// The `inputResponses` for the `inputRequests` of an `input_required` result.
    fn input_responses(&self, requests: &Value) -> Result<Value, Error> {
        let Some(requests) = requests.as_object() else {
            return Err(Error::transport(
                "an input_required result without an inputRequests object",
            ));
        };
        let mut responses = Map::new();
        for (key, request) in requests {
            let method = request["method"].as_str().unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let result = self.answer(method, &params)?;
            responses.insert(key.clone(), result);
        }
        Ok(Value::Object(responses))
    }
}

/// What a transport does with one JSON-RPC request: send it, hand the notifications that come
/// with the answer to `context`, answer the server's requests, and return the response (or
/// fail, cancelling the request on the server).
pub(crate) trait Exchange: Sync {
    fn session(&self) -> &Session;

    /// Sends `request` and returns the response to it.
    fn exchange(
        &self,
        request: Outgoing<'_>,
        context: CallContext,
        timeout: Duration,
    ) -> impl Future<Output = Result<Response, Error>> + Send;
}

/// Sends one request through `transport` and returns its `result`, with the rules of both
/// eras: the modern `_meta`, a retry with another version on `-32022`, a retry after
/// refreshing the tool list on `-32020` for `tools/call`, and the rounds of `input_required`.
pub(crate) async fn request<T: Exchange>(
    transport: &T,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || async { tool_list(transport, true).await.map(|_| ()) };
    request_loop(transport, method, params, options, refresh, &ValueResult).await
}

/// [`request`] without the tool-list refresh (which itself sends requests).
async fn request_plain<T: Exchange>(
    transport: &T,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || std::future::ready(Ok(()));
    request_loop(transport, method, params, options, refresh, &ValueResult).await
}

async fn request_loop<T, R, F, D>(
    transport: &T,
    method: &str,
    params: Value,
    options: &CallOptions,
    refresh: R,
    decoder: &D,
) -> Result<D::Output, Error>
where
    T: Exchange,
    R: Fn() -> F,
    F: Future<Output = Result<(), Error>>,
    D: Decoder,
{
    let session = transport.session();
    let mut params = params;
    let context = CallContext {
        progress: options.progress.clone(),
        log: options.log.clone(),
    };
    let timeout = options.timeout.unwrap_or(session.settings.timeout);
    let mut version_retries = 0;
    let mut refreshed_headers = false;
    for _round in 0..32 {
        let id = session.next_id();
        let negotiated = session.negotiated();
        let token = options.progress.as_ref().map(|_| id);
        let request = session.outgoing(id, method, &params, negotiated.as_ref(), token)?;
        let answer = transport
            .exchange(request, context.clone(), timeout)
            .await?;
        let modern = negotiated.as_ref().is_some_and(|n| n.modern);
        let expected = (!answer.any_id).then_some(id);
        let decoded = decoder.decode(method, expected, &answer.body);
        drop(answer);
        match decoded {
            Err(Error::Protocol { code, data, .. })
                if modern
                    && code == era::code::UNSUPPORTED_PROTOCOL_VERSION
                    && version_retries < 2
                    && data
                        .as_ref()
                        .and_then(|d| session.settings.protocol.pick(&d["supported"]))
                        .is_some_and(|v| era::is_modern(&v)) =>
            {
                version_retries += 1;
                let version = data
                    .as_ref()
                    .and_then(|d| session.settings.protocol.pick(&d["supported"]))
                    .unwrap_or_default();
                session.set_negotiated(version, true);
            }
            Err(Error::Protocol { code, .. })
                if modern
                    && code == era::code::HEADER_MISMATCH
                    && method == "tools/call"
                    && !refreshed_headers =>
            {
                refreshed_headers = true;
                refresh().await?;
            }
            Err(e) => return Err(e),
            Ok(Step::Done(result)) => return Ok(result),
            Ok(Step::InputRequired(result)) => {
                let responses = session.input_responses(&result["inputRequests"])?;
                let map = params_object(&mut params);
                map.insert("inputResponses".into(), responses);
                match result.get("requestState") {
                    Some(state) => map.insert("requestState".into(), state.clone()),
                    None => map.remove("requestState"),
                };
            }
        }
    }
    Err(Error::transport(format!(
        "{method}: the server kept asking for input (32 rounds)"
    )))
}

fn params_object(params: &mut Value) -> &mut Map<String, Value> {
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    match params {
        Value::Object(map) => map,
        _ => unreachable!("made an object above"),
    }
}

/// `tools/list`, every page; over HTTP (`filter_headers`) tools with invalid `x-mcp-header`
/// annotations are left out and the valid annotations remembered for `tools/call`.
pub(crate) async fn tool_list<T: Exchange>(
    transport: &T,
    filter_headers: bool,
) -> Result<ToolList, Error> {
    let mut list = ToolList::default();
    let mut cursor: Option<String> = None;
    let options = CallOptions::default();
    for page_number in 0..10_000 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = request_plain(transport, "tools/list", params, &options).await?;
        if page_number == 0 {
            list.ttl_ms = page.get("ttlMs").and_then(Value::as_u64);
            list.cache_scope = page
                .get("cacheScope")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(Value::Array(tools)) = page.get("tools") {
            list.tools.extend(tools.iter().cloned());
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => {
                if filter_headers {
                    let mut headers = HashMap::new();
                    list.tools.retain(|tool| {
                        let name = tool["name"].as_str().unwrap_or("").to_owned();
                        match header_params(&tool["inputSchema"]) {
                            Ok(params) => {
                                headers.insert(name, params);
                                true
                            }
                            Err(reason) => {
                                list.rejected.push((name, reason));
                                false
                            }
                        }
                    });
                    *lock(&transport.session().header_params) = headers;
                }
                return Ok(list);
            }
        }
    }
    Err(Error::transport("tools/list did not end after 10000 pages"))
}

/// The `x-mcp-header` parameters of an input schema, or why the annotations are invalid.
pub(crate) fn header_params(schema: &Value) -> Result<HeaderParams, String> {
    fn count(value: &Value) -> usize {
        match value {
            Value::Object(map) => {
                usize::from(map.contains_key("x-mcp-header"))
                    + map.values().map(count).sum::<usize>()
            }
            Value::Array(items) => items.iter().map(count).sum(),
            _ => 0,
        }
    }
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut HeaderParams) -> Result<(), String> {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Ok(());
        };
        for (key, property) in properties {
            path.push(key.clone());
            if let Some(name) = property.get("x-mcp-header") {
                let name = name
                    .as_str()
                    .ok_or_else(|| format!("x-mcp-header of {} is not a string", path.join(".")))?;
                if name.is_empty() {
                    return Err(format!("x-mcp-header of {} is empty", path.join(".")));
                }
                let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
                if !name.chars().all(tchar) {
                    return Err(format!(
                        "x-mcp-header {name:?} of {} is not an HTTP token",
                        path.join(".")
                    ));
                }
                match property.get("type").and_then(Value::as_str) {
                    Some("string" | "integer" | "boolean") => {}
                    other => {
                        return Err(format!(
                            "x-mcp-header {name:?} is on {} of type {}, not string, integer or boolean",
                            path.join("."),
                            other.unwrap_or("(none)")
                        ));
                    }
                }
                if out
                    .iter()
                    .any(|(existing, _)| existing.eq_ignore_ascii_case(name))
                {
                    return Err(format!("x-mcp-header {name:?} appears twice"));
                }
                out.push((name.to_owned(), path.clone()));
            }
            walk(property, path, out)?;
            path.pop();
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out)?;
    if count(schema) != out.len() {
        return Err(
            "x-mcp-header is only allowed on properties reached through `properties` alone"
                .to_owned(),
        );
    }
    Ok(out)
}

/// The header value of an `x-mcp-header` argument, `None` when it is absent or null.
pub(crate) fn header_param_value(arguments: &Value, path: &[String]) -> Option<String> {
    let mut value = arguments;
    for key in path {
        value = value.get(key)?;
    }
    match value {
        Value::String(s) => Some(era::header_value::encode(s)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The `result` of a JSON-RPC response, or its `error` as [`Error::Protocol`].
pub(crate) fn response_result(method: &str, mut answer: Value) -> Result<Value, Error> {
    if let Some(error) = answer.get("error") {
        return Err(Error::Protocol {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            data: error.get("data").cloned(),
        });
    }
    answer
        .get_mut("result")
        .map(Value::take)
        .ok_or_else(|| Error::transport(format!("{method}: the response has no result")))
}

/// `tools/call` over `client`, its result read as the runtime's lenient [`CallToolResult`]:
/// what both transports' `call_tool_with` do.
pub(crate) async fn call_tool<T: Exchange>(
    client: &T,
    name: &str,
    arguments: Map<String, Value>,
    options: &CallOptions,
) -> Result<CallToolResult, Error> {
    let result = request(
        client,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        options,
    )
    .await?;
    serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            "tools/call answered with a result that is not a CallToolResult",
            e,
        )
    })
}

/// `tools/call` over `client`, its result decoded into `T` straight from the response's bytes
/// (see [`decode`]): what both transports' `call_tool_decoded` do.
pub(crate) async fn call_tool_decoded<C: Exchange, T: serde::de::DeserializeOwned + Send>(
    client: &C,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<T, Error> {
    let refresh = || async { tool_list(client, true).await.map(|_| ()) };
    let params = json!({"name": name, "arguments": arguments});
    let options = CallOptions::default();
    let decoder = Typed::<T>::new(name);
    request_loop(client, "tools/call", params, &options, refresh, &decoder).await
}

/// The `serverInfo` of a `server/discover` result.
pub(crate) fn discover_server_info(result: &Value) -> Value {
    result
        .get("_meta")
        .and_then(|m| m.get(meta::SERVER_INFO))
        .or_else(|| result.get("serverInfo"))
        .cloned()
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_params_follow_the_rules() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {
                "n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "number"}}});
        // Sorted: the schema's key order depends on serde_json's `preserve_order`, which this
        // crate does not turn on (a workspace build unifies it in from the generator).
        let mut params = header_params(&schema).expect("valid");
        params.sort();
        assert_eq!(
            params,
            vec![
                ("N".to_owned(), vec!["nested".to_owned(), "n".to_owned()]),
                ("Region".to_owned(), vec!["region".to_owned()]),
            ]
        );
        let arguments = json!({"region": " padded ", "nested": {"n": 42}});
        assert_eq!(
            header_param_value(&arguments, &params[1].1).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            header_param_value(&arguments, &params[0].1).as_deref(),
            Some("42")
        );
        assert_eq!(
            header_param_value(&json!({"region": null}), &params[1].1),
            None
        );
        for bad in [
            json!({"properties": {"v": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"v": {"type": "number", "x-mcp-header": "V"}}}),
            json!({"properties": {"v": {"type": "object", "x-mcp-header": "V"}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "My V"}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "R\u{e9}gion"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"},
                                  "b": {"type": "string", "x-mcp-header": "a"}}}),
            json!({"properties": {"v": {"type": "array",
                "items": {"type": "string", "x-mcp-header": "V"}}}}),
        ] {
            assert!(header_params(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn modern_requests_carry_the_meta_keys() {
        let session = Session::new(Settings::default());
        let negotiated = Negotiated {
            version: "2026-07-28".into(),
            modern: true,
        };
        let params = json!({"name": "x", "_meta": {"mine": 1}});
        let request = session
            .outgoing(7, "tools/call", &params, Some(&negotiated), Some(7))
            .unwrap();
        let message: Value = serde_json::from_str(&request.text).unwrap();
        let meta = &message["params"]["_meta"];
        assert_eq!(meta[meta::PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(meta[meta::CLIENT_CAPABILITIES], json!({}));
        assert_eq!(meta[meta::CLIENT_INFO]["name"], "mcp-bindgen");
        assert_eq!(meta["progressToken"], 7);
        assert_eq!(meta["mine"], 1);
        let params = json!({});
        let legacy = session
            .outgoing(8, "tools/list", &params, None, None)
            .unwrap();
        let legacy: Value = serde_json::from_str(&legacy.text).unwrap();
        assert_eq!(legacy["params"], json!({}));
    }

    #[test]
    fn versions_are_picked_from_what_both_support() {
        let supported = json!(["2025-06-18", "2026-07-28"]);
        assert_eq!(
            Protocol::Auto.pick(&supported).as_deref(),
            Some("2026-07-28")
        );
        assert_eq!(
            Protocol::Legacy.pick(&supported).as_deref(),
            Some("2025-06-18")
        );
        assert_eq!(Protocol::Modern.pick(&json!(["2025-06-18"])), None);
        assert_eq!(Protocol::Auto.pick(&json!(["1900-01-01"])), None);
    }
}
