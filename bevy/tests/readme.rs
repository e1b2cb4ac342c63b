//! The guide's Bevy example (`book/src/bevy.md`) is `examples/quickstart.rs`, which `cargo test
//! --all-targets` compiles: the chapter must show that file's code as it is (from its first
//! `use`), so a change to one without the other fails here.

#[test]
fn the_guide_shows_the_compiled_quickstart() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme =
        std::fs::read_to_string(format!("{root}/book/src/bevy.md")).expect("book/src/bevy.md");
    let example = std::fs::read_to_string(format!("{root}/bevy/examples/quickstart.rs"))
        .expect("the example");
    let code = &example[example.find("use ").expect("a use")..];
    let fenced = format!("```rust\n{code}```");
    assert!(
        readme.contains(&fenced),
        "book/src/bevy.md's example differs from bevy/examples/quickstart.rs; paste the file's \
         code from its first `use`:\n{code}"
    );
    // The dependencies it needs, as the file's header lists them.
    for dependency in [
        "mcp-bindgen-bevy = ",
        "bevy_app = ",
        "bevy_time = ",
        "schemars = ",
    ] {
        assert!(
            readme.contains(dependency),
            "book/src/bevy.md lacks {dependency:?}"
        );
    }
}
