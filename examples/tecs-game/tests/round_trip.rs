//! The round trip: the example game runs its frame loop on an ephemeral port, and the client
//! that `regenerate` typed from the game's own capture drives every tool over loopback HTTP.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use mcp_bindgen::server::Server;
use mcp_bindgen::{Error, HttpClient};
use mcp_bindgen_example_tecs::{Game, capture_text, registry};
use mcp_bindings::tecs::{Client, types};
use serde_json::{Map, json};

struct Running {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    /// The game's 60 Hz loop, polling once per frame, on its own thread.
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = thread::spawn(move || {
            let mut server = Server::listen(registry(), 0).expect("listens");
            tx.send(server.port()).expect("port");
            let mut game = Game::new();
            while !flag.load(Ordering::Relaxed) {
                game.frame(&mut server);
                thread::sleep(Duration::from_millis(16));
            }
        });
        Running {
            port: rx.recv().expect("port"),
            stop,
            thread: Some(thread),
        }
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

/// The checked-in capture is the game's tools/list as it is now, byte for byte (refresh with
/// `cargo run -p mcp-bindgen-example-tecs -- --capture generated/captures/tecs.tools.json`,
/// then `mcp-bindgen regenerate`). The text, not only the value: the file must not change
/// with the serde_json features of the build that refreshes it.
#[test]
fn checked_in_capture_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../generated/captures/tecs.tools.json"
    );
    let checked_in = std::fs::read_to_string(path).expect("capture");
    assert_eq!(
        checked_in,
        capture_text(),
        "refresh the capture: see this test's doc comment"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_through_the_generated_client_over_http() {
    let game = Running::start();
    let http = HttpClient::connect(format!("http://127.0.0.1:{}/mcp", game.port))
        .await
        .expect("connects");
    // The game serves both eras; the client tries the modern one first.
    assert_eq!(http.protocol_version().as_deref(), Some("2026-07-28"));
    assert_eq!(http.server_info()["name"], "tecs-game");
    let client = Client::new(http);

    let info = client.components_info().await.expect("components_info");
    let names: Vec<&str> = info.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Transform2D", "Velocity", "Health", "Label"]);

    assert_eq!(client.placed_count().await.expect("placed_count").count, 4);

    // An answer that spans frames: the game answers once 5 more frames have run.
    let before = client.ping().await.expect("ping").frame;
    let run = client
        .run_frames(&types::RunFramesArgs { frames: 5 })
        .await
        .expect("run_frames");
    assert_eq!(run.frames, 5);
    assert!(run.frame >= before + 5, "{} then {}", before, run.frame);
    assert_eq!(run.entities, 5);

    let found = client
        .query(&types::QueryArgs {
            include: vec!["Transform2D".into(), "Velocity".into()],
            limit: None,
        })
        .await
        .expect("query");
    assert_eq!(found.total, 3);
    let first = found.entities[0].id;
    let player = client
        .query(&types::QueryArgs {
            include: vec!["Health".into()],
            limit: Some(1),
        })
        .await
        .expect("query")
        .entities[0]
        .id;

    let detail = client
        .info(&types::InfoArgs { entity: player })
        .await
        .expect("info");
    assert_eq!(detail.components["Label"], json!({"text": "player"}));
    assert_eq!(detail.components["Health"], json!({"hp": 100, "max": 100}));

    // modify: a partial update; entities without the component are skipped.
    let mut fields = Map::new();
    fields.insert("hp".into(), json!(40));
    let modified = client
        .modify(&types::ModifyArgs {
            component: "Health".into(),
            entities: Some(vec![player, first]),
            fields,
        })
        .await
        .expect("modify");
    assert_eq!(modified.modified, [player]);
    assert_eq!(modified.skipped, [first]);
    let detail = client
        .info(&types::InfoArgs { entity: player })
        .await
        .expect("info");
    assert_eq!(detail.components["Health"], json!({"hp": 40, "max": 100}));
    // An explicit empty list modifies nothing (absent would mean "all").
    let none = client
        .modify(&types::ModifyArgs {
            component: "Health".into(),
            entities: Some(vec![]),
            fields: Map::new(),
        })
        .await
        .expect("modify");
    assert!(none.modified.is_empty());

    // set: a whole value, adding the component when missing.
    let added = client
        .set(&types::SetArgs {
            entity: first,
            component: "Health".into(),
            value: json!({"hp": 5, "max": 10}),
        })
        .await
        .expect("set");
    assert!(added.added);

    let lua = client
        .run_lua(&types::RunLuaArgs {
            code: format!("return {{ n = entity_count(), label = get({player}, 'Label').text }}"),
        })
        .await
        .expect("run_lua");
    assert_eq!(lua.value, json!({"n": 5, "label": "player"}));
    let err = client
        .run_lua(&types::RunLuaArgs {
            code: "return io.open('x')".into(),
        })
        .await
        .expect_err("no io in the sandbox");
    assert!(
        matches!(&err, Error::Tool { code: Some(c), .. } if c == "lua_error"),
        "{err}"
    );
    let err = client
        .run_lua(&types::RunLuaArgs {
            code: "while true do end".into(),
        })
        .await
        .expect_err("budget");
    assert!(err.to_string().contains("instruction budget"), "{err}");

    let pong = client.ping().await.expect("ping");
    assert!(pong.pong);

    let queued = client
        .send_event(&types::SendEventArgs {
            name: "spawn".into(),
            payload: Some(json!({"x": 1, "y": 2})),
        })
        .await
        .expect("send_event");
    assert_eq!(queued.queued, 1);
    // Handled on a later frame.
    for _ in 0..100 {
        if client.placed_count().await.expect("count").count == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(client.placed_count().await.expect("count").count, 5);
    let logs = client
        .get_logs(&types::GetLogsArgs { limit: Some(10) })
        .await
        .expect("logs");
    assert!(
        logs.lines.iter().any(|l| l.contains("spawned")),
        "{:?}",
        logs.lines
    );

    let context = client.context().await.expect("context");
    assert_eq!(context.entities, 6);
    assert_eq!(context.crash, None);

    // Unknown entity: a tool error with a code.
    let err = client
        .info(&types::InfoArgs { entity: 999_999 })
        .await
        .expect_err("no entity");
    assert_eq!(err.code().as_deref(), Some("no_such_entity"));

    // A gameplay panic: crash mode. World tools report the traceback; ping, context,
    // get_logs and send_event still run.
    client
        .send_event(&types::SendEventArgs {
            name: "crash".into(),
            payload: None,
        })
        .await
        .expect("send_event");
    let mut crashed = None;
    for _ in 0..100 {
        let context = client.context().await.expect("context after a crash");
        if context.crash.is_some() {
            crashed = context.crash;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let traceback = crashed.expect("the game crashed");
    let err = client
        .placed_count()
        .await
        .expect_err("world tools report the crash");
    match err {
        Error::Tool { message, code, .. } => {
            assert_eq!(message, traceback);
            assert_eq!(code.as_deref(), Some("crashed"));
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    client.ping().await.expect("ping after a crash");
    client
        .get_logs(&types::GetLogsArgs { limit: None })
        .await
        .expect("logs after a crash");
    client
        .send_event(&types::SendEventArgs {
            name: "noop".into(),
            payload: None,
        })
        .await
        .expect("send_event after a crash");
}

/// A tool appears while the game runs (gameplay registers `arena_census` on the `open_arena`
/// event) and goes again: a connected client hears each change and lists the new tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arena_tool_appears_and_goes_while_clients_listen() {
    let game = Running::start();
    let (tx, mut lists) = tokio::sync::mpsc::unbounded_channel::<Vec<String>>();
    let http = HttpClient::builder(format!("http://127.0.0.1:{}/mcp", game.port))
        .on_tools_changed(move |list| {
            let _ = tx.send(list.names().map(str::to_owned).collect());
        })
        .connect()
        .await
        .expect("connects");
    let client = Client::new(http);
    for (event, served) in [("open_arena", true), ("close_arena", false)] {
        client
            .send_event(&types::SendEventArgs {
                name: event.to_owned(),
                payload: None,
            })
            .await
            .expect("queued");
        let names = tokio::time::timeout(Duration::from_secs(30), lists.recv())
            .await
            .expect("heard within the bound")
            .expect("a list");
        assert_eq!(
            names.contains(&"arena_census".to_owned()),
            served,
            "{event}: {names:?}"
        );
    }
}

/// `run_frames` may run as a task: the generated `run_frames_task` starts one in either era
/// (2026-07-28: the tasks extension; 2025-11-25: the `task` parameter, `tasks/get` and
/// `tasks/result`), a second connection finds it by id and awaits the typed result, and a
/// long one is cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_frames_as_a_typed_task_in_both_eras() {
    use mcp_bindgen::TaskState;
    use mcp_bindgen::client::Protocol;

    let game = Running::start();
    for (protocol, version) in [
        (Protocol::Modern, "2026-07-28"),
        (Protocol::Legacy, "2025-11-25"),
    ] {
        let connect = || {
            HttpClient::builder(format!("http://127.0.0.1:{}/mcp", game.port))
                .protocol(protocol.clone())
                .connect()
        };
        let http = connect().await.expect("connects");
        assert_eq!(http.protocol_version().as_deref(), Some(version));
        let client = Client::new(http);
        let handle = client
            .run_frames_task(&types::RunFramesArgs { frames: 30 })
            .await
            .expect("starts");
        let id = handle.id().expect("the game made a task").to_owned();
        assert_eq!(handle.tool(), "run_frames");
        drop(handle);
        drop(client);

        let again = connect().await.expect("reconnects");
        let run: types::RunFramesOutput = again
            .task("run_frames", &id)
            .typed()
            .wait()
            .await
            .expect("the task's result");
        assert_eq!(run.frames, 30, "{version}");
        assert_eq!(run.entities, 5, "{version}");

        let client = Client::new(again);
        let long = client
            .run_frames_task(&types::RunFramesArgs { frames: 3600 })
            .await
            .expect("starts");
        long.cancel().await.expect("cancels");
        assert_eq!(
            long.status().await.expect("tasks/get").state,
            TaskState::Cancelled,
            "{version}"
        );
        assert!(
            long.wait().await.is_err(),
            "{version}: a cancelled task has no result"
        );
    }
}

/// The game ships a skill that teaches an agent to play it: a client lists it (the generated
/// module names it, from the capture), loads it with its `SKILL.md` verified and reads its
/// reference; every tool the skill names is one the game serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_teaches_agents_to_play_it_with_a_skill() {
    let game = Running::start();
    let client = HttpClient::connect(format!("http://127.0.0.1:{}/mcp", game.port))
        .await
        .expect("connects");
    let list = client.list_skills().await.expect("skills/list");
    let entry = &list.skills[0];
    assert_eq!(entry.uri, mcp_bindings::tecs::skills::PLAY_TECS.uri());
    // Through the generated module's handle: the current entry, checked, then loaded.
    let skill = client
        .load(&mcp_bindings::tecs::skills::PLAY_TECS)
        .await
        .expect("loads, verified");
    assert_eq!(skill.entry(), entry);
    let renamed = mcp_bindgen::SkillRef::new("skill://play-tecs/SKILL.md", "play-old");
    let error = client
        .load(&renamed)
        .await
        .expect_err("not the skill of that name");
    assert!(error.to_string().contains("play-old"), "{error}");
    assert!(skill.body().contains("components_info"));
    let components = skill
        .read_text("references/components.md")
        .await
        .expect("reads, verified");
    assert!(components.contains("Transform2D"));
    let served: Vec<String> = client
        .list_tools()
        .await
        .expect("tools/list")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let named = entry.frontmatter["metadata"]["tools"]
        .as_str()
        .unwrap_or("");
    for tool in named.split_whitespace() {
        assert!(served.iter().any(|s| s == tool), "the skill names {tool}");
    }
    for tool in &served {
        assert!(
            skill.instructions().contains(&format!("`{tool}`")),
            "the skill does not say how to use {tool}"
        );
    }
}

/// An agent subscribed to `entity_destroyed` (by push, typed through the generated client)
/// hears a destroy with the frame it happened in, and only the entities its filter names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_hears_a_destroy_the_frame_it_happens() {
    use mcp_bindgen::events::{EventItem, EventOptions};
    let game = Running::start();
    let http = HttpClient::connect(format!("http://127.0.0.1:{}/mcp", game.port))
        .await
        .expect("connects");
    let client = Client::new(http);
    let crates = types::EntityDestroyedSubscription {
        label_prefix: Some("crate".into()),
    };
    let mut destroyed = client
        .stream_entity_destroyed(&crates, EventOptions::new())
        .await
        .expect("no drift");
    let everyone = client
        .query(&types::QueryArgs {
            include: vec!["Label".into()],
            limit: None,
        })
        .await
        .expect("query");
    let id_of = |label: &str| {
        everyone
            .entities
            .iter()
            .find(|e| e.components["Label"]["text"] == label)
            .map(|e| e.id)
            .expect(label)
    };
    let (player, crate0) = (id_of("player"), id_of("crate-0"));
    // The stream is open once the server has answered its first frame of it: wait for the
    // `active` (the stream's cursor).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while destroyed.cursor().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the stream never opened"
        );
        let _ = tokio::time::timeout(Duration::from_millis(20), destroyed.next()).await;
    }
    for entity in [player, crate0] {
        client
            .send_event(&types::SendEventArgs {
                name: "destroy".into(),
                payload: Some(json!({ "entity": entity })),
            })
            .await
            .expect("send_event");
    }
    let heard = match tokio::time::timeout(Duration::from_secs(10), destroyed.next())
        .await
        .expect("within 10 s")
        .expect("an item")
        .expect("typed")
    {
        EventItem::Event(occurrence) => occurrence.data,
        other => panic!("{other:?}"),
    };
    assert_eq!(heard.entity, crate0, "the player is filtered out");
    assert_eq!(heard.label.as_deref(), Some("crate-0"));
    // The occurrence carries the frame the entity went in, as the game's log has it.
    let logs = client
        .get_logs(&types::GetLogsArgs { limit: Some(50) })
        .await
        .expect("get_logs");
    let line = format!("[frame {}] destroyed {crate0}", heard.frame);
    assert!(logs.lines.contains(&line), "{line} not in {:?}", logs.lines);
    assert!(
        tokio::time::timeout(Duration::from_millis(200), destroyed.next())
            .await
            .is_err(),
        "nothing else: the player's destruction is not a crate's"
    );
}
