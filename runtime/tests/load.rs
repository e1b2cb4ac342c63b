//! Load and abuse of the loopback server while a game loop polls once per frame.
//!
//! `MCP_LOAD_CALLS` sets the calls per client (default 200, so CI stays quick; the figures in
//! BENCHMARKS.md come from `MCP_LOAD_CALLS=10000`).
#![cfg(feature = "server")]

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::server::{Handler, McpTool, Registry, ServerBuilder, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Default)]
struct Game {
    seen: HashSet<(u32, u32)>,
    duplicates: u32,
}

/// Records a call.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Mark {
    client: u32,
    seq: u32,
}

#[derive(Serialize, JsonSchema)]
struct Marked {
    client: u32,
    seq: u32,
}

impl Handler<Game> for Mark {
    type Output = Marked;
    fn call(self, game: &mut Game) -> Result<Marked, ToolError> {
        if !game.seen.insert((self.client, self.seq)) {
            game.duplicates += 1;
        }
        Ok(Marked {
            client: self.client,
            seq: self.seq,
        })
    }
}

/// Panics.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Boom {}

impl Handler<Game> for Boom {
    type Output = ();
    fn call(self, _: &mut Game) -> Result<(), ToolError> {
        panic!("boom")
    }
}

struct GameLoop {
    port: u16,
    stop: Arc<AtomicBool>,
    /// Longest frame seen, in microseconds.
    worst_frame_us: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<Game>>,
}

impl GameLoop {
    /// A loop that runs a frame (one poll) every `frame`.
    fn start(builder: ServerBuilder, frame: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let worst = Arc::new(AtomicU64::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let (flag, worst_frame) = (stop.clone(), worst.clone());
        let thread = thread::spawn(move || {
            let mut registry = Registry::new("load", "0");
            registry.register::<Mark>().register::<Boom>();
            let mut server = builder.port(0).listen(registry).expect("listens");
            tx.send(server.port()).expect("port");
            let mut game = Game::default();
            while !flag.load(Ordering::Relaxed) {
                let started = Instant::now();
                server.poll(&mut game);
                let took = started.elapsed().as_micros() as u64;
                worst_frame.fetch_max(took, Ordering::Relaxed);
                if !frame.is_zero() {
                    thread::sleep(frame);
                }
            }
            game
        });
        GameLoop {
            port: rx.recv().expect("port"),
            stop,
            worst_frame_us: worst,
            thread: Some(thread),
        }
    }

    fn stop(mut self) -> Game {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().expect("running").join().expect("game")
    }
}

/// A keep-alive HTTP/1.1 connection that sends JSON-RPC requests one at a time.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    port: u16,
}

impl Connection {
    fn open(port: u16) -> Self {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        stream.set_nodelay(true).expect("nodelay");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        Connection {
            reader: BufReader::new(stream.try_clone().expect("clone")),
            writer: stream,
            port,
        }
    }

    /// POSTs `body`; returns the status and the body.
    fn post(&mut self, body: &str) -> (u16, String) {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        self.writer.write_all(request.as_bytes()).expect("writes");
        let mut status_line = String::new();
        self.reader.read_line(&mut status_line).expect("status");
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).expect("header");
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        (status, String::from_utf8(body).expect("utf-8"))
    }
}

/// The two tests measure time and memory of one process: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// 32 concurrent clients × N calls: every call answered exactly once with its own result; a
/// handler panic in the middle changes nothing for the other calls.
#[test]
fn concurrent_clients_every_call_answered_exactly_once() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    const CLIENTS: u32 = 32;
    let calls: u32 = std::env::var("MCP_LOAD_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    // A frame is one poll plus a yield: the loop runs as fast as one core allows.
    let game = GameLoop::start(ServerBuilder::new().queue_capacity(64), Duration::ZERO);
    let port = game.port;
    let latencies = Arc::new(Mutex::new(Vec::with_capacity((CLIENTS * calls) as usize)));
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let latencies = latencies.clone();
            thread::spawn(move || {
                let mut conn = Connection::open(port);
                let mut mine = Vec::with_capacity(calls as usize);
                for seq in 0..calls {
                    if client == 7 && seq == calls / 2 {
                        let (status, body) = conn.post(
                            r#"{"jsonrpc":"2.0","id":"boom","method":"tools/call","params":{"name":"boom"}}"#,
                        );
                        assert_eq!(status, 200);
                        assert!(body.contains(r#""isError":true"#), "{body}");
                    }
                    let request = json!({"jsonrpc": "2.0", "id": seq, "method": "tools/call",
                        "params": {"name": "mark", "arguments": {"client": client, "seq": seq}}});
                    let t = Instant::now();
                    let (status, body) = conn.post(&request.to_string());
                    mine.push(t.elapsed());
                    assert_eq!(status, 200, "{body}");
                    let reply: Value = serde_json::from_str(&body).expect("json");
                    assert_eq!(reply["id"], seq);
                    assert_eq!(
                        reply["result"]["structuredContent"],
                        json!({"client": client, "seq": seq}),
                        "each reply answers its own call"
                    );
                }
                latencies.lock().expect("lock").extend(mine);
            })
        })
        .collect();
    for c in clients {
        c.join().expect("client");
    }
    let elapsed = started.elapsed();
    let worst_frame = Duration::from_micros(game.worst_frame_us.load(Ordering::Relaxed));
    let state = game.stop();
    assert_eq!(
        state.seen.len(),
        (CLIENTS * calls) as usize,
        "every call ran"
    );
    assert_eq!(state.duplicates, 0, "no call ran twice");
    let mut latencies = latencies.lock().expect("lock").clone();
    latencies.sort();
    println!(
        "load: {CLIENTS} clients x {calls} calls in {elapsed:.2?} ({:.0} calls/s); p50 {:?}, p99 {:?}, max {:?}; worst frame {worst_frame:?}",
        f64::from(CLIENTS * calls) / elapsed.as_secs_f64(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or_default(),
    );
}

/// 48 concurrent requests against a queue of 8; returns the statuses.
fn flood(port: u16, round: u32) -> Vec<u16> {
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let flood: Vec<_> = (0..48)
        .map(|i| {
            let statuses = statuses.clone();
            thread::spawn(move || {
                let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
                    return;
                };
                let mut conn = Connection {
                    reader: BufReader::new(stream.try_clone().expect("clone")),
                    writer: stream,
                    port,
                };
                let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "mark", "arguments": {"client": 1000 + i + 100 * round, "seq": 0}}});
                let (status, _) = conn.post(&body.to_string());
                statuses.lock().expect("lock").push(status);
            })
        })
        .collect();
    for f in flood {
        let _ = f.join();
    }
    statuses.lock().expect("lock").clone()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A flood beyond the queue bound gets 503s, clients that connect and send nothing are cut off,
/// and meanwhile the frame loop never stalls and memory stays bounded.
#[test]
fn flood_and_idle_connections_do_not_stall_the_frame_loop() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let game = GameLoop::start(
        ServerBuilder::new()
            .queue_capacity(8)
            .max_connections(64)
            .header_timeout(Duration::from_millis(300)),
        Duration::from_millis(2),
    );
    let port = game.port;
    // Idle clients: connect, send nothing.
    let idle: Vec<TcpStream> = (0..16)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("connects"))
        .collect();
    // A first flood warms up allocator and thread stacks; the second must not grow memory.
    flood(port, 0);
    let before = rss_kib();
    let statuses = flood(port, 1);
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&503),
        "the queue bound was hit: {statuses:?}"
    );
    assert!(
        statuses.contains(&200),
        "and requests within it were served: {statuses:?}"
    );
    // The idle connections were closed by the header timeout.
    thread::sleep(Duration::from_millis(600));
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let mut buf = [0u8; 16];
        let n = s.read(&mut buf).unwrap_or(0);
        assert_eq!(n, 0, "an idle connection is closed");
    }
    let after = rss_kib();
    let worst_frame = Duration::from_micros(game.worst_frame_us.load(Ordering::Relaxed));
    let served = game.stop().seen.len();
    println!(
        "flood: {} x 200, {} x 503, {served} served; worst frame {worst_frame:?}; RSS {before} -> {after} KiB",
        statuses.iter().filter(|s| **s == 200).count(),
        statuses.iter().filter(|s| **s == 503).count(),
    );
    // A poll that waited on a client would take at least the 300 ms header timeout.
    assert!(
        worst_frame < Duration::from_millis(250),
        "a frame stalled: {worst_frame:?}"
    );
    assert!(
        after < before + 64 * 1024,
        "memory grew by more than 64 MiB"
    );
}
