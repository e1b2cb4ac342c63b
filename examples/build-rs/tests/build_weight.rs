//! A build.rs without agent contracts does not compile the TypeScript parser: this example
//! depends on `mcp-bindgen-codegen` with `default-features = false` (no `cli`, no `contracts`),
//! and no `oxc` crate is in its dependency tree; the generator with its default features has
//! them (so the check can fail).

use std::process::Command;

/// The crates in `package`'s tree (normal and build dependencies), as `cargo tree` lists them.
fn tree(package: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            package,
            "--edges",
            "normal,build",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs cargo tree");
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

fn has_oxc(tree: &str) -> bool {
    tree.lines().any(|line| line.starts_with("oxc_"))
}

#[test]
fn a_build_rs_without_contracts_does_not_compile_oxc() {
    let example = tree("mcp-bindgen-example-build");
    assert!(
        example.contains("mcp-bindgen-codegen"),
        "the example's build.rs uses the generator:\n{example}"
    );
    assert!(
        !has_oxc(&example),
        "oxc in the build.rs example's tree:\n{example}"
    );
    let generator = tree("mcp-bindgen-codegen");
    assert!(
        has_oxc(&generator),
        "the generator's default features parse contracts"
    );
}
