//! The registry's rules (seed 001, tecs.io.mcp), each a test, through `dispatch`.
#![cfg(feature = "server")]

use mcp_bindgen::server::{Handler, McpTool, Registry, ToolDefinition, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Default)]
struct World {
    placed: u32,
    log: Vec<String>,
}

/// Count entities that carry a Transform2D
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
struct PlacedCount {}

#[derive(Serialize, JsonSchema)]
struct Count {
    count: u32,
}

impl Handler<World> for PlacedCount {
    type Output = Count;
    fn call(self, world: &mut World) -> Result<Count, ToolError> {
        Ok(Count {
            count: world.placed,
        })
    }
}

/// Place entities.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(destructive)]
struct Place {
    /// How many, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    n: u32,
}

impl Handler<World> for Place {
    type Output = ();
    fn call(self, world: &mut World) -> Result<(), ToolError> {
        world.placed += self.n;
        Ok(())
    }
}

#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(name = "fail")]
struct Fail {
    code: Option<String>,
}

impl Handler<World> for Fail {
    type Output = ();
    fn call(self, _: &mut World) -> Result<(), ToolError> {
        let error = ToolError::new("it went wrong");
        Err(match self.code {
            Some(code) => error.with_code(code),
            None => error,
        })
    }
}

#[derive(McpTool, Deserialize, JsonSchema)]
struct Explode {}

impl Handler<World> for Explode {
    type Output = ();
    fn call(self, _: &mut World) -> Result<(), ToolError> {
        panic!("boom at frame 12")
    }
}

/// Check that the server answers.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, when_crashed)]
struct Ping {}

impl Handler<World> for Ping {
    type Output = Vec<String>;
    fn call(self, world: &mut World) -> Result<Vec<String>, ToolError> {
        world.log.push("ping".into());
        Ok(vec!["pong".into()])
    }
}

fn registry() -> Registry<World> {
    let mut r = Registry::new("test-game", "1.2.3");
    r.register::<PlacedCount>()
        .register::<Place>()
        .register::<Fail>()
        .register::<Explode>()
        .register::<Ping>();
    r
}

fn call(r: &mut Registry<World>, w: &mut World, text: &str) -> Value {
    let reply = r.dispatch(w, text).expect("a reply");
    serde_json::from_str(&reply).expect("the reply is JSON")
}

fn tool_call(r: &mut Registry<World>, w: &mut World, name: &str, args: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": args}});
    let reply = call(r, w, &request.to_string());
    assert_eq!(reply["id"], 7);
    reply["result"].clone()
}

/// The `{ error, code? }` object of a failed result (the JSON of its text block).
fn failure(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result.get("structuredContent").is_none(),
        "errors carry no structuredContent: {result}"
    );
    serde_json::from_str(result["content"][0]["text"].as_str().expect("a text block"))
        .expect("JSON text")
}

fn names(r: &Registry<World>) -> Vec<String> {
    r.tools().map(|t| t.name.clone()).collect()
}

/// "Re-registering a name replaces it. Replacing keeps the name's original position, so the
/// order a client sees is first-registration order rather than last."
#[test]
fn register_replaces_in_place_and_keeps_the_first_position() {
    let mut r = registry();
    assert_eq!(
        names(&r),
        ["placed_count", "place", "fail", "explode", "ping"]
    );
    let mut replacement = ToolDefinition::new("place", serde_json::Map::new());
    replacement.description = "replaced".into();
    r.register_fn(replacement, |_: &mut World, _| {
        Ok(json!({"replaced": true}))
    });
    assert_eq!(
        names(&r),
        ["placed_count", "place", "fail", "explode", "ping"]
    );
    let mut w = World::default();
    let result = tool_call(&mut r, &mut w, "place", json!({}));
    assert_eq!(result["structuredContent"], json!({"replaced": true}));
    let listed = call(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_eq!(listed["result"]["tools"][1]["description"], "replaced");
}

/// tools/list: the record of each tool, all four hints always sent, description "" when none.
#[test]
fn tools_list_sends_every_record_field() {
    let mut r = registry();
    let mut w = World::default();
    let listed = call(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
    );
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 5);
    assert_eq!(
        tools[0],
        json!({
            "name": "placed_count",
            "description": "Count entities that carry a Transform2D",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u32}}, "required": ["count"]},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
        })
    );
    // "Optional; nil is sent as an empty string rather than omitted."
    assert_eq!(tools[2]["description"], "");
    // Portable profile: no $schema, Option as not-required with a plain type, no uint32 format
    // but its bounds (a `u32` stays a `u32` in a client generated from the capture).
    assert_eq!(
        tools[2]["inputSchema"],
        json!({"type": "object", "properties": {"code": {"type": "string"}}})
    );
    assert_eq!(
        tools[1]["inputSchema"],
        json!({"type": "object", "properties": {"n": {"description": "How many, 1 to 100.", "type": "integer", "minimum": 1, "maximum": 100}}, "required": ["n"]})
    );
}

/// initialize negotiates across 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25.
#[test]
fn initialize_negotiates_the_version() {
    let mut r = registry();
    let mut w = World::default();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let reply = call(&mut r, &mut w, &request.to_string());
        assert_eq!(reply["result"]["protocolVersion"], version);
        assert_eq!(
            reply["result"]["serverInfo"],
            json!({"name": "test-game", "version": "1.2.3"})
        );
        assert_eq!(
            reply["result"]["capabilities"]["tools"],
            json!({"listChanged": true})
        );
    }
    // An unknown version gets the newest we support.
    let reply = call(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    );
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn ping_answers_an_empty_result() {
    let mut r = registry();
    let reply = call(
        &mut r,
        &mut World::default(),
        r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
    );
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
}

#[test]
fn notifications_and_responses_get_no_reply() {
    let mut r = registry();
    let mut w = World::default();
    assert_eq!(
        r.dispatch(
            &mut w,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ),
        None
    );
    assert_eq!(r.dispatch(&mut w, r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"place","arguments":{"n":1}}}"#), None);
    assert_eq!(w.placed, 0, "a notification runs no tool");
    assert_eq!(
        r.dispatch(&mut w, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
        None
    );
}

/// "Anything else is a method-not-found error."
#[test]
fn other_methods_are_method_not_found() {
    let mut r = registry();
    let reply = call(
        &mut r,
        &mut World::default(),
        r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#,
    );
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(reply["id"], 2);
}

#[test]
fn malformed_messages_get_json_rpc_errors() {
    let mut r = registry();
    let mut w = World::default();
    let cases = [
        ("{not json", -32700),
        ("", -32700),
        ("[1, 2]", -32600),
        ("42", -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#, -32602),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"place","arguments":[1]}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#,
            -32602,
        ),
    ];
    for (text, code) in cases {
        let reply = call(&mut r, &mut w, text);
        assert_eq!(reply["error"]["code"], code, "{text}: {reply}");
    }
    // ... and the registry keeps answering.
    assert_eq!(
        call(
            &mut r,
            &mut w,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        )["result"],
        json!({})
    );
}

/// Unknown tools are a protocol error (-32602), as the spec's canonical example.
#[test]
fn unknown_tool_is_invalid_params() {
    let mut r = registry();
    let reply = call(
        &mut r,
        &mut World::default(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
    );
    assert_eq!(
        reply["error"],
        json!({"code": -32602, "message": "Unknown tool: nope"})
    );
}

/// SEP-1303: arguments that do not fit are a tool error with the reason, not -32602.
#[test]
fn arguments_that_do_not_fit_are_is_error_with_the_reason() {
    let mut r = registry();
    let mut w = World::default();
    let result = failure(&tool_call(&mut r, &mut w, "place", json!({"n": 101})));
    assert_eq!(result["code"], "invalid_arguments");
    assert_eq!(
        result["error"],
        "invalid arguments for place: /n: 101 is greater than the maximum 100"
    );
    failure(&tool_call(&mut r, &mut w, "place", json!({"n": "three"})));
    let result = failure(&tool_call(&mut r, &mut w, "place", json!({})));
    assert_eq!(
        result["error"],
        "invalid arguments for place: /: missing the required property \"n\""
    );
    assert_eq!(w.placed, 0);
}

/// A handler error: isError with { error, code? } (in the text block: see `failure`).
#[test]
fn handler_errors_are_is_error_with_error_and_code() {
    let mut r = registry();
    let mut w = World::default();
    let result = failure(&tool_call(
        &mut r,
        &mut w,
        "fail",
        json!({"code": "E_FAIL"}),
    ));
    assert_eq!(result, json!({"error": "it went wrong", "code": "E_FAIL"}));
    let result = failure(&tool_call(&mut r, &mut w, "fail", json!({})));
    assert_eq!(result, json!({"error": "it went wrong"}));
}

/// "When a handler raises, the server sets isError for the agent and continues."
#[test]
fn handler_panic_is_is_error_and_the_next_call_works() {
    let mut r = registry();
    let mut w = World::default();
    let result = failure(&tool_call(&mut r, &mut w, "explode", json!({})));
    assert_eq!(result["code"], "panic");
    assert!(
        result["error"]
            .as_str()
            .expect("message")
            .contains("boom at frame 12")
    );
    let result = tool_call(&mut r, &mut w, "place", json!({"n": 2}));
    assert_eq!(result["isError"], false);
    assert_eq!(w.placed, 2);
}

/// "A handler may return nil, which produces an empty structuredContent."
#[test]
fn unit_result_gives_empty_structured_content() {
    let mut r = registry();
    let mut w = World::default();
    let result = tool_call(&mut r, &mut w, "place", json!({"n": 3}));
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {}, "isError": false})
    );
    let result = tool_call(&mut r, &mut w, "placed_count", json!({}));
    assert_eq!(result["structuredContent"], json!({"count": 3}));
}

/// A result that is not an object is wrapped so structuredContent stays an object.
#[test]
fn non_object_results_are_wrapped() {
    let mut r = registry();
    let mut w = World::default();
    let result = tool_call(&mut r, &mut w, "ping", json!({}));
    assert_eq!(result["structuredContent"], json!({"result": ["pong"]}));
    let listed = call(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_eq!(
        listed["result"]["tools"][4]["outputSchema"],
        json!({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}, "required": ["result"]})
    );
}

/// "ping, context, get_logs, and send_event remain available; tools that touch the world
/// report the stored traceback instead."
#[test]
fn crash_mode() {
    let mut r = registry();
    let mut w = World::default();
    assert_eq!(r.crashed(), None);
    r.set_crashed("thread 'main' panicked at src/physics.rs:10:5");
    assert_eq!(
        r.crashed(),
        Some("thread 'main' panicked at src/physics.rs:10:5")
    );
    let result = failure(&tool_call(&mut r, &mut w, "place", json!({"n": 1})));
    assert_eq!(
        result,
        json!({"error": "thread 'main' panicked at src/physics.rs:10:5", "code": "crashed"})
    );
    assert_eq!(w.placed, 0);
    let result = tool_call(&mut r, &mut w, "ping", json!({}));
    assert_eq!(result["isError"], false);
    assert_eq!(w.log, ["ping"]);
    r.clear_crashed();
    assert_eq!(
        tool_call(&mut r, &mut w, "place", json!({"n": 1}))["isError"],
        false
    );
}

#[test]
fn stdio_loop_answers_requests_line_by_line() {
    let mut r = registry();
    let mut w = World::default();
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"place","arguments":{"n":4}}}"#,
        "\n",
    );
    let mut output = Vec::new();
    mcp_bindgen::server::serve_stdio(&mut r, &mut w, input.as_bytes(), &mut output)
        .expect("serves");
    let lines: Vec<Value> = String::from_utf8(output)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[1]["result"]["isError"], false);
    assert_eq!(w.placed, 4);
}

/// A tool whose arguments take odd shapes; its answer echoes what it was given.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(name = "odd")]
// Counts members: a key given twice is one member of the arguments' `Value`.
#[schemars(extend("minProperties" = 2))]
struct Odd {
    n: i64,
    small: Option<u8>,
    label: Option<String>,
    mode: Option<Mode>,
    tags: Option<Vec<String>>,
    #[serde(default)]
    extra: std::collections::BTreeMap<String, Value>,
}

#[derive(Deserialize, JsonSchema)]
enum Mode {
    Fast,
    Slow { by: u32 },
}

#[derive(Serialize, JsonSchema)]
struct Echo {
    given: String,
}

impl Handler<World> for Odd {
    type Output = Echo;
    fn call(self, _: &mut World) -> Result<Echo, ToolError> {
        let mode = match self.mode {
            None => "none".to_owned(),
            Some(Mode::Fast) => "fast".to_owned(),
            Some(Mode::Slow { by }) => format!("slow by {by}"),
        };
        Ok(Echo {
            given: format!(
                "{} {:?} {:?} {mode} {:?} {:?}",
                self.n, self.small, self.label, self.tags, self.extra
            ),
        })
    }
}

/// Arguments are checked and deserialized without a `Value`; the answers are those of the
/// `Value` path: the arguments' `Value` checked by the reference checker, then `from_value`
/// (a key given twice keeps its last value, escapes are decoded, integers at and beyond the
/// edges of i64 and u64 refused as they were, a value the schema allows but the struct does
/// not gets serde's message).
#[test]
fn arguments_answer_as_their_value_would() {
    let mut r = Registry::new("test-game", "1");
    r.register::<Odd>();
    let mut w = World::default();
    let schema = Value::Object(mcp_bindgen::server::input_schema::<Odd>());
    assert_eq!(schema["minProperties"], 2, "{schema}");
    let mut answered = 0;
    let texts = [
        r#"{"n":1,"label":null}"#,
        r#"{"n":1}"#,
        r#"{"n":1,"n":2}"#,
        r#"{"n":1,"n":2,"label":"x"}"#,
        r#"{"n":"x","n":2,"tags":null}"#,
        r#"{"n":2,"n":"x","tags":null}"#,
        r#"{"n":-9223372036854775808,"small":255}"#,
        r#"{"n":9223372036854775807,"small":256}"#,
        r#"{"n":9223372036854775808,"label":null}"#,
        r#"{"n":18446744073709551616,"label":null}"#,
        r#"{"n":1.0,"label":null}"#,
        r#"{"n":1,"label":"\u00e9\ud83d\ude00\n","tags":["a","\u0062"]}"#,
        r#"{"n":1,"mode":"Fast"}"#,
        r#"{"n":1,"mode":{"Slow":{"by":3}}}"#,
        r#"{"n":1,"mode":{"Slow":{"by":-3}}}"#,
        r#"{"n":1,"mode":"Medium"}"#,
        r#"{"n":1,"extra":{"b":[1,{"z":null,"y":2}],"a":1e300,"a":-0.0}}"#,
        r#"{"tags":[],"n":1,"label":null,"small":null}"#,
        r#"{"label":7,"small":1}"#,
        r#"{}"#,
    ];
    for text in texts {
        let value: Value = serde_json::from_str(text).unwrap();
        let expected = match mcp_bindgen::__private::validate_value(&schema, &value) {
            Err(violation) => Err(format!("invalid arguments for odd: {violation}")),
            Ok(()) => match serde_json::from_value::<Odd>(value) {
                Ok(odd) => Ok(odd.call(&mut World::default()).unwrap().given),
                Err(e) => Err(format!("invalid arguments for odd: {e}")),
            },
        };
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"odd","arguments":{text}}}}}"#
        );
        let result = call(&mut r, &mut w, &request)["result"].clone();
        let answer = if result["isError"] == true {
            Err(failure(&result)["error"].as_str().unwrap().to_owned())
        } else {
            Ok(result["structuredContent"]["given"]
                .as_str()
                .unwrap()
                .to_owned())
        };
        assert_eq!(answer, expected, "{text}");
        answered += usize::from(answer.is_ok());
    }
    assert!(answered >= 6, "{answered} calls answered");
}
