//! build.rs in anger: a crate that generates its client in build.rs (a copy of
//! examples/build-rs, with a binary that uses one item of the module), built with cargo as a
//! user would. Nothing the binary leaves unused warns; an untouched second build runs no
//! generator work; a touched capture regenerates; a broken capture fails the build with the
//! located message, not a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

struct Build {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Build {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = workspace();
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        for file in ["build.rs", "src/lib.rs", "tools/time.tools.json"] {
            std::fs::copy(
                root.join("examples/build-rs").join(file),
                dir.path().join(file),
            )
            .expect("copy");
        }
        // A binary that takes the module privately and uses one thing of it: what it leaves
        // unused must not warn.
        std::fs::write(
            dir.path().join("src/main.rs"),
            r#"mod bindings {
    include!(concat!(env!("OUT_DIR"), "/time.rs"));
}

fn main() {
    let client = bindings::time::Client::new(mcp_bindgen::mock::MockCaller::new());
    let _ = client.caller();
}
"#,
        )
        .expect("main.rs");
        let path = |p: &str| root.join(p).display().to_string();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            format!(
                r#"[package]
name = "build-rs-anger"
version = "0.0.0"
edition = "2024"

[dependencies]
mcp-bindgen = {{ path = {runtime:?} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[build-dependencies]
mcp-bindgen-codegen = {{ path = {codegen:?}, default-features = false }}

[workspace]
"#,
                runtime = path("runtime"),
                codegen = path("codegen"),
            ),
        )
        .expect("Cargo.toml");
        // The workspace's lockfile pins the same versions the workspace builds with.
        std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).expect("lock");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"))
            .join("build-rs-anger");
        Build { dir, target }
    }

    /// `cargo build -v`: whether it succeeded, and its stderr.
    fn build(&self) -> (bool, String) {
        let out = Command::new(env!("CARGO"))
            .args(["build", "-v", "--offline"])
            .current_dir(self.dir.path())
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .output()
            .expect("cargo runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn capture(&self) -> PathBuf {
        self.dir.path().join("tools/time.tools.json")
    }
}

/// Cargo's line for running a build script of this package.
fn ran_build_script(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        l.contains("Running") && l.contains("build-rs-anger-") && l.contains("build-script-build")
    })
}

#[test]
fn build_rs_reruns_only_when_inputs_change_and_fails_located() {
    let b = Build::new();
    let (ok, stderr) = b.build();
    assert!(ok, "first build:\n{stderr}");
    assert!(
        ran_build_script(&stderr),
        "the first build generates:\n{stderr}"
    );
    assert!(
        !stderr.contains("never used") && !stderr.contains("dead_code"),
        "a crate that uses one item of the module gets no warning for the others:\n{stderr}"
    );

    let (ok, stderr) = b.build();
    assert!(ok, "second build:\n{stderr}");
    assert!(
        !ran_build_script(&stderr),
        "an untouched build runs no generator work:\n{stderr}"
    );

    let text = std::fs::read_to_string(b.capture()).expect("capture");
    std::fs::write(
        b.capture(),
        text.replace(
            "Get current time in a specific timezone",
            "Get the time in a zone",
        ),
    )
    .expect("touch");
    let (ok, stderr) = b.build();
    assert!(ok, "touched build:\n{stderr}");
    assert!(
        ran_build_script(&stderr),
        "a touched capture regenerates:\n{stderr}"
    );

    std::fs::write(
        b.capture(),
        text.replacen("\"inputSchema\": {", "\"inputSchema\": [{", 1),
    )
    .expect("break");
    let (ok, stderr) = b.build();
    assert!(!ok, "a broken capture fails the build");
    assert!(
        stderr.contains("tools/time.tools.json:") && stderr.contains("not valid JSON"),
        "located message:\n{stderr}"
    );
    assert!(
        stderr.contains(" | "),
        "the offending line is shown:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "no panic:\n{stderr}");
}
