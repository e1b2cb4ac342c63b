//! A small OAuth 2.1 authorization server for trying sign-in on one machine, written from the
//! specifications and sharing no code with `mcp_bindgen::oauth`, whose client signs in to it.
//!
//! What it does, as the MCP authorization spec asks of an authorization server:
//!
//! - its metadata at `/.well-known/oauth-authorization-server` (RFC 8414), with PKCE `S256`,
//!   dynamic registration and the `iss` response parameter;
//! - dynamic client registration at `/register` (RFC 7591) for public clients with loopback
//!   redirect URIs;
//! - `/authorize`: a page where the person names themselves and allows or denies, then the
//!   redirect with a code (or `access_denied`), `state` and `iss` (RFC 9207);
//! - `/token`: the authorization code grant with its PKCE verifier checked, and the refresh
//!   token grant (each refresh token used once, rotated); the `resource` (RFC 8707) must be
//!   the game's MCP endpoint.
//!
//! It is a demo: clients, pending sign-ins, codes and tokens live in memory, each kind at most
//! [`CAPACITY`] (the oldest goes first), and anyone who can reach the loopback port may sign in
//! under any name. Do not put it in front of anything real.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{Value, json};

/// How many of each kind (clients, pending sign-ins, codes, access tokens, refresh tokens) are
/// kept at most.
pub const CAPACITY: usize = 1024;
/// How long an access token is accepted.
pub const ACCESS_LIFETIME: Duration = Duration::from_secs(600);
/// How long a refresh token may be used.
pub const REFRESH_LIFETIME: Duration = Duration::from_secs(24 * 3600);
/// How long a person has to answer the sign-in page, and a client to redeem its code.
const PENDING_LIFETIME: Duration = Duration::from_secs(600);
const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// Largest request body read (registration and form posts).
const BODY_LIMIT: usize = 64 * 1024;
/// Longest name a person may sign in under.
const NAME_LIMIT: usize = 40;

/// The running authorization server. Dropping it stops it.
pub struct AuthorizationServer {
    issuer: String,
    realm: Arc<Mutex<Realm>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AuthorizationServer {
    /// Listens on `127.0.0.1:port` (0 picks a free port) and serves on a thread of its own.
    pub fn start(port: u16) -> std::io::Result<AuthorizationServer> {
        let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
        listener.set_nonblocking(true)?;
        let issuer = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let realm = Arc::new(Mutex::new(Realm::new(issuer.clone())));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let serving = realm.clone();
        let thread = std::thread::Builder::new()
            .name("authorization-server".to_owned())
            .spawn(move || runtime.block_on(serve(listener, serving, stopped)))?;
        Ok(AuthorizationServer {
            issuer,
            realm,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The issuer (`http://127.0.0.1:PORT`), whose metadata clients read.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Issues codes and tokens for `resource` (the MCP endpoint's URL; `localhost` and
    /// `127.0.0.1` name the same host).
    pub fn allow_resource(&self, resource: &str) {
        lock(&self.realm).resources.push(canonical(resource));
    }

    /// The check a protected MCP server runs on a bearer token: the name its holder signed in
    /// under, while the token is live.
    pub fn verifier(&self) -> impl Fn(&str) -> Option<String> + Send + Sync + 'static {
        let realm = self.realm.clone();
        move |token| lock(&realm).access.get(token).map(|t| t.subject.clone())
    }

    /// Ends every access token now (as if each had expired): the next request refreshes.
    pub fn expire_access_tokens(&self) {
        lock(&self.realm).access.clear();
    }
}

impl std::fmt::Debug for AuthorizationServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationServer")
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(realm: &Mutex<Realm>) -> MutexGuard<'_, Realm> {
    realm.lock().unwrap_or_else(|e| e.into_inner())
}

async fn serve(
    listener: std::net::TcpListener,
    realm: Arc<Mutex<Realm>>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
            _ = &mut stopped => return,
        };
        let realm = realm.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let realm = realm.clone();
                async move { Ok::<_, Infallible>(answer(request, &realm).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

type Reply = Response<Full<Bytes>>;

async fn answer(request: Request<Incoming>, realm: &Mutex<Realm>) -> Reply {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or("").to_owned();
    let body = if method == Method::POST {
        match Limited::new(request.into_body(), BODY_LIMIT)
            .collect()
            .await
        {
            Ok(body) => body.to_bytes(),
            Err(_) => {
                return oauth_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "invalid_request",
                    "the body is too large",
                );
            }
        }
    } else {
        Bytes::new()
    };
    let mut realm = lock(realm);
    match (&method, path.as_str()) {
        (&Method::GET, "/.well-known/oauth-authorization-server") => {
            json_reply(StatusCode::OK, realm.metadata())
        }
        (&Method::POST, "/register") => realm.register(&body),
        (&Method::GET, "/authorize") => realm.authorize(&form(query.as_bytes())),
        (&Method::POST, "/authorize") => realm.decide(&form(&body)),
        (&Method::POST, "/token") => realm.token(&form(&body)),
        _ => oauth_error(StatusCode::NOT_FOUND, "invalid_request", "no such endpoint"),
    }
}

/// A form (or query string) as its fields; a field given twice keeps its first value.
fn form(bytes: &[u8]) -> HashMap<String, String> {
    let mut fields = HashMap::new();
    for (name, value) in form_urlencoded::parse(bytes) {
        fields
            .entry(name.into_owned())
            .or_insert(value.into_owned());
    }
    fields
}

/// What the server remembers, each kind bounded.
struct Realm {
    issuer: String,
    /// The MCP endpoints tokens may be issued for (canonical form).
    resources: Vec<String>,
    clients: Bounded<Client>,
    pending: Bounded<Pending>,
    codes: Bounded<Grant>,
    access: Bounded<Token>,
    refresh: Bounded<Grant>,
}

struct Client {
    name: String,
    redirect_uris: Vec<String>,
}

/// A sign-in waiting for the person's answer.
struct Pending {
    client_id: String,
    redirect_uri: String,
    state: Option<String>,
    challenge: String,
    scope: String,
    resource: Option<String>,
}

/// What a code or a refresh token stands for.
#[derive(Clone)]
struct Grant {
    client_id: String,
    redirect_uri: String,
    /// The PKCE challenge (codes only).
    challenge: String,
    subject: String,
    scope: String,
    resource: Option<String>,
}

struct Token {
    subject: String,
}

impl Realm {
    fn new(issuer: String) -> Realm {
        Realm {
            issuer,
            resources: Vec::new(),
            clients: Bounded::default(),
            pending: Bounded::default(),
            codes: Bounded::default(),
            access: Bounded::default(),
            refresh: Bounded::default(),
        }
    }

    fn metadata(&self) -> Value {
        let issuer = &self.issuer;
        json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "registration_endpoint": format!("{issuer}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["dice"],
            "authorization_response_iss_parameter_supported": true,
        })
    }

    /// RFC 7591: a public client whose redirect URIs are on this machine.
    fn register(&mut self, body: &[u8]) -> Reply {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                "the body is not JSON",
            );
        };
        let uris: Vec<String> = request["redirect_uris"]
            .as_array()
            .map(|uris| {
                uris.iter()
                    .filter_map(|u| u.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if uris.is_empty() || uris.len() > 8 || !uris.iter().all(|u| loopback_redirect(u)) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "redirect_uris: one to eight http://127.0.0.1 or http://localhost URIs",
            );
        }
        let method = request["token_endpoint_auth_method"]
            .as_str()
            .unwrap_or("none");
        if method != "none" {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                "this server registers public clients only (token_endpoint_auth_method: none)",
            );
        }
        let name: String = request["client_name"]
            .as_str()
            .unwrap_or("an application")
            .chars()
            .take(100)
            .collect();
        let Some(client_id) = random() else {
            return no_randomness();
        };
        let reply = json!({
            "client_id": client_id,
            "client_id_issued_at": SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            "client_name": name,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        });
        self.clients.insert(
            client_id,
            Client {
                name,
                redirect_uris: uris,
            },
            REFRESH_LIFETIME,
        );
        json_reply(StatusCode::CREATED, reply)
    }

    /// The authorization request: checked, then the page where the person answers.
    fn authorize(&mut self, query: &HashMap<String, String>) -> Reply {
        let field = |name: &str| query.get(name).cloned();
        let Some(client_id) = field("client_id") else {
            return page(
                StatusCode::BAD_REQUEST,
                "Sign-in refused",
                "The request names no client_id.",
            );
        };
        let Some(client) = self.clients.get(&client_id) else {
            return page(
                StatusCode::BAD_REQUEST,
                "Sign-in refused",
                "This application is not registered here.",
            );
        };
        let redirect_uri = field("redirect_uri").unwrap_or_default();
        if !client.redirect_uris.contains(&redirect_uri) {
            return page(
                StatusCode::BAD_REQUEST,
                "Sign-in refused",
                "The redirect URI is not one the application registered.",
            );
        }
        let client_name = client.name.clone();
        let state = field("state");
        // From here on, errors go back to the application by the redirect.
        let refuse = |error: &str, description: &str| {
            redirect(
                &redirect_uri,
                &[("error", error), ("error_description", description)],
                state.as_deref(),
                &self.issuer,
            )
        };
        if field("response_type").as_deref() != Some("code") {
            return refuse("unsupported_response_type", "response_type must be code");
        }
        let challenge = field("code_challenge").unwrap_or_default();
        if challenge.len() < 43 || field("code_challenge_method").as_deref() != Some("S256") {
            return refuse("invalid_request", "PKCE with S256 is required");
        }
        let resource = field("resource").map(|r| canonical(&r));
        if let Some(resource) = &resource
            && !self.resources.contains(resource)
        {
            return refuse(
                "invalid_target",
                "this server issues tokens for the dice game only",
            );
        }
        let scope = field("scope").unwrap_or_else(|| "dice".to_owned());
        let Some(id) = random() else {
            return no_randomness();
        };
        let body = format!(
            "<p><b>{client}</b> asks to play at the dice tavern in your name (scope: {scope}).</p>\n\
             <form method=\"post\" action=\"/authorize\">\n\
             <input type=\"hidden\" name=\"request\" value=\"{id}\">\n\
             <p><label>Your name <input name=\"name\" value=\"player\" required maxlength=\"{NAME_LIMIT}\"></label></p>\n\
             <button name=\"decision\" value=\"allow\">Allow</button>\n\
             <button name=\"decision\" value=\"deny\">Deny</button>\n\
             </form>",
            client = escape(&client_name),
            scope = escape(&scope),
        );
        self.pending.insert(
            id,
            Pending {
                client_id,
                redirect_uri,
                state,
                challenge,
                scope,
                resource,
            },
            PENDING_LIFETIME,
        );
        page(StatusCode::OK, "Sign in to the dice tavern", &body)
    }

    /// The person's answer: a code, or `access_denied`, sent back by the redirect.
    fn decide(&mut self, form: &HashMap<String, String>) -> Reply {
        let request = form.get("request").map_or("", String::as_str);
        let Some(pending) = self.pending.take(request) else {
            return page(
                StatusCode::BAD_REQUEST,
                "Sign-in expired",
                "This sign-in was answered already or took too long; start again from the application.",
            );
        };
        let state = pending.state.as_deref();
        if form.get("decision").map(String::as_str) != Some("allow") {
            return redirect(
                &pending.redirect_uri,
                &[("error", "access_denied")],
                state,
                &self.issuer,
            );
        }
        let name = form.get("name").map_or("", |n| n.trim());
        if name.is_empty() || name.chars().count() > NAME_LIMIT {
            return redirect(
                &pending.redirect_uri,
                &[
                    ("error", "access_denied"),
                    ("error_description", "no name given"),
                ],
                state,
                &self.issuer,
            );
        }
        let Some(code) = random() else {
            return no_randomness();
        };
        let answer = redirect(
            &pending.redirect_uri,
            &[("code", &code)],
            state,
            &self.issuer,
        );
        self.codes.insert(
            code,
            Grant {
                client_id: pending.client_id,
                redirect_uri: pending.redirect_uri,
                challenge: pending.challenge,
                subject: name.to_owned(),
                scope: pending.scope,
                resource: pending.resource,
            },
            CODE_LIFETIME,
        );
        answer
    }

    /// The token endpoint: a code (with its verifier) or a refresh token for tokens.
    fn token(&mut self, form: &HashMap<String, String>) -> Reply {
        let field = |name: &str| form.get(name).map_or("", String::as_str);
        let client_id = field("client_id");
        if self.clients.get(client_id).is_none() {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "unknown client_id",
            );
        }
        let resource = form.get("resource").map(|r| canonical(r));
        let grant = match field("grant_type") {
            "authorization_code" => {
                // A code is used once, whatever the outcome.
                let Some(grant) = self.codes.take(field("code")) else {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the code is unknown, used or expired",
                    );
                };
                if grant.client_id != client_id || grant.redirect_uri != field("redirect_uri") {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the code was issued to another client or redirect URI",
                    );
                }
                let digest =
                    ring::digest::digest(&ring::digest::SHA256, field("code_verifier").as_bytes());
                if URL_SAFE_NO_PAD.encode(digest) != grant.challenge {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the code_verifier does not match the code_challenge",
                    );
                }
                grant
            }
            "refresh_token" => {
                let Some(grant) = self.refresh.take(field("refresh_token")) else {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the refresh token is unknown, used or expired",
                    );
                };
                if grant.client_id != client_id {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the refresh token was issued to another client",
                    );
                }
                grant
            }
            _ => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "unsupported_grant_type",
                    "authorization_code or refresh_token",
                );
            }
        };
        if resource.is_some() && grant.resource.is_some() && resource != grant.resource {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_target",
                "the resource is not the one signed in to",
            );
        }
        let (Some(access), Some(refresh)) = (random(), random()) else {
            return no_randomness();
        };
        let reply = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ACCESS_LIFETIME.as_secs(),
            "refresh_token": refresh,
            "scope": grant.scope,
        });
        self.access.insert(
            access,
            Token {
                subject: grant.subject.clone(),
            },
            ACCESS_LIFETIME,
        );
        self.refresh.insert(refresh, grant, REFRESH_LIFETIME);
        json_reply(StatusCode::OK, reply)
    }
}

/// Entries that expire, at most [`CAPACITY`]: a new one beyond it pushes out the one that
/// expires first.
struct Bounded<V> {
    entries: HashMap<String, (Instant, V)>,
}

impl<V> Default for Bounded<V> {
    fn default() -> Self {
        Bounded {
            entries: HashMap::new(),
        }
    }
}

impl<V> Bounded<V> {
    fn insert(&mut self, key: String, value: V, lifetime: Duration) {
        let now = Instant::now();
        if self.entries.len() >= CAPACITY {
            self.entries.retain(|_, (expiry, _)| *expiry > now);
        }
        if self.entries.len() >= CAPACITY
            && let Some(first) = self
                .entries
                .iter()
                .min_by_key(|(_, (expiry, _))| *expiry)
                .map(|(key, _)| key.clone())
        {
            self.entries.remove(&first);
        }
        self.entries.insert(key, (now + lifetime, value));
    }

    fn get(&self, key: &str) -> Option<&V> {
        self.entries
            .get(key)
            .filter(|(expiry, _)| *expiry > Instant::now())
            .map(|(_, value)| value)
    }

    fn take(&mut self, key: &str) -> Option<V> {
        self.entries
            .remove(key)
            .filter(|(expiry, _)| *expiry > Instant::now())
            .map(|(_, value)| value)
    }

    fn clear(&mut self) {
        self.entries.clear();
    }
}

/// 32 random bytes, base64url: a client ID, a code, a token; `None` if the system's random
/// number generator fails (the request is then answered `500`).
fn random() -> Option<String> {
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes).ok()?;
    Some(URL_SAFE_NO_PAD.encode(bytes))
}

fn no_randomness() -> Reply {
    oauth_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "the system's random number generator failed",
    )
}

/// `http://localhost:P/x` and `http://127.0.0.1:P/x` as one resource (no trailing slash).
fn canonical(resource: &str) -> String {
    resource
        .replacen("://localhost", "://127.0.0.1", 1)
        .trim_end_matches('/')
        .to_owned()
}

fn loopback_redirect(uri: &str) -> bool {
    [
        "http://127.0.0.1:",
        "http://127.0.0.1/",
        "http://localhost:",
        "http://localhost/",
        "http://[::1]",
    ]
    .iter()
    .any(|prefix| uri.starts_with(prefix))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn json_reply(status: StatusCode, body: Value) -> Reply {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .header(CACHE_CONTROL, "no-store")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap_or_default()
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Reply {
    json_reply(
        status,
        json!({"error": error, "error_description": description}),
    )
}

fn page(status: StatusCode, title: &str, body: &str) -> Reply {
    let html = format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body>\n<h1>{title}</h1>\n{body}\n</body></html>\n"
    );
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "text/html; charset=utf-8")
        .header(CACHE_CONTROL, "no-store")
        // The page is never framed by another site (clickjacking the Allow button).
        .header("x-frame-options", "DENY")
        .header("content-security-policy", "frame-ancestors 'none'")
        .body(Full::new(Bytes::from(html)))
        .unwrap_or_default()
}

/// `302` to `redirect_uri` with `fields`, `state` and `iss` added to its query.
fn redirect(
    redirect_uri: &str,
    fields: &[(&str, &str)],
    state: Option<&str>,
    issuer: &str,
) -> Reply {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in fields {
        query.append_pair(name, value);
    }
    if let Some(state) = state {
        query.append_pair("state", state);
    }
    query.append_pair("iss", issuer);
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    Response::builder()
        .status(StatusCode::FOUND)
        .header(
            LOCATION,
            format!("{redirect_uri}{separator}{}", query.finish()),
        )
        .header(CACHE_CONTROL, "no-store")
        .body(Full::new(Bytes::new()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_store_pushes_out_what_expires_first_and_drops_what_expired() {
        let mut store = Bounded::default();
        store.insert("first".to_owned(), 0, Duration::from_secs(5));
        for i in 1..CAPACITY {
            store.insert(format!("k{i}"), i, Duration::from_secs(60));
        }
        assert_eq!(store.entries.len(), CAPACITY);
        store.insert("one more".to_owned(), CAPACITY, Duration::from_secs(60));
        assert_eq!(store.entries.len(), CAPACITY);
        assert!(
            store.get("first").is_none(),
            "the one that expires first went"
        );
        assert_eq!(store.get("one more"), Some(&CAPACITY));
        // Full again: `k1` expires first now, and an entry that expired is never handed out.
        store.insert("gone".to_owned(), 0, Duration::ZERO);
        assert!(store.get("k1").is_none());
        assert!(store.get("gone").is_none());
        // Full once more: the expired entry is dropped, no live one is pushed out.
        store.insert("last".to_owned(), 0, Duration::from_secs(60));
        assert!(!store.entries.contains_key("gone"));
        assert_eq!(store.entries.len(), CAPACITY);
        assert_eq!(store.get("k2"), Some(&2));
        assert_eq!(store.take("k2"), Some(2));
        assert!(store.take("k2").is_none(), "taken once");
    }
}
