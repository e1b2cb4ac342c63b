//! The loopback server, driven by a real HTTP/1.1 client over a real socket while a "game
//! thread" polls once per frame.
#![cfg(feature = "server")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::server::{
    Handler, McpTool, Registry, Server, ServerBuilder, ToolDefinition, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Default)]
struct Game {
    frames: u64,
}

/// Which frame is it?
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Frame {}

#[derive(Serialize, JsonSchema)]
struct FrameOut {
    frame: u64,
}

impl Handler<Game> for Frame {
    type Output = FrameOut;
    fn call(self, game: &mut Game) -> Result<FrameOut, ToolError> {
        Ok(FrameOut { frame: game.frames })
    }
}

/// A free loopback port outside the kernel's ephemeral range, where no other test's `port(0)`
/// listener and no outgoing connection's local port can land: a test that frees its port and
/// then checks that it is free (or binds it again) races nothing else in this run. Starts at
/// a random place, so that two such tests do not pick the same port.
fn port_outside_the_ephemeral_range() -> u16 {
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    // Above the well-known and the commonly configured ports, below the ephemeral ones.
    let (low, high) = (20_000u16, ephemeral_low.clamp(20_001, 32_768));
    let start = {
        use std::hash::{BuildHasher, Hasher};
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        u16::try_from(random % u64::from(high - low)).expect("fits")
    };
    (0..high - low)
        .map(|i| low + (start + i) % (high - low))
        .find(|&port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok())
        .expect("a free port between 20000 and the ephemeral range")
}

/// `strike`'s input schema: a nested argument mirrored in a header.
const STRIKE_SCHEMA: &str = r#"{"type": "object", "properties": {
    "target": {"type": "object", "properties": {
        "id": {"type": "integer", "x-mcp-header": "Target-Id"}}}}}"#;

fn registry() -> Registry<Game> {
    let mut r = Registry::new("http-test", "0.1.0");
    r.register::<Frame>();
    r
}

/// [`registry`] and `strike`, whose input schema mirrors a nested argument in a header.
fn registry_with_strike() -> Registry<Game> {
    let mut r = registry();
    r.register_fn(
        ToolDefinition::new(
            "strike",
            serde_json::from_str(STRIKE_SCHEMA).expect("an object"),
        ),
        |_, arguments| {
            let id = arguments.get("target").map(|target| &target["id"]);
            Ok(ToolResult::text(
                id.unwrap_or(&serde_json::Value::Null).to_string(),
            ))
        },
    );
    r
}

/// A game loop on its own thread: one poll per ~1 ms frame, until stopped.
struct GameLoop {
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<Server<Game>>>,
    port: u16,
}

impl GameLoop {
    fn start(builder: ServerBuilder) -> Self {
        GameLoop::serving(builder, registry)
    }

    /// [`GameLoop::start`] with the tools of `registry`.
    fn serving(builder: ServerBuilder, registry: fn() -> Registry<Game>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let flag = stop.clone();
        let thread = thread::spawn(move || {
            let mut server = builder.port(0).listen(registry()).expect("listens");
            port_tx.send(server.port()).expect("port");
            let mut game = Game::default();
            while !flag.load(Ordering::Relaxed) {
                game.frames += 1;
                server.poll(&mut game);
                thread::sleep(Duration::from_millis(1));
            }
            server
        });
        let port = port_rx.recv().expect("port");
        GameLoop {
            stop,
            thread: Some(thread),
            port,
        }
    }

    fn stop(mut self) -> Server<Game> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .expect("running")
            .join()
            .expect("game thread")
    }
}

struct Reply {
    status: u16,
    headers: String,
    body: String,
}

fn send(port: u16, raw: &str) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    stream.write_all(raw.as_bytes()).expect("writes");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("reads");
    parse(&text)
}

fn parse(text: &str) -> Reply {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Reply {
        status,
        headers: head.to_ascii_lowercase(),
        body: body.to_owned(),
    }
}

fn post(port: u16, body: &str, extra_headers: &str) -> Reply {
    send(
        port,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra_headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// Waits (bounded) until `depth` requests wait in the server's queue.
fn wait_until_queued(server: &Server<Game>, depth: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.queued() != depth {
        assert!(
            Instant::now() < deadline,
            "the queue holds {}, not {depth}",
            server.queued()
        );
        thread::sleep(Duration::from_millis(1));
    }
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"frame"}}"#;

#[test]
fn answers_requests_from_the_game_thread() {
    let game = GameLoop::start(ServerBuilder::new());
    let reply = post(game.port, CALL, "");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.headers.contains("content-type: application/json"));
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    assert!(
        body["result"]["structuredContent"]["frame"]
            .as_u64()
            .expect("frame")
            >= 1
    );
    assert!(
        !reply.headers.contains("mcp-session-id"),
        "stateless: no session"
    );
    game.stop();
}

#[test]
fn notifications_get_202_and_other_verbs_405() {
    let game = GameLoop::start(ServerBuilder::new());
    let reply = post(
        game.port,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "",
    );
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());
    // DELETE: no sessions to end. GET in 2026-07-28: no GET stream (a legacy-era GET is the
    // session's change stream, see `changes.rs`).
    for (verb, version) in [("DELETE", "2025-11-25"), ("GET", "2026-07-28")] {
        let reply = send(
            game.port,
            &format!(
                "{verb} /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: {version}\r\nConnection: close\r\n\r\n"
            ),
        );
        assert_eq!(reply.status, 405, "{verb}");
        assert!(reply.headers.contains("allow: "), "{verb}");
        assert!(reply.headers.contains("post"), "{verb}");
    }
    // A legacy GET that does not accept an event stream.
    let reply = send(
        game.port,
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(reply.status, 406);
    game.stop();
}

#[test]
fn foreign_host_or_origin_is_403() {
    let game = GameLoop::start(ServerBuilder::new());
    let port = game.port;
    let reply = send(
        port,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: evil.example:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{CALL}",
            CALL.len()
        ),
    );
    assert_eq!(reply.status, 403);
    let reply = post(port, CALL, "Origin: https://evil.example\r\n");
    assert_eq!(reply.status, 403);
    let reply = post(port, CALL, "Origin: null\r\n");
    assert_eq!(reply.status, 403);
    let reply = post(port, CALL, "Origin: http://localhost:5173\r\n");
    assert_eq!(reply.status, 200, "a loopback origin is fine");
    game.stop();
}

#[test]
fn bearer_token_is_required_when_configured() {
    let game = GameLoop::start(ServerBuilder::new().bearer_token("s3cret"));
    let reply = post(game.port, CALL, "");
    assert_eq!(reply.status, 401);
    assert!(reply.headers.contains("www-authenticate: bearer"));
    assert_eq!(
        post(game.port, CALL, "Authorization: Bearer wrong!\r\n").status,
        401
    );
    assert_eq!(
        post(game.port, CALL, "Authorization: Bearer s3cret\r\n").status,
        200
    );
    // The legacy era's GET stream checks it too.
    let get = |authorization: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", game.port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        write!(
            stream,
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
             {authorization}Connection: close\r\n\r\n"
        )
        .expect("writes");
        // The head alone: an accepted stream stays open.
        let mut head = Vec::new();
        let mut byte = [0u8];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).expect("reads") == 1 {
            head.push(byte[0]);
        }
        parse(&String::from_utf8_lossy(&head))
    };
    let none = get("");
    assert_eq!(none.status, 401, "a GET stream without a token");
    assert!(none.headers.contains("www-authenticate: bearer"));
    assert_eq!(get("Authorization: Bearer wrong!\r\n").status, 401);
    let open = get("Authorization: Bearer s3cret\r\n");
    assert_eq!(open.status, 200);
    assert!(open.headers.contains("content-type: text/event-stream"));
    game.stop();
}

#[test]
fn each_bearer_token_is_accepted() {
    let game = GameLoop::start(
        ServerBuilder::new()
            .bearer_token("alice")
            .bearer_token("bob"),
    );
    for token in ["alice", "bob"] {
        let header = format!("Authorization: Bearer {token}\r\n");
        assert_eq!(post(game.port, CALL, &header).status, 200, "{token}");
    }
    for wrong in [
        "",
        "Authorization: Bearer carol\r\n",
        "Authorization: Bearer alic\r\n",
    ] {
        assert_eq!(post(game.port, CALL, wrong).status, 401, "{wrong:?}");
    }
    game.stop();
}

#[test]
fn oversize_body_is_413_and_garbage_is_400() {
    let game = GameLoop::start(ServerBuilder::new().body_limit(1024));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(2000)
    );
    assert_eq!(post(game.port, &big, "").status, 413);
    let reply = post(game.port, "{nope", "");
    assert_eq!(reply.status, 400);
    let body: Value = serde_json::from_str(&reply.body).expect("json-rpc error body");
    assert_eq!(body["error"]["code"], -32700);
    let reply = post(game.port, "[1,2]", "");
    assert_eq!(reply.status, 400);
    let reply = post(game.port, CALL, "MCP-Protocol-Version: 1999-01-01\r\n");
    assert_eq!(reply.status, 400);
    // The server keeps serving.
    assert_eq!(
        post(game.port, CALL, "MCP-Protocol-Version: 2025-06-18\r\n").status,
        200
    );
    game.stop();
}

/// No poll, no answer: a full queue is 503 with Retry-After, and a reply that does not come in
/// time is 504 — the HTTP side never waits on the game without bound.
#[test]
fn full_queue_is_503_and_an_unpolled_request_times_out() {
    let mut server = ServerBuilder::new()
        .port(0)
        .queue_capacity(1)
        .reply_timeout(Duration::from_secs(2))
        .listen(registry())
        .expect("listens");
    let port = server.port();
    let first = thread::spawn(move || post(port, CALL, ""));
    // The first request takes the one queue slot (it waits there: nothing polls).
    wait_until_queued(&server, 1);
    let second = post(port, CALL, "");
    assert_eq!(second.status, 503);
    assert!(second.headers.contains("retry-after: 1"));
    assert_eq!(first.join().expect("first").status, 504);
    // The abandoned request is dropped, not run, when the game finally polls.
    assert!(!server.poll(&mut Game::default()));
    server.destroy();
}

#[test]
fn poll_never_blocks_and_destroy_frees_the_port() {
    let server = Server::listen(registry(), port_outside_the_ephemeral_range()).expect("listens");
    let port = server.port();
    // A client in the middle of its request: the body never comes. Polls return at once
    // meanwhile (run on a thread so that a poll that blocked fails the test, not hangs it).
    let mut stuck = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    write!(
        stuck,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{{"
    )
    .expect("writes");
    let (done, polled) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let mut server = server;
        let answered = (0..10_000)
            .filter(|_| server.poll(&mut Game::default()))
            .count();
        done.send((server, answered)).expect("the test waits");
    });
    let (mut server, answered) = polled
        .recv_timeout(Duration::from_secs(60))
        .expect("10,000 polls return while a client is stuck");
    assert_eq!(answered, 0, "nothing was queued");
    drop(stuck);
    server.destroy();
    server.destroy();
    assert!(!server.is_listening());
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the port is freed"
    );
    // The port can be bound again, and a later listen serves the same tools.
    let registry = server.into_registry();
    assert_eq!(registry.tools().count(), 1);
    let game = {
        let mut again = Server::listen(registry, port).expect("same port again");
        let t = thread::spawn(move || post(port, CALL, ""));
        let mut game = Game::default();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !again.poll(&mut game) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        t.join().expect("client")
    };
    assert_eq!(game.status, 200);
}

/// A client that sends its headers one byte at a time is cut off by the header timeout (not
/// before it), and the server keeps serving other clients.
#[test]
fn slow_clients_time_out_without_stalling_the_game() {
    let header_timeout = Duration::from_millis(500);
    let game = GameLoop::start(ServerBuilder::new().header_timeout(header_timeout));
    let port = game.port;
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let slow = thread::spawn(move || {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        let started = Instant::now();
        started_tx.send(()).expect("the test waits");
        // A header line that never ends: 600 bytes at 100 ms each, a minute at most.
        let header = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Pad: {}",
            "x".repeat(600)
        );
        for b in header.bytes() {
            if stream.write_all(&[b]).is_err() {
                return started.elapsed();
            }
            thread::sleep(Duration::from_millis(100));
        }
        panic!("the slow client was not cut off in a minute");
    });
    started_rx.recv().expect("the slow client started");
    // Other clients are served.
    let reply = post(port, CALL, "");
    assert_eq!(reply.status, 200);
    let cut_after = slow.join().expect("the slow client was cut off");
    assert!(
        cut_after >= header_timeout,
        "cut off after {cut_after:?}, before the {header_timeout:?} timeout"
    );
    let server = game.stop();
    assert!(server.is_listening());
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern_call() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"frame","arguments":{{}},{META}}}}}"#
    )
}

const MODERN_HEADERS: &str =
    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: frame\r\n";

fn json_error(reply: &Reply) -> (i64, Value) {
    let body: Value = serde_json::from_str(&reply.body).expect("a JSON-RPC error body");
    (body["error"]["code"].as_i64().expect("code"), body)
}

#[test]
fn both_eras_are_answered_on_one_port() {
    let game = GameLoop::start(ServerBuilder::new());
    let port = game.port;
    // Legacy: initialize (with a session id nobody checks), then a call without _meta.
    let init = post(
        port,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        "",
    );
    assert_eq!(init.status, 200, "{}", init.body);
    assert!(init.headers.contains("mcp-session-id: "));
    assert_eq!(post(port, CALL, "Mcp-Session-Id: anything\r\n").status, 200);
    // Modern: discover, then a call, with the headers the transport requires.
    let discover = post(
        port,
        &format!(r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{{META}}}}}"#),
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n",
    );
    assert_eq!(discover.status, 200, "{}", discover.body);
    let body: Value = serde_json::from_str(&discover.body).expect("json");
    assert_eq!(body["result"]["supportedVersions"][0], "2026-07-28");
    // Mcp-Session-Id is ignored in the modern era.
    let reply = post(
        port,
        &modern_call(),
        &format!("{MODERN_HEADERS}Mcp-Session-Id: stale\r\n"),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(body["result"]["resultType"], "complete");
    assert!(
        body["result"]["structuredContent"]["frame"]
            .as_u64()
            .is_some()
    );
    // A tool name that is not header-safe travels base64-encoded ("frame" here).
    let reply = post(
        port,
        &modern_call(),
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: =?base64?ZnJhbWU=?=\r\n",
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    game.stop();
}

#[test]
fn a_nested_x_mcp_header_argument_must_agree_with_its_header() {
    let game = GameLoop::serving(ServerBuilder::new(), registry_with_strike);
    let call = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"strike","arguments":{{"target":{{"id":{id}}}}},{META}}}}}"#
        )
    };
    let headers =
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: strike\r\n";
    let agreed = post(
        game.port,
        &call(7),
        &format!("{headers}Mcp-Param-Target-Id: 7\r\n"),
    );
    assert_eq!(agreed.status, 200, "{}", agreed.body);
    for (header, says) in [
        (
            "",
            "arguments.target.id is in the body but the Mcp-Param-Target-Id header is absent",
        ),
        (
            "Mcp-Param-Target-Id: 8\r\n",
            "arguments.target.id is \"7\" but the Mcp-Param-Target-Id header names \"8\"",
        ),
    ] {
        let reply = post(game.port, &call(7), &format!("{headers}{header}"));
        assert_eq!(reply.status, 400, "{header:?}: {}", reply.body);
        let (code, body) = json_error(&reply);
        assert_eq!(code, -32020, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(says)),
            "{header:?}: {body}"
        );
    }
    game.stop();
}

#[test]
fn modern_header_and_meta_violations_are_400_with_their_codes() {
    let game = GameLoop::start(ServerBuilder::new());
    let port = game.port;
    let call = modern_call();
    let cases: [(&str, String, i64); 6] = [
        (
            "version header disagrees with _meta",
            "MCP-Protocol-Version: 2025-11-25\r\nMcp-Method: tools/call\r\nMcp-Name: frame\r\n"
                .into(),
            -32020,
        ),
        (
            "no version header",
            "Mcp-Method: tools/call\r\nMcp-Name: frame\r\n".into(),
            -32020,
        ),
        (
            "no Mcp-Method",
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Name: frame\r\n".into(),
            -32020,
        ),
        (
            "Mcp-Method disagrees",
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nMcp-Name: frame\r\n"
                .into(),
            -32020,
        ),
        (
            "Mcp-Name disagrees",
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: other\r\n"
                .into(),
            -32020,
        ),
        (
            "no Mcp-Name",
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n".into(),
            -32020,
        ),
    ];
    for (what, headers, code) in cases {
        let reply = post(port, &call, &headers);
        assert_eq!(reply.status, 400, "{what}: {}", reply.body);
        let (got, body) = json_error(&reply);
        assert_eq!(got, code, "{what}: {body}");
        assert_eq!(body["id"], 7, "{what}: the error keeps the request id");
    }
    // A modern header on a request without _meta: -32602.
    let reply = post(port, CALL, MODERN_HEADERS);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(json_error(&reply).0, -32602);
    // An unsupported version in both: -32022 with the supported list.
    let unsupported = modern_call().replace("2026-07-28", "2099-01-01");
    let reply = post(
        port,
        &unsupported,
        "MCP-Protocol-Version: 2099-01-01\r\nMcp-Method: tools/call\r\nMcp-Name: frame\r\n",
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    let (code, body) = json_error(&reply);
    assert_eq!(code, -32022);
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
    // Unknown and removed methods: 404 with -32601.
    for method in ["no/such", "ping"] {
        let reply = post(
            port,
            &format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{{{META}}}}}"#),
            &format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n"),
        );
        assert_eq!(reply.status, 404, "{method}: {}", reply.body);
        assert_eq!(json_error(&reply).0, -32601);
    }
    game.stop();
}

#[test]
fn the_endpoint_path_is_served_and_other_paths_are_404() {
    let game = GameLoop::start(ServerBuilder::new().path("/game/mcp"));
    let port = game.port;
    let at = |path: &str| {
        send(
            port,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{CALL}",
                CALL.len()
            ),
        )
    };
    assert_eq!(at("/game/mcp").status, 200);
    for path in ["/", "/mcp", "/game/mcp/x"] {
        let reply = at(path);
        assert_eq!(reply.status, 404, "{path}");
        assert!(
            reply.body.contains("/game/mcp"),
            "names the endpoint: {}",
            reply.body
        );
    }
    game.stop();
}

#[test]
fn a_busy_port_error_names_the_port() {
    let first = Server::listen(registry(), 0).expect("listens");
    let error = Server::listen(registry(), first.port()).expect_err("the port is taken");
    assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse);
    assert!(
        error
            .to_string()
            .contains(&format!("127.0.0.1:{}", first.port())),
        "{error}"
    );
}

#[test]
fn hostile_bodies_are_400_and_only_real_notifications_are_202() {
    let game = GameLoop::start(ServerBuilder::new());
    let port = game.port;
    for (body, code) in [
        ("{}", -32600),
        ("[]", -32600),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"jsonrpc":"2.0"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
    ] {
        let reply = post(port, body, "");
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
        assert_eq!(json_error(&reply).0, code, "{body}");
    }
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let reply = post(port, &deep, "");
    assert_eq!(reply.status, 400, "deep nesting");
    assert_eq!(json_error(&reply).0, -32700);
    // Invalid UTF-8 inside a string of an otherwise valid request.
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        CALL.len() + 2
    )
    .into_bytes();
    raw.extend_from_slice(&CALL.as_bytes()[..CALL.len() - 3]);
    raw.extend_from_slice(&[0xc3, 0x28]);
    raw.extend_from_slice(&CALL.as_bytes()[CALL.len() - 3..]);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream.write_all(&raw).expect("writes");
    let mut text = Vec::new();
    stream.read_to_end(&mut text).expect("reads");
    let reply = parse(&String::from_utf8_lossy(&text));
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("UTF-8"), "{}", reply.body);
    // A real notification and a response are still 202.
    assert_eq!(
        post(
            port,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ""
        )
        .status,
        202
    );
    assert_eq!(
        post(port, r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, "").status,
        202
    );
    game.stop();
}

/// Connections that never send a request do not lock out the next client: at the limit, the
/// idlest is closed to make room.
#[test]
fn idle_connections_do_not_starve_new_ones() {
    // Idle connections outlive the test unless the server closes them to make room.
    let game = GameLoop::start(
        ServerBuilder::new()
            .max_connections(4)
            .header_timeout(Duration::from_secs(600)),
    );
    let port = game.port;
    let idle: Vec<TcpStream> = (0..12)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("connects"))
        .collect();
    let reply = post(port, CALL, "");
    assert_eq!(reply.status, 200, "served despite 12 idle connections");
    // The oldest idle one was closed by the server (a close, not a read that timed out).
    let mut first = &idle[0];
    first
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut buf = [0u8; 1];
    match first.read(&mut buf) {
        Ok(0) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("the oldest idle connection is still open: {other:?}"),
    }
    game.stop();
}

/// A body that stops coming is 408 once the body timeout has passed, and the error says why.
#[test]
fn a_body_that_does_not_come_in_time_is_408() {
    let body_timeout = Duration::from_millis(300);
    let game = GameLoop::start(ServerBuilder::new().body_timeout(body_timeout));
    let mut stream = TcpStream::connect(("127.0.0.1", game.port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let started = Instant::now();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        CALL.len(),
        &CALL[..10]
    )
    .expect("writes");
    let mut text = String::new();
    stream
        .read_to_string(&mut text)
        .expect("an answer, not our timeout");
    let waited = started.elapsed();
    let reply = parse(&text);
    assert_eq!(reply.status, 408, "{text}");
    assert_eq!(json_error(&reply).0, -32600);
    assert!(
        reply.body.contains("not received in time"),
        "{}",
        reply.body
    );
    assert!(waited >= body_timeout, "answered after {waited:?}");
    game.stop();
}

/// A chunked body (no Content-Length to check up front) is cut off at the limit: 413, and the
/// game never sees it.
#[test]
fn a_chunked_body_over_the_limit_is_413() {
    let game = GameLoop::start(ServerBuilder::new().body_limit(1024));
    let port = game.port;
    let chunked = |body: &str| {
        let mut raw = String::from(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        );
        for chunk in body.as_bytes().chunks(100) {
            raw.push_str(&format!(
                "{:x}\r\n{}\r\n",
                chunk.len(),
                String::from_utf8_lossy(chunk)
            ));
        }
        raw.push_str("0\r\n\r\n");
        send(port, &raw)
    };
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"frame","arguments":{{}},"pad":"{}"}}}}"#,
        "x".repeat(2000)
    );
    let reply = chunked(&big);
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert!(reply.body.contains("too large"), "{}", reply.body);
    // The same request within the limit, chunked, is served.
    assert_eq!(chunked(CALL).status, 200);
    game.stop();
}

/// `allow_origin` admits exactly the origins listed (besides loopback ones); any other origin,
/// even one that starts like a listed one, is 403.
#[test]
fn allowed_origins_are_served_and_others_are_403() {
    let game = GameLoop::start(
        ServerBuilder::new()
            .allow_origin("https://game.example")
            .allow_origin("app://launcher"),
    );
    let port = game.port;
    for origin in [
        "https://game.example",
        "app://launcher",
        "http://127.0.0.1:8080",
    ] {
        let reply = post(port, CALL, &format!("Origin: {origin}\r\n"));
        assert_eq!(reply.status, 200, "{origin}: {}", reply.body);
    }
    for origin in [
        "https://other.example",
        "https://game.example.evil",
        "http://game.example",
        "https://game.example:8443",
        "app://launcher2",
    ] {
        let reply = post(port, CALL, &format!("Origin: {origin}\r\n"));
        assert_eq!(reply.status, 403, "{origin}");
        assert!(
            reply.body.contains("Origin is not allowed"),
            "{}",
            reply.body
        );
    }
    game.stop();
    // Without the list, the same origin is refused.
    let game = GameLoop::start(ServerBuilder::new());
    let reply = post(game.port, CALL, "Origin: https://game.example\r\n");
    assert_eq!(reply.status, 403);
    game.stop();
}

/// A request queued when the server shuts down is answered 503 (not dropped without a word),
/// and the port is freed.
#[test]
fn a_request_queued_at_shutdown_is_503() {
    let mut server = ServerBuilder::new()
        .port(port_outside_the_ephemeral_range())
        .listen(registry())
        .expect("listens");
    let port = server.port();
    let waiting = thread::spawn(move || post(port, CALL, ""));
    wait_until_queued(&server, 1);
    server.destroy();
    let reply = waiting.join().expect("the waiting client");
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert!(reply.body.contains("shutting down"), "{}", reply.body);
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the port is freed"
    );
}
