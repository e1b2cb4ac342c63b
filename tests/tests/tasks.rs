//! Generated methods of tools that run as tasks, against a real server in both eras. The
//! arena fixture's `reset` and `siege` run only as tasks (`execution.taskSupport:
//! "required"`), and the server here refuses a plain call of either (`-32021` in 2026-07-28,
//! `-32601` in 2025-11-25): the generated plain methods start a task and wait for it,
//! `siege_task` returns a typed handle, and a second connection finds the task again by id.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use mcp_bindgen::client::Protocol;
use mcp_bindgen::server::{Call, CallHandler, Handler, McpTool, Registry, Server, ToolError};
use mcp_bindgen::{Error, HttpClient, TaskState};
use mcp_bindgen_tests::arena::{Client, types};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Default)]
struct Castle {
    frame: u64,
    round: u64,
    /// Sieges under way: the frame each ends, its castle, its rounds, its call.
    sieges: Vec<(u64, String, u64, Call<Besieged>)>,
}

impl Castle {
    fn update(&mut self) {
        self.frame += 1;
        let frame = self.frame;
        self.sieges.retain(|(.., call)| !call.is_abandoned());
        for (_, castle, rounds, call) in self.sieges.extract_if(.., |(end, ..)| *end <= frame) {
            call.complete(Ok(Besieged {
                castle,
                holder: "the besiegers".into(),
                rounds,
            }));
        }
    }
}

/// Besiege a castle for some rounds, a frame each: who holds it after
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct Siege {
    castle: String,
    rounds: u64,
}

#[derive(Serialize, JsonSchema)]
struct Besieged {
    castle: String,
    holder: String,
    rounds: u64,
}

impl CallHandler<Castle> for Siege {
    type Output = Besieged;
    fn start(self, castle: &mut Castle, call: Call<Besieged>) {
        let end = castle.frame + self.rounds;
        castle.sieges.push((end, self.castle, self.rounds, call));
    }
}

/// Start the round again
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct Reset {}

#[derive(Serialize, JsonSchema)]
struct Round {
    round: u64,
}

impl Handler<Castle> for Reset {
    type Output = Round;
    fn call(self, castle: &mut Castle) -> Result<Round, ToolError> {
        castle.round += 1;
        Ok(Round {
            round: castle.round,
        })
    }
}

/// The castle's loop on its own thread, a frame a millisecond.
struct Running {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = thread::spawn(move || {
            let mut registry = Registry::new("arena", "0.0.0");
            registry
                .register_call::<Siege>(Duration::from_secs(600))
                .register::<Reset>();
            let mut server = Server::listen(registry, 0).expect("listens");
            tx.send(server.port()).expect("port");
            let mut castle = Castle::default();
            while !flag.load(Ordering::Relaxed) {
                castle.update();
                server.poll(&mut castle);
                thread::sleep(Duration::from_millis(1));
            }
        });
        Running {
            port: rx.recv().expect("port"),
            stop,
            thread: Some(thread),
        }
    }

    async fn connect(&self, protocol: &Protocol) -> HttpClient {
        HttpClient::builder(format!("http://127.0.0.1:{}/mcp", self.port))
            .protocol(protocol.clone())
            .connect()
            .await
            .expect("connects")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn siege(castle: &str, rounds: u64) -> types::SiegeArgs {
    types::SiegeArgs {
        castle: castle.into(),
        rounds,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_runs_only_as_a_task_is_awaited_by_its_plain_method() {
    let castle = Running::start();
    for protocol in [Protocol::Modern, Protocol::Legacy] {
        let http = castle.connect(&protocol).await;

        // Plainly, the server refuses the call: the generated method must make it a task.
        let refused = mcp_bindgen::ToolCaller::call_tool(&http, "reset", Default::default())
            .await
            .expect_err("reset runs only as a task");
        assert!(
            matches!(
                refused,
                Error::Protocol {
                    code: -32021 | -32601,
                    ..
                }
            ),
            "{protocol:?}: {refused}"
        );

        let client = Client::new(http);
        let held = client.siege(&siege("Dover", 40)).await.expect("siege");
        assert_eq!(
            held,
            types::SiegeOutput {
                castle: "Dover".into(),
                holder: "the besiegers".into(),
                rounds: 40,
            },
            "{protocol:?}"
        );
        let first = client.reset().await.expect("reset").round;
        assert_eq!(client.reset().await.expect("reset").round, first + 1);

        let raw = client
            .siege_raw(&siege("Acre", 3))
            .await
            .expect("siege_raw");
        assert_eq!(
            raw.structured_content.expect("structured")["castle"],
            "Acre",
            "{protocol:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_task_handle_is_found_again_by_id_and_cancelled() {
    let castle = Running::start();
    for protocol in [Protocol::Modern, Protocol::Legacy] {
        let client = Client::new(castle.connect(&protocol).await);
        let handle = client
            .siege_task(&siege("Harlech", 200))
            .await
            .expect("starts");
        let id = handle.id().expect("a task").to_owned();
        let status = handle.status().await.expect("tasks/get");
        assert!(
            matches!(status.state, TaskState::Working | TaskState::Completed),
            "{protocol:?}: {status:?}"
        );
        drop(handle);
        drop(client);

        let again = castle.connect(&protocol).await;
        let held: types::SiegeOutput = again
            .task("siege", &id)
            .typed()
            .wait()
            .await
            .expect("the siege's result");
        assert_eq!(held.castle, "Harlech", "{protocol:?}");
        assert_eq!(held.rounds, 200, "{protocol:?}");

        let long = Client::new(again)
            .siege_task(&siege("Krak", 100_000))
            .await
            .expect("starts");
        long.cancel().await.expect("cancels");
        assert_eq!(
            long.status().await.expect("tasks/get").state,
            TaskState::Cancelled,
            "{protocol:?}"
        );
        assert!(long.wait().await.is_err(), "{protocol:?}");
    }
}
