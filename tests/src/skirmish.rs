//! A small game that emits events (the Events extension), served by this repository's server:
//! what `fixtures/edge/events.tools.json` is a capture of, and what the generated module of
//! that capture (`snapshots/events.rs`) is tested against.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use mcp_bindgen::server::{
    Emitter, EventType, Handler, McpTool, Registry, Server, ToolError, schemars,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A side of the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Team {
    /// The attackers.
    Red,
    /// The defenders.
    Blue,
}

/// A unit died.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnitDied {
    /// The unit's id.
    pub unit: u32,
    /// What it was (`archer`, `knight`, ...).
    pub kind: String,
    /// Its side.
    pub team: Team,
}

/// Which deaths a subscription hears.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ByTeam {
    /// Only this side's; both when absent.
    pub team: Option<Team>,
}

/// A wave of attackers started.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WaveStarted {
    /// The wave's number, from 1.
    pub wave: u32,
    /// How many units it brings.
    pub size: u32,
}

/// The game: what its handlers emit with.
#[derive(Debug)]
pub struct Skirmish {
    /// `unit_died`.
    pub died: Emitter<UnitDied>,
    /// `wave_started`.
    pub waves: Emitter<WaveStarted>,
    next_unit: u32,
}

/// Kills a unit of the given kind and side.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "kill")]
pub struct Kill {
    /// What the unit is.
    pub kind: String,
    /// Its side.
    pub team: Team,
}

impl Handler<Skirmish> for Kill {
    type Output = u32;
    fn call(self, game: &mut Skirmish) -> Result<u32, ToolError> {
        game.next_unit += 1;
        game.died.emit(UnitDied {
            unit: game.next_unit,
            kind: self.kind,
            team: self.team,
        });
        Ok(game.next_unit)
    }
}

/// The registry and the game it serves.
pub fn registry() -> (Registry<Skirmish>, Skirmish) {
    let mut registry = Registry::new("skirmish", "1.0.0");
    registry.register::<Kill>();
    let died = registry.register_event(
        EventType::<UnitDied, ByTeam>::new("unit_died")
            .filter(|died, by| by.team.is_none_or(|team| team == died.team)),
    );
    let waves = registry.register_event(
        EventType::<WaveStarted>::new("wave_started")
            .delivery(&[mcp_bindgen::events::Delivery::Poll]),
    );
    (
        registry,
        Skirmish {
            died,
            waves,
            next_unit: 0,
        },
    )
}

/// The game on its own thread, a poll per ~1 ms frame, until dropped.
#[derive(Debug)]
pub struct Running {
    /// The port it serves on (127.0.0.1).
    pub port: u16,
    /// `unit_died`, to emit from the test.
    pub died: Emitter<UnitDied>,
    /// `wave_started`, to emit from the test.
    pub waves: Emitter<WaveStarted>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    /// Starts the game and its server.
    pub fn start() -> Running {
        let (registry, mut game) = registry();
        let (died, waves) = (game.died.clone(), game.waves.clone());
        let mut server = Server::listen(registry, 0).expect("listens on 127.0.0.1");
        let port = server.port();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = thread::spawn({
            let stop = stop.clone();
            move || {
                while !stop.load(Ordering::Relaxed) {
                    server.poll_for(&mut game, Duration::from_millis(1));
                    thread::sleep(Duration::from_millis(1));
                }
                server.destroy();
            }
        });
        Running {
            port,
            died,
            waves,
            stop,
            thread: Some(thread),
        }
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
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
