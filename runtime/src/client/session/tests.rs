use super::*;
use crate::client::Protocol;
use crate::era::meta;
use mcp_bindgen_core::param_headers::param_headers;

#[test]
fn mirrored_arguments_are_written_as_their_headers_carry_them() {
    assert_eq!(
        header_text(&json!(" padded ")).as_deref(),
        Some("=?base64?IHBhZGRlZCA=?=")
    );
    assert_eq!(header_text(&json!("plain")).as_deref(), Some("plain"));
    assert_eq!(header_text(&json!(42)).as_deref(), Some("42"));
    assert_eq!(header_text(&json!(true)).as_deref(), Some("true"));
    assert_eq!(header_text(&json!({"a": 1})), None);
}

#[test]
fn a_modern_tools_call_mirrors_the_nested_arguments_its_tool_marks() {
    let session = Session::new(Settings::default());
    let schema = json!({"type": "object", "properties": {
            "target": {"type": "object", "properties": {
                "id": {"type": "integer", "x-mcp-header": "Target-Id"}}},
            "region": {"type": "string", "x-mcp-header": "Region"}}});
    lock(&session.header_params)
        .insert("strike".to_owned(), param_headers(&schema).expect("valid"));
    let modern = Negotiated {
        version: "2026-07-28".into(),
        era: Era::Stateless,
    };
    let params = json!({"name": "strike", "arguments": {"target": {"id": 7}}});
    let request = session
        .outgoing(1, "tools/call", &params, Some(&modern), None, false)
        .unwrap();
    assert_eq!(
        request.mirrored,
        vec![("Target-Id".to_owned(), "7".to_owned())],
        "the absent region has no header"
    );
    let legacy = session
        .outgoing(2, "tools/call", &params, None, None, false)
        .unwrap();
    assert!(legacy.mirrored.is_empty(), "legacy requests mirror nothing");
}

#[test]
fn modern_requests_carry_the_meta_keys() {
    let session = Session::new(Settings::default());
    let negotiated = Negotiated {
        version: "2026-07-28".into(),
        era: Era::Stateless,
    };
    let params = json!({"name": "x", "_meta": {"mine": 1}});
    let request = session
        .outgoing(7, "tools/call", &params, Some(&negotiated), Some(7), false)
        .unwrap();
    let message: Value = serde_json::from_str(&request.text).unwrap();
    let meta = &message["params"]["_meta"];
    assert_eq!(meta[meta::PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(meta[meta::CLIENT_CAPABILITIES], json!({}));
    assert_eq!(meta[meta::CLIENT_INFO]["name"], "mcp-bindgen");
    assert_eq!(meta["progressToken"], 7);
    assert_eq!(meta["mine"], 1);
    let params = json!({});
    let legacy = session
        .outgoing(8, "tools/list", &params, None, None, false)
        .unwrap();
    let legacy: Value = serde_json::from_str(&legacy.text).unwrap();
    assert_eq!(legacy["params"], json!({}));
}

#[test]
fn versions_are_picked_from_what_both_support() {
    let supported = json!(["2025-06-18", "2026-07-28"]);
    assert_eq!(
        Protocol::Auto.pick(&supported).as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(
        Protocol::Legacy.pick(&supported).as_deref(),
        Some("2025-06-18")
    );
    assert_eq!(Protocol::Modern.pick(&json!(["2025-06-18"])), None);
    assert_eq!(Protocol::Auto.pick(&json!(["1900-01-01"])), None);
}
