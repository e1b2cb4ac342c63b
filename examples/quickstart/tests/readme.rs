//! The README's quick start is this crate, word for word: if the code changes, so must the
//! README, and the README's code always compiles (it is this crate).

const README: &str = include_str!("../../../README.md");

#[test]
fn readme_shows_this_build_script_lib_and_main() {
    for (file, text) in [
        ("build.rs", include_str!("../build.rs")),
        ("src/lib.rs", include_str!("../src/lib.rs")),
        ("src/main.rs", include_str!("../src/main.rs")),
    ] {
        assert!(
            README.contains(text),
            "README.md's quick start no longer shows examples/quickstart/{file} as it is"
        );
    }
}
