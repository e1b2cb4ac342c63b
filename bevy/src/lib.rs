//! A Bevy plugin that serves an app's world to agents over MCP, from inside the app.
//!
//! `app.add_plugins(McpPlugin::default())` listens on `127.0.0.1:7100/mcp` (Streamable HTTP,
//! both protocol eras) on a background thread; one exclusive system, once per frame in the
//! `Last` schedule, answers the queued calls with `&mut World` through
//! [`Server::poll_for`](mcp_bindgen::server::Server::poll_for) within a frame budget (1 ms by
//! default). Nothing waits on the network in the frame: with no call queued, the system costs
//! a few atomic loads.
//!
//! Tools:
//! - your own, declared with `#[derive(McpTool)]` and implementing `Handler<World>` (or
//!   `CallHandler<World>` to answer on a later frame, with progress), registered with
//!   [`McpAppExt::add_mcp_tool`] / [`McpAppExt::add_mcp_call_tool`], or while the app runs
//!   (a level that loads brings its tools) with the [`McpTools`] resource, from a system or a
//!   tool handler; connected clients are told of each change in the frame it is made;
//! - the built-ins, on the app's reflection (`AppTypeRegistry`): `components_info`, `query`,
//!   `get`, `insert`, `modify`, `remove`, `spawn`, `despawn`, `resource_get`,
//!   `resource_set`, `send_event`, `get_logs`, `pause`, `resume`, `step`, `time_scale`,
//!   `ping`, `context` (see [`builtins`]).
//!
//! Skills: the Agent Skills in `assets/skills/` (one folder each, a `SKILL.md` and its files;
//! or the folder [`McpPlugin::skills`] names) are served to agents (`skills/list`,
//! `resources/read`), so that the game can tell them how to play it with its tools.
//!
//! Resources (read-only, served in read-only mode too): `bevy://logs` (the newest log records,
//! JSON) and the template `bevy://entity/{entity}` (an entity's reflectable components, as
//! `get` gives them), whose `entity` variable completes from the world's entities
//! (`completion/complete`).
//!
//! Crash access: the plugin installs Bevy's fallback error handler, so a system that returns
//! an error or panics (Bevy's executor contains the panic) is logged and recorded, the app keeps
//! running, and the server enters crash mode: `ping`, `context`, `get_logs` and the tools
//! marked `when_crashed` answer; the others answer with the recorded failure.
//!
//! ```no_run
//! use bevy_app::App;
//! use bevy_ecs::world::World;
//! use mcp_bindgen::server::{Handler, McpTool, ToolError};
//! use mcp_bindgen_bevy::{McpAppExt, McpPlugin};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// Count the entities in the world
//! #[derive(McpTool, Deserialize, JsonSchema)]
//! #[mcp(read_only)]
//! struct EntityCount {}
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Count { count: u32 }
//!
//! impl Handler<World> for EntityCount {
//!     type Output = Count;
//!     fn call(self, world: &mut World) -> Result<Count, ToolError> {
//!         Ok(Count { count: world.entities().count_spawned() })
//!     }
//! }
//!
//! App::new()
//!     .add_plugins(McpPlugin::default().name("my-game").port(7100))
//!     .add_mcp_tool::<EntityCount>()
//!     .run();
//! ```

#![warn(missing_docs)]

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bevy_app::{App, Last, Plugin};
use bevy_ecs::change_detection::DetectChangesMut;
use bevy_ecs::error::FallbackErrorHandler;
use bevy_ecs::intern::Interned;
use bevy_ecs::resource::Resource;
use bevy_ecs::schedule::ScheduleLabel;
use bevy_ecs::world::{Mut, World};
use mcp_bindgen::server::{
    CallHandler, Handler, PollStats, ProtectedResource, Registrar, Registry, Server, ServerBuilder,
    ToolDefinition,
};

mod app_tools;
mod crash;
mod events;
mod logs;
mod reflect;
mod resources;
mod world_tools;

pub use crash::record_failure;
pub use events::{ComponentChanged, EntityFilter, McpEventsExt};
pub use logs::{Level, Record, push as push_log};

/// The built-in tools' argument and result types (what the generated client's types mirror).
pub mod builtins {
    pub use crate::reflect::Reflected;

    pub use crate::app_tools::{
        AppContext, Clock, Context, GetLogs, Logs, Pause, Ping, Pong, Resume, Step, Stepped,
        TimeScale,
    };
    pub use crate::world_tools::{
        Changed, Components, ComponentsInfo, Despawn, Despawned, EntityRow, Get, Insert, Modify,
        Query, QueryPage, Remove, Removed, ResourceGet, ResourceSet, ResourceValue, SendEvent,
        Sent, Spawn, Spawned, TypeEntry, TypesInfo,
    };
}

/// How long a `step` call may wait for its frames before the server answers it with a
/// `deadline` error.
const STEP_DEADLINE: Duration = Duration::from_secs(600);

/// The plugin: settings of the server and of what it serves. Build it with
/// `McpPlugin::default()` and the setters.
#[derive(Debug, Clone)]
pub struct McpPlugin {
    name: String,
    version: String,
    port: u16,
    path: String,
    bearer_tokens: Vec<String>,
    oauth: Option<ProtectedResource>,
    frame_budget: Duration,
    schedule: Interned<dyn ScheduleLabel>,
    read_only: bool,
    builtins: bool,
    crash_access: bool,
    capture_log: Option<log::LevelFilter>,
    log_capacity: usize,
    instructions: Option<String>,
    /// The folder of skills to serve; `None`: `assets/skills` under the asset root, if any.
    skills: Option<std::path::PathBuf>,
}

impl Default for McpPlugin {
    fn default() -> Self {
        McpPlugin {
            name: "bevy-app".to_owned(),
            version: "0.0.0".to_owned(),
            port: 7100,
            path: "/mcp".to_owned(),
            bearer_tokens: Vec::new(),
            oauth: None,
            frame_budget: Duration::from_millis(1),
            schedule: Last.intern(),
            read_only: false,
            builtins: true,
            crash_access: true,
            capture_log: Some(log::LevelFilter::Info),
            log_capacity: 1000,
            instructions: None,
            skills: None,
        }
    }
}

impl McpPlugin {
    /// The server's name in `serverInfo` and `context` (default `bevy-app`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server's version in `serverInfo` and `context` (default `0.0.0`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The TCP port on 127.0.0.1 (default 7100; 0 picks a free one, see [`McpEndpoint`]).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request. Called more than once, each
    /// token is accepted and is a client of its own: its tasks are not another token's (see
    /// `ServerBuilder::bearer_token`).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_tokens.push(token.into());
        self
    }

    /// Protects the endpoint with OAuth 2.1: the server publishes its protected resource
    /// metadata and accepts a request whose bearer token the resource's check vouches for
    /// (see `ServerBuilder::oauth` and [`ProtectedResource`]).
    pub fn oauth(mut self, resource: ProtectedResource) -> Self {
        self.oauth = Some(resource);
        self
    }

    /// The time a frame may spend answering calls (default 1 ms): at least one queued call
    /// runs each frame, then more while the budget lasts.
    pub fn frame_budget(mut self, budget: Duration) -> Self {
        self.frame_budget = budget;
        self
    }

    /// The schedule the polling system runs in (default `Last`).
    pub fn schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }

    /// Serves only the tools marked `read_only` (built-ins and yours); the others are not
    /// listed and calling them is an unknown-tool error.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Whether the built-in tools are served (default true).
    pub fn builtins(mut self, builtins: bool) -> Self {
        self.builtins = builtins;
        self
    }

    /// Whether the plugin installs its fallback error handler ([`record_failure`]), which
    /// records failing systems and enters crash mode where Bevy's default handler would panic
    /// (default true). It replaces a `FallbackErrorHandler` inserted before the plugin; turn
    /// this off to keep yours (crash mode then needs your handler to call [`record_failure`]).
    pub fn crash_access(mut self, on: bool) -> Self {
        self.crash_access = on;
        self
    }

    /// Installs a `log` logger keeping records up to `level` for `get_logs` (default
    /// `Some(Info)`; `None` installs none). The logger is process-wide: when another was
    /// installed first, `get_logs` has only the plugin's own records (start, failures).
    pub fn capture_log(mut self, level: Option<log::LevelFilter>) -> Self {
        self.capture_log = level;
        self
    }

    /// How many log records `get_logs` keeps (default 1000).
    pub fn log_capacity(mut self, records: usize) -> Self {
        self.log_capacity = records;
        self
    }

    /// The `instructions` sent to clients at initialization.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Serves the Agent Skills in `dir`: each folder in it is a skill, its `SKILL.md` and the
    /// files beside it ([`Skill::from_dir`](mcp_bindgen::server::Skill::from_dir)), listed with
    /// `skills/list` and read with `resources/read`. Default: `assets/skills` under the app's
    /// asset root, as Bevy's asset server finds it (`BEVY_ASSET_ROOT`, else the package's
    /// folder under `cargo run`, else the executable's folder), when that folder exists. A
    /// skill that cannot be served stops the server from starting, with its path and what to
    /// do ([`McpListenError`]).
    pub fn skills(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills = Some(dir.into());
        self
    }
}

/// The folder of skills `config` serves, if there is one.
fn skills_dir(config: &McpPlugin) -> Option<std::path::PathBuf> {
    if let Some(dir) = &config.skills {
        return Some(dir.clone());
    }
    let root = std::env::var_os("BEVY_ASSET_ROOT")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            exe.parent().map(std::path::Path::to_path_buf)
        })?;
    Some(root.join("assets").join("skills")).filter(|dir| dir.is_dir())
}

/// Where the server listens, inserted once it does (in `App::finish`, or on the first frame).
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct McpEndpoint {
    /// The bound port.
    pub port: u16,
    /// The endpoint's URL (`http://127.0.0.1:<port><path>`).
    pub url: String,
}

/// Why the server could not start (a busy port, a skill that cannot be served), inserted
/// instead of [`McpEndpoint`]. The app runs on without the server.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct McpListenError(pub String);

/// What the plugin knows of the app, kept current each frame a call runs (read by `context`).
#[derive(Resource, Debug, Clone)]
pub struct McpStatus {
    /// The server's name.
    pub name: String,
    /// The server's version.
    pub version: String,
    /// Frames the plugin's system has run.
    pub frame: u64,
    /// Whether only read-only tools are served.
    pub read_only: bool,
    /// The first failure recorded (crash mode), if any.
    pub crashed: Option<String>,
    /// Failures recorded so far.
    pub failures: u64,
    /// What the last frame that polled did (calls run, time spent, the longest call): frames
    /// with nothing queued do not poll and leave it as it was.
    pub last_poll: PollStats,
}

type Registration = Box<dyn FnOnce(&mut Registry<World>) + Send + Sync>;

/// Tools added before the server started.
#[derive(Resource, Default)]
struct PendingTools(Vec<(bool, &'static str, Registration)>);

/// The settings the server starts with.
#[derive(Resource)]
struct McpConfig(McpPlugin);

/// The running server.
#[derive(Resource)]
struct McpServer {
    /// Reached through `get_mut` each frame (the world hands out `&mut`: no locking);
    /// only [`served_tools`] locks it.
    server: Mutex<Server<World>>,
    sink: Arc<crash::Sink>,
    budget: Duration,
    frame: u64,
}

impl Plugin for McpPlugin {
    fn build(&self, app: &mut App) {
        logs::reserve(self.log_capacity);
        if let Some(level) = self.capture_log {
            logs::install(level);
        }
        let sink = Arc::new(crash::Sink::default());
        crash::claim_thread(&sink);
        let world = app.world_mut();
        if self.crash_access {
            world.insert_resource(FallbackErrorHandler(crash::record_failure));
        }
        world.insert_resource(McpStatus {
            name: self.name.clone(),
            version: self.version.clone(),
            frame: 0,
            read_only: self.read_only,
            crashed: None,
            failures: 0,
            last_poll: PollStats::default(),
        });
        world.init_resource::<app_tools::Stepping>();
        world.init_resource::<PendingTools>();
        world.insert_resource(McpConfig(self.clone()));
        world.insert_resource(PendingCrashSink(sink));
        app.add_systems(self.schedule, poll);
    }

    fn finish(&self, app: &mut App) {
        start(app.world_mut());
    }
}

/// Adds and removes the app's tools while it runs, from a system (`Res<McpTools>`) or a tool
/// handler (`world.resource::<McpTools>()`). Changes take effect in the plugin's system of the
/// frame they are made in, and the clients that listen (legacy GET streams, 2026-07-28
/// `subscriptions/listen`) are told in that frame, once however many changes it made. Present
/// once the server started (see [`McpEndpoint`]).
///
/// ```no_run
/// use bevy_ecs::system::Res;
/// # use bevy_ecs::world::World;
/// # use mcp_bindgen::server::{Handler, McpTool, ToolError};
/// use mcp_bindgen_bevy::McpTools;
/// # /// Open the boss door.
/// # #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
/// # struct OpenBossDoor {}
/// # impl Handler<World> for OpenBossDoor {
/// #     type Output = ();
/// #     fn call(self, _: &mut World) -> Result<(), ToolError> { Ok(()) }
/// # }
///
/// fn boss_level_loaded(tools: Res<McpTools>) {
///     tools.register::<OpenBossDoor>();
/// }
/// ```
#[derive(Resource, Clone, Debug)]
pub struct McpTools {
    registrar: Registrar<World>,
    read_only: bool,
}

impl McpTools {
    /// Serves the tool `T` from the next frame's poll on (in read-only mode, only when `T` is
    /// marked `read_only`). Registering a name again replaces the tool.
    pub fn register<T: Handler<World>>(&self) {
        if self.serves(T::ANNOTATIONS.read_only, T::NAME) {
            self.registrar.register::<T>();
        }
    }

    /// Serves the tool `T`, answered through a `Call` (see
    /// [`McpAppExt::add_mcp_call_tool`]).
    pub fn register_call<T: CallHandler<World>>(&self, deadline: Duration) {
        if self.serves(T::ANNOTATIONS.read_only, T::NAME) {
            self.registrar.register_call::<T>(deadline);
        }
    }

    /// Stops serving the tool `name` (built-ins included).
    pub fn unregister(&self, name: impl Into<String>) {
        self.registrar.unregister(name);
    }

    fn serves(&self, read_only: bool, name: &str) -> bool {
        if self.read_only && !read_only {
            log::info!("mcp: read-only mode: not serving `{name}`");
            return false;
        }
        true
    }
}

/// The crash sink between `build` and `start`.
#[derive(Resource)]
struct PendingCrashSink(Arc<crash::Sink>);

fn register_builtins(registry: &mut Registry<World>, read_only: bool) {
    use app_tools::*;
    use world_tools::*;
    fn add<T: Handler<World>>(registry: &mut Registry<World>, read_only: bool) {
        if !read_only || T::ANNOTATIONS.read_only {
            registry.register::<T>();
        }
    }
    add::<Ping>(registry, read_only);
    add::<Context>(registry, read_only);
    add::<GetLogs>(registry, read_only);
    add::<ComponentsInfo>(registry, read_only);
    add::<Query>(registry, read_only);
    add::<Get>(registry, read_only);
    add::<Insert>(registry, read_only);
    add::<Modify>(registry, read_only);
    add::<Remove>(registry, read_only);
    add::<Spawn>(registry, read_only);
    add::<Despawn>(registry, read_only);
    add::<ResourceGet>(registry, read_only);
    add::<ResourceSet>(registry, read_only);
    add::<SendEvent>(registry, read_only);
    add::<Pause>(registry, read_only);
    add::<Resume>(registry, read_only);
    add::<TimeScale>(registry, read_only);
    if !read_only {
        registry.register_call::<Step>(STEP_DEADLINE);
    }
    resources::register(registry);
}

/// Starts the server with the settings and the tools added so far (once).
fn start(world: &mut World) {
    if world.contains_resource::<McpServer>() || world.contains_resource::<McpListenError>() {
        return;
    }
    let Some(McpConfig(config)) = world.remove_resource::<McpConfig>() else {
        return;
    };
    let sink = world
        .remove_resource::<PendingCrashSink>()
        .map_or_else(|| Arc::new(crash::Sink::default()), |s| s.0);
    crash::claim_thread(&sink);
    let mut registry = Registry::new(config.name.clone(), config.version.clone());
    if let Some(instructions) = &config.instructions {
        registry = registry.with_instructions(instructions.clone());
    }
    if config.builtins {
        register_builtins(&mut registry, config.read_only);
    }
    let pending = world
        .remove_resource::<PendingTools>()
        .map(|p| p.0)
        .unwrap_or_default();
    for (read_only, name, register) in pending {
        if config.read_only && !read_only {
            log::info!("mcp: read-only mode: not serving `{name}`");
            continue;
        }
        register(&mut registry);
    }
    let events = world
        .remove_resource::<events::PendingEvents>()
        .map(|p| p.0)
        .unwrap_or_default();
    for register in events {
        let insert = register(&mut registry);
        insert(world);
    }
    if let Some(dir) = skills_dir(&config)
        && let Err(e) = registry.register_skills_dir(&dir)
    {
        let message = format!("the MCP server cannot start: {e}");
        logs::push(Level::Error, "mcp_bindgen_bevy", message.clone());
        eprintln!("ERROR {message}");
        world.insert_resource(McpListenError(message));
        return;
    }
    let mut builder = ServerBuilder::new()
        .port(config.port)
        .path(config.path.clone());
    for token in &config.bearer_tokens {
        builder = builder.bearer_token(token.clone());
    }
    if let Some(resource) = &config.oauth {
        builder = builder.oauth(resource.clone());
    }
    let tools = McpTools {
        registrar: registry.registrar(),
        read_only: config.read_only,
    };
    match builder.listen(registry) {
        Ok(server) => {
            world.insert_resource(tools);
            let port = server.port();
            let url = format!("http://127.0.0.1:{port}{}", config.path);
            logs::push(
                Level::Info,
                "mcp_bindgen_bevy",
                format!("MCP server listening on {url}"),
            );
            world.insert_resource(McpEndpoint { port, url });
            world.insert_resource(McpServer {
                server: Mutex::new(server),
                sink,
                budget: config.frame_budget,
                frame: 0,
            });
        }
        Err(e) => {
            let message = format!("the MCP server cannot start: {e}");
            logs::push(Level::Error, "mcp_bindgen_bevy", message.clone());
            eprintln!("ERROR {message}");
            world.insert_resource(McpListenError(message));
        }
    }
}

/// The plugin's system: once per frame, counts the frame and, only when something waits (a
/// queued call, a deferred call, a recorded failure, a change to the tools), advances the step
/// calls, answers calls within the frame budget and announces the changes.
fn poll(world: &mut World) {
    let Some(mut server) = world.get_resource_mut::<McpServer>() else {
        // Not started yet (`App::finish` not called): start now.
        if world.contains_resource::<McpConfig>() {
            start(world);
        }
        return;
    };
    let server = server.bypass_change_detection();
    server.frame += 1;
    crash::claim_thread(&server.sink);
    let failed = server.sink.pending();
    let inner = server
        .server
        .get_mut()
        .unwrap_or_else(PoisonError::into_inner);
    if !failed
        && inner.queued() == 0
        && inner.registry().deferred_calls() == 0
        && !inner.registry().changes_pending()
    {
        return;
    }
    world.resource_scope(|world, mut server: Mut<'_, McpServer>| {
        let server = server.bypass_change_detection();
        let frame = server.frame;
        let failures = if failed {
            server.sink.take()
        } else {
            Vec::new()
        };
        let inner = server
            .server
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(first) = failures.first()
            && inner.registry().crashed().is_none()
        {
            inner.registry_mut().set_crashed(first.clone());
        }
        if let Some(mut status) = world.get_resource_mut::<McpStatus>() {
            status.frame = frame;
            status.failures += failures.len() as u64;
            if status.crashed.is_none() {
                status.crashed = inner.registry().crashed().map(str::to_owned);
            }
        }
        app_tools::advance(world, frame);
        let stats = inner.poll_for(world, server.budget);
        if let Some(mut status) = world.get_resource_mut::<McpStatus>() {
            status.last_poll = stats;
        }
    });
}

/// Registering tools on an [`App`].
pub trait McpAppExt {
    /// Serves the tool `T` (a `#[derive(McpTool)]` type with a `Handler<World>`). In
    /// read-only mode, only when `T` is marked `read_only`. May be called before or after
    /// adding [`McpPlugin`], and after the server started.
    fn add_mcp_tool<T: Handler<World>>(&mut self) -> &mut Self;

    /// Serves the tool `T`, whose handler gets a `Call` to report progress through and answer
    /// with, now or on a later frame (store it in a resource); a call not answered within
    /// `deadline` is answered with a `deadline` tool error.
    fn add_mcp_call_tool<T: CallHandler<World>>(&mut self, deadline: Duration) -> &mut Self;
}

impl McpAppExt for App {
    fn add_mcp_tool<T: Handler<World>>(&mut self) -> &mut Self {
        add_tool(
            self.world_mut(),
            T::ANNOTATIONS.read_only,
            T::NAME,
            Box::new(|registry| {
                registry.register::<T>();
            }),
        );
        self
    }

    fn add_mcp_call_tool<T: CallHandler<World>>(&mut self, deadline: Duration) -> &mut Self {
        add_tool(
            self.world_mut(),
            T::ANNOTATIONS.read_only,
            T::NAME,
            Box::new(move |registry| {
                registry.register_call::<T>(deadline);
            }),
        );
        self
    }
}

fn add_tool(world: &mut World, read_only: bool, name: &'static str, register: Registration) {
    let serving_read_only = world
        .get_resource::<McpStatus>()
        .is_some_and(|s| s.read_only);
    if let Some(mut server) = world.get_resource_mut::<McpServer>() {
        if serving_read_only && !read_only {
            log::info!("mcp: read-only mode: not serving `{name}`");
            return;
        }
        let server = server
            .server
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        register(server.registry_mut());
        return;
    }
    world
        .get_resource_or_insert_with(PendingTools::default)
        .0
        .push((read_only, name, register));
}

/// The event types the running server serves, in `events/list` order; empty before the
/// server started or when it could not listen.
pub fn served_events(world: &World) -> Vec<mcp_bindgen::events::EventDescriptor> {
    world
        .get_resource::<McpServer>()
        .map_or_else(Vec::new, |s| {
            s.server
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .registry()
                .event_types()
        })
}

/// The tools the running server serves, in `tools/list` order (their `to_json` is what
/// `tools/list` sends); empty before the server started or when it could not listen.
pub fn served_tools(world: &World) -> Vec<ToolDefinition> {
    world
        .get_resource::<McpServer>()
        .map_or_else(Vec::new, |s| {
            s.server
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .registry()
                .tools()
                .cloned()
                .collect()
        })
}

/// Requests that came in and wait for the plugin's system (it answers them in the schedule
/// [`McpPlugin::schedule`] names, [`McpPlugin::frame_budget`] at a time): the queue depth
/// now, for a debug overlay or a test. 0 before the server started.
pub fn queued_calls(world: &World) -> usize {
    world.get_resource::<McpServer>().map_or(0, |s| {
        s.server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .queued()
    })
}
