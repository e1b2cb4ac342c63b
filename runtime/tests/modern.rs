//! The 2026-07-28 (stateless) era through `dispatch` and `serve_stdio`, beside the legacy
//! one; calls that report while they run and answer on a later frame; `tools/list` pages.
#![cfg(feature = "server")]

use std::time::Duration;

use mcp_bindgen::server::{
    Call, CallHandler, Handler, LogLevel, McpTool, Registry, ToolError, serve_stdio,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Default)]
struct World {
    frame: u64,
    waiting: Vec<(u64, Call<Stepped>)>,
}

/// Which frame is it?
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Frame {}

#[derive(Serialize, JsonSchema)]
struct FrameOut {
    frame: u64,
}

impl Handler<World> for Frame {
    type Output = FrameOut;
    fn call(self, world: &mut World) -> Result<FrameOut, ToolError> {
        Ok(FrameOut { frame: world.frame })
    }
}

/// Step the world, then report.
#[derive(McpTool, Deserialize, JsonSchema)]
struct RunFrames {
    frames: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Stepped {
    frame: u64,
}

impl CallHandler<World> for RunFrames {
    type Output = Stepped;
    fn start(self, world: &mut World, call: Call<Stepped>) {
        call.log(LogLevel::Info, format!("running {} frames", self.frames));
        call.log(LogLevel::Debug, "debug detail");
        if self.frames == 0 {
            call.complete(Ok(Stepped { frame: world.frame }));
        } else {
            world.waiting.push((world.frame + self.frames, call));
        }
    }
}

fn registry() -> Registry<World> {
    let mut r = Registry::new("modern-test", "2.0.0").with_instructions("step the world");
    r.register::<Frame>()
        .register_call::<RunFrames>(Duration::from_secs(60));
    r
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    })
}

fn request(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn dispatch(r: &mut Registry<World>, w: &mut World, text: &str) -> Value {
    serde_json::from_str(&r.dispatch(w, text).expect("a reply")).expect("JSON")
}

#[test]
fn server_discover_lists_versions_capabilities_and_server_info() {
    let mut r = registry();
    let reply = dispatch(
        &mut r,
        &mut World::default(),
        &request(1, "server/discover", json!({})),
    );
    let result = &reply["result"];
    assert_eq!(reply["id"], 1);
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert!(
        result["supportedVersions"]
            .as_array()
            .expect("versions")
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["instructions"], "step the world");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "modern-test", "version": "2.0.0"})
    );
}

/// A tools server advertises the same capabilities in both eras, and answers in both what it
/// advertises: empty prompt and resource lists, "not found" for a prompt or resource, and
/// log levels (`logging/setLevel` in the legacy era).
#[test]
fn both_eras_advertise_and_answer_the_same_capabilities() {
    let mut r = registry();
    let mut w = World::default();
    let legacy = |id: u64, method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let init = dispatch(
        &mut r,
        &mut w,
        &legacy(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        ),
    );
    let discover = dispatch(&mut r, &mut w, &request(1, "server/discover", json!({})));
    // The same but for tasks: the legacy capability, or the 2026-07-28 extension.
    let mut capabilities = init["result"]["capabilities"].clone();
    let mut modern = discover["result"]["capabilities"].clone();
    let tasks = capabilities.as_object_mut().unwrap().remove("tasks");
    assert_eq!(
        tasks,
        Some(json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}))
    );
    let extensions = modern.as_object_mut().unwrap().remove("extensions");
    assert_eq!(
        extensions,
        Some(json!({"io.modelcontextprotocol/tasks": {}}))
    );
    assert_eq!(capabilities, modern);
    let capabilities = &capabilities;
    let mut advertised: Vec<&str> = capabilities
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    // In key order or not (a workspace build turns on serde_json's preserve_order).
    advertised.sort_unstable();
    assert_eq!(
        advertised,
        ["completions", "logging", "prompts", "resources", "tools"]
    );

    for (modern, text) in [
        (false, &legacy as &dyn Fn(u64, &str, Value) -> String),
        (true, &request),
    ] {
        for (method, key) in [
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ] {
            let reply = dispatch(&mut r, &mut w, &text(2, method, json!({})));
            assert!(
                reply["result"][key].is_array(),
                "{modern} {method}: {reply}"
            );
            assert_eq!(
                reply["result"].get("ttlMs").is_some(),
                modern,
                "caching hints only in 2026-07-28: {reply}"
            );
        }
        let read = dispatch(
            &mut r,
            &mut w,
            &text(3, "resources/read", json!({"uri": "game://x"})),
        );
        let not_found = if modern { -32602 } else { -32002 };
        assert_eq!(read["error"]["code"], not_found, "{modern}: {read}");
        let prompt = dispatch(
            &mut r,
            &mut w,
            &text(4, "prompts/get", json!({"name": "p"})),
        );
        assert_eq!(prompt["error"]["code"], -32602, "{modern}: {prompt}");
        assert!(
            prompt["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("\"p\""),
            "{prompt}"
        );
    }
    // Log levels: set per session in the legacy era.
    let level = dispatch(
        &mut r,
        &mut w,
        &legacy(5, "logging/setLevel", json!({"level": "debug"})),
    );
    assert_eq!(level["result"], json!({}), "{level}");
}

#[test]
fn modern_results_carry_result_type_and_caching_hints() {
    let mut r = registry();
    let mut w = World {
        frame: 9,
        ..World::default()
    };
    let list = dispatch(&mut r, &mut w, &request(2, "tools/list", json!({})));
    assert_eq!(list["result"]["tools"][0]["name"], "frame");
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], 0);
    assert_eq!(list["result"]["cacheScope"], "public");
    let call = dispatch(
        &mut r,
        &mut w,
        &request(3, "tools/call", json!({"name": "frame", "arguments": {}})),
    );
    assert_eq!(call["result"]["structuredContent"], json!({"frame": 9}));
    assert_eq!(call["result"]["resultType"], "complete");
    // The same registry answers legacy requests exactly as before: no resultType, no hints.
    let legacy = dispatch(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"frame"}}"#,
    );
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    let legacy = dispatch(
        &mut r,
        &mut w,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    );
    assert!(legacy["result"].get("ttlMs").is_none(), "{legacy}");
}

#[test]
fn modern_requests_without_required_meta_are_invalid_params() {
    let mut r = registry();
    let mut w = World::default();
    let cases = [
        // server/discover is modern-only: no _meta at all.
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}),
        // A version but no client capabilities.
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        // A version that is not a string.
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": 2026,
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    ];
    for case in cases {
        let reply = dispatch(&mut r, &mut w, &case.to_string());
        assert_eq!(reply["error"]["code"], -32602, "{case}: {reply}");
        assert_eq!(reply["id"], case["id"], "the error keeps the request id");
    }
}

#[test]
fn unsupported_versions_get_32022_with_the_supported_list() {
    let mut r = registry();
    let mut text = json!({"jsonrpc": "2.0", "id": 8, "method": "server/discover", "params": {"_meta": meta()}});
    text["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let reply = dispatch(&mut r, &mut World::default(), &text.to_string());
    assert_eq!(reply["error"]["code"], -32022, "{reply}");
    assert_eq!(reply["error"]["data"]["requested"], "2099-01-01");
    assert!(
        reply["error"]["data"]["supported"]
            .as_array()
            .expect("supported")
            .contains(&json!("2026-07-28"))
    );
}

#[test]
fn removed_and_unknown_methods_are_method_not_found_in_the_modern_era() {
    let mut r = registry();
    for method in ["initialize", "ping", "logging/setLevel", "no/such"] {
        let reply = dispatch(
            &mut r,
            &mut World::default(),
            &request(4, method, json!({})),
        );
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        assert_eq!(reply["id"], 4);
    }
}

#[test]
fn a_required_client_capability_is_checked_in_the_modern_era() {
    let mut r = registry();
    assert!(r.require_client_capability("frame", "sampling"));
    assert!(!r.require_client_capability("nope", "sampling"));
    let mut w = World::default();
    let reply = dispatch(
        &mut r,
        &mut w,
        &request(5, "tools/call", json!({"name": "frame"})),
    );
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    let mut declared = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "frame", "_meta": meta()}});
    declared["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"sampling": {}});
    let reply = dispatch(&mut r, &mut w, &declared.to_string());
    assert_eq!(reply["result"]["isError"], false, "{reply}");
}

#[test]
fn batches_and_non_messages_get_clear_invalid_request_errors() {
    let mut r = registry();
    let mut w = World::default();
    for (text, code, words) in [
        ("[]", -32600, "empty batch"),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            "batches are not supported",
        ),
        (r#"["x"]"#, -32600, "batches are not supported"),
        ("{}", -32600, "needs a \"method\""),
        (r#"{"jsonrpc":"2.0"}"#, -32600, "needs a \"method\""),
    ] {
        let reply = r.dispatch(&mut w, text).expect("a reply, not silence");
        let reply: Value = serde_json::from_str(&reply).expect("JSON");
        assert_eq!(reply["error"]["code"], code, "{text}: {reply}");
        let message = reply["error"]["message"].as_str().expect("message");
        assert!(message.contains(words), "{text}: {message}");
    }
}

#[test]
fn deep_nesting_and_invalid_utf8_are_parse_errors() {
    let mut r = registry();
    let mut w = World::default();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"frame","arguments":{{"x":{}{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let reply: Value =
        serde_json::from_str(&r.dispatch(&mut w, &deep).expect("reply")).expect("json");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    // Through serve_stdio, which reads bytes: an invalid UTF-8 string inside a request.
    let mut input =
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fr"#.to_vec();
    input.extend_from_slice(&[0xff, 0xfe]);
    input.extend_from_slice(b"ame\"}}\n");
    let mut output = Vec::new();
    serve_stdio(&mut r, &mut w, input.as_slice(), &mut output).expect("serves");
    let reply: Value = serde_json::from_slice(&output).expect("one JSON line");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .expect("message")
            .contains("UTF-8"),
        "{reply}"
    );
}

#[test]
fn tools_list_pages_with_a_cursor() {
    #[derive(Default)]
    struct Nothing;
    let mut r: Registry<Nothing> = Registry::new("many", "1").with_page_size(400);
    for i in 0..1000 {
        r.register_fn(
            mcp_bindgen::server::ToolDefinition::new(
                format!("tool_{i:04}"),
                serde_json::from_value(json!({"type": "object"})).expect("schema"),
            ),
            |_, _| Ok(Value::Null),
        );
    }
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params});
        let reply: Value =
            serde_json::from_str(&r.dispatch(&mut Nothing, &text.to_string()).expect("reply"))
                .expect("json");
        let tools = reply["result"]["tools"].as_array().expect("tools");
        assert!(tools.len() <= 400);
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().expect("name").to_owned()),
        );
        pages += 1;
        match reply["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names.len(), 1000);
    assert_eq!(names[999], "tool_0999");
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "tools:5000"}});
    let reply: Value =
        serde_json::from_str(&r.dispatch(&mut Nothing, &bad.to_string()).expect("reply"))
            .expect("json");
    assert_eq!(reply["error"]["code"], -32602);
}

#[test]
fn stdio_streams_notifications_before_the_answer_when_asked() {
    let mut r = registry();
    let mut w = World::default();
    let mut asked = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "run_frames", "arguments": {"frames": 0}, "_meta": meta()}});
    asked["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let plain = request(
        2,
        "tools/call",
        json!({"name": "run_frames", "arguments": {"frames": 0}}),
    );
    let input = format!("{asked}\n{plain}\n");
    let mut output = Vec::new();
    serve_stdio(&mut r, &mut w, input.as_bytes(), &mut output).expect("serves");
    let lines: Vec<Value> = String::from_utf8(output)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    // The info line (not the debug one) before the first answer; nothing before the second.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["method"], "notifications/message");
    assert_eq!(lines[0]["params"]["level"], "info");
    assert_eq!(lines[0]["params"]["data"], "running 0 frames");
    assert_eq!(lines[1]["id"], 1);
    assert_eq!(lines[2]["id"], 2);
    assert_eq!(lines[2]["result"]["structuredContent"], json!({"frame": 0}));
}

#[test]
fn dispatch_fails_a_call_deferred_to_a_later_frame() {
    let mut r = registry();
    let mut w = World::default();
    let reply = dispatch(
        &mut r,
        &mut w,
        &request(
            1,
            "tools/call",
            json!({"name": "run_frames", "arguments": {"frames": 3}}),
        ),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("later frame")
    );
    // The game's handle is finished: completing it later sends nothing.
    let (_, call) = w.waiting.pop().expect("stored");
    assert!(call.is_abandoned());
    assert!(!call.complete(Ok(Stepped { frame: 3 })));
    assert_eq!(r.deferred_calls(), 0);
}

/// Reports progress once, logs once, then answers.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Report {}

impl CallHandler<World> for Report {
    type Output = Stepped;
    fn start(self, world: &mut World, call: Call<Stepped>) {
        call.progress(1.0, Some(2.0), Some("half"));
        call.log(LogLevel::Info, "reported");
        call.complete(Ok(Stepped { frame: world.frame }));
    }
}

/// Requests at the edges of what framing and the era checks read: members of unexpected
/// types, members given twice, unknown members (nested, with strings and numbers a `Value`
/// parse refuses), `_meta` of every shape. Each request's answer lines (notifications, then
/// the reply) are compared as JSON with `tests/fixtures/odd_requests.txt`, written from the
/// answers `serve_stdio` gave when framing parsed `params` into a `Value`
/// (`UPDATE_EXPECT=1 cargo test -p mcp-bindgen --features server --test modern` rewrites it).
#[test]
fn odd_requests_get_the_answers_they_always_got() {
    const META: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
    let call = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
    };
    let modern = |method: &str, params: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"m","method":"{method}","params":{{{params}"_meta":{{{META}}}}}}}"#
        )
    };
    let with_meta = |method: &str, meta: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{"_meta":{meta}}}}}"#)
    };
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    let cases: Vec<String> = vec![
        // Legacy calls: the arguments, the name and params of every shape.
        call(r#"{"name":"frame","arguments":{}}"#),
        call(r#"{"name":"frame"}"#),
        call(r#"{"name":"frame","arguments":null}"#),
        call(r#"{"name":"frame","arguments":[1]}"#),
        call(r#"{"name":"frame","arguments":"{}"}"#),
        call(r#"{"name":5,"arguments":{}}"#),
        call(r#"{"name":null}"#),
        call(r#"{"name":{"a":1}}"#),
        call(r#"{"arguments":{}}"#),
        call(r#"{"name":"nope"}"#),
        call("null"),
        call("[]"),
        call(r#""frame""#),
        call("7"),
        call(r#"{"name":"frame","name":"nope"}"#),
        call(r#"{"name":"nope","name":"frame"}"#),
        call(r#"{"n\u0061me":"frame"}"#),
        call(r#"{"name":"run_frames","arguments":{"frames":"x"}}"#),
        call(r#"{"name":"run_frames","arguments":{"frames":0},"arguments":{"frames":1}}"#),
        call(r#"{"name":"run_frames","arguments":{"frames":1},"arguments":{"frames":0}}"#),
        call(r#"{"name":"frame","extra":{"deep":[{"x":[1,2,{"y":null}]}],"s":"\u00e9\n"}}"#),
        // The legacy era reads a progress token from `_meta` too.
        call(r#"{"name":"report","_meta":{"progressToken":"p1"}}"#),
        call(r#"{"name":"report","_meta":{"progressToken":7}}"#),
        call(r#"{"name":"report","_meta":{"progressToken":{"a":[1]}}}"#),
        call(r#"{"name":"report","_meta":"progressToken"}"#),
        call(r#"{"name":"report","_meta":{"progressToken":"p1"},"_meta":{}}"#),
        // Strings and numbers a `Value` parse refuses, wherever they are.
        call(r#"{"name":"frame","extra":"\udc00"}"#),
        call(r#"{"name":"frame","extra":1e400}"#),
        call(r#"{"name":"frame","_meta":{"x":"\ud800"}}"#),
        call(r#"{"name":"frame","_meta":{"x":-1e999}}"#),
        call(r#"{"name":"frame","\udc00":1}"#),
        call(r#"{"name":"frame","extra":"\x"}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"frame","extra":{deep}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","other":{deep}}}"#),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","other":"\ud800"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","other":1e309}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\udfff"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#.into(),
        // The envelope's members.
        r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":{"v":"2.0"},"id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":["2.0"],"id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":["ping"]}"#.into(),
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":"x"}}"#.into(),
        r#"{"jsonrpc":"2.0","params":{"name":"frame"}}"#.into(),
        // initialize, logging/setLevel and tools/list read one member each.
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20250618}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":"2025-06-18"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":["info"]}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":0}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"tools:1"}}"#.into(),
        // The modern era: `_meta` of every shape.
        modern("tools/call", r#""name":"frame","arguments":{},"#),
        modern("tools/call", r#""name":"report","#),
        modern("tools/call", r#""name":"report","io.modelcontextprotocol/logLevel":"debug","#),
        modern("server/discover", ""),
        modern("resources/read", r#""uri":"game://x","#),
        modern("resources/read", r#""uri":{"u":1},"#),
        modern("resources/read", ""),
        modern("tools/list", r#""cursor":"x","#),
        modern("ping", ""),
        with_meta("server/discover", "null"),
        with_meta("server/discover", r#""x""#),
        with_meta("server/discover", "[1]"),
        with_meta("server/discover", "{}"),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/clientCapabilities":"all"}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":null}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":{"v":"2026-07-28"},"io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":"x"}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":"x","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "server/discover",
            r#"{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta(
            "tools/list",
            r#"{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        with_meta("tools/list", r#"{"io.modelcontextprotocol/clientCapabilities":{}}"#),
        with_meta(
            "tools/list",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":1e400}}"#,
        ),
        with_meta(
            "tools/list",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"\ud800":{}}}"#,
        ),
        with_meta(
            "tools/list",
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"\udc00"}}"#,
        ),
        with_meta(
            "tools/list",
            r#"{"io.modelcontextprotocol/protocol\u0056ersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ),
        // A tool that requires a client capability, against declarations of every shape.
        modern("tools/call", r#""name":"needs_sampling","#),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{"listChanged":true}}}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"samp\u006cing":1}}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
        call(r#"{"name":"needs_sampling"}"#),
    ];
    let mut r = registry();
    r.register_call::<Report>(Duration::from_secs(60));
    r.register_fn(
        mcp_bindgen::server::ToolDefinition::new("needs_sampling", serde_json::Map::new()),
        |_: &mut World, arguments| Ok(Value::Object(arguments)),
    );
    assert!(r.require_client_capability("needs_sampling", "sampling"));
    let mut transcript = String::new();
    for case in &cases {
        assert!(!case.contains('\n'), "one line per request: {case}");
        let mut w = World::default();
        let mut out = Vec::new();
        serve_stdio(&mut r, &mut w, case.as_bytes(), &mut out).expect("serves");
        transcript.push_str("> ");
        transcript.push_str(case);
        transcript.push('\n');
        for line in String::from_utf8(out).expect("utf-8").lines() {
            transcript.push_str("< ");
            transcript.push_str(line);
            transcript.push('\n');
        }
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/odd_requests.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &transcript).expect("writes the fixture");
    }
    let expected = std::fs::read_to_string(&path).expect("the fixture (UPDATE_EXPECT=1 writes it)");
    // Compared as JSON, and so are the JSON texts inside (a tool error's text block): the key
    // order of `Value` maps depends on serde_json's features, which Cargo unifies across
    // whatever else the build compiles.
    fn unwrap_json_texts(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, member) in map.iter_mut() {
                    if key == "text"
                        && let Some(inner) = member
                            .as_str()
                            .and_then(|t| serde_json::from_str::<Value>(t).ok())
                            .filter(|v| v.is_object() || v.is_array())
                    {
                        *member = inner;
                    } else {
                        unwrap_json_texts(member);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(unwrap_json_texts),
            _ => {}
        }
    }
    let parse = |text: &str| -> Vec<(String, Option<Value>)> {
        text.lines()
            .map(|line| match line.strip_prefix("< ") {
                Some(answer) => ("<".to_owned(), {
                    let mut answer: Value =
                        serde_json::from_str(answer).expect("an answer is JSON");
                    unwrap_json_texts(&mut answer);
                    Some(answer)
                }),
                None => (line.to_owned(), None),
            })
            .collect()
    };
    let (got, want) = (parse(&transcript), parse(&expected));
    for (i, (got, want)) in got.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "line {} of odd_requests.txt", i + 1);
    }
    assert_eq!(got.len(), want.len(), "lines in odd_requests.txt");
}
