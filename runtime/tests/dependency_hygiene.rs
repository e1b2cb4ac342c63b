//! The runtime leaves its users' serde_json alone. Cargo unifies features across a build, so a
//! serde_json feature that the runtime (or the generated crate, or a game) turned on would change
//! `serde_json::Map` (`preserve_order`), numbers (`arbitrary_precision`, `float_roundtrip`) or
//! the recursion limit (`unbounded_depth`) for every crate its user links. Only the generator
//! may turn them on (captures keep the server's key order).
//!
//! Asks `cargo tree` (offline: it reads the lockfile) which serde_json features a build of each
//! crate a game or client links resolves to, as a user's build of that crate alone would.

use std::process::Command;

const FORBIDDEN: &[&str] = &[
    "preserve_order",
    "unbounded_depth",
    "arbitrary_precision",
    "float_roundtrip",
];

/// The serde_json features a build of `package` (with `features`) turns on.
fn serde_json_features(package: &str, features: &str) -> Vec<String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let mut command = Command::new(env!("CARGO"));
    command.args([
        "tree",
        "--offline",
        "--manifest-path",
        manifest,
        "-p",
        package,
    ]);
    if !features.is_empty() {
        command.args(["--features", features]);
    }
    // Normal and build edges only: a user's build does not include our dev-dependencies.
    command.args([
        "-e",
        "normal,build,features",
        "-i",
        "serde_json",
        "--prefix",
        "none",
    ]);
    let output = command.output().expect("runs cargo tree");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("serde_json v1"),
        "cargo tree -p {package} failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut found: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("serde_json feature \""))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_runtime_with_client_and_server_leaves_serde_json_features_alone() {
    let features = serde_json_features("mcp-bindgen", "client,server");
    // The tree really lists serde_json's features (so an empty list below is not a parse miss).
    assert!(features.iter().any(|f| f == "std"), "{features:?}");
    for forbidden in FORBIDDEN {
        assert!(
            !features.iter().any(|f| f == forbidden),
            "mcp-bindgen (client, server) turns on serde_json/{forbidden}: {features:?}"
        );
    }
}

#[test]
fn the_generated_clients_and_the_example_game_leave_serde_json_features_alone() {
    for package in ["mcp-bindings", "mcp-bindgen-example-tecs"] {
        let features = serde_json_features(package, "");
        assert!(
            features.iter().any(|f| f == "std"),
            "{package}: {features:?}"
        );
        for forbidden in FORBIDDEN {
            assert!(
                !features.iter().any(|f| f == forbidden),
                "{package} turns on serde_json/{forbidden}: {features:?}"
            );
        }
    }
}

/// The check can tell: the generator does turn `preserve_order` on.
#[test]
fn the_generator_keeps_key_order() {
    let features = serde_json_features("mcp-bindgen-codegen", "");
    assert!(
        features.iter().any(|f| f == "preserve_order"),
        "{features:?}"
    );
}
