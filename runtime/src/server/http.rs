//! The loopback MCP server: Streamable HTTP with plain JSON responses, served by hyper on a
//! background thread, answered on the game thread by [`Server::poll`].
//!
//! The HTTP thread checks everything that needs no game state (Host, Origin, method, bearer
//! token, body size, JSON-RPC framing) and queues each request on a bounded queue; `poll` runs
//! at most one of them through the [`Registry`] and hands the reply back. Notifications are
//! answered `202` without reaching the game.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Deserialize;
use tokio::sync::{Semaphore, oneshot, watch};

use super::Registry;
use super::registry::{SUPPORTED_VERSIONS, error};

/// Settings of a [`Server`]: `ServerBuilder::new().port(0).bearer_token(..).listen(registry)`.
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    port: u16,
    bearer_token: Option<String>,
    body_limit: usize,
    queue_capacity: usize,
    max_connections: usize,
    header_timeout: Duration,
    body_timeout: Duration,
    reply_timeout: Duration,
    allowed_origins: Vec<String>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            port: 7100,
            bearer_token: None,
            body_limit: 4 * 1024 * 1024,
            queue_capacity: 256,
            max_connections: 128,
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(10),
            reply_timeout: Duration::from_secs(30),
            allowed_origins: Vec::new(),
        }
    }
}

impl ServerBuilder {
    /// The defaults: port 7100, no token, 4 MiB bodies, 256 queued requests, 128
    /// connections, 5 s for headers, 10 s for a body, 30 s for the game to answer.
    pub fn new() -> Self {
        ServerBuilder::default()
    }

    /// The TCP port on 127.0.0.1 (default 7100; 0 picks a free one, see [`Server::port`]).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request (401 otherwise).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Largest request body accepted, in bytes (413 beyond; default 4 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Requests waiting for `poll` at most (503 with `Retry-After` beyond; default 256).
    pub fn queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity.max(1);
        self
    }

    /// Open connections at most; more are closed at once (default 128).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Time a client has to send its request headers, also between requests on a kept-alive
    /// connection (default 5 s).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Time a client has to send its request body (408 beyond; default 10 s).
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Time the game has to answer a queued request in `poll` (504 beyond; default 30 s).
    pub fn reply_timeout(mut self, timeout: Duration) -> Self {
        self.reply_timeout = timeout;
        self
    }

    /// Also accepts requests whose `Origin` is `origin` (loopback origins always are).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Binds 127.0.0.1 and starts serving `registry`.
    pub fn listen<Ctx>(self, registry: Registry<Ctx>) -> std::io::Result<Server<Ctx>> {
        let listener =
            std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, self.port)))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (jobs_tx, jobs_rx) = std::sync::mpsc::sync_channel(self.queue_capacity);
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let state = Arc::new(State {
            config: self,
            jobs: jobs_tx,
        });
        let thread = std::thread::Builder::new()
            .name(format!("mcp-server-{port}"))
            .spawn(move || runtime.block_on(accept_loop(listener, state, shutdown_rx)))?;
        Ok(Server {
            registry,
            port,
            running: Some(Running {
                jobs: jobs_rx,
                shutdown: shutdown_tx,
                thread: Some(thread),
            }),
        })
    }
}

/// A listening MCP endpoint on 127.0.0.1. It answers only while something calls
/// [`Server::poll`]; call it once per frame.
pub struct Server<Ctx> {
    registry: Registry<Ctx>,
    port: u16,
    running: Option<Running>,
}

struct Running {
    jobs: Receiver<Job>,
    shutdown: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

struct Job {
    body: Bytes,
    reply: oneshot::Sender<Option<String>>,
}

impl<Ctx> std::fmt::Debug for Server<Ctx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("port", &self.port)
            .field("listening", &self.running.is_some())
            .field("registry", &self.registry)
            .finish()
    }
}

impl<Ctx> Server<Ctx> {
    /// Serves `registry` on 127.0.0.1:`port` with the default settings (`port` 0 picks a free
    /// one).
    pub fn listen(registry: Registry<Ctx>, port: u16) -> std::io::Result<Self> {
        ServerBuilder::default().port(port).listen(registry)
    }

    /// The bound TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether the server still listens (`destroy` not called).
    pub fn is_listening(&self) -> bool {
        self.running.is_some()
    }

    /// Answers at most one queued request on this thread, with `ctx`; never blocks. Returns
    /// whether a request was answered. Requests whose client has already gone are dropped
    /// unanswered rather than run.
    pub fn poll(&mut self, ctx: &mut Ctx) -> bool {
        let Some(running) = &self.running else {
            return false;
        };
        loop {
            match running.jobs.try_recv() {
                Ok(job) => {
                    if job.reply.is_closed() {
                        continue;
                    }
                    let text = String::from_utf8_lossy(&job.body);
                    let reply = self.registry.dispatch(ctx, &text);
                    // The client may have gone meanwhile; nothing to do then.
                    let _ = job.reply.send(reply);
                    return true;
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return false,
            }
        }
    }

    /// Stops listening and frees the port. Safe to call more than once. The registry is left
    /// as it was: `Server::listen(server.into_registry(), port)` serves the same tools again.
    pub fn destroy(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.shutdown.send(true);
            if let Some(thread) = running.thread.take() {
                let _ = thread.join();
            }
        }
    }

    /// The tools served.
    pub fn registry(&self) -> &Registry<Ctx> {
        &self.registry
    }

    /// The tools served, to register more or set crash mode.
    pub fn registry_mut(&mut self) -> &mut Registry<Ctx> {
        &mut self.registry
    }

    /// Stops the server and gives its registry back.
    pub fn into_registry(mut self) -> Registry<Ctx> {
        self.destroy();
        let empty = Registry::new("", "");
        std::mem::replace(&mut self.registry, empty)
    }
}

impl<Ctx> Drop for Server<Ctx> {
    fn drop(&mut self) {
        self.destroy();
    }
}

struct State {
    config: ServerBuilder,
    jobs: SyncSender<Job>,
}

async fn accept_loop(
    listener: std::net::TcpListener,
    state: Arc<State>,
    mut shutdown: watch::Receiver<bool>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let connections = Arc::new(Semaphore::new(state.config.max_connections));
    loop {
        tokio::select! {
            _ = shutdown.changed() => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // Over the connection limit: close at once, the game never sees it.
                let Ok(permit) = connections.clone().try_acquire_owned() else { continue };
                let state = state.clone();
                let mut shutdown = shutdown.clone();
                tokio::spawn(async move {
                    let _permit = permit;
                    let service_state = state.clone();
                    let service = service_fn(move |request| {
                        let state = service_state.clone();
                        async move { Ok::<_, Infallible>(handle(request, &state).await) }
                    });
                    let connection = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(state.config.header_timeout)
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        _ = connection => {}
                        _ = shutdown.changed() => {}
                    }
                });
            }
        }
    }
}

fn response(status: StatusCode, body: Option<String>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.clone().map(Bytes::from).unwrap_or_default()));
    *response.status_mut() = status;
    if body.is_some() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    response
}

/// An HTTP error with a JSON-RPC error body, so MCP clients can show the reason.
fn rejection(status: StatusCode, code: i64, message: &str) -> Response<Full<Bytes>> {
    response(status, Some(error(&serde_json::Value::Null, code, message)))
}

async fn handle(request: Request<Incoming>, state: &State) -> Response<Full<Bytes>> {
    let config = &state.config;
    let path = request.uri().path();
    if path != "/mcp" && path != "/" {
        return rejection(StatusCode::NOT_FOUND, -32600, "the MCP endpoint is /mcp");
    }
    // DNS rebinding: a page on another site reaching 127.0.0.1 carries its own Host/Origin.
    if let Some(host) = request.headers().get(header::HOST)
        && !host.to_str().is_ok_and(loopback_host)
    {
        return rejection(
            StatusCode::FORBIDDEN,
            -32600,
            "Host is not a loopback address",
        );
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| loopback_origin(o) || config.allowed_origins.iter().any(|a| a == o));
        if !allowed {
            return rejection(StatusCode::FORBIDDEN, -32600, "Origin is not allowed");
        }
    }
    if request.method() != Method::POST {
        let mut r = rejection(
            StatusCode::METHOD_NOT_ALLOWED,
            -32600,
            "this server answers POST only (no SSE stream, no sessions)",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    if let Some(token) = &config.bearer_token
        && !authorized(request.headers(), token)
    {
        let mut r = rejection(
            StatusCode::UNAUTHORIZED,
            -32600,
            "missing or wrong bearer token",
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"mcp\""),
        );
        return r;
    }
    if let Some(version) = request.headers().get("mcp-protocol-version")
        && !version
            .to_str()
            .is_ok_and(|v| SUPPORTED_VERSIONS.contains(&v))
    {
        return rejection(
            StatusCode::BAD_REQUEST,
            -32600,
            &format!(
                "unsupported MCP-Protocol-Version; supported: {}",
                SUPPORTED_VERSIONS.join(", ")
            ),
        );
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > config.body_limit) {
        return rejection(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            "request body too large",
        );
    }
    let body = Limited::new(request.into_body(), config.body_limit);
    let body = match tokio::time::timeout(config.body_timeout, body.collect()).await {
        Err(_) => {
            return rejection(
                StatusCode::REQUEST_TIMEOUT,
                -32600,
                "request body not received in time",
            );
        }
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return rejection(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                "request body too large",
            );
        }
        Ok(Err(_)) => {
            return rejection(
                StatusCode::BAD_REQUEST,
                -32600,
                "could not read the request body",
            );
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    match classify(&body) {
        Kind::Invalid(code, message) => {
            return rejection(StatusCode::BAD_REQUEST, code, &message);
        }
        Kind::NoReply => return response(StatusCode::ACCEPTED, None),
        Kind::Request => {}
    }
    let (reply_tx, reply_rx) = oneshot::channel();
    match state.jobs.try_send(Job {
        body,
        reply: reply_tx,
    }) {
        Ok(()) => {}
        Err(TrySendError::Full(_)) => {
            let mut r = rejection(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "the game's request queue is full; retry shortly",
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return r;
        }
        Err(TrySendError::Disconnected(_)) => {
            return rejection(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "the server is shutting down",
            );
        }
    }
    match tokio::time::timeout(config.reply_timeout, reply_rx).await {
        Ok(Ok(Some(text))) => response(StatusCode::OK, Some(text)),
        Ok(Ok(None)) => response(StatusCode::ACCEPTED, None),
        Ok(Err(_)) => rejection(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "the server is shutting down",
        ),
        Err(_) => rejection(
            StatusCode::GATEWAY_TIMEOUT,
            -32000,
            "the game did not poll the server in time",
        ),
    }
}

enum Kind {
    Request,
    NoReply,
    Invalid(i64, String),
}

/// Just enough JSON-RPC framing to route a message: requests go to the game, notifications
/// and responses are acknowledged here, garbage is refused here.
fn classify(body: &[u8]) -> Kind {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(default, deserialize_with = "present")]
        id: Option<serde::de::IgnoredAny>,
    }
    fn present<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<serde::de::IgnoredAny>, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(Some)
    }
    match serde_json::from_slice::<Peek>(body) {
        Ok(Peek { id: Some(_) }) => Kind::Request,
        Ok(Peek { id: None }) => Kind::NoReply,
        Err(e) if e.is_syntax() || e.is_eof() => Kind::Invalid(-32700, format!("Parse error: {e}")),
        Err(e) => Kind::Invalid(
            -32600,
            format!("Invalid Request: expected one JSON-RPC message object ({e})"),
        ),
    }
}

fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().map(|h| format!("[{h}]"))
    } else {
        host.split(':').next().map(str::to_owned)
    };
    matches!(name.as_deref(), Some("127.0.0.1" | "localhost" | "[::1]"))
}

fn loopback_origin(origin: &str) -> bool {
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(loopback_host)
}

/// Constant-time comparison of the bearer token.
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Some(given) = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
    else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(loopback_host("127.0.0.1:7100"));
        assert!(loopback_host("localhost"));
        assert!(loopback_host("[::1]:80"));
        assert!(!loopback_host("evil.example:7100"));
        assert!(!loopback_host("127.0.0.1.evil.example"));
        assert!(loopback_origin("http://localhost:3000"));
        assert!(!loopback_origin("null"));
        assert!(!loopback_origin("https://evil.example"));
    }
}
