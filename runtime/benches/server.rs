//! Server-side costs, each against its floor in the same run:
//! - `dispatch` of a small `tools/call` vs the serde floor (parse the request text into a
//!   `Value`, serialize the same response), legacy and 2026-07-28 (with `_meta`, checked, and
//!   `resultType` in the answer);
//! - a call that streams 10 progress notifications before its answer vs the same call without
//!   a `progressToken` (plain answer), through `serve_stdio` (in process, no network);
//! - idle `poll()` (nothing queued), and the same with 32 clients listening for changes;
//! - a frame that changes the tool list (a tool registered or removed, then `poll`), with no
//!   listener and with 32 `subscriptions/listen` streams open: the difference is what the
//!   announcement adds to the game's frame;
//! - a loopback HTTP round trip with the game polling in a tight loop;
//! - a `prompts/get` and a `resources/read` against a `tools/call` answering the same 4 KiB of
//!   text, through `dispatch` (the time per byte of the reply is what to compare);
//! - skills over loopback HTTP: a client's `list_skills` of 100 skills, and loading a skill with
//!   a 1 MiB file (its `SKILL.md` and the file read and verified), each against
//!   `resources/read` of the same bytes (no digest, no frontmatter check).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::server::{
    Call, CallHandler, Handler, McpTool, Registry, ResourceDefinition, Server, Skill, ToolError,
    serve_stdio,
};
use mcp_bindgen::{HttpClient, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

struct Game;

/// Add two numbers.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
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

/// Reports progress ten times, then answers.
#[derive(McpTool, Deserialize, JsonSchema)]
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

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;

const MODERN_REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"}}}}"#;

/// Parse the request text into a `Value`, serialize the same response.
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

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch_tools_call");
    for (name, text) in [
        ("serde_floor", REQUEST),
        ("serde_floor_2026_07_28", MODERN_REQUEST),
    ] {
        group.bench_function(name, |b| b.iter(|| black_box(serde_floor(black_box(text)))));
    }
    let mut registry = registry();
    group.bench_function("registry_dispatch", |b| {
        b.iter(|| black_box(registry.dispatch(&mut Game, black_box(REQUEST))))
    });
    group.bench_function("registry_dispatch_2026_07_28", |b| {
        b.iter(|| black_box(registry.dispatch(&mut Game, black_box(MODERN_REQUEST))))
    });
    group.finish();
}

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

fn idle_poll(c: &mut Criterion) {
    let mut server = Server::listen(registry(), 0).expect("listens");
    c.bench_function("idle_poll", |b| {
        b.iter(|| black_box(server.poll(&mut Game)))
    });
    let listeners = Listeners::open(server.port(), 32);
    c.bench_function("idle_poll_32_listening", |b| {
        b.iter(|| black_box(server.poll(&mut Game)))
    });
    drop(listeners);
    server.destroy();
}

/// `n` clients with a `subscriptions/listen` stream open each, read to the end on threads of
/// their own (as a client reads them), so the server's writes never wait.
struct Listeners {
    readers: Vec<std::thread::JoinHandle<()>>,
    streams: Vec<std::net::TcpStream>,
    /// `notifications/tools/list_changed` events read, over every stream.
    heard: Arc<std::sync::atomic::AtomicUsize>,
}

impl Listeners {
    fn open(port: u16, n: usize) -> Listeners {
        use std::io::{Read, Write};
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}"#;
        let mut readers = Vec::new();
        let mut streams = Vec::new();
        let heard = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        for _ in 0..n {
            let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
            write!(
                tcp,
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                 Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .expect("writes");
            // Wait for the acknowledgement: the stream is registered.
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            while !String::from_utf8_lossy(&seen).contains("acknowledged") {
                let read = tcp.read(&mut buf).expect("reads");
                assert!(read > 0, "the server closed the stream");
                seen.extend_from_slice(&buf[..read]);
            }
            let mut reader = tcp.try_clone().expect("clones");
            streams.push(tcp);
            let heard = heard.clone();
            readers.push(std::thread::spawn(move || {
                const EVENT: &[u8] = b"tools/list_changed";
                // The tail of the last read, so that an event split across reads is counted.
                let mut carry: Vec<u8> = Vec::new();
                while let Ok(read) = reader.read(&mut buf) {
                    if read == 0 {
                        break;
                    }
                    carry.extend_from_slice(&buf[..read]);
                    let found = carry.windows(EVENT.len()).filter(|w| *w == EVENT).count();
                    heard.fetch_add(found, Ordering::Relaxed);
                    let keep = carry.len().min(EVENT.len() - 1);
                    carry.drain(..carry.len() - keep);
                }
            }));
        }
        Listeners {
            readers,
            streams,
            heard,
        }
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        for stream in &self.streams {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }
}

/// Removes `steps` when it is `registered`, else registers it again: a change to the list.
fn toggle_steps(server: &mut Server<Game>, registered: &mut bool) {
    if *registered {
        server.registry_mut().unregister("steps");
    } else {
        server
            .registry_mut()
            .register_call::<Steps>(Duration::from_secs(60));
    }
    *registered = !*registered;
}

/// A tool registered, or removed, then the frame's `poll`: every iteration changes the list.
fn change_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("change_frame");
    for listening in [0, 32] {
        let mut server = Server::listen(registry(), 0).expect("listens");
        let listeners = Listeners::open(server.port(), listening);
        // `registry()` serves `steps`: the first iteration removes it.
        let mut registered = true;
        group.bench_function(format!("listening_{listening}"), |b| {
            b.iter(|| {
                toggle_steps(&mut server, &mut registered);
                black_box(server.poll(&mut Game))
            })
        });
        server.destroy();
        drop(listeners);
    }
    group.finish();

    // As a game meets it: each change in a frame of its own, the streams written and read
    // before the next (a frame is milliseconds), so every announcement finds every stream idle
    // and wakes it. Only the game thread's part (the change and its `poll`) is timed.
    let mut group = c.benchmark_group("change_frame_drained");
    group.sample_size(20);
    group.measurement_time(Duration::from_millis(500));
    for listening in [0, 32] {
        let mut server = Server::listen(registry(), 0).expect("listens");
        let listeners = Listeners::open(server.port(), listening);
        let mut registered = true;
        let mut announced = 0;
        group.bench_function(format!("listening_{listening}"), |b| {
            b.iter_custom(|iterations| {
                let mut timed = Duration::ZERO;
                for _ in 0..iterations {
                    let started = std::time::Instant::now();
                    toggle_steps(&mut server, &mut registered);
                    black_box(server.poll(&mut Game));
                    timed += started.elapsed();
                    announced += listening;
                    while listeners.heard.load(Ordering::Relaxed) < announced {
                        std::hint::spin_loop();
                    }
                }
                timed
            })
        });
        server.destroy();
        drop(listeners);
    }
    group.finish();
}

/// A game polling its server in a tight loop on its own thread, and a client of it (on a
/// current-thread runtime) over loopback HTTP; the game stops when this drops.
struct Loopback {
    runtime: tokio::runtime::Runtime,
    client: HttpClient,
    stop: Arc<AtomicBool>,
    game: Option<std::thread::JoinHandle<()>>,
}

impl Loopback {
    fn serve(registry: Registry<Game>) -> Loopback {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let game = std::thread::spawn(move || {
            let mut server = Server::listen(registry, 0).expect("listens");
            tx.send(server.port()).expect("port");
            while !flag.load(Ordering::Relaxed) {
                if !server.poll(&mut Game) {
                    std::thread::yield_now();
                }
            }
        });
        let port = rx.recv().expect("port");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let client = runtime
            .block_on(HttpClient::connect(format!("http://127.0.0.1:{port}/mcp")))
            .expect("connects");
        Loopback {
            runtime,
            client,
            stop,
            game: Some(game),
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(game) = self.game.take() {
            let _ = game.join();
        }
    }
}

fn round_trip(c: &mut Criterion) {
    let game = Loopback::serve(registry());
    let (runtime, client) = (&game.runtime, &game.client);
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    let mut group = c.benchmark_group("loopback_http");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("tools_call_round_trip", |b| {
        b.iter(|| {
            runtime
                .block_on(client.call_tool("add", arguments.clone()))
                .expect("call")
        })
    });
    group.finish();
}

/// The text each of the three answers carries.
fn payload() -> String {
    "level 3: goblin at (4, 7), orc at (9, 2); ".repeat(100)
}

/// The same text as a tool result, a prompt message and a resource's contents.
fn same_size(c: &mut Criterion) {
    use mcp_bindgen::server::{Outcome, PromptDefinition, ResourceDefinition, ToolDefinition};
    use mcp_bindgen::{Content, PromptMessage, ResourceContents};
    let mut r = Registry::<Game>::new("bench", "0");
    let text = payload();
    let tool_text = text.clone();
    r.register_fn(ToolDefinition::new("describe", Map::new()), move |_, _| {
        Ok(mcp_bindgen::server::ToolResult::text(tool_text.clone()))
    });
    let prompt_text = text.clone();
    r.register_prompt_fn(PromptDefinition::new("describe", ""), move |_, _, _| {
        Ok(Outcome::Complete(vec![PromptMessage::user(Content::text(
            prompt_text.clone(),
        ))]))
    });
    let resource_text = text.clone();
    r.register_resource(
        ResourceDefinition::new("game://describe", "describe"),
        move |_| {
            Ok(vec![ResourceContents::text(
                "game://describe",
                "text/plain",
                resource_text.clone(),
            )])
        },
    );
    let mut group = c.benchmark_group("same_size_4k");
    for (name, request) in [
        (
            "tools_call",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"describe","arguments":{}}}"#,
        ),
        (
            "prompts_get",
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"describe","arguments":{}}}"#,
        ),
        (
            "resources_read",
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"game://describe"}}"#,
        ),
    ] {
        let bytes = r
            .dispatch(&mut Game, request)
            .map_or(0, |reply| reply.len());
        println!("same_size_4k/{name}: {bytes} bytes of reply");
        group.bench_function(name, |b| {
            b.iter(|| black_box(r.dispatch(&mut Game, black_box(request))))
        });
    }
    group.finish();
}

/// Answers at once, as a deferred call that happens to be ready (a task's least work).
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct Ready {}

impl CallHandler<Game> for Ready {
    type Output = Sum;
    fn start(self, _: &mut Game, call: Call<Sum>) {
        call.complete(Ok(Sum { sum: 3 }));
    }
}

/// A task's overhead on the server: the same deferred call answered plainly, and made as a
/// task whose outcome one `tasks/get` reads (2026-07-28, the tasks extension declared).
fn tasks(c: &mut Criterion) {
    let mut registry = Registry::new("bench", "0").with_tasks(Duration::from_secs(1), 32);
    registry.register_call::<Ready>(Duration::from_secs(60));
    let meta = |extensions: &str| {
        format!(
            r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{{extensions}}}}}"#
        )
    };
    let plain = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ready","arguments":{{}},{}}}}}"#,
        meta("")
    );
    let as_task = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ready","arguments":{{}},{}}}}}"#,
        meta(r#""extensions":{"io.modelcontextprotocol/tasks":{}}"#)
    );
    let mut group = c.benchmark_group("task_overhead");
    group.bench_function("deferred_call_plain", |b| {
        b.iter(|| black_box(registry.dispatch(&mut Game, black_box(&plain))))
    });
    group.bench_function("deferred_call_as_task_and_get", |b| {
        b.iter(|| {
            let created = registry
                .dispatch(&mut Game, black_box(&as_task))
                .unwrap_or_default();
            let at = created.find(r#""taskId":""#).map_or(0, |i| i + 10);
            let id = created.get(at..at + 32).unwrap_or_default();
            let get = format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{id}",{}}}}}"#,
                meta(r#""extensions":{"io.modelcontextprotocol/tasks":{}}"#)
            );
            black_box(registry.dispatch(&mut Game, &get))
        })
    });
    group.finish();
}

/// A static resource at `uri` whose text is `text`.
fn text_resource(registry: &mut Registry<Game>, uri: &'static str, text: String) {
    registry.register_resource(ResourceDefinition::new(uri, uri), move |_| {
        Ok(vec![mcp_bindgen::ResourceContents::text(
            uri,
            "text/markdown",
            text.clone(),
        )])
    });
}

fn skills(c: &mut Criterion) {
    let mut registry = Registry::<Game>::new("bench", "1");
    let instructions = |name: &str| {
        format!(
            "---\nname: {name}\ndescription: How to play level {name} with the game's tools\n\
             ---\n# {name}\n\n{}",
            "Call `add` with the two scores, then read references/RULES.md.\n".repeat(4)
        )
    };
    for i in 0..99 {
        let name = format!("level-{i}");
        let files = [
            ("SKILL.md".to_owned(), instructions(&name)),
            ("references/RULES.md".to_owned(), "No camping.\n".repeat(20)),
        ];
        registry.register_skill(Skill::from_files(&name, files).expect("skill"));
    }
    let big_md = instructions("big");
    let data = "0123456789abcdef".repeat(64 * 1024); // 1 MiB of text
    let files = [
        ("SKILL.md".to_owned(), big_md.clone()),
        ("references/DATA.md".to_owned(), data.clone()),
    ];
    registry.register_skill(Skill::from_files("big", files).expect("skill"));
    // The same bytes as plain resources: the list's JSON, the big skill's two files.
    let list = registry
        .dispatch(
            &mut Game,
            r#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}"#,
        )
        .expect("an answer");
    eprintln!("skills/list_skills_100: {} bytes of reply", list.len());
    text_resource(&mut registry, "bench://list", "x".repeat(list.len()));
    let mut group = c.benchmark_group("skills");
    // The server's share of a listing: the same request through `dispatch`, no HTTP.
    group.bench_function("dispatch_skills_list_100", |b| {
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}"#;
        b.iter(|| black_box(registry.dispatch(&mut Game, black_box(request))))
    });
    group.finish();
    text_resource(&mut registry, "bench://skill-md", big_md);
    text_resource(&mut registry, "bench://data", data);

    let game = Loopback::serve(registry);
    let (runtime, client) = (&game.runtime, &game.client);
    let listed = runtime.block_on(client.list_skills()).expect("skills/list");
    assert_eq!(listed.skills.len(), 100);
    let big = listed
        .skills
        .iter()
        .find(|s| s.name() == "big")
        .expect("the big skill")
        .clone();
    let mut group = c.benchmark_group("skills");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("list_skills_100", |b| {
        b.iter(|| runtime.block_on(client.list_skills()).expect("list"))
    });
    group.bench_function("resources_read_same_bytes_as_the_list", |b| {
        b.iter(|| {
            runtime
                .block_on(client.read_resource("bench://list"))
                .expect("read")
        })
    });
    group.bench_function("load_skill_1mib_verified", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let skill = client.load_skill(&big).await.expect("loads");
                skill.read("references/DATA.md").await.expect("reads")
            })
        })
    });
    group.bench_function("resources_read_same_bytes_as_the_skill", |b| {
        b.iter(|| {
            runtime.block_on(async {
                client
                    .read_resource("bench://skill-md")
                    .await
                    .expect("read");
                client.read_resource("bench://data").await.expect("read")
            })
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    skills,
    dispatch,
    tasks,
    same_size,
    streamed,
    idle_poll,
    change_frame,
    round_trip
);
criterion_main!(benches);
