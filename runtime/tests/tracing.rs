//! The `tracing` feature: one client call and one server call, seen by a subscriber that
//! records every span and event with its fields. The spans carry what the README says
//! (tool, era, transport, request id, outcome, timings), arguments appear only at TRACE, and
//! no credential appears in any field or message. The events the README's table lists come
//! at their levels (a refused request, a connection closed to make room, crash mode, the
//! per-frame stats, a cancellation, a drift report).
#![cfg(all(feature = "client", feature = "server", feature = "tracing"))]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::client::CallOptions;
use mcp_bindgen::server::{
    Call, CallHandler, Handler, McpTool, Registry, ServerBuilder, ToolError,
};
use mcp_bindgen::{HttpClient, Provenance, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Map;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

const TOKEN: &str = "tok-3e1f9a-never-in-traces";
const ARGUMENT: &str = "an argument only TRACE shows";
/// A key in the URL's query, as hosted servers often take one: never shown either.
const QUERY_KEY: &str = "k3y-in-the-query";

struct Ctx;

/// Echo.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Echoed {
    text: String,
}

impl Handler<Ctx> for Echo {
    type Output = Echoed;
    fn call(self, _: &mut Ctx) -> Result<Echoed, ToolError> {
        Ok(Echoed { text: self.text })
    }
}

/// A span as recorded: its name, level and fields (at creation and recorded later).
#[derive(Debug, Clone)]
struct SpanRecord {
    name: &'static str,
    metadata: &'static Metadata<'static>,
    fields: BTreeMap<String, String>,
}

/// An event as recorded: its level, message and fields, and the span it happened in.
#[derive(Debug, Clone)]
struct EventRecord {
    level: Level,
    fields: BTreeMap<String, String>,
    span: Option<u64>,
}

#[derive(Default)]
struct Recorded {
    spans: BTreeMap<u64, SpanRecord>,
    events: Vec<EventRecord>,
}

/// Records everything at every level, keeping each thread's current span.
struct Recorder {
    next: AtomicU64,
    recorded: Arc<Mutex<Recorded>>,
}

thread_local! {
    static CURRENT: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        self.recorded.lock().unwrap().spans.insert(
            id,
            SpanRecord {
                name: span.metadata().name(),
                metadata: span.metadata(),
                fields,
            },
        );
        Id::from_u64(id)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut recorded = self.recorded.lock().unwrap();
        if let Some(record) = recorded.spans.get_mut(&span.into_u64()) {
            values.record(&mut Fields(&mut record.fields));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn current_span(&self) -> tracing_core::span::Current {
        let current = CURRENT.with(|c| c.borrow().last().copied());
        let recorded = self.recorded.lock().unwrap();
        match current.and_then(|id| Some((id, recorded.spans.get(&id)?.metadata))) {
            Some((id, metadata)) => tracing_core::span::Current::new(Id::from_u64(id), metadata),
            None => tracing_core::span::Current::none(),
        }
    }
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let span = event
            .parent()
            .map(Id::into_u64)
            .or_else(|| CURRENT.with(|c| c.borrow().last().copied()));
        self.recorded.lock().unwrap().events.push(EventRecord {
            level: *event.metadata().level(),
            fields,
            span,
        });
    }
    fn enter(&self, span: &Id) {
        CURRENT.with(|c| c.borrow_mut().push(span.into_u64()));
    }
    fn exit(&self, span: &Id) {
        CURRENT.with(|c| {
            let mut c = c.borrow_mut();
            if let Some(at) = c.iter().rposition(|&s| s == span.into_u64()) {
                c.remove(at);
            }
        });
    }
}

/// What the one global recorder of this test binary saw (installed by the first test that
/// asks; the tests tell their records apart by tool names and messages).
fn recorded() -> Arc<Mutex<Recorded>> {
    static RECORDED: std::sync::OnceLock<Arc<Mutex<Recorded>>> = std::sync::OnceLock::new();
    RECORDED
        .get_or_init(|| {
            let recorded = Arc::new(Mutex::new(Recorded::default()));
            tracing::subscriber::set_global_default(Recorder {
                next: AtomicU64::new(0),
                recorded: recorded.clone(),
            })
            .expect("the only subscriber of this test binary");
            recorded
        })
        .clone()
}

#[test]
fn a_client_call_and_a_server_call_are_traced_without_credentials() {
    let recorded = recorded();

    // Our server, with a bearer token, polled on its own thread.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let server = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut registry = Registry::new("traced", "1");
            registry.register::<Echo>();
            let mut server = ServerBuilder::new()
                .port(0)
                .bearer_token(TOKEN)
                .listen(registry)
                .expect("listens");
            tx.send(server.port()).expect("port");
            while !stop.load(Ordering::Relaxed) {
                if !server.poll(&mut Ctx) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        })
    };
    let url = format!(
        "http://127.0.0.1:{}/mcp?api_key={QUERY_KEY}",
        rx.recv().expect("port")
    );
    let result = pollster::block_on(async {
        let client = HttpClient::builder(&url)
            .bearer_token(TOKEN)
            .connect()
            .await
            .expect("connects");
        let mut arguments = Map::new();
        arguments.insert("text".into(), ARGUMENT.into());
        client.call_tool("echo", arguments).await
    })
    .expect("the call");
    assert!(!result.is_error());
    stop.store(true, Ordering::Relaxed);
    server.join().expect("the server thread");

    let recorded = recorded.lock().unwrap();
    let spans: Vec<&SpanRecord> = recorded.spans.values().collect();
    let find = |name: &str, tool: &str| -> (u64, &SpanRecord) {
        recorded
            .spans
            .iter()
            .find(|(_, s)| s.name == name && s.fields.get("tool").map(String::as_str) == Some(tool))
            .map(|(id, s)| (*id, s))
            .unwrap_or_else(|| panic!("no {name} span for {tool}: {spans:#?}"))
    };

    // The client's span of the call.
    let (client_span, call) = find("mcp_request", "echo");
    assert_eq!(call.fields["method"], "tools/call", "{call:?}");
    assert_eq!(call.fields["transport"], "streamable-http", "{call:?}");
    assert_eq!(call.fields["version"], "2026-07-28", "{call:?}");
    assert_eq!(call.fields["outcome"], "ok", "{call:?}");
    assert!(call.fields["id"].parse::<u64>().is_ok(), "{call:?}");
    assert!(call.fields["elapsed_ms"].parse::<f64>().is_ok(), "{call:?}");
    // The connect's span says what was negotiated.
    assert!(
        spans.iter().any(|s| s.name == "mcp_connect"
            && s.fields.get("version").map(String::as_str) == Some("2026-07-28")),
        "{spans:#?}"
    );

    // The server's span of the same call.
    let (server_span, served) = find("mcp_tool_call", "echo");
    assert_eq!(served.fields["era"], "2026-07-28", "{served:?}");
    assert_eq!(served.fields["id"], call.fields["id"], "the same request");
    assert_eq!(served.fields["outcome"], "ok", "{served:?}");
    assert_eq!(served.fields["deferred"], "false", "{served:?}");
    for timing in ["queue_wait_us", "handler_us"] {
        assert!(
            served.fields[timing].parse::<u64>().is_ok(),
            "{timing}: {served:?}"
        );
    }

    // Arguments travel only in TRACE events, inside the calls' spans.
    let with_argument: Vec<&EventRecord> = recorded
        .events
        .iter()
        .filter(|e| e.fields.values().any(|v| v.contains(ARGUMENT)))
        .collect();
    assert!(!with_argument.is_empty(), "{:#?}", recorded.events);
    for event in &with_argument {
        assert_eq!(event.level, Level::TRACE, "{event:?}");
    }
    assert!(
        with_argument.iter().any(|e| e.span == Some(client_span)),
        "the request's TRACE event is in the client span: {with_argument:#?}"
    );
    assert!(
        with_argument.iter().any(|e| e.span == Some(server_span)),
        "the answer's TRACE event is in the server span: {with_argument:#?}"
    );
    for span in recorded.spans.values() {
        assert!(
            span.fields
                .values()
                .all(|v| !v.contains(TOKEN) && !v.contains(QUERY_KEY)),
            "a credential in {span:?}"
        );
    }

    // No credential anywhere.
    for event in &recorded.events {
        assert!(
            event
                .fields
                .values()
                .all(|v| !v.contains(TOKEN) && !v.contains(QUERY_KEY)),
            "a credential in {event:?}"
        );
    }
}

/// A key the failure tests put in a URL's query: in no error's text, chain or `Debug`, and in
/// no event, when the connection fails.
const FAILING_KEY: &str = "SECRET-in-a-failing-url";

/// Every text an error shows: `Display`, `Debug` and each cause's.
fn every_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = format!("{error}\n{error:?}");
    let mut cause = error.source();
    while let Some(next) = cause {
        text.push_str(&format!("\n{next}\n{next:?}"));
        cause = next.source();
    }
    text
}

#[test]
fn a_key_in_the_url_stays_out_of_a_failed_connection_and_the_listen_retries() {
    let recorded = recorded();
    // Nothing listens on port 1: the connection is refused.
    let connected = pollster::block_on(
        HttpClient::builder(format!("http://127.0.0.1:1/mcp?api_key={FAILING_KEY}")).connect(),
    );
    let Err(refused) = connected else {
        panic!("nothing listens on port 1");
    };
    let text = every_text(&refused);
    assert!(text.contains("127.0.0.1:1"), "the server is named: {text}");
    assert!(!text.contains(FAILING_KEY), "the key leaked: {text}");

    // A listen stream whose server goes away retries, and says why each time.
    let mut registry = Registry::new("going", "1");
    registry.register::<Echo>();
    let mut server = ServerBuilder::new()
        .port(0)
        .listen(registry)
        .expect("listens");
    let port = server.port();
    let url = format!("http://127.0.0.1:{port}/mcp?api_key={FAILING_KEY}");
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let serving = std::thread::spawn(move || {
        while stop_rx.try_recv().is_err() {
            if !server.poll(&mut Ctx) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        server.destroy();
    });
    // A handler of tool changes makes the client listen for them.
    let client = pollster::block_on(HttpClient::builder(&url).on_tools_changed(|_| {}).connect())
        .expect("connects");
    std::thread::sleep(Duration::from_millis(300));
    stop_tx.send(()).expect("the server thread");
    serving.join().expect("the server thread");
    let retried = |recorded: &Recorded| {
        recorded
            .events
            .iter()
            .filter(|e| {
                e.fields
                    .get("message")
                    .is_some_and(|m| m.contains("subscriptions/listen failed"))
            })
            .count()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while retried(&recorded.lock().unwrap()) < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the listen stream was not retried twice in 20 s: {:#?}",
            recorded
                .lock()
                .unwrap()
                .events
                .iter()
                .map(|e| &e.fields)
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(client);
    let recorded = recorded.lock().unwrap();
    for event in &recorded.events {
        assert!(
            event.fields.values().all(|v| !v.contains(FAILING_KEY)),
            "the key in {event:?}"
        );
    }
    for span in recorded.spans.values() {
        assert!(
            span.fields.values().all(|v| !v.contains(FAILING_KEY)),
            "the key in {span:?}"
        );
    }
}

/// Holds the calls of `stuck`, which never answers.
#[derive(Default)]
struct Holding(Vec<Call<String>>);

/// Never answers
#[derive(McpTool, Deserialize, JsonSchema)]
struct Stuck {}

impl CallHandler<Holding> for Stuck {
    type Output = String;
    fn start(self, held: &mut Holding, call: Call<String>) {
        held.0.push(call);
    }
}

/// What the test asks the server's thread to do between frames.
enum Command {
    Crash,
    Clear,
}

/// A module generated when the server had a tool it no longer lists: a drift check breaks.
static GONE: Provenance = Provenance::new(
    "mcp-bindgen test",
    "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    &["vanished"],
    r#"[{"name":"vanished","inputSchema":{"type":"object"}}]"#,
);

/// The events the README's tracing table lists, each at its level: a refused request, a
/// connection closed to make room, crash mode set and cleared, `poll_for`'s stats, a
/// cancelled call, a drift report; and no credential in any event.
#[test]
fn the_events_the_readme_lists_are_emitted_at_their_levels() {
    use std::io::{Read, Write};

    let recorded = recorded();
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let (commands, commanded) = std::sync::mpsc::channel::<Command>();
    let server = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut registry = Registry::new("events", "1");
            registry.register_call::<Stuck>(Duration::from_secs(600));
            let mut server = ServerBuilder::new()
                .port(0)
                .bearer_token(TOKEN)
                .max_connections(4)
                .listen(registry)
                .expect("listens");
            tx.send(server.port()).expect("port");
            let mut held = Holding::default();
            while !stop.load(Ordering::Relaxed) {
                match commanded.try_recv() {
                    Ok(Command::Crash) => server.registry_mut().set_crashed("boom at frame 7"),
                    Ok(Command::Clear) => server.registry_mut().clear_crashed(),
                    Err(_) => {}
                }
                server.poll_for(&mut held, Duration::from_millis(2));
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let port = rx.recv().expect("port");
    let url = format!("http://127.0.0.1:{port}/mcp");

    // A request with the wrong credential: refused with 401.
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        tcp,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Authorization: Bearer wrong-{TOKEN}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("writes");
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");

    pollster::block_on(async {
        let client = HttpClient::builder(&url)
            .bearer_token(TOKEN)
            .connect()
            .await
            .expect("connects");
        // A module whose tool is gone: a breaking drift report.
        let report = client
            .check_drift(&GONE)
            .await
            .expect("tools/list")
            .expect("a report");
        assert!(!report.breaking("vanished").is_empty(), "{report:?}");
        // A call that times out is cancelled on the server (in the legacy era with a
        // notification; in 2026-07-28 by closing its stream).
        let legacy = HttpClient::builder(&url)
            .bearer_token(TOKEN)
            .protocol(mcp_bindgen::Protocol::Legacy)
            .connect()
            .await
            .expect("connects");
        let options = CallOptions::new().timeout(Duration::from_millis(300));
        let timed_out = legacy
            .call_tool_with("stuck", Map::new(), &options)
            .await
            .expect_err("stuck never answers");
        assert!(timed_out.is_timeout(), "{timed_out}");
    });
    // Idle connections past the server's four: it closes the idlest to make room.
    let idle: Vec<std::net::TcpStream> = (0..5)
        .map(|_| {
            let tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
            std::thread::sleep(Duration::from_millis(20));
            tcp
        })
        .collect();
    commands.send(Command::Crash).expect("the server thread");
    commands.send(Command::Clear).expect("the server thread");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let has = |level: Level, message: &str| {
        recorded.lock().unwrap().events.iter().any(|e| {
            e.level == level && e.fields.get("message").is_some_and(|m| m.contains(message))
        })
    };
    while !has(Level::INFO, "crash mode cleared") {
        assert!(
            std::time::Instant::now() < deadline,
            "crash mode never cleared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    while !has(Level::DEBUG, "closing the idlest connection") {
        assert!(
            std::time::Instant::now() < deadline,
            "no connection closed for room"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(idle);
    stop.store(true, Ordering::Relaxed);
    server.join().expect("the server thread");

    let recorded = recorded.lock().unwrap();
    let event = |level: Level, message: &str| -> &EventRecord {
        recorded
            .events
            .iter()
            .find(|e| {
                e.level == level && e.fields.get("message").is_some_and(|m| m.contains(message))
            })
            .unwrap_or_else(|| panic!("no {level} event {message:?}: {:#?}", recorded.events))
    };
    let refused = recorded
        .events
        .iter()
        .find(|e| {
            e.fields.get("message").map(String::as_str) == Some("request refused")
                && e.fields.get("status").map(String::as_str) == Some("401")
        })
        .unwrap_or_else(|| panic!("no 401 refusal: {:#?}", recorded.events));
    assert_eq!(refused.level, Level::DEBUG, "4xx is DEBUG: {refused:?}");
    assert!(refused.fields.contains_key("reason"), "{refused:?}");
    let room = event(Level::DEBUG, "closing the idlest connection to make room");
    assert_eq!(room.fields["max_connections"], "4", "{room:?}");
    let crashed = event(Level::WARN, "crash mode");
    assert!(
        crashed.fields["traceback"].contains("boom at frame 7"),
        "{crashed:?}"
    );
    event(Level::INFO, "crash mode cleared");
    let stats = event(Level::TRACE, "poll_for");
    for field in ["calls", "busy", "longest", "queued", "deferred"] {
        assert!(stats.fields.contains_key(field), "{field}: {stats:?}");
    }
    let cancelled = event(Level::DEBUG, "cancelling the request on the server");
    assert!(cancelled.fields.contains_key("reason"), "{cancelled:?}");
    let drift = event(Level::WARN, "the server's tools changed");
    assert!(drift.fields["report"].contains("vanished"), "{drift:?}");
    // No credential in any event of this binary, whatever its level.
    for e in &recorded.events {
        assert!(
            e.fields.values().all(|v| !v.contains(TOKEN)),
            "a credential in {e:?}"
        );
    }
}
