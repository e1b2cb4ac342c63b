//! A soak of the server's stateful parts, churned the way a long game session and careless
//! clients would: listen streams opened and closed by the hundred, readers that stop reading
//! while the game announces resource updates every frame, and tasks from many owners made and
//! left. The stores' entry counts stay within their documented bounds throughout (entry counts,
//! not memory: timing and allocators vary).
//!
//! The numbers are small by default; `SOAK_SCALE=20 cargo test -p mcp-bindgen --all-features
//! --test soak -- --nocapture` runs it twenty times larger and prints the process's resident
//! memory before and after.
#![cfg(all(feature = "server", feature = "client"))]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ServerBuilder, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// How much larger than the default the run is (`SOAK_SCALE`, default 1).
fn scale() -> usize {
    std::env::var("SOAK_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

const OWNERS: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
const KEPT: usize = 40;
const LIVE: usize = 2;
const MAX_CONNECTIONS: usize = 64;
/// The URIs the game updates every frame, and the stalled readers subscribe to.
const HOT: usize = 400;

struct Game;

/// Done at once.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct Quick {}

impl Handler<Game> for Quick {
    type Output = ();
    fn call(self, _: &mut Game) -> Result<(), ToolError> {
        Ok(())
    }
}

fn registry() -> Registry<Game> {
    let mut r = Registry::new("soak", "1")
        .with_tasks(Duration::from_secs(600), LIVE)
        .with_tasks_kept(KEPT);
    r.register::<Quick>();
    r
}

/// What the game thread saw of the server's stores, frame by frame.
#[derive(Default)]
struct Peaks {
    listening: AtomicUsize,
    tasks: AtomicUsize,
}

/// The game: polls every millisecond, announcing an update of every hot URI each frame, and
/// records the largest store sizes it sees.
struct Running {
    port: u16,
    stop: Arc<AtomicBool>,
    peaks: Arc<Peaks>,
    listening: Arc<AtomicUsize>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    fn start() -> Running {
        let builder = OWNERS
            .iter()
            .fold(ServerBuilder::new(), |b, token| b.bearer_token(*token))
            .max_connections(MAX_CONNECTIONS)
            .stall_timeout(Duration::from_millis(300));
        let stop = Arc::new(AtomicBool::new(false));
        let peaks = Arc::new(Peaks::default());
        let listening = Arc::new(AtomicUsize::new(0));
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (flag, seen, now) = (stop.clone(), peaks.clone(), listening.clone());
        let thread = thread::spawn(move || {
            let mut server: Server<Game> = builder.port(0).listen(registry()).expect("listens");
            port_tx.send(server.port()).expect("port");
            while !flag.load(Ordering::Relaxed) {
                for i in 0..HOT {
                    server
                        .registry_mut()
                        .resource_updated(format!("game://hot/{i}"));
                }
                server.poll_for(&mut Game, Duration::from_millis(1));
                let listening = server.listening();
                now.store(listening, Ordering::Relaxed);
                seen.listening.fetch_max(listening, Ordering::Relaxed);
                seen.tasks
                    .fetch_max(server.registry().tasks_kept(), Ordering::Relaxed);
                thread::sleep(Duration::from_millis(1));
            }
        });
        Running {
            port: port_rx.recv().expect("port"),
            stop,
            peaks,
            listening,
            thread: Some(thread),
        }
    }

    /// Waits (bounded) until the server keeps `n` change streams.
    fn wait_listening(&self, n: usize, why: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.listening.load(Ordering::Relaxed) != n {
            assert!(
                Instant::now() < deadline,
                "{why}: the server keeps {} streams, not {n}",
                self.listening.load(Ordering::Relaxed)
            );
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

/// Sends one raw HTTP request; returns the open connection.
fn send(port: u16, owner: &str, method: &str, name: Option<&str>, body: &str) -> TcpStream {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    tcp.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let name = name.map_or_else(String::new, |n| format!("Mcp-Name: {n}\r\n"));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Authorization: Bearer {owner}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).expect("writes");
    tcp.write_all(body.as_bytes()).expect("writes");
    tcp
}

/// Opens a `subscriptions/listen` for `uris` as `owner` and reads until it is acknowledged.
fn listen(port: u16, owner: &str, uris: &[String]) -> TcpStream {
    let filter = json!({"toolsListChanged": true, "resourceSubscriptions": uris});
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{{META},"notifications":{filter}}}}}"#
    );
    let mut tcp = send(port, owner, "subscriptions/listen", None, &body);
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("subscriptions/acknowledged") {
        let n = tcp.read(&mut buf).expect("the acknowledgement");
        assert!(n > 0, "closed before its acknowledgement");
        seen.extend_from_slice(&buf[..n]);
    }
    tcp
}

/// Calls `quick` as a task as `owner`; the answer.
fn task(port: u16, owner: &str) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{META},"name":"quick","arguments":{{}}}}}}"#
    );
    let mut tcp = send(port, owner, "tools/call", Some("quick"), &body);
    let mut text = String::new();
    // The answer is one JSON body; the server keeps the connection alive, so read its length.
    let mut buf = [0u8; 4096];
    loop {
        let n = tcp.read(&mut buf).expect("an answer");
        assert!(n > 0, "closed without an answer: {text}");
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|l| l.trim().parse::<usize>().ok())
                .expect("a length");
            if body.len() >= length {
                return serde_json::from_str(&body[..length]).expect("JSON");
            }
        }
    }
}

/// Resident memory of this process, in KiB (Linux).
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn the_stores_stay_within_their_bounds_under_churn() {
    let scale = scale();
    let before = rss_kib();
    let game = Running::start();
    let hot: Vec<String> = (0..HOT).map(|i| format!("game://hot/{i}")).collect();
    // Requests carrying large filters, each stream closed right after its acknowledgement.
    let big: Vec<String> = (0..5_000).map(|i| format!("game://cold/{i:08}")).collect();

    // 1. Streams opened and closed, a few at a time, with nothing changed meanwhile for them.
    for round in 0..(50 * scale) {
        let open: Vec<TcpStream> = (0..4)
            .map(|i| listen(game.port, OWNERS[(round + i) % OWNERS.len()], &big))
            .collect();
        drop(open);
    }
    game.wait_listening(0, "every closed stream is forgotten");

    // 2. Readers that stop reading while every frame updates what they subscribed to.
    let stalled: Vec<TcpStream> = (0..(4 * scale).min(MAX_CONNECTIONS / 2))
        .map(|i| listen(game.port, OWNERS[i % OWNERS.len()], &hot))
        .collect();
    game.wait_listening(0, "stalled streams are closed past the stall limit");
    drop(stalled);

    // 3. Tasks from many owners, made and left.
    let mut made = 0;
    for round in 0..(60 * scale) {
        let answer = task(game.port, OWNERS[round % OWNERS.len()]);
        assert_eq!(answer["result"]["resultType"], "task", "{answer}");
        made += 1;
    }
    assert!(made > KEPT);

    let peaks = &game.peaks;
    let listening = peaks.listening.load(Ordering::Relaxed);
    let tasks = peaks.tasks.load(Ordering::Relaxed);
    assert!(
        listening <= MAX_CONNECTIONS,
        "at most one stream per connection: {listening}"
    );
    assert!(tasks <= KEPT, "tasks kept: {tasks} > {KEPT}");
    drop(game);
    let after = rss_kib();
    println!(
        "soak x{scale}: {made} tasks made, at most {tasks} kept; at most {listening} streams \
         kept; RSS {before:?} KiB -> {after:?} KiB"
    );
}
