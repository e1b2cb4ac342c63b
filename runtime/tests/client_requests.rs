//! Requests from the server to the client during a call (`sampling/createMessage`,
//! `elicitation/create`): the call sends one on its SSE stream, the client answers with a POST,
//! and the game completes the call on a later frame. Driven by this crate's own `HttpClient`
//! (the official SDKs' clients meet the same code in the conformance suite's
//! `tools-call-sampling` / `tools-call-elicitation` scenarios, tests/tests/interop.rs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use mcp_bindgen::server::{Call, CallHandler, ClientRequest, McpTool, Registry, Server};
use mcp_bindgen::{CallToolResult, Error, HttpClient, Protocol, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Default)]
struct World {
    asking: Vec<(Call<Sampled>, ClientRequest)>,
}

impl World {
    /// One frame: complete the calls whose client has answered.
    fn update(&mut self) {
        let mut i = 0;
        while i < self.asking.len() {
            let Some(response) = self.asking[i].1.try_response() else {
                i += 1;
                continue;
            };
            let (call, _) = self.asking.swap_remove(i);
            call.complete(response.map(|result| Sampled { result }));
        }
    }
}

/// Ask the client's LLM.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Ask {
    prompt: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Sampled {
    result: Value,
}

impl CallHandler<World> for Ask {
    type Output = Sampled;
    fn start(self, world: &mut World, call: Call<Sampled>) {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": 10,
        });
        match call.request("sampling/createMessage", params) {
            Ok(request) => world.asking.push((call, request)),
            Err(e) => {
                call.complete(Err(e));
            }
        }
    }
}

/// A server whose game loop runs on its own thread until the guard drops.
struct Game {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Game {
    fn start() -> Self {
        let mut registry = Registry::new("client-requests-test", "0.1.0");
        registry.register_call::<Ask>(Duration::from_secs(30));
        let mut server = Server::listen(registry, 0).expect("listens");
        let port = server.port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = thread::spawn(move || {
            let mut world = World::default();
            while !flag.load(Ordering::Relaxed) {
                world.update();
                server.poll(&mut world);
                thread::sleep(Duration::from_millis(1));
            }
        });
        Game {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// Calls `ask` with a client pinned to `protocol` that answers sampling with `answer`; returns
/// the result and the requests the client saw.
fn ask(
    protocol: Protocol,
    answer: impl Fn(&Value) -> Result<Value, Error> + Send + Sync + 'static,
) -> (CallToolResult, Vec<(String, Value)>) {
    let game = Game::start();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = runtime.block_on(async {
        let client = HttpClient::builder(format!("http://127.0.0.1:{}/mcp", game.port))
            .protocol(protocol)
            .timeout(Duration::from_secs(30))
            .on_request(move |method, params| {
                log.lock()
                    .expect("log")
                    .push((method.to_owned(), params.clone()));
                answer(params)
            })
            .connect()
            .await
            .expect("connects");
        let mut arguments = Map::new();
        arguments.insert("prompt".into(), json!("name a colour"));
        client.call_tool("ask", arguments).await.expect("call")
    });
    let seen = seen.lock().expect("log").clone();
    (result, seen)
}

#[test]
fn a_call_asks_its_client_for_sampling_and_answers_on_a_later_frame() {
    let (result, seen) = ask(Protocol::Legacy, |_| {
        Ok(
            json!({"role": "assistant", "content": {"type": "text", "text": "teal"},
            "model": "test-model", "stopReason": "endTurn"}),
        )
    });
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, "sampling/createMessage");
    assert_eq!(
        seen[0].1["messages"][0]["content"]["text"], "name a colour",
        "{seen:?}"
    );
    assert_eq!(seen[0].1["maxTokens"], 10);
    assert!(!result.is_error(), "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(
            json!({"result": {"role": "assistant", "content": {"type": "text", "text": "teal"},
            "model": "test-model", "stopReason": "endTurn"}})
        )
    );
}

#[test]
fn a_client_that_refuses_the_request_gives_a_tool_error() {
    let (result, seen) = ask(Protocol::Legacy, |_| {
        Err(Error::Protocol {
            code: -32601,
            message: "sampling is not supported".into(),
            data: None,
        })
    });
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(result.is_error(), "{result:?}");
    let text = serde_json::to_string(&result.content).expect("json");
    assert!(
        text.contains("client_error")
            && text.contains("the client refused sampling/createMessage")
            && text.contains("sampling is not supported"),
        "{text}"
    );
}

#[test]
fn a_2026_07_28_call_cannot_send_requests_to_its_client() {
    let (result, seen) = ask(Protocol::Modern, |_| Ok(json!({})));
    assert!(seen.is_empty(), "the client was asked: {seen:?}");
    assert!(result.is_error(), "{result:?}");
    let text = serde_json::to_string(&result.content).expect("json");
    assert!(
        text.contains("no_client_requests") && text.contains("2026-07-28"),
        "{text}"
    );
}

#[test]
fn dispatch_cannot_send_requests_and_says_so() {
    let mut registry = Registry::new("client-requests-test", "0.1.0");
    registry.register_call::<Ask>(Duration::from_secs(30));
    let reply = registry
        .dispatch(
            &mut World::default(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"prompt":"hi"}}}"#,
        )
        .expect("a reply");
    assert!(
        reply.contains(r#""isError":true"#) && reply.contains("no_client_requests"),
        "{reply}"
    );
}

#[test]
fn a_response_nobody_waits_for_is_accepted_and_dropped() {
    let mut registry: Registry<World> = Registry::new("client-requests-test", "0.1.0");
    let reply = registry.dispatch(
        &mut World::default(),
        r#"{"jsonrpc":"2.0","id":"mcp-bindgen-41","result":{}}"#,
    );
    assert_eq!(reply, None);
}

/// A resource read that asks for input (2026-07-28 `input_required`), read through this
/// crate's `HttpClient` over HTTP: the client answers the elicitation with its `on_elicitation`
/// handler (which declares the capability), retries with the answer and the sealed state, and returns the contents.
#[test]
fn a_resource_that_asks_is_read_through_the_clients_request_handler() {
    use mcp_bindgen::ResourceContents;
    use mcp_bindgen::server::{InputRequired, Outcome, ResourceDefinition};

    let mut registry = Registry::<()>::new("asking-resource", "0.1.0");
    registry.register_resource_fn(
        ResourceDefinition::new("game://vault", "vault"),
        |_, input| {
            Ok(
                match input
                    .accepted("password")
                    .and_then(|c| c.get("password").cloned())
                {
                    Some(password) => Outcome::Complete(vec![ResourceContents::text(
                        "game://vault",
                        "text/plain",
                        format!("opened with {password}"),
                    )]),
                    None => InputRequired::new()
                        .elicit("password", "The password?", json!({"type": "object"}))
                        .into(),
                },
            )
        },
    );
    let mut server = Server::listen(registry, 0).expect("listens");
    let url = format!("http://127.0.0.1:{}/mcp", server.port());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let game = thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            server.poll(&mut ());
            thread::sleep(Duration::from_millis(1));
        }
    });
    let seen: Seen = Arc::default();
    let log = seen.clone();
    let read = pollster::block_on(async {
        let client = HttpClient::builder(url)
            .protocol(Protocol::Modern)
            .timeout(Duration::from_secs(30))
            // Declares `elicitation` by itself: the server asks only a client that declared
            // it (without the declaration the read would end with no question asked).
            .on_elicitation(move |params| {
                log.lock()
                    .expect("log")
                    .push(("elicitation/create".to_owned(), params.clone()));
                Ok(json!({"action": "accept", "content": {"password": "swordfish"}}))
            })
            .connect()
            .await
            .expect("connects");
        client.read_resource("game://vault").await
    });
    stop.store(true, Ordering::Relaxed);
    game.join().expect("the game thread");
    let read = read.expect("read");
    assert_eq!(read.contents.len(), 1);
    assert_eq!(
        serde_json::to_value(&read.contents[0]).expect("json")["text"],
        "opened with \"swordfish\""
    );
    let seen = seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, "elicitation/create");
    assert_eq!(seen[0].1["message"], "The password?");
}
