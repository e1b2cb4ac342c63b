//! `mcp-bindgen diff`, run as a user would: two files, the formats, the exit codes, bad input,
//! and a live server (stdio and HTTP with a bearer token) as the new side.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn write(dir: &Path, name: &str, tools: Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json!({ "tools": tools })).expect("json"),
    )
    .expect("write");
    path
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Old: `search(q, limit?)` read-only, `drop_table`. New: `limit` required, `drop_table` gone,
/// `search` no longer read-only is only a warning.
fn pair(dir: &Path) -> (PathBuf, PathBuf) {
    let old = write(
        dir,
        "old.tools.json",
        json!([
            {"name": "search", "annotations": {"readOnlyHint": true},
             "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]}},
            {"name": "drop_table", "inputSchema": {"type": "object"}},
        ]),
    );
    let new = write(
        dir,
        "new.tools.json",
        json!([
            {"name": "search",
             "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q", "limit"]}},
        ]),
    );
    (old, new)
}

#[test]
fn two_files_breaking_exits_1_with_a_text_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = pair(dir.path());
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let body: Vec<&str> = stdout.lines().skip(2).collect();
    assert_eq!(
        body.join("\n"),
        "\nsearch\n  breaking  /inputSchema/properties/limit: argument `limit` became required  [input-property-became-required]\n  warning   /annotations/readOnlyHint: readOnlyHint true -> false (absent hints count as the spec's default): the tool may now change its environment, destructively (destructiveHint true or absent)  [read-only-hint-changed]\n\ndrop_table\n  breaking  tool removed  [tool-removed]",
        "{stdout}"
    );
    assert!(stdout.contains("2 breaking, 1 warning, 0 info"), "{stdout}");
}

/// A reader that stops before the report (`diff … | head`, here a pipe whose reading end is
/// already closed) is no error: no panic, and the exit status is still the verdict.
#[test]
fn a_closed_pipe_keeps_the_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = pair(dir.path());
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}

#[test]
fn json_and_markdown_formats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = pair(dir.path());
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    let rules: Vec<&str> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["rule"].as_str().expect("rule"))
        .collect();
    assert_eq!(
        rules,
        [
            "input-property-became-required",
            "read-only-hint-changed",
            "tool-removed"
        ]
    );
    assert_eq!(report["summary"]["breaking"], 2);
    assert_eq!(report["summary"]["removed"], 1);

    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--format", "markdown"])
        .output()
        .expect("runs");
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("| **breaking** | `drop_table` |  | tool removed | `tool-removed` |"),
        "{stdout}"
    );
}

/// Warnings alone exit 0, unless `--fail-on warning`; no changes exit 0.
#[test]
fn fail_on_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = write(
        dir.path(),
        "a.json",
        json!([{"name": "t", "annotations": {"destructiveHint": false}, "inputSchema": {"type": "object"}}]),
    );
    let new = write(
        dir.path(),
        "b.json",
        json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    );
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.contains("[destructive-hint-changed]"));
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--fail-on", "warning"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&old)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out).0.contains("no changes"), "{:?}", text(&out));
}

#[test]
fn level_source_adds_what_changes_the_generated_rust() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = write(
        dir.path(),
        "a.json",
        json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    );
    let new = write(
        dir.path(),
        "b.json",
        json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}]),
    );
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out).0.contains("source-"));
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--level", "source"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).0.contains("[source-result-type-changed]"),
        "{:?}",
        text(&out)
    );
}

/// Bad input exits 2 with a located error; so does a missing new side.
#[test]
fn bad_input_exits_2_located() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "good.json", json!([]));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"tools\": [\n  {\"name\": 3}\n]}\n").expect("write");
    let out = bin()
        .arg("diff")
        .arg(&good)
        .arg(&bad)
        .output()
        .expect("runs");
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.json:2:"), "{stderr}");
    assert!(stderr.contains("/tools/0/name"), "{stderr}");

    let out = bin()
        .arg("diff")
        .arg(&good)
        .arg(dir.path().join("missing.json"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("missing.json"), "{:?}", text(&out));

    let out = bin().arg("diff").arg(&good).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("needs the new side"),
        "{:?}",
        text(&out)
    );
}

fn misbehaving_server() -> PathBuf {
    workspace().join("runtime/tests/fixtures/misbehaving_server.py")
}

/// `diff OLD -- COMMAND`: the live stdio server is the new side, captured with `capture`'s
/// code; a tool the checked-in capture has and the server no longer lists breaks.
#[test]
fn live_stdio_server_as_the_new_side() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("paged.tools.json");
    let out = bin()
        .args(["capture", "-o"])
        .arg(&old)
        .args(["--", "python3"])
        .arg(misbehaving_server())
        .arg("paged")
        .output()
        .expect("runs");
    assert!(out.status.success(), "{:?}", text(&out));

    let out = bin()
        .arg("diff")
        .arg(&old)
        .args(["--", "python3"])
        .arg(misbehaving_server())
        .arg("paged")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.contains("no changes"), "{:?}", text(&out));

    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&old).expect("read")).expect("json");
    value["tools"]
        .as_array_mut()
        .expect("tools")
        .push(json!({"name": "retired", "inputSchema": {"type": "object"}}));
    std::fs::write(&old, value.to_string()).expect("write");
    let out = bin()
        .arg("diff")
        .arg(&old)
        .args(["--format", "json", "--", "python3"])
        .arg(misbehaving_server())
        .arg("paged")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        report["changes"],
        json!([{"rule": "tool-removed", "severity": "breaking", "kind": "tool", "tool": "retired",
                "pointer": "", "message": "tool removed"}])
    );
}

/// `diff OLD --url URL --bearer-env VAR` against a real server that requires a token, with
/// the old side a capture and then a module generated from it (`--against-module`).
#[test]
fn live_http_server_with_a_bearer_token() {
    use mcp_bindgen::server::{Handler, McpTool, Registry, ServerBuilder, ToolError};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    struct Ctx;
    /// Says hello.
    #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
    struct Hello {
        /// Who to greet.
        name: String,
    }
    impl Handler<Ctx> for Hello {
        type Output = String;
        fn call(self, _: &mut Ctx) -> Result<String, ToolError> {
            Ok(format!("hello {}", self.name))
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        let mut registry = Registry::new("greeter", "3.1.4");
        registry.register::<Hello>();
        let mut server = ServerBuilder::new()
            .port(0)
            .bearer_token("t0ken")
            .listen(registry)
            .expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut Ctx) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    });
    let url = format!("http://127.0.0.1:{}/mcp", rx.recv().expect("port"));
    let dir = tempfile::tempdir().expect("tempdir");
    // The release before: `name` was optional.
    let old = write(
        dir.path(),
        "greeter.tools.json",
        json!([{"name": "hello", "description": "Says hello.",
                "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}]),
    );
    let out = bin()
        .arg("diff")
        .arg(&old)
        .args([
            "--url",
            &url,
            "--bearer-env",
            "GREETER_TOKEN",
            "--format",
            "json",
        ])
        .env("GREETER_TOKEN", "t0ken")
        .output()
        .expect("runs");
    let stop_server = || {
        stop.store(true, Ordering::Relaxed);
    };
    let (stdout, stderr) = text(&out);
    if out.status.code() != Some(1) {
        stop_server();
        panic!("{stdout}{stderr}");
    }
    let report: Value = serde_json::from_str(&stdout).expect("json");
    let rules: Vec<&str> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter_map(|c| c["rule"].as_str())
        .collect();
    assert!(
        rules.contains(&"input-property-became-required"),
        "{stdout}"
    );
    // The old side as a generated client records it (`--against-module`), the new side the
    // live server: the same verdict.
    let module = dir.path().join("greeter.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&old)
        .args(["--module", "greeter", "-o"])
        .arg(&module)
        .output()
        .expect("runs");
    if !out.status.success() {
        stop_server();
        panic!("{:?}", text(&out));
    }
    let out = bin()
        .args(["diff", "--against-module"])
        .arg(&module)
        .args(["--url", &url, "--bearer-env", "GREETER_TOKEN"])
        .env("GREETER_TOKEN", "t0ken")
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    if out.status.code() != Some(1) || !stdout.contains("[input-property-became-required]") {
        stop_server();
        panic!("--against-module --url: {stdout}{stderr}");
    }
    // A wrong token: the capture fails (exit 1 with the server's answer), no report.
    let out = bin()
        .arg("diff")
        .arg(&old)
        .args(["--url", &url, "--bearer-env", "GREETER_TOKEN"])
        .env("GREETER_TOKEN", "nope")
        .output()
        .expect("runs");
    stop_server();
    server.join().expect("server thread");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("401"), "{:?}", text(&out));
    assert!(out.stdout.is_empty());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {:?}", text(&out));
}

/// `regenerate --check` prints, before the file list, what changed in each stale capture
/// since the commit that last wrote its generated file.
#[test]
fn regenerate_check_classifies_the_capture_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = dir.path().join("generated");
    copy_dir(&workspace().join("generated"), &crate_dir);
    let manifest = crate_dir.join("bindings.toml");

    // Not in git: stale, and says why there is no summary.
    let capture = crate_dir.join("captures/saving_throw.tools.json");
    let original = std::fs::read_to_string(&capture).expect("capture");
    let edited = original.replace("Page size, 1-100", "Page size (1 to 100)");
    assert_ne!(original, edited);
    std::fs::write(&capture, &edited).expect("edit");
    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(&manifest)
        .output()
        .expect("runs");
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("no previous capture to compare"),
        "{stdout}"
    );

    // In git: the capture of the commit that wrote src/saving_throw.rs is the old side.
    std::fs::write(&capture, &original).expect("restore");
    git(dir.path(), &["init", "-q", "."]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "generated"]);
    let mut value: Value = serde_json::from_str(&edited).expect("json");
    let tools = value["tools"].as_array_mut().expect("tools");
    let tool = tools[0]["name"].as_str().expect("name").to_owned();
    let schema = &mut tools[0]["inputSchema"];
    schema["properties"]["region"] = json!({"type": "string"});
    let mut required = schema["required"].as_array().cloned().unwrap_or_default();
    required.push(json!("region"));
    schema["required"] = Value::Array(required);
    // Two commits of the capture, then one of something else: the commit that last wrote
    // src/saving_throw.rs is neither HEAD (no change to the capture since) nor HEAD~1 (which
    // has the edited description already).
    std::fs::write(&capture, &edited).expect("edit");
    git(dir.path(), &["commit", "-q", "-am", "a new description"]);
    std::fs::write(
        &capture,
        serde_json::to_string_pretty(&value).expect("json"),
    )
    .expect("edit");
    git(
        dir.path(),
        &["commit", "-q", "-am", "new capture, not regenerated"],
    );
    std::fs::write(crate_dir.join("captures/README.md"), "moved elsewhere\n").expect("edit");
    git(dir.path(), &["commit", "-q", "-am", "something else"]);
    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(&manifest)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let summary = stdout
        .find("1 breaking, 0 warnings, 1 info")
        .unwrap_or_else(|| panic!("{stdout}"));
    let added = format!(
        "{tool}\n  breaking  /inputSchema/properties/region: new required argument `region`  [input-required-property-added]"
    );
    assert!(stdout.contains(&added), "{stdout}");
    assert!(stdout.contains("[description-changed]"), "{stdout}");
    let list = stdout.find("STALE").expect("file list");
    assert!(
        summary < list,
        "the summary comes before the file list: {stdout}"
    );
}

/// A copy of the generated crate in a fresh git repository, with everything committed but
/// `leave_out` (paths under the crate), and the saving_throw capture's path in it.
fn committed_copy(leave_out: &[&str]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = dir.path().join("generated");
    copy_dir(&workspace().join("generated"), &crate_dir);
    git(dir.path(), &["init", "-q", "."]);
    git(dir.path(), &["add", "."]);
    for path in leave_out {
        git(
            dir.path(),
            &["rm", "-q", "--cached", &format!("generated/{path}")],
        );
    }
    git(dir.path(), &["commit", "-q", "-m", "generated"]);
    let manifest = crate_dir.join("bindings.toml");
    let capture = crate_dir.join("captures/saving_throw.tools.json");
    (dir, manifest, capture)
}

/// `regenerate --check` on `manifest`: fails (exit 1) and lists the stale file; its stdout.
fn check_fails(manifest: &Path) -> String {
    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(manifest)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("STALE") && stdout.contains("saving_throw.rs"),
        "{stdout}"
    );
    stdout
}

/// When the old capture cannot be had or read, `regenerate --check` says so, in place of the
/// summary, and still fails on the stale file: the capture missing from the commit that wrote
/// the generated file, a capture there that is not one, and no change to the capture at all
/// (the generated file is stale for another reason).
#[test]
fn regenerate_check_says_why_a_capture_is_not_compared() {
    // The generated file was committed, its capture never was.
    let (dir, manifest, capture) = committed_copy(&["captures/saving_throw.tools.json"]);
    let original = std::fs::read_to_string(&capture).expect("capture");
    let edited = original.replace("Page size, 1-100", "Page size (1 to 100)");
    assert_ne!(original, edited);
    std::fs::write(&capture, &edited).expect("edit");
    let stdout = check_fails(&manifest);
    assert!(
        stdout.contains("saving_throw.tools.json: not in commit")
            && stdout.contains("which last wrote src/saving_throw.rs: nothing to compare"),
        "{stdout}"
    );
    assert!(!stdout.contains("cannot be compared"), "{stdout}");
    drop(dir);

    // The capture committed with the generated file is not a capture (not JSON).
    let (dir, manifest, capture) = committed_copy(&[]);
    std::fs::write(&capture, "not a capture\n").expect("break");
    git(
        dir.path(),
        &[
            "commit",
            "-q",
            "-a",
            "--amend",
            "-m",
            "generated, broken capture",
        ],
    );
    std::fs::write(&capture, &edited).expect("edit");
    let stdout = check_fails(&manifest);
    let line = stdout
        .lines()
        .find(|l| l.contains("cannot be compared"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("saving_throw.tools.json@"), "{stdout}");
    assert!(!stdout.contains("[description-changed]"), "{stdout}");
    drop(dir);

    // The capture is as committed; the generated file was edited by hand.
    let (dir, manifest, _) = committed_copy(&[]);
    let generated = manifest.with_file_name("src/saving_throw.rs");
    let mut source = std::fs::read_to_string(&generated).expect("generated");
    source.push_str("// edited by hand\n");
    std::fs::write(&generated, source).expect("edit");
    let stdout = check_fails(&manifest);
    assert!(
        stdout.contains("no changes (the generator or the manifest changed)"),
        "{stdout}"
    );
    drop(dir);
}

/// `--against-module`: the old side is what a generated module records in its `PROVENANCE`,
/// whether the module is a file of its own (`regenerate`) or wrapped in `pub mod` (`generate`).
#[test]
fn against_module_compares_what_a_generated_client_was_made_from() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = pair(dir.path());
    let module = dir.path().join("client.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&old)
        .args(["--module", "client", "-o"])
        .arg(&module)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{:?}", text(&out));

    let out = bin()
        .args(["diff", "--against-module"])
        .arg(&module)
        .arg(&new)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "breaking: {stdout}{stderr}");
    assert!(
        stdout.contains("input-property-became-required"),
        "{stdout}"
    );
    assert!(stdout.contains("tool-removed"), "{stdout}");

    // The same module wrapped in `pub mod client { .. }` (`generate --wrap`).
    let wrapped = dir.path().join("wrapped.rs");
    let out = bin()
        .args(["generate", "--wrap", "--tools"])
        .arg(&old)
        .args(["--module", "client", "-o"])
        .arg(&wrapped)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{:?}", text(&out));
    let out = bin()
        .args(["diff", "--against-module"])
        .arg(&wrapped)
        .arg(&new)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));

    let out = bin()
        .args(["diff", "--against-module"])
        .arg(&module)
        .arg(&old)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("no changes"), "{stdout}");

    // A Rust file without provenance: a clear error, exit 2.
    let plain = dir.path().join("plain.rs");
    std::fs::write(&plain, "pub fn f() {}\n").expect("write");
    let out = bin()
        .args(["diff", "--against-module"])
        .arg(&plain)
        .arg(&old)
        .output()
        .expect("runs");
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no `PROVENANCE`"), "{stderr}");
    assert!(stderr.contains("regenerate"), "{stderr}");
}

/// `diff --cassette`: a session recorded (with the runtime's `Recorder`) against the old
/// tools, checked against a new capture, reports the calls that would now break and exits 1.
#[test]
fn a_cassette_against_a_new_capture_reports_the_calls_that_would_break() {
    use mcp_bindgen::cassette::Recorder;
    use mcp_bindgen::mock::MockCaller;
    use mcp_bindgen::{CallToolResult, ToolCaller};

    let dir = tempfile::tempdir().expect("tempdir");
    let cassette = dir.path().join("session.jsonl");
    let old_server = MockCaller::with_responder(|name, _| {
        Ok(match name {
            "stats" => CallToolResult::structured(json!({ "count": 3 })),
            _ => CallToolResult::structured(json!({ "ok": true })),
        })
    });
    let recorder = Recorder::create(old_server, &cassette).expect("create");
    let arguments = |v: Value| v.as_object().expect("object").clone();
    pollster::block_on(async {
        for (tool, args) in [
            ("search", json!({ "q": "a" })),
            ("drop_table", json!({})),
            ("stats", json!({})),
            ("search", json!({ "q": "b", "limit": 5 })),
        ] {
            recorder
                .call_tool(tool, arguments(args))
                .await
                .expect("recorded");
        }
    });
    recorder.finish().expect("written");
    // The new server: `limit` required, `drop_table` gone, `stats` counts in words.
    let new = write(
        dir.path(),
        "new.tools.json",
        json!([
            {"name": "search",
             "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q", "limit"]}},
            {"name": "stats", "inputSchema": {"type": "object"},
             "outputSchema": {"type": "object", "properties": {"count": {"type": "string"}}}},
        ]),
    );

    let out = bin()
        .arg("diff")
        .arg("--cassette")
        .arg(&cassette)
        .arg(&new)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].ends_with("4 recorded calls, 2 would break, 1 would be answered differently"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("  breaking  call 1 search: "),
        "{stdout}"
    );
    assert!(lines[1].contains("limit"), "{stdout}");
    assert_eq!(
        lines[2], "  breaking  call 2 drop_table: the server no longer lists this tool",
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("  warning   call 3 stats at /count: "),
        "{stdout}"
    );
    assert!(lines[3].contains("record again"), "{stdout}");
    assert_eq!(lines.len(), 4, "call 4 still fits:\n{stdout}");

    // JSON, for CI: the same findings.
    let out = bin()
        .args(["diff", "--format", "json", "--cassette"])
        .arg(&cassette)
        .arg(&new)
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["calls"], 4);
    assert_eq!(report["summary"], json!({ "breaking": 2, "warning": 1 }));
    let calls: Vec<&Value> = report["stale"]
        .as_array()
        .expect("stale")
        .iter()
        .map(|s| &s["call"])
        .collect();
    assert_eq!(calls, [&json!(1), &json!(2), &json!(3)]);

    // Against the old tools themselves, nothing is stale: exit 0.
    let old = write(
        dir.path(),
        "old.tools.json",
        json!([
            {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]}},
            {"name": "drop_table", "inputSchema": {"type": "object"}},
            {"name": "stats", "inputSchema": {"type": "object"},
             "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}},
        ]),
    );
    let out = bin()
        .arg("diff")
        .arg("--cassette")
        .arg(&cassette)
        .arg(&old)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));

    // A file that is not a cassette: exit 2 with the file and line.
    let out = bin()
        .arg("diff")
        .arg("--cassette")
        .arg(&new)
        .arg(&old)
        .output()
        .expect("runs");
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("new.tools.json:1: "), "{stderr}");
}

/// Prompts, resources and templates are compared too: a new required prompt argument and a
/// moved template break, each under its own heading; the JSON names their kind.
#[test]
fn prompts_resources_and_templates_are_compared() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = |name: &str, required: bool, template: &str| {
        let path = dir.path().join(name);
        let document = json!({
            "tools": [],
            "prompts": [{"name": "briefing", "arguments": [
                {"name": "goal", "required": true},
                {"name": "level", "required": required},
            ]}],
            "resources": [{"name": "level", "uri": "game://level"}],
            "resourceTemplates": [{"name": "entity", "uriTemplate": template}],
        });
        std::fs::write(&path, document.to_string()).expect("write");
        path
    };
    let old = capture("old.json", false, "game://entity/{id}");
    let new = capture("new.json", true, "game://entities/{id}");
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("2 breaking"), "{stdout}");
    assert!(stdout.contains("\nprompt briefing\n"), "{stdout}");
    assert!(
        stdout.contains("prompt-argument-became-required") && stdout.contains("/arguments/level"),
        "{stdout}"
    );
    assert!(stdout.contains("\nresource template entity\n"), "{stdout}");
    assert!(
        stdout.contains("URI template `game://entity/{id}` -> `game://entities/{id}`"),
        "{stdout}"
    );
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let kinds: Vec<&Value> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| &c["kind"])
        .collect();
    assert_eq!(
        kinds,
        [&json!("prompt"), &json!("resource-template")],
        "{report}"
    );
    assert_eq!(report["summary"]["breaking"], 2, "{report}");
    // Unchanged, they are no change.
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&old)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));

    // A module generated from the old capture records them: `--against-module` finds the
    // same breaking changes, and none against the capture it was made from.
    let module = dir.path().join("game.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&old)
        .args(["--module", "game", "-o"])
        .arg(&module)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{:?}", text(&out));
    for (new_side, code) in [(&new, 1), (&old, 0)] {
        let out = bin()
            .args(["diff", "--against-module"])
            .arg(&module)
            .arg(new_side)
            .args(["--format", "json"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "{:?}", text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        let rules: Vec<&str> = report["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .filter_map(|c| c["rule"].as_str())
            .collect();
        let expected: &[&str] = if code == 1 {
            &[
                "prompt-argument-became-required",
                "resource-template-changed",
            ]
        } else {
            &[]
        };
        assert_eq!(rules, expected, "{report}");
    }
}

/// `diff --cassette FILE --verify --url URL`: a session recorded against a game's server, the
/// game changed since, its read-only calls played again: the one that answers differently is
/// named with where and what, the other not played; exit 1. `--all` plays every call.
#[test]
fn a_cassette_verified_against_the_live_server_names_what_answers_differently() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use mcp_bindgen::cassette::Recorder;
    use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError};
    use mcp_bindgen::{HttpClient, ToolCaller};

    struct Game {
        placed: u32,
    }
    /// How many are placed.
    #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
    #[mcp(read_only)]
    struct PlacedCount {}
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Count {
        count: u32,
    }
    impl Handler<Game> for PlacedCount {
        type Output = Count;
        fn call(self, game: &mut Game) -> Result<Count, ToolError> {
            Ok(Count { count: game.placed })
        }
    }
    /// Places `n` more.
    #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
    struct Place {
        n: u32,
    }
    impl Handler<Game> for Place {
        type Output = Count;
        fn call(self, game: &mut Game) -> Result<Count, ToolError> {
            game.placed += self.n;
            Ok(Count { count: game.placed })
        }
    }

    let mut registry = Registry::new("verify-game", "0.1.0");
    registry.register::<PlacedCount>();
    registry.register::<Place>();
    let mut server = Server::listen(registry, 0).expect("listens");
    let url = format!("http://127.0.0.1:{}/mcp", server.port());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let game = std::thread::spawn(move || {
        let mut game = Game { placed: 3 };
        while !flag.load(Ordering::Relaxed) {
            server.poll(&mut game);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let cassette = dir.path().join("session.jsonl");
    let arguments = |v: Value| v.as_object().expect("object").clone();
    pollster::block_on(async {
        let client = HttpClient::connect(&url).await.expect("connects");
        let recorder = Recorder::create(&client, &cassette).expect("create");
        recorder
            .call_tool("placed_count", arguments(json!({})))
            .await
            .expect("recorded");
        recorder
            .call_tool("place", arguments(json!({"n": 2})))
            .await
            .expect("recorded");
        recorder.finish().expect("written");
    });

    let run = |extra: &[&str]| {
        let out = bin()
            .args(["diff", "--verify", "--cassette"])
            .arg(&cassette)
            .args(extra)
            .args(["--url", &url])
            .output()
            .expect("runs");
        let (stdout, stderr) = text(&out);
        (out.status.code(), stdout, stderr)
    };
    let (code, stdout, stderr) = run(&[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].ends_with("1 of 2 recorded calls played, 1 answered differently"),
        "{stdout}"
    );
    assert_eq!(
        lines[1], "  differs   call 1 placed_count: at /structuredContent/count: recorded 3, now 5",
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("  skipped   call 2 place: not played: ")
            && lines[2].contains("not read-only"),
        "{stdout}"
    );
    // `--all` plays `place` too (the game is at 5, now 7): both differ.
    let (code, stdout, stderr) = run(&["--all", "--format", "json"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(report["verified"][1]["verdict"], "differs", "{report}");
    assert_eq!(report["verified"][1]["recorded"], 5, "{report}");
    assert_eq!(report["verified"][1]["live"], 7, "{report}");
    // Without a server, it says what to give.
    let out = bin()
        .args(["diff", "--verify", "--cassette"])
        .arg(&cassette)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--url URL"), "{}", text(&out).1);

    stop.store(true, Ordering::Relaxed);
    game.join().expect("the game thread");
}

/// Skills through the same report: a skill whose files changed is a warning (exit 0), one
/// renamed is one removed (breaking, exit 1) and one added.
#[test]
fn skills_changed_renamed_and_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let skill = |name: &str, digest: char| {
        let uri = format!("skill://{name}/SKILL.md");
        json!({"uri": uri, "frontmatter": {"name": name, "description": "How to play"},
               "resources": [{"uri": uri, "size": 10,
                              "digest": format!("sha256:{}", digest.to_string().repeat(64))}]})
    };
    let capture = |name: &str, skills: Value| {
        let path = dir.path().join(name);
        let document = json!({"tools": [], "skills": skills});
        std::fs::write(&path, document.to_string()).expect("write");
        path
    };
    let old = capture("old.json", json!([skill("arena", 'a')]));
    let edited = capture("edited.json", json!([skill("arena", 'b')]));
    let renamed = capture("renamed.json", json!([skill("pit", 'a')]));
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&edited)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("warning")
            && stdout
                .contains("the skill's files changed: skill://arena/SKILL.md  [skill-changed]"),
        "{stdout}"
    );
    let out = bin()
        .arg("diff")
        .arg(&old)
        .arg(&renamed)
        .output()
        .expect("runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("[skill-removed]") && stdout.contains("[skill-added]"),
        "{stdout}"
    );
}
