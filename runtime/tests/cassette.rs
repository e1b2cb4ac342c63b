//! Cassettes without a network: what a `Recorder` writes, what a `Replayer` answers, and how
//! each refuses what it cannot do. The interop tests (`tests/tests/interop.rs`) record against
//! real servers.

use mcp_bindgen::cassette::{Recorder, Replayer};
use mcp_bindgen::mock::MockCaller;
use mcp_bindgen::{CallToolResult, Error, ToolCaller};
use serde_json::{Map, Value, json};

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A server that adds `a` and `b`, fails on `fail`, and does not know `missing`.
fn adder() -> MockCaller {
    MockCaller::with_responder(|name, arguments| match name {
        "add" => {
            let sum = arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0);
            Ok(CallToolResult::structured(json!({ "sum": sum })))
        }
        "fail" => Ok(CallToolResult::error_text(
            r#"{"error":"no","code":"nope"}"#,
        )),
        _ => Err(Error::Protocol {
            code: -32602,
            message: format!("Unknown tool: {name}"),
            data: None,
        }),
    })
}

/// Records three calls (a result, a failed result, a JSON-RPC error) and returns the file.
fn record(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("session.jsonl");
    let recorder = Recorder::create(adder(), &path).expect("create");
    pollster::block_on(async {
        let sum = recorder
            .call_tool("add", args(json!({ "a": 2, "b": 40 })))
            .await
            .expect("add");
        assert_eq!(sum.structured_content, Some(json!({ "sum": 42 })));
        let failed = recorder
            .call_tool("fail", Map::new())
            .await
            .expect("a result");
        assert!(failed.is_error());
        let unknown = recorder
            .call_tool("missing", Map::new())
            .await
            .expect_err("unknown");
        assert!(matches!(unknown, Error::Protocol { code: -32602, .. }));
    });
    // The inner caller saw each call once.
    assert_eq!(recorder.inner().calls().len(), 3);
    recorder.finish().expect("every line written");
    path
}

#[test]
fn a_recording_is_one_json_object_per_line_with_a_versioned_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(record(&dir)).expect("read");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0]["mcp_bindgen_cassette"], 1);
    assert_eq!(lines[1]["call"], 1);
    assert_eq!(lines[1]["tool"], "add");
    assert_eq!(lines[1]["arguments"], json!({ "a": 2, "b": 40 }));
    assert_eq!(
        lines[1]["result"]["structuredContent"],
        json!({ "sum": 42 })
    );
    assert_eq!(lines[2]["result"]["isError"], true);
    assert_eq!(
        lines[3]["error"],
        json!({ "kind": "protocol", "code": -32602, "message": "Unknown tool: missing" })
    );
}

#[test]
fn a_replay_answers_what_was_recorded_errors_included() {
    let dir = tempfile::tempdir().expect("tempdir");
    let replayer = Replayer::open(record(&dir)).expect("open");
    pollster::block_on(async {
        let sum: Value = replayer
            .call_tool_decoded("add", args(json!({ "a": 2, "b": 40 })))
            .await
            .expect("add");
        assert_eq!(sum, json!({ "sum": 42 }));
        let failed = replayer
            .call_tool_decoded::<Value>("fail", Map::new())
            .await
            .expect_err("the recorded failure");
        assert!(
            matches!(&failed, Error::Tool { message, code, .. } if message == "no" && code.as_deref() == Some("nope")),
            "{failed:?}"
        );
        let unknown = replayer
            .call_tool("missing", Map::new())
            .await
            .expect_err("the recorded error");
        assert!(
            matches!(&unknown, Error::Protocol { code: -32602, message, .. } if message == "Unknown tool: missing"),
            "{unknown:?}"
        );
    });
    assert!(replayer.unplayed().is_empty());
}

#[test]
fn a_strict_replay_refuses_a_different_call_showing_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let replayer = Replayer::open(record(&dir)).expect("open");
    let error = pollster::block_on(replayer.call_tool("add", args(json!({ "a": 2, "b": 41 }))))
        .expect_err("different arguments");
    let text = error.to_string();
    assert!(text.contains("call 1 does not match"), "{text}");
    assert!(text.contains(r#"recorded: add {"a":2,"b":40}"#), "{text}");
    assert!(text.contains(r#"received: add {"a":2,"b":41}"#), "{text}");
    // A replay error of its own, and its explanation said once.
    assert!(matches!(error, Error::Replay { .. }), "{error:?}");
    assert_eq!(text.matches("does not match").count(), 1, "{text}");
    assert!(!text.starts_with("transport error"), "{text}");
    // Out of order is a mismatch too, and nothing was replayed.
    let error = pollster::block_on(replayer.call_tool("fail", Map::new())).expect_err("order");
    assert!(error.to_string().contains("recorded: add"), "{error}");
    assert_eq!(replayer.unplayed().len(), 3);
}

#[test]
fn an_any_order_replay_matches_by_tool_and_arguments() {
    let dir = tempfile::tempdir().expect("tempdir");
    let replayer = Replayer::open(record(&dir)).expect("open").any_order();
    pollster::block_on(async {
        assert!(replayer.call_tool("missing", Map::new()).await.is_err());
        let failed = replayer
            .call_tool("fail", Map::new())
            .await
            .expect("result");
        assert!(failed.is_error());
        // Each recorded call answers once.
        let again = replayer
            .call_tool("fail", Map::new())
            .await
            .expect_err("replayed already");
        assert!(again.to_string().contains("no such call"), "{again}");
        assert!(
            again.to_string().contains(r#"add {"a":2,"b":40}"#),
            "{again}"
        );
    });
    let unplayed = replayer.unplayed();
    assert_eq!(unplayed.len(), 1);
    assert_eq!(unplayed[0].tool, "add");
}

#[test]
fn a_cassette_it_cannot_read_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let newer = write("newer.jsonl", "{\"mcp_bindgen_cassette\":2}\n");
    let error = Replayer::open(&newer).expect_err("a newer version");
    assert_eq!(error.line, 1);
    assert!(error.to_string().contains("version 2"), "{error}");
    assert!(error.to_string().contains("reads version 1"), "{error}");

    let headless = write(
        "headless.jsonl",
        "{\"call\":1,\"tool\":\"x\",\"result\":{}}\n",
    );
    let error = Replayer::open(&headless).expect_err("no header");
    assert!(error.to_string().contains("not a cassette"), "{error}");

    let broken = write(
        "broken.jsonl",
        "{\"mcp_bindgen_cassette\":1}\n{\"call\":1,\"tool\":\"x\",\"result\":{}}\n{\"call\":2,\n",
    );
    let error = Replayer::open(&broken).expect_err("line 3 is cut");
    assert_eq!(error.line, 3);
    assert!(error.to_string().contains("broken.jsonl:3"), "{error}");

    let both = write(
        "both.jsonl",
        "{\"mcp_bindgen_cassette\":1}\n{\"call\":1,\"tool\":\"x\",\"result\":{},\"error\":{}}\n",
    );
    let error = Replayer::open(&both).expect_err("result and error");
    assert_eq!(error.line, 2);
    assert!(error.to_string().contains("exactly one of"), "{error}");

    let missing = dir.path().join("absent.jsonl");
    let error = Replayer::open(&missing).expect_err("no file");
    assert!(std::error::Error::source(&error).is_some(), "{error}");
}
