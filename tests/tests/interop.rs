//! Interop with the official MCP peers, installed from the package registries by
//! `scripts/test.sh` (npm: `tests/interop/package.json`; PyPI: `tests/interop/requirements.txt`)
//! which then runs these with `--ignored`. Every server is bound to 127.0.0.1, and every loop
//! and wait is bounded.
//!
//! - the MCP conformance suite's server scenarios (0.2.0-alpha.12, the frozen
//!   `--requirements 2026-07-28` and `2025-11-25` sets) against `conformance_host` (derive +
//!   registry + server, both eras on one port), with the expected failures in
//!   `interop/conformance-baseline-2026-07-28.yml` and `interop/conformance-baseline.yml`;
//! - the client leg of the suite 0.2.0-alpha.12 (`conformance-0.2`), the frozen 2026-07-28
//!   and 2025-11-25 requirement sets, against `conformance_client` (every scenario but `auth/*`);
//! - the official TypeScript SDK clients (v1 1.32.2, legacy; v2 with auto negotiation, which
//!   lands on 2026-07-28) and the Python `mcp` client (its legacy session and its auto-negotiating
//!   `Client`) against our server, progress included;
//! - `@modelcontextprotocol/server-everything` over stdio and Streamable HTTP (in a private
//!   network namespace), every tool called through the generated client, typed.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn interop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

fn node() -> PathBuf {
    interop().join("node_modules/.bin/node")
}

/// The conformance suite 0.2.0-alpha.12, which has the frozen requirement sets.
fn conformance_02() -> Command {
    let mut c = Command::new(node());
    c.arg(interop().join("node_modules/conformance-0.2/dist/index.js"))
        .current_dir(std::env::temp_dir());
    c
}

/// The fixture host on a free port; killed when dropped.
struct Host {
    child: Child,
    url: String,
}

impl Host {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance_host"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("prints its URL");
        Host {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command` to completion; panics with its output unless it succeeds. Returns stdout.
fn run(mut command: Command, what: &str) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The checks of every scenario the suite saved under `dir` (`-o`), by scenario name.
fn checks(dir: &Path) -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("results").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // `[server-]<scenario>-<timestamp>`, the timestamp `2026-12-02T12-55-21-013Z`.
        let stem = &name[..name.len().saturating_sub("-2026-12-02T12-55-21-013Z".len())];
        let scenario = stem.strip_prefix("server-").unwrap_or(stem).to_owned();
        let text = std::fs::read_to_string(entry.path().join("checks.json")).expect("checks.json");
        out.push((scenario, serde_json::from_str(&text).expect("json")));
    }
    out
}

fn assert_passed(results: &[(String, Vec<Value>)], scenario: &str) {
    let (_, checks) = results
        .iter()
        .find(|(s, _)| s == scenario)
        .unwrap_or_else(|| panic!("{scenario} did not run"));
    assert!(!checks.is_empty(), "{scenario}: no checks");
    for check in checks {
        let status = check["status"].as_str().unwrap_or("");
        // SKIPPED: a check that does not apply (subscriptions on a server without
        // list-changed notifications).
        assert!(
            matches!(status, "SUCCESS" | "INFO" | "SKIPPED"),
            "{scenario}: {}",
            serde_json::to_string_pretty(check).unwrap_or_default()
        );
    }
}

/// Runs one frozen requirement set against the host; every failure must be in `baseline`, no
/// baseline entry may pass, and each of `must_pass` passes.
fn conformance_server(requirements: &str, baseline: &str, must_pass: &[&str]) {
    let host = Host::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = conformance_02();
    c.args([
        "server",
        "--url",
        &host.url,
        "--requirements",
        requirements,
        "--expected-failures",
    ])
    .arg(interop().join(baseline))
    .arg("-o")
    .arg(dir.path());
    // Exit 0: every failure is in the baseline, and no baseline entry passes now.
    run(
        c,
        &format!("conformance server --requirements {requirements}"),
    );
    let results = checks(dir.path());
    for scenario in must_pass {
        assert_passed(&results, scenario);
    }
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn conformance_server_2026_07_28() {
    conformance_server(
        "2026-07-28",
        "conformance-baseline-2026-07-28.yml",
        &[
            "server-stateless",
            "caching",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-error",
            "tools-call-with-progress",
            "server-sse-multiple-streams",
            "dns-rebinding-protection",
            "json-schema-2020-12",
            "http-header-validation",
            "http-custom-header-server-validation",
            "resources-list",
            "prompts-list",
            "sep-2164-resource-not-found",
        ],
    );
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn conformance_server_2025_11_25() {
    conformance_server(
        "2025-11-25",
        "conformance-baseline.yml",
        &[
            "server-initialize",
            "logging-set-level",
            "ping",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-with-logging",
            "tools-call-error",
            "tools-call-with-progress",
            "server-sse-multiple-streams",
            "dns-rebinding-protection",
            "json-schema-2020-12",
        ],
    );
}

/// The conformance suite 0.2's client leg against `conformance_client`, for the frozen
/// requirement set of `revision`: every scenario in `scenarios` ran, and none of its checks
/// failed or warned (a check may be SKIPPED when the scenario offers a method the client has
/// no reason to send, such as `initialize` to a modern server). The `auth/*` scenarios (OAuth,
/// not in this client) fail, so the suite's exit status is not used.
fn conformance_client_requirements(revision: &str, scenarios: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = conformance_02();
    c.args([
        "client",
        "--command",
        env!("CARGO_BIN_EXE_conformance_client"),
        "--requirements",
        revision,
        "--timeout",
        "60000",
        "-o",
    ])
    .arg(dir.path());
    let out = c.output().expect("runs the conformance suite");
    let mut results = Vec::new();
    for entry in std::fs::read_dir(dir.path()).expect("results").flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue; // `auth/`: a directory of scenario directories
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let scenario =
            name[..name.len().saturating_sub("-2026-12-02T12-55-21-013Z".len())].to_owned();
        let checks: Vec<Value> = serde_json::from_str(&text).expect("json");
        results.push((scenario, checks));
    }
    for scenario in scenarios {
        let (_, checks) = results
            .iter()
            .find(|(s, _)| s == scenario)
            .unwrap_or_else(|| {
                panic!(
                    "{revision}: {scenario} did not run:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert!(
            checks.iter().any(|c| c["status"] == "SUCCESS"),
            "{revision}: {scenario}: nothing passed"
        );
        for check in checks {
            let status = check["status"].as_str().unwrap_or("");
            assert!(
                matches!(status, "SUCCESS" | "INFO" | "SKIPPED"),
                "{revision}: {scenario}: {}",
                serde_json::to_string_pretty(check).unwrap_or_default()
            );
        }
    }
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn conformance_client_2026_07_28() {
    conformance_client_requirements(
        "2026-07-28",
        &[
            "tools_call",
            "request-metadata",
            "sep-2322-client-request-state",
            "http-standard-headers",
            "http-custom-headers",
            "http-invalid-tool-headers",
            "json-schema-ref-no-deref",
            // Not scored in this set (added after its release), passed all the same.
            "json-schema-2020-12-preservation",
        ],
    );
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn conformance_client_2025_11_25() {
    conformance_client_requirements(
        "2025-11-25",
        &[
            "initialize",
            "tools_call",
            "elicitation-sep1034-client-defaults",
            "sse-retry",
            "json-schema-2020-12-preservation",
        ],
    );
}

fn check_peer_result(result: &Value, peer: &str) {
    assert_eq!(
        result["server"]["name"], "mcp-bindgen-conformance-host",
        "{peer}"
    );
    let tools: Vec<&str> = result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"add") && tools.contains(&"test_error_handling"),
        "{peer}: {tools:?}"
    );
    assert_eq!(
        result["add"]["structuredContent"],
        serde_json::json!({"sum": 5.5}),
        "{peer}"
    );
    assert_eq!(result["add"]["isError"], false, "{peer}");
    assert_eq!(result["failing"]["isError"], true, "{peer}");
    let text = result["failing"]["content"][0]["text"]
        .as_str()
        .expect("error text");
    assert!(
        text.contains("intentionally returns an error"),
        "{peer}: {text}"
    );
    assert_eq!(result["unknown"]["code"], -32602, "{peer}");
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn typescript_sdk_client() {
    let host = Host::start();
    let mut c = Command::new(node());
    c.arg(interop().join("ts_client.mjs")).arg(&host.url);
    let out = run(c, "TypeScript SDK client");
    let result: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    check_peer_result(&result, "typescript");
    // SEP-1303: arguments that do not fit come back as a tool error the model can read.
    assert_eq!(result["badArgs"]["isError"], true);
    // The v1 SDK speaks only the legacy era, and still lands on its newest version.
    assert_eq!(result["protocol"], "2025-11-25");
}

/// The progress a modern peer saw: 0, 50, 100 of 100, then the answer.
fn check_progress(result: &Value, peer: &str) {
    assert_eq!(result["protocol"], "2026-07-28", "{peer}: {result}");
    let progress: Vec<f64> = result["progress"]
        .as_array()
        .expect("progress")
        .iter()
        .map(|p| p["progress"].as_f64().expect("a number"))
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0], "{peer}");
    assert_eq!(result["withProgress"]["isError"], false, "{peer}");
    assert_eq!(
        result["withProgress"]["content"][0]["text"], "Tool with progress completed",
        "{peer}"
    );
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn typescript_sdk_v2_client_lands_on_2026_07_28() {
    let host = Host::start();
    let mut c = Command::new(node());
    c.arg(interop().join("ts_client_v2.mjs")).arg(&host.url);
    let out = run(c, "TypeScript SDK v2 client");
    let result: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    check_peer_result(&result, "typescript v2");
    check_progress(&result, "typescript v2");
}

#[test]
#[ignore = "needs the PyPI peer: run scripts/test.sh"]
fn python_sdk_client_lands_on_2026_07_28() {
    let host = Host::start();
    let mut c = Command::new(interop().join(".venv/bin/python"));
    c.arg(interop().join("py_client_modern.py")).arg(&host.url);
    let out = run(c, "Python mcp Client (auto)");
    let result: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    check_peer_result(&result, "python modern");
    check_progress(&result, "python modern");
}

#[test]
#[ignore = "needs the PyPI peer: run scripts/test.sh"]
fn python_sdk_client() {
    let host = Host::start();
    let mut c = Command::new(interop().join(".venv/bin/python"));
    c.arg(interop().join("py_client.py")).arg(&host.url);
    let out = run(c, "Python mcp client");
    let result: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    check_peer_result(&result, "python");
    assert_eq!(
        result["protocol"], "2025-11-25",
        "the session API keeps the handshake"
    );
}

fn everything(mode: &str, wrap_in_namespace: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("everything.tools.json");
    let bin = env!("CARGO_BIN_EXE_everything_check");
    let mut c = if wrap_in_namespace {
        // server-everything's HTTP mode listens on every interface: give it a network
        // namespace whose only interface is loopback.
        let mut c = Command::new("unshare");
        c.args(["-rn", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""])
            .arg(bin)
            .arg(mode)
            .arg(&capture);
        c
    } else {
        let mut c = Command::new(bin);
        c.arg(mode).arg(&capture);
        c
    };
    c.stderr(Stdio::null());
    let out = run(c, &format!("server-everything over {mode}"));
    assert_eq!(out.lines().count(), 13, "one line per tool:\n{out}");
    // What the client captured is the checked-in capture the generated client came from.
    let captured: Value =
        serde_json::from_str(&std::fs::read_to_string(&capture).expect("capture")).expect("json");
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/captures/everything.tools.json"),
        )
        .expect("fixture"),
    )
    .expect("json");
    assert_eq!(
        captured["tools"], fixture["tools"],
        "{mode}: the server's tools changed"
    );
    assert_eq!(captured["serverInfo"]["name"], "mcp-servers/everything");
}

#[test]
#[ignore = "needs the npm peers: run scripts/test.sh"]
fn server_everything_over_stdio() {
    everything("stdio", false);
}

#[test]
#[ignore = "needs the npm peers and unshare: run scripts/test.sh"]
fn server_everything_over_streamable_http() {
    everything("http", true);
}
