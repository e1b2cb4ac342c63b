//! The round trip: the Bevy game runs its frames on a thread with the server on a free port,
//! and the client `regenerate` typed from the game's own capture drives every built-in over
//! loopback HTTP, checking the world changed as asked.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use mcp_bindgen::client::CallOptions;
use mcp_bindgen::{Error, HttpClient, ToolCaller};
use mcp_bindgen_bevy::{McpEndpoint, McpPlugin};
use mcp_bindgen_example_bevy::{capture_text, game};
use mcp_bindings::bevy_game::{Client, types};
use serde_json::{Map, Value, json};

const POSITION: &str = "mcp_bindgen_example_bevy::Position";
const VELOCITY: &str = "mcp_bindgen_example_bevy::Velocity";
const HEALTH: &str = "mcp_bindgen_example_bevy::Health";
const LABEL: &str = "mcp_bindgen_example_bevy::Label";
const SCORE: &str = "mcp_bindgen_example_bevy::Score";
const MOVED: &str = "mcp_bindgen_example_bevy::Moved";

struct Running {
    url: String,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    /// The game at about 60 Hz on its own thread (the binary's loop, without its runner).
    fn start(plugin: McpPlugin) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = thread::spawn(move || {
            let mut app = game(plugin.port(0));
            app.finish();
            app.cleanup();
            let url = app
                .world()
                .get_resource::<McpEndpoint>()
                .map(|e| e.url.clone());
            let _ = tx.send(url);
            while !flag.load(Ordering::Relaxed) {
                app.update();
                thread::sleep(Duration::from_millis(16));
            }
        });
        Running {
            url: rx.recv().ok().flatten().expect("the game's server listens"),
            stop,
            thread: Some(thread),
        }
    }

    async fn client(&self) -> (Client<HttpClient>, HttpClient) {
        let http = HttpClient::connect(&self.url).await.expect("connects");
        (Client::new(http.clone()), http)
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

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn tool_error<T: std::fmt::Debug>(result: Result<T, Error>) -> (String, Option<String>) {
    match result {
        Err(Error::Tool { message, code, .. }) => (message, code),
        other => panic!("expected a tool error, got {other:?}"),
    }
}

/// The entity whose `Label` is `label`.
async fn labelled(client: &Client<HttpClient>, label: &str) -> u64 {
    let page = client
        .query(&types::QueryArgs {
            with: Some(vec![LABEL.into()]),
            ..Default::default()
        })
        .await
        .expect("query");
    page.entities
        .iter()
        .find(|e| e.components[LABEL] == label)
        .map(|e| e.entity)
        .unwrap_or_else(|| panic!("no entity labelled {label}"))
}

async fn get(client: &Client<HttpClient>, entity: u64) -> Map<String, Value> {
    client
        .get(&types::GetArgs {
            entity,
            components: None,
        })
        .await
        .expect("get")
        .components
}

async fn resource(client: &Client<HttpClient>, path: &str) -> Value {
    client
        .resource_get(&types::ResourceGetArgs {
            resource: path.into(),
        })
        .await
        .expect("resource_get")
        .value
}

/// Waits (a few frames at most) until `check` holds.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} never happened");
}

/// The checked-in capture is the game's tools/list as it is now, byte for byte (refresh with
/// `cargo run -p mcp-bindgen-example-bevy -- --capture generated/captures/bevy_game.tools.json`,
/// then `mcp-bindgen regenerate`).
#[test]
fn checked_in_capture_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../generated/captures/bevy_game.tools.json"
    );
    let checked_in = std::fs::read_to_string(path).expect("capture");
    let now = capture_text().expect("the game's server starts");
    assert_eq!(
        checked_in, now,
        "refresh the capture: see this test's doc comment"
    );
    let tools = serde_json::from_str::<Value>(&now).expect("JSON")["tools"].clone();
    for tool in tools.as_array().expect("tools") {
        assert!(tool["inputSchema"].is_object(), "{}", tool["name"]);
        assert!(
            tool["outputSchema"].is_object(),
            "{} has no outputSchema",
            tool["name"]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn world_tools_change_the_world_as_asked() {
    let game = Running::start(McpPlugin::default());
    let (client, http) = game.client().await;
    assert_eq!(http.server_info()["name"], "bevy-game");

    // components_info: the game's types, with their schemas and kinds.
    let info = client
        .components_info(&types::ComponentsInfoArgs {
            filter: Some("mcp_bindgen_example_bevy".into()),
        })
        .await
        .expect("components_info");
    let find = |path: &str| {
        info.types
            .iter()
            .find(|t| t.type_path == path)
            .unwrap_or_else(|| panic!("{path} not listed"))
    };
    assert_eq!(find(POSITION).kinds, ["component"]);
    assert_eq!(find(POSITION).schema["properties"]["x"]["type"], "number");
    assert_eq!(find(SCORE).kinds, ["resource"]);
    assert_eq!(
        find("mcp_bindgen_example_bevy::SpawnWave").kinds,
        ["message"]
    );
    assert_eq!(
        find("mcp_bindgen_example_bevy::Team").schema["enum"],
        json!(["Red", "Blue"])
    );

    // query: with / without, and paging through every match.
    let still = client
        .query(&types::QueryArgs {
            with: Some(vec![POSITION.into(), LABEL.into()]),
            without: Some(vec![VELOCITY.into()]),
            ..Default::default()
        })
        .await
        .expect("query");
    assert_eq!(still.total, 1);
    assert_eq!(still.entities[0].components[LABEL], "tower");
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .query(&types::QueryArgs {
                with: Some(vec![POSITION.into()]),
                limit: Some(1),
                cursor: cursor.clone(),
                ..Default::default()
            })
            .await
            .expect("query page");
        assert_eq!(page.total, 3);
        assert!(page.entities.len() <= 1);
        seen.extend(page.entities.iter().map(|e| e.entity));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 3, "paging visits each entity once");

    // get, insert, modify (one field changes, the others and other components do not).
    let tank = labelled(&client, "tank").await;
    let tower = labelled(&client, "tower").await;
    assert_eq!(
        get(&client, tank).await[HEALTH],
        json!({"current": 40, "max": 50})
    );
    assert!(!get(&client, tower).await.contains_key(HEALTH));
    let inserted = client
        .insert(&types::InsertArgs {
            entity: tower,
            components: map(json!({ HEALTH: {"current": 7, "max": 9} })),
        })
        .await
        .expect("insert");
    assert_eq!(inserted.components[HEALTH], json!({"current": 7, "max": 9}));
    assert_eq!(
        get(&client, tower).await[HEALTH],
        json!({"current": 7, "max": 9})
    );
    let velocity_before = get(&client, tank).await[VELOCITY].clone();
    let modified = client
        .modify(&types::ModifyArgs {
            entity: tank,
            component: HEALTH.into(),
            fields: map(json!({"current": 5})),
        })
        .await
        .expect("modify");
    assert_eq!(
        modified.components[HEALTH],
        json!({"current": 5, "max": 50})
    );
    let tank_now = get(&client, tank).await;
    assert_eq!(tank_now[HEALTH], json!({"current": 5, "max": 50}));
    assert_eq!(tank_now[VELOCITY], velocity_before);
    assert_eq!(tank_now[LABEL], "tank");

    // remove.
    let removed = client
        .remove(&types::RemoveArgs {
            entity: tower,
            components: vec![HEALTH.into(), VELOCITY.into()],
        })
        .await
        .expect("remove");
    assert_eq!(removed.removed, [HEALTH]);
    assert_eq!(removed.absent, [VELOCITY]);
    assert!(!get(&client, tower).await.contains_key(HEALTH));

    // spawn and despawn.
    let spawned = client
        .spawn(&types::SpawnArgs {
            components: Some(map(
                json!({ LABEL: "probe", POSITION: {"x": 1.5, "y": -2.0} }),
            )),
        })
        .await
        .expect("spawn");
    let probe = get(&client, spawned.entity).await;
    assert_eq!(probe[LABEL], "probe");
    assert_eq!(probe[POSITION], json!({"x": 1.5, "y": -2.0}));
    assert_eq!(labelled(&client, "probe").await, spawned.entity);
    client
        .despawn(&types::DespawnArgs {
            entity: spawned.entity,
        })
        .await
        .expect("despawn");
    let (message, code) = tool_error(
        client
            .get(&types::GetArgs {
                entity: spawned.entity,
                components: None,
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("no_such_entity"), "{message}");
    let all = client
        .query(&types::QueryArgs {
            with: Some(vec![POSITION.into()]),
            ..Default::default()
        })
        .await
        .expect("query");
    assert_eq!(all.total, 3);

    // resources, and the game's own tool seeing the same world.
    assert_eq!(
        resource(&client, SCORE).await,
        json!({"points": 0, "waves": 0})
    );
    let set = client
        .resource_set(&types::ResourceSetArgs {
            resource: SCORE.into(),
            value: json!({"points": 42, "waves": 0}),
        })
        .await
        .expect("resource_set");
    assert_eq!(set.value["points"], 42);
    assert_eq!(resource(&client, SCORE).await["points"], 42);
    let board = client.score_board().await.expect("score_board");
    assert_eq!((board.points, board.red, board.blue), (42, 1, 1));

    // send_event: a message the game's system reads next frame.
    let sent = client
        .send_event(&types::SendEventArgs {
            event: "mcp_bindgen_example_bevy::SpawnWave".into(),
            value: json!({"count": 3}),
        })
        .await
        .expect("send_event");
    assert_eq!(sent.kind, "message");
    eventually("the wave spawned", || async {
        let board = client.score_board().await.expect("score_board");
        board.red == 4 && board.waves == 1
    })
    .await;

    // ping and context.
    let first = client.ping().await.expect("ping");
    assert!(first.pong);
    eventually("frames advanced", || async {
        client.ping().await.expect("ping").frame > first.frame
    })
    .await;
    let context = client.context().await.expect("context");
    assert_eq!(context.app, "bevy-game");
    assert_eq!(context.crashed, None);
    assert!(!context.read_only);
    assert_eq!(context.paused, Some(false));

    // get_logs: the server's start is recorded; `since` and `level` filter.
    let logs = client
        .get_logs(&types::GetLogsArgs {
            level: Some(types::GetLogsArgsLevel::Info),
            limit: Some(10_000),
            since: None,
        })
        .await
        .expect("get_logs");
    assert!(
        logs.records.iter().any(|r| r.message.contains(&game.url)
            && r.level == types::GetLogsOutputRecordsItemLevel::Info),
        "{logs:?}"
    );
    let newer = client
        .get_logs(&types::GetLogsArgs {
            level: None,
            limit: None,
            since: Some(logs.last_seq),
        })
        .await
        .expect("get_logs since");
    assert!(newer.records.iter().all(|r| r.seq > logs.last_seq));
    let errors = client
        .get_logs(&types::GetLogsArgs {
            level: Some(types::GetLogsArgsLevel::Error),
            limit: None,
            since: None,
        })
        .await
        .expect("get_logs errors");
    assert!(!errors.records.iter().any(|r| r.message.contains(&game.url)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_step_and_time_scale() {
    let game = Running::start(McpPlugin::default());
    let (client, http) = game.client().await;
    let scout = labelled(&client, "scout").await;

    let paused = client.pause().await.expect("pause");
    assert!(paused.paused && !paused.was_paused);
    // Paused: over many frames, virtual time, the moved-frame count and positions stand still.
    let frame = client.ping().await.expect("ping").frame;
    let moved = resource(&client, MOVED).await;
    let position = get(&client, scout).await[POSITION].clone();
    let elapsed = client.context().await.expect("context").elapsed_secs;
    eventually("ten frames ran", || async {
        client.ping().await.expect("ping").frame >= frame + 10
    })
    .await;
    assert_eq!(resource(&client, MOVED).await, moved);
    assert_eq!(get(&client, scout).await[POSITION], position);
    let context = client.context().await.expect("context");
    assert_eq!(context.elapsed_secs, elapsed);
    assert_eq!(context.paused, Some(true));

    // step 10: answered after exactly ten frames ran with time advancing, with ten progress
    // notifications, and paused again after.
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let options = CallOptions::new().on_progress(move |p| {
        sink.lock().expect("notes").push(p.progress);
    });
    let result = http
        .call_tool_with("step", map(json!({"frames": 10})), &options)
        .await
        .expect("step");
    let stepped: types::StepOutput = mcp_bindgen::decode_result("step", result).expect("decodes");
    assert_eq!(stepped.frames, 10);
    assert_eq!(stepped.last_frame - stepped.first_frame + 1, 10);
    assert!(stepped.paused);
    let progress = notes.lock().expect("notes").clone();
    assert_eq!(progress, (1..=10).map(f64::from).collect::<Vec<_>>());
    let moved_after = resource(&client, MOVED).await;
    assert_eq!(
        moved_after["frames"].as_u64().expect("frames") - moved["frames"].as_u64().expect("frames"),
        10,
        "the movement system saw exactly ten frames with time advancing"
    );
    let moved_position = get(&client, scout).await[POSITION].clone();
    assert_ne!(moved_position, position);
    let context = client.context().await.expect("context");
    assert_eq!(context.paused, Some(true));
    assert!(context.elapsed_secs > elapsed);
    // Still paused: nothing moves after the step.
    let frame = client.ping().await.expect("ping").frame;
    eventually("five frames ran", || async {
        client.ping().await.expect("ping").frame >= frame + 5
    })
    .await;
    assert_eq!(resource(&client, MOVED).await, moved_after);
    assert_eq!(get(&client, scout).await[POSITION], moved_position);

    // step through the generated client too (no progress asked).
    let stepped = client
        .step(&types::StepArgs { frames: 2 })
        .await
        .expect("step");
    assert_eq!(stepped.frames, 2);
    assert_eq!(
        resource(&client, MOVED).await["frames"]
            .as_u64()
            .expect("frames"),
        moved_after["frames"].as_u64().expect("frames") + 2
    );

    // A step that ends without running its frames (cancelled as a task; crash mode and a
    // deadline end it the same way) still pauses again: the game does not run on unpaused.
    let long = http
        .call_tool_as_task("step", map(json!({"frames": 100000})))
        .await
        .expect("starts");
    assert!(long.id().is_some(), "a task");
    long.cancel().await.expect("cancels");
    eventually("the cancelled step is dropped", || async {
        let context: Value = http
            .call_tool_decoded("context", Map::new())
            .await
            .expect("context");
        context["stepping"] == 0
    })
    .await;
    assert_eq!(
        client.context().await.expect("context").paused,
        Some(true),
        "paused again after a step that was cancelled"
    );
    let moved_now = resource(&client, MOVED).await;
    let frame = client.ping().await.expect("ping").frame;
    eventually("five frames ran", || async {
        client.ping().await.expect("ping").frame >= frame + 5
    })
    .await;
    assert_eq!(resource(&client, MOVED).await, moved_now, "nothing moves");

    // time_scale and resume.
    let scaled = client
        .time_scale(&types::TimeScaleArgs { scale: 2.0 })
        .await
        .expect("time_scale");
    assert_eq!(scaled.time_scale, 2.0);
    assert_eq!(
        client.context().await.expect("context").time_scale,
        Some(2.0)
    );
    let resumed = client.resume().await.expect("resume");
    assert!(!resumed.paused && resumed.was_paused);
    eventually("time advanced again", || async {
        resource(&client, MOVED).await != moved_after
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_a_tool_error_naming_it_and_the_game_runs_on() {
    let game = Running::start(McpPlugin::default());
    let (client, _) = game.client().await;
    let tank = labelled(&client, "tank").await;

    let (message, code) = tool_error(
        client
            .get(&types::GetArgs {
                entity: tank,
                components: Some(vec!["game::Nope".into()]),
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("unknown_type"));
    assert!(message.contains("game::Nope"), "{message}");

    let (message, code) = tool_error(
        client
            .insert(&types::InsertArgs {
                entity: tank,
                components: map(json!({ POSITION: {"x": "fast", "y": 0.0} })),
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("bad_value"));
    assert!(message.contains(POSITION), "{message}");

    let (message, code) = tool_error(
        client
            .modify(&types::ModifyArgs {
                entity: tank,
                component: HEALTH.into(),
                fields: map(json!({"current": 1, "armour": 3})),
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("no_such_field"));
    assert!(message.contains("armour"), "{message}");
    // Nothing changed: the good field was not applied either.
    assert_eq!(
        get(&client, tank).await[HEALTH],
        json!({"current": 40, "max": 50})
    );

    let (message, code) = tool_error(
        client
            .despawn(&types::DespawnArgs {
                entity: 123_456_789,
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("no_such_entity"));
    assert!(message.contains("123456789"), "{message}");

    let (message, code) = tool_error(
        client
            .resource_set(&types::ResourceSetArgs {
                resource: POSITION.into(),
                value: json!({"x": 0.0, "y": 0.0}),
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("not_a_resource"));
    assert!(message.contains(POSITION), "{message}");

    let (message, code) = tool_error(
        client
            .send_event(&types::SendEventArgs {
                event: "mcp_bindgen_example_bevy::SpawnWave".into(),
                value: json!({"count": -1}),
            })
            .await,
    );
    assert_eq!(code.as_deref(), Some("bad_value"));
    assert!(message.contains("SpawnWave"), "{message}");

    // The game runs on and is not in crash mode.
    let frame = client.ping().await.expect("ping").frame;
    eventually("frames advanced", || async {
        client.ping().await.expect("ping").frame > frame
    })
    .await;
    assert_eq!(client.context().await.expect("context").crashed, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_system_leaves_crash_access() {
    let game = Running::start(McpPlugin::default());
    let (client, _) = game.client().await;
    client
        .send_event(&types::SendEventArgs {
            event: "mcp_bindgen_example_bevy::Overheat".into(),
            value: json!({"reason": "coolant leak"}),
        })
        .await
        .expect("send_event");
    eventually("crash mode", || async {
        client.context().await.expect("context").crashed.is_some()
    })
    .await;
    let context = client.context().await.expect("context");
    let crashed = context.crashed.expect("crashed");
    assert!(
        crashed.contains("coolant leak") && crashed.contains("reactor"),
        "{crashed}"
    );

    // ping, context, get_logs and the when_crashed tools answer; the game still runs.
    let frame = client.ping().await.expect("ping").frame;
    eventually("frames advanced", || async {
        client.ping().await.expect("ping").frame > frame
    })
    .await;
    let logs = client
        .get_logs(&types::GetLogsArgs {
            level: Some(types::GetLogsArgsLevel::Error),
            limit: None,
            since: None,
        })
        .await
        .expect("get_logs");
    assert!(
        logs.records
            .iter()
            .any(|r| r.message.contains("coolant leak"))
    );
    client
        .score_board()
        .await
        .expect("score_board is when_crashed");
    // The others answer with the stored failure.
    let (message, code) = tool_error(client.spawn(&types::SpawnArgs { components: None }).await);
    assert_eq!(code.as_deref(), Some("crashed"));
    assert!(message.contains("coolant leak"), "{message}");
    let (message, _) = tool_error(client.pause().await);
    assert!(message.contains("coolant leak"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_mode_refuses_writers() {
    let game = Running::start(McpPlugin::default().read_only(true));
    let (client, http) = game.client().await;
    let tools = http.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for reader in [
        "ping",
        "context",
        "get_logs",
        "components_info",
        "query",
        "get",
        "resource_get",
        "score_board",
    ] {
        assert!(names.contains(&reader), "{reader} missing: {names:?}");
    }
    for tool in &tools {
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "{}",
            tool["name"]
        );
    }
    let tank = labelled(&client, "tank").await;
    let refused = client
        .insert(&types::InsertArgs {
            entity: tank,
            components: map(json!({ HEALTH: {"current": 1, "max": 1} })),
        })
        .await;
    assert!(
        refused.is_err(),
        "insert answered in read-only mode: {refused:?}"
    );
    let refused = client.step(&types::StepArgs { frames: 1 }).await;
    assert!(
        refused.is_err(),
        "step answered in read-only mode: {refused:?}"
    );
    assert_eq!(
        get(&client, tank).await[HEALTH],
        json!({"current": 40, "max": 50})
    );
    assert!(client.context().await.expect("context").read_only);
}

/// The schemas `components_info` gives describe the values the other tools return: every
/// component of every entity, and the resources, fit their type's schema; a value of the wrong
/// shape does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn components_info_schemas_describe_the_values() {
    let game = Running::start(McpPlugin::default());
    let (client, _) = game.client().await;
    let info = client
        .components_info(&types::ComponentsInfoArgs { filter: None })
        .await
        .expect("components_info");
    let schema = |path: &str| {
        info.types
            .iter()
            .find(|t| t.type_path == path)
            .map(|t| t.schema.clone())
            .unwrap_or_else(|| panic!("{path} not listed"))
    };
    let everything = client
        .query(&types::QueryArgs::default())
        .await
        .expect("query");
    let mut checked = 0;
    for row in &everything.entities {
        for (path, value) in &row.components {
            if !path.starts_with("mcp_bindgen_example_bevy::") {
                continue;
            }
            mcp_bindgen::__private::validate_value(&schema(path), value)
                .unwrap_or_else(|v| panic!("{path} = {value} does not fit its schema: {v:?}"));
            checked += 1;
        }
    }
    // scout, tank: five components each; tower: two.
    assert_eq!(checked, 12);
    for path in [SCORE, MOVED] {
        let value = resource(&client, path).await;
        mcp_bindgen::__private::validate_value(&schema(path), &value)
            .unwrap_or_else(|v| panic!("{path} = {value} does not fit its schema: {v:?}"));
    }
    for (path, wrong) in [
        (POSITION, json!({"x": "fast", "y": 0.0})),
        (HEALTH, json!({"current": -1, "max": 3})),
        (LABEL, json!(7)),
        ("mcp_bindgen_example_bevy::Team", json!("Green")),
    ] {
        assert!(
            mcp_bindgen::__private::validate_value(&schema(path), &wrong).is_err(),
            "{path}'s schema accepts {wrong}"
        );
    }
}

/// A tool appears while the game runs: a wave of `BOSS_WAVE` units makes the `spawn_waves`
/// system serve `boss_status`, and a connected client hears of it and calls it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_boss_tool_appears_when_a_big_wave_arrives() {
    let game = Running::start(McpPlugin::default());
    let (tx, mut lists) = tokio::sync::mpsc::unbounded_channel::<Vec<String>>();
    let http = HttpClient::builder(&game.url)
        .on_tools_changed(move |list| {
            let _ = tx.send(list.names().map(str::to_owned).collect());
        })
        .connect()
        .await
        .expect("connects");
    let client = Client::new(http.clone());
    client
        .send_event(&types::SendEventArgs {
            event: "mcp_bindgen_example_bevy::SpawnWave".into(),
            value: json!({"count": mcp_bindgen_example_bevy::BOSS_WAVE}),
        })
        .await
        .expect("send_event");
    let names = tokio::time::timeout(Duration::from_secs(30), lists.recv())
        .await
        .expect("heard within the bound")
        .expect("a list");
    assert!(names.contains(&"boss_status".to_owned()), "{names:?}");
    let boss: Value = mcp_bindgen::ToolCaller::call_tool_decoded(&http, "boss_status", Map::new())
        .await
        .expect("the new tool answers");
    assert_eq!(
        boss["escorts"],
        json!(mcp_bindgen_example_bevy::BOSS_WAVE + 1)
    );
}

/// The plugin serves the game's `assets/skills/` (found under the package's folder, as Bevy's
/// asset server finds its assets under `cargo`): a client lists the skill, loads it verified,
/// and every tool it names is served. A skill folder that cannot be served stops the server
/// with its path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plugin_serves_the_games_skills() {
    let running = Running::start(McpPlugin::default().capture_log(None));
    let (_, http) = running.client().await;
    let list = http.list_skills().await.expect("skills/list");
    let entry = &list.skills[0];
    assert_eq!(entry.uri, "skill://play-bevy-game/SKILL.md");
    let skill = http.load_skill(entry).await.expect("loads, verified");
    let types = skill.read_text("references/types.md").await.expect("reads");
    assert!(types.contains("SpawnWave"));
    let served: Vec<String> = http
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

    let bad = tempfile::tempdir().expect("tempdir");
    let folder = bad.path().join("broken");
    std::fs::create_dir(&folder).expect("folder");
    std::fs::write(folder.join("SKILL.md"), "no frontmatter\n").expect("file");
    let mut app = game(
        McpPlugin::default()
            .port(0)
            .capture_log(None)
            .skills(bad.path()),
    );
    app.finish();
    let error = app
        .world()
        .get_resource::<mcp_bindgen_bevy::McpListenError>()
        .expect("the server did not start");
    assert!(error.0.contains("broken/SKILL.md"), "{}", error.0);
    assert!(app.world().get_resource::<McpEndpoint>().is_none());
}

/// A registered Bevy message reaches a subscribed client typed (`wave_arrived`, through the
/// generated client), and so does a component's change on the entity a subscription names
/// (`health_changed`), both by push.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bevy_messages_and_component_changes_reach_a_subscribed_client_typed() {
    use mcp_bindgen::events::{EventItem, EventOptions, EventStream};
    async fn next<P: serde::de::DeserializeOwned + std::fmt::Debug>(
        stream: &mut EventStream<P>,
    ) -> P {
        loop {
            let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .expect("within 10 s")
                .expect("an item")
                .expect("typed");
            if let EventItem::Event(occurrence) = item {
                return occurrence.data;
            }
        }
    }
    async fn opened<P: serde::de::DeserializeOwned>(stream: &mut EventStream<P>) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while stream.cursor().is_none() {
            assert!(std::time::Instant::now() < deadline, "no stream opened");
            let _ = tokio::time::timeout(Duration::from_millis(20), stream.next()).await;
        }
    }
    let game = Running::start(McpPlugin::default());
    let (client, _) = game.client().await;
    let tank = labelled(&client, "tank").await;
    let mut waves = client
        .stream_wave_arrived(EventOptions::new())
        .await
        .expect("no drift");
    let mut tank_health = client
        .stream_health_changed(
            &types::HealthChangedSubscription { entity: Some(tank) },
            EventOptions::new(),
        )
        .await
        .expect("no drift");
    opened(&mut waves).await;
    opened(&mut tank_health).await;
    client
        .send_event(&types::SendEventArgs {
            event: "mcp_bindgen_example_bevy::SpawnWave".into(),
            value: json!({"count": 2}),
        })
        .await
        .expect("send_event");
    assert_eq!(
        next(&mut waves).await,
        types::WaveArrivedEvent { units: 2, wave: 1 }
    );
    client
        .modify(&types::ModifyArgs {
            entity: tank,
            component: HEALTH.into(),
            fields: map(json!({"current": 3})),
        })
        .await
        .expect("modify");
    let changed = next(&mut tank_health).await;
    assert_eq!(changed.entity, tank);
    assert_eq!(
        (changed.value.current, changed.value.max),
        (3, 50),
        "the new value"
    );
}
