//! What the bench (`benches/peers.rs`) and the profiling driver (`examples/profile_dispatch.rs`)
//! both run: the dispatched requests and the reference implementations ours is measured
//! against, defined once so that the two measure the same code.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `tools/call` of `add {a: 1, b: 2}` in the legacy era.
pub const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;

/// The same call in the 2026-07-28 era: `params._meta` carries the protocol version, the
/// client capabilities and the client info.
pub const MODERN_REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"}}}}"#;

/// The reference implementations of the `add` call.
pub mod floors {
    use super::*;

    #[derive(Deserialize)]
    struct Arguments {
        a: i64,
        b: i64,
    }

    #[derive(Serialize)]
    struct Sum {
        sum: i64,
    }

    #[derive(Deserialize)]
    struct Envelope<'a, P> {
        #[serde(borrow)]
        jsonrpc: &'a str,
        id: Value,
        #[serde(borrow)]
        method: &'a str,
        params: P,
    }

    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: &'a str,
        arguments: Arguments,
    }

    #[derive(Deserialize)]
    struct ModernParams<'a> {
        #[serde(borrow)]
        name: &'a str,
        arguments: Arguments,
        #[serde(borrow, rename = "_meta")]
        meta: Meta<'a>,
    }

    /// `_meta` as typed as it can be: the version borrowed, the capabilities skipped unchecked
    /// (the client info is skipped as an unknown member).
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(borrow, rename = "io.modelcontextprotocol/protocolVersion")]
        version: &'a str,
        #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
        _capabilities: serde::de::IgnoredAny,
    }

    #[derive(Serialize)]
    struct Response<'a> {
        jsonrpc: &'static str,
        id: &'a Value,
        result: CallResult<'a>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct CallResult<'a> {
        content: [TextBlock<'a>; 1],
        structured_content: &'a Sum,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        result_type: Option<&'static str>,
    }

    #[derive(Serialize)]
    struct TextBlock<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        text: &'a str,
    }

    /// The response to the call with id `id`: the text block carries the JSON of the
    /// structured result, so that is written twice, as every server must.
    fn respond(id: &Value, arguments: Arguments, result_type: Option<&'static str>) -> String {
        let sum = Sum {
            sum: arguments.a + arguments.b,
        };
        let structured = serde_json::to_string(&sum).expect("json");
        serde_json::to_string(&Response {
            jsonrpc: "2.0",
            id,
            result: CallResult {
                content: [TextBlock {
                    kind: "text",
                    text: &structured,
                }],
                structured_content: &sum,
                is_error: false,
                result_type,
            },
        })
        .expect("json")
    }

    /// The floor (`dispatch_tools_call/serde_floor`): the least work any server must do for
    /// [`REQUEST`]. A borrowed, typed parse of the envelope and the arguments (the id kept as
    /// JSON, since it may be a string or a number), the sum, and a typed write of the response.
    pub fn typed(text: &str) -> String {
        let request: Envelope<Params> = serde_json::from_str(text).expect("json");
        assert!(
            request.jsonrpc == "2.0"
                && request.method == "tools/call"
                && request.params.name == "add"
        );
        respond(&request.id, request.params.arguments, None)
    }

    /// [`typed`] for [`MODERN_REQUEST`]: `_meta` read as typed as it can be, `resultType`
    /// written.
    pub fn typed_modern(text: &str) -> String {
        let request: Envelope<ModernParams> = serde_json::from_str(text).expect("json");
        assert!(request.jsonrpc == "2.0" && request.method == "tools/call");
        assert!(request.params.name == "add" && request.params.meta.version == "2026-07-28");
        respond(&request.id, request.params.arguments, Some("complete"))
    }

    /// The `Value` path (the floor of earlier runs, `dispatch_tools_call/serde_value`): parse
    /// the request into a `Value`, build the response with `json!` and serialize it.
    pub fn value(text: &str) -> String {
        let request: Value = serde_json::from_str(text).expect("json");
        let sum = request["params"]["arguments"]["a"].as_i64().unwrap_or(0)
            + request["params"]["arguments"]["b"].as_i64().unwrap_or(0);
        let structured = json!({ "sum": sum });
        json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {
                "content": [{"type": "text", "text": structured.to_string()}],
                "structuredContent": structured,
                "isError": false,
            }
        })
        .to_string()
    }
}
