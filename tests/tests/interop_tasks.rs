//! Tasks (MCP 2025-11-25, experimental) with the official TypeScript SDK v1
//! (`@modelcontextprotocol/sdk`, installed by `scripts/test.sh`), both ways:
//!
//! - our client against the SDK's task server (`interop/ts_task_server.mjs`): a task-only tool
//!   started as a task and awaited typed, found again by id from a new session, and a
//!   cancelled one;
//! - the SDK's client (`interop/ts_task_client.mjs`, `client.experimental.tasks`) against our
//!   server (`conformance_host`): a task polled to completion, a task that fails, a cancel,
//!   and `tasks/list`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use mcp_bindgen::client::Protocol;
use mcp_bindgen::{Error, HttpClient, TaskState, ToolCaller};
use serde_json::{Map, Value, json};

#[path = "common/host.rs"]
mod host;
use host::Host;

fn interop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

fn node() -> PathBuf {
    interop().join("node_modules/.bin/node")
}

/// The SDK's task server, killed however the test ends.
struct TaskServer {
    child: Child,
    url: String,
}

impl TaskServer {
    fn start() -> Self {
        let mut child = Command::new(node())
            .arg(interop().join("ts_task_server.mjs"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts node");
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("prints its URL");
        TaskServer {
            child,
            url: url.trim().to_owned(),
        }
    }

    async fn connect(&self) -> HttpClient {
        HttpClient::builder(&self.url)
            .protocol(Protocol::Version("2025-11-25".into()))
            .connect()
            .await
            .expect("connects")
    }
}

impl Drop for TaskServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Baked {
    loaves: u64,
    crust: String,
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn our_client_runs_tasks_on_the_typescript_sdk_server() {
    let server = TaskServer::start();
    pollster::block_on(async {
        let client = server.connect().await;
        let tools = client.list_tools().await.expect("tools/list");
        let support = |name: &str| {
            tools
                .iter()
                .find(|t| t["name"] == name)
                .map(|t| t["execution"]["taskSupport"].clone())
        };
        assert_eq!(support("bake"), Some(json!("required")));
        assert_eq!(support("slow"), Some(json!("optional")));

        let handle = client
            .call_tool_as_task("bake", args(json!({"loaves": 3})))
            .await
            .expect("starts bake")
            .typed::<Baked>();
        let id = handle.id().expect("the SDK made a task").to_owned();
        assert_eq!(
            handle.status().await.expect("tasks/get").state,
            TaskState::Working
        );
        let baked = handle.wait().await.expect("bake's result");
        assert_eq!(
            baked,
            Baked {
                loaves: 3,
                crust: "golden".into()
            }
        );

        // A new session (a reconnect) finds the task by its id.
        drop(client);
        let again = server.connect().await;
        let found: Baked = again
            .task("bake", &id)
            .typed()
            .wait()
            .await
            .expect("the result from a new session");
        assert_eq!(found.loaves, 3);

        // A long task, cancelled.
        let slow = again
            .call_tool_as_task("slow", args(json!({"ms": 600_000})))
            .await
            .expect("starts slow");
        assert!(slow.id().is_some());
        slow.cancel().await.expect("tasks/cancel");
        let status = slow.status().await.expect("tasks/get");
        assert_eq!(status.state, TaskState::Cancelled, "{status:?}");
        let err = slow
            .wait()
            .await
            .expect_err("a cancelled task has no result");
        assert!(matches!(err, Error::Protocol { .. }), "{err}");

        // A tool without tasks: the handle holds the plain answer.
        let hello = again
            .call_tool_as_task("hello", args(json!({"name": "sdk"})))
            .await
            .expect("calls hello");
        assert_eq!(hello.id(), None);
        let text = hello.wait().await.expect("hello's result");
        assert_eq!(text.texts().collect::<Vec<_>>(), ["hello sdk"]);
        // And a plain call of a task-only tool is refused (as a tool error by this SDK).
        let plain = again.call_tool("bake", args(json!({"loaves": 1}))).await;
        assert!(plain.as_ref().map_or(true, |r| r.is_error()), "{plain:?}");
    });
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn the_typescript_sdk_client_runs_tasks_on_our_server() {
    let host = Host::start();
    let out = Command::new(node())
        .arg(interop().join("ts_task_client.mjs"))
        .arg(&host.url)
        .output()
        .expect("runs node");
    assert!(
        out.status.success(),
        "the SDK client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    assert_eq!(report["protocol"], "2025-11-25", "{report}");
    assert_eq!(
        report["taskSupport"],
        json!({"slow_compute": "optional", "failing_job": "required"})
    );
    let slow = &report["slow"];
    assert_eq!(slow["taskId"].as_str().map(str::len), Some(32), "{report}");
    assert_eq!(
        slow["statuses"].as_array().and_then(|s| s.last()),
        Some(&json!("completed"))
    );
    assert_eq!(slow["text"], "computed x in 1 s", "{report}");
    assert_eq!(
        report["failing"],
        json!({"status": "failed", "isError": true})
    );
    assert_eq!(report["cancelled"], "cancelled");
    assert_eq!(report["listed"], 3, "this host made three tasks: {report}");
}
