//! The tecs example game: tecs.io.mcp (seed 001) in Rust.
//!
//! A [hecs] world of entities with a [`Transform2D`] (and a few other components), advanced by
//! a 60 Hz frame loop that polls an MCP [`Server`] once per frame. The seed's debug tools are
//! declared with `#[derive(McpTool)]` in [`tools`]: `components_info`, `query`, `info`,
//! `modify`, `set`, `run_lua`, `ping`, `context`, `get_logs`, `send_event`, the custom
//! `placed_count`, and `run_frames`, whose answer spans frames (with progress each frame when
//! asked). A gameplay panic puts the registry in crash mode; `ping`, `context`, `get_logs` and
//! `send_event` stay callable.
//!
//! The tool list changes while the game runs: the event `open_arena` (sent with `send_event`)
//! registers the `arena_census` tool from gameplay, and `close_arena` removes it. Connected
//! clients are told in the frame it happens (`notifications/tools/list_changed` on a legacy
//! session's GET stream, or on a 2026-07-28 `subscriptions/listen` stream).
//!
//! Gameplay tells agents what happens as it happens ([`events`]): an entity spawned or
//! destroyed, the arena opened, a line logged at error level, each emitted in its frame and
//! read by `events/stream` or `events/poll` (MCP 2026-07-28).

use std::collections::{BTreeSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};

use mcp_bindgen::server::{Call, Registrar, Registry, Server, Skill};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod components;
pub mod events;
pub mod tools;

pub use components::{Health, Label, Transform2D, Velocity};

/// Log lines kept for `get_logs`.
const LOG_CAPACITY: usize = 1000;

/// An event sent with `send_event`, handled by gameplay on the next frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// What happened (`spawn`, `clear`, `crash`, or anything gameplay ignores).
    pub name: String,
    /// Event data.
    pub payload: Value,
}

/// The game: the world and what the tools report on.
pub struct Game {
    /// The ECS world.
    pub world: hecs::World,
    /// Frames run so far.
    pub frame: u64,
    logs: VecDeque<String>,
    events: VecDeque<Event>,
    /// Component columns `modify` and `set` changed, as (entity, component); cleared by the
    /// frame that consumes them.
    pub dirty: BTreeSet<(u64, &'static str)>,
    /// The crash traceback, once gameplay has panicked.
    pub crash: Option<String>,
    /// `run_frames` calls waiting for their frame: (first frame, last frame, call).
    running: Vec<(u64, u64, Call<tools::FramesRun>)>,
    /// Changes the served tools from gameplay; taken from the server on the first frame.
    tools: Option<Registrar<Game>>,
    /// Emits the game's events; found in the server's registry on the first frame.
    emit: Option<events::Emitters>,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("entities", &self.world.len())
            .field("frame", &self.frame)
            .field("events", &self.events.len())
            .field("crash", &self.crash)
            .finish_non_exhaustive()
    }
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    /// A world with a few placed entities.
    pub fn new() -> Self {
        let mut world = hecs::World::new();
        for i in 0..3 {
            let f = i as f32;
            world.spawn((
                Transform2D {
                    x: 10.0 * f,
                    y: 5.0,
                    rotation: 0.0,
                },
                Velocity { dx: 1.0, dy: 0.0 },
                Label {
                    text: format!("crate-{i}"),
                },
            ));
        }
        world.spawn((
            Transform2D {
                x: 0.0,
                y: 0.0,
                rotation: 0.0,
            },
            Health { hp: 100, max: 100 },
            Label {
                text: "player".into(),
            },
        ));
        world.spawn((Label {
            text: "camera-rig".into(),
        },));
        Game {
            world,
            frame: 0,
            logs: VecDeque::new(),
            events: VecDeque::new(),
            dirty: BTreeSet::new(),
            crash: None,
            running: Vec::new(),
            tools: None,
            emit: None,
        }
    }

    /// Appends a log line (the oldest go beyond [`LOG_CAPACITY`]).
    pub fn log(&mut self, line: impl Into<String>) {
        if self.logs.len() == LOG_CAPACITY {
            self.logs.pop_front();
        }
        self.logs
            .push_back(format!("[frame {}] {}", self.frame, line.into()));
    }

    /// The last `n` log lines, oldest first.
    pub fn logs(&self, n: usize) -> Vec<String> {
        let skip = self.logs.len().saturating_sub(n);
        self.logs.iter().skip(skip).cloned().collect()
    }

    /// Queues an event for the next frame; returns its position in the queue.
    pub fn send_event(&mut self, event: Event) -> usize {
        self.events.push_back(event);
        self.events.len()
    }

    /// Gameplay for one frame: handle events, move what has a velocity.
    pub fn update(&mut self) {
        self.frame += 1;
        while let Some(event) = self.events.pop_front() {
            match event.name.as_str() {
                "spawn" => {
                    let x = event
                        .payload
                        .get("x")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0) as f32;
                    let y = event
                        .payload
                        .get("y")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0) as f32;
                    let entity = self.world.spawn((Transform2D {
                        x,
                        y,
                        rotation: 0.0,
                    },));
                    self.log(format!("spawned {} at ({x}, {y})", entity.to_bits()));
                    if let Some(emit) = self.emit.as_ref().and_then(|e| e.spawned.as_ref()) {
                        emit.emit(events::EntitySpawned {
                            entity: entity.to_bits().get(),
                            x,
                            y,
                            frame: self.frame,
                        });
                    }
                }
                "destroy" => self.destroy(&event.payload),
                "crash" => panic!("gameplay error: {}", event.payload),
                "open_arena" => {
                    if let Some(tools) = &self.tools {
                        tools.register::<tools::ArenaCensus>();
                    }
                    self.log("the arena is open: arena_census is served".to_owned());
                    if let Some(emit) = self.emit.as_ref().and_then(|e| e.arena_opened.as_ref()) {
                        emit.emit(events::ArenaOpened { frame: self.frame });
                    }
                }
                "close_arena" => {
                    if let Some(tools) = &self.tools {
                        tools.unregister("arena_census");
                    }
                    self.log("the arena is closed".to_owned());
                }
                other => self.log(format!("event {other} ignored")),
            }
        }
        for (transform, velocity) in self.world.query_mut::<(&mut Transform2D, &Velocity)>() {
            transform.x += velocity.dx / 60.0;
            transform.y += velocity.dy / 60.0;
        }
        self.dirty.clear();
        self.finish_run_frames();
    }

    /// The `destroy` event: despawns `payload.entity` (an id from `query`), and tells agents.
    fn destroy(&mut self, payload: &Value) {
        let Some(entity) = payload
            .get("entity")
            .and_then(Value::as_u64)
            .and_then(hecs::Entity::from_bits)
            .filter(|e| self.world.contains(*e))
        else {
            self.log(format!("destroy: no entity {}", payload["entity"]));
            return;
        };
        let label = self
            .world
            .get::<&Label>(entity)
            .ok()
            .map(|l| l.text.clone());
        let _ = self.world.despawn(entity);
        self.log(format!("destroyed {}", entity.to_bits()));
        if let Some(emit) = self.emit.as_ref().and_then(|e| e.destroyed.as_ref()) {
            emit.emit(events::EntityDestroyed {
                entity: entity.to_bits().get(),
                label,
                frame: self.frame,
            });
        }
    }

    /// Starts a `run_frames` call: answered once `frames` more frames have run.
    pub fn run_frames(&mut self, frames: u32, call: Call<tools::FramesRun>) {
        self.running
            .push((self.frame, self.frame + u64::from(frames), call));
    }

    /// Progress on the waiting `run_frames` calls; the due ones answered, the abandoned ones
    /// dropped.
    fn finish_run_frames(&mut self) {
        if self.running.is_empty() {
            return;
        }
        let frame = self.frame;
        let entities = self.world.len();
        self.running.retain(|(_, _, call)| !call.is_abandoned());
        for (from, until, call) in &self.running {
            if frame < *until {
                call.progress((frame - from) as f64, Some((until - from) as f64), None);
            }
        }
        for (from, until, call) in self.running.extract_if(.., |(_, until, _)| *until <= frame) {
            call.complete(Ok(tools::FramesRun {
                frame,
                frames: u32::try_from(until - from).unwrap_or(u32::MAX),
                entities,
            }));
        }
    }

    /// One frame: gameplay (a panic puts the game and the server in crash mode), then one poll
    /// of the server. Returns whether a request was answered.
    pub fn frame(&mut self, server: &mut Server<Game>) -> bool {
        if self.tools.is_none() {
            self.tools = Some(server.registry().registrar());
            self.emit = Some(events::Emitters::of(server.registry()));
        }
        if self.crash.is_none() && catch_unwind(AssertUnwindSafe(|| self.update())).is_err() {
            let traceback = format!(
                "gameplay panicked at frame {}: see get_logs; the world is no longer advanced",
                self.frame
            );
            self.log(traceback.clone());
            if let Some(emit) = self.emit.as_ref().and_then(|e| e.error_logged.as_ref()) {
                emit.emit(events::ErrorLogged {
                    line: self.logs(1).pop().unwrap_or_default(),
                    frame: self.frame,
                });
            }
            self.crash = Some(traceback.clone());
            server.registry_mut().set_crashed(traceback);
        }
        server.poll(self)
    }
}

/// The game's tool registry.
pub fn registry() -> Registry<Game> {
    let mut registry = Registry::new("tecs-game", env!("CARGO_PKG_VERSION")).with_instructions(
        "Debug tools of the tecs example game. Start with components_info, query and info; use modify for a partial component update and set for a complete value or a missing component. Prefer these to run_lua.",
    );
    tools::register(&mut registry);
    events::register(&mut registry);
    registry.register_skill(skill());
    registry
}

/// The skill that teaches an agent to play the game with its tools (`skills/play-tecs/`),
/// built into the binary so that the game serves it wherever it runs.
pub fn skill() -> Skill {
    const FILES: [(&str, &str); 2] = [
        ("SKILL.md", include_str!("../skills/play-tecs/SKILL.md")),
        (
            "references/components.md",
            include_str!("../skills/play-tecs/references/components.md"),
        ),
    ];
    // The files are this crate's own and checked by its tests: a bad one fails them.
    Skill::from_files("play-tecs", FILES).unwrap_or_else(|e| panic!("{e}"))
}

/// The game's `tools/list`, `skills/list` and `events/list`, as a capture (`protocolVersion`,
/// `serverInfo`, `tools`, `skills`, `events`), read
/// through `dispatch` exactly as a client would see it.
///
/// Object keys are sorted (arrays keep their order): the order in which serde_json keeps keys
/// depends on its `preserve_order` feature, which the runtime leaves off but a build that also
/// compiles the generator turns on, and the capture must be the same text in both.
pub fn capture() -> Value {
    let mut registry = registry();
    let mut game = Game::new();
    let mut ask = |text: &str| -> Value {
        registry
            .dispatch(&mut game, text)
            .and_then(|reply| serde_json::from_str::<Value>(&reply).ok())
            .and_then(|mut v| v.get_mut("result").map(Value::take))
            .unwrap_or(Value::Null)
    };
    let init = ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"capture","version":"0"}}}"#,
    );
    let list = ask(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let skills = ask(r#"{"jsonrpc":"2.0","id":3,"method":"skills/list"}"#);
    // Event types are a 2026-07-28 extension: listed in that era.
    let events = ask(
        r#"{"jsonrpc":"2.0","id":4,"method":"events/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    let mut capture = serde_json::Map::new();
    capture.insert("protocolVersion".into(), init["protocolVersion"].clone());
    // The version changes with every release; a capture records the server, not the build.
    capture.insert(
        "serverInfo".into(),
        serde_json::json!({"name": init["serverInfo"]["name"]}),
    );
    capture.insert("tools".into(), list["tools"].clone());
    capture.insert("skills".into(), skills["skills"].clone());
    capture.insert("events".into(), events["events"].clone());
    sorted(Value::Object(capture))
}

/// [`capture`] as `tecs-game --capture FILE` writes it: pretty JSON and a final newline.
pub fn capture_text() -> String {
    serde_json::to_string_pretty(&capture()).unwrap_or_default() + "\n"
}

/// `value` with the keys of every object in sorted order.
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
