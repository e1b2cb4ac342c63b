//! Era negotiation is the session's, written once: the same scripted answers to
//! `server/discover` lead to the same era over stdio and over Streamable HTTP. The one case
//! that differs is the one whose signal only HTTP has (a `-32601` with status 404 is a modern
//! server without `server/discover`; stdio has no status, so there it is a legacy server).
//! A silent server is given one budget for the whole connect, on both transports.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_bindgen::{Error, HttpClient, StdioClient};

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/negotiation_server.py"
);

/// The scripted server over HTTP, ended when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(case: &str) -> Self {
        let mut child = Command::new("python3")
            .args([SERVER, case, "http"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("prints its URL");
        HttpServer {
            child,
            url: url.trim().to_owned(),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a connect found: the version and the era the server saw in `tools/list`.
#[derive(Debug, PartialEq)]
enum Found {
    Era(String, &'static str),
    Failed(String),
}

async fn tool_era(tools: Result<Vec<serde_json::Value>, Error>) -> &'static str {
    match tools.expect("tools/list")[0]["name"].as_str() {
        Some("modern") => "modern",
        Some("legacy") => "legacy",
        other => panic!("unexpected tool {other:?}"),
    }
}

async fn over_stdio(case: &str, timeout: Duration) -> (Found, Duration) {
    let mut command = tokio::process::Command::new("python3");
    command.args([SERVER, case, "stdio"]);
    let started = Instant::now();
    let connected = StdioClient::builder(command).timeout(timeout).spawn().await;
    let waited = started.elapsed();
    let found = match connected {
        Ok(client) => Found::Era(
            client.protocol_version().expect("a version"),
            tool_era(client.list_tools().await).await,
        ),
        Err(e) => Found::Failed(e.to_string()),
    };
    (found, waited)
}

async fn over_http(case: &str, timeout: Duration) -> (Found, Duration) {
    let server = HttpServer::start(case);
    let started = Instant::now();
    let connected = HttpClient::builder(&server.url)
        .timeout(timeout)
        .connect()
        .await;
    let waited = started.elapsed();
    let found = match connected {
        Ok(client) => Found::Era(
            client.protocol_version().expect("a version"),
            tool_era(client.list_tools().await).await,
        ),
        Err(e) => Found::Failed(e.to_string()),
    };
    (found, waited)
}

fn era(version: &str, era: &'static str) -> Found {
    Found::Era(version.to_owned(), era)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_transports_negotiate_alike() {
    let timeout = Duration::from_secs(10);
    let cases = [
        ("modern", era("2026-07-28", "modern")),
        ("method-not-found", era("2025-11-25", "legacy")),
        ("unsupported-version", era("2025-06-18", "legacy")),
        ("no-versions", era("2025-11-25", "legacy")),
        ("offers-legacy", era("2025-11-25", "legacy")),
    ];
    for (case, expected) in cases {
        let (stdio, _) = over_stdio(case, timeout).await;
        let (http, _) = over_http(case, timeout).await;
        assert_eq!(stdio, expected, "{case} over stdio");
        assert_eq!(http, expected, "{case} over HTTP");
    }
    // A modern error ends the connect on both.
    for (transport, found) in [
        ("stdio", over_stdio("missing-capability", timeout).await.0),
        ("HTTP", over_http("missing-capability", timeout).await.0),
    ] {
        match found {
            Found::Failed(message) => assert!(message.contains("-32021"), "{transport}: {message}"),
            other => panic!("{transport}: connected despite -32021: {other:?}"),
        }
    }
}

/// Only HTTP carries the status that makes a `-32601` mean "modern, without
/// `server/discover`".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_404_method_not_found_means_modern_over_http_only() {
    let timeout = Duration::from_secs(10);
    let (http, _) = over_http("method-not-found-404", timeout).await;
    assert_eq!(http, era("2026-07-28", "modern"));
    let (stdio, _) = over_stdio("method-not-found-404", timeout).await;
    assert_eq!(stdio, era("2025-11-25", "legacy"));
}

/// A server that does not answer the probe gets the legacy handshake within the same budget;
/// one that answers nothing fails once the budget is spent, naming both steps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_gets_one_budget_for_the_whole_connect() {
    let budget = Duration::from_secs(3);
    // Generous: a loaded 2-core machine may start python slowly; what is checked is that the
    // connect neither waits a budget per step nor gives up early.
    let slack = Duration::from_secs(4);
    for (transport, (found, waited)) in [
        ("stdio", over_stdio("silent", budget).await),
        ("HTTP", over_http("silent", budget).await),
    ] {
        assert_eq!(found, era("2025-11-25", "legacy"), "{transport}");
        assert!(
            waited >= budget / 2 && waited < budget + slack,
            "{transport}: waited {waited:?}"
        );
    }
    for (transport, (found, waited)) in [
        ("stdio", over_stdio("silent-all", budget).await),
        ("HTTP", over_http("silent-all", budget).await),
    ] {
        match found {
            Found::Failed(message) => assert!(
                message.contains("neither server/discover") && message.contains("nor initialize"),
                "{transport}: {message}"
            ),
            other => panic!("{transport}: {other:?}"),
        }
        assert!(
            waited >= budget && waited < budget + slack,
            "{transport}: waited {waited:?}"
        );
    }
}

/// What the server receives as `clientInfo`: this crate's name and version by default, and
/// what `.client_info()` says otherwise, in both eras (per request in the modern one, at
/// `initialize` in the legacy one) and over both transports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_receives_the_client_info() {
    let received = |tools: Vec<serde_json::Value>| -> serde_json::Value {
        serde_json::from_str(tools[0]["description"].as_str().expect("a description"))
            .expect("JSON")
    };
    let default = serde_json::json!({"name": "mcp-bindgen", "version": env!("CARGO_PKG_VERSION")});
    let custom = serde_json::json!({"name": "my-agent", "version": "2.0"});
    for case in ["modern", "method-not-found"] {
        for named in [false, true] {
            let expected = if named { &custom } else { &default };
            let server = HttpServer::start(case);
            let mut builder = HttpClient::builder(&server.url);
            if named {
                builder = builder.client_info("my-agent", "2.0");
            }
            let client = builder.connect().await.expect("connects");
            let tools = client.list_tools().await.expect("lists");
            assert_eq!(&received(tools), expected, "{case} over HTTP");

            let mut command = tokio::process::Command::new("python3");
            command.args([SERVER, case, "stdio"]);
            let mut builder = StdioClient::builder(command);
            if named {
                builder = builder.client_info("my-agent", "2.0");
            }
            let client = builder.spawn().await.expect("spawns");
            let tools = client.list_tools().await.expect("lists");
            assert_eq!(&received(tools), expected, "{case} over stdio");
        }
    }
}
