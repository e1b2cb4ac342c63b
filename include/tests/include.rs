//! `include_tools!` generates what the build.rs way generates from the same capture: the
//! module, named after the capture or as asked, with its options applied; a typed call works
//! end to end; bad input fails the build at the macro's argument (`ui/*.rs`, with trybuild).

use mcp_bindgen::CallToolResult;
use mcp_bindgen::mock::MockCaller;
use serde_json::json;

// `pub mod time`: the module is named after the capture.
mcp_bindgen_include::include_tools!("../examples/build-rs/tools/time.tools.json");

// Options: another module name, the server's name, a renamed method.
mcp_bindgen_include::include_tools!(
    "../examples/build-rs/tools/time.tools.json",
    module = "clock",
    name = "Clock",
    rename = ("get_current_time", "now"),
);

#[test]
fn a_typed_call_through_the_macro_client() {
    let mock = MockCaller::new();
    mock.push(Ok(CallToolResult::structured(json!({
        "timezone": "Europe/Paris",
        "datetime": "2026-12-02T13:00:00+01:00",
        "day_of_week": "Wednesday",
        "is_dst": false
    }))));
    let client = time::Client::new(&mock);
    let now = pollster::block_on(client.get_current_time(&time::types::GetCurrentTimeArgs {
        timezone: "Europe/Paris".into(),
    }))
    .expect("typed output");
    assert_eq!(now.day_of_week, "Wednesday");
    let call = mock.last_call().expect("one call");
    assert_eq!(call.name, "get_current_time");
    assert_eq!(call.arguments, json!({"timezone": "Europe/Paris"}));
}

#[test]
fn the_options_name_the_module_and_its_methods() {
    let mock = MockCaller::new();
    mock.push(Ok(CallToolResult::structured(json!({
        "timezone": "UTC", "datetime": "2026-12-02T12:00:00+00:00",
        "day_of_week": "Wednesday", "is_dst": false
    }))));
    let client = clock::Client::new(&mock);
    pollster::block_on(client.now(&clock::types::NowArgs {
        timezone: "UTC".into(),
    }))
    .expect("renamed");
    assert_eq!(mock.last_call().expect("a call").name, "get_current_time");
}

/// The same generator as build.rs: the module records the same tools and digest as the one
/// `Builder` writes for the example crate.
#[test]
fn the_same_module_as_the_build_rs_way() {
    let capture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/build-rs/tools/time.tools.json"
    );
    let module = mcp_bindgen_codegen::Generator::new()
        .generate(&mcp_bindgen_codegen::ServerConfig::new("time", capture))
        .expect("generates");
    assert_eq!(
        Some(time::PROVENANCE.digest()),
        module.digest.as_deref(),
        "the digest the generator records"
    );
    assert_eq!(time::TOOL_NAMES, ["get_current_time", "convert_time"]);
}

/// Bad input fails the build, at the macro's argument, saying where and what to do.
#[test]
fn bad_input_fails_the_build_located() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
