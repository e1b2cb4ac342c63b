//! Calls that span frames and the frame budget, over a real socket: a deferred call completed
//! on a later frame (with progress as SSE when asked), abandoned by its client, past its
//! deadline, and in crash mode; `poll_for` draining a burst within its budget and what it
//! reports; the connection cap with calls in flight. No test
//! depends on timing: the "game" here is driven step by step by the test itself.
#![cfg(feature = "server")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::server::{
    Call, CallHandler, Handler, McpTool, Registry, Server, ServerBuilder, ToolError,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Default)]
struct World {
    frame: u64,
    calls: u64,
    waiting: Vec<(u64, Call<Stepped>)>,
}

impl World {
    /// One frame of gameplay: progress on the waiting calls, and the due ones completed.
    fn update(&mut self) {
        self.frame += 1;
        let frame = self.frame;
        for (until, call) in &self.waiting {
            call.progress(frame as f64, Some(*until as f64), Some("stepping"));
        }
        for (_, call) in self.waiting.extract_if(.., |(until, _)| *until <= frame) {
            call.complete(Ok(Stepped { frame }));
        }
    }
}

/// Step the world `frames` frames, then report the frame reached.
#[derive(McpTool, Deserialize, JsonSchema)]
struct RunFrames {
    frames: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Stepped {
    frame: u64,
}

impl CallHandler<World> for RunFrames {
    type Output = Stepped;
    fn start(self, world: &mut World, call: Call<Stepped>) {
        world.waiting.push((world.frame + self.frames, call));
    }
}

/// Step the world `frames` frames, then report the frame reached; also while the game has
/// crashed.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(when_crashed)]
struct RunFramesAnyway {
    frames: u64,
}

impl CallHandler<World> for RunFramesAnyway {
    type Output = Stepped;
    fn start(self, world: &mut World, call: Call<Stepped>) {
        world.waiting.push((world.frame + self.frames, call));
    }
}

/// Count a call.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Tick {}

#[derive(Serialize, JsonSchema)]
struct Ticks {
    calls: u64,
}

impl Handler<World> for Tick {
    type Output = Ticks;
    fn call(self, world: &mut World) -> Result<Ticks, ToolError> {
        world.calls += 1;
        Ok(Ticks { calls: world.calls })
    }
}

/// Slower than any frame budget in these tests.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Slow {}

impl Handler<World> for Slow {
    type Output = Ticks;
    fn call(self, world: &mut World) -> Result<Ticks, ToolError> {
        thread::sleep(Duration::from_millis(30));
        world.calls += 1;
        Ok(Ticks { calls: world.calls })
    }
}

fn registry(deadline: Duration) -> Registry<World> {
    let mut r = Registry::new("frames-test", "0.1.0");
    r.register::<Tick>()
        .register::<Slow>()
        .register_call::<RunFrames>(deadline)
        .register_call::<RunFramesAnyway>(deadline);
    r
}

fn server(deadline: Duration) -> Server<World> {
    ServerBuilder::new()
        .port(0)
        .listen(registry(deadline))
        .expect("listens")
}

fn request(port: u16, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(raw.as_bytes()).expect("writes");
    stream
}

fn read_all(mut stream: TcpStream) -> (String, String) {
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("reads");
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_ascii_lowercase(), body.to_owned())
}

fn call(name: &str, arguments: Value, meta: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta}})
    .to_string()
}

/// Polls until `n` requests are queued (bounded: the HTTP thread queues them promptly).
fn wait_queued(server: &Server<World>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.queued() < n {
        assert!(
            Instant::now() < deadline,
            "{} of {n} queued",
            server.queued()
        );
        thread::sleep(Duration::from_millis(1));
    }
}

/// The game loop of a test: `update` then `poll` until `done`, bounded.
fn frames_until(
    server: &mut Server<World>,
    world: &mut World,
    mut done: impl FnMut(&World) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(world) {
        assert!(Instant::now() < deadline, "bounded wait");
        world.update();
        server.poll(world);
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_deferred_call_completes_on_a_later_frame_with_progress_as_sse() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    let client = request(
        port,
        &call(
            "run_frames",
            json!({"frames": 3}),
            json!({"progressToken": "p1"}),
        ),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world), "started");
    assert_eq!(world.waiting.len(), 1, "stored by the handler");
    assert_eq!(server.registry().deferred_calls(), 1);
    let started = world.frame;
    frames_until(&mut server, &mut world, |w| w.waiting.is_empty());
    assert_eq!(world.frame, started + 3);
    let (head, body) = read_all(client);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).expect("json event"))
        .collect();
    let (last, notes) = events.split_last().expect("events");
    assert_eq!(
        notes.len(),
        3,
        "one progress per frame before the answer: {body}"
    );
    for (i, note) in notes.iter().enumerate() {
        assert_eq!(note["method"], "notifications/progress");
        assert_eq!(note["params"]["progressToken"], "p1");
        assert_eq!(note["params"]["progress"], (started + 1 + i as u64) as f64);
    }
    assert_eq!(last["id"], 1);
    assert_eq!(
        last["result"]["structuredContent"],
        json!({"frame": started + 3})
    );
    server.poll(&mut world);
    assert_eq!(
        server.registry().deferred_calls(),
        0,
        "forgotten once answered"
    );
}

#[test]
fn without_a_progress_token_the_answer_stays_plain_json() {
    let mut server = server(Duration::from_secs(60));
    let mut world = World::default();
    let client = request(
        server.port(),
        &call("run_frames", json!({"frames": 2}), json!({})),
    );
    wait_queued(&server, 1);
    frames_until(&mut server, &mut world, |w| {
        w.frame >= 4 && w.waiting.is_empty()
    });
    let (head, body) = read_all(client);
    assert!(head.contains("content-type: application/json"), "{head}");
    let body: Value = serde_json::from_str(&body).expect("one JSON body");
    assert_eq!(body["result"]["isError"], false, "{body}");
}

#[test]
fn a_call_whose_client_left_is_abandoned_and_dropped() {
    let mut server = server(Duration::from_secs(60));
    let mut world = World::default();
    let client = request(
        server.port(),
        &call("run_frames", json!({"frames": 1000}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    let (_, call) = world.waiting.first().expect("stored");
    assert!(!call.is_abandoned());
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !world.waiting[0].1.is_abandoned() {
        assert!(
            Instant::now() < deadline,
            "the server noticed the client left"
        );
        thread::sleep(Duration::from_millis(1));
    }
    server.poll(&mut world);
    assert_eq!(server.registry().deferred_calls(), 0);
    let (_, call) = world.waiting.pop().expect("still held by the game");
    assert!(!call.complete(Ok(Stepped { frame: 0 })), "nobody to answer");
}

#[test]
fn a_call_past_its_deadline_is_a_clear_tool_error() {
    let mut server = server(Duration::ZERO);
    let mut world = World::default();
    let client = request(
        server.port(),
        &call("run_frames", json!({"frames": 1000}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    // The next frame notices the deadline has passed.
    server.poll(&mut world);
    let (_, body) = read_all(client);
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["isError"], true, "{body}");
    let text = body["result"]["content"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("deadline") && text.contains("run_frames"),
        "{text}"
    );
    let (_, call) = world.waiting.pop().expect("held");
    assert!(call.is_abandoned());
    assert!(!call.complete(Ok(Stepped { frame: 1 })));
}

#[test]
fn crash_mode_answers_waiting_deferred_calls() {
    let mut server = server(Duration::from_secs(60));
    let mut world = World::default();
    let client = request(
        server.port(),
        &call("run_frames", json!({"frames": 1000}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    server
        .registry_mut()
        .set_crashed("panicked at gameplay.rs:12");
    let (_, body) = read_all(client);
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["isError"], true, "{body}");
    assert!(
        body["result"]["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("crashed")
    );
    assert_eq!(server.registry().deferred_calls(), 0);
}

/// A crash answers the deferred calls of ordinary tools at once, and keeps those of tools
/// marked `when_crashed`, which the game completes on a later frame as usual (and which still
/// start while crashed).
#[test]
fn crash_mode_keeps_the_deferred_calls_of_tools_marked_when_crashed() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    let ordinary = request(
        port,
        &call("run_frames", json!({"frames": 1000}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    let kept = request(
        port,
        &call("run_frames_anyway", json!({"frames": 2}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    assert_eq!(server.registry().deferred_calls(), 2);

    server
        .registry_mut()
        .set_crashed("panicked at gameplay.rs:12");
    assert_eq!(
        server.registry().deferred_calls(),
        1,
        "the when_crashed call still waits"
    );
    let (_, body) = read_all(ordinary);
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["isError"], true, "{body}");
    assert!(
        body["result"]["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("gameplay.rs:12"),
        "{body}"
    );

    // A new call of the when_crashed tool starts too; the ordinary one is refused.
    let started = request(
        port,
        &call("run_frames_anyway", json!({"frames": 1}), json!({})),
    );
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    assert_eq!(server.registry().deferred_calls(), 2);
    let refused = request(port, &call("run_frames", json!({"frames": 1}), json!({})));
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    let (_, body) = read_all(refused);
    assert!(body.contains("gameplay.rs:12"), "{body}");

    // The kept calls complete on later frames, as without a crash.
    let crashed_at = world.frame;
    frames_until(&mut server, &mut world, |w| {
        w.frame >= crashed_at + 2 && w.waiting.len() == 1
    });
    for (client, frames) in [(kept, 2), (started, 1)] {
        let (head, body) = read_all(client);
        assert!(head.starts_with("http/1.1 200"), "{head}");
        let body: Value = serde_json::from_str(&body).expect("json");
        assert_eq!(body["result"]["isError"], false, "{body}");
        let frame = body["result"]["structuredContent"]["frame"]
            .as_u64()
            .expect("a frame");
        assert!(frame >= crashed_at + frames - 1, "{body}");
    }
    server.poll(&mut world);
    assert_eq!(server.registry().deferred_calls(), 0);
}

/// A server capped at `max` connections, whose idle connections would otherwise stay open
/// for the whole test.
fn capped(max: usize) -> Server<World> {
    ServerBuilder::new()
        .port(0)
        .max_connections(max)
        .header_timeout(Duration::from_secs(600))
        .listen(registry(Duration::from_secs(60)))
        .expect("listens")
}

/// Whether the server closed `stream` without writing anything (an end of file or a reset),
/// rather than leaving it open (the read then times out) or answering.
fn closed_without_a_word(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Err(e) => matches!(
            e.kind(),
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
        ),
        Ok(_) => false,
    }
}

/// Starts a deferred call (`frames` frames) on a connection of its own, and returns it.
fn start_deferred(server: &mut Server<World>, world: &mut World, frames: u64) -> TcpStream {
    let stream = request(
        server.port(),
        &call("run_frames", json!({"frames": frames}), json!({})),
    );
    wait_queued(server, 1);
    assert!(server.poll(world), "started");
    stream
}

/// At the connection cap, the connection closed to make room is an idle one, never one with a
/// call in flight, even when that one is the oldest.
#[test]
fn a_connection_with_a_call_in_flight_is_not_closed_to_make_room() {
    let mut server = capped(2);
    let mut world = World::default();
    // The oldest connection, with a deferred call in flight.
    let busy = start_deferred(&mut server, &mut world, 2);
    let mut idle = TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
    let newcomer = request(server.port(), &call("tick", json!({}), json!({})));
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    let (head, _) = read_all(newcomer);
    assert!(
        head.starts_with("http/1.1 200"),
        "the newcomer is served: {head}"
    );
    assert!(
        closed_without_a_word(&mut idle),
        "the idle connection made room"
    );
    // The busy one was kept: its call is answered when the game completes it.
    frames_until(&mut server, &mut world, |w| w.waiting.is_empty());
    let (head, body) = read_all(busy);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["isError"], false, "{body}");
}

/// At the cap with every connection busy, a new connection is closed at once without an
/// answer; the busy ones are untouched, and once one of them is done a new connection is
/// served again.
#[test]
fn at_the_cap_with_every_connection_busy_a_new_one_is_closed() {
    let mut server = capped(2);
    let mut world = World::default();
    let first = start_deferred(&mut server, &mut world, 2);
    let second = start_deferred(&mut server, &mut world, 2);
    let mut refused = request(server.port(), &call("tick", json!({}), json!({})));
    assert!(
        closed_without_a_word(&mut refused),
        "a third connection is closed while both are busy"
    );
    assert_eq!(server.queued(), 0, "its request was never read");
    frames_until(&mut server, &mut world, |w| w.waiting.is_empty());
    for client in [first, second] {
        let (head, body) = read_all(client);
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(body.contains(r#""isError":false"#), "{body}");
    }
    let later = request(server.port(), &call("tick", json!({}), json!({})));
    wait_queued(&server, 1);
    assert!(server.poll(&mut world));
    let (head, _) = read_all(later);
    assert!(head.starts_with("http/1.1 200"), "served again: {head}");
}

/// `poll_for`'s report: the time spent is the sum of the calls (two 30 ms calls: 60 ms at
/// least, the longest at least 30 ms), and the deferred calls still waiting are counted.
#[test]
fn poll_stats_sum_the_time_spent_and_count_the_deferred_calls() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    let clients = vec![
        request(port, &call("slow", json!({}), json!({}))),
        request(port, &call("slow", json!({}), json!({}))),
        request(port, &call("run_frames", json!({"frames": 1}), json!({}))),
        request(port, &call("run_frames", json!({"frames": 1}), json!({}))),
    ];
    wait_queued(&server, 4);
    let stats = server.poll_for(&mut world, Duration::from_secs(60));
    assert_eq!((stats.calls, stats.queued), (4, 0), "{stats:?}");
    assert_eq!(stats.deferred, 2, "{stats:?}");
    assert!(stats.longest >= Duration::from_millis(30), "{stats:?}");
    assert!(
        stats.busy >= Duration::from_millis(60) && stats.busy >= stats.longest,
        "{stats:?}"
    );
    // The game completes the deferred calls; the next frame reports none waiting.
    world.update();
    let stats = server.poll_for(&mut world, Duration::from_secs(60));
    assert_eq!((stats.calls, stats.deferred), (0, 0), "{stats:?}");
    for client in clients {
        let (head, _) = read_all(client);
        assert!(head.starts_with("http/1.1 200"), "{head}");
    }
}

#[test]
fn poll_for_drains_a_burst_across_frames_within_the_budget() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    let clients: Vec<TcpStream> = (0..6)
        .map(|_| request(port, &call("tick", json!({}), json!({}))))
        .collect();
    wait_queued(&server, 6);
    // A zero budget still runs one call per frame.
    let stats = server.poll_for(&mut world, Duration::ZERO);
    assert_eq!(stats.calls, 1);
    assert_eq!(stats.queued, 5);
    assert!(stats.longest <= stats.busy);
    // A generous budget drains the rest in one frame.
    let stats = server.poll_for(&mut world, Duration::from_secs(60));
    assert_eq!(stats.calls, 5);
    assert_eq!(stats.queued, 0);
    assert_eq!(world.calls, 6);
    for client in clients {
        let (head, _) = read_all(client);
        assert!(head.starts_with("http/1.1 200"), "{head}");
    }
    // Nothing queued: the frame returns at once with nothing done.
    assert_eq!(
        server.poll_for(&mut world, Duration::from_secs(60)).calls,
        0
    );
}

#[test]
fn a_call_slower_than_the_budget_runs_alone() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    let slow = request(port, &call("slow", json!({}), json!({})));
    wait_queued(&server, 1);
    let fast = request(port, &call("tick", json!({}), json!({})));
    wait_queued(&server, 2);
    let stats = server.poll_for(&mut world, Duration::from_millis(1));
    assert_eq!(stats.calls, 1, "the slow call used the whole budget");
    assert!(stats.longest >= Duration::from_millis(30));
    assert!(stats.busy >= stats.longest, "{stats:?}");
    assert_eq!(stats.queued, 1);
    assert_eq!(
        server.poll_for(&mut world, Duration::from_millis(1)).calls,
        1
    );
    read_all(slow);
    read_all(fast);
}

#[test]
fn the_frame_never_blocks_on_the_network() {
    let mut server = server(Duration::from_secs(60));
    let port = server.port();
    let mut world = World::default();
    // A client that sent half a request, and one that sent nothing.
    let mut half = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    half.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\"",
    )
    .expect("writes");
    let _silent = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    for _ in 0..1000 {
        let stats = server.poll_for(&mut world, Duration::from_secs(60));
        assert_eq!(stats.calls, 0);
    }
    assert_eq!(world.calls, 0);
}
