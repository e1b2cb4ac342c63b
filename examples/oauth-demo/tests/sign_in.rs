//! The OAuth demo end to end: the `sign-in` binary signs in to the game through a browser
//! (`browser.py`, a person's clicks in the standard library's HTTP client, opened by
//! `mcp_bindgen::oauth::BrowserSignIn` as `$BROWSER`), then from its stored tokens, then by a
//! refresh; a declined sign-in; the game server's challenge and metadata; and what the
//! authorization server refuses.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use oauth_demo::{AuthorizationServer, POLL_BUDGET, Tavern, start};

/// The game and its authorization server, the game polled at 60 Hz on a thread of its own.
struct Demo {
    port: u16,
    auth: AuthorizationServer,
    stop: Arc<AtomicBool>,
    frames: Option<JoinHandle<()>>,
}

impl Demo {
    fn start() -> Demo {
        Demo::start_on(0, 0)
    }

    fn start_on(port: u16, auth_port: u16) -> Demo {
        let stop = Arc::new(AtomicBool::new(false));
        let (started, ready) = std::sync::mpsc::channel();
        let stopping = stop.clone();
        let frames = std::thread::spawn(move || {
            let (mut server, auth) = start(port, auth_port).expect("the demo starts");
            started.send((server.port(), auth)).unwrap();
            let mut tavern = Tavern::new();
            while !stopping.load(Ordering::Relaxed) {
                server.poll_for(&mut tavern, POLL_BUDGET);
                std::thread::sleep(Duration::from_millis(16));
            }
            server.destroy();
        });
        let (port, auth) = ready.recv().expect("the demo started");
        Demo {
            port,
            auth,
            stop,
            frames: Some(frames),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn auth_port(&self) -> u16 {
        self.auth
            .issuer()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(frames) = self.frames.take() {
            let _ = frames.join();
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oauth-demo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `sign-in` binary against the demo, with `browser.py` answering `decision` as the
/// browser; every URL the browser is sent to is appended to `log`.
fn sign_in(demo: &Demo, tokens: &Path, log: &Path, decision: &str, dice: &str) -> Output {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser.py");
    Command::new(env!("CARGO_BIN_EXE_sign-in"))
        .args([
            "--url",
            &demo.url(),
            "--dice",
            dice,
            "--wait",
            "60",
            "--tokens",
        ])
        .arg(tokens)
        .env(
            "BROWSER",
            format!(
                "python3 '{}' '{}' {decision}",
                browser.display(),
                log.display()
            ),
        )
        .output()
        .expect("sign-in runs")
}

fn lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `NdS: [a, b, ...] = total` with N dice of 1..=S summing to total.
fn assert_rolled(output: &Output, count: usize, sides: u32) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "sign-in failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout.trim();
    let (rolls, total) = line
        .split_once(": ")
        .and_then(|(_, rest)| rest.split_once(" = "))
        .unwrap_or_else(|| panic!("not a roll: {line}"));
    let rolls: Vec<u32> = serde_json::from_str(rolls).unwrap();
    assert_eq!(rolls.len(), count, "{line}");
    assert!(rolls.iter().all(|r| (1..=sides).contains(r)), "{line}");
    assert_eq!(
        rolls.iter().sum::<u32>(),
        total.parse::<u32>().unwrap(),
        "{line}"
    );
}

#[test]
fn signs_in_through_the_browser_then_from_stored_tokens_then_by_refresh() {
    let demo = Demo::start();
    let dir = scratch("sign-in");
    let (tokens, log) = (dir.join("tokens"), dir.join("browser.log"));

    let first = sign_in(&demo, &tokens, &log, "allow", "3d6");
    assert_rolled(&first, 3, 6);
    let opened = lines(&log);
    assert_eq!(opened.len(), 1, "one sign-in page: {opened:?}");
    assert!(
        opened[0].starts_with(&format!("{}/authorize?", demo.auth.issuer())),
        "{opened:?}"
    );
    // The code's exchange asked for a token for the game, by PKCE.
    assert!(
        opened[0].contains("code_challenge_method=S256"),
        "{opened:?}"
    );
    assert!(opened[0].contains("resource="), "{opened:?}");

    // The stored tokens: no browser.
    assert_rolled(&sign_in(&demo, &tokens, &log, "allow", "1d20"), 1, 20);
    assert_eq!(lines(&log).len(), 1);

    // The access token ended: the server refuses it, the client refreshes, still no browser.
    demo.auth.expire_access_tokens();
    assert_rolled(&sign_in(&demo, &tokens, &log, "allow", "2d8"), 2, 8);
    assert_eq!(lines(&log).len(), 1);

    // What is stored is no secret for others (owner-only files).
    #[cfg(unix)]
    for entry in std::fs::read_dir(&tokens).unwrap() {
        use std::os::unix::fs::PermissionsExt;
        let mode = entry.unwrap().metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "a token file others can read: {mode:o}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The demo stopped and started again on the same ports has forgotten every client and token:
/// the client's stored tokens and registration are refused (the refresh answered
/// `invalid_client`), so it registers anew and the person signs in again, rather than being
/// sent to a page that refuses an unknown client.
#[test]
fn a_restarted_authorization_server_is_signed_in_to_again() {
    let demo = Demo::start();
    let (port, auth_port) = (demo.port, demo.auth_port());
    let dir = scratch("restart");
    let (tokens, log) = (dir.join("tokens"), dir.join("browser.log"));
    assert_rolled(&sign_in(&demo, &tokens, &log, "allow", "1d6"), 1, 6);
    drop(demo);
    let demo = Demo::start_on(port, auth_port);
    assert_rolled(&sign_in(&demo, &tokens, &log, "allow", "1d6"), 1, 6);
    let opened = lines(&log);
    assert_eq!(opened.len(), 2, "signed in again: {opened:?}");
    let client = |url: &str| {
        url.split("client_id=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_ne!(client(&opened[0]), client(&opened[1]), "registered anew");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_declined_sign_in_is_an_error_that_says_so() {
    let demo = Demo::start();
    let dir = scratch("declined");
    let output = sign_in(&demo, &dir.join("tokens"), &dir.join("log"), "deny", "2d6");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("access_denied"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One HTTP/1.1 request on loopback: the status, the headers (names lowercased) and the body.
fn http(port: u16, request: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut head = head.lines();
    let status = head.next().unwrap()[9..12].parse().unwrap();
    let headers = head
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

fn post(path: &str, host: &str, extra: &str, kind: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: {kind}\r\nAccept: \
         application/json, text/event-stream\r\n{extra}Content-Length: {}\r\nConnection: \
         close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn the_game_challenges_and_publishes_its_protected_resource_metadata() {
    let demo = Demo::start();
    let port = demo.port;
    let host = format!("127.0.0.1:{port}");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let json = "application/json";

    let (status, headers, _) = http(port, &post("/mcp", &host, "", json, ping));
    assert_eq!(status, 401);
    let challenge = header(&headers, "www-authenticate");
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\", \
             scope=\"dice\""
        )
    );

    let (status, headers, _) = http(
        port,
        &post(
            "/mcp",
            &host,
            "Authorization: Bearer made-up\r\n",
            json,
            ping,
        ),
    );
    assert_eq!(status, 401);
    assert!(
        header(&headers, "www-authenticate").contains("error=\"invalid_token\""),
        "{headers:?}"
    );

    // The metadata names the endpoint as the client addressed it.
    for host in [host.clone(), format!("localhost:{port}")] {
        let (status, _, body) = http(
            port,
            &format!(
                "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {host}\r\n\
                 Connection: close\r\n\r\n"
            ),
        );
        assert_eq!(status, 200, "{body}");
        let metadata: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(metadata["resource"], format!("http://{host}/mcp"));
        assert_eq!(metadata["authorization_servers"][0], demo.auth.issuer());
        assert_eq!(metadata["scopes_supported"], serde_json::json!(["dice"]));
    }
    // Another host's page cannot read it through DNS rebinding.
    let (status, _, _) = http(
        port,
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: evil.example\r\n\
         Connection: close\r\n\r\n",
    );
    assert_eq!(status, 403);
}

#[test]
fn the_authorization_server_refuses_what_it_must() {
    let demo = Demo::start();
    let port = demo.auth_port();
    let host = format!("127.0.0.1:{port}");
    let form = "application/x-www-form-urlencoded";
    let redirect = "http://127.0.0.1:9/callback";

    let register = |metadata: &str| {
        http(
            port,
            &post("/register", &host, "", "application/json", metadata),
        )
    };
    // Registration: loopback redirect URIs only.
    let (status, _, body) = register(r#"{"redirect_uris":["https://elsewhere.example/cb"]}"#);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("invalid_redirect_uri"), "{body}");
    let (status, _, body) = register(&format!(
        r#"{{"redirect_uris":["{redirect}"],"client_name":"<script>"}}"#
    ));
    assert_eq!(status, 201, "{body}");
    let client: serde_json::Value = serde_json::from_str(&body).unwrap();
    let client_id = client["client_id"].as_str().unwrap().to_owned();

    let verifier = "a-verifier-of-forty-three-characters-or-more-0123456789";
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let challenge = {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
    };
    let authorize_for = |redirect_uri: &str, resource: &str| {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("response_type", "code")
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", "s1")
            .append_pair("resource", resource)
            .finish();
        http(
            port,
            &format!(
                "GET /authorize?{query} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
            ),
        )
    };
    let game = format!("http://localhost:{}/mcp", demo.port);
    let authorize = |redirect_uri: &str| authorize_for(redirect_uri, &game);
    // Tokens for another resource are refused, by the redirect (RFC 8707).
    let (status, headers, _) = authorize_for(redirect, "http://127.0.0.1:1/elsewhere");
    assert_eq!(status, 302);
    let location = header(&headers, "location");
    assert!(
        location.starts_with(&format!("{redirect}?error=invalid_target")),
        "{location}"
    );
    // A redirect URI the client did not register is never redirected to.
    let (status, headers, _) = authorize("http://127.0.0.1:10/other");
    assert_eq!(status, 400);
    assert_eq!(header(&headers, "location"), "");
    // The page names the client, escaped.
    let (status, _, page) = authorize(redirect);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("&lt;script&gt;") && !page.contains("<script>"),
        "{page}"
    );
    let request = page
        .split("name=\"request\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let approve = || {
        http(
            port,
            &post(
                "/authorize",
                &host,
                "",
                form,
                &format!("request={request}&decision=allow&name=Ann"),
            ),
        )
    };
    let (status, headers, _) = approve();
    assert_eq!(status, 302);
    let location = header(&headers, "location").to_owned();
    assert!(
        location.starts_with(&format!("{redirect}?code=")),
        "{location}"
    );
    assert!(location.contains("state=s1"), "{location}");
    assert!(location.contains("iss="), "{location}");
    let code = location
        .split("code=")
        .nth(1)
        .and_then(|rest| rest.split('&').next())
        .unwrap()
        .to_owned();
    // The page's request is answered once.
    let (status, _, _) = approve();
    assert_eq!(status, 400);

    let token = |verifier: &str| {
        http(
            port,
            &post(
                "/token",
                &host,
                "",
                form,
                &format!(
                    "grant_type=authorization_code&code={code}&client_id={client_id}&redirect_uri={}&code_verifier={verifier}",
                    form_urlencoded::byte_serialize(redirect.as_bytes()).collect::<String>()
                ),
            ),
        )
    };
    // The wrong verifier spends the code: the right one then finds it gone.
    let (status, _, body) = token("not-the-verifier-not-the-verifier-not-the-verifier");
    assert_eq!(status, 400);
    assert!(
        body.contains("invalid_grant") && body.contains("code_verifier"),
        "{body}"
    );
    let (status, _, body) = token(verifier);
    assert_eq!(status, 400);
    assert!(
        body.contains("invalid_grant") && body.contains("used"),
        "{body}"
    );
}
