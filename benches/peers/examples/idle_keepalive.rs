//! Reproducer: a call on a kept-alive connection that our `Server` closed for idleness.
//!
//! `Server` closes a connection that sends no request for `header_timeout` (5 s by default).
//! Before `7b63f01`, `HttpClient` kept that connection in its pool and, when the runtime did
//! not run in between (a current-thread runtime driven by `block_on`, as in a game or a CLI),
//! sent the next call on it and got `hyper::Error(IncompleteMessage)` instead of reconnecting.
//! Since then it does not reuse a connection idle for 2 s; this exits 1 if the bug is back.
//!
//! `cargo run --release --example idle_keepalive [IDLE_SECONDS]` (default 6).

use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError};
use mcp_bindgen::{HttpClient, ToolCaller};
use serde::{Deserialize, Serialize};
use serde_json::{Map, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

struct Game;

/// Add two numbers.
#[derive(McpTool, Deserialize, schemars::JsonSchema)]
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

fn main() {
    let idle: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut registry = Registry::new("idle", "0");
        registry.register::<Add>();
        let mut server = Server::listen(registry, 0).expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut Game) {
                std::thread::sleep(Duration::from_millis(1));
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
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    let first = runtime.block_on(client.call_tool("add", arguments.clone()));
    println!("first call: ok = {}", first.is_ok());
    println!("idle for {idle} s (runtime not running)");
    std::thread::sleep(Duration::from_secs(idle));
    let second = runtime.block_on(client.call_tool("add", arguments.clone()));
    match &second {
        Ok(_) => println!("second call: ok"),
        Err(e) => println!("second call: {e:?}"),
    }
    let third = runtime.block_on(client.call_tool("add", arguments));
    println!("third call: ok = {}", third.is_ok());
    stop.store(true, Ordering::Relaxed);
    game.join().expect("game");
    std::process::exit(if second.is_ok() { 0 } else { 1 });
}
