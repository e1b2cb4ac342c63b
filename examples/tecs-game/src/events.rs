//! What gameplay tells agents as it happens (the MCP Events extension, 2026-07-28): an entity
//! spawned or destroyed, the arena opened, a line logged at error level. Each is emitted in the
//! frame it happens; an agent streams it (`events/stream`) or polls it (`events/poll`) instead
//! of polling `get_logs` or `query` in a loop.

use mcp_bindgen::server::{Emitter, EventType, Registry};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Game;

/// An entity was spawned (by the `spawn` event of `send_event`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntitySpawned {
    /// The entity's id (its `to_bits`).
    pub entity: u64,
    /// Where, in world units.
    pub x: f32,
    /// Where, in world units.
    pub y: f32,
    /// The frame it happened in.
    pub frame: u64,
}

/// An entity was destroyed (by the `destroy` event of `send_event`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntityDestroyed {
    /// The entity's id (its `to_bits`).
    pub entity: u64,
    /// Its `Label`'s text, when it had one.
    pub label: Option<String>,
    /// The frame it happened in.
    pub frame: u64,
}

/// Which destructions a subscription hears.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DestroyedFilter {
    /// Only entities whose label starts with this; all when absent.
    pub label_prefix: Option<String>,
}

/// The arena opened (`arena_census` is served from now on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArenaOpened {
    /// The frame it happened in.
    pub frame: u64,
}

/// Gameplay logged a line at error level (a crash: the world stops advancing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorLogged {
    /// The line, as `get_logs` returns it.
    pub line: String,
    /// The frame it happened in.
    pub frame: u64,
}

/// The event types' names.
pub const ENTITY_SPAWNED: &str = "entity_spawned";
/// See [`EntityDestroyed`].
pub const ENTITY_DESTROYED: &str = "entity_destroyed";
/// See [`ArenaOpened`].
pub const ARENA_OPENED: &str = "arena_opened";
/// See [`ErrorLogged`].
pub const ERROR_LOGGED: &str = "error_logged";

/// Declares the game's event types.
pub fn register(registry: &mut Registry<Game>) {
    registry.register_event(EventType::<EntitySpawned>::new(ENTITY_SPAWNED));
    registry.register_event(
        EventType::<EntityDestroyed, DestroyedFilter>::new(ENTITY_DESTROYED).filter(
            |destroyed, filter| match (&filter.label_prefix, &destroyed.label) {
                (None, _) => true,
                (Some(prefix), Some(label)) => label.starts_with(prefix.as_str()),
                (Some(_), None) => false,
            },
        ),
    );
    registry.register_event(EventType::<ArenaOpened>::new(ARENA_OPENED));
    registry.register_event(EventType::<ErrorLogged>::new(ERROR_LOGGED));
}

/// What gameplay emits with, found in the registry it serves.
#[derive(Debug, Clone)]
pub struct Emitters {
    /// `entity_spawned`.
    pub spawned: Option<Emitter<EntitySpawned>>,
    /// `entity_destroyed`.
    pub destroyed: Option<Emitter<EntityDestroyed>>,
    /// `arena_opened`.
    pub arena_opened: Option<Emitter<ArenaOpened>>,
    /// `error_logged`.
    pub error_logged: Option<Emitter<ErrorLogged>>,
}

impl Emitters {
    /// The emitters of `registry`'s event types (none for a type it does not serve).
    pub fn of(registry: &Registry<Game>) -> Self {
        Emitters {
            spawned: registry.emitter(ENTITY_SPAWNED),
            destroyed: registry.emitter(ENTITY_DESTROYED),
            arena_opened: registry.emitter(ARENA_OPENED),
            error_logged: registry.emitter(ERROR_LOGGED),
        }
    }
}
