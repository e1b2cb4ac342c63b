//! The built-in tools about the app rather than its entities: `ping`, `context`, `get_logs`,
//! and the clock (`pause`, `resume`, `step`, `time_scale` on `Time<Virtual>`).

use bevy_ecs::resource::Resource;
use bevy_ecs::world::World;
use bevy_time::{Time, Virtual};
use mcp_bindgen::server::{Call, CallHandler, Handler, McpTool, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::McpStatus;
use crate::logs::{self, Level, Record};

fn status(world: &World) -> Result<&McpStatus, ToolError> {
    world.get_resource::<McpStatus>().ok_or_else(|| {
        ToolError::new("the MCP plugin's status is missing from the world").with_code("internal")
    })
}

/// Check that the app answers; returns the frame it answered in
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct Ping {}

/// `ping`'s answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Pong {
    /// Always true.
    pub pong: bool,
    /// The frame that answered (frames the plugin's system has run).
    pub frame: u64,
}

impl Handler<World> for Ping {
    type Output = Pong;
    fn call(self, world: &mut World) -> Result<Pong, ToolError> {
        Ok(Pong {
            pong: true,
            frame: status(world)?.frame,
        })
    }
}

/// The app's name, frame count, clock state and crash state
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct Context {}

/// `context`'s answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct AppContext {
    /// The app's name (the plugin's `name`).
    pub app: String,
    /// The app's version.
    pub version: String,
    /// Frames the plugin's system has run.
    pub frame: u64,
    /// Whether virtual time is paused; absent without `Time<Virtual>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// Virtual time's relative speed; absent without `Time<Virtual>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_scale: Option<f64>,
    /// Virtual seconds elapsed; absent without `Time<Virtual>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_secs: Option<f64>,
    /// Whether only read-only tools are served.
    pub read_only: bool,
    /// The first failure of a gameplay system, once one failed (crash mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crashed: Option<String>,
    /// Failures recorded so far (the first puts the server in crash mode).
    pub failures: u64,
    /// Step calls waiting for their frames.
    pub stepping: usize,
}

impl Handler<World> for Context {
    type Output = AppContext;
    fn call(self, world: &mut World) -> Result<AppContext, ToolError> {
        let status = status(world)?;
        let time = world.get_resource::<Time<Virtual>>();
        Ok(AppContext {
            app: status.name.clone(),
            version: status.version.clone(),
            frame: status.frame,
            paused: time.map(|t| t.is_paused()),
            time_scale: time.map(|t| t.relative_speed_f64()),
            elapsed_secs: time.map(|t| t.elapsed_secs_f64()),
            read_only: status.read_only,
            crashed: status.crashed.clone(),
            failures: status.failures,
            stepping: world
                .get_resource::<Stepping>()
                .map_or(0, |s| s.calls.len()),
        })
    }
}

/// The app's recent log records, oldest first, filtered by level and by sequence number
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct GetLogs {
    /// Only records after this sequence number (the `last_seq` of a previous call).
    #[serde(default)]
    pub since: Option<u64>,
    /// Only records at this level or more severe (default `trace`: all).
    #[serde(default)]
    pub level: Option<Level>,
    /// At most this many records (default 200).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10000))]
    pub limit: Option<u32>,
}

/// `get_logs`' answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Logs {
    /// The records.
    pub records: Vec<Record>,
    /// The newest record's sequence number (pass as `since` to get only newer ones).
    pub last_seq: u64,
}

impl Handler<World> for GetLogs {
    type Output = Logs;
    fn call(self, _: &mut World) -> Result<Logs, ToolError> {
        let (records, last_seq) = logs::read(
            self.since.unwrap_or(0),
            self.level.unwrap_or(Level::Trace),
            self.limit.unwrap_or(200).max(1) as usize,
        );
        Ok(Logs { records, last_seq })
    }
}

fn virtual_time(
    world: &mut World,
) -> Result<bevy_ecs::change_detection::Mut<'_, Time<Virtual>>, ToolError> {
    world.get_resource_mut::<Time<Virtual>>().ok_or_else(|| {
        ToolError::new("the world has no Time<Virtual> (add bevy_time's TimePlugin)")
            .with_code("no_time")
    })
}

/// The clock after `pause`, `resume` or `time_scale`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Clock {
    /// Whether virtual time is paused now.
    pub paused: bool,
    /// Whether it was paused before the call.
    pub was_paused: bool,
    /// Virtual time's relative speed now.
    pub time_scale: f64,
    /// Virtual seconds elapsed.
    pub elapsed_secs: f64,
}

fn clock(time: &Time<Virtual>, was_paused: bool) -> Clock {
    Clock {
        paused: time.is_paused(),
        was_paused,
        time_scale: time.relative_speed_f64(),
        elapsed_secs: time.elapsed_secs_f64(),
    }
}

/// Pause virtual time: systems still run each frame, but virtual time stops advancing
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct Pause {}

impl Handler<World> for Pause {
    type Output = Clock;
    fn call(self, world: &mut World) -> Result<Clock, ToolError> {
        let mut time = virtual_time(world)?;
        let was = time.is_paused();
        time.pause();
        let out = clock(&time, was);
        // A step in progress ends paused (it would otherwise end as it started).
        if let Some(mut stepping) = world.get_resource_mut::<Stepping>()
            && !stepping.calls.is_empty()
        {
            stepping.repause = true;
        }
        Ok(out)
    }
}

/// Resume virtual time
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct Resume {}

impl Handler<World> for Resume {
    type Output = Clock;
    fn call(self, world: &mut World) -> Result<Clock, ToolError> {
        let mut time = virtual_time(world)?;
        let was = time.is_paused();
        time.unpause();
        let out = clock(&time, was);
        if let Some(mut stepping) = world.get_resource_mut::<Stepping>() {
            stepping.repause = false;
        }
        Ok(out)
    }
}

/// Set virtual time's speed relative to real time (1 = normal, 0.5 = half speed)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct TimeScale {
    /// The new relative speed (0 or more).
    #[schemars(range(min = 0.0, max = 1000.0))]
    pub scale: f64,
}

impl Handler<World> for TimeScale {
    type Output = Clock;
    fn call(self, world: &mut World) -> Result<Clock, ToolError> {
        if !(self.scale.is_finite() && (0.0..=1000.0).contains(&self.scale)) {
            return Err(
                ToolError::new(format!("scale {} is not between 0 and 1000", self.scale))
                    .with_code("bad_value"),
            );
        }
        let mut time = virtual_time(world)?;
        let was = time.is_paused();
        time.set_relative_speed_f64(self.scale);
        Ok(clock(&time, was))
    }
}

/// Run `frames` frames with virtual time advancing (from paused, pausing again after them), answering once they ran, with progress each frame
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(task = "optional")]
pub struct Step {
    /// How many frames.
    #[schemars(range(min = 1, max = 100000))]
    pub frames: u32,
}

/// `step`'s answer.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Stepped {
    /// Frames run.
    pub frames: u32,
    /// The first frame of the step.
    pub first_frame: u64,
    /// The last frame of the step.
    pub last_frame: u64,
    /// Whether virtual time is paused after the step.
    pub paused: bool,
    /// Virtual seconds elapsed after the step.
    pub elapsed_secs: f64,
}

/// A step call waiting for its frames.
#[derive(Debug)]
pub(crate) struct Stepper {
    first_frame: u64,
    frames: u32,
    ran: u32,
    call: Call<Stepped>,
}

/// The step calls in progress, advanced by the plugin's system before it polls.
#[derive(Resource, Debug, Default)]
pub(crate) struct Stepping {
    calls: Vec<Stepper>,
    /// Pause virtual time again once the last step has run.
    repause: bool,
}

impl CallHandler<World> for Step {
    type Output = Stepped;
    fn start(self, world: &mut World, call: Call<Stepped>) {
        if self.frames == 0 {
            call.complete(Err(
                ToolError::new("frames must be at least 1").with_code("bad_value")
            ));
            return;
        }
        let frame = world.get_resource::<McpStatus>().map_or(0, |s| s.frame);
        let was_paused = world
            .get_resource_mut::<Time<Virtual>>()
            .is_some_and(|mut time| {
                let paused = time.is_paused();
                time.unpause();
                paused
            });
        let mut stepping = world.get_resource_or_insert_with(Stepping::default);
        if was_paused {
            stepping.repause = true;
        }
        stepping.calls.push(Stepper {
            first_frame: frame + 1,
            frames: self.frames,
            ran: 0,
            call,
        });
    }
}

/// One frame ran: each step call counts it, reports progress, and the finished ones answer
/// (pausing virtual time again when the step started paused and no step remains).
pub(crate) fn advance(world: &mut World, frame: u64) {
    let Some(mut stepping) = world.get_resource_mut::<Stepping>() else {
        return;
    };
    if stepping.calls.is_empty() && !stepping.repause {
        return;
    }
    // Calls answered otherwise (crash mode, their deadline) or whose client left.
    stepping.calls.retain(|s| !s.call.is_abandoned());
    let mut finished = Vec::new();
    for s in &mut stepping.calls {
        s.ran += 1;
        let message = format!("frame {} of {}", s.ran, s.frames);
        s.call
            .progress(f64::from(s.ran), Some(f64::from(s.frames)), Some(&message));
    }
    finished.extend(stepping.calls.extract_if(.., |s| s.ran >= s.frames));
    let repause = stepping.calls.is_empty() && std::mem::take(&mut stepping.repause);
    // The clock is set before the answers go out, so they report it.
    let (paused, elapsed_secs) = match world.get_resource_mut::<Time<Virtual>>() {
        Some(mut time) => {
            if repause {
                time.pause();
            }
            (time.is_paused(), time.elapsed_secs_f64())
        }
        None => (false, 0.0),
    };
    for s in finished {
        s.call.complete(Ok(Stepped {
            frames: s.ran,
            first_frame: s.first_frame,
            last_frame: frame,
            paused,
            elapsed_secs,
        }));
    }
}
