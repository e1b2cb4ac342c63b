//! The protocol engine both transports share: the session's state, era negotiation (modern
//! first, the legacy fallback where the 2026-07-28 dual-era rules say), the request loop (the
//! modern `_meta`, version retries, the `x-mcp-header` refresh, `input_required` rounds),
//! paging, and what an HTTP refusal means. A [`Transport`] only moves messages and reports what
//! happened ([`Reply`]); everything here is written once, for HTTP and stdio alike, over a
//! [`Connection`] (the session and its transport).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_bindgen_diff::param_headers::{ParamHeader, param_headers};
use serde_json::{Map, Value, json};

use super::decode::{Decoder, Step, TypedResult, ValueResult};
use super::drift::{CatalogList, Drift};
use super::outgoing::{MetaKeys, ModernKeys};
use super::transport::{Reply, Transport};
use super::{
    CallContext, CallOptions, LogMessage, Outgoing, Progress, Response, Settings, ToolList, lock,
};
use crate::era::{self, Era, meta};
use crate::{CallToolResult, Error};

/// The negotiated version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub(crate) version: String,
    pub(crate) era: Era,
}

impl Negotiated {
    pub(crate) fn is_modern(&self) -> bool {
        self.era == Era::Stateless
    }
}

/// Session state both transports share.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) settings: Settings,
    next_id: AtomicU64,
    negotiated: Mutex<Option<Negotiated>>,
    server_info: Mutex<Value>,
    /// The server's `capabilities` (from `initialize` or `server/discover`).
    capabilities: Mutex<Value>,
    header_params: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// The drift checks of the generated modules this client serves.
    pub(crate) drift: Drift,
    /// Woken by each change to the tools the server announces, for the application's
    /// handlers (see [`super::changes`]).
    pub(crate) tools_changed: std::sync::Arc<tokio::sync::Notify>,
    /// The client capabilities with the tasks extension, for 2026-07-28 calls made as tasks.
    with_tasks: Value,
}

impl Session {
    pub(crate) fn new(settings: Settings) -> Self {
        Session {
            drift: Drift::new(settings.drift_policy, settings.on_drift.clone()),
            next_id: AtomicU64::new(1),
            negotiated: Mutex::new(None),
            server_info: Mutex::new(Value::Null),
            capabilities: Mutex::new(Value::Null),
            header_params: Mutex::new(HashMap::new()),
            tools_changed: Arc::default(),
            with_tasks: {
                let mut capabilities = settings.capabilities.clone();
                if let Value::Object(map) = &mut capabilities {
                    let extensions = map
                        .entry("extensions")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(extensions) = extensions {
                        extensions.insert(era::TASKS_EXTENSION.into(), json!({}));
                    }
                }
                capabilities
            },
            settings,
        }
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.negotiated).clone()
    }

    pub(crate) fn set_negotiated(&self, version: String, era: Era) {
        *lock(&self.negotiated) = Some(Negotiated { version, era });
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

    pub(crate) fn capabilities(&self) -> Value {
        lock(&self.capabilities).clone()
    }

    pub(crate) fn set_capabilities(&self, capabilities: Value) {
        *lock(&self.capabilities) = capabilities;
    }

    /// Whether the server says it announces changes to its tools (`tools.listChanged`).
    pub(crate) fn announces_tool_changes(&self) -> bool {
        lock(&self.capabilities)["tools"]["listChanged"] == Value::Bool(true)
    }

    /// The server's tools changed (a `list_changed` notification, or a listen stream
    /// reopened after a gap in which one may have been missed): the drift checks are stale,
    /// and the application's handlers get the new list.
    pub(crate) fn tools_changed(&self) {
        self.drift.list_changed();
        if !self.settings.on_tools_changed.is_empty() {
            self.tools_changed.notify_one();
        }
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
        as_task: bool,
    ) -> Result<Outgoing<'a>, Error> {
        let keys = MetaKeys {
            modern: version.filter(|n| n.is_modern()).map(|n| ModernKeys {
                version: &n.version,
                capabilities: if as_task {
                    &self.with_tasks
                } else {
                    &self.settings.capabilities
                },
                client_name: &self.settings.client_name,
                client_version: &self.settings.client_version,
            }),
            progress_token,
        };
        let mut request = Outgoing::new(id, method, params, keys)?;
        if method == "tools/call"
            && version.is_some_and(Negotiated::is_modern)
            && let Some(tool) = params["name"].as_str()
            && let Some(params_of_tool) = lock(&self.header_params).get(tool)
        {
            request.mirrored = params_of_tool
                .iter()
                .filter_map(|param| {
                    let value = param.argument(&params["arguments"])?;
                    Some((param.name.clone(), header_text(value)?))
                })
                .collect();
        }
        request.era = version.cloned();
        Ok(request)
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
            Some("notifications/tools/list_changed") => self.tools_changed(),
            Some("notifications/prompts/list_changed" | "notifications/resources/list_changed") => {
                self.drift.catalog_changed();
            }
            _ => {}
        }
    }

    /// The result of the server's request `method` (a legacy-era request or a modern-era
    /// input request alike): `ping` answers `{}`, with or without a handler; otherwise the
    /// request handler, or `-32601`.
    pub(crate) fn answer(&self, method: &str, params: &Value) -> Result<Value, Error> {
        if method == "ping" {
            return Ok(json!({}));
        }
        match &self.settings.requests {
            Some(handler) => handler(method, params),
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
        match self.answer(method, &params) {
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

/// A session and the transport that carries it: what every rule of this file works on, and
/// what a client ([`super::McpClient`]) holds.
#[derive(Debug)]
pub(crate) struct Connection<T> {
    pub(crate) session: Arc<Session>,
    pub(crate) transport: T,
    /// What runs beside the requests on the client's behalf (the application's tool-change
    /// handlers): ended with the connection.
    pub(crate) tasks: Mutex<Vec<tokio::task::AbortHandle>>,
}

impl<T> Connection<T> {
    pub(crate) fn new(session: Arc<Session>, transport: T) -> Self {
        Connection {
            session,
            transport,
            tasks: Mutex::new(Vec::new()),
        }
    }
}

impl<T> Drop for Connection<T> {
    fn drop(&mut self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}

/// Sends one request (written with a new id) and returns the id and what came back.
async fn send<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: &Value,
    version: Option<&Negotiated>,
    options: &CallOptions,
    context: &CallContext,
    timeout: Duration,
) -> Result<(u64, Reply), Error> {
    let session = &conn.session;
    let id = session.next_id();
    let progress = options.progress.is_some().then_some(id);
    let request = session.outgoing(id, method, params, version, progress, options.as_task)?;
    let reply = conn
        .transport
        .exchange(request, context.clone(), timeout)
        .await?;
    #[cfg(feature = "tracing")]
    crate::trace::record("id", id);
    Ok((id, reply))
}

/// The response in a reply, or the error the reply means: a refusal with a JSON-RPC error is
/// that error's response; 401 and 403 are [`Error::Auth`]; any other refusal, and no response
/// at all, a transport error naming the peer.
fn into_response<T: Transport>(
    conn: &Connection<T>,
    reply: Reply,
    method: &str,
    params: &Value,
) -> Result<Response, Error> {
    match reply {
        Reply::Response(response) => Ok(response),
        Reply::Refused {
            status,
            www_authenticate,
            ..
        } if status == http::StatusCode::UNAUTHORIZED || status == http::StatusCode::FORBIDDEN => {
            Err(Error::Auth {
                status: Some(status.as_u16()),
                message: format!("{} answered HTTP {status}", conn.transport.peer()),
                www_authenticate,
            })
        }
        Reply::Refused {
            error: Some(error), ..
        } => Ok(error),
        Reply::Refused { status, body, .. } => Err(refused(&conn.transport.peer(), status, &body)),
        Reply::Accepted => Err(Error::transport(format!(
            "{}: the server sent no response",
            describe(method, params)
        ))),
    }
}

/// `tools/call echo`, `initialize`: what a request is, for messages.
pub(crate) fn describe(method: &str, params: &Value) -> String {
    match params["name"].as_str() {
        Some(name) if method == "tools/call" || method == "prompts/get" => {
            format!("{method} {name}")
        }
        _ => method.to_owned(),
    }
}

/// `URL answered HTTP 500 Internal Server Error: <the body's first 500 characters>`.
pub(crate) fn refused(peer: &str, status: http::StatusCode, body: &str) -> Error {
    let mut message = format!("{peer} answered HTTP {status}");
    let body = body.trim();
    if !body.is_empty() {
        let cut: String = body.chars().take(500).collect();
        message.push_str(&format!(": {cut}"));
    }
    Error::transport(message)
}

/// Sends one request through `transport` and returns its `result`, with the rules of both
/// eras: the modern `_meta`, a retry with another version on `-32022`, a retry after
/// refreshing the tool list on `-32020` for `tools/call`, and the rounds of `input_required`.
pub(crate) async fn request<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || async { tool_list(conn).await.map(|_| ()) };
    request_loop(conn, method, params, options, refresh, &ValueResult).await
}

/// [`request`] without the tool-list refresh (which itself sends requests).
async fn request_plain<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || std::future::ready(Ok(()));
    request_loop(conn, method, params, options, refresh, &ValueResult).await
}

/// One request and its rounds; with the `tracing` feature, inside a `mcp_request` span
/// (method, tool, transport, protocol version, the last attempt's id, outcome and duration).
async fn request_loop<T, R, F, D>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
    refresh: R,
    decoder: &D,
) -> Result<D::Output, Error>
where
    T: Transport,
    R: Fn() -> F,
    F: Future<Output = Result<(), Error>>,
    D: Decoder,
{
    #[cfg(feature = "tracing")]
    {
        use tracing::Instrument;
        use tracing::field::Empty;
        let span = tracing::debug_span!(
            "mcp_request",
            method,
            tool = params["name"].as_str().filter(|_| method == "tools/call"),
            transport = T::NAME,
            version = Empty,
            id = Empty,
            outcome = Empty,
            elapsed_ms = Empty,
        );
        if span.is_disabled() {
            return request_rounds(conn, method, params, options, refresh, decoder).await;
        }
        tracing::trace!(parent: &span, %params, "request");
        let started = Instant::now();
        let result = request_rounds(conn, method, params, options, refresh, decoder)
            .instrument(span.clone())
            .await;
        let elapsed = started.elapsed();
        span.record("elapsed_ms", elapsed.as_secs_f64() * 1e3);
        match &result {
            Ok(_) => {
                span.record("outcome", "ok");
                tracing::debug!(parent: &span, ?elapsed, "request answered");
            }
            Err(error) => {
                span.record("outcome", "error");
                tracing::debug!(parent: &span, ?elapsed, %error, "request failed");
            }
        }
        result
    }
    #[cfg(not(feature = "tracing"))]
    request_rounds(conn, method, params, options, refresh, decoder).await
}

async fn request_rounds<T, R, F, D>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
    refresh: R,
    decoder: &D,
) -> Result<D::Output, Error>
where
    T: Transport,
    R: Fn() -> F,
    F: Future<Output = Result<(), Error>>,
    D: Decoder,
{
    let session = &conn.session;
    let mut params = params;
    let context = CallContext {
        progress: options.progress.clone(),
        log: options.log.clone(),
    };
    let timeout = options.timeout.unwrap_or(session.settings.timeout);
    let mut version_retries = 0;
    let mut refreshed_headers = false;
    for _round in 0..32 {
        let negotiated = session.negotiated();
        #[cfg(feature = "tracing")]
        if let Some(negotiated) = &negotiated {
            crate::trace::record("version", negotiated.version.as_str());
        }
        let (id, reply) = send(
            conn,
            method,
            &params,
            negotiated.as_ref(),
            options,
            &context,
            timeout,
        )
        .await?;
        let answer = into_response(conn, reply, method, &params)?;
        #[cfg(feature = "tracing")]
        tracing::trace!(response = %String::from_utf8_lossy(&answer.body), "response");
        let modern = negotiated.as_ref().is_some_and(|n| n.is_modern());
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
                #[cfg(feature = "tracing")]
                tracing::info!(method, %version, "the server asked for another version: retrying");
                session.set_negotiated(version, Era::Stateless);
            }
            Err(Error::Protocol { code, .. })
                if modern
                    && code == era::code::HEADER_MISMATCH
                    && method == "tools/call"
                    && !refreshed_headers =>
            {
                refreshed_headers = true;
                #[cfg(feature = "tracing")]
                tracing::info!(
                    method,
                    "the server's headers disagree with its tool list: refreshing it, then retrying"
                );
                refresh().await?;
            }
            Err(e) => return Err(e),
            Ok(Step::Done(result)) => return Ok(result),
            Ok(Step::InputRequired(result)) => {
                #[cfg(feature = "tracing")]
                tracing::debug!(
                    method,
                    "the server asked for input: answering, then retrying"
                );
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

/// Every page of a list method: the items under `key`, and the first page's caching hints.
pub(crate) struct Pages {
    pub(crate) items: Vec<Value>,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) cache_scope: Option<String>,
}

/// Every page of the list method `method` (`tools/list`, `prompts/list`, ...), following
/// `nextCursor` (10,000 pages at most).
pub(crate) async fn pages<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    key: &str,
) -> Result<Pages, Error> {
    let mut pages = Pages {
        items: Vec::new(),
        ttl_ms: None,
        cache_scope: None,
    };
    let mut cursor: Option<String> = None;
    let options = CallOptions::default();
    for page_number in 0..10_000 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = request_plain(conn, method, params, &options).await?;
        if page_number == 0 {
            pages.ttl_ms = page.get("ttlMs").and_then(Value::as_u64);
            pages.cache_scope = page
                .get("cacheScope")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(Value::Array(items)) = page.get(key) {
            pages.items.extend(items.iter().cloned());
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(pages),
        }
    }
    Err(Error::transport(format!(
        "{method} did not end after 10000 pages"
    )))
}

/// `tools/list`, every page; where the transport mirrors `x-mcp-header` annotations, tools
/// with invalid ones are left out and the valid ones remembered for `tools/call`. The list
/// renews the drift checks.
pub(crate) async fn tool_list<T: Transport>(conn: &Connection<T>) -> Result<ToolList, Error> {
    let session = &conn.session;
    let epoch = session.drift.epoch();
    let pages = pages(conn, "tools/list", "tools").await?;
    let mut list = ToolList {
        tools: pages.items,
        ttl_ms: pages.ttl_ms,
        cache_scope: pages.cache_scope,
        rejected: Vec::new(),
    };
    if T::MIRRORS_HEADERS {
        let mut headers = HashMap::new();
        list.tools.retain(|tool| {
            let name = tool["name"].as_str().unwrap_or("").to_owned();
            match param_headers(&tool["inputSchema"]) {
                Ok(params) => {
                    headers.insert(name, params);
                    true
                }
                Err(invalid) => {
                    list.rejected.push((name, invalid.to_string()));
                    false
                }
            }
        });
        *lock(&conn.session.header_params) = headers;
    }
    session.drift.observe(
        &list,
        epoch,
        session.negotiated().is_some_and(|n| n.is_modern()),
    );
    Ok(list)
}

/// `prompts/list`, `resources/list` and `resources/templates/list`, every page of each, for
/// the drift checks of the modules' catalogs: those of the three some module uses. A list
/// the server does not serve (`-32601`) is empty: what a module used from it is gone.
pub(crate) async fn catalog_list<T: Transport>(conn: &Connection<T>) -> Result<CatalogList, Error> {
    let session = &conn.session;
    let epoch = session.drift.catalog_epoch();
    let needs = session.drift.catalog_needs();
    let mut list = CatalogList::default();
    for (method, key, needed) in [
        ("prompts/list", "prompts", needs.prompts),
        ("resources/list", "resources", needs.resources),
        (
            "resources/templates/list",
            "resourceTemplates",
            needs.templates,
        ),
    ] {
        if !needed {
            continue;
        }
        let pages = match pages(conn, method, key).await {
            Ok(pages) => pages,
            Err(Error::Protocol { code: -32601, .. }) => continue,
            Err(e) => return Err(e),
        };
        list.ttl_ms = match (list.ttl_ms, pages.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match key {
            "prompts" => list.prompts = pages.items,
            "resources" => list.resources = pages.items,
            _ => list.templates = pages.items,
        }
    }
    session.drift.observe_catalog(
        &list,
        epoch,
        session.negotiated().is_some_and(|n| n.is_modern()),
    );
    Ok(list)
}

/// An `x-mcp-header` argument as its header carries it (strings encoded where they must be),
/// `None` for a value no header can carry.
pub(crate) fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(era::header_value::encode(s)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `tools/call` over `client`, its result read as the runtime's lenient [`CallToolResult`]:
/// what both transports' `call_tool_with` do.
pub(crate) async fn call_tool<T: Transport>(
    conn: &Connection<T>,
    name: &str,
    arguments: Map<String, Value>,
    options: &CallOptions,
) -> Result<CallToolResult, Error> {
    let result = request(
        conn,
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
pub(crate) async fn call_tool_decoded<C: Transport, T: serde::de::DeserializeOwned + Send>(
    conn: &Connection<C>,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<T, Error> {
    let refresh = || async { tool_list(conn).await.map(|_| ()) };
    let params = json!({"name": name, "arguments": arguments});
    let options = CallOptions::default();
    let decoder = TypedResult::<T>::new(name);
    request_loop(conn, "tools/call", params, &options, refresh, &decoder).await
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

/// Finds the era, once per connection, with the same rules over every transport:
///
/// - a modern `server/discover` first (unless a legacy version is pinned); a result listing
///   our version settles it, another modern version is tried next (at most three times), a
///   `-32022` names the versions to pick from, and a modern error code ends the connect;
/// - a `-32601` with HTTP 404 is a modern server without `server/discover` (the 2026-07-28
///   answer to an unknown method); over stdio there is no status, so a `-32601` there, like
///   any other answer (an error, a 4xx without a modern error, a 202, a result without
///   `supportedVersions`, or silence), means a legacy server: `initialize` follows, where
///   [`Protocol::Auto`](super::Protocol::Auto) allows it;
/// - the whole connect has one time budget (the client's timeout): when a fallback is
///   allowed, the probe may take half of it and `initialize` the rest, so a silent server
///   fails within the budget with a message naming both steps.
pub(crate) async fn negotiate<T: Transport>(conn: &Connection<T>) -> Result<(), Error> {
    #[cfg(feature = "tracing")]
    {
        use tracing::Instrument;
        let span = tracing::debug_span!(
            "mcp_connect",
            peer = %conn.transport.peer(),
            transport = T::NAME,
            version = tracing::field::Empty,
        );
        let result = negotiate_era(conn).instrument(span.clone()).await;
        match (&result, conn.session.negotiated()) {
            (Ok(()), Some(negotiated)) => {
                span.record("version", negotiated.version.as_str());
                tracing::debug!(
                    parent: &span,
                    version = %negotiated.version,
                    era = if negotiated.is_modern() { "2026-07-28" } else { "legacy" },
                    "negotiated"
                );
            }
            (Ok(()), None) => {}
            (Err(error), _) => tracing::debug!(parent: &span, %error, "connect failed"),
        }
        result
    }
    #[cfg(not(feature = "tracing"))]
    negotiate_era(conn).await
}

async fn negotiate_era<T: Transport>(conn: &Connection<T>) -> Result<(), Error> {
    let session = &conn.session;
    let protocol = session.settings.protocol.clone();
    let budget = session.settings.timeout;
    let deadline = Instant::now() + budget;
    let (mut version, first_era) = protocol.first();
    if first_era == Era::Session {
        return initialize(conn, &version, deadline, false).await;
    }
    let probe_budget = if protocol.may_fall_back() {
        budget / 2
    } else {
        budget
    };
    for _ in 0..3 {
        let probe = discover(conn, &version, probe_budget).await?;
        let reason = match probe {
            Probe::Modern {
                server_info,
                capabilities,
            } => {
                session.set_negotiated(version, Era::Stateless);
                session.set_server_info(server_info);
                session.set_capabilities(capabilities);
                return Ok(());
            }
            Probe::Pick(supported) => match protocol.pick(&supported) {
                Some(next) if era::is_modern(&next) => {
                    version = next;
                    continue;
                }
                Some(legacy) => return initialize(conn, &legacy, deadline, false).await,
                None => {
                    return Err(Error::transport(format!(
                        "{} supports no protocol version this client speaks ({protocol:?}): \
                         it offers {supported}",
                        conn.transport.peer()
                    )));
                }
            },
            Probe::Legacy(reason) => reason,
            Probe::Silent(reason) => {
                if protocol.may_fall_back() {
                    #[cfg(feature = "tracing")]
                    tracing::info!(%reason, "no answer to server/discover: trying initialize");
                    return initialize(conn, era::LATEST_LEGACY, deadline, true).await;
                }
                reason
            }
        };
        if protocol.may_fall_back() {
            #[cfg(feature = "tracing")]
            tracing::info!(%reason, "not a 2026-07-28 server: falling back to initialize");
            return initialize(conn, era::LATEST_LEGACY, deadline, false).await;
        }
        return Err(Error::transport(format!(
            "{} does not speak MCP {version} ({reason}); it may speak a legacy version: use \
             Protocol::Auto or Protocol::Legacy",
            conn.transport.peer()
        )));
    }
    Err(Error::transport(format!(
        "{}: no protocol version agreed after 3 tries",
        conn.transport.peer()
    )))
}

/// What a `server/discover` probe found.
enum Probe {
    /// The server speaks the version asked for.
    Modern {
        server_info: Value,
        capabilities: Value,
    },
    /// It speaks others: these (`supportedVersions`, or a `-32022`'s `data.supported`).
    Pick(Value),
    /// It is no modern server: why.
    Legacy(String),
    /// It did not answer in time.
    Silent(String),
}

async fn discover<T: Transport>(
    conn: &Connection<T>,
    version: &str,
    timeout: Duration,
) -> Result<Probe, Error> {
    let negotiated = Negotiated {
        version: version.to_owned(),
        era: Era::Stateless,
    };
    let params = json!({});
    let context = CallContext::default();
    let sent = send(
        conn,
        "server/discover",
        &params,
        Some(&negotiated),
        &CallOptions::default(),
        &context,
        timeout,
    )
    .await;
    let (id, reply) = match sent {
        Ok(sent) => sent,
        Err(e @ Error::Timeout { .. }) => return Ok(Probe::Silent(e.to_string())),
        Err(e) => return Err(e),
    };
    let (response, status) = match reply {
        Reply::Response(response) => (response, None),
        Reply::Refused {
            status,
            error: Some(error),
            ..
        } if status != http::StatusCode::UNAUTHORIZED && status != http::StatusCode::FORBIDDEN => {
            (error, Some(status))
        }
        Reply::Refused {
            status,
            body,
            error: None,
            ..
        } if status.is_client_error()
            && status != http::StatusCode::UNAUTHORIZED
            && status != http::StatusCode::FORBIDDEN =>
        {
            return Ok(Probe::Legacy(format!("HTTP {status}: {}", body.trim())));
        }
        Reply::Accepted => return Ok(Probe::Legacy("a 202 to a request".to_owned())),
        refusal => {
            return Err(into_response(conn, refusal, "server/discover", &params)
                .err()
                .unwrap_or_else(|| Error::transport("server/discover: unexpected answer")));
        }
    };
    match response.result("server/discover", id) {
        Ok(result) => match result.get("supportedVersions").filter(|v| v.is_array()) {
            Some(supported)
                if supported
                    .as_array()
                    .is_some_and(|s| s.iter().any(|v| v == version)) =>
            {
                Ok(Probe::Modern {
                    server_info: discover_server_info(&result),
                    capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
                })
            }
            Some(supported) => Ok(Probe::Pick(supported.clone())),
            None => Ok(Probe::Legacy(
                "server/discover answered without supportedVersions".to_owned(),
            )),
        },
        Err(Error::Protocol { code, data, .. })
            if code == era::code::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            Ok(Probe::Pick(
                data.map(|mut d| d["supported"].take())
                    .unwrap_or(Value::Null),
            ))
        }
        Err(e @ Error::Protocol { code, .. }) if era::code::is_modern(code) => Err(e),
        Err(Error::Protocol { code, .. })
            if code == -32601 && status == Some(http::StatusCode::NOT_FOUND) =>
        {
            Ok(Probe::Modern {
                server_info: Value::Null,
                capabilities: Value::Null,
            })
        }
        Err(Error::Protocol { code, message, .. }) => Ok(Probe::Legacy(format!(
            "server/discover answered {code} {message}"
        ))),
        Err(e) => Err(e),
    }
}

/// The legacy handshake: `initialize` asking for `version`, then `notifications/initialized`,
/// within what is left of the connect's budget (`after_silence`: the probe went unanswered,
/// which a timeout here names too).
async fn initialize<T: Transport>(
    conn: &Connection<T>,
    version: &str,
    deadline: Instant,
    after_silence: bool,
) -> Result<(), Error> {
    let session = &conn.session;
    let budget = session.settings.timeout;
    let left = deadline.saturating_duration_since(Instant::now());
    let params = session.initialize_params(version);
    let context = CallContext::default();
    let (id, reply) = match send(
        conn,
        "initialize",
        &params,
        None,
        &CallOptions::default(),
        &context,
        left,
    )
    .await
    {
        Err(Error::Timeout { .. }) if after_silence => {
            return Err(Error::Timeout {
                message: format!(
                    "{} answered neither server/discover (the 2026-07-28 probe) nor \
                     initialize (the legacy handshake){}",
                    conn.transport.peer(),
                    conn.transport.printed_instead()
                ),
                after: budget,
            });
        }
        other => other?,
    };
    let result = into_response(conn, reply, "initialize", &params)?.result("initialize", id)?;
    let agreed = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(version)
        .to_owned();
    session.set_negotiated(agreed.clone(), Era::Session);
    session.set_server_info(result.get("serverInfo").cloned().unwrap_or(Value::Null));
    session.set_capabilities(result.get("capabilities").cloned().unwrap_or(Value::Null));
    let negotiated = Negotiated {
        version: agreed,
        era: Era::Session,
    };
    let left = deadline.saturating_duration_since(Instant::now());
    conn.transport
        .notify(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            negotiated,
            left.max(Duration::from_secs(1)),
        )
        .await?;
    conn.transport.initialized();
    Ok(())
}

#[cfg(test)]
mod tests;
