//! The loopback MCP server's HTTP side: Streamable HTTP served by hyper on a background
//! thread, answered on the game thread by [`Server::poll`] / [`Server::poll_for`] (`game.rs`).
//!
//! The HTTP thread checks everything that needs no game state (path, Host, Origin, method,
//! bearer token, body size, UTF-8, JSON-RPC framing, the protocol era and its `_meta` and
//! `Mcp-*` headers) and queues each request on a bounded queue; `poll` runs queued requests
//! through the [`Registry`] and hands the replies back. Notifications are answered `202`
//! without reaching the game. A reply is one JSON body, or, when the handler sends progress or
//! log notifications the request asked for, an SSE stream of those notifications and then the
//! reply.
//!
//! Clients listen for changes to the tools on streams the HTTP thread serves alone: a legacy
//! session's GET stream, and a 2026-07-28 `subscriptions/listen` request. At the end of each
//! `poll` the game thread hands what changed to [`Listeners::announce`], which wakes those
//! streams; nothing else runs per frame for them.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::{Body, Frame, Incoming as IncomingBody};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Notify, mpsc, watch};

use super::Registry;
use super::announce::{self, Listeners, Next, Subscription, Wants};
use super::deferred::Waiters;
use super::game::{Running, Server};
use super::protected::ProtectedResource;
use super::wire::{Era, Headers, Incoming, Outbound, Received, Rejected, Reply, error, receive};
use crate::era;

/// Settings of a [`Server`]: `ServerBuilder::new().port(0).bearer_token(..).listen(registry)`.
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    port: u16,
    path: String,
    bearer_tokens: Vec<String>,
    oauth: Option<ProtectedResource>,
    body_limit: usize,
    queue_capacity: usize,
    max_connections: usize,
    header_timeout: Duration,
    body_timeout: Duration,
    reply_timeout: Duration,
    keep_alive: Duration,
    stall_timeout: Duration,
    allowed_origins: Vec<String>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            port: 7100,
            path: "/mcp".to_owned(),
            bearer_tokens: Vec::new(),
            oauth: None,
            body_limit: 4 * 1024 * 1024,
            queue_capacity: 256,
            max_connections: 128,
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(10),
            reply_timeout: Duration::from_secs(30),
            keep_alive: Duration::from_secs(15),
            stall_timeout: Duration::from_secs(30),
            allowed_origins: Vec::new(),
        }
    }
}

impl ServerBuilder {
    /// The defaults: port 7100, endpoint `/mcp`, no token, 4 MiB bodies, 256 queued requests,
    /// 128 connections, 5 s for headers, 10 s for a body, 30 s for the game to answer, a
    /// keep-alive every 15 s on change streams, 30 s before a stalled change stream is closed.
    pub fn new() -> Self {
        ServerBuilder::default()
    }

    /// The TCP port on 127.0.0.1 (default 7100; 0 picks a free one, see [`Server::port`]).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The path of the MCP endpoint (default `/mcp`); every other path is 404.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request (401 otherwise). Called more
    /// than once, each token is accepted and is a client of its own: the tasks one token's
    /// client makes, and the request states it is sent, are not another's. Without a token
    /// the server has one client, whatever `Authorization` a request carries.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_tokens.push(token.into());
        self
    }

    /// Protects the endpoint with OAuth 2.1, as the MCP authorization spec asks of a server:
    /// its protected resource metadata published, a request accepted when the resource's
    /// check vouches for its bearer token, `401` with the challenge an MCP client signs in from
    /// otherwise (see [`ProtectedResource`]). The subject the check names owns the tasks its
    /// requests make. With [`bearer_token`](Self::bearer_token)s too, either is accepted.
    pub fn oauth(mut self, resource: ProtectedResource) -> Self {
        self.oauth = Some(resource);
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

    /// Open connections at most (default 128). When a new connection would exceed it, the
    /// connection idle the longest (no request in flight) is closed to make room; when every
    /// connection has a request in flight, the new one is closed.
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

    /// Time the game has to take up a queued request in `poll` (504 beyond; default 30 s). A
    /// deferred call ([`super::CallHandler`]) then has its own deadline.
    pub fn reply_timeout(mut self, timeout: Duration) -> Self {
        self.reply_timeout = timeout;
        self
    }

    /// How often a quiet change stream (a legacy GET stream, a `subscriptions/listen`
    /// stream) gets an SSE comment, so that proxies and clients keep it open (default 15 s).
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval.max(Duration::from_millis(10));
        self
    }

    /// How long a change stream may stay behind, with notifications waiting that its client
    /// does not read, before the server closes it and its connection (default 30 s). What
    /// waits on a stream is bounded whatever this is: each kind of change once, each updated
    /// resource it subscribed to once, and the latest status of each task it named.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// Also accepts requests whose `Origin` is `origin` (loopback origins always are).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Binds 127.0.0.1 and starts serving `registry`. A busy port is an error of kind
    /// `AddrInUse` whose message names the address.
    pub fn listen<Ctx>(self, mut registry: Registry<Ctx>) -> std::io::Result<Server<Ctx>> {
        // What was registered before anyone could connect is no change to announce.
        registry.announce_with(|_| {});
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let named = |e: std::io::Error| {
            std::io::Error::new(e.kind(), format!("cannot listen on {address}: {e}"))
        };
        let listener = std::net::TcpListener::bind(address).map_err(named)?;
        listener.set_nonblocking(true).map_err(named)?;
        let port = listener.local_addr()?.port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (jobs_tx, jobs_rx) = std::sync::mpsc::sync_channel(self.queue_capacity);
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let queued = Arc::new(AtomicUsize::new(0));
        let (listeners, kicked) = Listeners::with_announcer(self.stall_timeout);
        let listeners = Arc::new(listeners);
        let announcer = listeners.clone().announcer(kicked);
        let events = registry.events.clone();
        let state = Arc::new(State {
            events: events.clone(),
            listeners: listeners.clone(),
            waiters: registry.waiters.clone(),
            config: self,
            port,
            jobs: jobs_tx,
            queued: queued.clone(),
            connections: Mutex::new(Connections::default()),
        });
        let thread = std::thread::Builder::new()
            .name(format!("mcp-server-{port}"))
            .spawn(move || {
                runtime.spawn(announcer);
                runtime.block_on(accept_loop(listener, state, shutdown_rx));
            })?;
        Ok(Server::started(
            registry,
            port,
            Running {
                jobs: jobs_rx,
                queued,
                listeners,
                events,
                shutdown: shutdown_tx,
                thread: Some(thread),
            },
        ))
    }
}

struct State {
    config: ServerBuilder,
    /// The port listened on (the origin of the resource's URL where a request has no `Host`).
    port: u16,
    /// The event types, whose streams (`events/stream`) this thread serves.
    events: Arc<super::events::Hub>,
    /// The streams that listen for changes.
    listeners: Arc<Listeners>,
    /// Calls waiting for their client's response to a request they sent.
    waiters: Arc<Waiters>,
    jobs: SyncSender<Incoming>,
    queued: Arc<AtomicUsize>,
    connections: Mutex<Connections>,
}

/// Open connections, to close the idlest when the limit is reached.
#[derive(Default)]
struct Connections {
    next: u64,
    open: HashMap<u64, Connection>,
}

struct Connection {
    /// Requests in flight.
    busy: usize,
    /// When it last finished a request (or was accepted).
    idle_since: Instant,
    close: Arc<Notify>,
}

impl State {
    fn connections(&self) -> std::sync::MutexGuard<'_, Connections> {
        self.connections.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a new connection: its id and close signal, or `None` when every open connection
    /// has a request in flight.
    fn admit(&self) -> Option<(u64, Arc<Notify>)> {
        let mut c = self.connections();
        if c.open.len() >= self.config.max_connections {
            let Some(idlest) = c
                .open
                .iter()
                .filter(|(_, conn)| conn.busy == 0)
                .min_by_key(|(_, conn)| conn.idle_since)
                .map(|(&id, _)| id)
            else {
                #[cfg(feature = "tracing")]
                tracing::warn!(
                    open = c.open.len(),
                    max_connections = self.config.max_connections,
                    "connection refused: every open connection has a request in flight"
                );
                return None;
            };
            if let Some(conn) = c.open.remove(&idlest) {
                #[cfg(feature = "tracing")]
                tracing::debug!(
                    connection = idlest,
                    idle = ?conn.idle_since.elapsed(),
                    max_connections = self.config.max_connections,
                    "closing the idlest connection to make room"
                );
                conn.close.notify_one();
            }
        }
        let id = c.next;
        c.next += 1;
        let close = Arc::new(Notify::new());
        c.open.insert(
            id,
            Connection {
                busy: 0,
                idle_since: Instant::now(),
                close: close.clone(),
            },
        );
        Some((id, close))
    }

    fn busy(self: &Arc<Self>, id: u64) -> Busy {
        if let Some(conn) = self.connections().open.get_mut(&id) {
            conn.busy += 1;
        }
        Busy {
            state: self.clone(),
            id,
        }
    }
}

/// A request in flight on a connection; dropped when its answer is sent.
struct Busy {
    state: Arc<State>,
    id: u64,
}

impl Busy {
    /// What closes this request's connection.
    fn closer(&self) -> Option<Arc<Notify>> {
        let connections = self.state.connections();
        connections.open.get(&self.id).map(|c| c.close.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(conn) = self.state.connections().open.get_mut(&self.id) {
            conn.busy = conn.busy.saturating_sub(1);
            conn.idle_since = Instant::now();
        }
    }
}

async fn accept_loop(
    listener: std::net::TcpListener,
    state: Arc<State>,
    mut shutdown: watch::Receiver<bool>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    // Every connection task holds a clone; `recv` returns `None` once all have ended.
    let (open_tx, mut open_rx) = mpsc::channel::<()>(1);
    loop {
        tokio::select! {
            _ = shutdown.changed() => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // An SSE answer is many small writes (one per notification): without
                // TCP_NODELAY, Nagle's algorithm holds each one back until the client's delayed
                // ACK, tens of milliseconds per event.
                let _ = stream.set_nodelay(true);
                // Over the limit with every connection busy: close at once.
                let Some((id, close)) = state.admit() else { continue };
                let state = state.clone();
                let mut shutdown = shutdown.clone();
                let open = open_tx.clone();
                tokio::spawn(async move {
                    let _open = open;
                    let service_state = state.clone();
                    let service = service_fn(move |request| {
                        let state = service_state.clone();
                        async move {
                            let busy = state.busy(id);
                            Ok::<_, Infallible>(handle(request, &state, busy).await)
                        }
                    });
                    let connection = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(state.config.header_timeout)
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::pin!(connection);
                    tokio::select! {
                        _ = connection.as_mut() => {}
                        _ = close.notified() => {}
                        _ = shutdown.changed() => {
                            // A request in flight gets its answer (503: the queue is gone),
                            // then the connection closes.
                            connection.as_mut().graceful_shutdown();
                            let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
                        }
                    }
                    state.connections().open.remove(&id);
                });
            }
        }
    }
    drop(open_tx);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, open_rx.recv()).await;
}

/// How long `destroy` lets connections finish their answers.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// A response body: one JSON text, an SSE stream of a call's notifications and answer, or a
/// change stream.
enum ReplyBody {
    Full(Option<Bytes>),
    Stream {
        first: Option<Bytes>,
        replies: mpsc::UnboundedReceiver<Outbound>,
        done: bool,
        _busy: Busy,
    },
    Listen(Box<ListenStream>),
    /// An `events/stream`: the lines its task (`events::push::pump`) writes.
    Events {
        lines: mpsc::Receiver<String>,
        _busy: Busy,
    },
}

/// A change stream: a legacy GET stream, or a `subscriptions/listen` answer (its
/// acknowledgement first, its closing response last). A comment keeps it alive while quiet. It
/// holds its connection busy, so it counts against the connection limit like any request in
/// flight.
struct ListenStream {
    first: Option<Bytes>,
    subscription: Subscription,
    keep_alive: Pin<Box<tokio::time::Sleep>>,
    interval: Duration,
    done: bool,
    _busy: Busy,
}

impl ListenStream {
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(first));
        }
        if self.done {
            return Poll::Ready(None);
        }
        let bytes = match self.subscription.poll_next(cx) {
            Poll::Ready(Next::Events(events)) => {
                let mut bytes = String::new();
                for text in &events {
                    bytes.push_str(&format!("event: message\ndata: {text}\n\n"));
                }
                Bytes::from(bytes)
            }
            Poll::Ready(Next::Closed) => {
                self.done = true;
                return Poll::Ready(
                    self.subscription
                        .tag
                        .as_ref()
                        .map(|id| event(&super::wire::closing(id))),
                );
            }
            Poll::Pending => {
                if self.keep_alive.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                Bytes::from_static(b": keep-alive\n\n")
            }
        };
        let next = tokio::time::Instant::now() + self.interval;
        self.keep_alive.as_mut().reset(next);
        Poll::Ready(Some(bytes))
    }
}

fn event(text: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {text}\n\n"))
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            ReplyBody::Full(body) => Poll::Ready(body.take().map(|b| Ok(Frame::data(b)))),
            ReplyBody::Listen(stream) => {
                stream.poll_frame(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
            }
            ReplyBody::Events { lines, .. } => lines
                .poll_recv(cx)
                .map(|line| line.map(|line| Ok(Frame::data(event(&line))))),
            ReplyBody::Stream {
                first,
                replies,
                done,
                ..
            } => {
                if let Some(first) = first.take() {
                    return Poll::Ready(Some(Ok(Frame::data(first))));
                }
                loop {
                    if *done {
                        return Poll::Ready(None);
                    }
                    return match replies.poll_recv(cx) {
                        Poll::Ready(Some(Outbound::Note(text))) => {
                            Poll::Ready(Some(Ok(Frame::data(event(&text)))))
                        }
                        Poll::Ready(Some(Outbound::Done(reply))) => {
                            *done = true;
                            Poll::Ready(Some(Ok(Frame::data(event(&reply.text)))))
                        }
                        Poll::Ready(Some(Outbound::Deferred(_))) => continue,
                        Poll::Ready(None) => Poll::Ready(None),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ReplyBody::Full(None))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match self {
            ReplyBody::Full(Some(body)) => hyper::body::SizeHint::with_exact(body.len() as u64),
            ReplyBody::Full(None) => hyper::body::SizeHint::with_exact(0),
            ReplyBody::Stream { .. } | ReplyBody::Listen(_) | ReplyBody::Events { .. } => {
                hyper::body::SizeHint::default()
            }
        }
    }
}

/// The HTTP status of a reply: 200 for an answer (a result, or an error about the request's
/// content), else what its rejection means.
fn status_of(reply: &Reply) -> StatusCode {
    match reply.rejected {
        None => StatusCode::OK,
        Some(Rejected::BadRequest) => StatusCode::BAD_REQUEST,
        Some(Rejected::UnknownMethod) => StatusCode::NOT_FOUND,
    }
}

fn response(status: StatusCode, body: Option<String>) -> Response<ReplyBody> {
    let json = body.is_some();
    let mut response = Response::new(ReplyBody::Full(body.map(Bytes::from)));
    *response.status_mut() = status;
    if json {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    response
}

/// An HTTP error with a JSON-RPC error body, so MCP clients can show the reason.
fn rejection(status: StatusCode, code: i64, message: &str) -> Response<ReplyBody> {
    trace_refusal(status, message);
    response(status, Some(error(&serde_json::Value::Null, code, message)))
}

/// The event of a refused request: a warning when the server could not serve it (5xx), else
/// debug (the client's mistake). Nothing without the `tracing` feature.
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn trace_refusal(status: StatusCode, reason: &str) {
    #[cfg(feature = "tracing")]
    if status.is_server_error() {
        tracing::warn!(status = status.as_u16(), reason, "request refused");
    } else {
        tracing::debug!(status = status.as_u16(), reason, "request refused");
    }
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
}

/// Answers one HTTP request on the HTTP thread: the door (path, `Host`, `Origin`, verb,
/// token), the body, the message and its era; a listen stream is served here, anything else is
/// queued for the game and its reply awaited.
async fn handle(request: Request<IncomingBody>, state: &State, busy: Busy) -> Response<ReplyBody> {
    let config = &state.config;
    if let Some(answer) = resource_metadata(&request, state) {
        return answer;
    }
    if let Some(refused) = at_the_door(&request, config) {
        return refused;
    }
    if request.method() == Method::GET {
        return get_stream(request.headers(), state, busy);
    }
    let owner = match owner_of(config, request.headers()) {
        Ok(owner) => owner,
        Err(refused) => return unauthorized(state, request.headers(), refused),
    };
    let headers = mcp_headers(request.headers());
    let streamable = accepts_events(request.headers());
    let body = match read_body(request, config).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let (request, era) = match receive(&body, Some(&headers)) {
        Received::Request(request, era) => (request, era),
        Received::Refused { text, what } => {
            trace_refusal(StatusCode::BAD_REQUEST, what);
            return response(StatusCode::BAD_REQUEST, Some(text));
        }
        Received::Notification => return response(StatusCode::ACCEPTED, None),
        Received::Response(answer) => {
            // A client's response to a request a call sent on its stream: the call picks it
            // up on a later frame.
            state.waiters.deliver(answer);
            return response(StatusCode::ACCEPTED, None);
        }
    };
    if era == Era::Stateless && request.method == "subscriptions/listen" {
        return listen(request, owner, state, busy);
    }
    if era == Era::Stateless && request.method == "events/stream" {
        return events_stream(request, state, busy);
    }
    // The legacy handshake gets a session id, which is never checked: the game's state is
    // the session, and clients that need an id to open several streams have one.
    let session = era == Era::Session && request.method == "initialize";
    let (outlet, replies) = mpsc::unbounded_channel();
    let incoming = Incoming {
        request,
        era,
        outlet: Some(outlet),
        streamable,
        param_headers: Some(headers.params),
        requests: true,
        owner,
        // The queue wait is traced only under a subscriber that wants DEBUG: no clock read
        // otherwise.
        #[cfg(feature = "tracing")]
        received: tracing::level_enabled!(tracing::Level::DEBUG).then(Instant::now),
    };
    if let Some(refused) = queue(state, incoming) {
        return refused;
    }
    await_reply(replies, config, busy, session).await
}

/// What is refused before anything is read: another path (404), a `Host` or `Origin` that is
/// not this machine's or allowed (403, against DNS rebinding), a verb other than POST and
/// GET (405).
fn at_the_door(
    request: &Request<IncomingBody>,
    config: &ServerBuilder,
) -> Option<Response<ReplyBody>> {
    let path = request.uri().path();
    if path != config.path {
        return Some(rejection(
            StatusCode::NOT_FOUND,
            -32600,
            &format!("no MCP endpoint at {path}; it is {}", config.path),
        ));
    }
    // DNS rebinding: a page on another site reaching 127.0.0.1 carries its own Host/Origin.
    if let Some(refused) = foreign_host(request) {
        return Some(refused);
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| loopback_origin(o) || config.allowed_origins.iter().any(|a| a == o));
        if !allowed {
            return Some(rejection(
                StatusCode::FORBIDDEN,
                -32600,
                "Origin is not allowed",
            ));
        }
    }
    if request.method() != Method::POST && request.method() != Method::GET {
        let mut r = rejection(
            StatusCode::METHOD_NOT_ALLOWED,
            -32600,
            "this server answers POST, and GET for the legacy era's stream (no sessions to \
             delete)",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
        return Some(r);
    }
    None
}

/// 403 for a request whose `Host` is not this machine (a page on another site that reached
/// 127.0.0.1 by DNS rebinding).
fn foreign_host(request: &Request<IncomingBody>) -> Option<Response<ReplyBody>> {
    let host = request.headers().get(header::HOST)?;
    (!host.to_str().is_ok_and(loopback_host)).then(|| {
        rejection(
            StatusCode::FORBIDDEN,
            -32600,
            "Host is not a loopback address",
        )
    })
}

/// The `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers, for the
/// wire layer to check against the body.
fn mcp_headers(headers: &HeaderMap) -> Headers {
    Headers {
        version: header_text(headers, era::header::PROTOCOL_VERSION),
        method: header_text(headers, era::header::METHOD),
        name: header_text(headers, era::header::NAME),
        params: headers
            .iter()
            .filter_map(|(name, value)| {
                let suffix = name.as_str().strip_prefix(era::header::PARAM_PREFIX)?;
                Some((suffix.to_owned(), value.to_str().ok()?.trim().to_owned()))
            })
            .collect(),
    }
}

/// Whether the client takes an event stream (`Accept: text/event-stream`).
fn accepts_events(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .any(|v| v.to_str().is_ok_and(|v| v.contains("text/event-stream")))
}

/// The request's body, within the body limit (413) and the body timeout (408).
async fn read_body(
    request: Request<IncomingBody>,
    config: &ServerBuilder,
) -> Result<Bytes, Response<ReplyBody>> {
    let too_large = || {
        rejection(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            "request body too large",
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > config.body_limit) {
        return Err(too_large());
    }
    let body = Limited::new(request.into_body(), config.body_limit);
    match tokio::time::timeout(config.body_timeout, body.collect()).await {
        Err(_) => Err(rejection(
            StatusCode::REQUEST_TIMEOUT,
            -32600,
            "request body not received in time",
        )),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(_)) => Err(rejection(
            StatusCode::BAD_REQUEST,
            -32600,
            "could not read the request body",
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// Hands a request to the game's queue; the refusal when it cannot: 503 with `Retry-After`
/// when the queue is full, 503 when the server is shutting down.
fn queue(state: &State, incoming: Incoming) -> Option<Response<ReplyBody>> {
    match state.jobs.try_send(incoming) {
        Ok(()) => {
            state.queued.fetch_add(1, Ordering::Relaxed);
            None
        }
        Err(TrySendError::Full(_)) => {
            let mut r = rejection(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "the game's request queue is full; retry shortly",
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            Some(r)
        }
        Err(TrySendError::Disconnected(_)) => Some(rejection(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "the server is shutting down",
        )),
    }
}

/// Waits for the game's reply to a queued request: one JSON body, or an event stream once the
/// call sends a notification first; a call deferred to a later frame is waited for until its
/// deadline, then some; 504 when the game does not poll in time.
async fn await_reply(
    mut replies: mpsc::UnboundedReceiver<Outbound>,
    config: &ServerBuilder,
    busy: Busy,
    session: bool,
) -> Response<ReplyBody> {
    let mut wait = config.reply_timeout;
    loop {
        match tokio::time::timeout(wait, replies.recv()).await {
            Ok(Some(Outbound::Done(reply))) => {
                let status = status_of(&reply);
                let mut r = response(status, Some(reply.text));
                if session && let Ok(value) = HeaderValue::from_str(&session_id()) {
                    r.headers_mut().insert(era::header::SESSION_ID, value);
                }
                return r;
            }
            // Taken up, answered on a later frame: wait out its deadline, then some.
            Ok(Some(Outbound::Deferred(deadline))) => wait = deadline + config.reply_timeout,
            Ok(Some(Outbound::Note(first))) => {
                let mut r = Response::new(ReplyBody::Stream {
                    first: Some(event(&first)),
                    replies,
                    done: false,
                    _busy: busy,
                });
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/event-stream"),
                );
                r.headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
                return r;
            }
            Ok(None) => {
                return rejection(
                    StatusCode::SERVICE_UNAVAILABLE,
                    -32000,
                    "the server is shutting down",
                );
            }
            Err(_) => {
                return rejection(
                    StatusCode::GATEWAY_TIMEOUT,
                    -32000,
                    "the game did not poll the server in time",
                );
            }
        }
    }
}

/// The owner of a request (see [`Owner`](super::owner::Owner)): the digest of the bearer
/// token it carries when the server requires one of its tokens, of the subject its OAuth
/// token speaks for when the server is protected with OAuth, `None` when it requires neither;
/// `Err` when a credential is required and `headers` carry none the server accepts (`true`
/// when they carry a bearer token it refused; answer [`unauthorized`]).
fn owner_of(config: &ServerBuilder, headers: &HeaderMap) -> Result<super::owner::Owner, bool> {
    if config.bearer_tokens.is_empty() && config.oauth.is_none() {
        return Ok(None);
    }
    if let Some(token) = authorized(headers, &config.bearer_tokens) {
        return Ok(super::owner::owner(Some(token.as_bytes())));
    }
    match &config.oauth {
        // A subject's digest is not a static token's: "oauth" and a NUL before it.
        Some(resource) => resource
            .subject(headers)
            .map(|subject| super::owner::owner(Some(format!("oauth\0{subject}").as_bytes()))),
        None => Err(super::protected::bearer(headers).is_some()),
    }
}

/// 401 with a challenge: a credential is required and the request carries none the server
/// accepts (`refused`: it carries a bearer token that is not accepted). Under OAuth the
/// challenge says where the protected resource metadata is.
fn unauthorized(state: &State, headers: &HeaderMap, refused: bool) -> Response<ReplyBody> {
    let message = if refused {
        "the bearer token is not accepted"
    } else {
        "a bearer token is required"
    };
    let mut r = rejection(StatusCode::UNAUTHORIZED, -32600, message);
    let challenge = match &state.config.oauth {
        Some(resource) => resource.challenge(&origin(state, headers), &state.config.path, refused),
        None => HeaderValue::from_static("Bearer realm=\"mcp\""),
    };
    r.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
    r
}

/// The server's origin as the request addressed it (`http://` and its loopback `Host`).
fn origin(state: &State, headers: &HeaderMap) -> String {
    match headers.get(header::HOST).and_then(|h| h.to_str().ok()) {
        Some(host) if loopback_host(host) => format!("http://{host}"),
        _ => format!("http://127.0.0.1:{}", state.port),
    }
}

/// A `GET` of the protected resource metadata (RFC 9728) of a server protected with OAuth;
/// `None` for any other request.
fn resource_metadata(
    request: &Request<IncomingBody>,
    state: &State,
) -> Option<Response<ReplyBody>> {
    let resource = state.config.oauth.as_ref()?;
    if request.method() != Method::GET
        || !ProtectedResource::is_metadata_path(request.uri().path(), &state.config.path)
    {
        return None;
    }
    if let Some(refused) = foreign_host(request) {
        return Some(refused);
    }
    let origin = origin(state, request.headers());
    Some(response(
        StatusCode::OK,
        Some(resource.metadata(&origin, &state.config.path)),
    ))
}

/// The legacy era's standalone GET stream: the session hears every change to the tools as
/// `notifications/tools/list_changed`. A 2026-07-28 client has no GET stream (405: it listens
/// with `subscriptions/listen`).
fn get_stream(headers: &HeaderMap, state: &State, busy: Busy) -> Response<ReplyBody> {
    if let Err(refused) = owner_of(&state.config, headers) {
        return unauthorized(state, headers, refused);
    }
    let version = header_text(headers, era::header::PROTOCOL_VERSION);
    if version.as_deref().and_then(era::era_of) == Some(Era::Stateless) {
        let mut r = rejection(
            StatusCode::METHOD_NOT_ALLOWED,
            -32600,
            "MCP 2026-07-28 has no GET stream: listen for changes with subscriptions/listen",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    let accepts_events = headers
        .get_all(header::ACCEPT)
        .iter()
        .any(|v| v.to_str().is_ok_and(|v| v.contains("text/event-stream")));
    if !accepts_events {
        return rejection(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "the GET stream is an event stream: send Accept: text/event-stream",
        );
    }
    let subscription = state
        .listeners
        .subscribe(Wants::legacy(), None, busy.closer());
    change_stream(None, subscription, &state.config, busy)
}

/// `subscriptions/listen` (2026-07-28): the acknowledgement of the kinds of change honoured,
/// then one notification per announcement, each tagged with the request's id, until the client
/// closes the stream or the server shuts down (then the closing response).
fn listen(
    request: super::wire::Request,
    owner: super::owner::Owner,
    state: &State,
    busy: Busy,
) -> Response<ReplyBody> {
    let by = announce::Listening {
        declares_tasks: super::tasks::request_declares(&request),
        owner,
    };
    let id = request.id;
    let (wants, acknowledgement) =
        match announce::open(&id, request.params.notifications.as_deref(), by) {
            Ok(opened) => opened,
            Err(refused) => {
                let status = status_of(&refused);
                return response(status, Some(refused.text));
            }
        };
    let subscription = state.listeners.subscribe(wants, Some(id), busy.closer());
    change_stream(
        Some(event(&acknowledgement)),
        subscription,
        &state.config,
        busy,
    )
}

/// `events/stream` (2026-07-28 events extension): a refusal at once (an unknown type, push not
/// offered, arguments the type's schema refuses), else a stream the HTTP thread writes from the
/// type's buffer, until the client closes it, the type goes or the server shuts down.
fn events_stream(request: super::wire::Request, state: &State, busy: Busy) -> Response<ReplyBody> {
    let id = request.id;
    let sub = match state
        .events
        .subscribe(&id, &request.params, crate::events::Delivery::Push)
    {
        Ok(sub) => sub,
        Err(refused) => return response(StatusCode::OK, Some(refused)),
    };
    // A few lines ahead of a slow client; the buffer keeps the rest for its cursor.
    let (tx, lines) = mpsc::channel(64);
    let config = &state.config;
    tokio::spawn(super::events::push::pump(
        state.events.clone(),
        sub,
        id,
        tx,
        config.keep_alive.min(Duration::from_secs(30)),
        config.stall_timeout,
    ));
    event_stream(ReplyBody::Events { lines, _busy: busy })
}

fn change_stream(
    first: Option<Bytes>,
    subscription: Subscription,
    config: &ServerBuilder,
    busy: Busy,
) -> Response<ReplyBody> {
    let interval = config.keep_alive;
    event_stream(ReplyBody::Listen(Box::new(ListenStream {
        first,
        subscription,
        keep_alive: Box::pin(tokio::time::sleep(interval)),
        interval,
        done: false,
        _busy: busy,
    })))
}

/// A `text/event-stream` response of `body`.
fn event_stream(body: ReplyBody) -> Response<ReplyBody> {
    let mut r = Response::new(body);
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// A random, never-checked session id (RandomState's per-instance keys are random).
fn session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let part = || {
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    };
    format!("{:016x}{:016x}", part(), part())
}

/// A `Host` header that names this machine (the client's rule: `crate::loopback`).
fn loopback_host(host: &str) -> bool {
    crate::loopback::is_loopback_authority(host)
}

fn loopback_origin(origin: &str) -> bool {
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(loopback_host)
}

/// The token of `tokens` that `headers` carry as `Authorization: Bearer`, each compared in
/// constant time (every token is compared, whichever matches).
fn authorized<'a>(headers: &HeaderMap, tokens: &'a [String]) -> Option<&'a str> {
    let given = super::protected::bearer(headers)?;
    let same = |token: &str| {
        let (a, b) = (given.as_bytes(), token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    };
    tokens
        .iter()
        .fold(None, |found, token| match (found, same(token)) {
            (None, true) => Some(token.as_str()),
            (found, _) => found,
        })
}

impl<Ctx> Server<Ctx> {
    /// Serves `registry` on 127.0.0.1:`port` with the default settings (`port` 0 picks a free
    /// one).
    pub fn listen(registry: Registry<Ctx>, port: u16) -> std::io::Result<Self> {
        ServerBuilder::default().port(port).listen(registry)
    }
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
