//! Tasks on the server, in both eras: a task-capable tool answered at once with a task that
//! the game finishes frames later, read with `tasks/get` (2026-07-28: the outcome inlined) or
//! `tasks/result` (legacy: waits for it), listed, cancelled (the game sees the call
//! abandoned), kept for its ttl, owned by the credential that made it, and capped.
#![cfg(feature = "server")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use mcp_bindgen::server::{
    Call, CallHandler, ClientRequest, Handler, McpTool, Registry, ServerBuilder, ToolError,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Default)]
struct Game {
    frame: u64,
    running: Vec<(u64, Call<Stepped>)>,
    /// Calls waiting for the player's answer, asked through their task.
    confirming: Vec<(ClientRequest, Call<String>)>,
    /// Calls the game dropped because nobody waits for them any more.
    abandoned: Arc<AtomicUsize>,
}

impl Game {
    fn update(&mut self) {
        self.frame += 1;
        let frame = self.frame;
        let abandoned = self.abandoned.clone();
        self.running.retain(|(_, call)| {
            let gone = call.is_abandoned();
            if gone {
                abandoned.fetch_add(1, Ordering::Relaxed);
            }
            !gone
        });
        for (_, call) in self.running.extract_if(.., |(until, _)| *until <= frame) {
            call.complete(Ok(Stepped { frame }));
        }
        for (until, call) in &self.running {
            if call.wants_progress() {
                call.progress(frame as f64, Some(*until as f64), None);
            }
        }
        let mut i = 0;
        while i < self.confirming.len() {
            match self.confirming[i].0.try_response() {
                None => i += 1,
                Some(answer) => {
                    let (_, call) = self.confirming.swap_remove(i);
                    call.complete(answer.map(|a| format!("the player answered {}", a["content"])));
                }
            }
        }
    }
}

/// Resets the level once the player confirms (asks through its task)
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct ResetLevel {}

impl CallHandler<Game> for ResetLevel {
    type Output = String;
    fn start(self, game: &mut Game, call: Call<String>) {
        let asked = json!({"message": "Reset the level?", "requestedSchema": {"type": "object"}});
        match call.request("elicitation/create", asked) {
            Ok(request) => game.confirming.push((request, call)),
            Err(e) => {
                call.complete(Err(e));
            }
        }
    }
}

/// Steps the world `frames` frames
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct RunFrames {
    frames: u64,
}

#[derive(Serialize, JsonSchema)]
struct Stepped {
    frame: u64,
}

impl CallHandler<Game> for RunFrames {
    type Output = Stepped;
    fn start(self, game: &mut Game, call: Call<Stepped>) {
        game.running.push((game.frame + self.frames, call));
    }
}

/// Rebuilds the navigation mesh (always a task)
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct Rebuild {}

impl Handler<Game> for Rebuild {
    type Output = String;
    fn call(self, _: &mut Game) -> Result<String, ToolError> {
        Ok("rebuilt".into())
    }
}

/// Counts the frames so far (never a task)
#[derive(McpTool, Deserialize, JsonSchema)]
struct FrameCount {}

impl Handler<Game> for FrameCount {
    type Output = u64;
    fn call(self, game: &mut Game) -> Result<u64, ToolError> {
        Ok(game.frame)
    }
}

fn registry() -> Registry<Game> {
    let mut r = Registry::new("tasks-test", "1.0.0").with_tasks(Duration::from_secs(60), 3);
    r.register_call::<RunFrames>(Duration::from_secs(600))
        .register_call::<ResetLevel>(Duration::from_secs(600))
        .register::<Rebuild>()
        .register::<FrameCount>();
    r
}

const TASKS: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

/// A request; `modern` adds the 2026-07-28 `_meta` with these client capabilities.
fn request(modern: Option<&str>, method: &str, mut params: Value) -> String {
    if let Some(capabilities) = modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Value>(capabilities).unwrap(),
        });
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string()
}

/// The game on its own thread, served over HTTP, one frame a millisecond.
struct Running {
    port: u16,
    stop: Arc<AtomicBool>,
    abandoned: Arc<AtomicUsize>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    /// A server without tokens: its one client owns every task.
    fn start() -> Self {
        Running::serving(ServerBuilder::new(), registry)
    }

    /// A server with a token for each of alice, mallory and bob: three owners.
    fn with_owners() -> Self {
        let builder = ServerBuilder::new()
            .bearer_token("alice")
            .bearer_token("mallory")
            .bearer_token("bob");
        Running::serving(builder, registry)
    }

    fn serving(builder: ServerBuilder, registry: fn() -> Registry<Game>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let abandoned = Arc::new(AtomicUsize::new(0));
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (flag, count) = (stop.clone(), abandoned.clone());
        let thread = thread::spawn(move || {
            let mut server = builder.port(0).listen(registry()).expect("listens");
            port_tx.send(server.port()).expect("port");
            let mut game = Game {
                abandoned: count,
                ..Game::default()
            };
            while !flag.load(Ordering::Relaxed) {
                game.update();
                server.poll(&mut game);
                thread::sleep(Duration::from_millis(1));
            }
        });
        Running {
            port: port_rx.recv().expect("port"),
            stop,
            abandoned,
            thread: Some(thread),
        }
    }

    /// POSTs `body` with `Authorization: <credential>` (when given); the JSON answer.
    fn post(&self, body: &str, credential: Option<&str>) -> Value {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        let mut headers =
            credential.map_or_else(String::new, |c| format!("Authorization: {c}\r\n"));
        // A 2026-07-28 request mirrors its version, method and name in headers.
        let message: Value = serde_json::from_str(body).expect("JSON");
        let params = &message["params"];
        if let Some(version) = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
            headers += &format!(
                "MCP-Protocol-Version: {version}\r\nMcp-Method: {}\r\n",
                message["method"].as_str().unwrap_or_default()
            );
            if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
                headers += &format!("Mcp-Name: {name}\r\n");
            }
        }
        let port = self.port;
        let raw = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(raw.as_bytes()).expect("writes");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("reads");
        let (_, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn a_legacy_task_runs_over_frames_and_tasks_result_waits_for_it() {
    let game = Running::start();
    let listed = game.post(&request(None, "tools/list", json!({})), None);
    let tools = listed["result"]["tools"].as_array().unwrap();
    let support = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!(support("run_frames"), "optional");
    assert_eq!(support("rebuild"), "required");
    assert_eq!(support("frame_count"), Value::Null);
    let init = game.post(
        &request(None, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})),
        None,
    );
    assert_eq!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({})
    );

    let created = game.post(
        &request(
            None,
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 200}, "task": {"ttl": 30000}}),
        ),
        None,
    );
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 30000, "the client's shorter ttl is kept");
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 random bits");

    let got = game.post(&request(None, "tasks/get", json!({"taskId": id})), None);
    assert_eq!(got["result"]["status"], "working", "{got}");
    // Waits for the game to finish the call, then answers with its result.
    let result = game.post(&request(None, "tasks/result", json!({"taskId": id})), None);
    assert!(
        result["result"]["structuredContent"]["frame"]
            .as_u64()
            .unwrap()
            >= 200,
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let got = game.post(&request(None, "tasks/get", json!({"taskId": id})), None);
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let listed = game.post(&request(None, "tasks/list", json!({})), None);
    assert_eq!(
        listed["result"]["tasks"][0]["taskId"],
        id.as_str(),
        "{listed}"
    );
    // A finished task cannot be cancelled in the legacy era.
    let cancelled = game.post(&request(None, "tasks/cancel", json!({"taskId": id})), None);
    assert_eq!(cancelled["error"]["code"], -32602, "{cancelled}");
    // The plain call of an optional tool still answers at once.
    let plain = game.post(
        &request(
            None,
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 1}}),
        ),
        None,
    );
    assert!(
        plain["result"]["structuredContent"]["frame"].is_u64(),
        "{plain}"
    );
}

#[test]
fn cancelling_a_task_abandons_the_games_call_and_tasks_belong_to_their_credential() {
    let game = Running::with_owners();
    let alice = Some("Bearer alice");
    let created = game.post(
        &request(
            Some(TASKS),
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 1000000}}),
        ),
        alice,
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["status"], "working");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();

    // Another credential cannot see it, list it or cancel it; none is not let in.
    let anonymous = game.post(
        &request(Some(TASKS), "tasks/get", json!({"taskId": id})),
        None,
    );
    assert_eq!(anonymous["error"]["code"], -32600, "401: {anonymous}");
    let mallory = Some("Bearer mallory");
    let got = game.post(
        &request(Some(TASKS), "tasks/get", json!({"taskId": id})),
        mallory,
    );
    assert_eq!(got["error"]["code"], -32602, "{got}");
    let cancel = game.post(
        &request(Some(TASKS), "tasks/cancel", json!({"taskId": id})),
        mallory,
    );
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");
    let listed = game.post(&request(None, "tasks/list", json!({})), mallory);
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    let got = game.post(
        &request(Some(TASKS), "tasks/get", json!({"taskId": id})),
        alice,
    );
    assert_eq!(got["result"]["status"], "working", "{got}");
    assert_eq!(game.abandoned.load(Ordering::Relaxed), 0);

    let ack = game.post(
        &request(Some(TASKS), "tasks/cancel", json!({"taskId": id})),
        alice,
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let got = game.post(
        &request(Some(TASKS), "tasks/get", json!({"taskId": id})),
        alice,
    );
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(got["result"].get("result").is_none());
    // The game sees the call abandoned on a later frame and drops its work.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while game.abandoned.load(Ordering::Relaxed) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the game never saw the cancel"
        );
        thread::sleep(Duration::from_millis(5));
    }
    // The extension's methods need the extension.
    let refused = game.post(
        &request(Some("{}"), "tasks/get", json!({"taskId": id})),
        alice,
    );
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}

/// A legacy task's progress reaches the `tasks/result` request waiting on it, as an event
/// stream: each `notifications/progress` with the call's `progressToken` and the related-task
/// `_meta`, then the result.
#[test]
fn a_legacy_tasks_progress_flows_to_the_tasks_result_that_waits_for_it() {
    let game = Running::start();
    let created = game.post(
        &request(
            None,
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 200}, "task": {},
                   "_meta": {"progressToken": "p-1"}}),
        ),
        None,
    );
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let body = request(None, "tasks/result", json!({ "taskId": id }));
    let mut tcp = TcpStream::connect(("127.0.0.1", game.port)).expect("connects");
    tcp.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(raw.as_bytes()).expect("writes");
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).expect("reads");
    assert!(answer.contains("text/event-stream"), "{answer}");
    let events: Vec<Value> = answer
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect();
    let progress: Vec<&Value> = events
        .iter()
        .filter(|e| e["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress: {answer}");
    for note in &progress {
        assert_eq!(note["params"]["progressToken"], "p-1", "{note}");
        assert_eq!(
            note["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{note}"
        );
    }
    let last = events.last().expect("the result");
    assert!(
        last["result"]["structuredContent"]["frame"]
            .as_u64()
            .unwrap()
            >= 200,
        "{last}"
    );
    // Without an event stream, tasks/result still answers plain JSON (no progress).
    let plain = game.post(
        &request(None, "tasks/result", json!({ "taskId": id })),
        None,
    );
    assert!(
        plain["result"]["structuredContent"]["frame"].is_u64(),
        "{plain}"
    );
}

/// A 2026-07-28 `subscriptions/listen` stream over raw HTTP, read as it comes.
struct Listen {
    tcp: TcpStream,
    seen: String,
}

impl Listen {
    /// Sends the listen request with `filter`, as `credential`, declaring the tasks extension
    /// when `tasks`; returns the stream once its headers came.
    fn open(port: u16, filter: Value, credential: &str, tasks: bool) -> Listen {
        let capabilities = if tasks { TASKS } else { "{}" };
        let body = request(
            Some(capabilities),
            "subscriptions/listen",
            json!({ "notifications": filter }),
        );
        let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        tcp.set_read_timeout(Some(Duration::from_millis(50)))
            .expect("timeout");
        let raw = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: subscriptions/listen\r\nAuthorization: {credential}\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        tcp.write_all(raw.as_bytes()).expect("writes");
        let mut listen = Listen {
            tcp,
            seen: String::new(),
        };
        listen.wait_for("\r\n\r\n");
        listen
    }

    /// Reads until `needle` appears (at most 60 s: a bound for a broken server).
    fn wait_for(&mut self, needle: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !self.seen.contains(needle) {
            assert!(
                std::time::Instant::now() < deadline,
                "{needle:?} never came; the stream so far: {}",
                self.seen
            );
            self.read_some();
        }
    }

    fn read_some(&mut self) {
        let mut buf = [0u8; 4096];
        if let Ok(n) = self.tcp.read(&mut buf) {
            self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }

    /// The `notifications/tasks` events seen so far, parsed.
    fn task_events(&self) -> Vec<Value> {
        self.seen
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .filter(|event| event["method"] == "notifications/tasks")
            .collect()
    }
}

/// The 2026-07-28 tasks extension's `notifications/tasks`: a listen stream that names a task
/// (`taskIds`) hears each change of its status, the outcome inlined as `tasks/get` gives it;
/// a stream of another credential naming the same id hears nothing; `taskIds` without the
/// extension is `-32021`.
#[test]
fn a_listen_stream_hears_the_status_of_the_tasks_it_names() {
    let game = Running::with_owners();
    let alice = Some("Bearer alice");
    let modern = |method: &str, params: Value| request(Some(TASKS), method, params);
    let created = game.post(
        &modern(
            "tools/call",
            json!({"name": "reset_level", "arguments": {}}),
        ),
        alice,
    );
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();

    let mut listening = Listen::open(game.port, json!({ "taskIds": [id] }), "Bearer alice", true);
    listening.wait_for("notifications/subscriptions/acknowledged");
    assert!(
        listening.seen.contains(&format!(r#""taskIds":["{id}"]"#)),
        "{}",
        listening.seen
    );
    // Mallory names alice's task, and a task of her own: hearing of her own task proves her
    // stream live, so that hearing nothing of alice's means something.
    let own = game.post(
        &modern(
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 10_000_000}}),
        ),
        Some("Bearer mallory"),
    );
    let own = own["result"]["taskId"].as_str().expect("a task").to_owned();
    let mut snooping = Listen::open(
        game.port,
        json!({ "taskIds": [id, own] }),
        "Bearer mallory",
        true,
    );
    snooping.wait_for("notifications/subscriptions/acknowledged");

    // The task asks the player; once answered, it completes, and the stream hears of it.
    let asked = loop {
        let got = game.post(&modern("tasks/get", json!({ "taskId": id })), alice);
        if got["result"]["status"] == "input_required" {
            break got;
        }
    };
    let key = asked["result"]["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("a request");
    let answers = json!({ key: {"action": "accept", "content": {"ok": true}} });
    game.post(
        &modern(
            "tasks/update",
            json!({"taskId": id, "inputResponses": answers}),
        ),
        alice,
    );
    listening.wait_for(r#""status":"completed""#);
    let events = listening.task_events();
    let done = events.last().expect("a task event");
    assert_eq!(done["params"]["taskId"], id.as_str());
    assert_eq!(
        done["params"]["result"]["structuredContent"]["result"],
        r#"the player answered {"ok":true}"#,
        "{done}"
    );
    assert_eq!(
        done["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert!(done["params"].get("resultType").is_none(), "{done}");
    assert!(
        events.iter().all(|e| e["params"]["taskId"] == id.as_str()),
        "{events:?}"
    );
    // Mallory's own task changes after alice's completed: once her stream has that, it has
    // everything announced before, and no word of alice's task is among it.
    game.post(
        &modern("tasks/cancel", json!({ "taskId": own })),
        Some("Bearer mallory"),
    );
    snooping.wait_for(r#""status":"cancelled""#);
    let heard = snooping.task_events();
    assert!(
        heard.iter().any(|e| e["params"]["taskId"] == own.as_str()),
        "{}",
        snooping.seen
    );
    assert!(
        heard.iter().all(|e| e["params"]["taskId"] != id.as_str()),
        "mallory heard of alice's task: {}",
        snooping.seen
    );

    // A cancel is a change too.
    let long = game.post(
        &modern(
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 10_000_000}}),
        ),
        alice,
    );
    let long = long["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let mut watching = Listen::open(
        game.port,
        json!({ "taskIds": [long] }),
        "Bearer alice",
        true,
    );
    watching.wait_for("notifications/subscriptions/acknowledged");
    game.post(&modern("tasks/cancel", json!({ "taskId": long })), alice);
    watching.wait_for(r#""status":"cancelled""#);

    // Naming tasks needs the extension.
    let mut refused = Listen::open(
        game.port,
        json!({ "taskIds": [long] }),
        "Bearer alice",
        false,
    );
    refused.wait_for("-32021");
    assert!(refused.seen.starts_with("HTTP/1.1 400"), "{}", refused.seen);
}

#[test]
fn task_support_decides_who_may_call_how() {
    let mut r = registry();
    let mut game = Game::default();
    let mut ask = |text: String| -> Value {
        serde_json::from_str(&r.dispatch(&mut game, &text).expect("a reply")).unwrap()
    };
    // A task-only tool, called plainly.
    let legacy = ask(request(None, "tools/call", json!({"name": "rebuild"})));
    assert_eq!(legacy["error"]["code"], -32601, "{legacy}");
    let modern = ask(request(
        Some("{}"),
        "tools/call",
        json!({"name": "rebuild"}),
    ));
    assert_eq!(modern["error"]["code"], -32021, "{modern}");
    assert_eq!(
        modern["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    // As a task, a handler that answers at once makes a finished task.
    let created = ask(request(
        Some(TASKS),
        "tools/call",
        json!({"name": "rebuild"}),
    ));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].clone();
    let got = ask(request(Some(TASKS), "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(
        got["result"]["result"]["structuredContent"]["result"],
        "rebuilt"
    );
    assert!(got["result"]["result"].get("resultType").is_none());
    // A tool without task support: a legacy `task` is refused, the modern extension ignored.
    let legacy = ask(request(
        None,
        "tools/call",
        json!({"name": "frame_count", "task": {}}),
    ));
    assert_eq!(legacy["error"]["code"], -32601, "{legacy}");
    let modern = ask(request(
        Some(TASKS),
        "tools/call",
        json!({"name": "frame_count"}),
    ));
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    // Removed in 2026-07-28.
    for method in ["tasks/result", "tasks/list"] {
        let gone = ask(request(Some(TASKS), method, json!({"taskId": id})));
        assert_eq!(gone["error"]["code"], -32601, "{method}: {gone}");
    }
    // Bad params are -32602 naming what was wrong.
    for (method, params, says) in [
        ("tasks/get", json!({"taskId": 7}), "taskId must be a string"),
        ("tasks/get", json!({}), "taskId must be a string"),
        ("tasks/cancel", json!({"taskId": "nope"}), "no task nope"),
        (
            "tasks/update",
            json!({"taskId": id}),
            "needs inputResponses",
        ),
        (
            "tasks/update",
            json!({"taskId": id, "inputResponses": [1]}),
            "needs inputResponses",
        ),
    ] {
        let refused = ask(request(Some(TASKS), method, params));
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{method}: {message}");
    }
    // Answers to keys the task never asked are acknowledged and ignored.
    let ack = ask(request(
        Some(TASKS),
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"unknown": {}}}),
    ));
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    // Legacy tasks/list pages nothing: a cursor it did not give is refused.
    let listed = ask(request(None, "tasks/list", json!({"cursor": "x"})));
    assert_eq!(listed["error"]["code"], -32602, "{listed}");
}

#[test]
fn live_tasks_are_capped_and_finished_ones_are_forgotten_after_their_ttl() {
    let mut r = Registry::new("cap", "1").with_tasks(Duration::from_secs(1), 2);
    r.register_call::<RunFrames>(Duration::from_secs(600))
        .register::<Rebuild>();
    let mut game = Game::default();
    let mut ask = |text: String| -> Value {
        serde_json::from_str(&r.dispatch(&mut game, &text).expect("a reply")).unwrap()
    };
    let run = || {
        request(
            Some(TASKS),
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 10}}),
        )
    };
    let first = ask(run());
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    assert_eq!(first["result"]["ttlMs"], 1000);
    assert_eq!(ask(run())["result"]["resultType"], "task");
    let third = ask(run());
    assert_eq!(third["result"]["isError"], true, "{third}");
    assert!(
        third["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("too_many_tasks"),
        "{third}"
    );
    thread::sleep(Duration::from_millis(1100));
    // Past its ttl a task is forgotten (its call abandoned), which makes room again.
    let id = first["result"]["taskId"].clone();
    let gone = ask(request(Some(TASKS), "tasks/get", json!({"taskId": id})));
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert_eq!(ask(run())["result"]["resultType"], "task");
    // Finished tasks do not count against the cap.
    for _ in 0..3 {
        let rebuilt = ask(request(
            Some(TASKS),
            "tools/call",
            json!({"name": "rebuild"}),
        ));
        assert_eq!(rebuilt["result"]["status"], "completed", "{rebuilt}");
    }
}

/// The client's side: a call made as a task, awaited through a handle that survives its
/// client, cancelled, and invisible to another credential, in both eras.
#[cfg(feature = "client")]
mod client {
    use mcp_bindgen::TaskState;
    use mcp_bindgen::client::Protocol;
    use mcp_bindgen::{Error, HttpClient};
    use serde_json::{Map, Value, json};

    use super::{Ordering, Running};

    async fn connect(game: &Running, protocol: &Protocol, token: &str) -> HttpClient {
        HttpClient::builder(format!("http://127.0.0.1:{}/mcp", game.port))
            .protocol(protocol.clone())
            .bearer_token(token)
            .connect()
            .await
            .expect("connects")
    }

    fn frames(n: u64) -> Map<String, Value> {
        json!({ "frames": n }).as_object().unwrap().clone()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_outlives_its_client_and_is_awaited_typed_after_reconnecting() {
        for protocol in [Protocol::Modern, Protocol::Legacy] {
            let game = Running::with_owners();
            let client = connect(&game, &protocol, "alice").await;
            let handle = client
                .call_tool_as_task("run_frames", frames(600))
                .await
                .expect("starts");
            let id = handle.id().expect("a task").to_owned();
            let status = handle.status().await.expect("tasks/get");
            assert_eq!(status.state, TaskState::Working, "{protocol:?}");
            assert!(status.poll_interval.is_some());
            drop(handle);
            drop(client);

            // Another credential does not find it.
            let mallory = connect(&game, &protocol, "mallory").await;
            let err = mallory.task("run_frames", &id).status().await.unwrap_err();
            assert!(
                matches!(err, Error::Protocol { code: -32602, .. }),
                "{protocol:?}: {err}"
            );

            let again = connect(&game, &protocol, "alice").await;
            #[derive(serde::Deserialize)]
            struct Stepped {
                frame: u64,
            }
            let stepped: Stepped = again
                .task("run_frames", &id)
                .typed()
                .wait()
                .await
                .expect("the task's result");
            assert!(stepped.frame >= 600, "{protocol:?}: {}", stepped.frame);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_asks_its_client_and_resumes_with_the_answer() {
        let game = Running::start();
        let client = connect(&game, &Protocol::Modern, "alice").await;
        let handle = client
            .call_tool_as_task("reset_level", Map::new())
            .await
            .expect("starts");
        let mut status = handle.status().await.expect("tasks/get");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while status.state != TaskState::InputRequired {
            assert!(std::time::Instant::now() < deadline, "{status:?}");
            status = handle.status().await.expect("tasks/get");
        }
        let (key, asked) = status.input_requests.iter().next().expect("one request");
        assert_eq!(asked["method"], "elicitation/create");
        assert_eq!(asked["params"]["message"], "Reset the level?");
        let answers = json!({ key: {"action": "accept", "content": {"ok": true}} });
        handle
            .respond(answers.as_object().unwrap().clone())
            .await
            .expect("tasks/update");
        // A string output travels wrapped, as `{"result": ...}`.
        #[derive(serde::Deserialize)]
        struct Wrapped {
            result: String,
        }
        let answer: Wrapped = handle.typed().wait().await.expect("the result");
        assert_eq!(answer.result, r#"the player answered {"ok":true}"#);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelling_through_the_handle_stops_the_games_work() {
        for protocol in [Protocol::Modern, Protocol::Legacy] {
            let game = Running::with_owners();
            let client = connect(&game, &protocol, "alice").await;
            let handle = client
                .call_tool_as_task("run_frames", frames(10_000_000))
                .await
                .expect("starts");
            handle.cancel().await.expect("cancels");
            assert_eq!(
                handle.status().await.expect("tasks/get").state,
                TaskState::Cancelled
            );
            let err = handle.wait().await.unwrap_err();
            assert!(
                matches!(err, Error::Protocol { code, .. } if code == -32800 || code == -32602),
                "{protocol:?}: {err}"
            );
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while game.abandoned.load(Ordering::Relaxed) == 0 {
                assert!(std::time::Instant::now() < deadline, "never abandoned");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            // A tool without task support answers at once: the handle holds the result.
            let plain = client
                .call_tool_as_task("frame_count", Map::new())
                .await
                .expect("calls");
            assert_eq!(plain.id(), None, "{protocol:?}");
            assert!(
                plain
                    .wait()
                    .await
                    .expect("a result")
                    .structured_content
                    .is_some()
            );
        }
    }
}

/// Both caps over HTTP: running tasks per owner (a bearer token of the server's), and tasks
/// kept in all, finished ones forgotten oldest first to make room and a new task refused
/// when every task kept is running. A header that is not one of the tokens is no new owner:
/// it is not let in.
#[test]
fn tasks_are_capped_per_owner_and_in_all_over_http() {
    fn capped() -> Registry<Game> {
        let mut r = Registry::new("caps", "1")
            .with_tasks(Duration::from_secs(60), 1)
            .with_tasks_kept(3);
        r.register_call::<RunFrames>(Duration::from_secs(600))
            .register::<Rebuild>();
        r
    }
    let builder = ["alice", "bob", "mallory", "carol"]
        .into_iter()
        .fold(ServerBuilder::new(), |b, token| b.bearer_token(token));
    let game = Running::serving(builder, capped);
    let call = |tool: &str, who: &str| {
        let arguments = if tool == "run_frames" {
            json!({"frames": 10_000_000})
        } else {
            json!({})
        };
        game.post(
            &request(
                Some(TASKS),
                "tools/call",
                json!({"name": tool, "arguments": arguments}),
            ),
            Some(&format!("Bearer {who}")),
        )
    };
    let task = |answer: Value| -> String {
        answer["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task: {answer}"))
            .to_owned()
    };
    let refused = |answer: &Value, why: &str| {
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("too_many_tasks") && text.contains(why),
            "{text}"
        );
    };
    let kept = |id: &str, who: &str| {
        let got = game.post(
            &request(Some(TASKS), "tasks/get", json!({ "taskId": id })),
            Some(&format!("Bearer {who}")),
        );
        got.get("result").is_some()
    };

    let running = task(call("run_frames", "alice"));
    refused(&call("run_frames", "alice"), "too many tasks running (1)");
    // Varying the header makes no new owner: it is refused at the door.
    let varied = call("run_frames", "alice-2");
    assert_eq!(varied["error"]["code"], -32600, "401: {varied}");
    // Another owner has a cap of its own.
    let first = task(call("rebuild", "bob"));
    let second = task(call("rebuild", "bob"));
    // Three kept: the next forgets the oldest finished one.
    let third = task(call("rebuild", "bob"));
    assert!(
        !kept(&first, "bob"),
        "the oldest finished task is forgotten"
    );
    assert!(kept(&second, "bob") && kept(&third, "bob"));
    assert!(kept(&running, "alice"), "a running task is never forgotten");
    let bobs = task(call("run_frames", "bob"));
    let mallorys = task(call("run_frames", "mallory"));
    assert!(!kept(&second, "bob") && !kept(&third, "bob"));
    // Every task kept is running: no room for carol's.
    refused(
        &call("rebuild", "carol"),
        "keeps 3 tasks and all are running",
    );
    for (id, who) in [(&running, "alice"), (&bobs, "bob"), (&mallorys, "mallory")] {
        assert!(kept(id, who), "{who}'s running task");
    }
}
