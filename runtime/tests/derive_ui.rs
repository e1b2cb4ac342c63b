//! Misuse of `#[derive(McpTool)]` or `#[derive(McpPrompt)]` is a compile error pointing at the offending tokens.
#![cfg(feature = "server")]

#[test]
fn misuse_is_a_spanned_compile_error() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
