use super::*;
use serde_json::json;

#[derive(Debug, PartialEq, Deserialize)]
struct Player {
    x: i64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Observation {
    players: Vec<Player>,
}

fn body(message: Value) -> Vec<u8> {
    message.to_string().into_bytes()
}

/// What decoding through a `Value` of the message gives (the client before this module).
fn via_value<T: DeserializeOwned>(message: &[u8], id: u64) -> Result<T, Error> {
    let result = response_value("tools/call", Some(id), message)?;
    let call: CallToolResult = serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            "tools/call answered with a result that is not a CallToolResult",
            e,
        )
    })?;
    crate::decode_result("observe", call)
}

#[test]
fn decode_errors_name_the_path_in_the_bytes() {
    let structured = json!({"players": [{"x": 1}, {"x": "far"}]});
    let message = body(json!({"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": structured.to_string()}],
        "structuredContent": structured,
    }}));
    let err = decode_tool_response::<Observation>("observe", 3, &message).unwrap_err();
    match &err {
        Error::Decode {
            tool,
            path,
            message,
            value,
        } => {
            assert_eq!(tool, "observe");
            assert_eq!(path, "players[1].x");
            assert!(
                message.contains("invalid type: string \"far\""),
                "{message}"
            );
            assert_eq!(**value, structured);
        }
        other => panic!("expected Error::Decode, got {other:?}"),
    }
    // The same error as decoding through a `Value`.
    let old = via_value::<Observation>(&message, 3).unwrap_err();
    assert_eq!(err.to_string(), old.to_string());
}

#[test]
fn bytes_and_values_decode_alike() {
    let good = json!({"players": [{"x": 1}, {"x": 2}]});
    let text = good.to_string();
    let cases = [
        // The fast path: structuredContent after its text copy, and before it.
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": text}], "structuredContent": good}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "structuredContent": good, "isError": false,
            "content": [{"type": "text", "text": text}]}}),
        // No structuredContent, or null: the text block.
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": text}]}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": text}], "structuredContent": null}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": "not json"}]}}),
        // isError after a structuredContent that fits.
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "structuredContent": {"players": []}, "isError": true,
            "content": [{"type": "text", "text": "boom"}]}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {
            "structuredContent": {"error": "no room", "code": "E1"}, "isError": true}}),
        // JSON-RPC errors, an error beside a result, an explicit null error.
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "bad"}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good},
            "error": {"code": -32000, "message": "both"}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good},
            "error": null}),
        // Another request's answer, no result, a result that is not a CallToolResult.
        json!({"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": good}}),
        json!({"jsonrpc": "2.0", "id": "5", "result": {"structuredContent": good}}),
        json!({"jsonrpc": "2.0", "id": 5}),
        json!({"jsonrpc": "2.0", "id": 5, "result": null}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
            "isError": "yes"}}),
        // resultType complete; a value that does not fit at the top.
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
            "resultType": "complete"}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": [1, 2]}}),
        // Not an object (serde reads a struct from an array too).
        json!([5, {"structuredContent": good}]),
        json!(5),
    ];
    for case in cases {
        let message = body(case.clone());
        let new = decode_tool_response::<Observation>("observe", 5, &message);
        let old = via_value::<Observation>(&message, 5);
        match (&new, &old) {
            (Ok(new), Ok(old)) => assert_eq!(new, old, "{case}"),
            (Err(new), Err(old)) => assert_eq!(new.to_string(), old.to_string(), "{case}"),
            _ => panic!("{case}: bytes gave {new:?}, a Value {old:?}"),
        }
    }
    // Written by hand: escapes, brackets in strings, escaped keys, odd ids, layout.
    let raw_cases: [&[u8]; 12] = [
        br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a \"}]\\\" {[ b"}],"structuredContent":{"players":[{"x":1}]}}}"#,
        br#"{"id":5,"result":{"structured\u0043ontent":{"players":[{"x":1}]}}}"#,
        br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"structuredContent":{"players":[]}}}"#,
        br#"{"id":5,"result":{"structuredContent":{"players":[]}},"result":{"structuredContent":{"players":[{"x":1}]}}}"#,
        br#"{"id":05,"result":{"structuredContent":{"players":[]}}}"#,
        br#"{"id":+5,"result":{"structuredContent":{"players":[]}}}"#,
        br#"{"id":5.0,"result":{"structuredContent":{"players":[]}}}"#,
        br#"{"id":5,"result":{"structuredContent":{"players":[]}}} trailing"#,
        br#"{"id":5,"result":{"structuredContent":{"players":[]}x}}"#,
        b"{\n  \"id\" : 5 ,\n  \"result\" : {\n    \"isError\" : false ,\n    \"structuredContent\" : { \"players\" : [ { \"x\" : 1 } ] }\n  }\n}\n",
        br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"isError":null,"_meta":{"a":[1,{"b":"}"}]}}}"#,
        br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"content":[{"type":"text","text":"unterminated}]}}"#,
    ];
    for message in raw_cases {
        let new = decode_tool_response::<Observation>("observe", 5, message);
        let old = via_value::<Observation>(message, 5);
        let case = String::from_utf8_lossy(message);
        match (&new, &old) {
            (Ok(new), Ok(old)) => assert_eq!(new, old, "{case}"),
            (Err(new), Err(old)) => assert_eq!(new.to_string(), old.to_string(), "{case}"),
            _ => panic!("{case}: bytes gave {new:?}, a Value {old:?}"),
        }
    }
    let not_json = decode_tool_response::<Observation>("observe", 5, b"{\"id\": 5,").unwrap_err();
    assert!(not_json.to_string().contains("not JSON"), "{not_json}");
}

/// The fast path takes the usual answers (else they would be right, but slow) and leaves
/// the rest to the general path.
#[test]
fn the_fast_path_takes_what_it_should() {
    let good = json!({"players": [{"x": 1}, {"x": 2}]});
    let taken = [
        body(json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": good.to_string()}], "structuredContent": good}})),
        body(
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
            "content": [{"type": "text", "text": "a \\\" {[ \\\\\" ]} \u{e9}"}],
            "isError": false, "_meta": {"k": [1, true, null, -2.5e3, {"s": "}"}]}}}),
        ),
        serde_json::to_vec_pretty(&json!({"jsonrpc": "2.0", "id": 5, "result": {
            "structuredContent": good, "isError": null}}))
        .expect("json"),
    ];
    for message in taken {
        let case = String::from_utf8_lossy(&message).into_owned();
        let fast = Scan::new(&message).response::<Observation>(Some(5));
        assert_eq!(fast.map(|o| o.players.len()), Some(2), "{case}");
    }
    let left = [
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good, "isError": true}}),
        json!({"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": good}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": null}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"content": []}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
            "resultType": "complete"}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": {"players": 1}}}),
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "m"}}),
    ];
    for message in left {
        let fast = Scan::new(&body(message.clone())).response::<Observation>(Some(5));
        assert!(fast.is_none(), "{message}");
    }
}

#[test]
fn input_required_and_unknown_result_types_leave_the_fast_path() {
    let message = body(json!({"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "input_required", "inputRequests": {"a": {"method": "ping"}},
        "structuredContent": {"players": []}}}));
    let step = TypedResult::<Observation>::new("observe")
        .decode("tools/call", Some(9), &message)
        .expect("decodes");
    assert!(
        matches!(&step, Step::InputRequired(result) if result["inputRequests"]["a"]["method"] == "ping"),
        "{step:?}"
    );
    let message = body(json!({"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "later", "structuredContent": {"players": []}}}));
    let err = decode_tool_response::<Observation>("observe", 9, &message).unwrap_err();
    assert!(
        err.to_string().contains("unknown resultType \"later\""),
        "{err}"
    );
}

#[test]
fn routes_read_id_and_method() {
    let route =
        Route::of(br#"{"jsonrpc":"2.0","id":12,"result":{"big":[1,2,3]}}"#).expect("an object");
    assert_eq!((route.id(), route.has_string_method()), (Some(12), false));
    let route = Route::of(br#"{"method":"ping","id":"a"}"#).expect("an object");
    assert!(route.has_string_method() && route.has_id());
    assert_eq!(route.id(), None);
    let route = Route::of(br#"{"method":null}"#).expect("an object");
    assert!(!route.has_string_method() && !route.has_id());
    assert!(Route::of(b"[1]").is_none() && Route::of(b"not json").is_none());
}
