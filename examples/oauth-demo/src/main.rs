//! `oauth-demo [--port N] [--auth-port M]`: the dice tavern's MCP server on
//! `http://127.0.0.1:N/mcp` (default 7300) behind the authorization server on
//! `http://127.0.0.1:M` (default 7301), in a 60 Hz frame loop, until interrupted.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use oauth_demo::{POLL_BUDGET, Tavern, start};

fn main() -> ExitCode {
    let (mut port, mut auth_port) = (7300, 7301);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let target = match arg.as_str() {
            "--port" => &mut port,
            "--auth-port" => &mut auth_port,
            _ => return usage(),
        };
        match args.next().and_then(|v| v.parse().ok()) {
            Some(value) => *target = value,
            None => return usage(),
        }
    }
    let (mut server, auth) = match start(port, auth_port) {
        Ok(started) => started,
        Err(e) => {
            eprintln!("error: {e} (another demo running? pick ports with --port and --auth-port)");
            return ExitCode::FAILURE;
        }
    };
    let url = format!("http://127.0.0.1:{}/mcp", server.port());
    println!("the dice tavern serves MCP at {url}");
    println!("its authorization server is {}", auth.issuer());
    println!();
    println!("sign in from another terminal, through your browser:");
    println!("  cargo run -p mcp-bindgen-example-oauth --bin sign-in -- --url {url}");
    println!("or capture the game's tools:");
    println!("  cargo run -p mcp-bindgen-cli -- capture --url {url} --oauth -o tavern.tools.json");
    let mut tavern = Tavern::new();
    let frame = Duration::from_secs(1) / 60;
    let mut next = Instant::now();
    loop {
        server.poll_for(&mut tavern, POLL_BUDGET);
        next += frame;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: oauth-demo [--port N] [--auth-port M]");
    ExitCode::from(2)
}
