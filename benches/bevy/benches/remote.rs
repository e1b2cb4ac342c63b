//! `query` of 1,000 entities with two components over loopback HTTP: the plugin's `query` tool
//! against `bevy_remote`'s `world.query` (Bevy's own remote protocol, the anchor), both served
//! by one app from the same world, the app updating in a tight loop on its own thread.
//!
//! Three rows in one group:
//! - `bevy_remote_world_query` and `mcp_bindgen_bevy_query`: the same raw HTTP/1.1 client (one
//!   kept-alive connection, the whole body read and parsed as JSON, its entities checked and
//!   counted), so the difference is the servers' and their answers' sizes (the client parses
//!   all of each);
//! - `mcp_bindgen_bevy_query_http_client`: the plugin through mcp-bindgen's own `HttpClient`,
//!   as a user calls it (the same call as `query_1000` in the plugin's `frame` bench), its
//!   entities checked and counted too.
//!
//! The answers differ in size: `world.query` sends each entity's components once; an MCP tool
//! result carries them twice (as `structuredContent` and as the text content beside it).

use std::hint::black_box;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bevy_app::{App, TaskPoolPlugin};
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use bevy_remote::RemotePlugin;
use bevy_remote::http::RemoteHttpPlugin;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::{HttpClient, ToolCaller};
use mcp_bindgen_bevy::{McpEndpoint, McpPlugin};
use serde_json::{Value, json};

#[derive(Component, Reflect, Default)]
#[reflect(Component)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Reflect, Default)]
#[reflect(Component)]
struct Velocity {
    x: f32,
    y: f32,
}

const ENTITIES: usize = 1000;
const POSITION: &str = "remote::Position";
const VELOCITY: &str = "remote::Velocity";

/// The two servers' addresses: the plugin's MCP endpoint and bevy_remote's port.
struct Served {
    mcp: McpEndpoint,
    remote_port: u16,
}

/// A free loopback port (bevy_remote takes a port, not a listener).
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The app: both servers on one world of `ENTITIES` entities with a `Position` and a
/// `Velocity`, updated in a tight loop until `stop`.
fn serve(stop: Arc<AtomicBool>) -> (Served, std::thread::JoinHandle<()>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let remote_port = free_port();
        let mut app = App::new();
        app.add_plugins(TaskPoolPlugin::default())
            .add_plugins(McpPlugin::default().port(0).capture_log(None))
            .add_plugins(RemotePlugin::default())
            .add_plugins(
                RemoteHttpPlugin::default()
                    .with_address(Ipv4Addr::LOCALHOST)
                    .with_port(remote_port),
            )
            .register_type::<Position>()
            .register_type::<Velocity>();
        for i in 0..ENTITIES {
            let f = i as f32;
            app.world_mut()
                .spawn((Position { x: f, y: -f }, Velocity { x: 1.0, y: 0.5 }));
        }
        app.finish();
        app.cleanup();
        // The first update runs `Startup`, where bevy_remote starts listening.
        app.update();
        let mcp = app.world().resource::<McpEndpoint>().clone();
        tx.send(Served { mcp, remote_port })
            .expect("the bench waits");
        while !stop.load(Ordering::Relaxed) {
            app.update();
            std::thread::yield_now();
        }
    });
    (rx.recv().expect("the app serves"), game)
}

/// One kept-alive HTTP/1.1 connection that posts one request again and again.
struct RawClient {
    stream: TcpStream,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl RawClient {
    fn connect(port: u16, path: &str, headers: &str, body: &str) -> RawClient {
        // bevy_remote's server may still be starting on its I/O thread.
        let stream = (0..200)
            .find_map(|_| {
                TcpStream::connect((Ipv4Addr::LOCALHOST, port))
                    .inspect_err(|_| std::thread::sleep(Duration::from_millis(10)))
                    .ok()
            })
            .expect("connects");
        stream.set_nodelay(true).expect("nodelay");
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             {headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        RawClient {
            stream,
            request,
            buffer: Vec::with_capacity(256 * 1024),
        }
    }

    /// Posts the request and returns the answer's body parsed (a 200 with a JSON body, or a
    /// panic: a server that answers errors cannot look fast). The body comes with a
    /// `Content-Length` (the plugin) or chunked (bevy_remote).
    fn call(&mut self) -> Value {
        self.stream.write_all(&self.request).expect("writes");
        self.buffer.clear();
        let head_end = loop {
            self.read_more();
            if let Some(end) = find(&self.buffer, b"\r\n\r\n") {
                break end + 4;
            }
        };
        let head = String::from_utf8_lossy(&self.buffer[..head_end]).to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "answered {head}");
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .map(|n| n.trim().parse::<usize>().expect("a length"));
        let body = match length {
            Some(length) => {
                while self.buffer.len() < head_end + length {
                    self.read_more();
                }
                self.buffer[head_end..head_end + length].to_vec()
            }
            None => self.chunked(head_end),
        };
        serde_json::from_slice(&body).expect("a JSON body")
    }

    /// The chunked body that starts at `at` in the buffer, read to its last chunk.
    fn chunked(&mut self, mut at: usize) -> Vec<u8> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(end) = find(&self.buffer[at..], b"\r\n") {
                    break at + end;
                }
                self.read_more();
            };
            let size = std::str::from_utf8(&self.buffer[at..line_end])
                .ok()
                .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
                .expect("a chunk size");
            let start = line_end + 2;
            while self.buffer.len() < start + size + 2 {
                self.read_more();
            }
            if size == 0 {
                return body;
            }
            body.extend_from_slice(&self.buffer[start..start + size]);
            at = start + size + 2;
        }
    }

    fn read_more(&mut self) {
        let mut chunk = [0u8; 64 * 1024];
        let n = self.stream.read(&mut chunk).expect("reads");
        assert!(n > 0, "the server closed the connection");
        self.buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whether every entity of `entities` carries both components' values.
fn both_components(entities: &[Value]) -> bool {
    entities
        .iter()
        .all(|e| e["components"][POSITION].is_object() && e["components"][VELOCITY].is_object())
}

/// The entities of a `world.query` answer, each with both components.
fn remote_entities(answer: &Value) -> usize {
    let entities = answer["result"].as_array().expect("a result list");
    assert!(both_components(entities), "{answer}");
    entities.len()
}

/// The entities of a `query` tool result, each with both components.
fn mcp_entities(structured: &Value) -> usize {
    let entities = structured["entities"].as_array().expect("an entity list");
    assert_eq!(structured["total"], ENTITIES);
    assert!(both_components(entities), "{structured}");
    entities.len()
}

fn query_1000(c: &mut Criterion) {
    let stop = Arc::new(AtomicBool::new(false));
    let (served, game) = serve(stop.clone());

    let remote_body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "world.query",
        "params": { "data": { "components": [POSITION, VELOCITY] } },
    })
    .to_string();
    // A raw connection is opened where it is used: the plugin's server closes a kept-alive
    // connection that sends nothing for its header timeout (5 s).
    let remote = || RawClient::connect(served.remote_port, "/", "", &remote_body);
    let mut first_remote = remote();
    assert_eq!(remote_entities(&first_remote.call()), ENTITIES);

    let arguments = json!({ "with": [POSITION, VELOCITY], "limit": ENTITIES });
    let mcp_body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "query",
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "bench", "version": "0" },
            },
        },
    })
    .to_string();
    let origin = format!("http://127.0.0.1:{}", served.mcp.port);
    let path = served
        .mcp
        .url
        .strip_prefix(&origin)
        .expect("a loopback URL");
    let mcp_headers = "Accept: application/json, text/event-stream\r\n\
                       MCP-Protocol-Version: 2026-07-28\r\n\
                       Mcp-Method: tools/call\r\nMcp-Name: query\r\n";
    let mcp = || RawClient::connect(served.mcp.port, path, mcp_headers, &mcp_body);
    let mut first_mcp = mcp();
    let first = first_mcp.call();
    assert_eq!(
        mcp_entities(&first["result"]["structuredContent"]),
        ENTITIES,
        "{first}"
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = runtime
        .block_on(HttpClient::connect(&served.mcp.url))
        .expect("connects");
    let Value::Object(arguments) = arguments else {
        unreachable!("the arguments are an object")
    };
    let checked = runtime
        .block_on(client.call_tool("query", arguments.clone()))
        .expect("query");
    assert_eq!(
        mcp_entities(checked.structured_content.as_ref().expect("structured")),
        ENTITIES
    );
    let (remote_bytes, mcp_bytes) = (first_remote.buffer.len(), first_mcp.buffer.len());
    eprintln!(
        "answer sizes with headers: world.query {remote_bytes} bytes, query {mcp_bytes} bytes"
    );

    let mut group = c.benchmark_group("query_1000_entities_loopback_http");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("bevy_remote_world_query", |b| {
        let mut remote = remote();
        b.iter(|| black_box(remote_entities(&remote.call())))
    });
    group.bench_function("mcp_bindgen_bevy_query", |b| {
        let mut mcp = mcp();
        b.iter(|| black_box(mcp_entities(&mcp.call()["result"]["structuredContent"])))
    });
    group.bench_function("mcp_bindgen_bevy_query_http_client", |b| {
        b.iter(|| {
            let result = runtime
                .block_on(client.call_tool("query", arguments.clone()))
                .expect("query");
            assert!(!result.is_error(), "{result:?}");
            let structured = result.structured_content.as_ref().expect("structured");
            black_box(mcp_entities(structured))
        })
    });
    group.finish();
    stop.store(true, Ordering::Relaxed);
    let _ = game.join();
}

criterion_group!(benches, query_1000);
criterion_main!(benches);
