//! The official MCP clients against the Bevy game's binary: the TypeScript SDK (1.x, legacy
//! era; 2.x, 2026-07-28) and the Python `mcp` SDK (its session, legacy; its `Client`,
//! 2026-07-28) list the tools and call the built-ins over loopback HTTP. They need the peers
//! `scripts/test.sh` installs under `tests/interop` (node_modules, .venv), so they are ignored by
//! a plain `cargo test`; `scripts/test.sh` runs them.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

const BUILT_INS: [&str; 18] = [
    "ping",
    "context",
    "get_logs",
    "components_info",
    "query",
    "get",
    "insert",
    "modify",
    "remove",
    "spawn",
    "despawn",
    "resource_get",
    "resource_set",
    "send_event",
    "pause",
    "resume",
    "time_scale",
    "step",
];

fn interop() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/interop"))
}

/// The game's binary on a free port; killed when dropped.
struct Game {
    child: Child,
    url: String,
}

impl Game {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bevy-game"))
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts the game");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("prints its URL");
        Game {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_peer(mut command: Command, what: &str) -> Value {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: not one JSON object ({e})"))
}

/// What every peer must have seen.
fn check(result: &Value, peer: &str, protocol: &str) {
    assert_eq!(result["protocol"], protocol, "{peer}");
    let tools: Vec<&str> = result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for name in BUILT_INS.iter().chain(&["score_board"]) {
        assert!(
            tools.contains(name),
            "{peer}: {name} missing from {tools:?}"
        );
    }
    for call in [
        "ping", "info", "query", "insert", "get", "pause", "step", "resume",
    ] {
        assert_eq!(
            result[call]["isError"], false,
            "{peer}: {call}: {}",
            result[call]
        );
    }
    assert_eq!(result["ping"]["structuredContent"]["pong"], true, "{peer}");
    let types = &result["info"]["structuredContent"]["types"];
    assert_eq!(
        types[0]["type_path"], "mcp_bindgen_example_bevy::Position",
        "{peer}"
    );
    assert_eq!(result["query"]["structuredContent"]["total"], 3, "{peer}");
    assert_eq!(
        result["query"]["structuredContent"]["entities"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{peer}"
    );
    assert_eq!(
        result["get"]["structuredContent"]["components"]["mcp_bindgen_example_bevy::Health"],
        json!({"current": 3, "max": 4}),
        "{peer}"
    );
    assert_eq!(
        result["pause"]["structuredContent"]["paused"], true,
        "{peer}"
    );
    assert_eq!(result["step"]["structuredContent"]["frames"], 3, "{peer}");
    assert_eq!(
        result["step"]["structuredContent"]["paused"], true,
        "{peer}"
    );
    let progress: Vec<f64> = result["progress"]
        .as_array()
        .expect("progress")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0], "{peer}");
    assert_eq!(
        result["resume"]["structuredContent"]["paused"], false,
        "{peer}"
    );
    assert_eq!(result["bad"]["isError"], true, "{peer}");
    let text = result["bad"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("game::Nope") && text.contains("unknown_type"),
        "{peer}: {text}"
    );
}

fn typescript(mode: &str) -> Value {
    let game = Game::start();
    let mut c = Command::new(interop().join("node_modules/.bin/node"));
    c.arg(interop().join("bevy_ts_client.mjs"))
        .arg(mode)
        .arg(&game.url);
    run_peer(c, &format!("TypeScript SDK {mode}"))
}

fn python(mode: &str) -> Value {
    let game = Game::start();
    let mut c = Command::new(interop().join(".venv/bin/python"));
    c.arg(interop().join("bevy_py_client.py"))
        .arg(mode)
        .arg(&game.url);
    run_peer(c, &format!("Python mcp {mode}"))
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn typescript_sdk_v1_client_legacy_era() {
    check(&typescript("v1"), "typescript v1", "2025-11-25");
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn typescript_sdk_v2_client_2026_07_28() {
    check(&typescript("v2"), "typescript v2", "2026-07-28");
}

#[test]
#[ignore = "needs the PyPI peer: run scripts/test.sh"]
fn python_sdk_session_legacy_era() {
    check(&python("legacy"), "python legacy", "2025-11-25");
}

#[test]
#[ignore = "needs the PyPI peer: run scripts/test.sh"]
fn python_sdk_client_2026_07_28() {
    check(&python("modern"), "python modern", "2026-07-28");
}
