//! The JSON-RPC text the server writes: results, errors and notifications.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::ToolError;

pub(crate) fn notification(method: &str, params: Map<String, Value>) -> String {
    #[derive(Serialize)]
    struct Notification<'a> {
        jsonrpc: &'static str,
        method: &'a str,
        params: Map<String, Value>,
    }
    serde_json::to_string(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
    .unwrap_or_default()
}

/// A call's result: a typed output's JSON text, or content blocks.
pub(crate) enum CallResult {
    /// A typed output's JSON text: `structuredContent`, and the one text block's text.
    Json(String),
    Blocks {
        content: Blocks,
        structured_content: Option<Value>,
        is_error: bool,
    },
}

/// A call result as written: its content, structured content, error flag, and the 2026-07-28
/// `resultType` when there is one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultBody<'a> {
    content: &'a Blocks,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Value>,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
}

/// The content of a result: one text block, or the handler's own blocks.
pub(crate) enum Blocks {
    Text(String),
    Given(Vec<crate::Content>),
}

/// The one text block of a result, `[{"type":"text","text":...}]`.
struct TextBlocks<'a>(&'a str);

impl Serialize for TextBlocks<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        #[derive(Serialize)]
        struct TextBlock<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'a str,
        }
        let mut seq = serializer.serialize_seq(Some(1))?;
        seq.serialize_element(&TextBlock {
            kind: "text",
            text: self.0,
        })?;
        seq.end()
    }
}

impl Serialize for Blocks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Blocks::Text(text) => TextBlocks(text).serialize(serializer),
            Blocks::Given(blocks) => blocks.serialize(serializer),
        }
    }
}

impl CallResult {
    /// `ok` or `tool error`, for traces.
    #[cfg(feature = "tracing")]
    pub(crate) fn outcome(&self) -> &'static str {
        match self {
            CallResult::Blocks { is_error: true, .. } => "tool error",
            _ => "ok",
        }
    }

    /// `{ error, code? }` in the text block only: the tool's `outputSchema` describes its
    /// successful result, and the official TypeScript client checks any `structuredContent`
    /// against it, errors included (Scape: "do not assume errors have structuredContent").
    pub(crate) fn failure(failure: &ToolError) -> Self {
        CallResult::Blocks {
            content: Blocks::Text(failure.to_value().to_string()),
            structured_content: None,
            is_error: true,
        }
    }

    /// The JSON-RPC response carrying this result (with the 2026-07-28 `resultType` when
    /// there is one). A typed output's JSON text goes in as written, without a `Value`.
    pub(crate) fn respond(&self, id: &Value, result_type: Option<&'static str>) -> String {
        match self {
            CallResult::Json(json) => respond_with_json(id, json, result_type),
            CallResult::Blocks {
                content,
                structured_content,
                is_error,
            } => respond(
                id,
                &ResultBody {
                    content,
                    structured_content: structured_content.as_ref(),
                    is_error: *is_error,
                    result_type,
                },
            ),
        }
    }
}

/// The response to a call whose typed output was written to `json`: the same bytes `ResultBody`
/// would write for a text block and `structuredContent` of that JSON, with the text spliced
/// in as `structuredContent`.
fn respond_with_json(id: &Value, json: &str, result_type: Option<&'static str>) -> String {
    // The text block escapes the JSON's quotes: room for both copies, the fixed members and
    // a small id, so that the buffer is allocated once.
    let mut out = Vec::with_capacity(2 * json.len() + 160);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    let written = serde_json::to_writer(&mut out, id).and_then(|()| {
        out.extend_from_slice(br#","result":{"content":"#);
        serde_json::to_writer(&mut out, &TextBlocks(json))
    });
    if let Err(e) = written {
        return error(id, -32603, &format!("Internal error: {e}"));
    }
    out.extend_from_slice(br#","structuredContent":"#);
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(br#","isError":false"#);
    if let Some(result_type) = result_type {
        out.extend_from_slice(br#","resultType":""#);
        // A fixed ASCII word ("complete"): no escaping needed.
        out.extend_from_slice(result_type.as_bytes());
        out.push(b'"');
    }
    out.extend_from_slice(b"}}");
    // Every piece is UTF-8: JSON from serde_json and the handler's JSON text.
    String::from_utf8(out).unwrap_or_else(|e| error(id, -32603, &format!("Internal error: {e}")))
}

pub(crate) fn respond<R: Serialize>(id: &Value, result: &R) -> String {
    #[derive(Serialize)]
    struct Response<'a, R> {
        jsonrpc: &'static str,
        id: &'a Value,
        result: &'a R,
    }
    serde_json::to_string(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_else(|e| error(id, -32603, &format!("Internal error: {e}")))
}

pub(crate) fn error(id: &Value, code: i64, message: &str) -> String {
    error_with(id, code, message, None)
}

pub(crate) fn error_with(id: &Value, code: i64, message: &str, data: Option<&Value>) -> String {
    let mut error = serde_json::json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data.clone();
    }
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": error,
    })
    .to_string()
}

/// The response that ends a stream the server closes (it is shutting down): a
/// `subscriptions/listen` or an `events/stream`, tagged with the request's id.
pub(crate) fn closing(id: &Value) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "resultType": "complete",
            "_meta": {crate::era::meta::SUBSCRIPTION_ID: id},
        },
    })
    .to_string()
}
