//! OAuth 2.1 for [`HttpClient`](crate::HttpClient) (feature `oauth`), as the MCP authorization
//! spec describes it: on a 401 (or a 403 asking for more scope) the HTTP transport's
//! credential layer asks this module for credentials and sends the request again.
//!
//! - Discovery: the challenge's `resource_metadata`, else the protected resource metadata at
//!   its well-known locations (RFC 9728: with the server's path, then the root); the
//!   metadata's `resource` must cover the server (RFC 8707); then the authorization server's
//!   metadata (RFC 8414 and OpenID Connect, with the path inserted, then appended), whose
//!   `issuer` must be exactly the one named.
//! - Registration: pre-registered credentials, else a client ID metadata document URL when the
//!   server supports it, else a registration kept for that issuer, else dynamic registration
//!   (RFC 7591, `application_type: native`).
//! - Authorization code with PKCE (S256), `state`, `resource` on every request, and the `iss`
//!   response parameter checked (RFC 9207); the step where a person approves is the
//!   application's [`OAuth::on_authorize`] hook.
//! - Scopes from the challenge, else the resource metadata, plus `offline_access` where the
//!   authorization server lists it; on `insufficient_scope`, the union of what was asked and
//!   what is missing, once.
//! - Tokens refreshed before they expire and once on a 401, one refresh for any number of
//!   waiting calls, kept in a [`TokenStore`] per resource; a server that moved to another
//!   authorization server is registered with again and never sees the old tokens.
//! - Machines: the client credentials grant, with a secret ([`OAuth::client_credentials`]) or
//!   a signed JWT ([`OAuth::client_credentials_jwt`], `private_key_jwt`); workload identity
//!   and enterprise-managed authorization (JWT-bearer grants).
//! - Sender-constrained tokens (DPoP, RFC 9449, [`Dpop`]): a key of the client's, kept with
//!   the tokens, and a proof on every token request and every request to the MCP server,
//!   with the servers' nonces (`use_dpop_nonce`) honoured.
//!
//! Codes, verifiers, tokens and secrets never appear in `Debug`, `Display` or errors, and go
//! only to the endpoints they belong to, never over `http://` to a host that is not loopback.

mod browser;
mod dpop;
mod metadata;
mod pkce;
mod store;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use reqwest::header::{self, HeaderValue};
use serde_json::{Value, json};

pub use browser::BrowserSignIn;
pub use dpop::Dpop;
pub use metadata::Challenge;
pub use store::{ClientRegistration, FileTokenStore, MemoryTokenStore, Secret, TokenStore, Tokens};

use crate::Error;
use dpop::DpopKey;
use metadata::{ResourceMetadata, ServerMetadata};

/// The header a DPoP proof travels in, and the one a server's nonce comes back in.
pub(crate) const DPOP: &str = "dpop";
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// A token is refreshed before it is used once this close to its expiry, or once half its
/// lifetime is gone, whichever comes later.
const REFRESH_AHEAD: Duration = Duration::from_secs(60);

/// What the application's authorization step gets: the URL to open (in a browser, for a
/// person to approve) and the redirect URI the authorization server will send the browser to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationRequest {
    /// The authorization URL, with the PKCE challenge, `state`, `resource` and scopes.
    pub url: String,
    /// Where the authorization server redirects once the person approved.
    pub redirect_uri: String,
    /// Why a person is asked again, when the client held tokens that stopped working (a
    /// refresh token the authorization server refused, with its `error`): for the application
    /// to say so.
    pub reason: Option<String>,
}

impl AuthorizationRequest {
    /// A request to approve `url`, to be redirected to `redirect_uri` (for testing an
    /// authorization step; the client makes its own).
    pub fn new(url: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        AuthorizationRequest {
            url: url.into(),
            redirect_uri: redirect_uri.into(),
            reason: None,
        }
    }
}

/// The application's authorization step: opens [`AuthorizationRequest::url`] and returns the
/// full URL the browser was redirected to (`http://127.0.0.1:PORT/callback?code=…&state=…`).
pub type Authorizer = Arc<
    dyn Fn(AuthorizationRequest) -> Pin<Box<dyn Future<Output = Result<String, Error>> + Send>>
        + Send
        + Sync,
>;

/// How the client gets its tokens.
#[derive(Clone)]
enum Grant {
    /// A person approves in a browser (the authorization code grant).
    AuthorizationCode,
    /// A machine authenticates as itself (the client credentials grant).
    ClientCredentials,
    /// A JWT the workload's platform issued, as the grant itself (RFC 7523 section 2.1,
    /// workload identity federation).
    JwtBearer(Assertion),
    /// The identity provider's token of a user, exchanged at the provider for an identity
    /// assertion authorization grant (RFC 8693), then at the authorization server for the
    /// token (RFC 7523): enterprise-managed authorization.
    IdJag {
        /// The identity provider's token endpoint.
        endpoint: String,
        /// The user's ID token from the identity provider.
        id_token: Secret,
        /// This client's id at the identity provider, when it has one.
        idp_client_id: Option<String>,
    },
}

impl Grant {
    fn name(&self) -> &'static str {
        match self {
            Grant::AuthorizationCode => "authorization_code",
            Grant::ClientCredentials => "client_credentials",
            Grant::JwtBearer(_) => "jwt-bearer (workload identity)",
            Grant::IdJag { .. } => "jwt-bearer with an ID-JAG (enterprise-managed)",
        }
    }
}

/// The JWT-bearer grant's type (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Where a workload's JWT comes from: read anew for every token request, so that a token the
/// platform rotates is followed.
#[derive(Clone)]
enum Assertion {
    /// A file the platform writes (and rewrites before the token in it expires).
    File(std::path::PathBuf),
    /// The application's own source.
    Source(Arc<dyn Fn() -> Result<String, Error> + Send + Sync>),
}

impl Assertion {
    fn read(&self) -> Result<Secret, Error> {
        let text = match self {
            Assertion::File(path) => std::fs::read_to_string(path).map_err(|e| {
                Error::transport_source(
                    format!(
                        "OAuth workload identity: cannot read the token file {}",
                        path.display()
                    ),
                    e,
                )
            })?,
            Assertion::Source(source) => source()?,
        };
        let token = text.trim();
        if token.is_empty() {
            return Err(auth_error(
                "OAuth workload identity: the workload's token is empty: has the platform \
                 written it yet?",
            ));
        }
        Ok(Secret::new(token))
    }
}

/// OAuth 2.1 settings for [`HttpClientBuilder::oauth`](crate::client::HttpClientBuilder::oauth).
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_bindgen::Error> {
/// use mcp_bindgen::oauth::{FileTokenStore, OAuth};
/// let oauth = OAuth::new()
///     .client_metadata_url("https://app.example/oauth/client.json")
///     .redirect_uri("http://127.0.0.1:8976/callback")
///     .token_store(FileTokenStore::new("my-app-tokens"))
///     .on_authorize(|request| async move {
///         println!("open {} and paste the address you land on", request.url);
///         let mut line = String::new();
///         std::io::stdin().read_line(&mut line).map_err(|e| {
///             mcp_bindgen::Error::transport_source("could not read the redirect", e)
///         })?;
///         Ok(line.trim().to_owned())
///     });
/// let _client = mcp_bindgen::HttpClient::builder("https://mcp.example/mcp")
///     .oauth(oauth)
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuth {
    grant: Grant,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    client_metadata_url: Option<String>,
    client_name: String,
    redirect_uri: String,
    scope: Option<String>,
    authorizer: Option<Authorizer>,
    store: Arc<dyn TokenStore>,
    /// `private_key_jwt`: the signing algorithm and the PKCS#8 PEM key.
    signing_key: Option<(String, Secret)>,
    dpop: Dpop,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("grant", &self.grant.name())
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("redirect_uri", &self.redirect_uri)
            .field("scope", &self.scope)
            .field("authorizer", &self.authorizer.as_ref().map(|_| "<hook>"))
            .field(
                "signing_key",
                &self
                    .signing_key
                    .as_ref()
                    .map(|(alg, _)| format!("{alg} <secret>")),
            )
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl Default for OAuth {
    fn default() -> Self {
        OAuth::new()
    }
}

impl OAuth {
    /// The authorization code grant, registering dynamically unless told otherwise, with an
    /// in-memory token store and the redirect URI `http://127.0.0.1/callback`.
    pub fn new() -> Self {
        OAuth {
            grant: Grant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            redirect_uri: "http://127.0.0.1/callback".to_owned(),
            scope: None,
            authorizer: None,
            store: Arc::new(MemoryTokenStore::new()),
            signing_key: None,
            dpop: Dpop::default(),
        }
    }

    /// The client credentials grant (a machine, no person): the token endpoint is asked with
    /// this client's id and secret (`client_secret_basic`, or `client_secret_post` where the
    /// server supports only that).
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        OAuth {
            grant: Grant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_secret: Some(Secret::new(secret)),
            ..OAuth::new()
        }
    }

    /// The client credentials grant with `private_key_jwt` (RFC 7523): the client proves who it
    /// is with a JWT signed by its private key (`algorithm` `ES256` or `RS256`; the key as
    /// PKCS#8 PEM, `-----BEGIN PRIVATE KEY-----`), whose audience is the authorization server's
    /// issuer. The key is read when the token is asked for; a key that does not fit the
    /// algorithm is an [`Error::Auth`] then.
    pub fn client_credentials_jwt(
        client_id: impl Into<String>,
        private_key_pem: impl Into<String>,
        algorithm: impl Into<String>,
    ) -> Self {
        OAuth {
            grant: Grant::ClientCredentials,
            client_id: Some(client_id.into()),
            signing_key: Some((algorithm.into(), Secret::new(private_key_pem))),
            ..OAuth::new()
        }
    }

    /// Workload identity (RFC 7523 JWT as the authorization grant): no person, no client
    /// secret; the token the workload's platform issued (a cloud's, a CI system's, a Kubernetes
    /// service account's) is read from `path` at every token request, so that the platform
    /// can rotate the file while the client runs. Its audience must be the authorization
    /// server. A refused token is an [`Error::Auth`] at once (the grant is not retried).
    pub fn workload_identity_file(path: impl Into<std::path::PathBuf>) -> Self {
        OAuth {
            grant: Grant::JwtBearer(Assertion::File(path.into())),
            ..OAuth::new()
        }
    }

    /// [`OAuth::workload_identity_file`] with the token from `source`, called at every token
    /// request (a platform's metadata endpoint, an environment variable).
    pub fn workload_identity(
        source: impl Fn() -> Result<String, Error> + Send + Sync + 'static,
    ) -> Self {
        OAuth {
            grant: Grant::JwtBearer(Assertion::Source(Arc::new(source))),
            ..OAuth::new()
        }
    }

    /// Enterprise-managed authorization (an identity assertion authorization grant, ID-JAG):
    /// the user's `id_token` from the company's identity provider is exchanged at the
    /// provider's `idp_token_endpoint` (RFC 8693) for an assertion naming the MCP server's
    /// authorization server and resource, which that server exchanges for the access token
    /// (RFC 7523), authenticating this client ([`OAuth::client_id`] and
    /// [`OAuth::client_secret`]). No browser: the company's policy decides at the provider.
    pub fn enterprise(idp_token_endpoint: impl Into<String>, id_token: impl Into<String>) -> Self {
        OAuth {
            grant: Grant::IdJag {
                endpoint: idp_token_endpoint.into(),
                id_token: Secret::new(id_token),
                idp_client_id: None,
            },
            ..OAuth::new()
        }
    }

    /// This client's id at the identity provider, sent with the exchange of
    /// [`OAuth::enterprise`].
    pub fn idp_client_id(mut self, client_id: impl Into<String>) -> Self {
        if let Grant::IdJag { idp_client_id, .. } = &mut self.grant {
            *idp_client_id = Some(client_id.into());
        }
        self
    }

    /// A client registered beforehand with the authorization server (used instead of a
    /// metadata document or dynamic registration).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The secret of a pre-registered confidential client.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(Secret::new(secret));
        self
    }

    /// The HTTPS URL of this client's ID metadata document, used as its client id where the
    /// authorization server supports that (`client_id_metadata_document_supported`).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The name a dynamic registration gives (default: this crate's name).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Where the authorization server sends the browser back (default
    /// `http://127.0.0.1/callback`; a loopback listener's `http://127.0.0.1:PORT/callback`).
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// Scopes to ask for besides those the server's challenge or metadata name (space
    /// separated).
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// The authorization step (see [`Authorizer`]). Without one, a server that needs a person
    /// to approve is an [`Error::Auth`] naming the URL to open.
    pub fn on_authorize<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(AuthorizationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Error>> + Send + 'static,
    {
        self.authorizer = Some(Arc::new(move |request| Box::pin(hook(request))));
        self
    }

    /// Signs in with the system browser and a loopback redirect: `sign_in`'s redirect URI
    /// (`http://127.0.0.1:PORT/callback`) and its [`BrowserSignIn::authorize`] as the
    /// authorization step (replacing [`OAuth::redirect_uri`] and [`OAuth::on_authorize`]).
    pub fn browser_sign_in(self, sign_in: BrowserSignIn) -> Self {
        let redirect_uri = sign_in.redirect_uri();
        let sign_in = Arc::new(sign_in);
        self.redirect_uri(redirect_uri)
            .on_authorize(move |request| {
                let sign_in = sign_in.clone();
                async move { sign_in.authorize(request).await }
            })
    }

    /// Where tokens and registrations are kept (default: in memory).
    pub fn token_store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Whether tokens are bound to a key of the client's (DPoP, RFC 9449; default
    /// [`Dpop::WhenOffered`]), for every grant. A bound token is sent as
    /// `Authorization: DPoP` with a proof signed for each request, so that whoever copies it
    /// off a log or a proxy cannot use it. The key (P-256) is made at the first grant and kept
    /// with the tokens in the [`TokenStore`].
    ///
    /// ```
    /// use mcp_bindgen::oauth::{Dpop, OAuth};
    /// let oauth = OAuth::client_credentials("reporting-bot", "s3cret").dpop(Dpop::Required);
    /// # let _ = oauth;
    /// ```
    pub fn dpop(mut self, dpop: Dpop) -> Self {
        self.dpop = dpop;
        self
    }
}

pub(super) fn auth_error(message: impl Into<String>) -> Error {
    Error::Auth {
        status: None,
        message: message.into(),
        www_authenticate: None,
    }
}

/// GETs a metadata document: `None` for any status but success (the caller tries the next
/// location), an error when the server cannot be reached or the document is not JSON.
pub(super) async fn fetch_json(http: &reqwest::Client, url: &Url) -> Result<Option<Value>, Error> {
    let response = http
        .get(url.clone())
        .header(header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| Error::web(format!("OAuth discovery: could not reach {url}"), e))?;
    if !response.status().is_success() {
        return Ok(None);
    }
    let bytes = answer_within(response, &format!("OAuth discovery: {url}")).await?;
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        Error::transport_source(
            format!("OAuth discovery: {url} did not answer with JSON"),
            e,
        )
    })
}

/// The most an authorization server's document or answer may hold: 1 MiB (metadata and token
/// answers are a few KB).
const ANSWER_BYTES: usize = 1024 * 1024;

/// An authorization server's answer, refused past [`ANSWER_BYTES`] before the rest is read.
async fn answer_within(response: reqwest::Response, what: &str) -> Result<bytes::Bytes, Error> {
    crate::client::body::body_within(
        response,
        ANSWER_BYTES,
        what,
        "1 MiB, the most an OAuth answer may hold",
    )
    .await
}

/// [`answer_within`] as text.
async fn read_answer(response: reqwest::Response, what: &str) -> Result<String, Error> {
    let body = answer_within(response, what).await?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

pub(super) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The access token the headers carry, and which one it is.
#[derive(Debug, Clone)]
pub(crate) struct Bearer {
    pub(crate) token: Arc<str>,
    pub(crate) generation: u64,
    /// Bound to the client's key (DPoP): sent as `Authorization: DPoP` with a proof.
    pub(crate) dpop: bool,
}

/// What the flow learnt and holds between authorizations (behind the single-flight lock).
#[derive(Debug, Default)]
struct Flow {
    tokens: Option<Tokens>,
    /// The scopes last asked for.
    requested: Option<String>,
    /// The authorization server of the last discovery, and its metadata.
    server: Option<ServerMetadata>,
    /// The `resource` sent, as the resource metadata wrote it.
    resource: Option<String>,
    client: Option<ClientRegistration>,
    /// Why the next authorization asks a person again (see [`AuthorizationRequest::reason`]).
    reason: Option<String>,
    /// The MCP server challenged with the `DPoP` scheme.
    offered_dpop: bool,
}

/// One client's OAuth state: the settings, the current token (read by every request without
/// waiting) and the flow (one at a time).
pub(crate) struct Auth {
    config: OAuth,
    server: Url,
    /// The store's key for this server's tokens.
    key: String,
    allow_insecure_http: bool,
    current: RwLock<Option<Bearer>>,
    /// When the current token is due for a refresh, in seconds since the Unix epoch
    /// (`u64::MAX`: never).
    refresh_at: AtomicU64,
    generation: AtomicU64,
    flow: tokio::sync::Mutex<Flow>,
    /// The key bound tokens are bound to: the stored tokens', else made at the first grant
    /// that binds; one for the life of the client.
    dpop_key: std::sync::Mutex<Option<Arc<DpopKey>>>,
    /// The last `DPoP-Nonce` of the authorization server, and of the MCP server.
    as_nonce: std::sync::Mutex<Option<String>>,
    /// A registered client the authorization server no longer knows (it answered a token
    /// request with `invalid_client`: it restarted, or the registration expired): the next
    /// authorization registers anew rather than sending a person to a page that refuses it.
    refused_client: std::sync::Mutex<Option<String>>,
    rs_nonce: RwLock<Option<Arc<str>>>,
    presigned: dpop::Presigned,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("config", &self.config)
            .field("server", &self.server.as_str())
            .finish_non_exhaustive()
    }
}

/// Why a refusal did or did not lead to new credentials.
pub(crate) enum Outcome {
    /// New credentials: send the request again.
    Retry,
    /// Nothing more to try: the refusal stands.
    GiveUp,
}

impl Auth {
    /// The state for `server`, with the tokens the store kept for it (used until refused).
    pub(crate) fn new(
        config: OAuth,
        server: &Url,
        allow_insecure_http: bool,
    ) -> Result<Self, Error> {
        let key = server.as_str().to_owned();
        let mut tokens = config.store.tokens(&key)?;
        let mut dpop_key = None;
        if let Some(stored) = tokens.as_ref().and_then(|t| t.dpop_key.as_ref()) {
            match DpopKey::from_stored(stored) {
                Ok(found) => dpop_key = Some(Arc::new(found)),
                // Bound tokens without their key are of no use: sign in again.
                Err(_e) => {
                    #[cfg(feature = "tracing")]
                    tracing::warn!(error = %_e, "the stored tokens' DPoP key is unreadable");
                    tokens = None;
                }
            }
        }
        let auth = Auth {
            config,
            server: server.clone(),
            key,
            allow_insecure_http,
            current: RwLock::new(None),
            refresh_at: AtomicU64::new(u64::MAX),
            generation: AtomicU64::new(0),
            flow: tokio::sync::Mutex::new(Flow {
                tokens: tokens.clone(),
                ..Flow::default()
            }),
            dpop_key: std::sync::Mutex::new(dpop_key),
            as_nonce: std::sync::Mutex::new(None),
            refused_client: std::sync::Mutex::new(None),
            rs_nonce: RwLock::new(None),
            presigned: dpop::Presigned::default(),
        };
        if let Some(tokens) = &tokens {
            auth.publish(tokens);
        }
        Ok(auth)
    }

    /// The token for the next request, if any.
    pub(crate) fn bearer(&self) -> Option<Bearer> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn publish(&self, tokens: &Tokens) {
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Bearer {
            token: Arc::from(tokens.access_token.expose()),
            generation,
            dpop: tokens.dpop_key.is_some(),
        });
        let refresh_at = tokens.expires_at.map_or(u64::MAX, |expires_at| {
            let lifetime = expires_at.saturating_sub(now());
            expires_at - (lifetime / 2).min(REFRESH_AHEAD.as_secs())
        });
        self.refresh_at.store(refresh_at, Ordering::Release);
    }

    fn withdraw(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.refresh_at.store(u64::MAX, Ordering::Release);
    }

    /// The key of bound tokens: the one in use, else a new one (kept for the client's life).
    fn dpop_key(&self) -> Result<Arc<DpopKey>, Error> {
        let mut key = crate::client::lock(&self.dpop_key);
        if let Some(key) = key.as_ref() {
            return Ok(key.clone());
        }
        let made = Arc::new(DpopKey::generate()?);
        *key = Some(made.clone());
        Ok(made)
    }

    /// The key for a grant at `server`, when its tokens are to be bound (see [`Dpop`]).
    fn dpop_for(
        &self,
        flow: &Flow,
        server: &ServerMetadata,
    ) -> Result<Option<Arc<DpopKey>>, Error> {
        let es256 = server
            .dpop_algorithms
            .as_ref()
            .map(|algorithms| algorithms.iter().any(|a| a == "ES256"));
        let bind = match self.config.dpop {
            Dpop::Off => false,
            Dpop::WhenOffered => es256.unwrap_or(flow.offered_dpop),
            Dpop::Required if es256 == Some(false) => {
                return Err(auth_error(format!(
                    "OAuth DPoP: the authorization server {} accepts proofs signed with {} \
                     only; this client signs ES256 (or do not require DPoP)",
                    server.issuer,
                    server
                        .dpop_algorithms
                        .as_deref()
                        .unwrap_or_default()
                        .join(", ")
                )));
            }
            Dpop::Required => true,
        };
        if bind {
            self.dpop_key().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The `DPoP` header of a request to the MCP server with `method`, carrying the bound
    /// `access_token`: a new proof, with the server's last nonce (for a POST, the one signed
    /// ahead when it fits; see [`Auth::sign_ahead`]).
    pub(crate) fn resource_proof(&self, method: &str, access_token: &str) -> Result<String, Error> {
        let nonce = self.resource_nonce();
        if method == "POST"
            && let Some(proof) = self.presigned.take(access_token, nonce.as_deref())
        {
            return Ok(proof);
        }
        let key = crate::client::lock(&self.dpop_key)
            .clone()
            .ok_or_else(|| auth_error("OAuth DPoP: a bound token without its key"))?;
        key.proof(
            method,
            self.server.as_str(),
            Some(access_token),
            nonce.as_deref(),
        )
    }

    fn resource_nonce(&self) -> Option<Arc<str>> {
        self.rs_nonce
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Signs the proof of the next POST with `access_token` on the I/O runtime's blocking
    /// thread, while the request that just took one is on its way (unless one is being signed
    /// already). The I/O thread reads the answer meanwhile: signing there delayed it (section 8
    /// of BENCHMARKS.md).
    pub(crate) fn sign_ahead(self: &Arc<Self>, access_token: &str) {
        let Ok(runtime) = crate::client::io::handle() else {
            return;
        };
        let Some(key) = crate::client::lock(&self.dpop_key).clone() else {
            return;
        };
        if !self.presigned.start() {
            return;
        }
        let auth = self.clone();
        let token: Arc<str> = Arc::from(access_token);
        runtime.spawn_blocking(move || {
            let nonce = auth.resource_nonce();
            auth.presigned
                .fill(&key, auth.server.as_str(), token, nonce);
        });
    }

    /// Notes the MCP server's `DPoP-Nonce` (on any answer, refusal or not: RFC 9449 section
    /// 9), for the next proofs.
    pub(crate) fn note_resource_nonce(&self, nonce: &str) {
        let mut kept = self
            .rs_nonce
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if kept.as_deref() != Some(nonce) {
            *kept = Some(Arc::from(nonce));
        }
    }

    /// Whether the token is due for a refresh (an atomic load and the clock).
    pub(crate) fn due(&self) -> bool {
        let refresh_at = self.refresh_at.load(Ordering::Acquire);
        refresh_at != u64::MAX && now() >= refresh_at
    }

    /// Before a request: a token about to expire is refreshed first (one refresh however many
    /// calls wait), or without a refresh token asked for again by a grant that needs no
    /// person. Costs an atomic load when the token is fresh.
    pub(crate) async fn prepare(&self, http: &reqwest::Client) -> Result<(), Error> {
        if !self.due() {
            return Ok(());
        }
        let mut flow = self.flow.lock().await;
        // Another call may have refreshed while this one waited.
        if !self.due() {
            return Ok(());
        }
        if flow
            .tokens
            .as_ref()
            .is_some_and(|t| t.refresh_token.is_some())
            && self.refresh(&mut flow, http).await.is_ok()
        {
            return Ok(());
        }
        // A grant that needs no person is asked again before the token lapses: a workload's
        // token is read anew (the platform may have rotated it), credentials sent again. A
        // refusal fails this call at once; the grant is not retried.
        if !matches!(self.config.grant, Grant::AuthorizationCode) {
            self.withdraw();
            flow.tokens = None;
            return self.authorize(&mut flow, http, None, None).await;
        }
        // No refresh possible: the request goes with what it has, and a 401 starts over.
        Ok(())
    }

    /// After a 401 or 403 to a request that carried the token of `generation` (`None`: no
    /// token): new credentials, or why not.
    pub(crate) async fn on_refusal(
        &self,
        http: &reqwest::Client,
        status: u16,
        www_authenticate: Option<&str>,
        generation: Option<u64>,
    ) -> Result<Outcome, Error> {
        let challenge = www_authenticate.and_then(Challenge::parse);
        // The MCP server wants its nonce in the proof (RFC 9449 section 9): the answer named it
        // (noted as it arrived) and the same token goes again with a new proof.
        if status == 401
            && let Some(challenge) = &challenge
            && challenge.error.as_deref() == Some("use_dpop_nonce")
        {
            let bound = self
                .bearer()
                .is_some_and(|b| b.dpop && Some(b.generation) == generation);
            let nonce = self
                .rs_nonce
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .is_some();
            return Ok(if bound && nonce {
                Outcome::Retry
            } else {
                Outcome::GiveUp
            });
        }
        let mut flow = self.flow.lock().await;
        if challenge.as_ref().is_some_and(|c| c.dpop) {
            flow.offered_dpop = true;
        }
        // Another call replaced the refused token while this one waited: use the new one.
        let current = self.bearer().map(|b| b.generation);
        if current.is_some() && current != generation {
            return Ok(Outcome::Retry);
        }
        if status == 403 {
            let Some(challenge) = challenge
                .as_ref()
                .filter(|c| c.error.as_deref() == Some("insufficient_scope"))
            else {
                return Ok(Outcome::GiveUp);
            };
            // Step-up: only when the challenge asks for something not yet asked for.
            let asked = union(
                flow.requested.as_deref(),
                flow.tokens.as_ref().and_then(|t| t.scope.as_deref()),
            );
            let wanted = challenge.scope.as_deref().unwrap_or("");
            if wanted.split_whitespace().all(|s| has_scope(&asked, s)) {
                return Ok(Outcome::GiveUp);
            }
            let scope = union(Some(&asked), Some(wanted));
            self.authorize(&mut flow, http, Some(challenge), Some(scope))
                .await?;
            return Ok(Outcome::Retry);
        }
        // 401: a token we held is no longer good. Refresh once, else start over.
        if generation.is_some() {
            self.withdraw();
            if flow
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some())
            {
                match self.refresh(&mut flow, http).await {
                    Ok(()) => return Ok(Outcome::Retry),
                    Err(e) => {
                        flow.reason = Some(format!(
                            "the stored tokens stopped working and refreshing them failed ({e})"
                        ));
                    }
                }
            } else {
                flow.reason = Some("the stored access token was refused".to_owned());
            }
            flow.tokens = None;
            self.config.store.remove_tokens(&self.key)?;
        }
        self.authorize(&mut flow, http, challenge.as_ref(), None)
            .await?;
        Ok(Outcome::Retry)
    }

    /// Refreshes the access token with the refresh token, at the issuer that issued it.
    async fn refresh(&self, flow: &mut Flow, http: &reqwest::Client) -> Result<(), Error> {
        let Some(tokens) = flow.tokens.clone() else {
            return Err(auth_error("OAuth refresh: no tokens"));
        };
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Err(auth_error("OAuth refresh: no refresh token"));
        };
        let server = match flow.server.clone().filter(|s| s.issuer == tokens.issuer) {
            Some(server) => server,
            None => metadata::server_metadata(http, &tokens.issuer)
                .await?
                .ok_or_else(|| {
                    auth_error(format!(
                        "OAuth refresh: no metadata for the issuer {:?}",
                        tokens.issuer
                    ))
                })?,
        };
        // The client that was registered, else the one configured (a machine's credentials
        // authenticate its refresh too).
        let client = match flow.client.clone() {
            Some(client) => Some(client),
            None => self
                .config
                .store
                .client(&server.issuer)?
                .or_else(|| self.pre_registered()),
        };
        let resource = flow
            .resource
            .clone()
            .unwrap_or_else(|| self.server.as_str().to_owned());
        let mut form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.expose().to_owned()),
            ("resource", resource),
        ];
        if let Some(scope) = &tokens.scope {
            form.push(("scope", scope.clone()));
        }
        // A refresh token of bound tokens is bound too (RFC 9449 section 5).
        let dpop = match tokens.dpop_key {
            Some(_) => Some(self.dpop_key()?),
            None => None,
        };
        let fresh = self
            .token_request(http, &server, client.as_ref(), form, dpop, "refresh")
            .await?;
        let tokens = Tokens {
            issuer: server.issuer.clone(),
            // A refresh response without a refresh token keeps the one that was used.
            refresh_token: fresh.refresh_token.or(Some(refresh_token)),
            scope: fresh.scope.or(tokens.scope),
            ..fresh
        };
        self.keep(flow, tokens)?;
        flow.server = Some(server);
        Ok(())
    }

    fn keep(&self, flow: &mut Flow, tokens: Tokens) -> Result<(), Error> {
        self.config.store.save_tokens(&self.key, &tokens)?;
        self.publish(&tokens);
        flow.tokens = Some(tokens);
        Ok(())
    }

    /// Discovery, registration and a grant, from the top.
    async fn authorize(
        &self,
        flow: &mut Flow,
        http: &reqwest::Client,
        challenge: Option<&Challenge>,
        step_up: Option<String>,
    ) -> Result<(), Error> {
        // The protected resource metadata: re-read on every authorization (it names the
        // authorization server, which may have changed).
        let urls = metadata::resource_metadata_urls(&self.server, challenge);
        let found = metadata::resource_metadata(http, &urls).await?;
        let (resource, issuer, resource_scopes) = match &found {
            Some((
                url,
                ResourceMetadata {
                    resource,
                    authorization_servers,
                    scopes_supported,
                },
            )) => {
                let resource = match resource {
                    Some(resource) if metadata::resource_covers(resource, &self.server) => {
                        resource.clone()
                    }
                    Some(resource) => {
                        return Err(auth_error(format!(
                            "OAuth discovery: the protected resource metadata at {url} is for \
                             {resource:?}, not for {} (RFC 8707): refusing to authorize",
                            self.server
                        )));
                    }
                    None => self.server.as_str().to_owned(),
                };
                let Some(issuer) = authorization_servers.first() else {
                    return Err(auth_error(format!(
                        "OAuth discovery: the protected resource metadata at {url} names no \
                         authorization_servers"
                    )));
                };
                (resource, issuer.clone(), scopes_supported.clone())
            }
            // A 2025-03-26 server: its origin is its authorization server.
            None => (
                self.server.as_str().to_owned(),
                self.server.origin().ascii_serialization(),
                None,
            ),
        };
        // No metadata at all: a 2025-03-26 server's default endpoints are guessed, and an
        // error on the way says so (the server may not use OAuth).
        let mut guessed = false;
        let server = match metadata::server_metadata(http, &issuer).await? {
            Some(server) => server,
            None if found.is_none() => {
                guessed = true;
                fallback_endpoints(&issuer)
            }
            None => {
                return Err(auth_error(format!(
                    "OAuth discovery: no authorization server metadata for {issuer:?} at any of \
                     its well-known locations"
                )));
            }
        };
        for endpoint in [
            Some(&server.token_endpoint),
            server.authorization_endpoint.as_ref(),
            server.registration_endpoint.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            self.check_endpoint(endpoint)?;
        }
        // A server that moved to another authorization server: nothing of the old one is
        // reused.
        if flow
            .server
            .as_ref()
            .is_some_and(|s| s.issuer != server.issuer)
        {
            flow.client = None;
            flow.tokens = None;
            flow.requested = None;
        }
        flow.resource = Some(resource.clone());
        flow.server = Some(server.clone());
        let granted = self
            .grant(
                flow,
                http,
                &server,
                resource,
                challenge,
                resource_scopes,
                step_up,
            )
            .await;
        granted.map_err(|error| match error {
            Error::Auth {
                status,
                message,
                www_authenticate,
            } if guessed => {
                let tried: Vec<&str> = urls.iter().map(Url::as_str).collect();
                Error::Auth {
                    status,
                    message: format!(
                        "{message} (no OAuth metadata was found: not at {} nor for the \
                         authorization server {issuer}, so the default endpoints of a 2025-03-26 \
                         server were tried; this server may not use OAuth: give it a token \
                         instead)",
                        tried.join(", ")
                    ),
                    www_authenticate,
                }
            }
            other => other,
        })
    }

    /// The grant, once the authorization server is known.
    #[allow(clippy::too_many_arguments)]
    async fn grant(
        &self,
        flow: &mut Flow,
        http: &reqwest::Client,
        server: &ServerMetadata,
        resource: String,
        challenge: Option<&Challenge>,
        resource_scopes: Option<Vec<String>>,
        step_up: Option<String>,
    ) -> Result<(), Error> {
        let server = server.clone();
        match &self.config.grant {
            Grant::JwtBearer(assertion) => {
                let assertion = assertion.read()?;
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_owned()),
                    ("assertion", assertion.expose().to_owned()),
                    ("resource", resource),
                ];
                if let Some(scope) = self.scope_for(challenge, resource_scopes, &server, step_up) {
                    form.push(("scope", scope));
                }
                let client = self.pre_registered();
                let dpop = self.dpop_for(flow, &server)?;
                let tokens = self
                    .token_request(
                        http,
                        &server,
                        client.as_ref(),
                        form,
                        dpop,
                        "workload identity",
                    )
                    .await?;
                self.keep(flow, tokens)
            }
            Grant::IdJag {
                endpoint,
                id_token,
                idp_client_id,
            } => {
                let client = self.pre_registered().ok_or_else(|| {
                    auth_error(
                        "OAuth enterprise-managed authorization: no client id for the MCP \
                         server's authorization server (OAuth::client_id)",
                    )
                })?;
                let scope = self.scope_for(challenge, resource_scopes, &server, step_up);
                let exchange = IdJagExchange {
                    endpoint,
                    id_token,
                    idp_client_id: idp_client_id.as_deref(),
                    audience: &server.issuer,
                    resource: &resource,
                    scope: scope.as_deref(),
                };
                let grant = self.exchange_for_id_jag(http, exchange).await?;
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_owned()),
                    ("assertion", grant.expose().to_owned()),
                ];
                if let Some(scope) = scope {
                    form.push(("scope", scope));
                }
                let dpop = self.dpop_for(flow, &server)?;
                let tokens = self
                    .token_request(http, &server, Some(&client), form, dpop, "enterprise token")
                    .await?;
                self.keep(flow, tokens)
            }
            Grant::ClientCredentials => {
                let client = self
                    .pre_registered()
                    .ok_or_else(|| auth_error("OAuth client credentials: no client id"))?;
                let mut form = vec![
                    ("grant_type", "client_credentials".to_owned()),
                    ("resource", resource),
                ];
                if let Some(scope) = self.scope_for(challenge, resource_scopes, &server, step_up) {
                    form.push(("scope", scope));
                }
                let dpop = self.dpop_for(flow, &server)?;
                let tokens = self
                    .token_request(
                        http,
                        &server,
                        Some(&client),
                        form,
                        dpop,
                        "client credentials",
                    )
                    .await?;
                self.keep(flow, tokens)
            }
            Grant::AuthorizationCode => {
                let client = self.register(flow, http, &server).await?;
                let scope = self.scope_for(challenge, resource_scopes, &server, step_up);
                flow.requested = scope.clone();
                let reason = flow.reason.take();
                let code = self
                    .authorization_code(&server, &client, &resource, scope.as_deref(), reason)
                    .await?;
                let form = vec![
                    ("grant_type", "authorization_code".to_owned()),
                    ("code", code.code.expose().to_owned()),
                    ("redirect_uri", self.config.redirect_uri.clone()),
                    ("code_verifier", code.verifier.expose().to_owned()),
                    ("resource", resource),
                ];
                let dpop = self.dpop_for(flow, &server)?;
                let mut tokens = self
                    .token_request(http, &server, Some(&client), form, dpop, "token")
                    .await?;
                if tokens.scope.is_none() {
                    tokens.scope = scope;
                }
                self.keep(flow, tokens)
            }
        }
    }

    /// Enterprise-managed authorization, step one: the user's ID token exchanged at the
    /// identity provider for an identity assertion authorization grant (RFC 8693).
    async fn exchange_for_id_jag(
        &self,
        http: &reqwest::Client,
        exchange: IdJagExchange<'_>,
    ) -> Result<Secret, Error> {
        const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
        let endpoint = exchange.endpoint;
        self.check_endpoint(endpoint)?;
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("requested_token_type", ID_JAG),
            ("subject_token", exchange.id_token.expose()),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
            ("audience", exchange.audience),
            ("resource", exchange.resource),
        ];
        if let Some(scope) = exchange.scope {
            form.push(("scope", scope));
        }
        if let Some(client_id) = exchange.idp_client_id {
            form.push(("client_id", client_id));
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let step = "enterprise identity exchange";
        let response = http
            .post(endpoint)
            .header(header::ACCEPT, "application/json")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| Error::web(format!("OAuth {step}: could not reach {endpoint}"), e))?;
        let status = response.status();
        let text = read_answer(response, &format!("OAuth {step} at {endpoint}")).await?;
        if !status.is_success() {
            return Err(server_refusal(step, endpoint, status.as_u16(), &text));
        }
        let document: Value = serde_json::from_str(&text).map_err(|e| {
            Error::transport_source(
                format!("OAuth {step}: {endpoint} did not answer with JSON"),
                e,
            )
        })?;
        match (
            document["access_token"].as_str(),
            document["issued_token_type"].as_str(),
        ) {
            (Some(grant), Some(ID_JAG)) => Ok(Secret::new(grant)),
            (Some(_), kind) => Err(auth_error(format!(
                "OAuth {step}: {endpoint} issued a {} token, not an ID-JAG",
                kind.unwrap_or("untyped")
            ))),
            (None, _) => Err(auth_error(format!(
                "OAuth {step}: {endpoint} answered without an access_token"
            ))),
        }
    }

    /// Codes, secrets and tokens never go over `http://` to a host that is not loopback.
    fn check_endpoint(&self, endpoint: &str) -> Result<(), Error> {
        let url = Url::parse(endpoint).map_err(|e| {
            auth_error(format!(
                "OAuth discovery: the endpoint {endpoint:?} is not a URL ({e})"
            ))
        })?;
        let loopback = url.host_str().is_some_and(crate::client::is_loopback);
        match url.scheme() {
            "https" => Ok(()),
            "http" if loopback || self.allow_insecure_http => Ok(()),
            _ => Err(auth_error(format!(
                "OAuth discovery: refusing the endpoint {endpoint}: credentials go over https:// \
                 only (or http:// to this machine; allow_insecure_http() on a network you trust)"
            ))),
        }
    }

    fn pre_registered(&self) -> Option<ClientRegistration> {
        self.config.client_id.as_ref().map(|id| ClientRegistration {
            client_id: id.clone(),
            client_secret: self.config.client_secret.clone(),
            token_endpoint_auth_method: None,
        })
    }

    /// The client to use with `server`, in the spec's order.
    async fn register(
        &self,
        flow: &mut Flow,
        http: &reqwest::Client,
        server: &ServerMetadata,
    ) -> Result<ClientRegistration, Error> {
        if let Some(client) = self.pre_registered() {
            return Ok(client);
        }
        if server.cimd_supported
            && let Some(url) = &self.config.client_metadata_url
        {
            return Ok(ClientRegistration {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".to_owned()),
            });
        }
        let refused = crate::client::lock(&self.refused_client).clone();
        let known = |client: &ClientRegistration| Some(&client.client_id) != refused.as_ref();
        if let Some(client) = flow.client.clone().filter(known) {
            return Ok(client);
        }
        if let Some(client) = self.config.store.client(&server.issuer)?.filter(known) {
            flow.client = Some(client.clone());
            return Ok(client);
        }
        let Some(endpoint) = &server.registration_endpoint else {
            return Err(auth_error(format!(
                "OAuth registration: {} offers no dynamic registration and supports no client \
                 ID metadata document{}: register a client with it and pass its id \
                 (OAuth::client_id)",
                server.issuer,
                if self.config.client_metadata_url.is_none() {
                    " URL given"
                } else {
                    ""
                }
            )));
        };
        let method = preferred_auth_method(server, false);
        let body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        });
        let response = http
            .post(endpoint)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| {
                Error::web(format!("OAuth registration: could not reach {endpoint}"), e)
            })?;
        let status = response.status();
        let text = read_answer(response, &format!("OAuth registration at {endpoint}")).await?;
        if !status.is_success() {
            return Err(server_refusal(
                "registration",
                endpoint,
                status.as_u16(),
                &text,
            ));
        }
        let document: Value = serde_json::from_str(&text).map_err(|e| {
            Error::transport_source(
                format!("OAuth registration: {endpoint} did not answer with JSON"),
                e,
            )
        })?;
        let Some(client_id) = document["client_id"].as_str() else {
            return Err(auth_error(format!(
                "OAuth registration: {endpoint} answered without a client_id"
            )));
        };
        let client = ClientRegistration {
            client_id: client_id.to_owned(),
            client_secret: document["client_secret"].as_str().map(Secret::new),
            token_endpoint_auth_method: document["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_owned),
        };
        // Kept, secret included, so that refreshing works for a confidential client.
        self.config.store.save_client(&server.issuer, &client)?;
        flow.client = Some(client.clone());
        Ok(client)
    }

    /// The scopes to ask for: those the challenge names, else those the resource metadata
    /// lists, else none; plus the application's own and `offline_access` where the
    /// authorization server supports it; on a step-up, what the step-up computed.
    fn scope_for(
        &self,
        challenge: Option<&Challenge>,
        resource_scopes: Option<Vec<String>>,
        server: &ServerMetadata,
        step_up: Option<String>,
    ) -> Option<String> {
        let base = step_up
            .or_else(|| challenge.and_then(|c| c.scope.clone()))
            .or_else(|| resource_scopes.map(|s| s.join(" ")));
        let mut scope = union(base.as_deref(), self.config.scope.as_deref());
        if matches!(self.config.grant, Grant::AuthorizationCode)
            && server
                .scopes_supported
                .as_ref()
                .is_some_and(|s| s.iter().any(|s| s == "offline_access"))
        {
            scope = union(Some(&scope), Some("offline_access"));
        }
        (!scope.is_empty()).then_some(scope)
    }

    /// The authorization step: the URL, the application's hook, and the checks of what came
    /// back (`state`, `iss`, an error the server sent).
    async fn authorization_code(
        &self,
        server: &ServerMetadata,
        client: &ClientRegistration,
        resource: &str,
        scope: Option<&str>,
        reason: Option<String>,
    ) -> Result<Code, Error> {
        let Some(endpoint) = &server.authorization_endpoint else {
            return Err(auth_error(format!(
                "OAuth: {} has no authorization_endpoint",
                server.issuer
            )));
        };
        match &server.code_challenge_methods {
            Some(methods) if methods.iter().any(|m| m == "S256") => {}
            _ => {
                return Err(auth_error(format!(
                    "OAuth: {} does not advertise PKCE with S256 \
                     (code_challenge_methods_supported), which MCP requires",
                    server.issuer
                )));
            }
        }
        let pkce = pkce::Pkce::new()?;
        let state = pkce::random_token(16)?;
        let mut url = Url::parse(endpoint).map_err(|e| {
            auth_error(format!(
                "OAuth: the authorization endpoint {endpoint:?} is not a URL ({e})"
            ))
        })?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
            }
        }
        let request = AuthorizationRequest {
            url: url.to_string(),
            redirect_uri: self.config.redirect_uri.clone(),
            reason,
        };
        let Some(authorizer) = &self.config.authorizer else {
            return Err(auth_error(format!(
                "OAuth: {} needs a person to approve this client, and no authorization step is \
                 set (OAuth::on_authorize): open {}",
                server.issuer, request.url
            )));
        };
        let landed = authorizer(request).await?;
        let landed = Url::parse(landed.trim()).map_err(|e| {
            auth_error(format!(
                "OAuth authorization: the redirect the authorization step returned is not a \
                 URL ({e})"
            ))
        })?;
        let mut code = None;
        let mut returned_state = None;
        let mut iss = None;
        let mut error = None;
        let mut description = None;
        for (key, value) in landed.query_pairs() {
            match key.as_ref() {
                "code" => code = Some(Secret::new(value.into_owned())),
                "state" => returned_state = Some(value.into_owned()),
                "iss" => iss = Some(value.into_owned()),
                "error" => error = Some(value.into_owned()),
                "error_description" => description = Some(value.into_owned()),
                _ => {}
            }
        }
        if returned_state.as_deref() != Some(state.as_str()) {
            return Err(auth_error(
                "OAuth authorization: the redirect's state is not the one sent (a forged or \
                 stale redirect): refusing its code",
            ));
        }
        // RFC 9207: compared as sent, whether advertised or not; required when advertised.
        match iss {
            Some(iss) if iss != server.issuer => {
                return Err(auth_error(format!(
                    "OAuth authorization: the redirect names the issuer {iss:?}, not {:?} \
                     (RFC 9207): refusing its code",
                    server.issuer
                )));
            }
            None if server.iss_parameter_supported => {
                return Err(auth_error(format!(
                    "OAuth authorization: {} promises the iss parameter and the redirect has \
                     none (RFC 9207): refusing its code",
                    server.issuer
                )));
            }
            _ => {}
        }
        if let Some(error) = error {
            return Err(auth_error(format!(
                "OAuth authorization: {} answered {error}{}",
                server.issuer,
                description.map(|d| format!(": {d}")).unwrap_or_default()
            )));
        }
        let code =
            code.ok_or_else(|| auth_error("OAuth authorization: the redirect carries no code"))?;
        Ok(Code {
            code,
            verifier: Secret::new(pkce.verifier),
        })
    }

    /// POSTs a token request with the client's authentication and reads the tokens; with a
    /// `dpop` key, with a proof (sent once more with the server's nonce when it asks for one),
    /// and the tokens are bound to the key when the server says they are.
    #[allow(clippy::too_many_arguments)]
    async fn token_request(
        &self,
        http: &reqwest::Client,
        server: &ServerMetadata,
        client: Option<&ClientRegistration>,
        mut form: Vec<(&'static str, String)>,
        dpop: Option<Arc<DpopKey>>,
        step: &str,
    ) -> Result<Tokens, Error> {
        let endpoint = &server.token_endpoint;
        let mut authorization = None;
        if let (Some(client), Some((algorithm, key))) = (client, &self.config.signing_key) {
            let issued = now();
            let claims = json!({
                "iss": client.client_id,
                "sub": client.client_id,
                "aud": server.issuer,
                "iat": issued,
                "exp": issued + 300,
                "jti": pkce::random_token(16)?,
            });
            let assertion = pkce::client_assertion(algorithm, key.expose().as_bytes(), &claims)?;
            form.push((
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
            ));
            form.push(("client_assertion", assertion));
        } else if let Some(client) = client {
            let secret = client.client_secret.as_ref();
            let method = client
                .token_endpoint_auth_method
                .clone()
                .unwrap_or_else(|| preferred_auth_method(server, secret.is_some()).to_owned());
            match (method.as_str(), secret) {
                ("client_secret_basic", Some(secret)) => {
                    let encode =
                        |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                    let mut value = HeaderValue::from_str(&format!(
                        "Basic {}",
                        pkce::basic(&encode(&client.client_id), &encode(secret.expose()))
                    ))
                    .map_err(|_| auth_error("OAuth: the client id cannot be sent in a header"))?;
                    value.set_sensitive(true);
                    authorization = Some(value);
                }
                ("client_secret_post", Some(secret)) => {
                    form.push(("client_id", client.client_id.clone()));
                    form.push(("client_secret", secret.expose().to_owned()));
                }
                _ => form.push(("client_id", client.client_id.clone())),
            }
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let mut asked_for_nonce = false;
        let (status, text) = loop {
            let mut request = http
                .post(endpoint)
                .header(header::ACCEPT, "application/json")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
            if let Some(value) = &authorization {
                request = request.header(header::AUTHORIZATION, value.clone());
            }
            if let Some(key) = &dpop {
                let nonce = crate::client::lock(&self.as_nonce).clone();
                let mut proof =
                    HeaderValue::from_str(&key.proof("POST", endpoint, None, nonce.as_deref())?)
                        .map_err(|_| auth_error("OAuth DPoP: the proof is not a header value"))?;
                proof.set_sensitive(true);
                request = request.header(DPOP, proof);
            }
            let response = request.body(body.clone()).send().await.map_err(|e| {
                Error::web(
                    format!("OAuth {step} request: could not reach {endpoint}"),
                    e,
                )
            })?;
            let status = response.status();
            let nonce = response
                .headers()
                .get(DPOP_NONCE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let text =
                read_answer(response, &format!("OAuth {step} request at {endpoint}")).await?;
            if dpop.is_some()
                && let Some(nonce) = nonce
            {
                *crate::client::lock(&self.as_nonce) = Some(nonce);
                // RFC 9449 section 8: once, with a new proof carrying the nonce.
                if status == reqwest::StatusCode::BAD_REQUEST
                    && !asked_for_nonce
                    && serde_json::from_str::<Value>(&text)
                        .is_ok_and(|v| v["error"] == "use_dpop_nonce")
                {
                    asked_for_nonce = true;
                    continue;
                }
            }
            break (status, text);
        };
        if !status.is_success() {
            // A registration the server forgot is not used again (a pre-registered client and
            // a metadata document URL cannot be registered anew: they stay).
            if let Some(client) = client
                && self.pre_registered().is_none()
                && serde_json::from_str::<Value>(&text)
                    .is_ok_and(|v| v["error"] == "invalid_client")
            {
                *crate::client::lock(&self.refused_client) = Some(client.client_id.clone());
            }
            return Err(server_refusal(
                &format!("{step} request"),
                endpoint,
                status.as_u16(),
                &text,
            ));
        }
        let document: Value = serde_json::from_str(&text).map_err(|e| {
            Error::transport_source(
                format!("OAuth {step} request: {endpoint} did not answer with JSON"),
                e,
            )
        })?;
        let Some(access_token) = document["access_token"].as_str() else {
            return Err(auth_error(format!(
                "OAuth {step} request: {endpoint} answered without an access_token"
            )));
        };
        let kind = document["token_type"].as_str().unwrap_or("Bearer");
        let dpop_key = match &dpop {
            Some(key) if kind.eq_ignore_ascii_case("dpop") => Some(key.stored().clone()),
            Some(_)
                if kind.eq_ignore_ascii_case("bearer") && self.config.dpop == Dpop::Required =>
            {
                return Err(auth_error(format!(
                    "OAuth {step} request: DPoP is required, but {endpoint} issued a Bearer \
                     token (it does not bind tokens to the client's key)"
                )));
            }
            _ if kind.eq_ignore_ascii_case("bearer") => None,
            _ => {
                return Err(auth_error(format!(
                    "OAuth {step} request: {endpoint} issued a {kind} token{}; this client \
                     sends Bearer tokens, and DPoP tokens it asked for",
                    if dpop.is_none() { " unasked" } else { "" }
                )));
            }
        };
        Ok(Tokens {
            issuer: server.issuer.clone(),
            access_token: Secret::new(access_token),
            refresh_token: document["refresh_token"].as_str().map(Secret::new),
            expires_at: document["expires_in"].as_u64().map(|s| now() + s),
            scope: document["scope"].as_str().map(str::to_owned),
            dpop_key,
        })
    }
}

/// What enterprise-managed authorization's exchange at the identity provider sends.
struct IdJagExchange<'a> {
    endpoint: &'a str,
    id_token: &'a Secret,
    idp_client_id: Option<&'a str>,
    /// The MCP server's authorization server (its issuer).
    audience: &'a str,
    /// The MCP server (its resource identifier).
    resource: &'a str,
    scope: Option<&'a str>,
}

/// An authorization code and the verifier that goes with it.
struct Code {
    code: Secret,
    verifier: Secret,
}

/// The endpoints a 2025-03-26 server without metadata has at its origin.
fn fallback_endpoints(origin: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: origin.to_owned(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        scopes_supported: None,
        token_endpoint_auth_methods: None,
        code_challenge_methods: Some(vec!["S256".to_owned()]),
        cimd_supported: false,
        iss_parameter_supported: false,
        dpop_algorithms: None,
    }
}

/// The token endpoint authentication to use: with a secret, `client_secret_basic` unless the
/// server supports only `client_secret_post`; without, `none`.
fn preferred_auth_method(server: &ServerMetadata, has_secret: bool) -> &'static str {
    let supported = server.token_endpoint_auth_methods.as_deref().unwrap_or(&[]);
    let offers = |m: &str| supported.iter().any(|s| s == m);
    if has_secret || (!supported.is_empty() && !offers("none")) {
        if offers("client_secret_basic") || supported.is_empty() {
            "client_secret_basic"
        } else if offers("client_secret_post") {
            "client_secret_post"
        } else {
            "client_secret_basic"
        }
    } else {
        "none"
    }
}

/// An authorization server's refusal: its `error` and `error_description` when it sent them.
fn server_refusal(step: &str, endpoint: &str, status: u16, body: &str) -> Error {
    let document: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let detail = match (
        document["error"].as_str(),
        document["error_description"].as_str(),
    ) {
        (Some(error), Some(description)) => format!("{error}: {description}"),
        (Some(error), None) => error.to_owned(),
        _ => {
            let cut: String = body.trim().chars().take(300).collect();
            if cut.is_empty() {
                "no details".to_owned()
            } else {
                cut
            }
        }
    };
    Error::Auth {
        status: Some(status),
        message: format!("OAuth {step}: {endpoint} answered HTTP {status}: {detail}"),
        www_authenticate: None,
    }
}

fn has_scope(scopes: &str, scope: &str) -> bool {
    scopes.split_whitespace().any(|s| s == scope)
}

/// The scopes of both, each once, in order of appearance.
fn union(a: Option<&str>, b: Option<&str>) -> String {
    let mut out: Vec<&str> = Vec::new();
    for scope in a.into_iter().chain(b).flat_map(str::split_whitespace) {
        if !out.contains(&scope) {
            out.push(scope);
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests;
