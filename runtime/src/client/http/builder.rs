//! The Streamable HTTP client's options and its connect: the credentials (resolved once), the
//! URL's scheme, the cleartext rule, TLS and proxies, then the era.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Url;

use super::auth::Credential;
use super::policy::{ProxyRoutes, ProxySetting, refuse_cleartext, tls_config};
use super::{HttpTransport, Inner, POOL_IDLE};
use crate::Error;
use crate::client::io;
use crate::client::{ClientBuilder, HttpClient, McpClient, Session};

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
    oauth: Option<crate::oauth::OAuth>,
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
    /// scope): see [`crate::oauth`]. An API key, JWT or token provider, when set, is used
    /// instead.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: crate::oauth::OAuth) -> Self {
        self.options.oauth = Some(oauth);
        self
    }

    /// Connects: resolves the credentials, then finds the protocol era (a modern
    /// `server/discover`, or the legacy `initialize` handshake; see
    /// [`Protocol`](crate::client::Protocol)).
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
            // What does not parse is shown without what may be a key: its query.
            let shown = self
                .options
                .url
                .split(['?', '#'])
                .next()
                .unwrap_or_default();
            let hint = if !self.options.url.contains("://") {
                format!(" (no scheme: write it whole, https://{shown})")
            } else {
                String::new()
            };
            Error::transport_source(format!("invalid URL {shown:?}{hint}"), e)
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
                Some(oauth) => Credential::OAuth(Arc::new(crate::oauth::Auth::new(
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
