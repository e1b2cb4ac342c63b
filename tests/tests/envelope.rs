//! One test per envelope rule (the runtime crate docs), each quoting the seed sentence it
//! checks, driven through generated clients.

use std::sync::Arc;

use mcp_bindgen::mock::MockCaller;
use mcp_bindgen::{CallToolResult, Content, Error};
use mcp_bindings::{scape, worldforge};
use pollster::block_on;
use serde_json::{Value, json};

fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).expect("a CallToolResult")
}

fn worldforge_answering(answer: CallToolResult) -> worldforge::Client<Arc<MockCaller>> {
    let mock = Arc::new(MockCaller::new());
    mock.push(Ok(answer));
    worldforge::Client::new(mock)
}

fn read_world(answer: CallToolResult) -> Result<Value, Error> {
    let client = worldforge_answering(answer);
    block_on(client.read_world(&worldforge::types::ReadWorldArgs { id: "w".into() }))
}

/// Scape: "On success, Scape returns the same JSON value in structuredContent and a text
/// content block." The structured value is the one used, even when the text differs.
#[test]
fn structured_content_is_preferred() {
    let value = read_world(result(json!({
        "content": [{"type": "text", "text": "{\"from\": \"text\"}"}],
        "structuredContent": {"from": "structured"}
    })))
    .expect("ok");
    assert_eq!(value, json!({"from": "structured"}));
}

/// WorldForge: "a single text block is parsed as JSON (falling back to the raw text)".
#[test]
fn one_text_block_is_parsed_as_json() {
    let value = read_world(CallToolResult::text("{\"id\": \"world_abc\", \"n\": 3}")).expect("ok");
    assert_eq!(value, json!({"id": "world_abc", "n": 3}));
}

/// WorldForge: "... (falling back to the raw text)".
#[test]
fn one_text_block_that_is_not_json_is_the_raw_text() {
    let value = read_world(CallToolResult::text("The world of Abc")).expect("ok");
    assert_eq!(value, json!("The world of Abc"));
}

/// WorldForge: "several text blocks are joined with newlines."
#[test]
fn several_text_blocks_are_joined_with_newlines() {
    let value = read_world(result(json!({"content": [
        {"type": "text", "text": "line one"},
        {"type": "text", "text": "{\"not\": \"parsed\"}"}
    ]})))
    .expect("ok");
    assert_eq!(value, json!("line one\n{\"not\": \"parsed\"}"));
}

/// WorldForge: "Non-text blocks are ignored." An unknown block type is kept, not fatal.
#[test]
fn non_text_blocks_are_ignored() {
    let answer = result(json!({"content": [
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "text", "text": "{\"ok\": true}"},
        {"type": "video", "url": "https://example.com/v.mp4"},
        {"type": "resource_link", "uri": "file:///w.md", "name": "w.md"}
    ]}));
    assert!(matches!(answer.content[0], Content::Image(_)));
    assert!(matches!(answer.content[2], Content::Unknown(_)));
    assert!(matches!(answer.content[3], Content::ResourceLink(_)));
    assert_eq!(read_world(answer).expect("ok"), json!({"ok": true}));
}

/// Scape: "On a tool failure, isError is true and the text block contains { error: string,
/// code?: string }" — the code reaches the caller.
#[test]
fn is_error_with_error_and_code_gives_the_code() {
    let mock = Arc::new(MockCaller::new());
    mock.push(Ok(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "{\"error\": \"Not in a room\", \"code\": \"NOT_ENTERED\"}"}]
    }))));
    let client = scape::Client::new(mock);
    let err = block_on(client.scape_observe(&Default::default())).expect_err("isError");
    match &err {
        Error::Tool {
            tool,
            message,
            code,
            result,
        } => {
            assert_eq!(tool, "scape_observe");
            assert_eq!(message, "Not in a room");
            assert_eq!(code.as_deref(), Some("NOT_ENTERED"));
            assert!(result.is_error());
        }
        other => panic!("expected Error::Tool, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "MCP tool scape_observe failed: Not in a room"
    );
}

/// Same rule, with the object in structuredContent.
#[test]
fn is_error_with_structured_error_object() {
    let err = read_world(result(json!({
        "isError": true,
        "structuredContent": {"error": "scope denied", "code": "FORBIDDEN"},
        "content": [{"type": "text", "text": "scope denied"}]
    })))
    .expect_err("isError");
    assert_eq!(err.code().as_deref(), Some("FORBIDDEN"));
}

/// WorldForge: "Tool-level failures (isError: true) throw McpToolError (.tool, .result,
/// message MCP tool <name> failed: <detail>)" — with plain text, the detail is the text.
#[test]
fn is_error_with_plain_text() {
    let err = read_world(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "world_abc does not exist"}, {"type": "text", "text": "check the id"}]
    })))
    .expect_err("isError");
    assert_eq!(
        err.to_string(),
        "MCP tool read_world failed: world_abc does not exist\ncheck the id"
    );
    assert_eq!(err.tool(), Some("read_world"));
    assert_eq!(err.code(), None);
}

/// DESIGN rule 1: "A transport failure or JSON-RPC error is Error::Transport /
/// Error::Protocol { code, message }" — passed through unchanged.
#[test]
fn json_rpc_error_is_a_protocol_error() {
    let mock = Arc::new(MockCaller::new());
    mock.push(Err(Error::Protocol {
        code: -32602,
        message: "Unknown tool: read_world".into(),
        data: None,
    }));
    mock.push(Err(Error::transport("connection refused")));
    let client = worldforge::Client::new(mock);
    let args = worldforge::types::ReadWorldArgs { id: "w".into() };
    let err = block_on(client.read_world(&args)).expect_err("protocol error");
    assert!(
        matches!(err, Error::Protocol { code: -32602, .. }),
        "{err:?}"
    );
    let err = block_on(client.read_world(&args)).expect_err("transport error");
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
}

/// DESIGN rule 4: a value that does not fit the result type is `Error::Decode` with the JSON
/// path of the first bad field, never a panic.
#[test]
fn mismatch_is_a_decode_error_with_the_path() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct World {
        id: String,
        regions: Vec<Region>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Region {
        x: i64,
    }
    let answer =
        result(json!({"structuredContent": {"id": "w", "regions": [{"x": 1}, {"x": "two"}]}}));
    let err = mcp_bindgen::decode_result::<World>("read_world", answer).expect_err("bad x");
    match err {
        Error::Decode { tool, path, .. } => {
            assert_eq!(tool, "read_world");
            assert_eq!(path, "regions[1].x");
        }
        other => panic!("expected Error::Decode, got {other:?}"),
    }
}

/// Unknown fields of the result survive a round trip (captures and `_raw` keep the JSON).
#[test]
fn unknown_fields_are_kept() {
    let sent = json!({
        "content": [{"type": "text", "text": "hi", "x-extra": 1}],
        "resultType": "complete",
        "_meta": {"k": "v"}
    });
    let parsed = result(sent.clone());
    assert_eq!(serde_json::to_value(&parsed).expect("serialises"), sent);
}
