//! The Bevy example game: `bevy-game [--port N] [--read-only]` runs the headless app at 60 Hz
//! and serves MCP on 127.0.0.1 (port 7100 by default, 0 for a free one); the first line of
//! stdout is the endpoint's URL. `bevy-game --capture FILE` writes the game's tools/list
//! capture and exits.

use std::process::ExitCode;
use std::time::Duration;

use bevy_app::{AppExit, ScheduleRunnerPlugin};
use mcp_bindgen_bevy::{McpEndpoint, McpListenError, McpPlugin};
use mcp_bindgen_example_bevy::{capture_text, game};

fn main() -> ExitCode {
    let mut port: u16 = 7100;
    let mut read_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => match args.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => return usage(),
            },
            "--read-only" => read_only = true,
            "--capture" => {
                let Some(path) = args.next() else {
                    return usage();
                };
                let Some(text) = capture_text() else {
                    eprintln!("error: the game's server could not start");
                    return ExitCode::FAILURE;
                };
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("error: {path}: {e}");
                    return ExitCode::FAILURE;
                }
                return ExitCode::SUCCESS;
            }
            _ => return usage(),
        }
    }
    let mut app = game(McpPlugin::default().port(port).read_only(read_only));
    app.add_plugins(ScheduleRunnerPlugin::run_loop(Duration::from_secs(1) / 60));
    app.finish();
    app.cleanup();
    if let Some(error) = app.world().get_resource::<McpListenError>() {
        eprintln!("error: {}", error.0);
        return ExitCode::FAILURE;
    }
    if let Some(endpoint) = app.world().get_resource::<McpEndpoint>() {
        println!("{}", endpoint.url);
    }
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: bevy-game [--port N] [--read-only] | bevy-game --capture FILE");
    ExitCode::from(2)
}
