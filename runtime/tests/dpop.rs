//! DPoP (RFC 9449) against servers of this test's own, stricter than the conformance suite's
//! (which lets a bad proof through and only marks a check): an authorization server that
//! binds tokens to the proof's key (`cnf.jkt`, RFC 7638) and an MCP server that refuses a
//! replayed proof (a `jti` seen before), a proof for another URL or method, a token without its
//! proof, a proof whose key is not the token's, and a stale nonce (with `use_dpop_nonce` and a
//! new one, as RFC 9449 section 9 says). Both ask for nonces. The proofs are checked here with
//! ring's verifier and code written for this test; nothing of the client's DPoP code is used.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_bindgen::oauth::{Dpop, FileTokenStore, OAuth, TokenStore};
use mcp_bindgen::{Error, HttpClient, ToolCaller};
use serde_json::{Value, json};

/// Why the server refused a proof, or `None` when it took it.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Accepted,
    Refused(String),
}

/// One request with a proof (or a DPoP token) the realm received.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    grant: Option<String>,
    /// The proof's claims, when it had one that decoded.
    claims: Option<Value>,
    /// The proof as it came.
    proof: Option<String>,
    /// The proof key's thumbprint.
    jkt: Option<String>,
    scheme: Option<String>,
    verdict: Verdict,
}

#[derive(Debug, Default)]
struct State {
    seen: Vec<Seen>,
    /// Every `jti` either server took (a proof is never good twice).
    jtis: HashSet<String>,
    /// Access token -> the thumbprint of the key it is bound to.
    bound: HashMap<String, String>,
    /// Refresh token -> the thumbprint of the key it is bound to.
    refresh: HashMap<String, String>,
    as_nonce: String,
    rs_nonce: String,
    counter: usize,
    expires_in: u64,
    /// Whether the authorization server lists DPoP in its metadata and binds tokens.
    binds: bool,
    /// The proof algorithms its metadata lists, when it binds (default ES256).
    algorithms: Option<Vec<&'static str>>,
    /// A `token_type` it answers whatever was asked (a misbehaving server).
    forced_type: Option<&'static str>,
}

struct Realm {
    state: Arc<Mutex<State>>,
    resource: String,
    token_endpoint: String,
}

impl Realm {
    fn start(binds: bool, expires_in: u64) -> Realm {
        let state = Arc::new(Mutex::new(State {
            as_nonce: "as-nonce-1".into(),
            rs_nonce: "rs-nonce-1".into(),
            expires_in,
            binds,
            ..State::default()
        }));
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let origin = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let realm = Realm {
            state: state.clone(),
            resource: format!("{origin}/mcp"),
            token_endpoint: format!("{origin}/token"),
        };
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let state = state.clone();
                let origin = origin.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &state, &origin);
                });
            }
        });
        realm
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.lock().expect("lock").seen.clone()
    }

    fn rotate_resource_nonce(&self) {
        let mut state = self.state.lock().expect("lock");
        state.rs_nonce = format!("rs-nonce-{}", state.counter + 100);
    }

    /// The message of the `Error::Auth` that connecting with `oauth` must end in (`unless`:
    /// what it means if it connects instead).
    fn refused(&self, oauth: OAuth, unless: &str) -> String {
        let connected =
            pollster::block_on(HttpClient::builder(&self.resource).oauth(oauth).connect());
        match connected {
            Err(Error::Auth { message, .. }) => message,
            other => panic!("{unless}: {other:?}"),
        }
    }

    fn client(&self, oauth: OAuth) -> HttpClient {
        pollster::block_on(HttpClient::builder(&self.resource).oauth(oauth).connect())
            .expect("connects")
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn sha256(text: &str) -> String {
    b64(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
}

fn part(text: &str) -> Result<Value, String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| "not base64url".to_owned())?;
    serde_json::from_slice(&bytes).map_err(|_| "not JSON".to_owned())
}

/// A proof's claims and its key's thumbprint.
type Checked = (Value, String);

/// Checks a proof as RFC 9449 section 4.3 says; returns its claims and its key's thumbprint
/// (also with a refusal, once the signature verified).
fn verify(
    proof: &str,
    method: &str,
    url: &str,
    access_token: Option<&str>,
    nonce: &str,
) -> Result<Checked, (String, Option<Checked>)> {
    let parts: Vec<&str> = proof.split('.').collect();
    let [header, claims, signature] = parts[..] else {
        return Err(("not a compact JWS".into(), None));
    };
    let header = part(header).map_err(|e| (e, None))?;
    let claims_value = part(claims).map_err(|e| (e, None))?;
    if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" {
        return Err(("typ or alg".into(), None));
    }
    let jwk = &header["jwk"];
    if jwk.get("d").is_some() || jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
        return Err(("jwk".into(), None));
    }
    let (Some(x), Some(y)) = (jwk["x"].as_str(), jwk["y"].as_str()) else {
        return Err(("jwk coordinates".into(), None));
    };
    let mut point = vec![4u8];
    for coordinate in [x, y] {
        point.extend(
            URL_SAFE_NO_PAD
                .decode(coordinate)
                .map_err(|_| ("jwk coordinate".to_owned(), None))?,
        );
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| ("signature encoding".to_owned(), None))?;
    let signed = &proof[..proof.rfind('.').expect("three parts")];
    ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point)
        .verify(signed.as_bytes(), &signature)
        .map_err(|_| ("signature".to_owned(), None))?;
    let jkt = sha256(&format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#
    ));
    let found = Some((claims_value.clone(), jkt.clone()));
    let claims = &claims_value;
    if !claims["jti"].is_string() {
        return Err(("no jti".into(), found));
    }
    if claims["htm"] != method {
        return Err(("htm".into(), found));
    }
    if claims["htu"] != url {
        return Err(("htu".into(), found));
    }
    if claims["iat"]
        .as_u64()
        .is_none_or(|iat| iat.abs_diff(now()) > 300)
    {
        return Err(("iat".into(), found));
    }
    if let Some(token) = access_token
        && claims["ath"] != sha256(token)
    {
        return Err(("ath".into(), found));
    }
    if claims["nonce"] != nonce {
        return Err(("use_dpop_nonce".into(), found));
    }
    Ok((claims_value, jkt))
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

fn serve(mut stream: TcpStream, state: &Mutex<State>, origin: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or("").to_owned();
    let path = words.next().unwrap_or("").to_owned();
    let (mut length, mut authorization, mut proofs) = (0, None, Vec::new());
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
                "dpop" => proofs.push(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let json = [("Content-Type", "application/json")];
    let mut state = state.lock().expect("lock");
    match path.as_str() {
        "/.well-known/oauth-protected-resource/mcp" => {
            let document = json!({"resource": format!("{origin}/mcp"),
                "authorization_servers": [origin]});
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        "/.well-known/oauth-authorization-server" => {
            let mut document = json!({
                "issuer": origin,
                "token_endpoint": format!("{origin}/token"),
                "grant_types_supported": ["client_credentials", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            });
            if state.binds {
                let listed = state.algorithms.clone().unwrap_or(vec!["ES256"]);
                document["dpop_signing_alg_values_supported"] = json!(listed);
            }
            respond(&mut stream, "200 OK", &json, &document.to_string())
        }
        "/token" => token(&mut stream, &mut state, origin, &body, &proofs),
        "/mcp" => resource(
            &mut stream,
            &mut state,
            origin,
            &method,
            authorization,
            &proofs,
            &body,
        ),
        _ => respond(&mut stream, "404 Not Found", &[], ""),
    }
}

fn token(
    stream: &mut TcpStream,
    state: &mut State,
    origin: &str,
    body: &[u8],
    proofs: &[String],
) -> std::io::Result<()> {
    let form: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
    let grant = form.get("grant_type").cloned();
    let json = [("Content-Type", "application/json")];
    let refuse = |stream: &mut TcpStream, state: &mut State, why: &str, seen: Seen| {
        state.seen.push(Seen {
            verdict: Verdict::Refused(why.to_owned()),
            ..seen
        });
        let body = json!({"error": why}).to_string();
        let nonce = state.as_nonce.clone();
        let headers = [
            ("Content-Type", "application/json"),
            ("DPoP-Nonce", nonce.as_str()),
        ];
        respond(stream, "400 Bad Request", &headers, &body)
    };
    let mut seen = Seen {
        path: "/token".into(),
        grant: grant.clone(),
        claims: None,
        proof: proofs.first().cloned(),
        jkt: None,
        scheme: None,
        verdict: Verdict::Accepted,
    };
    if form.get("client_id").map(String::as_str) != Some("bot")
        || form.get("client_secret").map(String::as_str) != Some("bot-secret")
    {
        return refuse(stream, state, "invalid_client", seen);
    }
    let jkt = if state.binds && !proofs.is_empty() {
        if proofs.len() != 1 {
            return refuse(stream, state, "invalid_dpop_proof", seen);
        }
        let nonce = state.as_nonce.clone();
        let url = format!("{origin}/token");
        match verify(&proofs[0], "POST", &url, None, &nonce) {
            Ok((claims, jkt)) => {
                seen.claims = Some(claims.clone());
                seen.jkt = Some(jkt.clone());
                if !state
                    .jtis
                    .insert(claims["jti"].as_str().unwrap_or("").to_owned())
                {
                    return refuse(stream, state, "invalid_dpop_proof", seen);
                }
                Some(jkt)
            }
            Err((why, found)) => {
                if let Some((claims, jkt)) = found {
                    seen.claims = Some(claims);
                    seen.jkt = Some(jkt);
                }
                let error = if why == "use_dpop_nonce" {
                    "use_dpop_nonce"
                } else {
                    "invalid_dpop_proof"
                };
                return refuse(stream, state, error, seen);
            }
        }
    } else {
        None
    };
    match grant.as_deref() {
        Some("client_credentials") => {}
        Some("refresh_token") => {
            let presented = form.get("refresh_token").cloned().unwrap_or_default();
            // A bound refresh token goes with a proof of the same key (RFC 9449 section 5).
            if state.refresh.remove(&presented) != Some(jkt.clone().unwrap_or_default()) {
                return refuse(stream, state, "invalid_grant", seen);
            }
        }
        _ => return refuse(stream, state, "unsupported_grant_type", seen),
    }
    state.counter += 1;
    let access = format!("access-{}", state.counter);
    let refresh = format!("refresh-{}", state.counter);
    let kind = match &jkt {
        Some(jkt) => {
            state.bound.insert(access.clone(), jkt.clone());
            state.refresh.insert(refresh.clone(), jkt.clone());
            "DPoP"
        }
        None => {
            state.bound.insert(access.clone(), String::new());
            state.refresh.insert(refresh.clone(), String::new());
            "Bearer"
        }
    };
    let kind = state.forced_type.unwrap_or(kind);
    state.seen.push(seen);
    let document = json!({"access_token": access, "token_type": kind,
        "expires_in": state.expires_in, "refresh_token": refresh});
    respond(stream, "200 OK", &json, &document.to_string())
}

fn resource(
    stream: &mut TcpStream,
    state: &mut State,
    origin: &str,
    method: &str,
    authorization: Option<String>,
    proofs: &[String],
    body: &[u8],
) -> std::io::Result<()> {
    let url = format!("{origin}/mcp");
    let metadata =
        format!("resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\"");
    let (scheme, token) = match authorization.as_deref().and_then(|a| a.split_once(' ')) {
        Some((scheme, token)) => (Some(scheme.to_owned()), Some(token.to_owned())),
        None => (None, None),
    };
    let mut seen = Seen {
        path: "/mcp".into(),
        grant: None,
        claims: None,
        proof: proofs.first().cloned(),
        jkt: None,
        scheme: scheme.clone(),
        verdict: Verdict::Accepted,
    };
    let bound = token.as_ref().and_then(|t| state.bound.get(t).cloned());
    let verdict: Result<(), &str> = match (&bound, scheme.as_deref()) {
        (None, _) => Err("invalid_token"),
        // A Bearer token of a server that does not bind.
        (Some(jkt), Some("Bearer")) if jkt.is_empty() && proofs.is_empty() => Ok(()),
        (Some(jkt), Some("DPoP")) if !jkt.is_empty() => {
            if proofs.len() != 1 {
                Err("invalid_dpop_proof")
            } else {
                let nonce = state.rs_nonce.clone();
                match verify(&proofs[0], method, &url, token.as_deref(), &nonce) {
                    Ok((claims, proof_jkt)) => {
                        let fresh = state
                            .jtis
                            .insert(claims["jti"].as_str().unwrap_or("").into());
                        seen.claims = Some(claims);
                        seen.jkt = Some(proof_jkt.clone());
                        if &proof_jkt != jkt || !fresh {
                            Err("invalid_dpop_proof")
                        } else {
                            Ok(())
                        }
                    }
                    Err((why, found)) => {
                        if let Some((claims, proof_jkt)) = found {
                            seen.claims = Some(claims);
                            seen.jkt = Some(proof_jkt);
                        }
                        Err(if why == "use_dpop_nonce" {
                            "use_dpop_nonce"
                        } else {
                            "invalid_dpop_proof"
                        })
                    }
                }
            }
        }
        // A bound token as a Bearer one, or a DPoP token without its binding.
        _ => Err("invalid_token"),
    };
    if let Err(why) = verdict {
        seen.verdict = Verdict::Refused(why.to_owned());
        state.seen.push(seen);
        let challenge = if why == "invalid_token" && token.is_none() {
            format!("DPoP algs=\"ES256\", {metadata}")
        } else {
            format!("DPoP error=\"{why}\", algs=\"ES256\", {metadata}")
        };
        // The nonce goes with a refusal of a proof only: a client must answer the challenge.
        let nonce = state.rs_nonce.clone();
        let mut headers = vec![("WWW-Authenticate", challenge.as_str())];
        if why != "invalid_token" {
            headers.push(("DPoP-Nonce", &nonce));
        }
        return respond(
            stream,
            "401 Unauthorized",
            &headers,
            &json!({"error": why}).to_string(),
        );
    }
    state.seen.push(seen);
    let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let result = match message["method"].as_str() {
        Some("server/discover") => json!({"supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "dpop-realm", "version": "1"}}),
        Some("tools/list") => {
            json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
        }
        Some("tools/call") => json!({"content": [{"type": "text", "text": "ok"}]}),
        _ => json!({}),
    };
    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
    respond(
        stream,
        "200 OK",
        &[("Content-Type", "application/json")],
        &answer.to_string(),
    )
}

fn machine() -> OAuth {
    OAuth::client_credentials("bot", "bot-secret")
}

/// A directory for a file token store, removed when the test ends (passing or not).
fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

#[test]
fn every_request_carries_a_new_proof_of_the_tokens_key_and_both_nonces_are_honoured() {
    let realm = Realm::start(true, 3600);
    let client = realm.client(machine());
    for _ in 0..3 {
        pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    }
    // The server moves on to a new nonce: the next proof's is stale, refused, and the call is
    // sent again with the new one.
    realm.rotate_resource_nonce();
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    let seen = realm.seen();
    let tokens: Vec<&Seen> = seen.iter().filter(|s| s.path == "/token").collect();
    // The authorization server: refused for want of its nonce once, then a proof with it.
    assert_eq!(
        tokens.iter().map(|s| s.verdict.clone()).collect::<Vec<_>>(),
        [Verdict::Refused("use_dpop_nonce".into()), Verdict::Accepted],
        "{tokens:#?}"
    );
    assert!(
        tokens[0]
            .claims
            .as_ref()
            .is_some_and(|c| c.get("nonce").is_none())
    );
    assert_eq!(
        tokens[1].claims.as_ref().expect("claims")["nonce"],
        "as-nonce-1"
    );
    assert!(
        tokens
            .iter()
            .all(|s| s.claims.as_ref().is_some_and(|c| c.get("ath").is_none()))
    );
    let key = tokens[1].jkt.clone().expect("bound");
    let calls: Vec<&Seen> = seen.iter().filter(|s| s.path == "/mcp").collect();
    let accepted: Vec<&&Seen> = calls
        .iter()
        .filter(|s| s.verdict == Verdict::Accepted)
        .collect();
    // server/discover, three calls, and the call after the rotation.
    assert!(accepted.len() >= 5, "{calls:#?}");
    for call in &accepted {
        assert_eq!(call.scheme.as_deref(), Some("DPoP"));
        assert_eq!(call.jkt.as_ref(), Some(&key), "one key for every request");
    }
    let nonce_refusals: Vec<&&Seen> = calls
        .iter()
        .filter(|s| s.verdict == Verdict::Refused("use_dpop_nonce".into()))
        .collect();
    assert_eq!(nonce_refusals.len(), 2, "one per nonce: {calls:#?}");
    let stale = nonce_refusals[1].claims.as_ref().expect("claims");
    assert_eq!(
        stale["nonce"], "rs-nonce-1",
        "the refused proof carried the old nonce"
    );
    let last = accepted
        .last()
        .expect("accepted")
        .claims
        .as_ref()
        .expect("claims");
    assert_ne!(last["nonce"], "rs-nonce-1", "sent again with the new one");
    // Nothing else was refused (but the first request, which had no token yet): no proof was
    // replayed, none was for another URL or method, no token went without its proof.
    for call in &calls[1..] {
        assert!(
            matches!(&call.verdict, Verdict::Accepted)
                || call.verdict == Verdict::Refused("use_dpop_nonce".into()),
            "{call:#?}"
        );
    }
    assert_eq!(calls[0].verdict, Verdict::Refused("invalid_token".into()));
    assert_eq!(calls[0].scheme, None);
}

/// POSTs a `tools/list` to `url` with `Authorization: {scheme} {token}` and the proof, as a
/// thief would (no client library); the status, the challenge and the `DPoP-Nonce`.
fn send_as_thief(
    url: &str,
    scheme: &str,
    token: &str,
    proof: Option<&str>,
) -> (u16, String, Option<String>) {
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL");
    let mut stream = TcpStream::connect(address).expect("connects");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Authorization: {scheme} {token}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(proof) = proof {
        request.push_str(&format!("DPoP: {proof}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let header = |name: &str| {
        answer.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    (
        status,
        header("WWW-Authenticate").unwrap_or_default(),
        header("DPoP-Nonce"),
    )
}

#[test]
fn the_realm_refuses_what_a_thief_could_send_and_takes_a_proof_made_right() {
    let realm = Realm::start(true, 3600);
    let tmp = temp_dir();
    let dir = tmp.path();
    let client = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    let tokens = FileTokenStore::new(dir)
        .tokens(&realm.resource)
        .expect("reads")
        .expect("kept");
    let access = tokens.access_token.expose().to_owned();
    let stored = tokens.dpop_key.expect("the key is kept with the tokens");
    let der = URL_SAFE_NO_PAD.decode(stored.expose()).expect("base64url");
    let rng = ring::rand::SystemRandom::new();
    let pair = ring::signature::EcdsaKeyPair::from_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &der,
        &rng,
    )
    .expect("a P-256 key");
    let stranger = ring::signature::EcdsaKeyPair::from_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        ring::signature::EcdsaKeyPair::generate_pkcs8(
            &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &rng,
        )
        .expect("key")
        .as_ref(),
        &rng,
    )
    .expect("key");
    // This test's own signer (not the client's).
    let sign_with = |pair: &ring::signature::EcdsaKeyPair, claims: Value| {
        use ring::signature::KeyPair as _;
        let point = pair.public_key().as_ref();
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": {"kty": "EC",
            "crv": "P-256", "x": b64(&point[1..33]), "y": b64(&point[33..])}});
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let signature = pair.sign(&rng, input.as_bytes()).expect("signs");
        format!("{input}.{}", b64(signature.as_ref()))
    };
    let sign = |claims: Value| sign_with(&pair, claims);
    let nonce = realm.state.lock().expect("lock").rs_nonce.clone();
    let claims = |jti: &str, htm: &str, htu: &str, nonce: &str| {
        json!({"jti": jti, "htm": htm, "htu": htu, "iat": now(), "ath": sha256(&access),
            "nonce": nonce})
    };
    let good = sign(claims("t-1", "POST", &realm.resource, &nonce));
    let cases = [
        ("a proof made right", Some(good.clone()), "DPoP", 200, ""),
        (
            "the same proof again",
            Some(good),
            "DPoP",
            401,
            "invalid_dpop_proof",
        ),
        (
            "a proof for another URL",
            Some(sign(claims(
                "t-2",
                "POST",
                "http://127.0.0.1:1/mcp",
                &nonce,
            ))),
            "DPoP",
            401,
            "invalid_dpop_proof",
        ),
        (
            "a proof for another method",
            Some(sign(claims("t-3", "GET", &realm.resource, &nonce))),
            "DPoP",
            401,
            "invalid_dpop_proof",
        ),
        (
            "the token without a proof",
            None,
            "DPoP",
            401,
            "invalid_dpop_proof",
        ),
        (
            "the token as a Bearer token",
            None,
            "Bearer",
            401,
            "invalid_token",
        ),
        (
            "a proof by another key",
            Some(sign_with(
                &stranger,
                claims("t-5", "POST", &realm.resource, &nonce),
            )),
            "DPoP",
            401,
            "invalid_dpop_proof",
        ),
        (
            "a stale nonce",
            Some(sign(claims("t-4", "POST", &realm.resource, "rs-nonce-0"))),
            "DPoP",
            401,
            "use_dpop_nonce",
        ),
    ];
    for (case, proof, scheme, status, error) in cases {
        let (got, challenge, nonce_header) =
            send_as_thief(&realm.resource, scheme, &access, proof.as_deref());
        assert_eq!(got, status, "{case}");
        if status == 401 {
            assert!(
                challenge.contains(&format!("error=\"{error}\"")),
                "{case}: {challenge}"
            );
        }
        if error == "use_dpop_nonce" {
            assert_eq!(nonce_header.as_deref(), Some(nonce.as_str()), "{case}");
        }
    }
}

#[test]
fn a_bound_refresh_token_is_refreshed_with_the_same_key_and_a_second_run_reuses_both() {
    // Tokens that live 2 s: refreshed before their second half.
    let realm = Realm::start(true, 2);
    let tmp = temp_dir();
    let dir = tmp.path();
    let client = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    std::thread::sleep(std::time::Duration::from_millis(1_200));
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    drop(client);
    let seen = realm.seen();
    let granted: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.path == "/token" && s.verdict == Verdict::Accepted)
        .collect();
    let grants: Vec<Option<&str>> = granted.iter().map(|s| s.grant.as_deref()).collect();
    assert_eq!(
        grants,
        [Some("client_credentials"), Some("refresh_token")],
        "{seen:#?}"
    );
    assert_eq!(
        granted[0].jkt, granted[1].jkt,
        "the refresh proof is by the same key"
    );
    // A second process: the stored tokens and key, no token request, proofs that verify.
    let before = realm.seen().len();
    let again = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(again.call_tool("echo", serde_json::Map::new())).expect("call");
    let later: Vec<Seen> = realm.seen().split_off(before);
    assert!(later.iter().all(|s| s.path == "/mcp"), "{later:#?}");
    assert!(
        later
            .iter()
            .filter(|s| s.verdict == Verdict::Accepted)
            .all(|s| s.jkt == granted[0].jkt),
        "{later:#?}"
    );
}

#[test]
fn bearer_tokens_where_the_server_does_not_bind_unless_dpop_is_required() {
    let realm = Realm::start(false, 3600);
    let client = realm.client(machine());
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    let seen = realm.seen();
    let last = seen.last().expect("seen");
    assert_eq!(last.scheme.as_deref(), Some("Bearer"));
    assert!(
        seen.iter().all(|s| s.claims.is_none()),
        "no proof: {seen:#?}"
    );
    // Required: a token request with a proof, and the Bearer token issued anyway is refused.
    let realm = Realm::start(false, 3600);
    let message = realm.refused(
        machine().dpop(Dpop::Required),
        "connected with a Bearer token though DPoP is required",
    );
    assert!(message.contains("DPoP is required"), "{message}");
    assert!(message.contains(&realm.token_endpoint), "{message}");
    // Off: a server that binds gets no proof and issues a Bearer token.
    let realm = Realm::start(true, 3600);
    let client = realm.client(machine().dpop(Dpop::Off));
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    let seen = realm.seen();
    assert!(seen.iter().all(|s| s.claims.is_none()), "{seen:#?}");
    assert_eq!(seen.last().expect("seen").scheme.as_deref(), Some("Bearer"));
}

#[test]
fn what_the_authorization_server_offers_decides_and_its_mistakes_are_named() {
    // It lists RS256 only: no proof by default (and a Bearer token), a clear refusal when
    // DPoP is required.
    let realm = Realm::start(true, 3600);
    realm.state.lock().expect("lock").algorithms = Some(vec!["RS256"]);
    let client = realm.client(machine());
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    assert!(
        realm.seen().iter().all(|s| s.proof.is_none()),
        "no ES256: no proof"
    );
    let message = realm.refused(
        machine().dpop(Dpop::Required),
        "required DPoP without ES256 connected",
    );
    assert!(
        message.contains("accepts proofs signed with RS256 only"),
        "{message}"
    );
    // A DPoP token the client did not ask for (DPoP off: no proof sent, though this realm's
    // challenge offers the scheme) is refused, not sent as Bearer.
    let realm = Realm::start(false, 3600);
    realm.state.lock().expect("lock").forced_type = Some("DPoP");
    let message = realm.refused(machine().dpop(Dpop::Off), "an unasked DPoP token was used");
    assert!(message.contains("issued a DPoP token unasked"), "{message}");
}

#[test]
fn stored_tokens_whose_key_is_unreadable_are_replaced_by_a_new_sign_in() {
    let realm = Realm::start(true, 3600);
    let tmp = temp_dir();
    let dir = tmp.path();
    let first = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(first.call_tool("echo", serde_json::Map::new())).expect("call");
    drop(first);
    // The stored key is damaged (a store edited by hand, a truncated file).
    let store = FileTokenStore::new(dir);
    let mut tokens = store.tokens(&realm.resource).expect("reads").expect("kept");
    tokens.dpop_key = Some(mcp_bindgen::oauth::Secret::new("not-a-key"));
    store.save_tokens(&realm.resource, &tokens).expect("writes");
    let grants_before = realm.seen().iter().filter(|s| s.path == "/token").count();
    let again = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(again.call_tool("echo", serde_json::Map::new())).expect("signs in again");
    let grants_after = realm.seen().iter().filter(|s| s.path == "/token").count();
    assert!(grants_after > grants_before, "a new token was asked for");
    let kept = store.tokens(&realm.resource).expect("reads").expect("kept");
    assert_ne!(
        kept.dpop_key, tokens.dpop_key,
        "a usable key replaced the damaged one"
    );
}

/// What a subscriber sees of a DPoP sign-in and its calls, at every level: no token, no
/// proof, no key, no client secret, in any span or event; nor in the client's `Debug`, nor in
/// the error of a refused grant.
#[cfg(feature = "tracing")]
#[test]
fn no_token_proof_or_key_reaches_a_trace_a_debug_or_an_error() {
    use std::fmt::Write as _;
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    struct Text<'a>(&'a mut String);
    impl Visit for Text<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    struct Everything(Arc<Mutex<String>>);
    impl Subscriber for Everything {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, span: &Attributes<'_>) -> Id {
            span.record(&mut Text(&mut self.0.lock().expect("lock")));
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, values: &Record<'_>) {
            values.record(&mut Text(&mut self.0.lock().expect("lock")));
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            event.record(&mut Text(&mut self.0.lock().expect("lock")));
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
    let text = Arc::new(Mutex::new(String::new()));
    tracing::subscriber::set_global_default(Everything(text.clone())).expect("the only one");

    let realm = Realm::start(true, 3600);
    let tmp = temp_dir();
    let dir = tmp.path();
    let client = realm.client(machine().token_store(FileTokenStore::new(dir)));
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    realm.rotate_resource_nonce();
    pollster::block_on(client.call_tool("echo", serde_json::Map::new())).expect("call");
    let debug = format!("{client:?}");
    let tokens = FileTokenStore::new(dir)
        .tokens(&realm.resource)
        .expect("reads")
        .expect("kept");
    let mut secrets = vec![
        "bot-secret".to_owned(),
        tokens.access_token.expose().to_owned(),
        tokens.dpop_key.expect("bound").expose().to_owned(),
    ];
    secrets.extend(realm.seen().into_iter().filter_map(|s| s.proof));
    assert!(secrets.len() > 4, "proofs were sent: {secrets:?}");
    // A refused grant: its error names the server and the step, nothing it sent.
    let refusing = Realm::start(false, 3600);
    let refused = pollster::block_on(
        HttpClient::builder(&refusing.resource)
            .oauth(machine().dpop(Dpop::Required))
            .connect(),
    )
    .err()
    .map(|e| format!("{e} {e:?}"))
    .expect("refused");
    secrets.extend(refusing.seen().into_iter().filter_map(|s| s.proof));
    let traced = text.lock().expect("lock").clone();
    // The subscriber saw the flow (the nonce's retry is an event).
    assert!(
        traced.contains("sending the request again with new credentials"),
        "{traced}"
    );
    for secret in &secrets {
        assert!(!traced.contains(secret.as_str()), "traced: {secret}");
        assert!(!debug.contains(secret.as_str()), "in Debug: {secret}");
        assert!(!refused.contains(secret.as_str()), "in the error: {secret}");
    }
}
