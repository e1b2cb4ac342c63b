//! The plugin in a real app over loopback HTTP: tools added with `add_mcp_tool` run with the
//! world, read-only mode hides writers, a failing system puts the server in crash mode.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use mcp_bindgen::server::{Call, CallHandler, Handler, McpTool, ToolError};
use mcp_bindgen::{Error, HttpClient, ToolCaller};
use mcp_bindgen_bevy::{McpAppExt, McpEndpoint, McpPlugin, McpTools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Resource, Default)]
struct Score(u32);

#[derive(Resource, Default)]
struct Explode(bool);

/// Add points to the score
#[derive(McpTool, Deserialize, JsonSchema)]
struct AddPoints {
    points: u32,
}

/// Read the score
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, when_crashed)]
struct ReadScore {}

/// Make the gameplay system fail next frame
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(when_crashed)]
struct Detonate {
    /// `error`, `panic`, or `warning` (an error of severity Warning: not a failure).
    kind: String,
}

#[derive(Serialize, JsonSchema)]
struct ScoreNow {
    score: u32,
}

impl Handler<World> for AddPoints {
    type Output = ScoreNow;
    fn call(self, world: &mut World) -> Result<ScoreNow, ToolError> {
        let mut score = world.resource_mut::<Score>();
        score.0 += self.points;
        Ok(ScoreNow { score: score.0 })
    }
}

impl Handler<World> for ReadScore {
    type Output = ScoreNow;
    fn call(self, world: &mut World) -> Result<ScoreNow, ToolError> {
        Ok(ScoreNow {
            score: world.resource::<Score>().0,
        })
    }
}

#[derive(Resource, Default)]
struct Mode(String);

impl Handler<World> for Detonate {
    type Output = ();
    fn call(self, world: &mut World) -> Result<(), ToolError> {
        world.resource_mut::<Explode>().0 = true;
        world.resource_mut::<Mode>().0 = self.kind;
        Ok(())
    }
}

/// Unlock the bonus round: its tool appears
#[derive(McpTool, Deserialize, JsonSchema)]
struct UnlockBonus {}

impl Handler<World> for UnlockBonus {
    type Output = ();
    fn call(self, world: &mut World) -> Result<(), ToolError> {
        world.resource::<McpTools>().register::<BonusRound>();
        Ok(())
    }
}

/// Play the bonus round
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct BonusRound {}

impl Handler<World> for BonusRound {
    type Output = ();
    fn call(self, _: &mut World) -> Result<(), ToolError> {
        Ok(())
    }
}

/// Claim the level-two reward (appears at 100 points)
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct LevelTwo {}

impl Handler<World> for LevelTwo {
    type Output = ();
    fn call(self, _: &mut World) -> Result<(), ToolError> {
        Ok(())
    }
}

/// Calls of `countdown` waiting for their frames, and of `never`, which no system answers.
#[derive(Resource, Default)]
struct Countdowns {
    running: Vec<(u32, Call<CountedDown>)>,
    never: Vec<Call<()>>,
}

/// Answer after `frames` more frames (a call the game answers later)
#[derive(McpTool, Deserialize, JsonSchema)]
struct Countdown {
    frames: u32,
}

#[derive(Serialize, JsonSchema)]
struct CountedDown {
    frames: u32,
}

impl CallHandler<World> for Countdown {
    type Output = CountedDown;
    fn start(self, world: &mut World, call: Call<CountedDown>) {
        world
            .resource_mut::<Countdowns>()
            .running
            .push((self.frames, call));
    }
}

/// Never answered: the call's deadline ends it
#[derive(McpTool, Deserialize, JsonSchema)]
struct Never {}

impl CallHandler<World> for Never {
    type Output = ();
    fn start(self, world: &mut World, call: Call<()>) {
        world.resource_mut::<Countdowns>().never.push(call);
    }
}

/// Counts the countdowns down, a frame each, and answers those that reach zero.
fn count_down(mut countdowns: ResMut<'_, Countdowns>) {
    for (left, _) in &mut countdowns.running {
        *left = left.saturating_sub(1);
    }
    for (_, call) in countdowns.running.extract_if(.., |(left, _)| *left == 0) {
        call.complete(Ok(CountedDown { frames: 0 }));
    }
}

/// A game system that adds a tool when the score reaches 100, and takes the bonus away.
fn level_up(score: Res<'_, Score>, tools: Option<Res<'_, McpTools>>, mut done: Local<'_, bool>) {
    if score.0 >= 100
        && !*done
        && let Some(tools) = tools
    {
        tools.register::<LevelTwo>();
        tools.unregister("bonus_round");
        *done = true;
    }
}

/// Fails (returns an error, or panics) once `Explode` is set.
fn gameplay(explode: Res<'_, Explode>, mode: Res<'_, Mode>) -> Result<(), BevyError> {
    if explode.0 {
        match mode.0.as_str() {
            "panic" => panic!("the reactor melted down"),
            "warning" => return Err(BevyError::warning("the reactor is warm")),
            _ => return Err("the reactor overheated".into()),
        }
    }
    Ok(())
}

struct Running {
    url: String,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    fn start(plugin: McpPlugin) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = thread::spawn(move || {
            let mut app = App::new();
            // One tool before the plugin, the others after: both are served.
            app.add_mcp_tool::<ReadScore>()
                .add_plugins(plugin.port(0).capture_log(None))
                .add_mcp_tool::<AddPoints>()
                .add_mcp_tool::<Detonate>()
                .add_mcp_tool::<UnlockBonus>()
                .add_mcp_call_tool::<Countdown>(Duration::from_secs(600))
                .add_mcp_call_tool::<Never>(Duration::from_millis(200))
                .init_resource::<Score>()
                .init_resource::<Explode>()
                .init_resource::<Mode>()
                .init_resource::<Countdowns>()
                .add_systems(Update, (gameplay, level_up, count_down));
            app.finish();
            app.cleanup();
            let url = app.world().resource::<McpEndpoint>().url.clone();
            tx.send(url).expect("url");
            while !flag.load(Ordering::Relaxed) {
                app.update();
                thread::sleep(Duration::from_millis(5));
            }
        });
        Running {
            url: rx.recv().expect("the app started"),
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

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn call(client: &HttpClient, name: &str, arguments: Value) -> Result<Value, Error> {
    client.call_tool_decoded(name, args(arguments)).await
}

fn tool_error(result: Result<Value, Error>) -> String {
    match result {
        Err(Error::Tool { message, .. }) => message,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn added_tools_run_with_the_world() {
    let app = Running::start(McpPlugin::default().name("plugin-test"));
    let client = HttpClient::connect(&app.url).await.expect("connects");
    assert_eq!(client.server_info()["name"], "plugin-test");
    let tools: Vec<String> = client
        .list_tools()
        .await
        .expect("lists")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    for name in [
        "read_score",
        "add_points",
        "ping",
        "query",
        "insert",
        "step",
    ] {
        assert!(
            tools.contains(&name.to_owned()),
            "{name} missing from {tools:?}"
        );
    }
    let added = call(&client, "add_points", json!({"points": 5})).await;
    assert_eq!(added.expect("adds"), json!({"score": 5}));
    let added = call(&client, "add_points", json!({"points": 2})).await;
    assert_eq!(added.expect("adds"), json!({"score": 7}));
    let read = call(&client, "read_score", json!({})).await;
    assert_eq!(read.expect("reads"), json!({"score": 7}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_mode_serves_only_readers() {
    let app = Running::start(McpPlugin::default().read_only(true));
    let client = HttpClient::connect(&app.url).await.expect("connects");
    let tools: Vec<Value> = client.list_tools().await.expect("lists");
    assert!(!tools.is_empty());
    for tool in &tools {
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "{} is served in read-only mode",
            tool["name"]
        );
    }
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"read_score") && names.contains(&"query"));
    let refused = call(&client, "add_points", json!({"points": 1})).await;
    assert!(refused.is_err(), "a writer answered in read-only mode");
    let read = call(&client, "read_score", json!({})).await;
    assert_eq!(read.expect("reads"), json!({"score": 0}));
}

/// `add_mcp_call_tool`: a call the game answers frames later is answered then, and one it
/// never answers ends at its deadline with a tool error naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_tool_answers_frames_later_or_at_its_deadline() {
    let app = Running::start(McpPlugin::default());
    let client = HttpClient::connect(&app.url).await.expect("connects");
    let before = call(&client, "ping", json!({})).await.expect("ping")["frame"]
        .as_u64()
        .expect("a frame");
    let done = call(&client, "countdown", json!({"frames": 30}))
        .await
        .expect("counted down");
    assert_eq!(done, json!({"frames": 0}));
    let after = call(&client, "ping", json!({})).await.expect("ping")["frame"]
        .as_u64()
        .expect("a frame");
    assert!(
        after >= before + 30,
        "answered after 30 frames: {before} then {after}"
    );
    let Err(Error::Tool { message, code, .. }) = call(&client, "never", json!({})).await else {
        panic!("never is never answered");
    };
    assert_eq!(code.as_deref(), Some("deadline"), "{message}");
    assert!(message.contains("never"), "{message}");
}

async fn crash_access(kind: &str, expected: &str) {
    let app = Running::start(McpPlugin::default());
    let client = HttpClient::connect(&app.url).await.expect("connects");
    let context = call(&client, "context", json!({})).await.expect("context");
    assert!(context.get("crashed").is_none(), "{context}");
    call(&client, "detonate", json!({ "kind": kind }))
        .await
        .expect("detonates");
    // The system fails on the next frame; the frame after records it.
    let mut crashed = None;
    for _ in 0..200 {
        let context = call(&client, "context", json!({})).await.expect("context");
        if let Some(c) = context.get("crashed") {
            crashed = Some(c.as_str().unwrap_or_default().to_owned());
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let crashed = crashed.expect("the server entered crash mode");
    assert!(
        crashed.contains(expected) && crashed.contains("gameplay"),
        "{crashed}"
    );
    // The app still runs: frames go on (polled until they do, at most 60 s).
    let frame =
        || async { call(&client, "ping", json!({})).await.expect("ping")["frame"].as_u64() };
    let first = frame().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while frame().await <= first {
        assert!(
            std::time::Instant::now() < deadline,
            "frames stopped at {first:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // when_crashed tools answer; the others answer the failure.
    assert_eq!(
        call(&client, "read_score", json!({})).await.expect("reads"),
        json!({"score": 0})
    );
    let refused = tool_error(call(&client, "add_points", json!({"points": 1})).await);
    assert!(refused.contains(expected), "{refused}");
    let logs = call(&client, "get_logs", json!({"level": "error"}))
        .await
        .expect("logs");
    let records = logs["records"].as_array().cloned().unwrap_or_default();
    assert!(
        records
            .iter()
            .any(|r| r["message"].as_str().is_some_and(|m| m.contains(expected))),
        "{logs}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_system_error_enters_crash_mode() {
    crash_access("error", "the reactor overheated").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_system_panic_enters_crash_mode() {
    crash_access("panic", "the reactor melted down").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_and_bearer_token_are_the_server_settings() {
    let app = Running::start(McpPlugin::default().path("/game").bearer_token("s3cret"));
    assert!(app.url.ends_with("/game"), "{}", app.url);
    let refused = HttpClient::connect(&app.url).await;
    assert!(refused.is_err(), "connected without the token");
    let client = HttpClient::builder(&app.url)
        .bearer_token("s3cret")
        .connect()
        .await
        .expect("connects with the token");
    let read = call(&client, "read_score", json!({})).await;
    assert_eq!(read.expect("reads"), json!({"score": 0}));
}

/// Behind OAuth: a request without a token is refused with the challenge that names the
/// protected resource metadata; a token the check accepts is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_protects_the_endpoint() {
    let protect =
        mcp_bindgen::server::ProtectedResource::new("http://127.0.0.1:9", |token: &str| {
            (token == "issued").then(|| "player-1".to_owned())
        })
        .scope("game");
    let app = Running::start(McpPlugin::default().oauth(protect));
    match HttpClient::connect(&app.url).await {
        Err(Error::Auth {
            status: Some(401),
            www_authenticate: Some(challenge),
            ..
        }) => {
            assert!(
                challenge.contains("/.well-known/oauth-protected-resource/mcp")
                    && challenge.contains("scope=\"game\""),
                "{challenge}"
            );
        }
        other => panic!("connected without a token: {other:?}"),
    }
    let refused = HttpClient::builder(&app.url)
        .bearer_token("forged")
        .connect()
        .await;
    assert!(refused.is_err(), "connected with a token the check refuses");
    let client = HttpClient::builder(&app.url)
        .bearer_token("issued")
        .connect()
        .await
        .expect("connects with an issued token");
    let read = call(&client, "read_score", json!({})).await;
    assert_eq!(read.expect("reads"), json!({"score": 0}));
}

#[test]
fn a_busy_port_is_reported_and_the_app_runs_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = taken.local_addr().expect("addr").port();
    let mut app = App::new();
    app.add_plugins(McpPlugin::default().port(port).capture_log(None));
    app.finish();
    app.cleanup();
    let error = app
        .world()
        .get_resource::<mcp_bindgen_bevy::McpListenError>()
        .expect("the error is a resource");
    assert!(error.0.contains(&port.to_string()), "{}", error.0);
    assert!(!app.world().contains_resource::<McpEndpoint>());
    for _ in 0..3 {
        app.update();
    }
    assert!(mcp_bindgen_bevy::served_tools(app.world()).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_below_error_severity_is_logged_not_a_crash() {
    let app = Running::start(McpPlugin::default());
    let client = HttpClient::connect(&app.url).await.expect("connects");
    call(&client, "detonate", json!({"kind": "warning"}))
        .await
        .expect("detonates");
    let mut logged = false;
    for _ in 0..200 {
        let logs = call(
            &client,
            "get_logs",
            json!({"level": "warn", "limit": 10000}),
        )
        .await
        .expect("logs");
        logged = logs["records"].as_array().is_some_and(|records| {
            records.iter().any(|r| {
                r["level"] == "warn"
                    && r["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("the reactor is warm"))
            })
        });
        if logged {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(logged, "the warning was not logged");
    let context = call(&client, "context", json!({})).await.expect("context");
    assert!(context.get("crashed").is_none(), "{context}");
    assert_eq!(context["failures"], 0, "{context}");
    let added = call(&client, "add_points", json!({"points": 1})).await;
    assert_eq!(added.expect("adds"), json!({"score": 1}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_virtual_time_the_clock_tools_say_so_and_step_counts_frames() {
    // The test app has no TimePlugin.
    let app = Running::start(McpPlugin::default());
    let client = HttpClient::connect(&app.url).await.expect("connects");
    let refused = tool_error(call(&client, "pause", json!({})).await);
    assert!(refused.contains("Time<Virtual>"), "{refused}");
    let context = call(&client, "context", json!({})).await.expect("context");
    assert!(context.get("paused").is_none(), "{context}");
    let stepped = call(&client, "step", json!({"frames": 4}))
        .await
        .expect("step");
    assert_eq!(stepped["frames"], 4, "{stepped}");
    assert_eq!(
        stepped["last_frame"].as_u64().expect("last")
            - stepped["first_frame"].as_u64().expect("first"),
        3,
        "{stepped}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_added_while_running_are_announced_in_both_eras() {
    for protocol in [mcp_bindgen::Protocol::Modern, mcp_bindgen::Protocol::Legacy] {
        let app = Running::start(McpPlugin::default());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<String>>();
        let client = HttpClient::builder(&app.url)
            .protocol(protocol.clone())
            .on_tools_changed(move |list| {
                let _ = tx.send(list.names().map(str::to_owned).collect());
            })
            .connect()
            .await
            .expect("connects");
        let next = |rx: &mut tokio::sync::mpsc::UnboundedReceiver<Vec<String>>| {
            let received = rx.try_recv();
            received.ok()
        };
        // From a tool handler.
        call(&client, "unlock_bonus", json!({}))
            .await
            .expect("unlocks");
        let names = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("announced within the bound")
            .expect("a list");
        assert!(
            names.contains(&"bonus_round".to_owned()),
            "{protocol:?}: {names:?}"
        );
        call(&client, "bonus_round", json!({}))
            .await
            .expect("the new tool runs");
        // From a game system: a registration and a removal in one frame.
        call(&client, "add_points", json!({"points": 100}))
            .await
            .expect("adds");
        let names = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("announced within the bound")
            .expect("a list");
        assert!(
            names.contains(&"level_two".to_owned()),
            "{protocol:?}: {names:?}"
        );
        assert!(
            !names.contains(&"bonus_round".to_owned()),
            "{protocol:?}: {names:?}"
        );
        assert_eq!(
            next(&mut rx),
            None,
            "{protocol:?}: one frame, one announcement"
        );
    }
}

/// The plugin's resources, with no code of the game's: the log, each entity (its components,
/// as `get` gives them), and the world's entities as completion values for the template's
/// `entity` variable; in both eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_and_the_entities_are_resources_and_entities_complete() {
    use mcp_bindgen::{CompletionRef, Protocol};
    let app = Running::start(McpPlugin::default().name("resources-test"));
    mcp_bindgen_bevy::push_log(mcp_bindgen_bevy::Level::Warn, "test", "the bridge is out");
    for protocol in [Protocol::Auto, Protocol::Legacy] {
        let client = HttpClient::builder(&app.url)
            .protocol(protocol.clone())
            .connect()
            .await
            .expect("connects");
        let resources = client.list_resources().await.expect("resources/list");
        assert_eq!(resources[0]["uri"], "bevy://logs", "{resources:?}");
        let log = client.read_resource("bevy://logs").await.expect("the log");
        let text = log.contents[0].text.as_deref().unwrap_or_default();
        let records: Value = serde_json::from_str(text).expect("JSON");
        assert!(
            records["records"]
                .as_array()
                .is_some_and(|r| r.iter().any(|r| r["message"] == "the bridge is out")),
            "{protocol:?}: {text}"
        );
        let spawned: Value = call(&client, "spawn", json!({})).await.expect("spawn");
        let bits = spawned["entity"].as_u64().expect("bits");
        let uri = format!("bevy://entity/{bits}");
        let entity = client.read_resource(&uri).await.expect("the entity");
        let row: Value =
            serde_json::from_str(entity.contents[0].text.as_deref().unwrap_or_default())
                .expect("JSON");
        assert_eq!(row["entity"], bits, "{protocol:?}: {row}");
        let template = CompletionRef::Resource("bevy://entity/{entity}".into());
        let prefix = bits.to_string();
        let offered = client
            .complete(&template, "entity", &prefix, &[])
            .await
            .expect("completion");
        assert!(
            offered.values.contains(&prefix),
            "{protocol:?}: {offered:?} lacks {prefix}"
        );
        let gone = client
            .read_resource("bevy://entity/18446744073709551615")
            .await
            .expect_err("no such entity");
        assert!(matches!(gone, Error::Protocol { .. }), "{gone:?}");
    }
}

/// `step` runs as a task: a 600-frame step survives its client (a new client finds it by id
/// and gets the typed result), another credential cannot see it, and a cancelled step stops
/// (the plugin drops the abandoned call, and the next step starts from a clean slate).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_step_runs_as_a_task_that_outlives_its_client() {
    use mcp_bindgen::TaskState;
    use mcp_bindgen::client::Protocol;
    // A token each: the player's tasks are not the spectator's.
    let app = Running::start(
        McpPlugin::default()
            .bearer_token("player")
            .bearer_token("spectator"),
    );
    let connect = |token: &'static str| {
        HttpClient::builder(&app.url)
            .protocol(Protocol::Modern)
            .bearer_token(token)
            .connect()
    };
    let client = connect("player").await.expect("connects");
    let handle = client
        .call_tool_as_task("step", args(json!({"frames": 600})))
        .await
        .expect("starts");
    let id = handle.id().expect("a task").to_owned();
    drop(handle);
    drop(client);

    let other = connect("spectator").await.expect("connects");
    let hidden = other.task("step", &id).status().await.unwrap_err();
    assert!(
        matches!(hidden, Error::Protocol { code: -32602, .. }),
        "{hidden}"
    );

    let again = connect("player").await.expect("connects");
    let stepped: Value = again
        .task("step", &id)
        .typed()
        .wait()
        .await
        .expect("the step's result");
    assert_eq!(stepped["frames"], 600, "{stepped}");

    let long = again
        .call_tool_as_task("step", args(json!({"frames": 100000})))
        .await
        .expect("starts");
    long.cancel().await.expect("cancels");
    assert_eq!(
        long.status().await.expect("tasks/get").state,
        TaskState::Cancelled
    );
    // The plugin drops the cancelled step: `context` counts no step running.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let context = call(&again, "context", json!({})).await.expect("context");
        if context["stepping"] == 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{context}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The schedule the plugin's system runs in for `schedule_and_frame_budget`: run by `gate`
/// only while the test keeps it open.
#[derive(bevy_ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Gated;

/// Whether `gate` runs [`Gated`] this frame.
#[derive(Resource)]
struct Gate(bool);

fn gate(world: &mut World) {
    if world.resource::<Gate>().0 {
        world.run_schedule(Gated);
    }
}

/// Say which of the plugin's frames answered
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct WhichFrame {}

#[derive(Serialize, JsonSchema)]
struct Answered {
    frame: u64,
}

impl Handler<World> for WhichFrame {
    type Output = Answered;
    fn call(self, world: &mut World) -> Result<Answered, ToolError> {
        Ok(Answered {
            frame: world.resource::<mcp_bindgen_bevy::McpStatus>().frame,
        })
    }
}

/// Runs frames until `done` (60 s at most).
fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !done(app) {
        assert!(
            std::time::Instant::now() < deadline,
            "not within 60 s: {what}"
        );
        app.update();
        thread::sleep(Duration::from_millis(1));
    }
}

/// Four calls queued while the plugin's schedule does not run, then one frame of it with
/// `budget`: what that frame did (`McpStatus::last_poll`) and the frame each call was
/// answered in.
fn four_calls_in_a_gated_schedule(budget: Duration) -> (mcp_bindgen::server::PollStats, Vec<u64>) {
    let mut app = App::new();
    app.add_plugins(
        McpPlugin::default()
            .port(0)
            .capture_log(None)
            .builtins(false)
            .schedule(Gated)
            .frame_budget(budget),
    )
    .add_mcp_tool::<WhichFrame>()
    .init_schedule(Gated)
    .insert_resource(Gate(true))
    .add_systems(Update, gate);
    app.finish();
    app.cleanup();
    let url = app.world().resource::<McpEndpoint>().url.clone();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let connecting = runtime.spawn(async move { HttpClient::connect(&url).await });
    update_until(&mut app, "connected", |_| connecting.is_finished());
    let client = Arc::new(
        runtime
            .block_on(connecting)
            .expect("joins")
            .expect("connects"),
    );

    app.world_mut().resource_mut::<Gate>().0 = false;
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let client = client.clone();
            runtime.spawn(async move { call(&client, "which_frame", json!({})).await })
        })
        .collect();
    // Frames go on (Update runs) but the plugin's schedule does not: the calls wait.
    update_until(&mut app, "four calls queued", |app| {
        assert!(
            calls.iter().all(|c| !c.is_finished()),
            "a call was answered outside the plugin's schedule"
        );
        mcp_bindgen_bevy::queued_calls(app.world()) >= 4
    });
    assert_eq!(mcp_bindgen_bevy::queued_calls(app.world()), 4);

    app.world_mut().resource_mut::<Gate>().0 = true;
    app.update();
    let opening = app
        .world()
        .resource::<mcp_bindgen_bevy::McpStatus>()
        .last_poll;
    update_until(&mut app, "every call answered", |_| {
        calls.iter().all(|c| c.is_finished())
    });
    let frames = calls
        .into_iter()
        .map(|c| {
            let answer = runtime.block_on(c).expect("joins").expect("answered");
            answer["frame"].as_u64().expect("a frame")
        })
        .collect();
    (opening, frames)
}

/// `schedule` and `frame_budget`: the plugin answers only in the schedule it is given (calls
/// wait, queued, while it does not run), and a frame answers one queued call, then more while
/// its budget lasts: with no budget one a frame, four frames for four calls; with a budget
/// of a minute all four in the first frame.
#[test]
fn the_plugin_answers_in_its_schedule_within_its_frame_budget() {
    let (opening, mut frames) = four_calls_in_a_gated_schedule(Duration::ZERO);
    assert_eq!((opening.calls, opening.queued), (1, 3), "{opening:?}");
    frames.sort_unstable();
    frames.dedup();
    assert_eq!(frames.len(), 4, "one call a frame: {frames:?}");

    let (opening, frames) = four_calls_in_a_gated_schedule(Duration::from_secs(60));
    assert_eq!((opening.calls, opening.queued), (4, 0), "{opening:?}");
    assert!(
        frames.iter().all(|f| *f == frames[0]),
        "all in one frame: {frames:?}"
    );
}
