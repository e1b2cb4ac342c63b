//! OAuth beyond what the conformance suite tests (it never issues refresh tokens): a realm on
//! loopback, an MCP server (the resource) and its authorization server on two ports, both
//! recording every request, drive the client through sign-in, a second run from stored tokens,
//! refresh before expiry (a refresh response without a refresh token keeps the old one; a
//! rotated one is kept), one refresh for many concurrent calls, a revoked refresh token, a
//! resource metadata document for another server, where tokens travel, and workload identity
//! (a JWT-bearer grant whose token file the platform rewrites while the client runs).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_bindgen::oauth::{AuthorizationRequest, FileTokenStore, OAuth};
use mcp_bindgen::{Error, HttpClient, ToolCaller};
use serde_json::{Value, json};

/// One request a server of the realm received.
#[derive(Debug, Clone)]
struct Seen {
    /// `resource` or `auth`.
    server: &'static str,
    method: String,
    path: String,
    authorization: Option<String>,
    form: HashMap<String, String>,
    /// The resource answered 401: no token, or one it does not accept (never issued, revoked).
    refused: bool,
    /// The JSON-RPC method of a request to the resource's endpoint.
    rpc: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    seen: Vec<Seen>,
    /// Access tokens the resource accepts.
    access: HashSet<String>,
    /// Refresh tokens the authorization server accepts.
    refresh: HashSet<String>,
    /// The PKCE challenge of each code.
    codes: HashMap<String, String>,
    counter: usize,
    /// `expires_in` of every token response.
    expires_in: u64,
    /// Whether a refresh response carries a new refresh token (rotation) or none.
    rotate: bool,
    /// Whether a refresh revokes the access tokens issued before it (as servers that keep one
    /// live token per grant do).
    revoke_on_refresh: bool,
    /// The `resource` the resource metadata names (default: the MCP URL).
    resource_override: Option<String>,
    /// Whether the resource answers an authorized call with a redirect to the other server.
    redirect_calls: bool,
    /// The `token_endpoint` the authorization server's metadata names (default: its own).
    token_endpoint_override: Option<String>,
    /// Whether the resource announces tool changes and serves `subscriptions/listen` (each
    /// stream acknowledged, then ended at once).
    announces: bool,
    /// ID-JAGs the identity provider issued, with the resource each names.
    jags: HashMap<String, String>,
    /// How the identity provider misbehaves: `refuse` (every exchange), `wrong-type` (an
    /// access token, not an ID-JAG).
    idp_misbehaves: Option<&'static str>,
}

struct Realm {
    state: Arc<Mutex<State>>,
    resource: String,
    issuer: String,
}

impl Realm {
    fn start(expires_in: u64) -> Realm {
        let state = Arc::new(Mutex::new(State {
            expires_in,
            ..State::default()
        }));
        let resource_listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let auth_listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let resource = format!(
            "http://127.0.0.1:{}/mcp",
            resource_listener.local_addr().expect("addr").port()
        );
        let issuer = format!(
            "http://127.0.0.1:{}",
            auth_listener.local_addr().expect("addr").port()
        );
        for (name, listener) in [("resource", resource_listener), ("auth", auth_listener)] {
            let state = state.clone();
            let (resource, issuer) = (resource.clone(), issuer.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming().map_while(Result::ok) {
                    let state = state.clone();
                    let (resource, issuer) = (resource.clone(), issuer.clone());
                    std::thread::spawn(move || {
                        let _ = serve(name, stream, &state, &resource, &issuer);
                    });
                }
            });
        }
        Realm {
            state,
            resource,
            issuer,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.lock().expect("lock").seen.clone()
    }

    fn token_requests(&self, grant: &str) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| {
                s.path == "/token" && s.form.get("grant_type").map(String::as_str) == Some(grant)
            })
            .collect()
    }

    /// The person: approves at once, as the authorization endpoint would redirect.
    fn approver(&self, approvals: Arc<AtomicUsize>) -> OAuth {
        self.approver_noting(approvals, Arc::new(Mutex::new(Vec::new())))
    }

    /// [`Realm::approver`] that also notes why each authorization was asked for.
    fn approver_noting(
        &self,
        approvals: Arc<AtomicUsize>,
        reasons: Arc<Mutex<Vec<Option<String>>>>,
    ) -> OAuth {
        let state = self.state.clone();
        let issuer = self.issuer.clone();
        OAuth::new()
            .redirect_uri("http://127.0.0.1:9/callback")
            .on_authorize(move |request: AuthorizationRequest| {
                approvals.fetch_add(1, Ordering::SeqCst);
                reasons.lock().expect("lock").push(request.reason.clone());
                let state = state.clone();
                let issuer = issuer.clone();
                async move {
                    let url = reqwest_free_url(&request.url);
                    let mut state = state.lock().expect("lock");
                    state.counter += 1;
                    let code = format!("code-{}", state.counter);
                    state
                        .codes
                        .insert(code.clone(), url["code_challenge"].clone());
                    Ok(format!(
                        "{}?code={code}&state={}&iss={}",
                        request.redirect_uri,
                        url["state"],
                        encode(&issuer)
                    ))
                }
            })
    }
}

/// The JWT-bearer grant type (RFC 7523), written out here rather than taken from the client.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

fn encode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The query parameters of a URL.
fn reqwest_free_url(url: &str) -> HashMap<String, String> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect()
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())
}

fn serve(
    server: &'static str,
    mut stream: TcpStream,
    state: &Mutex<State>,
    resource: &str,
    issuer: &str,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let target = parts.next().unwrap_or("").to_owned();
    let mut length = 0;
    let mut authorization = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "authorization" => authorization = Some(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let path = target.split('?').next().unwrap_or("").to_owned();
    let form: HashMap<String, String> = if path == "/token" || path == "/idp/token" {
        form_urlencoded::parse(&body).into_owned().collect()
    } else {
        HashMap::new()
    };
    let rpc = (path == "/mcp")
        .then(|| serde_json::from_slice::<Value>(&body).ok())
        .flatten()
        .and_then(|m| m["method"].as_str().map(str::to_owned));
    let mut state = state.lock().expect("lock");
    state.seen.push(Seen {
        server,
        method: method.clone(),
        path: path.clone(),
        authorization: authorization.clone(),
        form: form.clone(),
        refused: false,
        rpc,
    });
    let json = [("Content-Type", "application/json")];
    match (server, path.as_str()) {
        ("resource", "/.well-known/oauth-protected-resource/mcp") => {
            let named = state
                .resource_override
                .clone()
                .unwrap_or(resource.to_owned());
            let document = json!({"resource": named, "authorization_servers": [issuer]});
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        ("resource", "/mcp") => {
            let token = authorization
                .as_deref()
                .and_then(|a| a.strip_prefix("Bearer "));
            if !token.is_some_and(|t| state.access.contains(t)) {
                if let Some(seen) = state.seen.last_mut() {
                    seen.refused = true;
                }
                let challenge = format!(
                    "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
                    resource.trim_end_matches("/mcp")
                );
                return respond(
                    &mut stream,
                    "401 Unauthorized",
                    &[("WWW-Authenticate", &challenge)],
                    "",
                );
            }
            if state.redirect_calls {
                let elsewhere = format!("{issuer}/mcp");
                return respond(
                    &mut stream,
                    "307 Temporary Redirect",
                    &[("Location", &elsewhere)],
                    "",
                );
            }
            let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if state.announces && message["method"] == "subscriptions/listen" {
                let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": message["id"]},
                        "notifications": {"toolsListChanged": true}}});
                let events = format!("event: message\ndata: {ack}\n\n");
                let sse = [("Content-Type", "text/event-stream")];
                return respond(&mut stream, "200 OK", &sse, &events);
            }
            let result = match message["method"].as_str() {
                Some("server/discover") if state.announces => json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {"listChanged": true}},
                }),
                Some("server/discover") => json!({"supportedVersions": ["2026-07-28"]}),
                Some("tools/list") => {
                    json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
                }
                Some("tools/call") => json!({"content": [{"type": "text", "text": "ok"}]}),
                _ => json!({}),
            };
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
            respond(&mut stream, "200 OK", &json, &answer.to_string())
        }
        ("auth", "/.well-known/oauth-authorization-server") => {
            let document = json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": state
                    .token_endpoint_override
                    .clone()
                    .unwrap_or(format!("{issuer}/token")),
                "registration_endpoint": format!("{issuer}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "authorization_response_iss_parameter_supported": true,
                "scopes_supported": ["mcp", "offline_access"],
            });
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        ("auth", "/register") => {
            let document = json!({"client_id": "registered-client", "client_secret": "registered-secret",
                "token_endpoint_auth_method": "client_secret_basic"});
            respond(&mut stream, "201 Created", &json, &document.to_string())
        }
        // A company's identity provider (on the same port): the user's ID token
        // `idp-id-token` exchanged (RFC 8693) for an ID-JAG naming this issuer and the resource.
        ("auth", "/idp/token") => {
            let field = |key: &str| form.get(key).map(String::as_str);
            let asked = field("grant_type")
                == Some("urn:ietf:params:oauth:grant-type:token-exchange")
                && field("requested_token_type") == Some("urn:ietf:params:oauth:token-type:id-jag")
                && field("subject_token_type") == Some("urn:ietf:params:oauth:token-type:id_token")
                && field("subject_token") == Some("idp-id-token")
                && field("audience") == Some(issuer);
            if !asked || state.idp_misbehaves == Some("refuse") {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    &json,
                    r#"{"error":"invalid_grant","error_description":"the ID token is not accepted"}"#,
                );
            }
            state.counter += 1;
            let jag = format!("jag-{}", state.counter);
            let named = field("resource").unwrap_or_default().to_owned();
            state.jags.insert(jag.clone(), named);
            let kind = if state.idp_misbehaves == Some("wrong-type") {
                "urn:ietf:params:oauth:token-type:access_token"
            } else {
                "urn:ietf:params:oauth:token-type:id-jag"
            };
            let document = json!({"access_token": jag, "issued_token_type": kind,
                "token_type": "N_A"});
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        // The JWT-bearer grant: a workload's JWT (`workload-*`: the grant is the credential, no
        // client authentication) or an ID-JAG the identity provider issued for this resource,
        // from the client it was issued to (Basic). No refresh token.
        ("auth", "/token") if form.get("grant_type").map(String::as_str) == Some(JWT_BEARER) => {
            let assertion = form.get("assertion").cloned().unwrap_or_default();
            let basic = format!(
                "Basic {}",
                base64_basic("registered-client", "registered-secret")
            );
            let valid = if assertion.starts_with("jag-") {
                authorization.as_deref() == Some(basic.as_str())
                    && state.jags.remove(&assertion).as_deref() == Some(resource)
            } else {
                assertion.starts_with("workload-")
                    && form.get("resource").map(String::as_str) == Some(resource)
            };
            if !valid {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    &json,
                    r#"{"error":"invalid_grant","error_description":"assertion refused"}"#,
                );
            }
            state.counter += 1;
            let access = format!("access-{}", state.counter);
            state.access.insert(access.clone());
            let document = json!({"access_token": access, "token_type": "Bearer",
                "expires_in": state.expires_in});
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        ("auth", "/token") => {
            let basic = format!(
                "Basic {}",
                base64_basic("registered-client", "registered-secret")
            );
            if authorization.as_deref() != Some(basic.as_str()) {
                return respond(
                    &mut stream,
                    "401 Unauthorized",
                    &json,
                    r#"{"error":"invalid_client"}"#,
                );
            }
            let grant = form.get("grant_type").map(String::as_str);
            let valid = match grant {
                Some("authorization_code") => form
                    .get("code")
                    .and_then(|c| state.codes.remove(c))
                    .is_some_and(|challenge| {
                        form.get("code_verifier")
                            .is_some_and(|v| s256(v) == challenge)
                    }),
                Some("refresh_token") => form
                    .get("refresh_token")
                    .is_some_and(|t| state.refresh.contains(t)),
                _ => false,
            };
            if !valid || form.get("resource").map(String::as_str) != Some(resource) {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    &json,
                    r#"{"error":"invalid_grant","error_description":"refresh token revoked"}"#,
                );
            }
            if grant == Some("refresh_token") && state.revoke_on_refresh {
                state.access.clear();
            }
            state.counter += 1;
            let access = format!("access-{}", state.counter);
            state.access.insert(access.clone());
            let mut document = json!({"access_token": access, "token_type": "Bearer",
                "expires_in": state.expires_in});
            if grant == Some("authorization_code") || state.rotate {
                let refresh = format!("refresh-{}", state.counter);
                state.refresh.insert(refresh.clone());
                document["refresh_token"] = json!(refresh);
            }
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        _ => respond(&mut stream, "404 Not Found", &[], ""),
    }
}

/// `base64(user:password)`, written out here so that the test does not share the client's
/// encoder.
fn base64_basic(user: &str, password: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = format!("{user}:{password}").into_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The S256 challenge of a verifier, computed by `python3` (an implementation independent of
/// the client's).
fn s256(verifier: &str) -> String {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys,hashlib,base64;print(base64.urlsafe_b64encode(hashlib.sha256(sys.argv[1].encode()).digest()).decode().rstrip('='))",
            verifier,
        ])
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bindgen-oauth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signs_in_once_and_a_second_run_uses_the_stored_tokens() {
    let realm = Realm::start(3600);
    let approvals = Arc::new(AtomicUsize::new(0));
    let dir = temp_dir("second-run");
    let oauth = realm
        .approver(approvals.clone())
        .token_store(FileTokenStore::new(&dir));
    let client = HttpClient::builder(&realm.resource)
        .oauth(oauth)
        .connect()
        .await
        .expect("signs in");
    client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect("calls");
    assert_eq!(approvals.load(Ordering::SeqCst), 1);
    // What signing in cost: one refused request, then each discovery document once, one
    // registration, one token request; the call after it, nothing but itself.
    let requests: Vec<String> = realm
        .seen()
        .iter()
        .map(|s| format!("{} {} {}", s.server, s.method, s.path))
        .collect();
    assert_eq!(
        requests,
        [
            "resource POST /mcp",
            "resource GET /.well-known/oauth-protected-resource/mcp",
            "auth GET /.well-known/oauth-authorization-server",
            "auth POST /register",
            "auth POST /token",
            "resource POST /mcp",
            "resource POST /mcp",
        ],
        "discover refused, discover, tools/call"
    );
    let first = realm.seen().len();
    drop(client);

    // A new process would build a new client on the same store: no approval, no token request.
    let oauth = realm
        .approver(approvals.clone())
        .token_store(FileTokenStore::new(&dir));
    let client = HttpClient::builder(&realm.resource)
        .oauth(oauth)
        .connect()
        .await
        .expect("connects with the stored token");
    client.list_tools().await.expect("lists");
    assert_eq!(
        approvals.load(Ordering::SeqCst),
        1,
        "asked the person again"
    );
    let later: Vec<Seen> = realm.seen()[first..].to_vec();
    assert!(
        later.iter().all(|s| s.server == "resource"
            && s.path == "/mcp"
            && s.authorization
                .as_deref()
                .is_some_and(|a| a.starts_with("Bearer access-"))),
        "{later:#?}"
    );

    // Tokens went to the resource only; the token endpoint saw the client's own credentials.
    for seen in realm.seen() {
        let bearer = seen
            .authorization
            .as_deref()
            .is_some_and(|a| a.starts_with("Bearer "));
        assert_eq!(
            bearer,
            seen.server == "resource" && seen.path == "/mcp" && seen.authorization.is_some(),
            "{seen:?}"
        );
        if seen.path == "/token" {
            assert_eq!(seen.method, "POST", "{seen:?}");
            assert!(
                seen.authorization
                    .as_deref()
                    .is_some_and(|a| a.starts_with("Basic ")),
                "{seen:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refreshes_before_expiry_keeping_or_replacing_the_refresh_token() {
    // `expires_in: 0`: every request finds its token due, so each call refreshes first; each
    // refresh revokes the access token before it, so a call that went out with the old one
    // would be refused.
    let realm = Realm::start(0);
    realm.state.lock().expect("lock").revoke_on_refresh = true;
    let approvals = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals.clone()))
        .connect()
        .await
        .expect("signs in");
    let issued = realm.token_requests("authorization_code");
    assert_eq!(issued.len(), 1);
    // The first sign-in issued refresh-N; refreshes without rotation answer with no refresh
    // token, and the client must keep using refresh-N.
    client.list_tools().await.expect("lists");
    client.list_tools().await.expect("lists");
    let refreshes = realm.token_requests("refresh_token");
    assert!(refreshes.len() >= 2, "{refreshes:#?}");
    let first_refresh_token = refreshes[0].form["refresh_token"].clone();
    for refresh in &refreshes {
        assert_eq!(
            refresh.form["refresh_token"], first_refresh_token,
            "the kept token"
        );
        assert_eq!(
            refresh.form.get("resource"),
            Some(&realm.resource),
            "resource on refresh"
        );
        assert!(
            refresh
                .authorization
                .as_deref()
                .is_some_and(|a| a.starts_with("Basic ")),
            "the registered secret was kept and sent: {refresh:?}"
        );
    }
    // Rotation: the next refresh answers with a new refresh token, which the one after uses.
    realm.state.lock().expect("lock").rotate = true;
    client.list_tools().await.expect("lists");
    client.list_tools().await.expect("lists");
    let refreshes = realm.token_requests("refresh_token");
    let (before, last) = (
        &refreshes[refreshes.len() - 2],
        &refreshes[refreshes.len() - 1],
    );
    assert_ne!(
        before.form["refresh_token"], last.form["refresh_token"],
        "rotated token not kept"
    );
    assert!(
        realm
            .state
            .lock()
            .expect("lock")
            .refresh
            .contains(&last.form["refresh_token"])
    );
    // No call ever went out with a token the resource refused: each used the refreshed one.
    let authorized: Vec<Seen> = realm
        .seen()
        .into_iter()
        .filter(|s| s.path == "/mcp" && s.authorization.is_some())
        .collect();
    assert!(authorized.len() >= 5, "{authorized:#?}");
    let refused: Vec<&Seen> = authorized.iter().filter(|s| s.refused).collect();
    assert!(refused.is_empty(), "{refused:#?}");
    assert_eq!(
        approvals.load(Ordering::SeqCst),
        1,
        "refreshing never asks the person"
    );
}

/// A token the resource revokes before it expires: the call is refused with a 401, the token is
/// refreshed once (the person is not asked again), and the same call goes out again with the
/// new token and succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_refused_with_401_is_refreshed_once_and_the_call_sent_again() {
    let realm = Realm::start(3600);
    let approvals = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals.clone()))
        .connect()
        .await
        .expect("signs in");
    client.list_tools().await.expect("lists");
    let before = realm.seen().len();
    realm.state.lock().expect("lock").access.clear();
    let tools = client.list_tools().await.expect("refreshed, then listed");
    assert_eq!(tools.len(), 1);
    let after: Vec<String> = realm.seen()[before..]
        .iter()
        .map(|s| {
            let grant = s.form.get("grant_type").map_or("", String::as_str);
            format!(
                "{} {} {grant}{}",
                s.server,
                s.path,
                if s.refused { " refused" } else { "" }
            )
        })
        .collect();
    assert_eq!(
        after,
        [
            "resource /mcp  refused",
            "auth /token refresh_token",
            "resource /mcp ",
        ],
        "one refusal, one refresh, the call again"
    );
    assert_eq!(
        approvals.load(Ordering::SeqCst),
        1,
        "the person was asked once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_calls_at_expiry_make_one_refresh() {
    // Tokens last 4 s: refreshed once 2 s are left.
    let realm = Realm::start(4);
    let approvals = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals))
        .connect()
        .await
        .expect("signs in");
    // The refreshed token lasts an hour: however long the twenty calls take on a loaded
    // machine, none of them finds it due again.
    realm.state.lock().expect("lock").expires_in = 3600;
    tokio::time::sleep(std::time::Duration::from_millis(2300)).await;
    let calls = (0..20).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools().await })
    });
    for call in calls.collect::<Vec<_>>() {
        call.await.expect("joins").expect("lists");
    }
    assert_eq!(realm.token_requests("refresh_token").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_refresh_token_starts_a_new_authorization() {
    let realm = Realm::start(0);
    let approvals = Arc::new(AtomicUsize::new(0));
    let reasons = Arc::new(Mutex::new(Vec::new()));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver_noting(approvals.clone(), reasons.clone()))
        .connect()
        .await
        .expect("signs in");
    {
        // Revoked: every refresh token, and every access token issued so far.
        let mut state = realm.state.lock().expect("lock");
        state.refresh.clear();
        state.access.clear();
    }
    client.list_tools().await.expect("signs in again");
    assert_eq!(approvals.load(Ordering::SeqCst), 2, "a new authorization");
    // The person is told why: the authorization server's own words.
    let reasons = reasons.lock().expect("lock").clone();
    assert_eq!(reasons[0], None, "the first sign-in needs no reason");
    let why = reasons[1].clone().unwrap_or_default();
    assert!(
        why.contains("invalid_grant") && why.contains("refresh token revoked"),
        "{why}"
    );
    assert!(
        realm
            .token_requests("refresh_token")
            .iter()
            .all(|r| !r.form["refresh_token"].is_empty())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_metadata_for_another_server_is_refused_before_any_sign_in() {
    let realm = Realm::start(3600);
    realm.state.lock().expect("lock").resource_override =
        Some("http://127.0.0.1:1/elsewhere".into());
    let approvals = Arc::new(AtomicUsize::new(0));
    let refused = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals.clone()))
        .connect()
        .await
        .expect_err("refused");
    assert!(matches!(refused, Error::Auth { .. }), "{refused:?}");
    assert!(refused.to_string().contains("RFC 8707"), "{refused}");
    assert_eq!(approvals.load(Ordering::SeqCst), 0);
    assert!(
        realm.seen().iter().all(|s| s.server == "resource"),
        "went on to the authorization server"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_host_never_carries_the_token() {
    let realm = Realm::start(3600);
    let approvals = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals))
        .connect()
        .await
        .expect("signs in");
    realm.state.lock().expect("lock").redirect_calls = true;
    let refused = client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect_err("a redirect is not an answer");
    assert!(refused.to_string().contains("307"), "{refused}");
    let leaked: Vec<Seen> = realm
        .seen()
        .into_iter()
        .filter(|s| {
            s.server == "auth"
                && s.authorization
                    .as_deref()
                    .is_some_and(|a| a.starts_with("Bearer "))
        })
        .collect();
    assert!(
        leaked.is_empty(),
        "the token reached the other host: {leaked:#?}"
    );
    assert!(
        !realm
            .seen()
            .iter()
            .any(|s| s.server == "auth" && s.path == "/mcp"),
        "the redirect was followed"
    );
}

/// Without an authorization step the person cannot be asked: a clear error naming the URL to
/// open; and a redirect whose `state` is not the one sent is refused before its code is used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_authorization_step_or_a_forged_redirect_is_a_clear_error() {
    let realm = Realm::start(3600);
    let refused = HttpClient::builder(&realm.resource)
        .oauth(OAuth::new())
        .connect()
        .await
        .expect_err("no one to ask");
    let message = refused.to_string();
    assert!(matches!(refused, Error::Auth { .. }), "{refused:?}");
    assert!(
        message.contains("OAuth::on_authorize")
            && message.contains(&format!("{}/authorize?", realm.issuer)),
        "{message}"
    );

    let forged = OAuth::new().on_authorize(|request: AuthorizationRequest| async move {
        Ok(format!(
            "{}?code=stolen&state=not-the-one",
            request.redirect_uri
        ))
    });
    let refused = HttpClient::builder(&realm.resource)
        .oauth(forged)
        .connect()
        .await
        .expect_err("forged");
    assert!(
        refused.to_string().contains("state is not the one sent"),
        "{refused}"
    );
    assert!(
        realm.token_requests("authorization_code").is_empty(),
        "the code was used"
    );
}

/// With OAuth and no token of its own yet, a client still refuses, before anything is sent, a
/// plain-http server off this machine and a loopback one reached through a proxy that is not
/// on it: the tokens it would obtain are what the rule protects. The same URL through no proxy
/// is allowed (and fails only because nothing listens there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oauth_client_never_sends_its_tokens_in_cleartext_off_the_machine() {
    let oauth = || OAuth::client_credentials("id", "secret");
    let refused = HttpClient::builder("http://mcp.example/mcp")
        .oauth(oauth())
        .no_proxy()
        .connect()
        .await
        .expect_err("refused");
    assert!(matches!(refused, Error::Auth { .. }), "{refused:?}");
    assert!(
        refused
            .to_string()
            .contains("refusing to send the bearer token in cleartext to mcp.example"),
        "{refused}"
    );
    let refused = HttpClient::builder("http://127.0.0.1:9/mcp")
        .oauth(oauth())
        .proxy("http://proxy.example:3128")
        .connect()
        .await
        .expect_err("refused");
    assert!(
        refused
            .to_string()
            .contains("through the proxy proxy.example"),
        "{refused}"
    );
    let unreachable = HttpClient::builder("http://127.0.0.1:9/mcp")
        .oauth(oauth())
        .no_proxy()
        .timeout(std::time::Duration::from_secs(5))
        .connect()
        .await
        .expect_err("nothing listens on port 9");
    assert!(
        !unreachable.to_string().contains("cleartext"),
        "loopback without a proxy is allowed: {unreachable}"
    );
}

/// Metadata that sends the client's secret and codes to a plain-http token endpoint off this
/// machine is refused during discovery, before anything is sent there or anyone is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cleartext_token_endpoint_off_the_machine_is_refused() {
    let realm = Realm::start(3600);
    realm.state.lock().expect("lock").token_endpoint_override =
        Some("http://auth.example/token".to_owned());
    let approvals = Arc::new(AtomicUsize::new(0));
    let refused = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals.clone()))
        .connect()
        .await
        .expect_err("refused");
    assert!(matches!(refused, Error::Auth { .. }), "{refused:?}");
    assert!(
        refused
            .to_string()
            .contains("refusing the endpoint http://auth.example/token"),
        "{refused}"
    );
    assert_eq!(approvals.load(Ordering::SeqCst), 0, "nobody was asked");
    assert!(realm.token_requests("authorization_code").is_empty());
}

/// A server that takes a bearer token but publishes no OAuth metadata: `oauth` guesses the
/// 2025-03-26 default endpoints, and when they fail the error says that no metadata was found
/// where, and that the server may not use OAuth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_oauth_metadata_is_named_as_such() {
    use mcp_bindgen::server::{Registry, ServerBuilder};
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        let registry: Registry<()> = Registry::new("token-only", "1");
        let mut server = ServerBuilder::new()
            .port(0)
            .bearer_token("static-token")
            .listen(registry)
            .expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut ()) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    });
    let port = rx.recv().expect("port");
    let refused = HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
        .oauth(OAuth::new())
        .connect()
        .await
        .expect_err("no OAuth here");
    stop.store(true, Ordering::Relaxed);
    server.join().expect("the server thread");
    let message = refused.to_string();
    assert!(matches!(refused, Error::Auth { .. }), "{refused:?}");
    assert!(message.contains("no OAuth metadata was found"), "{message}");
    assert!(
        message.contains(&format!(
            "http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        )),
        "{message}"
    );
    assert!(message.contains("may not use OAuth"), "{message}");
}

/// A listen stream refused with 401 (the token expired or was revoked while the client
/// listened) renews the token as a call would and listens again, instead of giving up on
/// hearing of changes for the client's life.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_refused_with_401_renews_the_token_and_listens_again() {
    let realm = Realm::start(3600);
    realm.state.lock().expect("lock").announces = true;
    let approvals = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(&realm.resource)
        .oauth(realm.approver(approvals.clone()))
        .on_tools_changed(|_| {})
        .connect()
        .await
        .expect("signs in");
    let listens = |refused: bool| {
        realm
            .seen()
            .iter()
            .filter(|s| s.rpc.as_deref() == Some("subscriptions/listen") && s.refused == refused)
            .count()
    };
    let wait = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !done() {
            assert!(
                std::time::Instant::now() < deadline,
                "{what}: {:#?}",
                realm.seen()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    // Each stream ends at once and is opened again a second later; each reopening lists the
    // tools (a change may have come meanwhile). The token is revoked in that second, so that
    // the next request is a listen, refused.
    wait("the client listens, then lists", &|| {
        let seen = realm.seen();
        let last = seen.iter().rev().find(|s| s.rpc.is_some());
        listens(false) >= 2 && last.is_some_and(|s| s.rpc.as_deref() == Some("tools/list"))
    });
    realm.state.lock().expect("lock").access.clear();
    wait("a listen is refused", &|| listens(true) >= 1);
    let accepted = listens(false);
    wait("the client listens again with a renewed token", &|| {
        listens(false) > accepted
    });
    assert!(
        !realm.token_requests("refresh_token").is_empty(),
        "the token was refreshed"
    );
    assert_eq!(
        approvals.load(Ordering::SeqCst),
        1,
        "the person was asked once"
    );
    drop(client);
}

/// Workload identity: the token file is read at every token request, so a file the platform
/// rewrote is what the next request sends; a token the server refuses is an error at once,
/// one request and no retry, and its text is in no message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workload_token_file_rewritten_while_the_client_runs_is_sent_next() {
    // `expires_in: 0`: every call finds its token due and asks for a new one.
    let realm = Realm::start(0);
    let dir = temp_dir("workload");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("token");
    std::fs::write(&file, "workload-first\n").expect("writes");
    let client = HttpClient::builder(&realm.resource)
        .oauth(OAuth::workload_identity_file(&file))
        .connect()
        .await
        .expect("signs in with the workload's token");
    client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect("calls");
    std::fs::write(&file, "workload-second").expect("rewrites");
    client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect("calls");
    let sent: Vec<String> = realm
        .token_requests(JWT_BEARER)
        .iter()
        .map(|s| s.form["assertion"].clone())
        .collect();
    assert_eq!(sent.first().map(String::as_str), Some("workload-first"));
    assert_eq!(sent.last().map(String::as_str), Some("workload-second"));
    assert!(
        realm
            .token_requests(JWT_BEARER)
            .iter()
            .all(|s| s.authorization.is_none()),
        "no client authentication with a workload's grant"
    );

    std::fs::write(&file, "stolen-token-text").expect("rewrites");
    let before = realm.token_requests(JWT_BEARER).len();
    let error = client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect_err("a refused grant fails the call");
    assert!(matches!(error, Error::Auth { .. }), "{error}");
    assert!(error.to_string().contains("invalid_grant"), "{error}");
    assert!(!error.to_string().contains("stolen-token-text"), "{error}");
    assert_eq!(
        realm.token_requests(JWT_BEARER).len(),
        before + 1,
        "one token request, no retry"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Enterprise-managed authorization: the ID token is exchanged at the identity provider for an
/// ID-JAG naming this authorization server and the resource, which the authorization server
/// exchanges for the token, the client authenticated. Each way it can fail is an `Error::Auth`
/// naming the step, with no token's text in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_identity_providers_token_is_exchanged_for_an_id_jag_then_for_the_token() {
    let realm = Realm::start(3600);
    let enterprise = |id_token: &str| {
        OAuth::enterprise(format!("{}/idp/token", realm.issuer), id_token)
            .idp_client_id("idp-client")
            .client_id("registered-client")
            .client_secret("registered-secret")
    };
    let client = HttpClient::builder(&realm.resource)
        .oauth(enterprise("idp-id-token"))
        .connect()
        .await
        .expect("signs in through the identity provider");
    client
        .call_tool("echo", serde_json::Map::new())
        .await
        .expect("calls");
    let seen = realm.seen();
    let exchange = seen
        .iter()
        .find(|s| s.path == "/idp/token")
        .expect("an exchange at the identity provider");
    assert_eq!(exchange.form["resource"], realm.resource);
    assert_eq!(exchange.form["client_id"], "idp-client");
    let grants = realm.token_requests(JWT_BEARER);
    assert_eq!(grants.len(), 1);
    assert!(grants[0].form["assertion"].starts_with("jag-"));
    assert!(
        grants[0].authorization.is_some(),
        "the client is authenticated"
    );

    let refused = |error: Error, says: &str| {
        assert!(matches!(error, Error::Auth { .. }), "{error}");
        let text = error.to_string();
        assert!(text.contains(says), "{says}: {text}");
        assert!(!text.contains("stolen-id-token"), "{text}");
    };
    let error = HttpClient::builder(&realm.resource)
        .oauth(enterprise("stolen-id-token"))
        .connect()
        .await
        .expect_err("the identity provider refuses");
    refused(error, "enterprise identity exchange");
    realm.state.lock().expect("lock").idp_misbehaves = Some("wrong-type");
    let error = HttpClient::builder(&realm.resource)
        .oauth(enterprise("idp-id-token"))
        .connect()
        .await
        .expect_err("not an ID-JAG");
    refused(error, "not an ID-JAG");
    let error = HttpClient::builder(&realm.resource)
        .oauth(OAuth::enterprise(
            format!("{}/idp/token", realm.issuer),
            "idp-id-token",
        ))
        .connect()
        .await
        .expect_err("no client id");
    refused(error, "OAuth::client_id");
}
