//! mcp-bindgen against its peers, in one criterion run (`cargo bench`; see BENCHMARKS.md at the
//! repository root for the figures and how they were taken).
//!
//! The same tool everywhere: `add {a: i64, b: i64} -> {sum}` with structured output.
//!
//! 1. `dispatch_tools_call`: our `Registry::dispatch` (legacy and 2026-07-28) vs the serde floor
//!    (the least work any server must do: a borrowed typed parse of the envelope and arguments,
//!    a typed write of the response), vs the `Value` path (parse the request into a `Value`,
//!    build the response with `json!`), vs rmcp's in-process round trip (an rmcp server on a
//!    `tokio::io::duplex` pipe: write the request line, read the response line), and ours
//!    through the same pipe and task (like for like with rmcp).
//! 2. `idle_poll`: `Server::poll` with nothing queued.
//! 3. `loopback_http`: one call over loopback HTTP with our `HttpClient`, to our `Server` (game
//!    thread polling in a tight loop, or a 60 Hz game loop calling `poll_for(1 ms)` once a
//!    frame) and to rmcp's `StreamableHttpService` (stateless, JSON responses, served by hyper);
//!    a call streaming 10 progress notifications vs the same call plain;
//!    `loopback_http_8_clients`: 8 concurrent `HttpClient`s; `loopback_http_8_raw_connections`:
//!    the same 200 calls from 8 kept-alive raw TCP connections, for the servers' own throughput.
//! 4. `frame_budget_32_clients`: 32 HTTP clients against a 60 Hz game loop, `poll()` once a
//!    frame vs `poll_for(1 ms)` once a frame: calls/s, plus (printed) latency percentiles and the
//!    worst frame.
//! 5. `streamed_call_stdio`: a call with 10 progress notifications vs the same call plain, in
//!    process through `serve_stdio`.
//! 6. `decode_agent_observation_200_players`: the generated Scape type vs `serde_json::Value`.
//! 7. `generator`: parse + generate + format for a 1000-tool capture.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_bindgen::server::{
    Call, CallHandler, Handler, McpTool, Registry, Server, ToolError, serve_stdio,
};
use mcp_bindgen::{CallOptions, HttpClient, Protocol, ToolCaller};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

use mcp_bindgen_peer_benches::{MODERN_REQUEST, REQUEST, floors};

// ---------------------------------------------------------------------------------------------
// The tool, ours.

struct Game;

/// Add two numbers.
#[derive(McpTool, Deserialize, schemars::JsonSchema)]
#[mcp(read_only)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

impl Handler<Game> for Add {
    type Output = Sum;
    fn call(self, _: &mut Game) -> Result<Sum, ToolError> {
        Ok(Sum {
            sum: self.a + self.b,
        })
    }
}

/// Reports progress ten times (when asked to), then answers.
#[derive(McpTool, Deserialize, schemars::JsonSchema)]
struct Steps {}

impl CallHandler<Game> for Steps {
    type Output = Sum;
    fn start(self, _: &mut Game, call: Call<Sum>) {
        for i in 0..10 {
            call.progress(f64::from(i), Some(10.0), None);
        }
        call.complete(Ok(Sum { sum: 10 }));
    }
}

fn registry() -> Registry<Game> {
    let mut r = Registry::new("bench", "0");
    r.register::<Add>()
        .register_call::<Steps>(Duration::from_secs(60));
    r
}

// ---------------------------------------------------------------------------------------------
// The same tool, rmcp: `#[tool_router]` + `#[tool_handler]`, the router built once and shared
// (the macro's default, `Self::tool_router()`, would rebuild it on every call).

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct RmcpAdd {
    tool_router: Arc<ToolRouter<RmcpAdd>>,
}

#[tool_router]
impl RmcpAdd {
    fn new() -> Self {
        RmcpAdd {
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    /// Add two numbers.
    #[tool(annotations(read_only_hint = true))]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for RmcpAdd {}

// ---------------------------------------------------------------------------------------------
// 1. dispatch

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// Our registry behind the same kind of pipe and task as rmcp's in-process server: a task
/// reads request lines from a `tokio::io::duplex` pipe, runs `Registry::dispatch`, and writes
/// the response line back.
fn spawn_ours_on_pipe() -> RmcpInProcess {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut registry = registry();
        let (reader, mut writer) = tokio::io::split(theirs);
        let mut reader = BufReader::new(reader);
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if let Some(mut reply) = registry.dispatch(&mut Game, line.trim_end()) {
                reply.push('\n');
                if writer.write_all(reply.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    });
    let (reader, writer) = tokio::io::split(ours);
    RmcpInProcess {
        writer,
        reader: BufReader::new(reader),
        line: String::new(),
    }
}

/// An rmcp server on an in-memory pipe, initialized; `call` writes one line and reads one.
struct RmcpInProcess {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    reader: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    line: String,
}

impl RmcpInProcess {
    async fn start() -> Self {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            let running = RmcpAdd::new()
                .serve(tokio::io::split(theirs))
                .await
                .expect("rmcp serves");
            let _ = running.waiting().await;
        });
        let (reader, writer) = tokio::io::split(ours);
        let mut peer = RmcpInProcess {
            writer,
            reader: BufReader::new(reader),
            line: String::new(),
        };
        let init = peer.call(INITIALIZE).await.to_owned();
        assert!(init.contains("\"protocolVersion\""), "initialize: {init}");
        peer.writer
            .write_all(format!("{INITIALIZED}\n").as_bytes())
            .await
            .expect("write");
        peer
    }

    async fn call(&mut self, request: &str) -> &str {
        self.writer
            .write_all(request.as_bytes())
            .await
            .expect("write");
        self.writer.write_all(b"\n").await.expect("write");
        self.line.clear();
        self.reader.read_line(&mut self.line).await.expect("read");
        &self.line
    }
}

fn dispatch(c: &mut Criterion) {
    let floor = floors::typed(REQUEST);
    let value = floors::value(REQUEST);
    let mut registry = registry();
    let ours = registry.dispatch(&mut Game, REQUEST).expect("reply");
    let modern = registry.dispatch(&mut Game, MODERN_REQUEST).expect("reply");
    let runtime = current_thread();
    let mut rmcp = runtime.block_on(RmcpInProcess::start());
    let theirs = runtime.block_on(rmcp.call(REQUEST)).to_owned();
    let mut piped = runtime.block_on(async { spawn_ours_on_pipe() });
    let ours_piped = runtime.block_on(piped.call(REQUEST)).to_owned();
    for reply in [&floor, &value, &ours, &modern, &theirs, &ours_piped] {
        assert!(
            reply.contains(r#""structuredContent":{"sum":3}"#),
            "not the expected answer: {reply}"
        );
    }
    assert_eq!(floor, ours, "the floor writes exactly our legacy response");
    assert_eq!(
        floors::typed_modern(MODERN_REQUEST),
        modern,
        "the 2026-07-28 floor writes exactly our 2026-07-28 response"
    );
    assert!(modern.contains(r#""resultType":"complete""#), "{modern}");
    // The same id again and again is fine for rmcp too (each call completes before the next).
    for _ in 0..1000 {
        let again = runtime.block_on(rmcp.call(REQUEST));
        assert!(
            again.contains(r#""structuredContent":{"sum":3}"#),
            "{again}"
        );
    }
    eprintln!(
        "reply sizes: floor {} B, value path {} B, ours {} B (2026-07-28: {} B), rmcp {} B",
        floor.len(),
        value.len(),
        ours.len(),
        modern.len(),
        theirs.len()
    );

    let mut group = c.benchmark_group("dispatch_tools_call");
    group.bench_function("serde_floor", |b| {
        b.iter(|| floors::typed(black_box(REQUEST)))
    });
    group.bench_function("serde_value", |b| {
        b.iter(|| floors::value(black_box(REQUEST)))
    });
    group.bench_function("registry_dispatch", |b| {
        b.iter(|| registry.dispatch(&mut Game, black_box(REQUEST)))
    });
    group.bench_function("registry_dispatch_2026_07_28", |b| {
        b.iter(|| registry.dispatch(&mut Game, black_box(MODERN_REQUEST)))
    });
    group.bench_function("rmcp_in_process", |b| {
        b.iter(|| runtime.block_on(async { rmcp.call(black_box(REQUEST)).await.len() }))
    });
    group.bench_function("registry_duplex_pipe", |b| {
        b.iter(|| runtime.block_on(async { piped.call(black_box(REQUEST)).await.len() }))
    });
    group.finish();
}

/// A call that streams 10 progress notifications before its answer vs the same call without a
/// `progressToken`, through `serve_stdio` in process (no network).
fn streamed(c: &mut Criterion) {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
    let plain = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"steps",{meta}}}}}}}"#
    );
    let asked = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"steps",{meta},"progressToken":"p"}}}}}}"#
    );
    let mut registry = registry();
    let mut group = c.benchmark_group("streamed_call_stdio");
    for (name, line) in [("plain", plain), ("ten_progress_notifications", asked)] {
        let input = format!("{line}\n");
        let mut output = Vec::with_capacity(4096);
        serve_stdio(&mut registry, &mut Game, input.as_bytes(), &mut output).expect("serves");
        let lines = output
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(lines, if name == "plain" { 1 } else { 11 }, "{name}");
        group.bench_function(name, |b| {
            b.iter(|| {
                output.clear();
                serve_stdio(&mut registry, &mut Game, input.as_bytes(), &mut output)
                    .expect("serves");
                black_box(output.len())
            })
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// 2. idle poll

fn idle_poll(c: &mut Criterion) {
    let mut server = Server::listen(registry(), 0).expect("listens");
    c.bench_function("idle_poll", |b| b.iter(|| server.poll(&mut Game)));
    server.destroy();
}

// ---------------------------------------------------------------------------------------------
// 3. loopback HTTP

/// How our game thread serves the queue.
#[derive(Debug, Clone, Copy)]
enum Polling {
    /// `poll()` in a tight loop (`yield_now()` when nothing was queued): the machinery alone.
    Spin,
    /// A 60 Hz game loop calling `poll()` once a frame (at most one call per frame).
    PollPerFrame,
    /// A 60 Hz game loop calling `poll_for(budget)` once a frame.
    PollFor(Duration),
}

const FRAME: Duration = Duration::from_nanos(1_000_000_000 / 60);
const BUDGET: Duration = Duration::from_millis(1);

/// What the game loop did, frame by frame (frames with nothing queued included).
#[derive(Debug, Default, Clone)]
struct FrameLog {
    frames: u64,
    calls: u64,
    /// The most calls one frame served.
    most_calls: usize,
    /// The longest time one frame spent in `poll`/`poll_for`.
    worst: Duration,
    /// Frames that spent more than the budget plus their longest call.
    over_budget: u64,
}

/// Our server with its game thread serving as `polling` says.
struct OurServer {
    port: u16,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<FrameLog>>,
    game: Option<std::thread::JoinHandle<()>>,
}

impl OurServer {
    fn start(polling: Polling) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(FrameLog::default()));
        let (flag, frames) = (stop.clone(), log.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        let game = std::thread::spawn(move || {
            let mut server = Server::listen(registry(), 0).expect("listens");
            tx.send(server.port()).expect("port");
            let mut next = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                let (calls, took, longest) = match polling {
                    Polling::Spin => {
                        if !server.poll(&mut Game) {
                            std::thread::yield_now();
                        }
                        continue;
                    }
                    Polling::PollPerFrame => {
                        let started = Instant::now();
                        let served = server.poll(&mut Game);
                        let took = started.elapsed();
                        (usize::from(served), took, took)
                    }
                    Polling::PollFor(budget) => {
                        let started = Instant::now();
                        let stats = server.poll_for(&mut Game, budget);
                        (stats.calls, started.elapsed(), stats.longest)
                    }
                };
                {
                    let mut log = frames.lock().expect("log");
                    log.frames += 1;
                    log.calls += calls as u64;
                    log.most_calls = log.most_calls.max(calls);
                    log.worst = log.worst.max(took);
                    if let Polling::PollFor(budget) = polling
                        && calls > 0
                        && took > budget + longest
                    {
                        log.over_budget += 1;
                    }
                }
                // The rest of the frame is the game's: sleep to the next frame boundary.
                next += FRAME;
                let now = Instant::now();
                if next > now {
                    std::thread::sleep(next - now);
                } else {
                    next = now;
                }
            }
            server.destroy();
        });
        let port = rx.recv().expect("port");
        OurServer {
            port,
            stop,
            log,
            game: Some(game),
        }
    }

    /// The frame log so far, and a fresh one from now on.
    fn take_log(&self) -> FrameLog {
        std::mem::take(&mut *self.log.lock().expect("log"))
    }
}

impl Drop for OurServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(game) = self.game.take() {
            game.join().expect("game thread");
        }
    }
}

/// rmcp's Streamable HTTP service (stateless, JSON responses) served by hyper on its own
/// thread with a current-thread runtime (like our server's HTTP thread).
struct RmcpServer {
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RmcpServer {
    fn start() -> Self {
        use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
        use rmcp::transport::streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService,
        };
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            current_thread().block_on(async move {
                let handler = RmcpAdd::new();
                let service = StreamableHttpService::new(
                    move || Ok(handler.clone()),
                    Arc::new(NeverSessionManager::default()),
                    StreamableHttpServerConfig::default()
                        .with_legacy_session_mode(false)
                        .with_json_response(true),
                );
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("binds");
                port_tx
                    .send(listener.local_addr().expect("addr").port())
                    .expect("port");
                loop {
                    tokio::select! {
                        _ = &mut stop_rx => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let service = service.clone();
                            tokio::spawn(async move {
                                let hyper_service = hyper::service::service_fn(move |request| {
                                    let mut service = service.clone();
                                    async move {
                                        tower_service::Service::call(&mut service, request).await
                                    }
                                });
                                let _ = hyper::server::conn::http1::Builder::new()
                                    .serve_connection(hyper_util::rt::TokioIo::new(stream), hyper_service)
                                    .await;
                            });
                        }
                    }
                }
            });
        });
        let port = port_rx.recv().expect("port");
        RmcpServer {
            port,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

impl Drop for RmcpServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().expect("rmcp thread");
        }
    }
}

fn arguments() -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    arguments
}

const CLIENTS: usize = 8;
const CALLS_PER_CLIENT: usize = 25;

fn call_once(runtime: &Runtime, client: &HttpClient, arguments: &Map<String, Value>) {
    let result = runtime
        .block_on(client.call_tool("add", arguments.clone()))
        .expect("call");
    assert!(!result.is_error());
}

/// `clients.len()` tasks, each with its own client (its own connection), each making `calls`
/// calls; returns each call's latency.
fn burst(
    runtime: &Runtime,
    clients: &[HttpClient],
    arguments: &Map<String, Value>,
    calls: usize,
) -> Vec<Duration> {
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for client in clients {
            let client = client.clone();
            let arguments = arguments.clone();
            tasks.spawn(async move {
                let mut latencies = Vec::with_capacity(calls);
                for _ in 0..calls {
                    let started = Instant::now();
                    let result = client
                        .call_tool("add", arguments.clone())
                        .await
                        .expect("call");
                    latencies.push(started.elapsed());
                    assert!(!result.is_error());
                }
                latencies
            });
        }
        let mut latencies = Vec::with_capacity(clients.len() * calls);
        while let Some(done) = tasks.join_next().await {
            latencies.extend(done.expect("client task"));
        }
        latencies
    })
}

/// `n` clients of the server on `port`, each with its own connection, in the legacy era
/// (as rmcp's server speaks) unless `protocol` says otherwise.
fn connect_with(runtime: &Runtime, port: u16, n: usize, protocol: Protocol) -> Vec<HttpClient> {
    (0..n)
        .map(|_| {
            runtime
                .block_on(
                    HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
                        .protocol(protocol.clone())
                        .connect(),
                )
                .expect("connects")
        })
        .collect()
}

fn connect(runtime: &Runtime, port: u16, n: usize) -> Vec<HttpClient> {
    connect_with(runtime, port, n, Protocol::Legacy)
}

/// A load generator that costs next to nothing, for the servers' own throughput: one kept-alive
/// TCP connection per client, each writing the same 2026-07-28 `tools/call` (an era both
/// servers answer without a session) and reading its answer with blocking std I/O, no runtime
/// and no JSON parsing. With `HttpClient`s as the load (`loopback_http_8_clients`), the clients'
/// own CPU and wake-ups bound both servers on a 2-core machine.
struct RawClients {
    /// One thread per connection, waiting for the number of calls to make.
    workers: Vec<std::sync::mpsc::Sender<usize>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl RawClients {
    fn connect(port: u16, n: usize) -> Self {
        let body = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","#,
            r#""arguments":{"a":1,"b":2},"_meta":{"#,
            r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
            r#""io.modelcontextprotocol/clientCapabilities":{},"#,
            r#""io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}"#
        );
        let request: Arc<[u8]> = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: add\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
        .into();
        let (done_tx, done) = std::sync::mpsc::channel();
        let workers = (0..n)
            .map(|_| {
                let stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
                stream.set_nodelay(true).expect("nodelay");
                let mut buffer = Vec::with_capacity(1024);
                // Every connection answers the call before anything is timed.
                raw_call(&stream, &request, &mut buffer);
                let (go, orders) = std::sync::mpsc::channel::<usize>();
                let (request, done) = (request.clone(), done_tx.clone());
                std::thread::spawn(move || {
                    for calls in orders {
                        for _ in 0..calls {
                            raw_call(&stream, &request, &mut buffer);
                        }
                        done.send(()).expect("reports");
                    }
                });
                go
            })
            .collect();
        RawClients { workers, done }
    }

    /// `calls` calls on each connection, all connections at once.
    fn burst(&self, calls: usize) {
        for worker in &self.workers {
            worker.send(calls).expect("a worker");
        }
        for _ in &self.workers {
            self.done.recv().expect("a worker finished");
        }
    }
}

/// Writes `request` on `stream` and reads the answer into `buffer`; panics unless it is a 200
/// whose body carries the sum (`"sum":3`), so a server that answers errors cannot look fast.
fn raw_call(mut stream: &std::net::TcpStream, request: &[u8], buffer: &mut Vec<u8>) {
    use std::io::{Read, Write};
    stream.write_all(request).expect("writes");
    buffer.clear();
    let mut chunk = [0u8; 4096];
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let (head_end, body_len) = loop {
        let n = stream.read(&mut chunk).expect("reads");
        assert!(n > 0, "the server closed the connection");
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            assert!(head.starts_with("http/1.1 200"), "answered {head}");
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map(|n| n.trim().parse::<usize>().expect("a length"));
            // Without a length the body is chunked: read to the last chunk.
            break (end + 4, length);
        }
    };
    loop {
        let body = &buffer[head_end..];
        let done = match body_len {
            Some(length) => body.len() >= length,
            None => body.ends_with(b"0\r\n\r\n"),
        };
        if done {
            assert!(find(body, br#""sum":3"#).is_some(), "no sum in the answer");
            return;
        }
        let n = stream.read(&mut chunk).expect("reads");
        assert!(n > 0, "the server closed the connection");
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// One call, then 8 clients at once, against the server on `port`.
fn http_benches(c: &mut Criterion, runtime: &Runtime, port: u16, name: &str) {
    let arguments = arguments();
    let client = connect(runtime, port, 1).remove(0);
    let result = runtime
        .block_on(client.call_tool("add", arguments.clone()))
        .expect("call");
    assert_eq!(result.structured_content, Some(json!({"sum": 3})));
    eprintln!(
        "{name} over HTTP: protocol {:?}, server {}",
        client.protocol_version(),
        client.server_info()
    );
    let mut group = c.benchmark_group("loopback_http");
    group.bench_function(name, |b| b.iter(|| call_once(runtime, &client, &arguments)));
    group.finish();
    // Connected here, not before the single-client run: our server closes a kept-alive
    // connection after 5 s without a request (`header_timeout`), and before 7b63f01 the
    // client then failed the next call on it (examples/idle_keepalive).
    let clients = connect(runtime, port, CLIENTS);
    let mut group = c.benchmark_group("loopback_http_8_clients");
    group.throughput(Throughput::Elements((CLIENTS * CALLS_PER_CLIENT) as u64));
    group.sample_size(20);
    group.bench_function(BenchmarkId::new(name, CLIENTS * CALLS_PER_CLIENT), |b| {
        b.iter(|| burst(runtime, &clients, &arguments, CALLS_PER_CLIENT))
    });
    group.finish();
    drop(clients);
    // The same load from clients that cost next to nothing: the servers' own throughput.
    let raw = RawClients::connect(port, CLIENTS);
    let mut group = c.benchmark_group("loopback_http_8_raw_connections");
    group.throughput(Throughput::Elements((CLIENTS * CALLS_PER_CLIENT) as u64));
    group.sample_size(20);
    group.bench_function(BenchmarkId::new(name, CLIENTS * CALLS_PER_CLIENT), |b| {
        b.iter(|| raw.burst(CALLS_PER_CLIENT))
    });
    group.finish();
}

/// The call to `steps` (10 progress notifications before the answer, as SSE) vs the same call
/// without a progress handler (plain JSON), on the server on `port`.
fn streamed_http(c: &mut Criterion, runtime: &Runtime, port: u16) {
    let client = connect_with(runtime, port, 1, Protocol::Auto).remove(0);
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    let asked = CallOptions::new().on_progress(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    let plain = CallOptions::new();
    for options in [&plain, &asked] {
        let result = runtime
            .block_on(client.call_tool_with("steps", Map::new(), options))
            .expect("call");
        assert_eq!(result.structured_content, Some(json!({"sum": 10})));
    }
    assert_eq!(
        seen.load(Ordering::Relaxed),
        10,
        "progress notifications received"
    );
    eprintln!("streamed calls: protocol {:?}", client.protocol_version());
    let mut group = c.benchmark_group("loopback_http");
    for (name, options) in [
        ("ours_steps_plain", &plain),
        ("ours_steps_ten_progress_notifications", &asked),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime
                    .block_on(client.call_tool_with("steps", Map::new(), options))
                    .expect("call")
            })
        });
    }
    group.finish();
}

fn loopback_http(c: &mut Criterion) {
    let runtime = current_thread();
    // One server at a time: ours (and its spinning game thread) is gone before rmcp's starts.
    let ours = OurServer::start(Polling::Spin);
    http_benches(c, &runtime, ours.port, "ours");
    // The same server in the 2026-07-28 era (what an auto-negotiating client lands on).
    {
        let arguments = arguments();
        let client = connect_with(&runtime, ours.port, 1, Protocol::Auto).remove(0);
        assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"));
        let mut group = c.benchmark_group("loopback_http");
        group.bench_function("ours_2026_07_28", |b| {
            b.iter(|| call_once(&runtime, &client, &arguments))
        });
        group.finish();
    }
    streamed_http(c, &runtime, ours.port);
    drop(ours);
    // The realistic case: a 60 Hz game loop calling `poll_for(1 ms)` once a frame.
    let ours = OurServer::start(Polling::PollFor(BUDGET));
    http_benches(c, &runtime, ours.port, "ours_60hz_poll_for_1ms");
    let log = ours.take_log();
    eprintln!("ours_60hz_poll_for_1ms frames: {log:?}");
    drop(ours);
    let theirs = RmcpServer::start();
    http_benches(c, &runtime, theirs.port, "rmcp");
    drop(theirs);
}

// ---------------------------------------------------------------------------------------------
// 4. frame budget

const FRAME_CLIENTS: usize = 32;

/// The `q`-quantile of sorted durations.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

/// 32 HTTP clients (each its own connection) against a 60 Hz game loop: one iteration is one
/// round in which each client makes one call (32 calls). `poll()` once a frame serves one call
/// per frame; `poll_for(1 ms)` once a frame serves what fits in the budget. Calls/s come from
/// criterion; latency percentiles, calls per frame and the worst frame are printed (and cover
/// warm-up and measurement).
fn frame_budget(c: &mut Criterion) {
    let runtime = current_thread();
    let arguments = arguments();
    let mut group = c.benchmark_group("frame_budget_32_clients");
    group
        .throughput(Throughput::Elements(FRAME_CLIENTS as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .sampling_mode(criterion::SamplingMode::Flat);
    for (name, polling) in [
        ("poll_once_per_frame", Polling::PollPerFrame),
        ("poll_for_1ms_per_frame", Polling::PollFor(BUDGET)),
    ] {
        let server = OurServer::start(polling);
        let clients = connect(&runtime, server.port, FRAME_CLIENTS);
        // Connecting took frames too; measure from here.
        let _ = server.take_log();
        let latencies = Mutex::new(Vec::new());
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let started = Instant::now();
                for _ in 0..iters {
                    let round = burst(&runtime, &clients, &arguments, 1);
                    latencies.lock().expect("latencies").extend(round);
                }
                started.elapsed()
            })
        });
        let log = server.take_log();
        let mut latencies = latencies.into_inner().expect("latencies");
        latencies.sort();
        let busy_frames = log.frames.max(1);
        eprintln!(
            "frame_budget_32_clients/{name}: {} calls in {} frames ({:.2} calls per frame, at \
             most {} in one frame); latency p50 {:?}, p99 {:?}, max {:?} (a frame is {:?}); \
             worst frame spent {:?} in poll; frames over budget + one call: {}",
            log.calls,
            log.frames,
            log.calls as f64 / busy_frames as f64,
            log.most_calls,
            quantile(&latencies, 0.5),
            quantile(&latencies, 0.99),
            latencies.last().copied().unwrap_or_default(),
            FRAME,
            log.worst,
            log.over_budget,
        );
        drop(clients);
        drop(server);
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// 6. typed decode

/// A connected observation per the Scape seed, with `players` players around the agent.
fn observation(players: usize) -> Value {
    let names = ["Ada", "Bo", "Cy", "Dee", "Eli", "Fen", "Gus", "Hal"];
    let texts = [
        "",
        "hi",
        "anyone near the fountain?",
        "brb",
        "🌲🌲 over here",
    ];
    let players: Vec<Value> = (0..players)
        .map(|i| {
            json!({
                "x": (i * 7) % 64, "y": (i * 11) % 40, "floor": i % 2,
                "id": format!("p-{i:04}"),
                "name": format!("{}{}", names[i % names.len()], i),
                "text": texts[i % texts.len()],
                "textRevision": i % 17,
                "settled": i % 3 != 0
            })
        })
        .collect();
    let objects: Vec<Value> = (0..24)
        .map(|i| {
            if i % 4 == 0 {
                json!({"x": i * 2, "y": 5, "floor": 0, "emoji": "📻", "text": "radio"})
            } else {
                json!({"x": i * 2, "y": 6, "floor": i % 2, "emoji": "🌳"})
            }
        })
        .collect();
    let blocked: Vec<Value> = (0..40).map(|i| json!({"x": i % 64, "y": 0})).collect();
    let roster: Vec<Value> = (0..players.len().min(32))
        .map(|i| json!({"x": i, "y": 1, "floor": 0, "id": format!("p-{i:04}"), "name": format!("P{i}")}))
        .collect();
    json!({
        "protocol": 1,
        "sessionId": "s-7f3a",
        "revision": 4821,
        "observedAt": 1_796_217_600_000_i64,
        "room": "lobby",
        "status": "connected",
        "self": {"x": 31, "y": 19, "floor": 0, "id": "agent-1", "name": "Scout", "text": "on my way"},
        "players": players,
        "objects": objects,
        "blocked": blocked,
        "movement": {"id": "op-12", "target": {"x": 40, "y": 20, "floor": 0}, "status": "moving"},
        "scene": {
            "blocked": [0, 65, 2559],
            "objects": [
                {"id": "o-1", "x": 3, "y": 3, "emoji": "➡️", "conveyorEmoji": "➡️"},
                {"x": 9, "y": 9, "emoji": "🚪", "isEntry": true, "targetRoomName": "garden", "linkedRoom": true}
            ],
            "floor": 0,
            "hasBasement": true,
            "editing": "owner",
            "gameFacts": {"gemsEnabled": true, "gemRefundHours": 24}
        },
        "roster": roster,
        "interacting": false,
        "pursuit": null,
        "appearance": {"kind": "robot", "emoji": "🤖", "model": null, "expressions": ["happy", "thinking"]},
        "limits": {"radius": 6, "heartbeatMs": 15000, "idleTimeoutMs": 120000, "maxSpeechLength": 320}
    })
}

fn decode(c: &mut Criterion) {
    use mcp_bindings::scape::types::AgentObservation;
    let value = observation(200);
    let text = value.to_string();
    let typed: AgentObservation = serde_json::from_str(&text).expect("the observation decodes");
    assert_eq!(typed.players.len(), 200);
    assert!(typed.self_.is_some() && typed.scene.is_some() && typed.pursuit == Some(None));
    // What the generated client does with a result: `decode_result` from `structuredContent`.
    let result: mcp_bindgen::CallToolResult =
        serde_json::from_value(json!({"content": [], "structuredContent": value})).expect("result");
    let via_client: AgentObservation =
        mcp_bindgen::decode_result("scape_observe", result.clone()).expect("decodes");
    assert_eq!(via_client, typed);
    eprintln!("observation: {} bytes of JSON, 200 players", text.len());

    let mut group = c.benchmark_group("decode_agent_observation_200_players");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).expect("json"))
    });
    group.bench_function("typed", |b| {
        b.iter(|| serde_json::from_str::<AgentObservation>(black_box(&text)).expect("typed"))
    });
    // The same bytes with `from_slice`: the issue's yardstick for `client_bytes`.
    group.bench_function("typed_from_slice", |b| {
        b.iter(|| {
            serde_json::from_slice::<AgentObservation>(black_box(text.as_bytes())).expect("typed")
        })
    });
    // The response body as it comes off the wire (a JSON answer, the text copy in `content`
    // first, as servers send it), through exactly what `HttpClient` and `StdioClient` do with
    // it for a generated method (`ToolCaller::call_tool_decoded`): the runtime's own decoder,
    // straight from the bytes.
    let body = json!({"jsonrpc": "2.0", "id": 7, "result": {
        "content": [{"type": "text", "text": text}],
        "structuredContent": value,
    }})
    .to_string()
    .into_bytes();
    let client_bytes = |body: &[u8]| -> AgentObservation {
        mcp_bindgen::__private::decode_tool_response("scape_observe", 7, body).expect("typed")
    };
    assert_eq!(client_bytes(&body), typed);
    eprintln!("tools/call response: {} bytes", body.len());
    group.bench_function("client_bytes", |b| {
        b.iter(|| client_bytes(black_box(&body)))
    });
    // What the client did with the same body before it decoded from bytes: the message parsed
    // into a `Value`, its id checked, `result` taken, read as a `CallToolResult`, then
    // `decode_result`.
    let via_value = |body: &[u8]| -> AgentObservation {
        let mut message: Value = serde_json::from_slice(body).expect("json");
        assert_eq!(message.get("id").and_then(Value::as_u64), Some(7));
        assert!(message.get("error").is_none());
        let result = message.get_mut("result").map(Value::take).expect("result");
        assert!(result.get("resultType").is_none());
        let result: mcp_bindgen::CallToolResult =
            serde_json::from_value(result).expect("CallToolResult");
        mcp_bindgen::decode_result("scape_observe", result).expect("typed")
    };
    assert_eq!(via_value(&body), typed);
    // `DECODE_ROUNDS=N`: the yardstick and `client_bytes` timed in turn, N rounds of 200 calls
    // each, best round of each printed: a ratio that holds on a loaded machine.
    if let Some(rounds) = std::env::var("DECODE_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        let time = |f: &dyn Fn()| {
            let start = std::time::Instant::now();
            for _ in 0..200 {
                f();
            }
            start.elapsed() / 200
        };
        let (mut slice, mut client) = (std::time::Duration::MAX, std::time::Duration::MAX);
        for _ in 0..rounds {
            slice = slice.min(time(&|| {
                black_box(
                    serde_json::from_slice::<AgentObservation>(black_box(text.as_bytes()))
                        .expect("typed"),
                );
            }));
            client = client.min(time(&|| {
                black_box(client_bytes(black_box(&body)));
            }));
        }
        eprintln!(
            "best of {rounds} rounds: from_slice {slice:?}, client_bytes {client:?}, ratio {:.3}",
            client.as_secs_f64() / slice.as_secs_f64()
        );
        let escaped = serde_json::to_string(&text).expect("a string");
        let mut skip = std::time::Duration::MAX;
        let mut skip_value = std::time::Duration::MAX;
        for _ in 0..rounds {
            skip = skip.min(time(&|| {
                black_box(
                    serde_json::from_slice::<serde::de::IgnoredAny>(black_box(escaped.as_bytes()))
                        .expect("skips"),
                );
            }));
            skip_value = skip_value.min(time(&|| {
                black_box(
                    serde_json::from_slice::<serde::de::IgnoredAny>(black_box(text.as_bytes()))
                        .expect("skips"),
                );
            }));
        }
        eprintln!(
            "skipping the text copy ({} bytes): {skip:?}; skipping the value: {skip_value:?}",
            escaped.len()
        );
    }
    group.bench_function("client_bytes_via_value", |b| {
        b.iter(|| via_value(black_box(&body)))
    });
    group.bench_function("typed_decode_result_from_value", |b| {
        b.iter_batched(
            || result.clone(),
            |result| {
                mcp_bindgen::decode_result::<AgentObservation>("scape_observe", result)
                    .expect("typed")
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// 7. generator

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn generate(config: &mcp_bindgen_codegen::ServerConfig) -> usize {
    let module = mcp_bindgen_codegen::Generator::new()
        .with_base(repo())
        .generate(config)
        .expect("generates");
    module.to_module_file("bench").len()
}

fn generator(c: &mut Criterion) {
    let synth = mcp_bindgen_codegen::ServerConfig::new(
        "synth",
        "tests/fixtures/large/synth_1000.tools.json",
    );
    let bytes = generate(&synth);
    eprintln!("synth_1000: {bytes} bytes of Rust");
    let mut group = c.benchmark_group("generator");
    // Each iteration takes long: 10 samples of equal iteration counts.
    group
        .sample_size(10)
        .sampling_mode(criterion::SamplingMode::Flat);
    group.bench_function("synth_1000_tools", |b| b.iter(|| generate(&synth)));

    // The largest TypeScript declaration file under tests/fixtures/contracts, when there is one.
    let contracts = repo().join("tests/fixtures/contracts");
    match largest_declaration(&contracts) {
        Some((size, path)) => {
            let mut config =
                mcp_bindgen_codegen::ServerConfig::contracts_only("contracts").with_contract(&path);
            // As in tests/tests/npm_contracts.rs: `keyof EventPayloadMap` has no JSON form.
            if path.ends_with("webhooks-types.d.ts") {
                config = config.with_override("WebhookEventName", "string");
            }
            let bytes = generate(&config);
            eprintln!("{}: {size} bytes in, {bytes} bytes of Rust", path.display());
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            group.bench_function(BenchmarkId::new("largest_contract", name), |b| {
                b.iter(|| generate(&config))
            });
        }
        None => eprintln!(
            "no .d.ts under {}: contract benchmark skipped",
            contracts.display()
        ),
    }
    group.finish();
}

/// The largest `.d.ts` file under `dir` (recursively), with its size.
fn largest_declaration(dir: &Path) -> Option<(u64, PathBuf)> {
    let mut largest: Option<(u64, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        let path = entry.path();
        let found = if path.is_dir() {
            largest_declaration(&path)
        } else if path.to_string_lossy().ends_with(".d.ts") {
            entry.metadata().ok().map(|m| (m.len(), path))
        } else {
            None
        };
        if let Some(found) = found
            && largest.as_ref().is_none_or(|l| found.0 > l.0)
        {
            largest = Some(found);
        }
    }
    largest
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = dispatch, streamed, idle_poll, loopback_http, frame_budget, decode, generator
}
criterion_main!(benches);
