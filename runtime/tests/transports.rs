//! The client transports against real servers: ours over loopback HTTP, and child processes
//! over stdio, including servers that misbehave.
#![cfg(all(feature = "client", feature = "server"))]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_bindgen::server::{
    Handler, McpTool, Registry, ServerBuilder, ToolDefinition, ToolError, ToolResult,
};
use mcp_bindgen::{Error, HttpClient, StdioClient, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Map;

struct Ctx;

/// Echo.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Echoed {
    text: String,
}

impl Handler<Ctx> for Echo {
    type Output = Echoed;
    fn call(self, _: &mut Ctx) -> Result<Echoed, ToolError> {
        Ok(Echoed { text: self.text })
    }
}

/// A server polled on its own thread until the guard drops.
struct Polled {
    url: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Polled {
    fn start(builder: ServerBuilder) -> Self {
        Polled::serving(builder, |_| {})
    }

    /// [`Polled::start`] with more tools than `echo`.
    fn serving(
        builder: ServerBuilder,
        more: impl FnOnce(&mut Registry<Ctx>) + Send + 'static,
    ) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut registry = Registry::new("echo", "1");
            registry.register::<Echo>();
            more(&mut registry);
            let mut server = builder.port(0).listen(registry).expect("listens");
            tx.send(server.port()).expect("port");
            while !flag.load(Ordering::Relaxed) {
                if !server.poll(&mut Ctx) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        });
        let port = rx.recv().expect("port");
        Polled {
            url: format!("http://127.0.0.1:{port}/mcp"),
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Polled {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn args(text: &str) -> Map<String, serde_json::Value> {
    let mut m = Map::new();
    m.insert("text".into(), text.into());
    m
}

/// The client mirrors a nested `x-mcp-header` argument (`target.id`) in its header, and the
/// server, which refuses a call whose header and body disagree, accepts it; without the
/// argument no header is sent and the server accepts that too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_x_mcp_header_arguments_travel_in_their_headers() {
    let server = Polled::serving(ServerBuilder::new(), |registry| {
        let schema = serde_json::json!({"type": "object", "properties": {
            "target": {"type": "object", "properties": {
                "id": {"type": "integer", "x-mcp-header": "Target-Id"}}}}});
        registry.register_fn(
            ToolDefinition::new("strike", schema.as_object().cloned().expect("object")),
            |_, arguments| {
                let id = arguments.get("target").map(|target| &target["id"]);
                Ok(ToolResult::text(
                    id.unwrap_or(&serde_json::Value::Null).to_string(),
                ))
            },
        );
    });
    let client = HttpClient::connect(&server.url).await.expect("connects");
    assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"));
    let listed = client.tool_list().await.expect("lists");
    assert!(listed.rejected.is_empty(), "{:?}", listed.rejected);
    let mut arguments = Map::new();
    arguments.insert("target".into(), serde_json::json!({"id": 7}));
    let result = client
        .call_tool("strike", arguments)
        .await
        .expect("the header agrees with the body");
    assert_eq!(result.texts().collect::<String>(), "7");
    let result = client
        .call_tool("strike", Map::new())
        .await
        .expect("no argument, no header");
    assert_eq!(result.texts().collect::<String>(), "null");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_client_info_defaults_and_can_be_set() {
    let server = Polled::start(ServerBuilder::new());
    let client = HttpClient::connect(&server.url).await.expect("connects");
    let result = client.call_tool("echo", args("hi")).await.expect("call");
    assert_eq!(
        result.structured_content,
        Some(serde_json::json!({"text": "hi"}))
    );
    let client = HttpClient::builder(&server.url)
        .client_info("my-agent", "2.0")
        .connect()
        .await
        .expect("connects");
    assert_eq!(client.server_info()["name"], "echo");
}

/// WorldForge seed: "apiKey, jwt or getToken; precedence in that order, and with none it
/// throws". The server accepts one token, so only the right credential gets through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_precedence_and_errors() {
    let server = Polled::start(ServerBuilder::new().bearer_token("key-1"));
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let provider = move || {
        let counter = counter.clone();
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Error>("key-1".to_owned())
        }
    };
    // API key first, even with a JWT and a provider set.
    let client = HttpClient::builder(&server.url)
        .api_key("key-1")
        .jwt("jwt-wrong")
        .token_provider(provider.clone())
        .connect()
        .await
        .expect("the API key wins");
    client
        .call_tool("echo", args("a"))
        .await
        .expect("authorized");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "the provider is not called"
    );
    // The JWT before the provider.
    let err = HttpClient::builder(&server.url)
        .jwt("jwt-wrong")
        .token_provider(provider.clone())
        .connect()
        .await
        .expect_err("the wrong JWT is used");
    match err {
        Error::Auth {
            status,
            www_authenticate,
            ..
        } => {
            assert_eq!(status, Some(401));
            assert_eq!(www_authenticate.as_deref(), Some("Bearer realm=\"mcp\""));
        }
        other => panic!("expected Error::Auth, got {other:?}"),
    }
    // The provider, resolved once at connect.
    let client = HttpClient::builder(&server.url)
        .token_provider(provider)
        .connect()
        .await
        .expect("provider token");
    for _ in 0..3 {
        client
            .call_tool("echo", args("b"))
            .await
            .expect("authorized");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // None configured for a server that needs one: an error before anything is sent.
    let err = HttpClient::builder(&server.url)
        .auth_required()
        .connect()
        .await
        .expect_err("no credentials");
    assert!(matches!(err, Error::Auth { status: None, .. }), "{err}");
}

/// A fake HTTP server that answers every POST with `answer` (or holds the connection).
fn fake_http(answer: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = stream.read(&mut buf);
                match answer {
                    "silent" => std::thread::sleep(Duration::from_secs(30)),
                    "close" => {}
                    body => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// How late a timed-out call may end, measured, beyond its timeout: generous for a loaded
/// 2-core machine, yet far below what a client that ignores its timeout would wait (the silent
/// HTTP server holds a connection 30 s, the silent stdio server an hour).
const TIMEOUT_MARGIN: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_misbehaving_servers_give_typed_errors_within_the_timeout() {
    let cases = [
        ("close", "could not reach"),
        ("not json at all", "not JSON"),
        (
            r#"{"jsonrpc":"2.0","id":424242,"result":{}}"#,
            "different request",
        ),
        ("silent", "timed out"),
    ];
    let timeout = Duration::from_secs(2);
    for (answer, expected) in cases {
        let url = fake_http(answer);
        let started = Instant::now();
        let err = HttpClient::builder(&url)
            .timeout(timeout)
            .connect()
            .await
            .expect_err(answer);
        if answer == "silent" {
            // The silent server holds the connection for 30 s and then drops it: only the
            // client's own timeout gives this error, not before the time allowed, and soon
            // after it (the margin is for a loaded machine, and stays below the server's 30 s).
            assert!(
                matches!(err, Error::Timeout { after, .. } if after == timeout),
                "{answer}: {err:?}"
            );
            let waited = started.elapsed();
            assert!(
                waited >= timeout && waited < timeout + TIMEOUT_MARGIN,
                "{answer}: gave up after {waited:?}"
            );
        } else {
            assert!(matches!(err, Error::Transport { .. }), "{answer}: {err:?}");
        }
        assert!(
            err.to_string().contains(expected) || format!("{err:?}").contains(expected),
            "{answer}: {err}"
        );
    }
    // The next call, on a fresh connection to a real server, works.
    let server = Polled::start(ServerBuilder::new());
    let client = HttpClient::connect(&server.url).await.expect("connects");
    client.call_tool("echo", args("fine")).await.expect("works");
}

/// A fake MCP server over HTTP/1.1 keep-alive: the legacy handshake works (`server/discover`
/// is a 400, so the client falls back to `initialize`), and every `tools/call` is answered
/// with `status` and the plain-text `body`.
fn fake_mcp(status: &'static str, body: &'static str) -> String {
    fake_mcp_answering(status, "text/plain", body)
}

/// [`fake_mcp`] answering `tools/call` with `body` as `kind`, `{id}` replaced by the request's
/// id.
fn fake_mcp_answering(status: &'static str, kind: &'static str, body: &'static str) -> String {
    use std::io::{BufRead, BufReader};
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut writer = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().expect("length");
                        }
                    }
                    let mut request = vec![0; length];
                    reader.read_exact(&mut request).expect("body");
                    // A GET (the client's event stream) has no body: not offered.
                    let request: serde_json::Value =
                        serde_json::from_slice(&request).unwrap_or_default();
                    let (status, kind, answer) =
                        match (request["method"].as_str(), request.get("id")) {
                            (None, _) => ("405 Method Not Allowed", "text/plain", String::new()),
                            (_, None) => ("202 Accepted", "application/json", String::new()),
                            (Some("initialize"), Some(id)) => (
                                "200 OK",
                                "application/json",
                                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
                                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                "serverInfo": {"name": "fake", "version": "0"}}})
                                .to_string(),
                            ),
                            (Some("tools/call"), Some(id)) => {
                                (status, kind, body.replace("{id}", &id.to_string()))
                            }
                            _ => ("400 Bad Request", "text/plain", "not here".to_owned()),
                        };
                    let written = write!(
                        writer,
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if written.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// A call the server refuses with 403 is `Error::Auth` with that status; any other non-2xx
/// without a JSON-RPC error is a transport error that names the status and shows the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_error_statuses_of_a_call_are_typed() {
    let client = HttpClient::connect(&fake_mcp("403 Forbidden", "no entry"))
        .await
        .expect("connects");
    let err = client.call_tool("echo", args("x")).await.expect_err("403");
    assert!(
        matches!(
            err,
            Error::Auth {
                status: Some(403),
                ..
            }
        ),
        "{err:?}"
    );
    for status in [
        "500 Internal Server Error",
        "502 Bad Gateway",
        "429 Too Many Requests",
        "404 Not Found",
    ] {
        let client = HttpClient::connect(&fake_mcp(status, "the body says why"))
            .await
            .expect("connects");
        let err = client.call_tool("echo", args("x")).await.expect_err(status);
        let Error::Transport { message, .. } = &err else {
            panic!("{status}: {err:?}");
        };
        assert!(
            message.contains(&format!("HTTP {status}")) && message.contains("the body says why"),
            "{status}: {message}"
        );
    }
}

fn misbehaving(mode: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/misbehaving_server.py"
        ))
        .arg(mode);
    command
}

/// A server that prints a banner on stdout and then answers nothing: the connect's error says
/// both steps went unanswered and quotes what it printed instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_stdio_server_s_stray_output_is_quoted_at_connect() {
    // Generous: the banner must be read before the budget ends, on a slow machine too.
    let budget = Duration::from_secs(6);
    let err = StdioClient::builder(misbehaving("banner"))
        .timeout(budget)
        .spawn()
        .await
        .expect_err("nothing answers");
    assert!(
        matches!(&err, Error::Timeout { .. })
            && err.to_string().contains("answered neither server/discover")
            && err
                .to_string()
                .contains("(instead of JSON-RPC it printed \"Demo server v1 listening\":"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_calls_and_misbehaviour() {
    let client = StdioClient::spawn(misbehaving("ok")).await.expect("spawns");
    assert_eq!(client.protocol_version().as_deref(), Some("2025-06-18"));
    assert_eq!(client.server_info()["name"], "misbehaving");
    let tools = client.list_tools().await.expect("tools");
    assert_eq!(tools[0]["name"], "echo");
    let result = client.call_tool("echo", Map::new()).await.expect("call");
    assert_eq!(result.texts().collect::<Vec<_>>(), ["ok"]);
    let err = client
        .request("resources/list", serde_json::json!({}))
        .await
        .expect_err("-32601");
    assert!(matches!(err, Error::Protocol { code: -32601, .. }));

    let timeout = Duration::from_secs(3);
    for (mode, expected) in [
        ("close", "closed its output"),
        ("usage", "closed its output"),
        ("garbage", "timed out"),
        ("wrong-id", "timed out"),
        ("silent", "timed out"),
    ] {
        // The client's timeout is also the connect's budget: a generous one lets a slow
        // machine start Python; the call has the short one.
        let client = StdioClient::builder(misbehaving(mode))
            .timeout(Duration::from_secs(60))
            .spawn()
            .await
            .expect("spawns");
        let options = mcp_bindgen::CallOptions::new().timeout(timeout);
        let started = Instant::now();
        // The outer bound only keeps a broken client from hanging the test.
        let err = tokio::time::timeout(
            timeout + 2 * TIMEOUT_MARGIN,
            client.call_tool_with("echo", Map::new(), &options),
        )
        .await
        .expect("the call ends")
        .expect_err(mode);
        assert!(err.to_string().contains(expected), "{mode}: {err}");
        if mode == "close" {
            // The server has exited: the next call fails at once, not at its timeout.
            let again = client
                .call_tool_with("echo", Map::new(), &options)
                .await
                .expect_err("the server is gone");
            assert!(
                matches!(&again, Error::Transport { .. })
                    && again.to_string().contains("the server has exited"),
                "{again:?}"
            );
        }
        // What the server printed instead of JSON-RPC is quoted; a server that printed
        // nothing else gets no such words.
        let printed = match mode {
            "usage" => Some("\"usage: server --stdio [--verbose]\""),
            "garbage" => Some("\"this is not JSON\""),
            _ => None,
        };
        match printed {
            Some(line) => assert!(
                err.to_string()
                    .contains(&format!("(instead of JSON-RPC it printed {line}:")),
                "{mode}: {err}"
            ),
            None => assert!(!err.to_string().contains("instead of"), "{mode}: {err}"),
        }
        if expected == "timed out" {
            // Only the client's own timeout ends these calls: not before the time allowed, and
            // soon after it.
            assert!(
                matches!(err, Error::Timeout { after, .. } if after == timeout),
                "{mode}: {err:?}"
            );
            let waited = started.elapsed();
            assert!(
                waited >= timeout && waited < timeout + TIMEOUT_MARGIN,
                "{mode}: gave up after {waited:?}"
            );
        } else {
            assert!(matches!(err, Error::Transport { .. }), "{mode}: {err:?}");
        }
    }
    // A fresh connection works.
    let client = StdioClient::spawn(misbehaving("ok")).await.expect("spawns");
    client.call_tool("echo", Map::new()).await.expect("works");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_child_is_ended_when_the_client_is_dropped() {
    let client = StdioClient::spawn(misbehaving("ok")).await.expect("spawns");
    // The child says who it is: its own pid, not a guess among this process's children (other
    // tests spawn the same server meanwhile).
    let pid = client.server_info()["pid"]
        .as_u64()
        .expect("the server's pid");
    let me = std::process::id().to_string();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the child runs");
    assert_eq!(
        stat.split_whitespace().nth(3),
        Some(me.as_str()),
        "the server is this process's child"
    );
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, a zombie waiting to be reaped, or the pid reused by another process: either way
        // no longer running.
        let fields: Vec<&str> = stat.split_whitespace().collect();
        if fields.len() < 4 || fields[2] == "Z" || fields[3] != me {
            break;
        }
        assert!(Instant::now() < deadline, "the child still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What a [`Proxy`] saw.
#[derive(Debug, PartialEq)]
enum Seen {
    /// A client connection, by number.
    Opened(usize),
    /// The server closed that connection (and the proxy has closed the client's side).
    ServerClosed(usize),
    /// The client closed its side of that connection first.
    ClientClosed(usize),
}

/// A TCP proxy in front of a server: reports each connection it accepts and which side closes
/// it, so a test can wait for those events instead of sleeping.
fn proxy(upstream: u16) -> (u16, std::sync::mpsc::Receiver<Seen>) {
    use std::net::{Shutdown, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(client) = client else { continue };
            let server = TcpStream::connect(("127.0.0.1", upstream)).expect("upstream");
            let _ = tx.send(Seen::Opened(n));
            let (mut from_client, mut to_server) = (
                client.try_clone().expect("clone"),
                server.try_clone().expect("clone"),
            );
            // Set when the server closed first: the proxy then closes the client's side, and
            // that is not the client closing.
            let by_server = Arc::new(AtomicBool::new(false));
            let closed = tx.clone();
            let server_first = by_server.clone();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_client, &mut to_server);
                if !server_first.load(Ordering::SeqCst) {
                    let _ = closed.send(Seen::ClientClosed(n));
                }
                let _ = to_server.shutdown(Shutdown::Write);
            });
            let (mut from_server, mut to_client) = (server, client);
            let tx = tx.clone();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_server, &mut to_client);
                // The client's side is closed before the event is sent: a test that waits for
                // it never calls while the client's socket is still open (the proxy thread
                // could be descheduled between the two on a loaded machine).
                by_server.store(true, Ordering::SeqCst);
                let _ = to_client.shutdown(Shutdown::Both);
                let _ = tx.send(Seen::ServerClosed(n));
            });
        }
    });
    (port, rx)
}

/// A connection our server closed for idleness is not reused, even when the client's runtime
/// did not run in between (a current-thread runtime, blocked while the server closes it).
/// The client's pool would keep the connection for an hour, so it still holds it when the
/// next call comes, however slowly this machine runs.
#[test]
fn idle_connections_closed_by_the_server_are_not_reused() {
    let server = Polled::start(ServerBuilder::new().header_timeout(Duration::from_millis(300)));
    let upstream: u16 = server
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .expect("port");
    let (port, seen) = proxy(upstream);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = runtime
        .block_on(
            HttpClient::builder(&url)
                .pool_idle_timeout(Duration::from_secs(3600))
                .connect(),
        )
        .expect("connects");
    runtime
        .block_on(client.call_tool("echo", args("one")))
        .expect("first call");
    // Wait, with nothing running the client meanwhile, until the server has closed every
    // connection the client opened.
    let next = || {
        seen.recv_timeout(Duration::from_secs(60))
            .expect("the server closes idle connections")
    };
    let mut open = std::collections::HashSet::new();
    loop {
        match next() {
            Seen::Opened(n) => {
                open.insert(n);
            }
            Seen::ServerClosed(n) => {
                open.remove(&n);
            }
            // The client letting go first would test nothing.
            Seen::ClientClosed(n) => assert!(
                !open.contains(&n),
                "the client closed connection {n} before the server did"
            ),
        }
        if open.is_empty() {
            break;
        }
    }
    let result = runtime
        .block_on(client.call_tool("echo", args("two")))
        .expect("the next call opens a new connection");
    assert_eq!(
        result.structured_content,
        Some(serde_json::json!({"text": "two"}))
    );
    // Besides the proxy's own closing of the old connections' client sides, the second
    // call opened a new connection.
    assert!(
        seen.try_iter()
            .any(|event| matches!(event, Seen::Opened(_))),
        "the second call went over a new connection"
    );
}

/// `HttpClient` driven by `pollster::block_on` on a plain thread: no tokio runtime anywhere in
/// this test (the server is polled on its own std thread), and nothing panics.
#[test]
fn http_client_works_from_pollster_without_a_tokio_runtime() {
    let server = Polled::start(ServerBuilder::new());
    let url = server.url.clone();
    std::thread::spawn(move || {
        assert!(
            tokio::runtime::Handle::try_current().is_err(),
            "no runtime on this thread"
        );
        let client = pollster::block_on(HttpClient::connect(&url)).expect("connects");
        let result =
            pollster::block_on(client.call_tool("echo", args("from pollster"))).expect("calls");
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"text": "from pollster"}))
        );
        let refused = pollster::block_on(HttpClient::connect("http://127.0.0.1:9/mcp"))
            .expect_err("nothing listens on port 9");
        assert!(
            refused.to_string().contains("could not reach")
                && std::error::Error::source(&refused).is_some(),
            "{refused}"
        );
    })
    .join()
    .expect("no panic");
}

#[derive(Debug, PartialEq, Deserialize)]
struct Player {
    x: i64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Players {
    players: Vec<Player>,
}

#[derive(Debug, Deserialize)]
struct EchoedText {
    text: String,
}

/// Typed calls (what generated methods do) decode from the response's bytes on every
/// transport and kind of answer, and a value that does not fit is `Error::Decode` naming the
/// path of the first bad field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_calls_decode_from_the_bytes_on_every_transport() {
    fn assert_decode_error(err: Error, path: &str) {
        match err {
            Error::Decode {
                tool,
                path: got,
                value,
                ..
            } => {
                assert_eq!((tool.as_str(), got.as_str()), ("echo", path));
                assert!(value.is_object(), "{value}");
            }
            other => panic!("expected Error::Decode at {path}, got {other:?}"),
        }
    }
    // Our server over HTTP, both eras: a JSON answer.
    let server = Polled::start(ServerBuilder::new());
    for protocol in [mcp_bindgen::Protocol::Auto, mcp_bindgen::Protocol::Legacy] {
        let client = HttpClient::builder(&server.url)
            .protocol(protocol.clone())
            .connect()
            .await
            .expect("connects");
        let echoed: EchoedText = client
            .call_tool_decoded("echo", args("typed"))
            .await
            .expect("decodes");
        assert_eq!(echoed.text, "typed", "{protocol:?}");
        let err = client
            .call_tool_decoded::<Players>("echo", args("typed"))
            .await
            .expect_err("does not fit");
        // A missing field is the object's fault.
        assert_decode_error(err, ".");
    }
    // An SSE answer: a notification, then the response.
    let sse = fake_mcp_answering(
        "200 OK",
        "text/event-stream",
        concat!(
            "event: message\n",
            r#"data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#,
            "\n\nevent: message\n",
            r#"data: {"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"{}"}],"#,
            r#""structuredContent":{"players":[{"x":1},{"x":"far"}]}}}"#,
            "\n\n"
        ),
    );
    let client = HttpClient::connect(&sse).await.expect("connects");
    let err = client
        .call_tool_decoded::<Players>("echo", Map::new())
        .await
        .expect_err("does not fit");
    assert_decode_error(err, "players[1].x");
    let value: serde_json::Value = client
        .call_tool_decoded("echo", Map::new())
        .await
        .expect("any JSON fits a Value");
    assert_eq!(value["players"][1]["x"], "far");
    // Stdio.
    let client = StdioClient::spawn(misbehaving("structured"))
        .await
        .expect("spawns");
    let players = serde_json::json!({"players": [{"x": 1}, {"x": 2}]});
    let arguments = players.as_object().cloned().expect("an object");
    let decoded: Players = client
        .call_tool_decoded("echo", arguments)
        .await
        .expect("decodes");
    assert_eq!(decoded.players, [Player { x: 1 }, Player { x: 2 }]);
    let bad = serde_json::json!({"players": [{"x": 1}, {"x": 2}, {"y": 3}]});
    let err = client
        .call_tool_decoded::<Players>("echo", bad.as_object().cloned().expect("an object"))
        .await
        .expect_err("does not fit");
    assert_decode_error(err, "players[2]");
    // A result with text only goes by the text rules.
    let client = StdioClient::spawn(misbehaving("ok")).await.expect("spawns");
    let text: String = client
        .call_tool_decoded("echo", Map::new())
        .await
        .expect("decodes");
    assert_eq!(text, "ok");
}

const RECORDING_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/recording_server.py"
);

/// What `recording_server.py` reports from its side (a request arrived, a notification came
/// in, the client answered), read from the lines it writes to a socket of the test.
struct Recorder {
    port: u16,
    events: std::sync::mpsc::Receiver<serde_json::Value>,
}

impl Recorder {
    fn start() -> Self {
        use std::io::BufRead;
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let port = listener.local_addr().expect("addr").port();
        let (tx, events) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for line in std::io::BufReader::new(stream).lines() {
                        let Ok(line) = line else { break };
                        let Ok(event) = serde_json::from_str(&line) else {
                            continue;
                        };
                        if tx.send(event).is_err() {
                            break;
                        }
                    }
                });
            }
        });
        Recorder { port, events }
    }

    /// The next event for which `matches` holds (those before it are skipped); a failure
    /// naming `what` if none comes within 60 s.
    fn wait_for(
        &self,
        what: &str,
        matches: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) if matches(&event) => return event,
                Ok(_) => {}
                Err(_) => panic!("the server reported no {what} within 60 s"),
            }
        }
    }

    /// The next `tools/call` of `tool` to arrive at the server: its request id.
    fn arrived(&self, tool: &str) -> serde_json::Value {
        self.wait_for(&format!("call of {tool}"), |e| {
            e["event"] == "arrived" && e["tool"] == tool
        })["id"]
            .clone()
    }

    /// The params of the next `notifications/cancelled` the server received.
    fn cancelled(&self) -> serde_json::Value {
        self.wait_for("notifications/cancelled", |e| {
            e["event"] == "notification" && e["method"] == "notifications/cancelled"
        })["params"]
            .clone()
    }
}

/// `recording_server.py` over HTTP, ended when dropped.
struct RecordingHttp {
    child: std::process::Child,
    url: String,
}

impl RecordingHttp {
    fn start(recorder: &Recorder, modern: bool) -> Self {
        use std::io::BufRead;
        let mut child = std::process::Command::new("python3")
            .args([RECORDING_SERVER, "http", &recorder.port.to_string()])
            .args(modern.then_some("modern"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("prints its URL");
        RecordingHttp {
            child,
            url: url.trim().to_owned(),
        }
    }
}

impl Drop for RecordingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client of either transport, for the tests that run alike on both.
#[derive(Clone)]
enum AnyClient {
    Stdio(StdioClient),
    Http(HttpClient),
}

impl AnyClient {
    async fn call(
        &self,
        tool: &str,
        options: &mcp_bindgen::CallOptions,
    ) -> Result<mcp_bindgen::CallToolResult, Error> {
        match self {
            AnyClient::Stdio(c) => c.call_tool_with(tool, Map::new(), options).await,
            AnyClient::Http(c) => c.call_tool_with(tool, Map::new(), options).await,
        }
    }

    /// Calls `ask`, which asks the client `methods` through `input_required` (modern era).
    async fn ask(&self, methods: &[&str]) -> Result<mcp_bindgen::CallToolResult, Error> {
        let mut arguments = Map::new();
        arguments.insert("methods".into(), serde_json::json!(methods));
        match self {
            AnyClient::Stdio(c) => c.call_tool("ask", arguments).await,
            AnyClient::Http(c) => c.call_tool("ask", arguments).await,
        }
    }
}

/// The handlers a test gives the client of `recording_server.py`: a log sink for `on_log`, and
/// for `on_request` a list of the methods it was asked (it answers every one with one root).
#[derive(Clone, Default)]
struct Handlers {
    log: Option<Arc<std::sync::Mutex<Vec<mcp_bindgen::client::LogMessage>>>>,
    asked: Option<Arc<std::sync::Mutex<Vec<String>>>>,
    /// The modern era (the server offers it), instead of the legacy one.
    modern: bool,
}

/// The same settings on either builder: the era, a timeout far beyond every wait of
/// these tests (only what the test does ends a call), and `handlers`.
macro_rules! configure {
    ($builder:expr, $handlers:expr) => {{
        let protocol = if $handlers.modern {
            mcp_bindgen::Protocol::Modern
        } else {
            mcp_bindgen::Protocol::Legacy
        };
        let mut builder = $builder
            .protocol(protocol)
            .timeout(Duration::from_secs(600));
        if let Some(log) = $handlers.log.clone() {
            builder = builder.on_log(move |m| log.lock().expect("log").push(m));
        }
        if let Some(asked) = $handlers.asked.clone() {
            builder = builder.on_request(move |method, _| {
                asked.lock().expect("asked").push(method.to_owned());
                Ok(serde_json::json!({"roots": [{"uri": "file:///game", "name": "game"}]}))
            });
        }
        builder
    }};
}

/// A client of `recording_server.py` over `transport`, and the HTTP server's guard.
async fn recording_client(
    transport: &str,
    recorder: &Recorder,
    handlers: &Handlers,
) -> (AnyClient, Option<RecordingHttp>) {
    if transport == "stdio" {
        let mut command = tokio::process::Command::new("python3");
        command.args([RECORDING_SERVER, "stdio", &recorder.port.to_string()]);
        command.args(handlers.modern.then_some("modern"));
        let client = configure!(StdioClient::builder(command), handlers)
            .spawn()
            .await
            .expect("spawns");
        (AnyClient::Stdio(client), None)
    } else {
        let server = RecordingHttp::start(recorder, handlers.modern);
        let client = configure!(HttpClient::builder(&server.url), handlers)
            .connect()
            .await
            .expect("connects");
        (AnyClient::Http(client), Some(server))
    }
}

/// Dropping a call's future, or its timeout, sends `notifications/cancelled` naming the
/// request, on stdio and over legacy-era HTTP; seen by the server itself. The client's own
/// timeout (600 s) is far beyond the test's waits, and the test knows from the server that
/// the call arrived before it drops it.
#[test]
fn a_dropped_or_timed_out_call_is_cancelled_by_its_id() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    for transport in ["stdio", "HTTP"] {
        let recorder = Recorder::start();
        let (client, _server) =
            runtime.block_on(recording_client(transport, &recorder, &Handlers::default()));

        let calling = client.clone();
        let call = runtime
            .spawn(async move { calling.call("wait", &mcp_bindgen::CallOptions::new()).await });
        let id = recorder.arrived("wait");
        assert!(id.is_u64(), "{transport}: {id}");
        // Dropping the task drops the call's future.
        call.abort();
        let dropped = runtime.block_on(call).expect_err("the call was dropped");
        assert!(dropped.is_cancelled(), "{transport}: {dropped}");
        let cancelled = recorder.cancelled();
        assert_eq!(cancelled["requestId"], id, "{transport}: {cancelled}");
        assert_eq!(
            cancelled["reason"], "the caller stopped waiting",
            "{transport}: {cancelled}"
        );

        let timeout = Duration::from_secs(2);
        let options = mcp_bindgen::CallOptions::new().timeout(timeout);
        let started = Instant::now();
        let err = runtime
            .block_on(client.call("wait", &options))
            .expect_err("times out");
        let waited = started.elapsed();
        assert!(err.is_timeout(), "{transport}: {err}");
        assert!(
            waited >= timeout && waited < timeout + TIMEOUT_MARGIN,
            "{transport}: the call's own timeout, not the client's: {waited:?}"
        );
        let timed_out = recorder.arrived("wait");
        assert_ne!(timed_out, id, "{transport}: a new request");
        let cancelled = recorder.cancelled();
        assert_eq!(
            cancelled["requestId"], timed_out,
            "{transport}: {cancelled}"
        );
        assert_eq!(cancelled["reason"], "timed out", "{transport}: {cancelled}");
    }
}

type Steps = Vec<(f64, Option<f64>, Option<String>)>;

/// While a call runs, the server's progress reaches the call's `on_progress` and its log
/// messages the client's `on_log` (or the call's own, instead); the server's `ping` is answered
/// `{}` and any other request of the server `-32601` without an `on_request` handler, and by
/// the handler with one (`ping` still answered by the client itself). On stdio and over
/// legacy-era HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_and_requests_of_the_server_during_a_call() {
    use mcp_bindgen::CallOptions;
    use mcp_bindgen::client::{LogMessage, Progress};
    let log = |level: &str, said: &str| LogMessage {
        level: level.to_owned(),
        logger: Some("chatty".to_owned()),
        data: serde_json::json!({"said": said}),
    };
    let expected_logs = [log("info", "first"), log("warning", "second")];
    for transport in ["stdio", "HTTP"] {
        let recorder = Recorder::start();
        let handlers = Handlers {
            log: Some(Arc::default()),
            ..Handlers::default()
        };
        let (client, _server) = recording_client(transport, &recorder, &handlers).await;
        let steps: Arc<std::sync::Mutex<Steps>> = Arc::default();
        let sink = steps.clone();
        let options = CallOptions::new().on_progress(move |p: Progress| {
            sink.lock()
                .expect("steps")
                .push((p.progress, p.total, p.message));
        });
        let result = client.call("chatty", &options).await.expect("chatty");
        assert_eq!(
            *steps.lock().expect("steps"),
            [
                (1.0, Some(2.0), Some("step 1".to_owned())),
                (2.0, Some(2.0), Some("step 2".to_owned()))
            ],
            "{transport}: progress in order, before the result"
        );
        let client_log = handlers.log.as_ref().expect("a sink");
        assert_eq!(
            *client_log.lock().expect("log"),
            expected_logs,
            "{transport}: the client's on_log"
        );
        let answered = result.structured_content.expect("the client's answers");
        assert_eq!(
            answered["ping"],
            serde_json::json!({"jsonrpc": "2.0", "id": answered["ping"]["id"], "result": {}}),
            "{transport}: ping is answered"
        );
        assert_eq!(
            answered["roots"]["error"]["code"], -32601,
            "{transport}: no handler, no method: {answered}"
        );
        assert!(answered["roots"].get("result").is_none(), "{transport}");

        // A call's own on_log takes the client's place while it runs.
        let call_log: Arc<std::sync::Mutex<Vec<LogMessage>>> = Arc::default();
        let sink = call_log.clone();
        let options =
            CallOptions::new().on_log(move |m: LogMessage| sink.lock().expect("log").push(m));
        client.call("chatty", &options).await.expect("chatty");
        assert_eq!(*call_log.lock().expect("log"), expected_logs, "{transport}");
        assert_eq!(
            client_log.lock().expect("log").len(),
            2,
            "{transport}: the client's on_log got nothing more"
        );

        // With an on_request handler: it answers the server's requests, except ping.
        let handlers = Handlers {
            asked: Some(Arc::default()),
            ..Handlers::default()
        };
        let (client, _server) = recording_client(transport, &recorder, &handlers).await;
        let result = client
            .call("chatty", &CallOptions::new())
            .await
            .expect("chatty");
        let answered = result.structured_content.expect("the client's answers");
        assert_eq!(
            answered["ping"]["result"],
            serde_json::json!({}),
            "{transport}"
        );
        assert_eq!(
            answered["roots"]["result"],
            serde_json::json!({"roots": [{"uri": "file:///game", "name": "game"}]}),
            "{transport}"
        );
        assert_eq!(
            *handlers
                .asked
                .as_ref()
                .expect("asked")
                .lock()
                .expect("asked"),
            ["roots/list"],
            "{transport}: the handler is not asked for ping"
        );
    }
}

/// In the modern era the server's requests come as the `inputRequests` of an `input_required`
/// result: `ping` is answered `{}` by the client (with an `on_request` handler too, as in the
/// legacy era), and without a handler any other request fails the call with `-32601`; with
/// one, the handler answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_requests_of_the_modern_era_are_answered_like_requests() {
    for transport in ["stdio", "HTTP"] {
        let recorder = Recorder::start();
        let handlers = Handlers {
            modern: true,
            ..Handlers::default()
        };
        let (client, _server) = recording_client(transport, &recorder, &handlers).await;
        let result = client.ask(&["ping"]).await.expect("ping is answered");
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"responses": {"ping": {}}})),
            "{transport}"
        );
        let err = client
            .ask(&["ping", "roots/list"])
            .await
            .expect_err("no handler for roots/list");
        assert!(
            matches!(err, Error::Protocol { code: -32601, .. }),
            "{transport}: {err:?}"
        );

        let handlers = Handlers {
            modern: true,
            asked: Some(Arc::default()),
            ..Handlers::default()
        };
        let (client, _server) = recording_client(transport, &recorder, &handlers).await;
        let result = client.ask(&["ping", "roots/list"]).await.expect("answered");
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"responses": {"ping": {}, "roots/list":
                {"roots": [{"uri": "file:///game", "name": "game"}]}}})),
            "{transport}"
        );
        assert_eq!(
            *handlers
                .asked
                .as_ref()
                .expect("asked")
                .lock()
                .expect("asked"),
            ["roots/list"],
            "{transport}: the handler is not asked for ping, as in the legacy era"
        );
    }
}

/// A TCP proxy in front of a server that, once told a needle, closes the first connection on
/// which a request containing it goes out, before passing it on: a kept-alive connection the
/// server closed just as the client sent a request on it.
fn closing_proxy(upstream: u16) -> (u16, Arc<std::sync::Mutex<Option<&'static str>>>) {
    use std::net::{Shutdown, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    let needle: Arc<std::sync::Mutex<Option<&'static str>>> = Arc::default();
    let armed = needle.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { continue };
            let server = TcpStream::connect(("127.0.0.1", upstream)).expect("upstream");
            let (mut from_server, mut to_client) = (
                server.try_clone().expect("clone"),
                client.try_clone().expect("clone"),
            );
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_server, &mut to_client);
                let _ = to_client.shutdown(Shutdown::Both);
            });
            let armed = armed.clone();
            std::thread::spawn(move || {
                let mut to_server = server;
                let mut buf = [0u8; 64 * 1024];
                loop {
                    let n = match client.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let text = String::from_utf8_lossy(&buf[..n]);
                    let mut armed = armed.lock().unwrap();
                    if armed.is_some_and(|needle| text.contains(needle)) {
                        *armed = None;
                        let _ = client.shutdown(Shutdown::Both);
                        let _ = to_server.shutdown(Shutdown::Both);
                        break;
                    }
                    drop(armed);
                    if to_server.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to_server.shutdown(Shutdown::Write);
            });
        }
    });
    (port, needle)
}

/// A request that may run twice is sent once more when its connection closes before any
/// response; a tool call, which may not be idempotent, is not (its error says so).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_closed_under_a_request_is_retried_only_when_repeating_is_harmless() {
    let server = Polled::start(ServerBuilder::new());
    let upstream: u16 = server
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .expect("port");
    let (port, needle) = closing_proxy(upstream);
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
        .connect()
        .await
        .expect("connects");
    client
        .call_tool("echo", args("warm"))
        .await
        .expect("a first call");
    *needle.lock().unwrap() = Some("tools/list");
    let tools = client
        .list_tools()
        .await
        .expect("tools/list is sent once more on a new connection");
    assert_eq!(tools[0]["name"], "echo");
    assert!(needle.lock().unwrap().is_none(), "the proxy closed one");

    *needle.lock().unwrap() = Some("tools/call");
    let error = client
        .call_tool("echo", args("once"))
        .await
        .expect_err("a tool call is not sent twice");
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(needle.lock().unwrap().is_none(), "the proxy closed one");
    // The client goes on over a new connection.
    client
        .call_tool("echo", args("after"))
        .await
        .expect("the next call");
}

/// A TCP proxy that counts the `subscriptions/listen` requests passing through it, and can
/// freeze the connections open so far: it goes on reading what their server sends and passes
/// none of it on (a half-open connection, as when a middlebox or the server vanished).
fn freezing_proxy(upstream: u16) -> (u16, Arc<AtomicUsize>, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    use std::net::{Shutdown, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("addr").port();
    let listens = Arc::new(AtomicUsize::new(0));
    // Connections numbered below this one are frozen.
    let frozen_below = Arc::new(AtomicUsize::new(0));
    let opened = Arc::new(AtomicUsize::new(0));
    let (counted, frozen, count) = (listens.clone(), frozen_below.clone(), opened.clone());
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(mut client) = client else { continue };
            count.store(n + 1, Ordering::SeqCst);
            let server = TcpStream::connect(("127.0.0.1", upstream)).expect("upstream");
            let (mut from_server, mut to_client) = (
                server.try_clone().expect("clone"),
                client.try_clone().expect("clone"),
            );
            let frozen = frozen.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 16 * 1024];
                loop {
                    let read = match from_server.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(read) => read,
                    };
                    if n >= frozen.load(Ordering::SeqCst)
                        && to_client.write_all(&buf[..read]).is_err()
                    {
                        break;
                    }
                }
                let _ = to_client.shutdown(Shutdown::Both);
            });
            let counted = counted.clone();
            std::thread::spawn(move || {
                let mut to_server = server;
                let mut buf = [0u8; 16 * 1024];
                loop {
                    let read = match client.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(read) => read,
                    };
                    if String::from_utf8_lossy(&buf[..read]).contains("subscriptions/listen") {
                        counted.fetch_add(1, Ordering::SeqCst);
                    }
                    if to_server.write_all(&buf[..read]).is_err() {
                        break;
                    }
                }
                let _ = to_server.shutdown(Shutdown::Write);
            });
        }
    });
    (port, listens, frozen_below, opened)
}

/// A listen stream that falls silent past its server's keep-alives is taken for dead, and the
/// client opens another: a half-open connection does not leave it deaf for good.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_silent_past_its_keep_alives_is_opened_again() {
    let server = Polled::start(ServerBuilder::new().keep_alive(Duration::from_millis(100)));
    let upstream: u16 = server
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .expect("port");
    let (port, listens, frozen_below, opened) = freezing_proxy(upstream);
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
        .on_tools_changed(|_| {})
        .connect()
        .await
        .expect("connects");
    let wait_for = |n: usize, why: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while listens.load(Ordering::SeqCst) < n {
            assert!(Instant::now() < deadline, "{why}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for(1, "the client listens");
    // A few keep-alives come through, then nothing more on any connection open now.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        listens.load(Ordering::SeqCst),
        1,
        "one stream while it is alive"
    );
    frozen_below.store(opened.load(Ordering::SeqCst), Ordering::SeqCst);
    wait_for(2, "the silent stream was never replaced");
    drop(client);
}
