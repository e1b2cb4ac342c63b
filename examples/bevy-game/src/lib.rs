//! The Bevy example game: a headless app (Bevy's `MinimalPlugins` set from its parts: the task
//! pools, the time plugin and, in the binary, a 60 Hz schedule runner) whose units move each
//! frame, served over MCP by [`McpPlugin`].
//!
//! Everything an agent reads or changes is reflected: the components [`Position`],
//! [`Velocity`], [`Health`], [`Label`] and [`Team`], the resource [`Score`] and the frame
//! counter [`Moved`], and the messages [`SpawnWave`] (spawns units) and [`Overheat`] (makes the
//! `reactor` system fail: crash mode). One tool is the game's own, [`ScoreBoard`]; another,
//! [`BossStatus`], appears while the game runs: the `spawn_waves` system registers it (through
//! the plugin's [`McpTools`] resource) when a wave of [`BOSS_WAVE`] units or more arrives, and
//! connected clients are told in that frame. Agents hear what happens as MCP events: each
//! [`WaveArrived`] message (`wave_arrived`), and each change of a unit's [`Health`]
//! (`health_changed`).

#![warn(missing_docs)]

use bevy_app::{App, TaskPoolPlugin, Update};
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use bevy_time::{Time, TimePlugin};
use mcp_bindgen::server::{Handler, McpTool, ToolError};
use mcp_bindgen_bevy::{McpAppExt, McpEventsExt, McpPlugin, McpTools, served_events, served_tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where a unit is.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component)]
pub struct Position {
    /// Metres east.
    pub x: f32,
    /// Metres north.
    pub y: f32,
}

/// How fast a unit moves, in metres per (virtual) second.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component)]
pub struct Velocity {
    /// Eastward.
    pub x: f32,
    /// Northward.
    pub y: f32,
}

/// A unit's hit points.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[reflect(Component)]
pub struct Health {
    /// Now.
    pub current: u32,
    /// At most.
    pub max: u32,
}

/// A unit's name.
#[derive(Component, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Component)]
pub struct Label(pub String);

/// A unit's side.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component)]
pub enum Team {
    /// The red side.
    #[default]
    Red,
    /// The blue side.
    Blue,
}

/// The game's score.
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Resource)]
pub struct Score {
    /// Points.
    pub points: u64,
    /// Waves spawned.
    pub waves: u32,
}

/// Frames in which virtual time advanced (the movement system ran with a non-zero delta).
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Resource)]
pub struct Moved {
    /// Frames.
    pub frames: u64,
}

/// Spawns `count` red units in a row at y = 100, moving north.
#[derive(Message, Reflect, Debug, Clone, Default)]
#[reflect(Message)]
pub struct SpawnWave {
    /// Units.
    pub count: u32,
}

/// A wave of units arrived (written by `spawn_waves`; served as the MCP event type
/// `wave_arrived`).
#[derive(Message, Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaveArrived {
    /// The wave's number, from 1.
    pub wave: u32,
    /// How many units it brought.
    pub units: u32,
}

/// Makes the reactor system fail on the next frame with `reason` (crash mode).
#[derive(Message, Reflect, Debug, Clone, Default)]
#[reflect(Message)]
pub struct Overheat {
    /// What the failure says.
    pub reason: String,
}

/// Moves every unit by its velocity times the frame's virtual delta.
fn movement(
    time: Res<'_, Time>,
    mut moved: ResMut<'_, Moved>,
    mut units: Query<'_, '_, (&mut Position, &Velocity)>,
) {
    let dt = time.delta_secs();
    if dt > 0.0 {
        moved.frames += 1;
    }
    for (mut position, velocity) in &mut units {
        position.x += velocity.x * dt;
        position.y += velocity.y * dt;
    }
}

/// A wave at least this big brings the boss, and its tool ([`BossStatus`]).
pub const BOSS_WAVE: u32 = 10;

/// Spawns the waves asked for; the first wave of [`BOSS_WAVE`] units or more also serves
/// [`BossStatus`].
fn spawn_waves(
    mut commands: Commands<'_, '_>,
    mut waves: MessageReader<'_, '_, SpawnWave>,
    mut arrived: MessageWriter<'_, WaveArrived>,
    mut score: ResMut<'_, Score>,
    tools: Option<Res<'_, McpTools>>,
) {
    for wave in waves.read() {
        score.waves += 1;
        arrived.write(WaveArrived {
            wave: score.waves,
            units: wave.count,
        });
        if wave.count >= BOSS_WAVE
            && let Some(tools) = &tools
        {
            tools.register::<BossStatus>();
        }
        for i in 0..wave.count {
            commands.spawn((
                Position {
                    x: i as f32 * 2.0,
                    y: 100.0,
                },
                Velocity { x: 0.0, y: 1.0 },
                Health {
                    current: 10,
                    max: 10,
                },
                Team::Red,
            ));
        }
    }
}

/// Fails when an [`Overheat`] arrives.
fn reactor(mut overheats: MessageReader<'_, '_, Overheat>) -> Result<(), BevyError> {
    match overheats.read().last() {
        Some(overheat) => Err(format!("reactor failure: {}", overheat.reason).into()),
        None => Ok(()),
    }
}

/// Three units to start with.
fn setup(mut commands: Commands<'_, '_>) {
    commands.spawn((
        Label("scout".into()),
        Position { x: 0.0, y: 0.0 },
        Velocity { x: 1.0, y: 0.5 },
        Health {
            current: 10,
            max: 10,
        },
        Team::Blue,
    ));
    commands.spawn((
        Label("tank".into()),
        Position { x: 10.0, y: 5.0 },
        Velocity { x: -0.5, y: 0.0 },
        Health {
            current: 40,
            max: 50,
        },
        Team::Red,
    ));
    commands.spawn((Label("tower".into()), Position { x: -5.0, y: -5.0 }));
}

/// The score and how many units each team has
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct ScoreBoard {}

/// `score_board`'s answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Board {
    /// Points.
    pub points: u64,
    /// Waves spawned.
    pub waves: u32,
    /// Red units.
    pub red: u32,
    /// Blue units.
    pub blue: u32,
}

impl Handler<World> for ScoreBoard {
    type Output = Board;
    fn call(self, world: &mut World) -> Result<Board, ToolError> {
        let (mut red, mut blue) = (0, 0);
        let mut teams = world.query::<&Team>();
        for team in teams.iter(world) {
            match team {
                Team::Red => red += 1,
                Team::Blue => blue += 1,
            }
        }
        let score = world.get_resource::<Score>().cloned().unwrap_or_default();
        Ok(Board {
            points: score.points,
            waves: score.waves,
            red,
            blue,
        })
    }
}

/// How the boss fares (served once a wave of [`BOSS_WAVE`] units arrived)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent)]
pub struct BossStatus {}

/// `boss_status`'s answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Boss {
    /// Red units standing with the boss.
    pub escorts: u32,
}

impl Handler<World> for BossStatus {
    type Output = Boss;
    fn call(self, world: &mut World) -> Result<Boss, ToolError> {
        let mut teams = world.query::<&Team>();
        let escorts = teams.iter(world).filter(|t| **t == Team::Red).count();
        Ok(Boss {
            escorts: u32::try_from(escorts).unwrap_or(u32::MAX),
        })
    }
}

/// The game without a runner: the caller drives it with `app.update()` (tests) or adds
/// `ScheduleRunnerPlugin` (the binary). `mcp` sets the server (`McpPlugin::default().port(0)`).
pub fn game(mcp: McpPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        mcp.name("bevy-game").version(env!("CARGO_PKG_VERSION")),
    ))
    .register_type::<Position>()
    .register_type::<Velocity>()
    .register_type::<Health>()
    .register_type::<Label>()
    .register_type::<Team>()
    .register_type::<Score>()
    .register_type::<Moved>()
    .register_type::<SpawnWave>()
    .register_type::<Overheat>()
    .add_message::<SpawnWave>()
    .add_message::<Overheat>()
    .init_resource::<Score>()
    .init_resource::<Moved>()
    .add_mcp_tool::<ScoreBoard>()
    .add_mcp_event::<WaveArrived>("wave_arrived")
    .add_mcp_component_event::<Health>("health_changed")
    .add_systems(bevy_app::Startup, setup)
    .add_systems(Update, (movement, spawn_waves, reactor));
    app
}

/// The game's `tools/list` and `events/list` capture (what `bevy-game --capture FILE` writes and the client in
/// `mcp-bindings` is generated from), with the object keys sorted.
///
/// It starts the game's server on a free port to read what it serves; `None` when it cannot
/// listen.
pub fn capture() -> Option<Value> {
    let mut app = game(McpPlugin::default().port(0).capture_log(None));
    app.finish();
    app.cleanup();
    let tools: Vec<Value> = served_tools(app.world())
        .iter()
        .map(|t| t.to_json())
        .collect();
    if tools.is_empty() {
        return None;
    }
    let events = serde_json::to_value(served_events(app.world())).ok()?;
    Some(sorted(json!({
        "protocolVersion": "2025-11-25",
        "serverInfo": { "name": "bevy-game" },
        "tools": tools,
        "events": events,
    })))
}

/// [`capture`] as pretty JSON with a final newline.
pub fn capture_text() -> Option<String> {
    capture().and_then(|c| serde_json::to_string_pretty(&c).ok().map(|t| t + "\n"))
}

/// `value` with the keys of every object in sorted order (the text must not depend on
/// serde_json's `preserve_order`, which a build that also compiles the generator turns on).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(members) => {
            let mut members: Vec<(String, Value)> = members.into_iter().collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(members.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
