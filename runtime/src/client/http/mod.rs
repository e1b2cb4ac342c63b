//! The Streamable HTTP client transport, on reqwest with rustls (the ring provider) and the
//! system's CA certificates (`SSL_CERT_FILE` and `SSL_CERT_DIR` are honoured; more roots with
//! [`HttpClientBuilder::add_root_certificate`]). `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and
//! `NO_PROXY` are honoured, unless [`HttpClientBuilder::proxy`] or
//! [`HttpClientBuilder::no_proxy`] says otherwise.
//!
//! Modern era (2026-07-28): one POST per request with `_meta` and the `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers, no session. Legacy era (2025-03-26 to
//! 2025-11-25): `initialize` and `notifications/initialized`, `Mcp-Session-Id` when the server
//! sets one, `MCP-Protocol-Version` on every later request, and a reconnection with
//! `Last-Event-ID` when the server closes an event stream before answering. Both: JSON or SSE
//! answers (read as a stream), `Authorization: Bearer` when configured.
//!
//! Changes to the server's tools are heard without a request slot of the application's: in the
//! legacy era on the session's standalone GET stream, in 2026-07-28 on a `subscriptions/listen`
//! stream the client opens itself when the server advertises `tools.listChanged` (reopened
//! with back-off when it drops; a server that does not serve it leaves the client relying on
//! `tools/list`'s `ttlMs`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::{Value, json};

mod auth;
mod builder;
mod policy;
mod streams;

use auth::Credential;
pub use builder::{HttpClientBuilder, HttpOptions, TokenProvider};
use policy::tls_hint;
use streams::{get_stream, listen_for_changes};

use super::body::{body_within, refusal_text};
use super::io::{self, IoTask};
use super::sse::SseParser;
use super::transport::Carrier;
use super::{
    CallContext, McpClient, Negotiated, Outgoing, Reply, Response, Routed, Session, describe, lock,
    refused,
};
use crate::Error;
use crate::era::{self, header as h};

/// Pooled connections idle longer than this are not reused: servers close idle keep-alive
/// connections (ours and Node's after 5 s).
const POOL_IDLE: Duration = Duration::from_secs(2);

/// How many times a legacy-era event stream that closed before its answer is resumed.
const RECONNECTS: usize = 5;

/// An MCP client over Streamable HTTP; a [`ToolCaller`](crate::ToolCaller). Cheap to clone (shared connection
/// pool and session). Works from any executor (its I/O runs on the crate's own runtime).
///
/// A generated client wraps one (`my_server::Client::new(http_client)`); by hand, with
/// [`ToolCaller::call_tool`](crate::ToolCaller::call_tool):
///
/// ```no_run
/// use mcp_bindgen::{HttpClient, ToolCaller};
///
/// # async fn run() -> Result<(), mcp_bindgen::Error> {
/// let client = HttpClient::builder("https://mcp.example/mcp")
///     .api_key(std::env::var("MCP_API_KEY").unwrap_or_default())
///     .timeout(std::time::Duration::from_secs(30))
///     .connect()
///     .await?; // negotiates the protocol era: 2026-07-28 if the server speaks it
/// let mut arguments = serde_json::Map::new();
/// arguments.insert("text".into(), "hello".into());
/// let result = client.call_tool("echo", arguments).await?;
/// println!("{:?} {}", client.protocol_version(), result.texts().collect::<String>());
/// # Ok(())
/// # }
/// ```
pub type HttpClient = McpClient<HttpTransport>;

/// The Streamable HTTP transport of an [`HttpClient`]: the connection pool, the credentials
/// (an OAuth sign-in answers the server's 401s and 403s here, before the session sees them),
/// and the streams on which the server speaks first.
#[derive(Debug)]
pub struct HttpTransport {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    url: Url,
    credential: Credential,
    /// The session, for what the server sends unasked (its requests, notifications and
    /// announcements).
    session: Arc<Session>,
    /// The legacy era's `Mcp-Session-Id`.
    session_id: Mutex<Option<String>>,
    /// What runs beside the requests: the legacy era's GET stream (the server's requests
    /// and notifications that belong to no request), the 2026-07-28 listen stream, the
    /// application's tool-change handlers.
    tasks: Mutex<Vec<tokio::task::AbortHandle>>,
    /// Whether the 2026-07-28 listen stream was started.
    listening: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}

#[allow(private_interfaces)] // see `Carrier`: sealed
impl Carrier for HttpTransport {
    const MIRRORS_HEADERS: bool = true;
    const NAME: &'static str = "streamable-http";

    fn peer(&self) -> String {
        shown(&self.inner.url)
    }

    fn exchange(
        &self,
        request: Outgoing<'_>,
        context: CallContext,
        timeout: Duration,
    ) -> impl Future<Output = Result<Reply, Error>> + Send {
        let inner = self.inner.clone();
        let negotiated = request.era;
        let legacy = !negotiated.as_ref().is_some_and(|n| n.is_modern());
        let id = request.id;
        let what = describe(request.method, request.params);
        let headers = headers(
            &inner,
            Some(request.method),
            request.params,
            &request.mirrored,
            negotiated.as_ref(),
        );
        let body = bytes::Bytes::from(request.text);
        let repeatable = may_repeat(request.method);
        // Modern era: dropping the task closes the response stream, which cancels the request.
        let on_cancel: Option<Box<dyn FnOnce() + Send>> = legacy.then(|| {
            let inner = inner.clone();
            let cancel: Box<dyn FnOnce() + Send> =
                Box::new(move || cancel(inner, id, "the caller stopped waiting"));
            cancel
        });
        IoTask::spawn(
            async move {
                // Each attempt has the whole timeout; obtaining credentials in between (a
                // person signing in) is not timed.
                let attempt = |headers: HeaderMap| {
                    let posting = send(
                        &inner,
                        headers,
                        body.clone(),
                        repeatable,
                        Some(id),
                        &context,
                        negotiated.as_ref(),
                    );
                    async {
                        match tokio::time::timeout(timeout, posting).await {
                            Ok(reply) => reply,
                            Err(_) => {
                                if legacy {
                                    cancel(inner.clone(), id, "timed out");
                                }
                                Err(Error::Timeout {
                                    message: what.clone(),
                                    after: timeout,
                                })
                            }
                        }
                    }
                };
                inner.credential.send(&inner.http, headers, attempt).await
            },
            on_cancel,
        )
    }

    fn notify(
        &self,
        message: Value,
        negotiated: Negotiated,
        timeout: Duration,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let inner = self.inner.clone();
        IoTask::spawn(
            async move {
                let what = message["method"]
                    .as_str()
                    .unwrap_or("a notification")
                    .to_owned();
                let context = CallContext::default();
                let posting = post(&inner, &message, None, &context, Some(&negotiated));
                match tokio::time::timeout(timeout, posting).await {
                    Ok(Ok(Reply::Refused { status, body, .. })) => {
                        Err(refused(&shown(&inner.url), status, &body))
                    }
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(e),
                    Err(_) => Err(Error::Timeout {
                        message: what,
                        after: timeout,
                    }),
                }
            },
            None,
        )
    }

    /// In 2026-07-28, opens the `subscriptions/listen` stream for tool list changes, once,
    /// when the server advertises `tools.listChanged`.
    fn hear_changes(&self) {
        let session = &self.inner.session;
        if !session.negotiated().is_some_and(|n| n.is_modern())
            || !session.announces_tool_changes()
            || self.inner.listening.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let Ok(runtime) = io::handle() else { return };
        let task = runtime.spawn(listen_for_changes(Arc::downgrade(&self.inner)));
        lock(&self.inner.tasks).push(task.abort_handle());
    }

    fn initialized(&self) {
        let Ok(runtime) = io::handle() else { return };
        let task = runtime.spawn(get_stream(Arc::downgrade(&self.inner)));
        lock(&self.inner.tasks).push(task.abort_handle());
    }
}

/// Sends `notifications/cancelled` for request `id` (legacy era), in the background.
fn cancel(inner: Arc<Inner>, id: u64, reason: &'static str) {
    #[cfg(feature = "tracing")]
    tracing::debug!(id, reason, "cancelling the request on the server");
    let Ok(runtime) = io::handle() else { return };
    runtime.spawn(async move {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": reason}});
        let negotiated = inner.session.negotiated();
        let _ = tokio::time::timeout(
            Duration::from_secs(10),
            post(
                &inner,
                &message,
                None,
                &CallContext::default(),
                negotiated.as_ref(),
            ),
        )
        .await;
    });
}

/// `url` as messages and traces show it: without a password (a `user:password@` URL is sent
/// as Basic credentials) or a query (where hosted servers often take an API key).
pub(crate) fn shown(url: &Url) -> String {
    let had_query = url.query().is_some();
    let mut url = url.clone();
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    let mut text = url.to_string();
    if had_query {
        text.push_str("?…");
    }
    text
}

fn reach_error(url: &Url, e: reqwest::Error) -> Error {
    let url = shown(url);
    if e.is_timeout() {
        return Error::web(format!("{url} did not answer in time"), e);
    }
    let mut message = format!("could not reach {url}");
    if let Some(hint) = tls_hint(&e) {
        message.push_str(" (");
        message.push_str(hint);
        message.push(')');
    }
    Error::web(message, e)
}

/// The headers of a request (`method` with `params`; `None` for a GET) in the negotiated era,
/// with the `Mcp-Param-*` headers of the arguments it mirrors (see [`Outgoing::mirrored`]).
fn headers(
    inner: &Inner,
    method: Option<&str>,
    params: &Value,
    mirrored: &[(String, String)],
    negotiated: Option<&Negotiated>,
) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    inner.credential.authorize(&mut headers);
    let Some(negotiated) = negotiated else {
        return headers;
    };
    if let Ok(version) = HeaderValue::from_str(&negotiated.version) {
        headers.insert(HeaderName::from_static(h::PROTOCOL_VERSION), version);
    }
    if !negotiated.is_modern() {
        if let Some(session) = lock(&inner.session_id).clone()
            && let Ok(value) = HeaderValue::from_str(&session)
        {
            headers.insert(HeaderName::from_static(h::SESSION_ID), value);
        }
        return headers;
    }
    let Some(method) = method else {
        return headers;
    };
    let mut put = |name: &str, value: &str| {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.insert(name, value);
        }
    };
    put(h::METHOD, &era::header_value::encode(method));
    let name = h::name_member(method).and_then(|member| params[member].as_str());
    if let Some(name) = name {
        put(h::NAME, &era::header_value::encode(name));
    }
    for (header_name, value) in mirrored {
        put(&format!("{}{header_name}", h::PARAM_PREFIX), value);
    }
    headers
}

/// POSTs one message; returns the response with id `id` (from a JSON body or an SSE stream,
/// read as it arrives), or what the server said instead.
async fn post(
    inner: &Arc<Inner>,
    message: &Value,
    id: Option<u64>,
    context: &CallContext,
    negotiated: Option<&Negotiated>,
) -> Result<Reply, Error> {
    let headers = headers(
        inner,
        message["method"].as_str(),
        &message["params"],
        &[],
        negotiated,
    );
    let body = bytes::Bytes::from(message.to_string());
    let repeatable = may_repeat(message["method"].as_str().unwrap_or_default());
    send(inner, headers, body, repeatable, id, context, negotiated).await
}

/// Whether a request of `method` may reach the server twice without harm: every method but
/// `tools/call` (lists, reads, `ping`, task queries, notifications, responses: `""`), whose
/// tool may not be idempotent.
fn may_repeat(method: &str) -> bool {
    method != "tools/call"
}

/// Whether `error` says the connection closed (or was reset) before any response came, as a
/// kept-alive connection does when the server closes it just as a request goes out on it.
fn closed_before_response(error: &reqwest::Error) -> bool {
    use std::error::Error as _;
    if error.is_timeout() || error.is_connect() || error.is_body() || error.is_decode() {
        return false;
    }
    let mut cause = error.source();
    while let Some(e) = cause {
        if let Some(hyper) = e.downcast_ref::<hyper::Error>()
            && (hyper.is_incomplete_message() || hyper.is_canceled())
        {
            return true;
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        cause = e.source();
    }
    false
}

/// What the transport's error says of its limit.
const MESSAGE_LIMIT: &str = "the client's limit, ClientBuilder::max_message_bytes";

/// [`post`] for a message already written, with its headers. A `repeatable` request (see
/// [`may_repeat`]) is sent once more when the connection closed
/// before any response came: a server closes kept-alive connections (to make room, or when
/// idle) and one may close as the request goes out on it.
async fn send(
    inner: &Arc<Inner>,
    headers: HeaderMap,
    body: bytes::Bytes,
    repeatable: bool,
    id: Option<u64>,
    context: &CallContext,
    negotiated: Option<&Negotiated>,
) -> Result<Reply, Error> {
    let attempt = |headers: HeaderMap| {
        inner
            .http
            .post(inner.url.clone())
            .headers(headers)
            .body(body.clone())
            .send()
    };
    // Each request that leaves gets its own proof of a bound token (never one sent before).
    let prove = |mut headers: HeaderMap| -> Result<HeaderMap, Error> {
        inner.credential.prove(&mut headers, "POST")?;
        Ok(headers)
    };
    // Only a request that may be sent again keeps a copy of its headers for that.
    let again = repeatable.then(|| headers.clone());
    let response = match (attempt(prove(headers)?).await, again) {
        (Err(e), Some(headers)) if closed_before_response(&e) => {
            #[cfg(feature = "tracing")]
            tracing::debug!("the connection closed before any response; sending once more");
            attempt(prove(headers)?).await
        }
        (sent, _) => sent,
    }
    .map_err(|e| reach_error(&inner.url, e))?;
    inner.credential.note(response.headers());
    if let Some(session) = response
        .headers()
        .get(h::SESSION_ID)
        .and_then(|v| v.to_str().ok())
        && !negotiated.is_some_and(|n| n.is_modern())
    {
        *lock(&inner.session_id) = Some(session.to_owned());
    }
    let status = response.status();
    if status == StatusCode::ACCEPTED {
        return Ok(Reply::Accepted);
    }
    let is_sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    if !status.is_success() {
        // 401 and 403 are the session's to judge (the authorization step), like any refusal.
        let www_authenticate = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let body = refusal_text(response).await;
        let error = serde_json::from_str::<Value>(&body)
            .ok()
            .filter(|v| v.get("error").is_some())
            .map(|_| Response {
                body: body.clone().into(),
                any_id: true,
            });
        return Ok(Reply::Refused {
            status,
            body,
            error,
            www_authenticate,
        });
    }
    let Some(id) = id else {
        return Ok(Reply::Accepted);
    };
    if is_sse {
        return read_events(inner, response, id, context, negotiated).await;
    }
    let limit = inner.session.settings.max_message_bytes;
    let body = body_within(response, limit, "the response", MESSAGE_LIMIT).await?;
    // Checked and decoded by the caller, from these bytes (see `super::decode`).
    Ok(Reply::Response(Response::new(body)))
}

/// Reads an SSE answer as it arrives: notifications to `context`, the server's requests
/// answered (legacy era), until the response to `id`. A legacy-era stream that ends first is
/// resumed with `Last-Event-ID` after the server's `retry` delay.
async fn read_events(
    inner: &Arc<Inner>,
    mut response: reqwest::Response,
    id: u64,
    context: &CallContext,
    negotiated: Option<&Negotiated>,
) -> Result<Reply, Error> {
    let mut parser = SseParser::new(inner.session.settings.max_message_bytes);
    let mut reconnects = 0;
    loop {
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| Error::web("the event stream broke off", e))?
        {
            let events = parser.push(&chunk).map_err(|limit| {
                Error::transport(format!(
                    "an event of the answer's stream is larger than {limit} bytes \
                     ({MESSAGE_LIMIT}): not read further"
                ))
            })?;
            for data in events {
                let routed = inner.session.route(
                    data.as_bytes(),
                    |_| vec![context.clone()],
                    post_answer(inner.clone(), negotiated.cloned()),
                );
                if routed == Routed::Response(Some(id)) {
                    return Ok(Reply::Response(Response::new(data)));
                }
            }
        }
        let legacy = !negotiated.is_some_and(|n| n.is_modern());
        let Some(last_id) = parser.last_id.clone().filter(|_| legacy) else {
            break;
        };
        if reconnects == RECONNECTS {
            break;
        }
        reconnects += 1;
        tokio::time::sleep(Duration::from_millis(parser.retry.unwrap_or(1000))).await;
        let mut headers = headers(inner, None, &Value::Null, &[], negotiated);
        headers.remove(header::CONTENT_TYPE);
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        if let Ok(value) = HeaderValue::from_str(&last_id) {
            headers.insert(HeaderName::from_static("last-event-id"), value);
        }
        inner.credential.prove(&mut headers, "GET")?;
        response = inner
            .http
            .get(inner.url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|e| reach_error(&inner.url, e))?;
        if !response.status().is_success() {
            let status = response.status();
            let body = refusal_text(response).await;
            return Err(refused(&shown(&inner.url), status, &body));
        }
    }
    Err(Error::transport(format!(
        "the event stream ended without the response to request {id}"
    )))
}

/// How the answer to a request the server sent on an event stream (legacy era) goes back: a
/// POST, given up after 30 s. (Boxed: the POST may read an event stream that routes again.)
fn post_answer(
    inner: Arc<Inner>,
    negotiated: Option<Negotiated>,
) -> impl FnOnce(Value) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + 'static {
    move |answer| {
        Box::pin(async move {
            let context = CallContext::default();
            let posting = post(&inner, &answer, None, &context, negotiated.as_ref());
            let _ = tokio::time::timeout(Duration::from_secs(30), posting).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages and traces name a server without its password or query.
    #[test]
    fn urls_are_shown_without_password_or_query() {
        let shown = |url: &str| shown(&Url::parse(url).expect("a URL"));
        assert_eq!(
            shown("https://user:s3cret@mcp.example/mcp?api_key=k3y#top"),
            "https://user@mcp.example/mcp?…"
        );
        assert_eq!(
            shown("http://127.0.0.1:7100/mcp"),
            "http://127.0.0.1:7100/mcp"
        );
    }
}
