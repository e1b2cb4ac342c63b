//! The `mcp-bindgen` command line, run as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
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

/// The checked-in crate is what `regenerate` writes (the CI drift check, found from a
/// subdirectory upward).
#[test]
fn check_passes_on_the_checked_in_crate() {
    let out = bin()
        .args(["regenerate", "--check"])
        .current_dir(workspace().join("generated/captures"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("saving_throw: 14 tools"), "{stdout}");
    assert!(!stdout.contains("STALE"), "{stdout}");
}

/// Outside any bindings crate, `regenerate` names the directory it searched from (which
/// exists) and what to pass; a missing capture names where it was looked for.
#[test]
fn regenerate_without_a_manifest_or_a_capture_says_where_it_looked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = bin()
        .arg("regenerate")
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let searched = dir.path().canonicalize().expect("canonical");
    assert!(
        stderr.starts_with(&format!("error: {}: no bindings.toml", searched.display()))
            && stderr.contains("pass --manifest PATH"),
        "{stderr}"
    );

    std::fs::copy(
        workspace().join("generated/bindings.toml"),
        dir.path().join("bindings.toml"),
    )
    .expect("copies the manifest alone");
    let out = bin()
        .args(["regenerate", "--check"])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("No such file or directory")
            && stderr.contains(&format!(
                "looked for {}",
                searched.join("captures").display()
            ))
            && stderr.contains("help: capture the server's tools there"),
        "{stderr}"
    );
}

/// An edited capture makes `--check` fail, listing the stale file, and writes nothing;
/// `regenerate` then brings it up to date.
#[test]
fn check_fails_after_a_capture_is_edited() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = dir.path().join("generated");
    copy_dir(&workspace().join("generated"), &crate_dir);
    let capture = crate_dir.join("captures/saving_throw.tools.json");
    let text = std::fs::read_to_string(&capture).expect("capture");
    std::fs::write(
        &capture,
        text.replace("Page size, 1-100", "Page size (1 to 100)"),
    )
    .expect("edit");
    let before = std::fs::read_to_string(crate_dir.join("src/saving_throw.rs")).expect("src");

    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(crate_dir.join("bindings.toml"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let stale: Vec<&str> = stdout.lines().filter(|l| l.contains("STALE")).collect();
    assert_eq!(stale.len(), 1, "only the edited server is stale: {stdout}");
    assert!(stale[0].contains("src/saving_throw.rs"), "{stdout}");
    let after = std::fs::read_to_string(crate_dir.join("src/saving_throw.rs")).expect("src");
    assert_eq!(before, after, "--check writes nothing");

    let out = bin()
        .args(["regenerate", "--manifest"])
        .arg(crate_dir.join("bindings.toml"))
        .output()
        .expect("runs");
    assert!(out.status.success());
    let regenerated = std::fs::read_to_string(crate_dir.join("src/saving_throw.rs")).expect("src");
    assert!(regenerated.contains("Page size (1 to 100)"));
    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(crate_dir.join("bindings.toml"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A generated file that no server produces any more is stale, and removed by regenerate.
#[test]
fn orphaned_generated_files_are_reported_and_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&workspace().join("generated"), dir.path());
    let manifest = dir.path().join("bindings.toml");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let cut = text.find("[servers.tecs]").expect("tecs section");
    std::fs::write(&manifest, &text[..cut]).expect("write");
    let out = bin()
        .args(["regenerate", "--check", "--manifest"])
        .arg(&manifest)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("STALE (no server produces it)"), "{stdout}");
    let out = bin()
        .args(["regenerate", "--manifest"])
        .arg(&manifest)
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert!(!dir.path().join("src/tecs.rs").exists());
}

#[test]
fn generate_writes_one_module() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_file = dir.path().join("client.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(workspace().join("generated/captures/worldforge.tools.json"))
        .args(["--module", "wf", "-o"])
        .arg(&out_file)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_file).expect("written");
    let header = format!(
        "// @generated by mcp-bindgen {} from ",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.starts_with(&header), "{text}");
    // The provenance a client checks the server against: in the header and as a constant.
    let digest_line = text
        .lines()
        .find(|line| line.starts_with("// Tools digest: "))
        .unwrap_or("");
    let digest = digest_line
        .strip_prefix("// Tools digest: ")
        .and_then(|d| d.strip_suffix('.'))
        .unwrap_or_else(|| panic!("no digest line: {digest_line}"));
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{digest}"
    );
    assert!(
        text.contains(&format!("\"{digest}\",")),
        "PROVENANCE holds it: {text}"
    );
    // A file of its own: `mod wf;` reaches `wf::Client`, not `wf::wf::Client`.
    assert!(!text.contains("pub mod wf {"), "{text}");
    assert!(text.contains("\n//! Typed client for"), "{text}");
    assert!(text.contains("\npub struct Client<C> {"), "{text}");
    assert!(text.contains("pub async fn search_pois("), "{text}");

    // `--wrap`: inside `pub mod wf { .. }`, for `include!`.
    let out = bin()
        .args(["generate", "--wrap", "--tools"])
        .arg(workspace().join("generated/captures/worldforge.tools.json"))
        .args(["--module", "wf", "-o"])
        .arg(&out_file)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wrapped = std::fs::read_to_string(&out_file).expect("written");
    assert!(wrapped.contains("\npub mod wf {\n"), "{wrapped}");
    assert!(wrapped.contains("    pub struct Client<C> {"), "{wrapped}");
}

/// `-o -` writes the module to stdout (as bindgen does), the summary to stderr, and no file
/// named `-`; counts read as English (`1 tool`).
#[test]
fn generate_to_stdout_with_o_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("one.tools.json");
    std::fs::write(
        &capture,
        r#"{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}"#,
    )
    .expect("write");
    let out = bin()
        .current_dir(dir.path())
        .args(["generate", "--tools"])
        .arg(&capture)
        .args(["-o", "-"])
        .output()
        .expect("runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("// @generated by mcp-bindgen"),
        "{stdout}"
    );
    assert!(stdout.contains("pub async fn ping("), "{stdout}");
    assert!(
        stdout.contains(": 1 tool and") || stdout.contains(": 1 tool."),
        "{stdout}"
    );
    assert_eq!(stderr.trim(), "one: 1 tool, 0 types -> stdout", "{stderr}");
    assert!(
        !dir.path().join("-").exists(),
        "a file named `-` was written"
    );
}

/// A key that is nearly `inputSchema` is named as the likely typo.
#[test]
fn a_misspelt_input_schema_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("typo.json");
    std::fs::write(
        &capture,
        r#"{"tools": [{"name": "ping", "inputSchem": {"type": "object"}}]}"#,
    )
    .expect("write");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&capture)
        .args(["-o"])
        .arg(dir.path().join("out.rs"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("has no inputSchema (it has `inputSchem`: did you mean `inputSchema`?)"),
        "{stderr}"
    );
}

/// A URL without a scheme says how to write it.
#[test]
fn a_url_without_a_scheme_says_how_to_write_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = bin()
        .args(["capture", "--url", "example.test/mcp", "-o"])
        .arg(dir.path().join("c.json"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("(no scheme: write it whole, https://example.test/mcp)"),
        "{stderr}"
    );
}

/// Errors exit 2 with the located message on stderr, and write nothing.
#[test]
fn bad_capture_is_a_located_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("bad.json");
    std::fs::write(
        &capture,
        "{\"tools\": [\n  {\"name\": 7, \"inputSchema\": {}}\n]}",
    )
    .expect("write");
    let out_file = dir.path().join("out.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&capture)
        .arg("-o")
        .arg(&out_file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "bad.json:2:4 (at /tools/0/name): expected \"name\" to be a string, found a number"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("2 |   {\"name\": 7"), "{stderr}");
    assert!(!out_file.exists());
}

#[test]
fn bad_manifest_is_a_located_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = dir.path().join("bindings.toml");
    std::fs::write(
        &manifest,
        "[servers.a]\ncapture = \"a.json\"\ncapturee = 1\n",
    )
    .expect("write");
    let out = bin()
        .args(["regenerate", "--manifest"])
        .arg(&manifest)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bindings.toml:3:1: unknown field `capturee`"),
        "{stderr}"
    );
}

fn misbehaving_server() -> PathBuf {
    workspace().join("runtime/tests/fixtures/misbehaving_server.py")
}

/// `-v` shows what the client does on stderr (the connect's span and the negotiated era, each
/// request); `-vv` adds the requests and responses; nothing of that by default or with `-q`.
#[test]
fn verbose_shows_the_client_s_traces_and_quiet_hides_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The command's stderr, after checking that it succeeded.
    let stderr_of = |flags: &[&str], command: &mut std::process::Command| {
        let out = command.output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{flags:?}: {stderr}");
        stderr
    };
    let capture = |flags: &[&str]| {
        let mut command = bin();
        command
            .args(flags)
            .args(["capture", "-o"])
            .arg(dir.path().join("c.tools.json"))
            .args(["--", "python3"])
            .arg(misbehaving_server())
            .arg("ok");
        stderr_of(flags, &mut command)
    };
    let quiet_by_default = capture(&[]);
    assert!(!quiet_by_default.contains("DEBUG"), "{quiet_by_default}");
    let verbose = capture(&["-v"]);
    assert!(
        verbose.contains("DEBUG mcp_connect{")
            && verbose.contains("negotiated")
            && verbose.contains("transport=\"stdio\"")
            && verbose.contains("mcp_request{method=\"tools/list\""),
        "{verbose}"
    );
    assert!(!verbose.contains("TRACE"), "{verbose}");
    let very = capture(&["-vv"]);
    assert!(
        very.contains("TRACE") && very.contains(r#"response={"jsonrpc": "2.0""#),
        "{very}"
    );
    let quiet = capture(&["-q"]);
    assert!(!quiet.contains("DEBUG"), "{quiet}");
    // What -q silences besides the traces: warnings. A capture with warnings (the edge cases)
    // prints them by default and none with -q.
    let generate = |flags: &[&str]| {
        let mut command = bin();
        command
            .args(flags)
            .args(["generate", "--tools"])
            .arg(workspace().join("tests/fixtures/edge/edge_cases.tools.json"))
            .arg("-o")
            .arg(dir.path().join("edge.rs"));
        stderr_of(flags, &mut command)
    };
    let warned = generate(&[]);
    assert!(warned.contains("warning"), "{warned}");
    let quiet = generate(&["-q"]);
    assert!(!quiet.contains("warning"), "{quiet}");
    let both = bin()
        .args(["-q", "-v", "regenerate"])
        .output()
        .expect("runs");
    assert_eq!(both.status.code(), Some(2), "-q and -v conflict");
}

/// `capture -o FILE -- COMMAND`: every page, unknown fields kept, server and protocol
/// recorded; the capture feeds `generate` as it is.
#[test]
fn capture_over_stdio_feeds_generate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("paged.tools.json");
    let out = bin()
        .args(["capture", "-o"])
        .arg(&capture)
        .args(["--", "python3"])
        .arg(misbehaving_server())
        .arg("paged")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let captured: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&capture).expect("written")).expect("json");
    assert_eq!(captured["protocolVersion"], "2025-06-18");
    // The fixture also reports its process id in serverInfo (the transport
    // tests use it), so only the fields this test is about are compared.
    assert_eq!(captured["serverInfo"]["name"], "misbehaving");
    assert_eq!(captured["serverInfo"]["version"], "0");
    let names: Vec<&str> = captured["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "second"], "both pages");
    assert_eq!(
        captured["tools"][0]["x-unknown"],
        serde_json::json!({"kept": true})
    );
    let module = dir.path().join("paged.rs");
    let out = bin()
        .args(["generate", "--tools"])
        .arg(&capture)
        .arg("-o")
        .arg(&module)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&module).expect("module");
    assert!(text.contains("pub async fn second("), "{text}");
}

/// `capture --url URL --bearer-env VAR -o FILE` against a real server that requires a token.
#[test]
fn capture_over_http_with_a_bearer_token() {
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
    /// Bakes bread, which takes a while.
    #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
    #[mcp(task = "optional")]
    struct Bake {}
    impl Handler<Ctx> for Bake {
        type Output = String;
        fn call(self, _: &mut Ctx) -> Result<String, ToolError> {
            Ok("bread".into())
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        let mut registry = Registry::new("greeter", "3.1.4");
        registry.register::<Hello>().register::<Bake>();
        registry.register_resource(
            mcp_bindgen::server::ResourceDefinition::new("bakery://menu", "menu"),
            |_| {
                Ok(vec![mcp_bindgen::ResourceContents::text(
                    "bakery://menu",
                    "text/plain",
                    "bread",
                )])
            },
        );
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
    let capture = dir.path().join("greeter.tools.json");

    let out = bin()
        .args([
            "capture",
            "--url",
            &url,
            "--bearer-env",
            "GREETER_TOKEN",
            "-o",
        ])
        .arg(&capture)
        .env("GREETER_TOKEN", "t0ken")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let captured: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&capture).expect("written")).expect("json");
    assert_eq!(
        captured["serverInfo"],
        serde_json::json!({"name": "greeter", "version": "3.1.4"})
    );
    // Our server speaks both eras, and the client tries the modern one first.
    assert_eq!(captured["protocolVersion"], "2026-07-28");
    // What the server declared: it announces changes to its tools.
    assert_eq!(captured["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(captured["tools"][0]["name"], "hello");
    assert_eq!(captured["tools"][0]["description"], "Says hello.");
    // A tool that runs as a task keeps its `execution`, and the server's tasks extension is
    // recorded with its capabilities.
    assert_eq!(captured["tools"][0].get("execution"), None);
    assert_eq!(captured["tools"][1]["execution"]["taskSupport"], "optional");
    assert!(
        captured["capabilities"]["extensions"]
            .get("io.modelcontextprotocol/tasks")
            .is_some(),
        "{}",
        captured["capabilities"]
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains(": 2 tools, 1 resource from greeter 3.1.4"),
        "{summary}"
    );
    // In 2025-11-25 the tasks capability is the legacy one.
    let legacy = dir.path().join("legacy.tools.json");
    let out = bin()
        .args(["capture", "--url", &url, "--protocol", "2025-11-25"])
        .args(["--bearer-env", "GREETER_TOKEN", "-o"])
        .arg(&legacy)
        .env("GREETER_TOKEN", "t0ken")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let captured: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&legacy).expect("written")).expect("json");
    assert_eq!(captured["protocolVersion"], "2025-11-25");
    assert_eq!(captured["tools"][1]["execution"]["taskSupport"], "optional");
    assert!(
        captured["capabilities"]["tasks"]["requests"]["tools"]
            .get("call")
            .is_some(),
        "{}",
        captured["capabilities"]
    );

    // A wrong token: an authentication error, nothing written.
    let wrong = dir.path().join("wrong.json");
    let out = bin()
        .args([
            "capture",
            "--url",
            &url,
            "--bearer-env",
            "GREETER_TOKEN",
            "-o",
        ])
        .arg(&wrong)
        .env("GREETER_TOKEN", "nope")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("authentication failed") && stderr.contains("401"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: the server refused the token in $GREETER_TOKEN"),
        "what to do next: {stderr}"
    );
    assert!(!wrong.exists());
    // No credentials at all: the help names the flags that give them.
    let out = bin()
        .args(["capture", "--url", &url, "-o"])
        .arg(&wrong)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("help: the server wants credentials: give a token with --bearer-env VAR")
            && stderr.contains("--oauth"),
        "{stderr}"
    );
    // The variable not set: a usage error.
    let out = bin()
        .args([
            "capture",
            "--url",
            &url,
            "--bearer-env",
            "NO_SUCH_VAR_SET",
            "-o",
        ])
        .arg(&wrong)
        .env_remove("NO_SUCH_VAR_SET")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    stop.store(true, Ordering::Relaxed);
    server.join().expect("server thread");
}

/// Every command's help ends with examples, and the top-level help says what the tool is for.
#[test]
fn help_says_what_the_tool_is_for_and_gives_examples() {
    let help = |args: &[&str]| {
        let out = bin().args(args).arg("--help").output().expect("runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let top = help(&[]);
    assert!(
        top.starts_with("Typed Rust clients for MCP servers"),
        "{top}"
    );
    for command in ["regenerate", "capture", "diff", "generate"] {
        let text = help(&[command]);
        let examples = text.split("Examples:").nth(1).unwrap_or_default();
        assert!(
            examples.contains(&format!("mcp-bindgen {command}")),
            "{command}: {text}"
        );
    }
}

/// `cargo binstall` looks for the archive the release workflow makes: the names agree.
#[test]
fn binstall_metadata_names_what_the_release_workflow_builds() {
    let root = workspace();
    let manifest = std::fs::read_to_string(root.join("cli/Cargo.toml")).expect("Cargo.toml");
    let workflow =
        std::fs::read_to_string(root.join(".github/workflows/release.yml")).expect("release.yml");
    assert!(
        manifest.contains(
            r#"pkg-url = "{ repo }/releases/download/v{ version }/mcp-bindgen-{ target }.tar.gz""#
        ),
        "{manifest}"
    );
    assert!(
        manifest.contains(r#"bin-dir = "mcp-bindgen-{ target }/{ bin }{ binary-ext }""#),
        "{manifest}"
    );
    // The workflow's archive and the directory inside it, with the same names.
    assert!(
        workflow.contains(r#"dir="mcp-bindgen-${{ matrix.target }}""#),
        "{workflow}"
    );
    assert!(
        workflow.contains(r#"tar -czf "$dir.tar.gz" "$dir""#),
        "{workflow}"
    );
    assert!(workflow.contains(r#"tags: ["v*"]"#), "{workflow}");
    assert!(
        workflow.contains("cp \"target/${{ matrix.target }}/release/mcp-bindgen$ext\" \"$dir/\""),
        "{workflow}"
    );
}
