//! Load and abuse of the loopback server while a game loop polls once per frame.
//!
//! `MCP_LOAD_CALLS` sets the calls per client (default 200, so CI stays quick; the figures in
//! BENCHMARKS.md come from `MCP_LOAD_CALLS=10000`).
#![cfg(feature = "server")]

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
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
    /// While set, the loop runs its frames without polling (the game is busy elsewhere).
    paused: Arc<AtomicBool>,
    /// The server's queue depth, as of the last frame.
    queued: Arc<AtomicUsize>,
    /// Longest frame seen, in microseconds.
    worst_frame_us: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<Game>>,
}

impl GameLoop {
    /// A loop that runs a frame (one poll) every `frame`.
    fn start(builder: ServerBuilder, frame: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let queued = Arc::new(AtomicUsize::new(0));
        let worst = Arc::new(AtomicU64::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let (flag, worst_frame) = (stop.clone(), worst.clone());
        let (pause, depth) = (paused.clone(), queued.clone());
        let thread = thread::spawn(move || {
            let mut registry = Registry::new("load", "0");
            registry.register::<Mark>().register::<Boom>();
            let mut server = builder.port(0).listen(registry).expect("listens");
            tx.send(server.port()).expect("port");
            let mut game = Game::default();
            while !flag.load(Ordering::Relaxed) {
                depth.store(server.queued(), Ordering::SeqCst);
                if pause.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(1));
                    continue;
                }
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
            paused,
            queued,
            worst_frame_us: worst,
            thread: Some(thread),
        }
    }

    /// Waits (bounded) until the server's queue holds `depth` requests.
    fn wait_for_queue(&self, depth: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.queued.load(Ordering::SeqCst) != depth {
            assert!(
                Instant::now() < deadline,
                "the queue never reached {depth} (it holds {})",
                self.queued.load(Ordering::SeqCst)
            );
            thread::sleep(Duration::from_millis(1));
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

/// Requests in flight on the loop's server, each on its own connection and thread; their statuses
/// arrive on `statuses` as they are answered.
struct Flood {
    statuses: Receiver<u16>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Flood {
    /// `count` requests at once, each on a fresh connection (a failed connect fails the test).
    fn start(port: u16, count: u32, round: u32) -> Self {
        let (tx, statuses) = channel();
        let threads = (0..count)
            .map(|i| {
                let tx = tx.clone();
                thread::spawn(move || {
                    let mut conn = Connection::open(port);
                    let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "mark", "arguments": {"client": 1000 + i + 100 * round, "seq": 0}}});
                    let (status, _) = conn.post(&body.to_string());
                    tx.send(status).expect("the test waits for the status");
                })
            })
            .collect();
        Flood { statuses, threads }
    }

    /// The next `n` statuses, in the order they came (bounded: a request never answered fails
    /// the test instead of hanging it).
    fn next(&self, n: usize) -> Vec<u16> {
        (0..n)
            .map(|_| {
                self.statuses
                    .recv_timeout(Duration::from_secs(60))
                    .expect("a flood request was answered")
            })
            .collect()
    }

    /// Joins every request's thread: a panic in one (a failed connect, a malformed answer) is a
    /// failure of the test.
    fn join(self) {
        for t in self.threads {
            t.join().expect("a flood request failed");
        }
    }
}

const FLOOD: u32 = 48;
const QUEUE: usize = 8;

/// 48 requests against a queue of 8 while the game does not poll: exactly the 40 that do not
/// fit are 503, the 8 queued are answered 200 once the game polls again.
fn flood(game: &GameLoop, round: u32) {
    game.paused.store(true, Ordering::SeqCst);
    let flood = Flood::start(game.port, FLOOD, round);
    game.wait_for_queue(QUEUE);
    let refused = flood.next(FLOOD as usize - QUEUE);
    assert!(
        refused.iter().all(|s| *s == 503),
        "with the queue full every other request is 503: {refused:?}"
    );
    game.paused.store(false, Ordering::SeqCst);
    let served = flood.next(QUEUE);
    assert!(
        served.iter().all(|s| *s == 200),
        "the queued requests are served: {served:?}"
    );
    flood.join();
}

/// How much a second, equal flood may grow the resident set (it grew by 0.1 to 0.4 MiB in
/// debug builds; a leak of the 48 requests, their connections or their threads shows).
const MEMORY_SLACK_KIB: u64 = 4 * 1024;

/// The resident set, in KiB.
fn rss_kib() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Reads until the server closes `stream`; fails if it is still open after `bound`. Returns
/// what the server sent before closing.
fn read_until_closed(mut stream: TcpStream, bound: Duration) -> Vec<u8> {
    stream.set_read_timeout(Some(bound)).expect("timeout");
    let mut sent = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return sent,
            Ok(n) => sent.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return sent,
            Err(e) => panic!("the connection is still open after {bound:?} ({e})"),
        }
    }
}

/// A flood beyond the queue bound gets exactly the excess refused with 503 and the rest served;
/// clients that connect and send nothing are cut off by the header timeout; a client stuck in
/// the middle of its body holds up nothing; and a second flood does not grow memory.
#[test]
fn flood_and_idle_connections_do_not_stall_the_frame_loop() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Long enough that no flood request, sent right after its connect, is cut off before its
    // headers arrive on a loaded machine; the idle clients below wait it out.
    let header_timeout = Duration::from_secs(10);
    let game = GameLoop::start(
        ServerBuilder::new()
            .queue_capacity(QUEUE)
            // Room for every connection of the test: none is closed to make room.
            .max_connections(256)
            .header_timeout(header_timeout)
            .body_timeout(Duration::from_secs(120)),
        Duration::from_millis(2),
    );
    let port = game.port;
    // Idle clients: connect, send nothing.
    let idle: Vec<TcpStream> = (0..16)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("connects"))
        .collect();
    // A client that sends its headers and half its body, then stalls until told to go on.
    let (go_on, stalled) = channel::<()>();
    let (sent_half, half_sent) = channel::<()>();
    let stuck = thread::spawn(move || {
        let mut conn = Connection::open(port);
        let body = json!({"jsonrpc": "2.0", "id": "stuck", "method": "tools/call",
            "params": {"name": "mark", "arguments": {"client": 999, "seq": 0}}})
        .to_string();
        let (head, tail) = body.split_at(body.len() / 2);
        write!(
            conn.writer,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{head}",
            body.len()
        )
        .expect("writes");
        sent_half.send(()).expect("the test waits");
        stalled.recv().expect("told to go on");
        conn.writer
            .write_all(tail.as_bytes())
            .expect("writes the rest");
        let mut status = String::new();
        conn.reader.read_line(&mut status).expect("status");
        status
    });
    half_sent
        .recv_timeout(Duration::from_secs(60))
        .expect("the stuck client sent half its request");
    // A first flood warms up allocator and thread stacks; the second must not grow memory.
    flood(&game, 0);
    let before = rss_kib();
    flood(&game, 1);
    let after = rss_kib();
    // Both floods were served while the stuck client held its request open: the game never
    // waits on a client. Now it finishes and is served too.
    go_on.send(()).expect("the stuck client waits");
    let status = stuck.join().expect("the stuck client");
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    // The idle connections are closed by the header timeout, whatever else the server was
    // doing.
    for stream in idle {
        let sent = read_until_closed(stream, Duration::from_secs(60));
        assert!(
            sent.is_empty() || sent.starts_with(b"HTTP/1.1 408"),
            "{}",
            String::from_utf8_lossy(&sent)
        );
    }
    let worst_frame = Duration::from_micros(game.worst_frame_us.load(Ordering::Relaxed));
    let state = game.stop();
    assert_eq!(
        state.seen.len(),
        2 * QUEUE + 1,
        "the served requests and the stuck one ran, the refused ones did not"
    );
    println!("flood: worst frame {worst_frame:?}; RSS {before:?} -> {after:?} KiB");
    if cfg!(target_os = "linux") {
        let (before, after) = (before.expect("VmRSS"), after.expect("VmRSS"));
        assert!(
            after <= before + MEMORY_SLACK_KIB,
            "a flood of {FLOOD} requests grew the resident set by {} KiB",
            after.saturating_sub(before)
        );
    }
}
