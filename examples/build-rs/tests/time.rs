//! The build.rs-generated client works end to end: typed arguments out, typed output in.

use mcp_bindgen::CallToolResult;
use mcp_bindgen::mock::MockCaller;
use mcp_bindgen_example_build::time;
use serde_json::json;

#[test]
fn typed_call_through_the_build_rs_client() {
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
    assert!(!now.is_dst);
    let call = mock.last_call().expect("one call");
    assert_eq!(call.name, "get_current_time");
    assert_eq!(call.arguments, json!({"timezone": "Europe/Paris"}));
}

/// A result that does not match the server's own outputSchema is a decode error with the path.
#[test]
fn output_that_breaks_the_schema_is_a_decode_error() {
    let mock = MockCaller::new();
    mock.push(Ok(CallToolResult::structured(json!({
        "timezone": "UTC", "datetime": "x", "day_of_week": "Monday", "is_dst": "no"
    }))));
    let client = time::Client::new(&mock);
    let err = pollster::block_on(client.get_current_time(&time::types::GetCurrentTimeArgs {
        timezone: "UTC".into(),
    }))
    .expect_err("is_dst is not a boolean");
    assert!(
        matches!(&err, mcp_bindgen::Error::Decode { path, .. } if path == "is_dst"),
        "{err}"
    );
}
