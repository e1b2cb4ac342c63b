//! The debug tools of seed 001, declared with `#[derive(McpTool)]`.

use std::collections::BTreeMap;

use hecs::Entity;
use std::time::Duration;

use mcp_bindgen::server::{Call, CallHandler, Handler, McpTool, Registry, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::components::{self, ComponentKind};
use crate::{Event, Game, Transform2D};

/// Registers every tool.
pub fn register(registry: &mut Registry<Game>) {
    registry
        .register::<ComponentsInfo>()
        .register::<Query>()
        .register::<Info>()
        .register::<Modify>()
        .register::<Set>()
        .register::<RunLua>()
        .register::<Ping>()
        .register::<Context>()
        .register::<GetLogs>()
        .register::<SendEvent>()
        .register::<PlacedCount>()
        // 3600 frames are a minute at 60 Hz; a slow or paused game gets twice that.
        .register_call::<RunFrames>(Duration::from_secs(120));
}

fn entity(game: &Game, id: u64) -> Result<Entity, ToolError> {
    Entity::from_bits(id)
        .filter(|e| game.world.contains(*e))
        .ok_or_else(|| ToolError::new(format!("no entity {id}")).with_code("no_such_entity"))
}

fn component(name: &str) -> Result<ComponentKind, ToolError> {
    components::find(name).ok_or_else(|| {
        let known: Vec<&str> = components::kinds().iter().map(|k| k.name).collect();
        ToolError::new(format!(
            "no component {name:?}; known: {}",
            known.join(", ")
        ))
        .with_code("no_such_component")
    })
}

/// An entity's components by name.
fn all_components(game: &Game, entity: Entity) -> BTreeMap<String, Value> {
    components::kinds()
        .iter()
        .filter_map(|k| (k.get)(&game.world, entity).map(|v| (k.name.to_owned(), v)))
        .collect()
}

/// List the component types and the JSON Schema of each.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
pub struct ComponentsInfo {}

/// One component type.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ComponentInfo {
    /// Its name, as `query`, `modify` and `set` take it.
    pub name: String,
    /// The JSON Schema of its value.
    pub schema: Value,
}

/// The component types.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ComponentsList {
    /// Every component type.
    pub components: Vec<ComponentInfo>,
}

impl Handler<Game> for ComponentsInfo {
    type Output = ComponentsList;
    fn call(self, _: &mut Game) -> Result<ComponentsList, ToolError> {
        Ok(ComponentsList {
            components: components::kinds()
                .into_iter()
                .map(|k| ComponentInfo {
                    name: k.name.to_owned(),
                    schema: (k.schema)(),
                })
                .collect(),
        })
    }
}

/// List entities that have all the given components, with those components' values.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
pub struct Query {
    /// Component names; every entity listed has all of them.
    pub include: Vec<String>,
    /// At most this many entities (default 100).
    pub limit: Option<u32>,
}

/// One entity and the requested components.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EntityComponents {
    /// The entity id (`info`, `modify` and `set` take it).
    pub id: u64,
    /// Component name → value.
    pub components: BTreeMap<String, Value>,
}

/// Entities found.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct QueryResult {
    /// How many entities match in all.
    pub total: usize,
    /// The first `limit` of them, by id.
    pub entities: Vec<EntityComponents>,
}

impl Handler<Game> for Query {
    type Output = QueryResult;
    fn call(self, game: &mut Game) -> Result<QueryResult, ToolError> {
        let kinds: Vec<ComponentKind> = self
            .include
            .iter()
            .map(|n| component(n))
            .collect::<Result<_, _>>()?;
        let Some(first) = kinds.first() else {
            return Err(
                ToolError::new("include names at least one component").with_code("empty_query")
            );
        };
        let matching: Vec<Entity> = (first.entities)(&game.world)
            .into_iter()
            .filter(|e| kinds.iter().all(|k| (k.get)(&game.world, *e).is_some()))
            .collect();
        let limit = self.limit.unwrap_or(100) as usize;
        Ok(QueryResult {
            total: matching.len(),
            entities: matching
                .into_iter()
                .take(limit)
                .map(|e| EntityComponents {
                    id: e.to_bits().get(),
                    components: kinds
                        .iter()
                        .filter_map(|k| (k.get)(&game.world, e).map(|v| (k.name.to_owned(), v)))
                        .collect(),
                })
                .collect(),
        })
    }
}

/// Show every component of one entity.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
pub struct Info {
    /// The entity id.
    pub entity: u64,
}

impl Handler<Game> for Info {
    type Output = EntityComponents;
    fn call(self, game: &mut Game) -> Result<EntityComponents, ToolError> {
        let e = entity(game, self.entity)?;
        Ok(EntityComponents {
            id: self.entity,
            components: all_components(game, e),
        })
    }
}

/// Partially update a component: merge `fields` into its value on each entity. Entities
/// without the component are skipped; changed columns are marked dirty.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(destructive, idempotent)]
pub struct Modify {
    /// The component name.
    pub component: String,
    /// The entities (default: every entity that has the component).
    pub entities: Option<Vec<u64>>,
    /// Fields to overwrite; the others keep their values.
    pub fields: Map<String, Value>,
}

/// What `modify` did.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ModifyResult {
    /// Entities updated.
    pub modified: Vec<u64>,
    /// Entities skipped because they lack the component.
    pub skipped: Vec<u64>,
}

impl Handler<Game> for Modify {
    type Output = ModifyResult;
    fn call(self, game: &mut Game) -> Result<ModifyResult, ToolError> {
        let kind = component(&self.component)?;
        let targets: Vec<Entity> = match &self.entities {
            Some(ids) => ids
                .iter()
                .map(|id| entity(game, *id))
                .collect::<Result<_, _>>()?,
            None => (kind.entities)(&game.world),
        };
        let mut result = ModifyResult {
            modified: Vec::new(),
            skipped: Vec::new(),
        };
        for e in targets {
            let id = e.to_bits().get();
            let Some(Value::Object(mut value)) = (kind.get)(&game.world, e) else {
                result.skipped.push(id);
                continue;
            };
            for (k, v) in &self.fields {
                if !value.contains_key(k) {
                    return Err(ToolError::new(format!("{} has no field {k:?}", kind.name))
                        .with_code("no_such_field"));
                }
                value.insert(k.clone(), v.clone());
            }
            (kind.set)(&mut game.world, e, Value::Object(value))
                .map_err(|m| ToolError::new(m).with_code("invalid_value"))?;
            game.dirty.insert((id, kind.name));
            result.modified.push(id);
        }
        Ok(result)
    }
}

/// Set a component's complete value on an entity, adding the component when it is missing.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(destructive, idempotent)]
pub struct Set {
    /// The entity id.
    pub entity: u64,
    /// The component name.
    pub component: String,
    /// The whole value.
    pub value: Value,
}

/// What `set` did.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SetResult {
    /// Whether the component was added (the entity did not have it).
    pub added: bool,
}

impl Handler<Game> for Set {
    type Output = SetResult;
    fn call(self, game: &mut Game) -> Result<SetResult, ToolError> {
        let e = entity(game, self.entity)?;
        let kind = component(&self.component)?;
        let added = (kind.set)(&mut game.world, e, self.value)
            .map_err(|m| ToolError::new(m).with_code("invalid_value"))?;
        game.dirty.insert((self.entity, kind.name));
        Ok(SetResult { added })
    }
}

/// Run Lua in a sandbox (no io, os or package; 16 MiB; 10 million instructions) with read
/// access to the world: `entity_count()`, `get(id, component)`. Prefer the structured tools;
/// the sandbox limits accidents but does not create a security boundary.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(destructive)]
pub struct RunLua {
    /// A Lua chunk; its return value is the result.
    pub code: String,
}

/// The chunk's return value.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LuaResult {
    /// The value, as JSON (`null` when the chunk returns nothing).
    pub value: Value,
}

impl Handler<Game> for RunLua {
    type Output = LuaResult;
    fn call(self, game: &mut Game) -> Result<LuaResult, ToolError> {
        use mlua::{HookTriggers, Lua, LuaOptions, LuaSerdeExt, StdLib, VmState};
        let lua_error = |e: mlua::Error| ToolError::new(e.to_string()).with_code("lua_error");
        let lua = Lua::new_with(
            StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8,
            LuaOptions::default(),
        )
        .map_err(lua_error)?;
        lua.set_memory_limit(16 * 1024 * 1024).map_err(lua_error)?;
        let budget = std::sync::atomic::AtomicU32::new(1_000);
        lua.set_hook(
            HookTriggers::new().every_nth_instruction(10_000),
            move |_, _| {
                if budget.fetch_sub(1, std::sync::atomic::Ordering::Relaxed) == 0 {
                    return Err(mlua::Error::runtime("instruction budget exhausted"));
                }
                Ok(VmState::Continue)
            },
        )
        .map_err(lua_error)?;
        let world = &game.world;
        let value = lua
            .scope(|scope| {
                let globals = lua.globals();
                globals.set(
                    "entity_count",
                    scope.create_function(|_, ()| Ok(world.len()))?,
                )?;
                globals.set(
                    "get",
                    scope.create_function(|lua, (id, name): (u64, String)| {
                        let value = Entity::from_bits(id)
                            .filter(|e| world.contains(*e))
                            .zip(components::find(&name))
                            .and_then(|(e, k)| (k.get)(world, e));
                        lua.to_value(&value)
                    })?,
                )?;
                let result: mlua::Value = lua.load(&self.code).set_name("run_lua").eval()?;
                lua.from_value::<Value>(result)
            })
            .map_err(lua_error)?;
        Ok(LuaResult { value })
    }
}

/// Check that the server answers; works after a crash.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct Ping {}

/// The answer to `ping`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Pong {
    /// Always true.
    pub pong: bool,
    /// The frame the game is at.
    pub frame: u64,
}

impl Handler<Game> for Ping {
    type Output = Pong;
    fn call(self, game: &mut Game) -> Result<Pong, ToolError> {
        Ok(Pong {
            pong: true,
            frame: game.frame,
        })
    }
}

/// Describe the running game; works after a crash.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, when_crashed)]
pub struct Context {}

/// The game's state.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameContext {
    /// The frame the game is at.
    pub frame: u64,
    /// Entities alive.
    pub entities: u32,
    /// Frames per second the loop aims at.
    pub target_fps: u32,
    /// The crash traceback, when gameplay has crashed.
    pub crash: Option<String>,
}

impl Handler<Game> for Context {
    type Output = GameContext;
    fn call(self, game: &mut Game) -> Result<GameContext, ToolError> {
        Ok(GameContext {
            frame: game.frame,
            entities: game.world.len(),
            target_fps: 60,
            crash: game.crash.clone(),
        })
    }
}

/// Read the most recent log lines; works after a crash.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, when_crashed)]
pub struct GetLogs {
    /// How many lines, newest last (default 50).
    pub limit: Option<u32>,
}

/// Log lines.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Logs {
    /// Oldest first.
    pub lines: Vec<String>,
}

impl Handler<Game> for GetLogs {
    type Output = Logs;
    fn call(self, game: &mut Game) -> Result<Logs, ToolError> {
        Ok(Logs {
            lines: game.logs(self.limit.unwrap_or(50) as usize),
        })
    }
}

/// Counts the entities inside the arena (0 <= x, y <= 100). Served only while the arena is
/// open: gameplay registers it on the `open_arena` event and removes it on `close_arena`.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "arena_census", read_only)]
pub struct ArenaCensus {}

/// The entities inside the arena.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Census {
    /// How many there are.
    pub inside: usize,
}

impl Handler<Game> for ArenaCensus {
    type Output = Census;
    fn call(self, game: &mut Game) -> Result<Census, ToolError> {
        let inside = game
            .world
            .query::<&Transform2D>()
            .iter()
            .filter(|t| (0.0..=100.0).contains(&t.x) && (0.0..=100.0).contains(&t.y))
            .count();
        Ok(Census { inside })
    }
}

/// Send an event to gameplay, handled on the next frame (`spawn` with `{x, y}` places an
/// entity, `destroy` with `{entity}` removes one); works after a crash.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(when_crashed)]
pub struct SendEvent {
    /// The event name.
    pub name: String,
    /// Event data.
    pub payload: Option<Value>,
}

/// Where the event went.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Queued {
    /// Its position in the event queue.
    pub queued: usize,
}

impl Handler<Game> for SendEvent {
    type Output = Queued;
    fn call(self, game: &mut Game) -> Result<Queued, ToolError> {
        let queued = game.send_event(Event {
            name: self.name,
            payload: self.payload.unwrap_or(Value::Null),
        });
        Ok(Queued { queued })
    }
}

/// Count entities that carry a Transform2D
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
pub struct PlacedCount {}

/// How many.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Count {
    /// Entities with a Transform2D.
    pub count: u32,
}

impl Handler<Game> for PlacedCount {
    type Output = Count;
    fn call(self, game: &mut Game) -> Result<Count, ToolError> {
        let count = game.world.query::<&Transform2D>().iter().count();
        Ok(Count {
            count: u32::try_from(count).unwrap_or(u32::MAX),
        })
    }
}

/// Let the game run `frames` more frames (1 to 3600, 60 per second), then report the frame
/// reached and the entity count. Reports progress every frame when the client asks for it.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(title = "Run frames", task = "optional")]
pub struct RunFrames {
    /// Frames to run, 1 to 3600.
    #[schemars(range(min = 1, max = 3600))]
    pub frames: u32,
}

/// Where the game got to.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FramesRun {
    /// The frame reached.
    pub frame: u64,
    /// Frames run for this call.
    pub frames: u32,
    /// Entities in the world then.
    pub entities: u32,
}

impl CallHandler<Game> for RunFrames {
    type Output = FramesRun;
    fn start(self, game: &mut Game, call: Call<FramesRun>) {
        game.run_frames(self.frames, call);
    }
}
