//! Changes to the tools, prompts and resources announced to listening clients, in both eras: over HTTP (a legacy
//! session's GET stream, a 2026-07-28 `subscriptions/listen` stream) and over stdio. The game
//! thread is this test's own: it polls once per "frame" by hand, so that "told within one
//! frame" means the event arrives with no later frame run at all.
#![cfg(feature = "server")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mcp_bindgen::ResourceContents;
use mcp_bindgen::server::{
    Handler, McpTool, Outcome, PromptDefinition, Registrar, Registry, ResourceDefinition, Server,
    ServerBuilder, ToolError, serve_stdio,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

struct Game {
    tools: Registrar<Game>,
}

/// Which frame is it?
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Frame {}

impl Handler<Game> for Frame {
    type Output = u64;
    fn call(self, _: &mut Game) -> Result<u64, ToolError> {
        Ok(1)
    }
}

/// Open the next level: its boss appears as a tool.
#[derive(McpTool, Deserialize, JsonSchema)]
struct OpenLevel {}

impl Handler<Game> for OpenLevel {
    type Output = ();
    fn call(self, game: &mut Game) -> Result<(), ToolError> {
        game.tools.register::<Boss>();
        Ok(())
    }
}

/// Fight the boss.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Boss {}

impl Handler<Game> for Boss {
    type Output = ();
    fn call(self, _: &mut Game) -> Result<(), ToolError> {
        Ok(())
    }
}

/// Another tool, for two changes in one frame.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Extra {}

impl Handler<Game> for Extra {
    type Output = ();
    fn call(self, _: &mut Game) -> Result<(), ToolError> {
        Ok(())
    }
}

fn registry() -> Registry<Game> {
    let mut registry = Registry::new("changes-test", "0.1.0");
    registry.register::<Frame>().register::<OpenLevel>();
    registry
}

fn serve(builder: ServerBuilder) -> (Server<Game>, Game) {
    let registry = registry();
    let game = Game {
        tools: registry.registrar(),
    };
    let server = builder.port(0).listen(registry).expect("listens");
    (server, game)
}

const CHANGED: &str = "notifications/tools/list_changed";
const PROMPTS_CHANGED: &str = "notifications/prompts/list_changed";
const UPDATED: &str = "notifications/resources/updated";
const MODERN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A raw HTTP/1.1 stream, read as it comes (its chunk framing left in: events are found by
/// their text).
struct Stream {
    tcp: TcpStream,
    seen: String,
}

impl Stream {
    fn open(port: u16, request: &str) -> Stream {
        let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        tcp.set_read_timeout(Some(Duration::from_millis(100)))
            .expect("timeout");
        tcp.write_all(request.as_bytes()).expect("writes");
        let mut stream = Stream {
            tcp,
            seen: String::new(),
        };
        stream.wait_for("\r\n\r\n", 1);
        stream
    }

    /// A legacy session's GET stream.
    fn get(port: u16) -> Stream {
        Stream::open(
            port,
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
             MCP-Protocol-Version: 2025-11-25\r\n\r\n",
        )
    }

    /// A 2026-07-28 `subscriptions/listen` with `filter`, once acknowledged.
    fn listen(port: u16, id: &str, filter: &str) -> Stream {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{{MODERN},"notifications":{filter}}}}}"#
        );
        let mut stream = Stream::open(
            port,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                 Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        );
        stream.wait_for("notifications/subscriptions/acknowledged", 1);
        stream
    }

    /// Reads until `needle` has been seen `count` times (at most 20 s: a bound for a broken
    /// server, not a measure).
    fn wait_for(&mut self, needle: &str, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.seen.matches(needle).count() < count {
            assert!(
                Instant::now() < deadline,
                "{needle:?} not seen {count} times; the stream so far: {}",
                self.seen
            );
            self.read_some();
        }
    }

    /// Reads to the end of the stream (the server closes it).
    fn read_to_end(&mut self) -> &str {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.read_some() {
            assert!(Instant::now() < deadline, "the stream never ended");
        }
        &self.seen
    }

    /// One read; whether the stream ended.
    fn read_some(&mut self) -> bool {
        let mut buf = [0u8; 4096];
        match self.tcp.read(&mut buf) {
            Ok(0) => true,
            Ok(n) => {
                self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
                false
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                false
            }
            Err(_) => true,
        }
    }

    fn count(&self, needle: &str) -> usize {
        self.seen.matches(needle).count()
    }
}

#[test]
fn legacy_get_streams_hear_registration_replacement_and_removal_within_the_frame() {
    let (mut server, mut game) = serve(ServerBuilder::new());
    let mut stream = Stream::get(server.port());
    assert!(stream.seen.starts_with("HTTP/1.1 200"), "{}", stream.seen);
    assert!(
        stream
            .seen
            .to_ascii_lowercase()
            .contains("text/event-stream")
    );

    // Registered between frames: announced by the next frame's poll, with no frame after it.
    server.registry_mut().register::<Extra>();
    server.poll(&mut game);
    stream.wait_for(CHANGED, 1);
    // Legacy notifications carry no subscription id.
    assert!(!stream.seen.contains("subscriptionId"));

    // A replacement that changes the definition is a change; one that does not is none.
    let mut changed = mcp_bindgen::server::ToolDefinition::new(
        "extra",
        json!({"type": "object"}).as_object().unwrap().clone(),
    );
    changed.description = "Now with a description".into();
    server
        .registry_mut()
        .register_fn(changed.clone(), |_, _| Ok(Value::Null));
    server.poll(&mut game);
    stream.wait_for(CHANGED, 2);
    server
        .registry_mut()
        .register_fn(changed, |_, _| Ok(Value::Null));
    assert!(
        !server.registry().changes_pending(),
        "the same definition again is no change"
    );
    server.poll(&mut game);

    // Removed.
    assert!(server.registry_mut().unregister("extra"));
    assert!(!server.registry_mut().unregister("extra"), "gone already");
    server.poll(&mut game);
    stream.wait_for(CHANGED, 3);

    // Frames with no change announce nothing; the stream ends when the server does.
    for _ in 0..3 {
        server.poll(&mut game);
    }
    server.destroy();
    stream.read_to_end();
    assert_eq!(
        stream.count(CHANGED),
        3,
        "a registration, a replacement, a removal; the identical replacement and the idle \
         frames said nothing: {}",
        stream.seen
    );
}

#[test]
fn two_changes_in_one_frame_are_one_announcement() {
    let (mut server, mut game) = serve(ServerBuilder::new());
    let mut legacy = Stream::get(server.port());
    let mut modern = Stream::listen(
        server.port(),
        "\"listen-1\"",
        r#"{"toolsListChanged":true}"#,
    );
    server.registry_mut().register::<Extra>();
    server.registry_mut().register::<Boss>();
    server.poll(&mut game);
    legacy.wait_for(CHANGED, 1);
    modern.wait_for(CHANGED, 1);
    // A stream writes what is pending when it wakes: a second announcement of the same frame
    // would be written now, before the next frame's.
    std::thread::sleep(Duration::from_millis(50));
    server.registry_mut().unregister("boss");
    game.tools.unregister("extra");
    server.poll(&mut game);
    legacy.wait_for(CHANGED, 2);
    modern.wait_for(CHANGED, 2);
    server.destroy();
    legacy.read_to_end();
    modern.read_to_end();
    assert_eq!(legacy.count(CHANGED), 2, "{}", legacy.seen);
    assert_eq!(modern.count(CHANGED), 2, "{}", modern.seen);
}

#[test]
fn listen_acknowledges_tags_and_closes_with_its_result() {
    let (mut server, mut game) = serve(ServerBuilder::new());
    let mut stream = Stream::listen(server.port(), "7", r#"{"toolsListChanged":true}"#);
    let ack_at = stream.seen.find("data: ").expect("an event");
    let ack: Value = serde_json::from_str(
        stream.seen[ack_at + 6..]
            .lines()
            .next()
            .expect("the acknowledgement's line"),
    )
    .expect("JSON");
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7},
                       "notifications": {"toolsListChanged": true}}})
    );
    // A handler registers a tool: the client hears of it in the same frame.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{MODERN},"name":"open_level"}}}}"#
    );
    let caller = std::thread::spawn({
        let port = server.port();
        move || {
            let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connects");
            tcp.write_all(
                format!(
                    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                     Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                     Mcp-Method: tools/call\r\nMcp-Name: open_level\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{call}",
                    call.len()
                )
                .as_bytes(),
            )
            .expect("writes");
            let mut reply = String::new();
            tcp.read_to_string(&mut reply).expect("reads");
            reply
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.poll(&mut game) {
        assert!(Instant::now() < deadline, "the call never came");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(caller.join().expect("caller").contains("\"isError\":false"));
    stream.wait_for(CHANGED, 1);
    assert!(
        stream
            .seen
            .contains(r#""params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}"#),
        "{}",
        stream.seen
    );
    assert_eq!(
        server
            .registry()
            .tools()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["frame", "open_level", "boss"]
    );
    server.destroy();
    stream.read_to_end();
    assert_eq!(stream.count(CHANGED), 1, "{}", stream.seen);
    let closing: Vec<Value> = stream
        .seen
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter(|message| message.get("result").is_some())
        .collect();
    assert_eq!(
        closing,
        [
            json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete",
            "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
        ],
        "a stream the server ends closes with its result: {}",
        stream.seen
    );
}

#[test]
fn each_stream_hears_only_the_kinds_it_asked_for() {
    let (mut server, mut game) = serve(ServerBuilder::new());
    let mut prompts = Stream::listen(server.port(), "1", r#"{"promptsListChanged":true}"#);
    assert!(
        prompts
            .seen
            .contains(r#""notifications":{"promptsListChanged":true}"#),
        "{}",
        prompts.seen
    );
    let mut tools = Stream::listen(server.port(), "2", r#"{"toolsListChanged":true}"#);
    server.registry_mut().register::<Extra>();
    server.poll(&mut game);
    tools.wait_for(CHANGED, 1);
    server.registry_mut().register_prompt_fn(
        PromptDefinition::new("briefing", "Sets an agent up"),
        |_, _, _| Ok(Outcome::Complete(Vec::new())),
    );
    server.poll(&mut game);
    prompts.wait_for(PROMPTS_CHANGED, 1);
    server.destroy();
    prompts.read_to_end();
    tools.read_to_end();
    assert_eq!(prompts.count(CHANGED), 0, "{}", prompts.seen);
    assert_eq!(prompts.count(PROMPTS_CHANGED), 1, "{}", prompts.seen);
    assert_eq!(tools.count(PROMPTS_CHANGED), 0, "{}", tools.seen);
}

#[test]
fn resource_updates_reach_the_streams_subscribed_to_them_in_both_eras() {
    let (mut server, mut game) = serve(ServerBuilder::new());
    for uri in ["game://level", "game://log"] {
        server.registry_mut().register_resource(
            ResourceDefinition::new(uri, "r").mime_type("text/plain"),
            move |_| Ok(vec![ResourceContents::text(uri, "text/plain", "x")]),
        );
    }
    server.poll(&mut game);
    let mut level = Stream::listen(
        server.port(),
        "5",
        r#"{"resourceSubscriptions":["game://level"]}"#,
    );
    assert!(
        level
            .seen
            .contains(r#""resourceSubscriptions":["game://level"]"#),
        "{}",
        level.seen
    );
    // A legacy client subscribes to the log, then opens its GET stream.
    let subscribed = server
        .registry_mut()
        .dispatch(
            &mut game,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"game://log"}}"#,
        )
        .expect("a reply");
    assert!(subscribed.contains(r#""result":{}"#), "{subscribed}");
    let mut legacy = Stream::get(server.port());
    server.registry_mut().resource_updated("game://level");
    server.registry_mut().resource_updated("game://log");
    server.poll(&mut game);
    level.wait_for(UPDATED, 1);
    legacy.wait_for(UPDATED, 1);
    server.destroy();
    level.read_to_end();
    legacy.read_to_end();
    assert_eq!(level.count(UPDATED), 1, "{}", level.seen);
    assert!(
        level.seen.contains(r#""uri":"game://level""#),
        "{}",
        level.seen
    );
    assert!(!level.seen.contains("game://log\""), "{}", level.seen);
    assert_eq!(legacy.count(UPDATED), 1, "{}", legacy.seen);
    assert!(
        legacy.seen.contains(r#""uri":"game://log""#),
        "{}",
        legacy.seen
    );
}

#[test]
fn a_listen_without_a_filter_is_invalid_params() {
    let (server, _game) = serve(ServerBuilder::new());
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{{{MODERN}}}}}"#
    );
    let mut stream = Stream::open(
        server.port(),
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    stream.read_to_end();
    assert!(stream.seen.contains("-32602"), "{}", stream.seen);
    assert!(stream.seen.contains("notifications"), "{}", stream.seen);
}

#[test]
fn quiet_streams_are_kept_alive_with_comments() {
    let (server, _game) = serve(ServerBuilder::new().keep_alive(Duration::from_millis(20)));
    let mut stream = Stream::listen(server.port(), "1", r#"{"toolsListChanged":true}"#);
    stream.wait_for(": keep-alive", 2);
    assert_eq!(stream.count(CHANGED), 0);
}

#[test]
fn streams_count_against_the_connection_limit() {
    let (server, _game) = serve(ServerBuilder::new().max_connections(2));
    let _a = Stream::get(server.port());
    let _b = Stream::listen(server.port(), "1", r#"{"toolsListChanged":true}"#);
    // Both connections are busy with their streams: a third is closed unanswered.
    let mut third = TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
    third
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let _ = third
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    let mut reply = Vec::new();
    let read = third.read_to_end(&mut reply);
    // Closed by the server (the end of the stream, or a reset: it had the request unread),
    // not left hanging until the read timeout.
    assert!(
        read.as_ref().map_or_else(
            |e| e.kind() == std::io::ErrorKind::ConnectionReset,
            |_| true
        ),
        "the third connection was not closed: {read:?}"
    );
    assert!(reply.is_empty(), "{}", String::from_utf8_lossy(&reply));
}

#[test]
fn stdio_announces_in_both_eras() {
    let registry = registry();
    let mut game = Game {
        tools: registry.registrar(),
    };
    let mut registry = registry;
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "open_level", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    let mut output = Vec::new();
    serve_stdio(&mut registry, &mut game, input.as_bytes(), &mut output).expect("serves");
    let lines: Vec<Value> = String::from_utf8(output)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[0]["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    assert_eq!(lines[1]["id"], 2);
    assert_eq!(
        lines[2],
        json!({"jsonrpc": "2.0", "method": CHANGED}),
        "after the call that made the change"
    );
    assert_eq!(lines[3]["result"]["tools"][2]["name"], "boss");

    // 2026-07-28: only on an open listen, tagged; cancelled, it hears no more.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let input = [
        json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"_meta": meta, "name": "boss", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "l"}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"_meta": meta, "name": "open_level", "arguments": {}}}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    game.tools.unregister("boss");
    let mut output = Vec::new();
    serve_stdio(&mut registry, &mut game, input.as_bytes(), &mut output).expect("serves");
    let lines: Vec<Value> = String::from_utf8(output)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(
        lines[0]["method"], "notifications/subscriptions/acknowledged",
        "{lines:?}"
    );
    assert_eq!(
        lines[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "l"
    );
    // The unregistration queued before this connection is applied at its start and not
    // announced; so `boss` is unknown, and the call changes nothing.
    assert_eq!(lines[1]["id"], 5);
    assert_eq!(lines[1]["error"]["code"], -32602, "{lines:?}");
    assert_eq!(
        lines[2]["id"], 6,
        "cancelled: no event for open_level's change"
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
}

#[test]
fn dispatch_alone_refuses_to_listen_and_applies_registrars() {
    let mut registry = registry();
    let mut game = Game {
        tools: registry.registrar(),
    };
    let reply = registry
        .dispatch(
            &mut game,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}},
                "notifications": {"toolsListChanged": true}}})
            .to_string(),
        )
        .expect("a reply");
    let reply: Value = serde_json::from_str(&reply).expect("JSON");
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    game.tools.register::<Extra>();
    assert!(registry.changes_pending());
    registry.dispatch(
        &mut game,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(registry.tools().count(), 3);
}
