//! A Streamable HTTP client transport (MCP 2025-03-26 to 2025-11-25): `initialize` and
//! `notifications/initialized`, `Accept: application/json, text/event-stream`, JSON or SSE
//! answers, `Mcp-Session-Id` when the server sets one, `MCP-Protocol-Version` on every later
//! request, `Authorization: Bearer` when configured. Plain `http://` (loopback and test use).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Request, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Map, Value, json};

use crate::{CallToolResult, Error, ToolCaller};

/// Pooled connections idle longer than this are not reused.
const POOL_IDLE: Duration = Duration::from_secs(2);

/// The protocol version this client asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Resolves a bearer token, once, at connect.
pub type TokenProvider =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<String, Error>> + Send>> + Send + Sync>;

/// Settings for [`HttpClient::connect`]. Credentials follow the WorldForge SDK's rule: an API
/// key, else a JWT, else a token provider (resolved once, at connect), sent as
/// `Authorization: Bearer` on every request and never in the URL.
#[derive(Clone)]
pub struct HttpClientBuilder {
    url: String,
    api_key: Option<String>,
    jwt: Option<String>,
    token_provider: Option<TokenProvider>,
    auth_required: bool,
    client_name: String,
    client_version: String,
    capabilities: Value,
    timeout: Duration,
}

impl std::fmt::Debug for HttpClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print credentials.
        f.debug_struct("HttpClientBuilder")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("jwt", &self.jwt.as_ref().map(|_| "<set>"))
            .field(
                "token_provider",
                &self.token_provider.as_ref().map(|_| "<set>"),
            )
            .field("auth_required", &self.auth_required)
            .field("client_name", &self.client_name)
            .field("client_version", &self.client_version)
            .field("capabilities", &self.capabilities)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl HttpClientBuilder {
    /// An API key (first in precedence).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// A JWT (used when no API key is set).
    pub fn jwt(mut self, token: impl Into<String>) -> Self {
        self.jwt = Some(token.into());
        self
    }

    /// Same as [`HttpClientBuilder::api_key`]: a static bearer token.
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.api_key(token)
    }

    /// A function that fetches a token (used when neither an API key nor a JWT is set); it is
    /// called once, at connect.
    pub fn token_provider<F, Fut>(mut self, provider: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Error>> + Send + 'static,
    {
        self.token_provider = Some(Arc::new(move || Box::pin(provider())));
        self
    }

    /// The server needs credentials: connecting without any is an error, before anything is
    /// sent.
    pub fn auth_required(mut self) -> Self {
        self.auth_required = true;
        self
    }

    /// The `clientInfo` sent in `initialize` (default: this crate's name and version).
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_name = name.into();
        self.client_version = version.into();
        self
    }

    /// The client capabilities sent in `initialize` (default `{}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// How long one request may take before it fails with [`Error::Transport`] (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects: resolves the credentials, then `initialize` and `notifications/initialized`.
    pub async fn connect(self) -> Result<HttpClient, Error> {
        let bearer = match (&self.api_key, &self.jwt, &self.token_provider) {
            (Some(key), _, _) => Some(key.clone()),
            (None, Some(jwt), _) => Some(jwt.clone()),
            (None, None, Some(provider)) => Some(provider().await?),
            (None, None, None) if self.auth_required => {
                return Err(Error::Auth {
                    status: 0,
                    message: format!(
                        "{} needs credentials: set an API key, a JWT or a token provider",
                        self.url
                    ),
                    www_authenticate: None,
                });
            }
            (None, None, None) => None,
        };
        let uri: Uri = self
            .url
            .parse()
            .map_err(|e| Error::transport_source(format!("invalid URL {:?}", self.url), e))?;
        if uri.scheme_str() != Some("http") {
            return Err(Error::transport(format!(
                "only http:// URLs are supported by this transport, not {:?}",
                self.url
            )));
        }
        let client = HttpClient {
            inner: Arc::new(Inner {
                client: Client::builder(TokioExecutor::new())
                    // Never reuse a connection idle this long: servers close idle keep-alive
                    // connections (ours after 5 s, Node's after 5 s), and a runtime that did not
                    // run meanwhile (a game's `block_on`) would not have noticed.
                    .pool_idle_timeout(POOL_IDLE)
                    .pool_timer(hyper_util::rt::TokioTimer::new())
                    .build_http(),
                uri,
                bearer,
                timeout: self.timeout,
                next_id: AtomicU64::new(1),
                session: Mutex::new(None),
                negotiated: Mutex::new(None),
                server_info: Mutex::new(Value::Null),
            }),
        };
        let result = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": self.capabilities,
                    "clientInfo": {"name": self.client_name, "version": self.client_version},
                }),
            )
            .await?;
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(PROTOCOL_VERSION)
            .to_owned();
        *lock(&client.inner.negotiated) = Some(version);
        *lock(&client.inner.server_info) = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        client.notify("notifications/initialized").await?;
        Ok(client)
    }
}

/// An MCP client over Streamable HTTP; a [`ToolCaller`]. Cheap to clone (shared connection
/// pool and session).
#[derive(Debug, Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: Client<HttpConnector, Full<Bytes>>,
    uri: Uri,
    bearer: Option<String>,
    timeout: Duration,
    next_id: AtomicU64,
    session: Mutex<Option<String>>,
    negotiated: Mutex<Option<String>>,
    server_info: Mutex<Value>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HttpClient {
    /// Settings for a server at `url` (`http://127.0.0.1:7100/mcp`).
    pub fn builder(url: impl Into<String>) -> HttpClientBuilder {
        HttpClientBuilder {
            url: url.into(),
            api_key: None,
            jwt: None,
            token_provider: None,
            auth_required: false,
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            capabilities: json!({}),
            timeout: Duration::from_secs(30),
        }
    }

    /// Connects with the default settings.
    pub async fn connect(url: impl Into<String>) -> Result<Self, Error> {
        HttpClient::builder(url).connect().await
    }

    /// The protocol version the server chose.
    pub fn protocol_version(&self) -> Option<String> {
        lock(&self.inner.negotiated).clone()
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Value {
        lock(&self.inner.server_info).clone()
    }

    /// `tools/list`, every page, as the server sent the tools.
    pub async fn list_tools(&self) -> Result<Vec<Value>, Error> {
        list_pages(|params| self.request("tools/list", params)).await
    }

    /// Sends one JSON-RPC request and returns its `result`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let timeout = self.inner.timeout;
        let answer = tokio::time::timeout(timeout, self.post(&message, Some(id)))
            .await
            .map_err(|_| Error::transport(format!("{method} timed out after {timeout:?}")))??;
        let Some(answer) = answer else {
            return Err(Error::transport(format!(
                "{method}: the server sent no response"
            )));
        };
        response_result(method, answer)
    }

    async fn notify(&self, method: &str) -> Result<(), Error> {
        let message = json!({"jsonrpc": "2.0", "method": method});
        tokio::time::timeout(self.inner.timeout, self.post(&message, None))
            .await
            .map_err(|_| Error::transport(format!("{method} timed out")))??;
        Ok(())
    }

    /// POSTs one message; returns the JSON-RPC response with id `id` (from a JSON body or an
    /// SSE stream), or `None` for a 202.
    async fn post(&self, message: &Value, id: Option<u64>) -> Result<Option<Value>, Error> {
        let mut request = Request::post(self.inner.uri.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(token) = &self.inner.bearer {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if let Some(session) = lock(&self.inner.session).clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&self.inner.negotiated).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .map_err(|e| Error::transport_source("could not build the request", e))?;
        let response = self.inner.client.request(request).await.map_err(|e| {
            Error::transport_source(format!("could not reach {}", self.inner.uri), e)
        })?;
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            *lock(&self.inner.session) = Some(session.to_owned());
        }
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let authenticate = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .map(|v: &HeaderValue| v.to_str().unwrap_or("").to_owned());
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| Error::transport_source("the response body broke off", e))?
            .to_bytes();
        if status == StatusCode::ACCEPTED {
            return Ok(None);
        }
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(Error::Auth {
                status: status.as_u16(),
                message: format!("{} answered HTTP {status}", self.inner.uri),
                www_authenticate: authenticate,
            });
        }
        if !status.is_success() {
            let detail = String::from_utf8_lossy(&body);
            let mut message = format!("HTTP {status}");
            if let Some(auth) = authenticate {
                message.push_str(&format!(" (WWW-Authenticate: {auth})"));
            }
            if !detail.trim().is_empty() {
                message.push_str(&format!(": {}", detail.trim()));
            }
            return Err(Error::transport(message));
        }
        let Some(id) = id else {
            return Ok(None);
        };
        if content_type.starts_with("text/event-stream") {
            return sse_response(&body, id).map(Some);
        }
        let value: Value = serde_json::from_slice(&body).map_err(|e| {
            Error::transport_source("the server answered with something that is not JSON", e)
        })?;
        if value.get("id").and_then(Value::as_u64) != Some(id) {
            return Err(Error::transport(format!(
                "the server answered a different request (expected id {id})"
            )));
        }
        Ok(Some(value))
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

/// A `tools/call` result as the runtime's lenient [`CallToolResult`].
pub(crate) fn call_tool_result(result: Value) -> Result<CallToolResult, Error> {
    serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            "tools/call answered with a result that is not a CallToolResult",
            e,
        )
    })
}

/// Every page of `tools/list` (following `nextCursor`, at most 10,000 pages).
pub(crate) async fn list_pages<F, Fut>(mut request: F) -> Result<Vec<Value>, Error>
where
    F: FnMut(Value) -> Fut,
    Fut: Future<Output = Result<Value, Error>>,
{
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = request(params).await?;
        if let Some(Value::Array(page_tools)) = page.get("tools") {
            tools.extend(page_tools.iter().cloned());
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(tools),
        }
    }
    Err(Error::transport("tools/list did not end after 10000 pages"))
}

/// The response with `id` among the SSE events of `body` (notifications are skipped).
fn sse_response(body: &[u8], id: u64) -> Result<Value, Error> {
    let text = String::from_utf8_lossy(body);
    for event in text.split("\n\n").flat_map(|e| e.split("\r\n\r\n")) {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect();
        if data.is_empty() {
            continue;
        }
        if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n"))
            && value.get("id").and_then(Value::as_u64) == Some(id)
        {
            return Ok(value);
        }
    }
    Err(Error::transport(format!(
        "the event stream ended without the response to request {id}"
    )))
}

impl ToolCaller for HttpClient {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        call_tool_result(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_picks_the_response_by_id() {
        let body = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n";
        assert_eq!(sse_response(body, 4).expect("found")["id"], 4);
        assert!(sse_response(body, 5).is_err());
    }
}
