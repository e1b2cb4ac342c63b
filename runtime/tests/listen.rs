//! The client hears the server's tool changes, against this crate's own server over HTTP: in
//! 2026-07-28 on the `subscriptions/listen` stream it opens itself, in the legacy era on the
//! session's GET stream. The server's `ttlMs` is a minute, so only the announcement can explain
//! what the client notices.
#![cfg(all(feature = "server", feature = "client"))]

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcp_bindgen::client::{Protocol, ToolList};
use mcp_bindgen::server::{Handler, McpTool, Registrar, Registry, Server, ToolError};
use mcp_bindgen::{DriftPolicy, Error, HttpClient, Provenance, ToolCaller};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Default)]
struct Game {
    greeted: Arc<AtomicU64>,
}

/// Greets someone.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(name = "greet")]
struct Greet {
    name: String,
}

impl Handler<Game> for Greet {
    type Output = String;
    fn call(self, game: &mut Game) -> Result<String, ToolError> {
        game.greeted.fetch_add(1, Ordering::Relaxed);
        Ok(format!("Hello, {}!", self.name))
    }
}

/// Greets someone by full name (the breaking version: `name` is gone).
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(name = "greet")]
struct GreetByFullName {
    full_name: String,
}

impl Handler<Game> for GreetByFullName {
    type Output = String;
    fn call(self, game: &mut Game) -> Result<String, ToolError> {
        game.greeted.fetch_add(1, Ordering::Relaxed);
        Ok(format!("Hello, {}!", self.full_name))
    }
}

/// A game loop on its own thread, one poll per ~1 ms frame, reporting how many change
/// streams are open.
struct GameLoop {
    port: u16,
    tools: Registrar<Game>,
    greeted: Arc<AtomicU64>,
    listening: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl GameLoop {
    fn start() -> GameLoop {
        let mut registry =
            Registry::new("listen-test", "1.0.0").with_list_ttl(Duration::from_secs(60));
        registry.register::<Greet>();
        let tools = registry.registrar();
        let mut server = Server::listen(registry, 0).expect("listens");
        let port = server.port();
        let greeted = Arc::new(AtomicU64::new(0));
        let listening = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = thread::spawn({
            let (greeted, listening, stop) = (greeted.clone(), listening.clone(), stop.clone());
            move || {
                let mut game = Game { greeted };
                while !stop.load(Ordering::Relaxed) {
                    server.poll_for(&mut game, Duration::from_millis(1));
                    listening.store(server.listening(), Ordering::Relaxed);
                    thread::sleep(Duration::from_millis(1));
                }
            }
        });
        GameLoop {
            port,
            tools,
            greeted,
            listening,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Waits (bounded: a broken client fails, a slow machine does not) until `n` change
    /// streams are open.
    fn wait_listening(&self, n: usize) {
        wait_until(
            || self.listening.load(Ordering::Relaxed) == n,
            "change streams open",
        );
    }
}

impl Drop for GameLoop {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn wait_until(mut done: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "waited 30 s for {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

/// What a client generated from the server's first tool list records.
fn provenance() -> &'static Provenance {
    let registry = {
        let mut r = Registry::<Game>::new("", "");
        r.register::<Greet>();
        r
    };
    let tools: Vec<Value> = registry.tools().map(|t| t.to_json()).collect();
    let digest = mcp_bindgen_core::digest::digest(&tools);
    let canonical = mcp_bindgen_core::digest::canonical(&tools);
    Box::leak(Box::new(Provenance::new(
        "listen-test",
        Box::leak(digest.into_boxed_str()),
        &["greet"],
        Box::leak(canonical.into_boxed_str()),
    )))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_client_listens_and_blocks_the_broken_call_before_sending_it() {
    let game = GameLoop::start();
    let client = HttpClient::builder(game.url())
        .protocol(Protocol::Modern)
        .drift_policy(DriftPolicy::Strict)
        .connect()
        .await
        .expect("connects");
    assert_eq!(
        client.server_capabilities()["tools"]["listChanged"],
        true,
        "{}",
        client.server_capabilities()
    );
    // No generated module and no handler: nothing listens yet.
    game.wait_listening(0);
    let provenance = provenance();
    client
        .check_tool(provenance, "greet")
        .await
        .expect("the generated client matches");
    // Its first check opened the listen stream.
    game.wait_listening(1);

    game.tools.register::<GreetByFullName>();
    let refused = {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match client.check_tool(provenance, "greet").await {
                Ok(()) => {
                    assert!(Instant::now() < deadline, "the change was never heard");
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Err(error) => break error,
            }
        }
    };
    assert!(
        matches!(&refused, Error::Drift { tool, .. } if tool == "greet"),
        "{refused}"
    );
    assert_eq!(
        game.greeted.load(Ordering::Relaxed),
        0,
        "nothing reached the server"
    );
    let report = client.drift(provenance).expect("a report");
    assert!(
        report.changes.iter().any(|c| c.rule.contains("required")),
        "{report}"
    );
    // One stream, however many checks.
    assert_eq!(game.listening.load(Ordering::Relaxed), 1);
    drop(client);
    game.wait_listening(0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_hear_the_new_list_in_both_eras() {
    for protocol in [Protocol::Modern, Protocol::Legacy] {
        let game = GameLoop::start();
        let heard: Arc<Mutex<Vec<(usize, ToolList)>>> = Arc::default();
        let mut builder = HttpClient::builder(game.url()).protocol(protocol.clone());
        for handler in 0..2 {
            let heard = heard.clone();
            builder = builder.on_tools_changed(move |list| {
                heard.lock().unwrap().push((handler, list.clone()));
            });
        }
        let client = builder.connect().await.expect("connects");
        // A handler opens the stream at connect (the legacy GET stream always opens).
        game.wait_listening(1);

        game.tools.unregister("greet");
        wait_until(|| heard.lock().unwrap().len() == 2, "both handlers");
        let heard_now = heard.lock().unwrap().clone();
        assert_eq!(
            heard_now[0].0, 0,
            "{protocol:?}: handlers in the order added"
        );
        assert_eq!(heard_now[1].0, 1);
        assert_eq!(heard_now[0].1, heard_now[1].1, "one list for both");
        assert!(
            heard_now[0].1.tools.is_empty(),
            "{protocol:?}: greet is gone"
        );

        game.tools.register::<Greet>();
        wait_until(|| heard.lock().unwrap().len() == 4, "the second change");
        let names: Vec<String> = heard.lock().unwrap()[3]
            .1
            .names()
            .map(str::to_owned)
            .collect();
        assert_eq!(names, ["greet"], "{protocol:?}");
        // The client is usable throughout: the streams take no request slot of its own.
        let mut arguments = Map::new();
        arguments.insert("name".into(), "Ada".into());
        let result = client.call_tool("greet", arguments).await.expect("calls");
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"result": "Hello, Ada!"}))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listen_stream_is_reopened_after_the_server_restarts() {
    // The server ends its streams with their closing response when it shuts down; the
    // client listens again once a server is back on the port, and counts the gap as a change.
    let mut registry = Registry::<Game>::new("restart", "1.0.0");
    registry.register::<Greet>();
    let mut server = Server::listen(registry, 0).expect("listens");
    let port = server.port();
    let heard = Arc::new(AtomicUsize::new(0));
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/mcp"))
        .protocol(Protocol::Modern)
        .on_tools_changed({
            let heard = heard.clone();
            move |_| {
                heard.fetch_add(1, Ordering::Relaxed);
            }
        })
        .connect_on_poll(&mut server)
        .await;
    wait_until(|| server.listening() == 1, "the first stream");
    let registry = server.into_registry();
    let mut server = Server::listen(registry, port).expect("listens again on the same port");
    let mut game = Game::default();
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.listening() == 0 {
        assert!(Instant::now() < deadline, "the client never listened again");
        server.poll_for(&mut game, Duration::from_millis(1));
        thread::sleep(Duration::from_millis(5));
    }
    // The gap counts as one change: the handler got a fresh list.
    while heard.load(Ordering::Relaxed) == 0 {
        assert!(
            Instant::now() < deadline,
            "the gap was not counted as a change"
        );
        server.poll_for(&mut game, Duration::from_millis(1));
        thread::sleep(Duration::from_millis(5));
    }
    drop(client);
}

/// Connecting while this thread polls the server (the test owns the server here).
trait ConnectOnPoll {
    async fn connect_on_poll(self, server: &mut Server<Game>) -> HttpClient;
}

impl ConnectOnPoll for mcp_bindgen::client::HttpClientBuilder {
    async fn connect_on_poll(self, server: &mut Server<Game>) -> HttpClient {
        let connecting = tokio::spawn(self.connect());
        let mut game = Game::default();
        while !connecting.is_finished() {
            server.poll_for(&mut game, Duration::from_millis(1));
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        connecting.await.expect("joins").expect("connects")
    }
}
