//! The `tracing` feature: one client call and one server call, seen by a subscriber that
//! records every span and event with its fields. The spans carry what the README says
//! (tool, era, transport, request id, outcome, timings), arguments appear only at TRACE, and
//! no credential appears in any field or message.
#![cfg(all(feature = "client", feature = "server", feature = "tracing"))]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::server::{Handler, McpTool, Registry, ServerBuilder, ToolError};
use mcp_bindgen::{HttpClient, ToolCaller};
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

#[test]
fn a_client_call_and_a_server_call_are_traced_without_credentials() {
    let recorded = Arc::new(Mutex::new(Recorded::default()));
    tracing::subscriber::set_global_default(Recorder {
        next: AtomicU64::new(0),
        recorded: recorded.clone(),
    })
    .expect("the only subscriber of this test binary");

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
