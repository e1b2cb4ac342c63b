// The README's Bevy example, compiled with the crate's examples (`bevy/tests/readme.rs` checks
// that the README shows this file's code as it is). Its Cargo.toml:
//
// [dependencies]
// mcp-bindgen = { version = "0.1", features = ["server"] }
// mcp-bindgen-bevy = "0.1"
// bevy_app = "0.20"
// bevy_ecs = "0.20"
// bevy_time = "0.20"
// serde = { version = "1", features = ["derive"] }
// schemars = "1"
use std::time::Duration;

use bevy_app::{App, ScheduleRunnerPlugin};
use bevy_ecs::world::World;
use bevy_time::TimePlugin;
use mcp_bindgen::server::{Handler, McpTool, ToolError};
use mcp_bindgen_bevy::{McpAppExt, McpPlugin};

/// Count the entities in the world
#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(read_only)]
struct EntityCount {}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Count {
    count: u32,
}

impl Handler<World> for EntityCount {
    type Output = Count;
    fn call(self, world: &mut World) -> Result<Count, ToolError> {
        Ok(Count {
            count: world.entities().count_spawned(),
        })
    }
}

fn main() {
    App::new()
        // Bevy's default runner runs one frame and returns: loop at 60 Hz instead (a windowed
        // app's runner loops already).
        .add_plugins(ScheduleRunnerPlugin::run_loop(Duration::from_secs(1) / 60))
        // The clock that `pause`, `resume`, `step` and `time_scale` drive (Time<Virtual>).
        .add_plugins(TimePlugin)
        // 127.0.0.1:7100/mcp; port, path, bearer token, frame budget (1 ms), schedule (Last)
        .add_plugins(McpPlugin::default().name("my-game"))
        .add_mcp_tool::<EntityCount>()
        .run();
}
