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

use auth::Credential;

use super::io::{self, IoTask};
use super::is_loopback;
use super::session::{self, refused};
use super::sse::SseParser;
use super::transport::Carrier;
use super::{
    CallContext, ClientBuilder, McpClient, Negotiated, Outgoing, Reply, Response, Route, Session,
    lock,
};
use crate::Error;
use crate::era::{self, header as h};

/// Pooled connections idle longer than this are not reused: servers close idle keep-alive
/// connections (ours and Node's after 5 s).
const POOL_IDLE: Duration = Duration::from_secs(2);

/// How many times a legacy-era event stream that closed before its answer is resumed.
const RECONNECTS: usize = 5;

/// Resolves a bearer token, once, at connect.
pub type TokenProvider =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<String, Error>> + Send>> + Send + Sync>;

/// Settings for [`HttpClient::connect`]: the shared ones of [`ClientBuilder`] and the HTTP
/// options below. Credentials follow the WorldForge SDK's rule: an API key, else a JWT, else a
/// token provider (resolved once, at connect), sent as `Authorization: Bearer` on every request
/// and never in the URL.
pub type HttpClientBuilder = ClientBuilder<HttpOptions>;

/// The Streamable HTTP options of an [`HttpClientBuilder`]: the server's URL, credentials,
/// TLS roots, proxy and connection pool (set through the builder's methods).
#[derive(Clone)]
pub struct HttpOptions {
    url: String,
    api_key: Option<String>,
    jwt: Option<String>,
    token_provider: Option<TokenProvider>,
    auth_required: bool,
    allow_insecure_http: bool,
    roots: Vec<Vec<u8>>,
    proxy: ProxySetting,
    pool_idle: Duration,
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::OAuth>,
}

/// Where requests go: through the environment's proxies, one given proxy, or straight.
#[derive(Clone, PartialEq, Eq)]
enum ProxySetting {
    /// `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (and their lower-case forms).
    Environment,
    /// [`HttpClientBuilder::proxy`].
    Url(String),
    /// [`HttpClientBuilder::no_proxy`].
    Direct,
}

impl std::fmt::Debug for ProxySetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxySetting::Environment => f.write_str("Environment"),
            // The URL may hold a password: the host alone.
            ProxySetting::Url(url) => {
                let host = Url::parse(url).ok().and_then(|u| {
                    Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?))
                });
                f.debug_tuple("Url")
                    .field(&host.as_deref().unwrap_or("<unreadable>"))
                    .finish()
            }
            ProxySetting::Direct => f.write_str("Direct"),
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print credentials.
        let mut builder = f.debug_struct("HttpOptions");
        builder
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("jwt", &self.jwt.as_ref().map(|_| "<set>"))
            .field(
                "token_provider",
                &self.token_provider.as_ref().map(|_| "<set>"),
            )
            .field("auth_required", &self.auth_required)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("extra_roots", &self.roots.len())
            .field("proxy", &self.proxy)
            .field("pool_idle_timeout", &self.pool_idle);
        #[cfg(feature = "oauth")]
        builder.field("oauth", &self.oauth);
        builder.finish()
    }
}

impl ClientBuilder<HttpOptions> {
    /// An API key (first in precedence).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.options.api_key = Some(key.into());
        self
    }

    /// A JWT (used when no API key is set).
    pub fn jwt(mut self, token: impl Into<String>) -> Self {
        self.options.jwt = Some(token.into());
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
        self.options.token_provider = Some(Arc::new(move || Box::pin(provider())));
        self
    }

    /// The server needs credentials: connecting without any is an error, before anything is
    /// sent.
    pub fn auth_required(mut self) -> Self {
        self.options.auth_required = true;
        self
    }

    /// Trusts the CA certificate(s) of a PEM file's text as well as the system's (a private
    /// CA, a test CA). Checked at connect.
    pub fn add_root_certificate(mut self, pem: impl AsRef<[u8]>) -> Self {
        self.options.roots.push(pem.as_ref().to_vec());
        self
    }

    /// Allows sending the bearer token over plain `http://` to a host that is not loopback
    /// (a trusted private network), or to a loopback host through a proxy that is not (from
    /// `HTTP_PROXY`, `ALL_PROXY` or [`HttpClientBuilder::proxy`]). Without it such a connect is
    /// refused with [`Error::Auth`] before anything is sent; `localhost`, `*.localhost`,
    /// `127.0.0.0/8` and `::1` count as loopback.
    pub fn allow_insecure_http(mut self) -> Self {
        self.options.allow_insecure_http = true;
        self
    }

    /// Sends every request through the HTTP proxy at `url` (`http://proxy.internal:3128`;
    /// `http://user:password@…` for basic authentication): `https://` servers through a
    /// `CONNECT` tunnel (TLS stays end to end), `http://` ones forwarded. This replaces the
    /// proxies of the environment, which are used otherwise: `HTTPS_PROXY` for `https://`
    /// URLs, `HTTP_PROXY` for `http://` ones, `ALL_PROXY` for both, and none for the hosts
    /// `NO_PROXY` lists (`localhost,.internal,10.0.0.0/8`). The URL is checked at connect.
    pub fn proxy(mut self, url: impl Into<String>) -> Self {
        self.options.proxy = ProxySetting::Url(url.into());
        self
    }

    /// Connects straight to the server, ignoring the proxies of the environment.
    pub fn no_proxy(mut self) -> Self {
        self.options.proxy = ProxySetting::Direct;
        self
    }

    /// How long a kept-alive connection may sit unused and still be reused (default 2 s).
    /// Servers close idle connections on their own clock (ours and Node's after 5 s, some load
    /// balancers sooner). A connection found closed is dropped from the pool and costs a
    /// reconnect; one the server closes just as a request goes out on it can fail that
    /// request. Keep this below the server's limit.
    pub fn pool_idle_timeout(mut self, idle: Duration) -> Self {
        self.options.pool_idle = idle;
        self
    }

    /// Signs in with OAuth 2.1 where the server asks for it (a 401, or a 403 asking for more
    /// scope): see [`super::oauth`]. An API key, JWT or token provider, when set, is used
    /// instead.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.options.oauth = Some(oauth);
        self
    }

    /// Connects: resolves the credentials, then finds the protocol era (a modern
    /// `server/discover`, or the legacy `initialize` handshake; see
    /// [`Protocol`](super::Protocol)).
    pub async fn connect(#[allow(unused_mut)] mut self) -> Result<HttpClient, Error> {
        let bearer = match (
            &self.options.api_key,
            &self.options.jwt,
            &self.options.token_provider,
        ) {
            (Some(key), _, _) => Some(key.clone()),
            (None, Some(jwt), _) => Some(jwt.clone()),
            (None, None, Some(provider)) => Some(provider().await?),
            #[cfg(feature = "oauth")]
            (None, None, None) if self.options.oauth.is_some() => None,
            (None, None, None) if self.options.auth_required => {
                return Err(Error::Auth {
                    status: None,
                    message: format!(
                        "{} needs credentials: set an API key, a JWT or a token provider",
                        self.options.url
                    ),
                    www_authenticate: None,
                });
            }
            (None, None, None) => None,
        };
        let url = Url::parse(&self.options.url).map_err(|e| {
            Error::transport_source(format!("invalid URL {:?}", self.options.url), e)
        })?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            other => {
                return Err(Error::transport(format!(
                    "{:?}: the Streamable HTTP transport takes http:// or https:// URLs, not {other}://",
                    self.options.url
                )));
            }
        };
        #[cfg(feature = "oauth")]
        let oauth = self.options.oauth.is_some();
        #[cfg(not(feature = "oauth"))]
        let oauth = false;
        if (bearer.is_some() || oauth) && !https && !self.options.allow_insecure_http {
            refuse_cleartext(
                &url,
                &self.options.proxy,
                &ProxyRoutes::of(&self.options.proxy),
            )?;
        }
        let tls = tls_config(&self.options.roots, https)?;
        let runtime = io::handle()?;
        let http = {
            let _entered = runtime.enter();
            let mut http = reqwest::Client::builder();
            match &self.options.proxy {
                ProxySetting::Environment => {}
                ProxySetting::Url(proxy) => {
                    let proxy = reqwest::Proxy::all(proxy.as_str()).map_err(|e| {
                        Error::transport_source(
                            "invalid proxy URL (expected http://host:port or \
                             http://user:password@host:port)",
                            e,
                        )
                    })?;
                    http = http.proxy(proxy);
                }
                ProxySetting::Direct => http = http.no_proxy(),
            }
            http.tls_backend_preconfigured(tls)
                .pool_idle_timeout(self.options.pool_idle)
                .connect_timeout(self.settings.timeout)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("mcp-bindgen/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| Error::transport_source("could not set up the HTTP client", e))?
        };
        let credential = match bearer {
            Some(token) => Credential::Static(token),
            #[cfg(feature = "oauth")]
            None => match self.options.oauth.take() {
                Some(oauth) => Credential::OAuth(Arc::new(super::oauth::Auth::new(
                    oauth,
                    &url,
                    self.options.allow_insecure_http,
                )?)),
                None => Credential::None,
            },
            #[cfg(not(feature = "oauth"))]
            None => Credential::None,
        };
        let session = Arc::new(Session::new(self.settings));
        let inner = Arc::new(Inner {
            http,
            url,
            credential,
            session: session.clone(),
            session_id: Mutex::new(None),
            tasks: Mutex::new(Vec::new()),
            listening: AtomicBool::new(false),
        });
        McpClient::open(session, HttpTransport { inner }).await
    }
}

/// Which proxy, if any, a request goes through: the rules reqwest applies, from the same
/// source (hyper-util's matcher: the environment's variables, or the one proxy of
/// [`HttpClientBuilder::proxy`]), so that the cleartext check sees the route the request takes.
struct ProxyRoutes(Option<hyper_util::client::proxy::matcher::Matcher>);

impl ProxyRoutes {
    fn of(setting: &ProxySetting) -> Self {
        use hyper_util::client::proxy::matcher::Matcher;
        ProxyRoutes(match setting {
            ProxySetting::Environment => Some(Matcher::from_system()),
            ProxySetting::Url(proxy) => Some(Matcher::builder().all(proxy.clone()).build()),
            ProxySetting::Direct => None,
        })
    }

    /// The host of the proxy a request to `url` is sent through; `None` when it goes
    /// straight to the server. A URL the matcher cannot read counts as proxied through an
    /// unknown host, so that the check fails closed.
    fn proxy_host(&self, url: &Url) -> Option<String> {
        let matcher = self.0.as_ref()?;
        let Ok(uri) = url.as_str().parse::<http::Uri>() else {
            return Some("<unknown>".to_owned());
        };
        let intercept = matcher.intercept(&uri)?;
        Some(intercept.uri().host().unwrap_or("<unknown>").to_owned())
    }
}

/// A bearer token never crosses a hop that is neither encrypted nor loopback: for an
/// `http://` URL, the server must be loopback, and so must the proxy the request goes through,
/// if any (a forwarding proxy reads the request, token included, as sent).
fn refuse_cleartext(url: &Url, setting: &ProxySetting, routes: &ProxyRoutes) -> Result<(), Error> {
    let refuse = |message: String| {
        Err(Error::Auth {
            status: None,
            message,
            www_authenticate: None,
        })
    };
    let host = url.host_str().unwrap_or("the server");
    if !is_loopback(host) {
        return refuse(format!(
            "refusing to send the bearer token in cleartext to {host}: use an https:// URL, \
             or allow_insecure_http() on a network you trust"
        ));
    }
    match routes.proxy_host(url) {
        Some(proxy) if !is_loopback(&proxy) => {
            let (origin, bypass) = match setting {
                ProxySetting::Url(_) => ("set with proxy()", "no_proxy()"),
                _ => ("from HTTP_PROXY or ALL_PROXY", "NO_PROXY (or no_proxy())"),
            };
            refuse(format!(
                "refusing to send the bearer token in cleartext to {host} through the proxy \
                 {proxy} ({origin}), which is not on this machine: reach the server directly \
                 with {bypass}, use an https:// URL, or allow_insecure_http() on a network \
                 you trust"
            ))
        }
        _ => Ok(()),
    }
}

/// The rustls configuration: the ring provider, the system's roots plus `roots`.
fn tls_config(roots: &[Vec<u8>], https: bool) -> Result<rustls::ClientConfig, Error> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    // rustls 0.23.48 deprecates the ring provider because it has no post-quantum key
    // exchange. ring stays, for a build without cmake or NASM: key exchange is X25519 or the
    // NIST curves, as with every rustls release before.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut extra = Vec::new();
    for (index, pem) in roots.iter().enumerate() {
        let before = extra.len();
        for cert in CertificateDer::pem_slice_iter(pem) {
            extra.push(cert.map_err(|e| {
                Error::transport_source(
                    format!(
                        "root certificate #{}: not a readable PEM certificate",
                        index + 1
                    ),
                    e,
                )
            })?);
        }
        if extra.len() == before {
            return Err(Error::transport(format!(
                "root certificate #{}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
                index + 1
            )));
        }
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::transport_source("could not set up TLS", e))?;
    let mut config = if https {
        let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider)
            .map_err(|e| {
                Error::transport_source(
                    "could not load CA certificates (install the system's CA certificates, set \
                     SSL_CERT_FILE, or add one with add_root_certificate)",
                    e,
                )
            })?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth()
    } else {
        // Plain HTTP: never used for a handshake (redirects are not followed).
        builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

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

impl McpClient<HttpTransport> {
    /// Settings for a server at `url` (`https://example.com/mcp`, `http://127.0.0.1:7100/mcp`).
    pub fn builder(url: impl Into<String>) -> HttpClientBuilder {
        ClientBuilder::with(HttpOptions {
            url: url.into(),
            api_key: None,
            jwt: None,
            token_provider: None,
            auth_required: false,
            allow_insecure_http: false,
            roots: Vec::new(),
            proxy: ProxySetting::Environment,
            pool_idle: POOL_IDLE,
            #[cfg(feature = "oauth")]
            oauth: None,
        })
    }

    /// Connects with the default settings.
    pub async fn connect(url: impl Into<String>) -> Result<Self, Error> {
        HttpClient::builder(url).connect().await
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
        let what = session::describe(request.method, request.params);
        let headers = headers(
            &inner,
            Some(request.method),
            request.params,
            &request.mirrored,
            negotiated.as_ref(),
        );
        let body = bytes::Bytes::from(request.text);
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
        return Error::transport_source(format!("{url} did not answer in time"), e);
    }
    let mut message = format!("could not reach {url}");
    if let Some(hint) = tls_hint(&e) {
        message.push_str(" (");
        message.push_str(hint);
        message.push(')');
    }
    Error::transport_source(message, e)
}

/// What a certificate failure means and what to do about it, for the failures people meet
/// first: rustls names them by its variants (`UnknownIssuer`, `CaUsedAsEndEntity`, ...), which
/// say little to someone who only wanted HTTPS to work.
fn tls_hint(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    // The causes only: the top error's text holds the URL, which may say anything.
    let mut chain = String::new();
    let mut next = error.source();
    while let Some(e) = next {
        chain.push_str(&e.to_string());
        chain.push('\n');
        next = e.source();
    }
    let hints: [(&[&str], &'static str); 5] = [
        (
            &["CaUsedAsEndEntity"],
            "the server presents a CA certificate as its own, which is what the common \
             `openssl req -x509` one-liner makes, and rustls refuses it: make a CA, then a \
             server certificate signed by it (basicConstraints CA:FALSE, subjectAltName \
             naming the host), serve that, and trust the CA with .add_root_certificate(pem), \
             --cacert FILE or SSL_CERT_FILE",
        ),
        (
            &["UnknownIssuer"],
            "the server's certificate is not signed by a CA this client trusts: give the CA's \
             certificate with .add_root_certificate(pem) (--cacert FILE on the command line) or \
             SSL_CERT_FILE=ca.pem; the system's CA certificates are trusted already",
        ),
        (
            &["BadSignature"],
            "a certificate's signature does not verify against its issuer: the server sends a \
             chain that does not belong to the CA given, or a damaged one",
        ),
        (
            &["NotValidForName", "not valid for name"],
            "the certificate does not name this host: connect with a name it lists in its \
             subjectAltName (often `localhost` rather than 127.0.0.1), or reissue it",
        ),
        (
            &["certificate expired"],
            "the server's certificate has expired (or this machine's clock is wrong): renew it",
        ),
    ];
    hints
        .iter()
        .find(|(needles, _)| needles.iter().any(|needle| chain.contains(needle)))
        .map(|(_, hint)| *hint)
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
    if let Some(value) = inner.credential.header() {
        headers.insert(header::AUTHORIZATION, value);
    }
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
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str(),
        "resources/read" => params["uri"].as_str(),
        _ => None,
    };
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
    send(inner, headers, message.to_string(), id, context, negotiated).await
}

/// [`post`] for a message already written, with its headers.
async fn send(
    inner: &Arc<Inner>,
    headers: HeaderMap,
    body: impl Into<reqwest::Body>,
    id: Option<u64>,
    context: &CallContext,
    negotiated: Option<&Negotiated>,
) -> Result<Reply, Error> {
    let response = inner
        .http
        .post(inner.url.clone())
        .headers(headers)
        .body(body)
        .send()
        .await
        .map_err(|e| reach_error(&inner.url, e))?;
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
        let body = response.text().await.unwrap_or_default();
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
    let body = response
        .bytes()
        .await
        .map_err(|e| Error::transport_source("the response body broke off", e))?;
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
    let mut parser = SseParser::default();
    let mut reconnects = 0;
    loop {
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| Error::transport_source("the event stream broke off", e))?
        {
            for data in parser.push(&chunk) {
                let Some(route) = Route::of(data.as_bytes()) else {
                    continue;
                };
                if route.has_method() {
                    let Ok(message) = serde_json::from_str::<Value>(&data) else {
                        continue;
                    };
                    if route.has_id() {
                        answer_server_request(inner.clone(), message, negotiated.cloned());
                    } else {
                        inner.session.notify(&message, context);
                    }
                } else if route.id() == Some(id) {
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
        response = inner
            .http
            .get(inner.url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|e| reach_error(&inner.url, e))?;
        if !response.status().is_success() {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            return Err(refused(&shown(&inner.url), status, &body));
        }
    }
    Err(Error::transport(format!(
        "the event stream ended without the response to request {id}"
    )))
}

/// Answers a request the server sent on an event stream (legacy era), in the background.
fn answer_server_request(inner: Arc<Inner>, message: Value, negotiated: Option<Negotiated>) {
    tokio::spawn(async move {
        let answering = inner.clone();
        let Ok(reply) =
            tokio::task::spawn_blocking(move || answering.session.response_to(&message)).await
        else {
            return;
        };
        let _ = tokio::time::timeout(
            Duration::from_secs(30),
            post(
                &inner,
                &reply,
                None,
                &CallContext::default(),
                negotiated.as_ref(),
            ),
        )
        .await;
    });
}

/// The legacy era's standalone GET stream: the server's requests are answered and its
/// notifications go to the session (log lines to the log handler, tool list changes to the
/// drift checks and the application). Ends quietly when the server has no such stream (405),
/// when it closes it, or when the client is dropped.
async fn get_stream(inner: std::sync::Weak<Inner>) {
    let (http, url, mut headers) = {
        let Some(inner) = inner.upgrade() else { return };
        let negotiated = inner.session.negotiated();
        (
            inner.http.clone(),
            inner.url.clone(),
            headers(&inner, None, &Value::Null, &[], negotiated.as_ref()),
        )
    };
    headers.remove(header::CONTENT_TYPE);
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("text/event-stream"),
    );
    let Ok(mut response) = http.get(url).headers(headers).send().await else {
        return;
    };
    if !response.status().is_success() {
        return;
    }
    let mut parser = SseParser::default();
    while let Ok(Some(chunk)) = response.chunk().await {
        for data in parser.push(&chunk) {
            let Ok(message) = serde_json::from_str::<Value>(&data) else {
                continue;
            };
            let Some(inner) = inner.upgrade() else { return };
            if message.get("method").is_none() {
                continue;
            }
            if message.get("id").is_some() {
                let negotiated = inner.session.negotiated();
                answer_server_request(inner, message, negotiated);
            } else {
                inner.session.notify(&message, &CallContext::default());
            }
        }
    }
}

/// The first wait before reopening a listen stream that dropped; doubled after each failed
/// try, up to [`LISTEN_BACKOFF_MAX`].
const LISTEN_BACKOFF: Duration = Duration::from_secs(1);
const LISTEN_BACKOFF_MAX: Duration = Duration::from_secs(60);

/// How one listen stream ended.
enum Listened {
    /// The server does not serve it (or not for tools): rely on `ttlMs`.
    NotServed(String),
    /// The stream was acknowledged, then ended (the server closed it, or the connection
    /// broke): open another.
    Dropped,
    /// It could not be opened this time (the server unreachable, busy, or silent).
    Failed(String),
    /// The client was dropped.
    Gone,
}

/// What a listen request answered with something other than an event stream means: busy or
/// failing (5xx, 429) is worth another try; anything else (404 and `-32601`, a refused filter,
/// an authorization it will not grant, a JSON body) is the server's answer: it does not serve it.
fn not_a_stream(status: StatusCode, body: &str) -> Listened {
    let reason = format!("HTTP {status}: {}", body.trim());
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        Listened::Failed(reason)
    } else {
        Listened::NotServed(reason)
    }
}

/// The 2026-07-28 `subscriptions/listen` stream for tool list changes, for the life of the
/// client: each `notifications/tools/list_changed` on it makes the drift checks stale and
/// wakes the application's handlers. A stream that drops is reopened after a back-off (reset
/// once a stream is acknowledged); since a change may have come while none was open, each
/// reopened stream counts as one. A server that does not serve it, or does not honour
/// `toolsListChanged`, ends this task: the client relies on `ttlMs` then.
async fn listen_for_changes(inner: std::sync::Weak<Inner>) {
    let mut backoff = LISTEN_BACKOFF;
    let mut opened_before = false;
    loop {
        match listen_once(&inner, opened_before).await {
            Listened::Gone => return,
            Listened::NotServed(reason) => {
                #[cfg(not(feature = "tracing"))]
                log::debug!("no subscriptions/listen stream: {reason}; relying on ttlMs");
                #[cfg(feature = "tracing")]
                tracing::debug!(%reason, "no subscriptions/listen stream; relying on ttlMs");
                return;
            }
            Listened::Dropped => {
                opened_before = true;
                backoff = LISTEN_BACKOFF;
            }
            Listened::Failed(reason) => {
                #[cfg(not(feature = "tracing"))]
                log::debug!("subscriptions/listen failed ({reason}); again in {backoff:?}");
                #[cfg(feature = "tracing")]
                tracing::debug!(%reason, ?backoff, "subscriptions/listen failed; trying again");
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(LISTEN_BACKOFF_MAX);
    }
}

/// Opens one listen stream and reads it to its end. Holds the client only while it writes the
/// request and while it hands an event over, so that dropping the client ends the task.
async fn listen_once(weak: &std::sync::Weak<Inner>, opened_before: bool) -> Listened {
    let Some(inner) = weak.upgrade() else {
        return Listened::Gone;
    };
    if let Err(e) = inner.credential.prepare(&inner.http).await {
        return Listened::Failed(e.to_string());
    }
    let session = &inner.session;
    let Some(negotiated) = session.negotiated() else {
        return Listened::Gone;
    };
    let id = session.next_id();
    let params = json!({"notifications": {"toolsListChanged": true}});
    let request =
        match session.outgoing(id, "subscriptions/listen", &params, Some(&negotiated), None) {
            Ok(request) => request,
            Err(e) => return Listened::NotServed(e.to_string()),
        };
    let headers = headers(
        &inner,
        Some("subscriptions/listen"),
        &params,
        &[],
        Some(&negotiated),
    );
    let body = request.text;
    let timeout = session.settings.timeout;
    let (http, url) = (inner.http.clone(), inner.url.clone());
    drop(inner);
    let sent =
        tokio::time::timeout(timeout, http.post(url).headers(headers).body(body).send()).await;
    let mut response = match sent {
        Err(_) => return Listened::Failed(format!("no answer within {timeout:?}")),
        Ok(Err(e)) => return Listened::Failed(e.to_string()),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    let is_sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    if !is_sse {
        let body = response.text().await.unwrap_or_default();
        return not_a_stream(status, &body);
    }
    let mut parser = SseParser::default();
    let mut acknowledged = false;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let chunk = if acknowledged {
            response.chunk().await
        } else {
            match tokio::time::timeout_at(deadline, response.chunk()).await {
                Ok(chunk) => chunk,
                Err(_) => return Listened::Failed("no acknowledgement in time".to_owned()),
            }
        };
        let chunk = match chunk {
            Ok(Some(chunk)) => chunk,
            Ok(None) | Err(_) if acknowledged => return Listened::Dropped,
            Ok(None) => return Listened::Failed("the stream ended unacknowledged".to_owned()),
            Err(e) => return Listened::Failed(e.to_string()),
        };
        for data in parser.push(&chunk) {
            let Ok(message) = serde_json::from_str::<Value>(&data) else {
                continue;
            };
            if message.get("method").is_none() {
                // The listen request's response: the server ended the stream (or refused it).
                if message.get("error").is_some() && !acknowledged {
                    return Listened::NotServed(format!("answered {}", message["error"]));
                }
                return Listened::Dropped;
            }
            let tag = &message["params"]["_meta"][era::meta::SUBSCRIPTION_ID];
            if !tag.is_null() && tag.as_u64() != Some(id) {
                continue;
            }
            let Some(inner) = weak.upgrade() else {
                return Listened::Gone;
            };
            match message["method"].as_str() {
                Some("notifications/subscriptions/acknowledged") => {
                    if message["params"]["notifications"]["toolsListChanged"] != Value::Bool(true) {
                        return Listened::NotServed(
                            "the server does not honour toolsListChanged".to_owned(),
                        );
                    }
                    acknowledged = true;
                    if opened_before {
                        // A change may have come while no stream was open.
                        inner.session.tools_changed();
                    }
                }
                _ if acknowledged => inner.session.notify(&message, &CallContext::default()),
                _ => {}
            }
        }
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

    /// A hint comes from the causes, not from the URL in the top error's text.
    #[test]
    fn tls_hints_read_the_causes_only() {
        #[derive(Debug)]
        struct Top(Option<std::io::Error>);
        impl std::fmt::Display for Top {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request for url (https://h/UnknownIssuer)")
            }
        }
        impl std::error::Error for Top {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.0.as_ref().map(|e| e as _)
            }
        }
        assert_eq!(tls_hint(&Top(None)), None);
        let refused = std::io::Error::other("connection refused");
        assert_eq!(tls_hint(&Top(Some(refused))), None);
        let unknown = std::io::Error::other("invalid peer certificate: UnknownIssuer");
        assert!(tls_hint(&Top(Some(unknown))).is_some_and(|h| h.contains("add_root_certificate")));
    }

    /// The builder's `Debug` names the proxy's host, never its password.
    #[test]
    fn debug_hides_the_proxy_password() {
        let builder = HttpClient::builder("https://mcp.example/mcp")
            .proxy("http://user:s3cret@proxy.internal:3128");
        let text = format!("{builder:?}");
        assert!(text.contains("proxy.internal:3128"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
        let direct = format!(
            "{:?}",
            HttpClient::builder("https://mcp.example/mcp").no_proxy()
        );
        assert!(direct.contains("proxy: Direct"), "{direct}");
    }

    fn routes(http: &str, no: &str) -> ProxyRoutes {
        use hyper_util::client::proxy::matcher::Matcher;
        ProxyRoutes(Some(Matcher::builder().http(http).no(no).build()))
    }

    fn check(url: &str, setting: &ProxySetting, routes: &ProxyRoutes) -> Result<(), String> {
        let url = Url::parse(url).expect("URL");
        refuse_cleartext(&url, setting, routes).map_err(|e| e.to_string())
    }

    /// The cleartext check follows the request's route: a loopback server reached through a
    /// proxy that is not loopback is refused, as is a server that is not loopback; a loopback
    /// proxy, a proxy `NO_PROXY` bypasses, and no proxy at all are not.
    #[test]
    fn a_token_never_crosses_a_cleartext_hop_off_the_machine() {
        let env = ProxySetting::Environment;
        let remote = routes("http://proxy.internal:3128", "");
        let refused = check("http://127.0.0.1:7100/mcp", &env, &remote).expect_err("refused");
        assert!(
            refused.contains("through the proxy proxy.internal"),
            "{refused}"
        );
        assert!(refused.contains("HTTP_PROXY or ALL_PROXY"), "{refused}");
        assert!(refused.contains("NO_PROXY"), "{refused}");
        for url in [
            "http://localhost:7100/mcp",
            "http://[::1]:7100/mcp",
            "http://game.localhost:7100/mcp",
        ] {
            assert!(
                check(url, &env, &remote).is_err(),
                "{url} through a remote proxy"
            );
            assert_eq!(
                check(url, &ProxySetting::Direct, &ProxyRoutes(None)),
                Ok(()),
                "{url}"
            );
        }
        // NO_PROXY covering the loopback host: the request goes straight there.
        let bypassed = routes("http://proxy.internal:3128", "127.0.0.1,localhost");
        assert_eq!(check("http://127.0.0.1:7100/mcp", &env, &bypassed), Ok(()));
        // A proxy on this machine keeps the token on it.
        for proxy in [
            "http://127.0.0.1:3128",
            "http://[::1]:3128",
            "http://localhost:3128",
        ] {
            assert_eq!(
                check("http://127.0.0.1:7100/mcp", &env, &routes(proxy, "")),
                Ok(()),
                "{proxy}"
            );
        }
        // An explicit proxy() names itself in the message.
        let explicit = ProxySetting::Url("http://proxy.internal:3128".to_owned());
        let refused = check(
            "http://127.0.0.1:7100/mcp",
            &explicit,
            &ProxyRoutes::of(&explicit),
        )
        .expect_err("refused");
        assert!(refused.contains("set with proxy()"), "{refused}");
        // A server that is not loopback, with or without a proxy.
        let refused = check(
            "http://mcp.example/mcp",
            &ProxySetting::Direct,
            &ProxyRoutes(None),
        )
        .expect_err("refused");
        assert!(refused.contains("in cleartext to mcp.example"), "{refused}");
    }

    #[test]
    fn a_listen_answered_without_a_stream_is_retried_only_when_the_server_is_busy() {
        let not_found =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
        for (status, body) in [
            (StatusCode::NOT_FOUND, not_found),
            (StatusCode::OK, not_found),
            (StatusCode::BAD_REQUEST, ""),
            (StatusCode::UNAUTHORIZED, ""),
            (StatusCode::METHOD_NOT_ALLOWED, ""),
        ] {
            assert!(
                matches!(not_a_stream(status, body), Listened::NotServed(_)),
                "{status}: relies on ttlMs"
            );
        }
        for status in [
            StatusCode::SERVICE_UNAVAILABLE,
            StatusCode::BAD_GATEWAY,
            StatusCode::TOO_MANY_REQUESTS,
        ] {
            match not_a_stream(status, "busy") {
                Listened::Failed(reason) => assert!(reason.contains("busy"), "{reason}"),
                _ => panic!("{status}: tried again after the back-off"),
            }
        }
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "LOCALHOST",
            "localhost.",
            "a.b.localhost",
            "127.0.0.1",
            "127.9.8.7",
            "::1",
            "[::1]",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "localhost.example",
            "mylocalhost",
            "10.0.0.1",
            "0.0.0.0",
            "::",
            "[::ffff:10.0.0.1]",
            "<unknown>",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
