//! The loopback server, driven by a real HTTP/1.1 client over a real socket while a "game
//! thread" polls once per frame.
#![cfg(feature = "server")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ServerBuilder, ToolError};
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

fn registry() -> Registry<Game> {
    let mut r = Registry::new("http-test", "0.1.0");
    r.register::<Frame>();
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
    for verb in ["GET", "DELETE"] {
        let reply = send(
            game.port,
            &format!(
                "{verb} /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
            ),
        );
        assert_eq!(reply.status, 405, "{verb}");
        assert!(reply.headers.contains("allow: post"));
    }
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
    // Let the first request take the one queue slot (it waits there: nothing polls).
    thread::sleep(Duration::from_millis(700));
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
    let mut server = Server::listen(registry(), 0).expect("listens");
    let port = server.port();
    let started = Instant::now();
    for _ in 0..10_000 {
        assert!(!server.poll(&mut Game::default()));
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "idle poll does not block"
    );
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

/// A client that sends its headers one byte at a time is cut off by the header timeout, and
/// the frame loop never stalls meanwhile.
#[test]
fn slow_clients_time_out_without_stalling_the_game() {
    let game = GameLoop::start(ServerBuilder::new().header_timeout(Duration::from_millis(500)));
    let port = game.port;
    let slow = thread::spawn(move || {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let started = Instant::now();
        for b in b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n" {
            if stream.write_all(&[*b]).is_err() {
                break;
            }
            thread::sleep(Duration::from_millis(100));
            if started.elapsed() > Duration::from_secs(5) {
                break;
            }
        }
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        started.elapsed()
    });
    // Meanwhile other clients are served.
    let reply = post(port, CALL, "");
    assert_eq!(reply.status, 200);
    let elapsed = slow.join().expect("slow client");
    assert!(
        elapsed < Duration::from_secs(5),
        "the slow client was cut off ({elapsed:?})"
    );
    let server = game.stop();
    assert!(server.is_listening());
}
