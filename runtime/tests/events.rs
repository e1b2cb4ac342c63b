//! The Events extension (SEP-3415) end to end: this crate's client against this crate's server
//! over HTTP, by push and by poll: occurrences arrive in order and typed, a client that comes
//! back with its cursor gets what it missed and nothing twice, one that comes back too late is
//! told `truncated`, a subscription's arguments filter, and unknown types, bad arguments and
//! modes not offered get the extension's errors. Over stdio, the server's side.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::client::Protocol;
use mcp_bindgen::events::{Delivery, EventItem, EventOptions, EventStream, code};
use mcp_bindgen::server::{
    Emitter, EventType, Handler, McpTool, Registry, Server, ToolError, serve_stdio,
};
use mcp_bindgen::{Error, HttpClient};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A unit died.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Died {
    unit: u32,
    team: String,
}

/// Which deaths to hear.
#[derive(Deserialize, JsonSchema)]
struct ByTeam {
    /// Only this team's.
    team: Option<String>,
}

struct Game {
    died: Emitter<Died>,
}

/// Kills a unit.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(name = "kill")]
struct Kill {
    unit: u32,
    team: String,
}

impl Handler<Game> for Kill {
    type Output = ();
    fn call(self, game: &mut Game) -> Result<(), ToolError> {
        game.died.emit(Died {
            unit: self.unit,
            team: self.team,
        });
        Ok(())
    }
}

fn registry(capacity: usize) -> (Registry<Game>, Game) {
    let mut registry = Registry::new("arena", "1.0.0");
    registry.register::<Kill>();
    let died = registry.register_event(
        EventType::<Died, ByTeam>::new("died")
            .keep(capacity, Duration::from_secs(600))
            .filter(|died, by| by.team.as_ref().is_none_or(|t| *t == died.team)),
    );
    registry.register_event(
        EventType::<Died>::new("polled_only")
            .description("Offered by poll only.")
            .delivery(&[Delivery::Poll]),
    );
    (registry, Game { died })
}

/// A game on its own thread, a poll per ~1 ms frame; emits from the test thread go through
/// the emitter the game holds a clone of.
struct Arena {
    port: u16,
    died: Emitter<Died>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Arena {
    fn start(capacity: usize) -> Arena {
        let (registry, mut game) = registry(capacity);
        let died = game.died.clone();
        let mut server = Server::listen(registry, 0).expect("listens");
        let port = server.port();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = thread::spawn({
            let stop = stop.clone();
            move || {
                while !stop.load(Ordering::Relaxed) {
                    server.poll_for(&mut game, Duration::from_millis(1));
                    thread::sleep(Duration::from_millis(1));
                }
                server.destroy();
            }
        });
        Arena {
            port,
            died,
            stop,
            thread: Some(thread),
        }
    }

    async fn client(&self) -> HttpClient {
        HttpClient::builder(format!("http://127.0.0.1:{}/mcp", self.port))
            .protocol(Protocol::Modern)
            .connect()
            .await
            .expect("connects")
    }

    fn emit(&self, units: std::ops::RangeInclusive<u32>, team: &str) {
        for unit in units {
            self.died.emit(Died {
                unit,
                team: team.into(),
            });
        }
    }

    /// Waits until `n` streams are open on `died`.
    async fn streams(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.died.streams() != n {
            assert!(Instant::now() < deadline, "waited 30 s for {n} streams");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// The next item within 10 s.
async fn next(stream: &mut EventStream<Died>) -> EventItem<Died> {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("an item within 10 s")
        .expect("the stream goes on")
        .expect("an item, not an error")
}

/// The units of the next `n` occurrences.
async fn units(stream: &mut EventStream<Died>, n: usize) -> Vec<u32> {
    let mut units = Vec::new();
    while units.len() < n {
        match next(stream).await {
            EventItem::Event(occurrence) => units.push(occurrence.data.unit),
            other => panic!("expected an occurrence, got {other:?}"),
        }
    }
    units
}

/// Nothing more within `wait`.
async fn quiet(stream: &mut EventStream<Died>, wait: Duration) {
    if let Ok(item) = tokio::time::timeout(wait, stream.next()).await {
        panic!("expected nothing, got {item:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_declares_its_event_types() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    let extensions = &client.server_capabilities()["extensions"];
    assert_eq!(
        extensions["io.modelcontextprotocol/events"],
        json!({"listChanged": true})
    );
    let types = client.list_events().await.expect("events/list");
    let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["died", "polled_only"]);
    let died = &types[0];
    assert_eq!(died.description.as_deref(), Some("A unit died."));
    assert_eq!(died.delivery, [Delivery::Poll, Delivery::Push]);
    assert_eq!(died.payload_schema["required"], json!(["unit", "team"]));
    assert_eq!(
        died.input_schema["properties"]["team"]["description"],
        "Only this team's."
    );
    assert_eq!(types[1].delivery, [Delivery::Poll]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_occurrences_arrive_in_order_typed_from_a_tool_call_and_from_anywhere() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    let mut stream = client
        .stream_events("died", Map::new(), EventOptions::new())
        .typed::<Died>();
    arena.streams(1).await;
    // Emitted by a handler on the game thread...
    client
        .request(
            "tools/call",
            json!({"name": "kill", "arguments": {"unit": 1, "team": "red"}}),
        )
        .await
        .expect("kill");
    // ...and by gameplay on another thread.
    arena.emit(2..=4, "blue");
    let EventItem::Event(first) = next(&mut stream).await else {
        panic!("an occurrence first");
    };
    assert_eq!(first.name, "died");
    assert_eq!(
        first.data,
        Died {
            unit: 1,
            team: "red".into()
        }
    );
    assert!(first.timestamp.ends_with('Z'), "{}", first.timestamp);
    assert_eq!(units(&mut stream, 3).await, [2, 3, 4]);
    assert!(stream.cursor().is_some());
    drop(stream);
    arena.streams(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_comes_back_with_its_cursor_gets_what_it_missed_and_nothing_twice() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    for mode in [Delivery::Push, Delivery::Poll] {
        let options = EventOptions::new().delivery(mode);
        let mut stream = client
            .stream_events("died", Map::new(), options.clone())
            .typed::<Died>();
        // A poll stream's first page (from now) gives its cursor; a push stream's `active`.
        let deadline = Instant::now() + Duration::from_secs(10);
        while stream.cursor().is_none() {
            assert!(Instant::now() < deadline, "{mode:?}: no cursor");
            let _ = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        }
        arena.emit(1..=2, "red");
        assert_eq!(units(&mut stream, 2).await, [1, 2], "{mode:?}");
        let cursor = stream.cursor().expect("a cursor").to_owned();
        drop(stream);
        // Missed while away: the server kept them for the cursor.
        arena.emit(3..=5, "red");
        let mut again = client
            .stream_events("died", Map::new(), options.cursor(cursor))
            .typed::<Died>();
        assert_eq!(units(&mut again, 3).await, [3, 4, 5], "{mode:?}");
        quiet(&mut again, Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_older_than_what_is_kept_is_truncated_then_delivery_goes_on() {
    let arena = Arena::start(4);
    let client = arena.client().await;
    let first = client
        .poll_events("died", Map::new(), None, None)
        .await
        .expect("the first poll");
    assert!(first.events.is_empty() && !first.truncated);
    let cursor = first.cursor.expect("a cursor");
    arena.emit(1..=10, "red");
    for mode in [Delivery::Push, Delivery::Poll] {
        let options = EventOptions::new().delivery(mode).cursor(cursor.clone());
        let mut stream = client
            .stream_events("died", Map::new(), options)
            .typed::<Died>();
        let EventItem::Truncated { cursor: fresh } = next(&mut stream).await else {
            panic!("{mode:?}: truncated first");
        };
        assert!(fresh.is_some());
        // The four kept.
        assert_eq!(units(&mut stream, 4).await, [7, 8, 9, 10], "{mode:?}");
    }
    // A cursor of another process (a restart): truncated, from now.
    let page = client
        .poll_events("died", Map::new(), Some("0badc0ffee00.3"), None)
        .await
        .expect("poll");
    assert!(page.truncated && page.events.is_empty(), "{page:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polls_page_with_max_events_and_suggest_when_to_poll_again() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    let start = client
        .poll_events("died", Map::new(), None, None)
        .await
        .expect("poll");
    arena.emit(1..=5, "red");
    let page = client
        .poll_events("died", Map::new(), start.cursor.as_deref(), Some(2))
        .await
        .expect("poll")
        .typed::<Died>()
        .expect("typed");
    let got: Vec<u32> = page.events.iter().map(|o| o.data.unit).collect();
    assert_eq!(got, [1, 2]);
    assert!(page.has_more);
    assert_eq!(page.next_poll_ms, Some(1000));
    let rest = client
        .poll_events("died", Map::new(), page.cursor.as_deref(), None)
        .await
        .expect("poll");
    assert_eq!(rest.events.len(), 3);
    assert!(!rest.has_more);
    let ids: std::collections::HashSet<&str> = page
        .events
        .iter()
        .map(|o| o.event_id.as_str())
        .chain(rest.events.iter().map(|o| o.event_id.as_str()))
        .collect();
    assert_eq!(ids.len(), 5, "event ids are unique");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriptions_arguments_filter_what_it_hears() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    let blue = args(json!({"team": "blue"}));
    let mut pushed = client
        .stream_events("died", blue.clone(), EventOptions::new())
        .typed::<Died>();
    arena.streams(1).await;
    let start = client
        .poll_events("died", blue.clone(), None, None)
        .await
        .expect("poll");
    arena.emit(1..=2, "red");
    arena.emit(3..=3, "blue");
    arena.emit(4..=4, "red");
    arena.emit(5..=5, "blue");
    assert_eq!(units(&mut pushed, 2).await, [3, 5]);
    let page = client
        .poll_events("died", blue, start.cursor.as_deref(), None)
        .await
        .expect("poll");
    let got: Vec<u64> = page
        .events
        .iter()
        .map(|o| o.data["unit"].as_u64().unwrap())
        .collect();
    assert_eq!(got, [3, 5]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_types_bad_arguments_and_modes_not_offered_get_the_extensions_errors() {
    let arena = Arena::start(64);
    let client = arena.client().await;
    let code_of = |error: Error| match error {
        Error::Protocol { code, data, .. } => (code, data.unwrap_or_default()),
        other => panic!("expected a JSON-RPC error, got {other}"),
    };
    let (unknown, data) = code_of(
        client
            .poll_events("born", Map::new(), None, None)
            .await
            .unwrap_err(),
    );
    assert_eq!((unknown, &data["kind"]), (code::NOT_FOUND, &json!("event")));
    let (bad, _) = code_of(
        client
            .poll_events("died", args(json!({"team": 7})), None, None)
            .await
            .unwrap_err(),
    );
    assert_eq!(bad, code::INVALID_PARAMS);
    let (unsupported, data) = code_of(
        client
            .request("events/stream", json!({"name": "polled_only"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(unsupported, code::UNSUPPORTED);
    assert_eq!(data, json!({"feature": "deliveryMode", "value": "push"}));
    // A stream ends with the error as its terminal item, the caller's to act on.
    for (name, arguments, mode, expected) in [
        ("born", json!({}), None, code::NOT_FOUND),
        (
            "died",
            json!({"team": 7}),
            Some(Delivery::Push),
            code::INVALID_PARAMS,
        ),
        (
            "died",
            json!({"team": 7}),
            Some(Delivery::Poll),
            code::INVALID_PARAMS,
        ),
        (
            "polled_only",
            json!({}),
            Some(Delivery::Push),
            code::UNSUPPORTED,
        ),
    ] {
        let options = match mode {
            Some(mode) => EventOptions::new().delivery(mode),
            None => EventOptions::new(),
        };
        let mut stream = client.stream_events(name, args(arguments), options);
        let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an answer within 10 s")
            .expect("an item");
        let found = match item {
            Ok(EventItem::Terminated(ended)) => ended.code,
            Err(error) => code_of(error).0,
            Ok(other) => panic!("{name}: {other:?}"),
        };
        assert_eq!(found, expected, "{name} {mode:?}");
        assert!(stream.next().await.is_none(), "{name}: the stream ended");
    }
    // The server still serves.
    client
        .poll_events("died", Map::new(), None, None)
        .await
        .expect("still serving");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_removed_terminates_its_streams_and_the_list_change_is_announced() {
    let (registry, mut game) = registry(64);
    let died = game.died.clone();
    let mut server = Server::listen(registry, 0).expect("listens");
    let port = server.port();
    // The client connects (server/discover, events/list) while this thread runs the frames.
    let opening = tokio::spawn(async move {
        let client = HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
            .protocol(Protocol::Modern)
            .connect()
            .await
            .expect("connects");
        let stream = client
            .stream_events("died", Map::new(), EventOptions::new())
            .typed::<Died>();
        (client, stream)
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while died.streams() != 1 {
        assert!(Instant::now() < deadline, "no stream");
        server.poll(&mut game);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let (_client, mut stream) = opening.await.expect("opened");
    assert!(server.registry_mut().unregister_event("died"));
    server.poll(&mut game);
    match next(&mut stream).await {
        EventItem::Terminated(ended) => assert_eq!(ended.code, code::NOT_FOUND),
        other => panic!("expected terminated, got {other:?}"),
    }
    assert!(stream.next().await.is_none());
    // Emitting into a removed type does nothing.
    died.emit(Died {
        unit: 1,
        team: "red".into(),
    });
    assert!(!died.is_heard());
    server.destroy();
}

#[test]
fn over_stdio_a_stream_is_written_after_each_message_until_cancelled() {
    let (mut registry, mut game) = registry(64);
    let died = game.died.clone();
    let modern = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let input = [
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"events/stream","params":{{"name":"died",{modern}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"kill","arguments":{{"unit":1,"team":"red"}},{modern}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            .to_owned(),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"kill","arguments":{{"unit":2,"team":"red"}},{modern}}}}}"#
        ),
    ]
    .join("\n");
    let mut output = Vec::new();
    serve_stdio(&mut registry, &mut game, input.as_bytes(), &mut output).expect("served");
    let lines: Vec<Value> = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let methods: Vec<&str> = lines
        .iter()
        .map(|l| l["method"].as_str().unwrap_or("(response)"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/events/active",
            "(response)",
            "notifications/events/event",
            "(response)",
        ],
        "{lines:#?}"
    );
    let event = &lines[2]["params"];
    assert_eq!(event["data"], json!({"unit": 1, "team": "red"}));
    assert_eq!(event["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
    assert_eq!(
        lines[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    // Cancelled: the second kill reached no stream, and nobody listens but the lease.
    assert_eq!(died.streams(), 0);
}

#[test]
fn over_stdio_a_listen_stream_hears_that_the_event_types_changed() {
    let (mut registry, mut game) = registry(64);
    let events = registry.registrar();
    let modern = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let listen = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"notifications":{{"eventsListChanged":true}},{modern}}}}}"#
    );
    let ping =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"events/list","params":{{{modern}}}}}"#);
    // Between the two messages the type is removed from elsewhere (a registrar).
    let input = Lines(vec![
        (listen, None),
        (
            ping,
            Some(Box::new(move || {
                assert!(events.unregister_event("polled_only"))
            })),
        ),
    ]);
    let mut output = Vec::new();
    serve_stdio(
        &mut registry,
        &mut game,
        std::io::BufReader::new(input),
        &mut output,
    )
    .expect("served");
    let lines: Vec<Value> = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let changed: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "notifications/events/list_changed")
        .collect();
    assert_eq!(changed.len(), 1, "{lines:#?}");
    assert_eq!(
        changed[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    assert_eq!(
        lines[0]["params"]["notifications"],
        json!({"eventsListChanged": true})
    );
    let listed = lines.iter().find(|l| l["id"] == 2).expect("the list");
    assert_eq!(listed["result"]["events"].as_array().map(Vec::len), Some(1));
}

type Step = Option<Box<dyn FnOnce()>>;

/// Input lines, each read after its step ran: what happens between two messages.
struct Lines(Vec<(String, Step)>);

impl std::io::Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Ok(0);
        }
        let (line, step) = self.0.remove(0);
        if let Some(step) = step {
            step();
        }
        let bytes = format!("{line}\n").into_bytes();
        assert!(bytes.len() <= buf.len(), "a line fits the reader's buffer");
        buf[..bytes.len()].copy_from_slice(&bytes);
        Ok(bytes.len())
    }
}
