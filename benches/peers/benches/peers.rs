//! mcp-bindgen against its peers, in one criterion run (`cargo bench`; see BENCHMARKS.md at the
//! repository root for the figures and how they were taken).
//!
//! The same tool everywhere: `add {a: i64, b: i64} -> {sum}` with structured output.
//!
//! 1. `dispatch_tools_call`: our `Registry::dispatch` vs the serde floor (parse the request into
//!    a `Value`, build and serialize the same response) vs rmcp's in-process round trip (an rmcp
//!    server on a `tokio::io::duplex` pipe: write the request line, read the response line).
//! 2. `idle_poll`: `Server::poll` with nothing queued.
//! 3. `loopback_http`: one call over loopback HTTP with our `HttpClient`, to our `Server` (game
//!    thread polling in a tight loop) and to rmcp's `StreamableHttpService` (stateless, JSON
//!    responses, served by hyper); `loopback_http_8_clients`: 8 concurrent clients.
//! 4. `decode_agent_observation_200_players`: the generated Scape type vs `serde_json::Value`.
//! 5. `generator`: parse + generate + format for a 1000-tool capture.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError};
use mcp_bindgen::{HttpClient, ToolCaller};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

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

fn registry() -> Registry<Game> {
    let mut r = Registry::new("bench", "0");
    r.register::<Add>();
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

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn serde_floor(text: &str) -> String {
    let request: Value = serde_json::from_str(text).expect("json");
    let sum = request["params"]["arguments"]["a"].as_i64().unwrap_or(0)
        + request["params"]["arguments"]["b"].as_i64().unwrap_or(0);
    let structured = json!({ "sum": sum });
    let response = json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured,
            "isError": false,
        }
    });
    response.to_string()
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
    let floor = serde_floor(REQUEST);
    let mut registry = registry();
    let ours = registry.dispatch(&mut Game, REQUEST).expect("reply");
    let runtime = current_thread();
    let mut rmcp = runtime.block_on(RmcpInProcess::start());
    let theirs = runtime.block_on(rmcp.call(REQUEST)).to_owned();
    for reply in [&floor, &ours, &theirs] {
        assert!(
            reply.contains(r#""structuredContent":{"sum":3}"#),
            "not the expected answer: {reply}"
        );
    }
    // The same id again and again is fine for rmcp too (each call completes before the next).
    for _ in 0..1000 {
        let again = runtime.block_on(rmcp.call(REQUEST));
        assert!(
            again.contains(r#""structuredContent":{"sum":3}"#),
            "{again}"
        );
    }
    eprintln!(
        "reply sizes: floor {} B, ours {} B, rmcp {} B",
        floor.len(),
        ours.len(),
        theirs.len()
    );

    let mut group = c.benchmark_group("dispatch_tools_call");
    group.bench_function("serde_floor", |b| {
        b.iter(|| serde_floor(black_box(REQUEST)))
    });
    group.bench_function("registry_dispatch", |b| {
        b.iter(|| registry.dispatch(&mut Game, black_box(REQUEST)))
    });
    group.bench_function("rmcp_in_process", |b| {
        b.iter(|| runtime.block_on(async { rmcp.call(black_box(REQUEST)).await.len() }))
    });
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

/// Our server with its game thread polling in a tight loop.
struct OurServer {
    port: u16,
    stop: Arc<AtomicBool>,
    game: Option<std::thread::JoinHandle<()>>,
}

impl OurServer {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let game = std::thread::spawn(move || {
            let mut server = Server::listen(registry(), 0).expect("listens");
            tx.send(server.port()).expect("port");
            while !flag.load(Ordering::Relaxed) {
                if !server.poll(&mut Game) {
                    std::thread::yield_now();
                }
            }
            server.destroy();
        });
        let port = rx.recv().expect("port");
        OurServer {
            port,
            stop,
            game: Some(game),
        }
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

/// `CLIENTS` tasks, each with its own client (its own connection), each making
/// `CALLS_PER_CLIENT` calls.
fn burst(runtime: &Runtime, clients: &[HttpClient], arguments: &Map<String, Value>) {
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for client in clients {
            let client = client.clone();
            let arguments = arguments.clone();
            tasks.spawn(async move {
                for _ in 0..CALLS_PER_CLIENT {
                    let result = client
                        .call_tool("add", arguments.clone())
                        .await
                        .expect("call");
                    assert!(!result.is_error());
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.expect("client task");
        }
    });
}

fn connect(runtime: &Runtime, port: u16, n: usize) -> Vec<HttpClient> {
    (0..n)
        .map(|_| {
            runtime
                .block_on(HttpClient::connect(format!("http://127.0.0.1:{port}/mcp")))
                .expect("connects")
        })
        .collect()
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
        b.iter(|| burst(runtime, &clients, &arguments))
    });
    group.finish();
}

fn loopback_http(c: &mut Criterion) {
    let runtime = current_thread();
    // One server at a time: ours (and its spinning game thread) is gone before rmcp's starts.
    let ours = OurServer::start();
    http_benches(c, &runtime, ours.port, "ours");
    drop(ours);
    let theirs = RmcpServer::start();
    http_benches(c, &runtime, theirs.port, "rmcp");
    drop(theirs);
}

// ---------------------------------------------------------------------------------------------
// 4. typed decode

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
// 5. generator

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
    targets = dispatch, idle_poll, loopback_http, decode, generator
}
criterion_main!(benches);
