//! The tecs example game: `tecs-game [--port N] [--frames N]` runs the 60 Hz loop and serves
//! MCP on 127.0.0.1 (port 7100 by default, 0 for a free one; the port is printed);
//! `tecs-game --capture FILE` writes the game's tools/list and skills/list capture and exits.

use std::time::{Duration, Instant};

use mcp_bindgen::server::Server;
use mcp_bindgen_example_tecs::{Game, capture_text, registry};

fn main() -> std::process::ExitCode {
    let mut port: u16 = 7100;
    let mut frames: Option<u64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("error: {name} needs a value");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--port" => port = value("--port").parse().unwrap_or_else(|_| usage()),
            "--frames" => frames = Some(value("--frames").parse().unwrap_or_else(|_| usage())),
            "--capture" => {
                let path = value("--capture");
                if let Err(e) = std::fs::write(&path, capture_text()) {
                    eprintln!("error: {path}: {e}");
                    return std::process::ExitCode::FAILURE;
                }
                return std::process::ExitCode::SUCCESS;
            }
            _ => usage(),
        }
    }
    let mut server = match Server::listen(registry(), port) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("listening on http://127.0.0.1:{}/mcp", server.port());
    let mut game = Game::new();
    let frame = Duration::from_secs(1) / 60;
    let mut next = Instant::now();
    while frames.is_none_or(|n| game.frame < n) {
        game.frame(&mut server);
        next += frame;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    server.destroy();
    std::process::ExitCode::SUCCESS
}

fn usage() -> ! {
    eprintln!("usage: tecs-game [--port N] [--frames N] | tecs-game --capture FILE");
    std::process::exit(2)
}
