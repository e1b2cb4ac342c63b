//! The envelope rules (see the crate docs), one function each, used by every generated method.

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{CallToolResult, Error, ToolCaller, ToolSchema};

/// Serialises `args` into the `arguments` object of a call to `tool`, and checks it against
/// the tool's input schema when one is given. Nothing is sent when this fails.
pub fn encode_arguments<A: Serialize + ?Sized>(
    tool: &str,
    args: &A,
    schema: Option<&ToolSchema>,
) -> Result<Map<String, Value>, Error> {
    let value = serde_json::to_value(args).map_err(|e| Error::InvalidArguments {
        tool: tool.to_owned(),
        pointer: String::new(),
        message: format!("could not serialise the arguments: {e}"),
    })?;
    let Value::Object(arguments) = value else {
        return Err(Error::InvalidArguments {
            tool: tool.to_owned(),
            pointer: String::new(),
            message: "tool arguments must serialise to a JSON object".into(),
        });
    };
    if let Some(schema) = schema {
        let as_value = Value::Object(arguments);
        schema
            .validate(&as_value)
            .map_err(|v| Error::InvalidArguments {
                tool: tool.to_owned(),
                pointer: v.pointer,
                message: v.message,
            })?;
        if let Value::Object(arguments) = as_value {
            return Ok(arguments);
        }
        return Ok(Map::new());
    }
    Ok(arguments)
}

/// Calls `tool` and turns a result with `isError: true` into [`Error::Tool`] (rule 2). The
/// result is otherwise returned as sent.
pub async fn call_checked<C: ToolCaller + ?Sized>(
    caller: &C,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let result = caller.call_tool(tool, arguments).await?;
    if result.is_error() {
        return Err(tool_failure(tool, result));
    }
    Ok(result)
}

/// The [`Error::Tool`] for a failed result (rule 2): `message` and `code` from an
/// `{ error, code? }` object in `structuredContent` or in the text block, else the joined text.
pub fn tool_failure(tool: &str, result: CallToolResult) -> Error {
    let from_object = |value: &Value| -> Option<(String, Option<String>)> {
        let object = value.as_object()?;
        let error = object.get("error")?;
        let message = match error {
            Value::String(s) => s.clone(),
            Value::Object(o) if o.get("message").is_some_and(Value::is_string) => {
                o["message"].as_str().unwrap_or_default().to_owned()
            }
            other => other.to_string(),
        };
        let code = match object.get("code") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Some((message, code))
    };
    let found = result
        .structured_content
        .as_ref()
        .and_then(from_object)
        .or_else(|| from_object(&text_value(&result)?));
    let (message, code) = found.unwrap_or_else(|| {
        let joined = result.texts().collect::<Vec<_>>().join("\n");
        let message = if joined.trim().is_empty() {
            "the tool reported an error without a message".to_owned()
        } else {
            joined
        };
        (message, None)
    });
    Error::Tool {
        tool: tool.to_owned(),
        message,
        code,
        result: Box::new(result),
    }
}

/// The value of one text block parsed as JSON, when the result has exactly one.
fn text_value(result: &CallToolResult) -> Option<Value> {
    let mut texts = result.texts();
    let text = texts.next()?;
    if texts.next().is_some() {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// The value of a successful result (rule 3): `structuredContent` when present; else one text
/// block parsed as JSON, or its raw text when it is not JSON; several text blocks joined with
/// newlines; non-text blocks ignored. A result with no text at all is `null`.
pub fn envelope_value(result: &CallToolResult) -> Value {
    match &result.structured_content {
        Some(value) if !value.is_null() => value.clone(),
        _ => text_envelope(result),
    }
}

/// [`envelope_value`] of a result we own: `structuredContent` is moved out, not copied.
fn take_envelope_value(mut result: CallToolResult) -> Value {
    match result.structured_content.take() {
        Some(value) if !value.is_null() => value,
        _ => text_envelope(&result),
    }
}

fn text_envelope(result: &CallToolResult) -> Value {
    let texts: Vec<&str> = result.texts().collect();
    match texts.as_slice() {
        [] => Value::Null,
        [one] => serde_json::from_str(one).unwrap_or_else(|_| Value::String((*one).to_owned())),
        several => Value::String(several.join("\n")),
    }
}

/// Decodes the result of `tool` into `T` (rules 2 to 4). A value that does not fit is
/// [`Error::Decode`] with the JSON path of the first field that does not.
pub fn decode_result<T: DeserializeOwned>(tool: &str, result: CallToolResult) -> Result<T, Error> {
    if result.is_error() {
        return Err(tool_failure(tool, result));
    }
    let value = take_envelope_value(result);
    serde_path_to_error::deserialize(&value).map_err(|e| {
        let path = e.path().to_string();
        Error::Decode {
            tool: tool.to_owned(),
            path,
            message: e.into_inner().to_string(),
            value: Box::new(value.clone()),
        }
    })
}

/// A tool failure as a server reports it: `isError: true` with `{ "error", "code"? }` as the
/// JSON of the text block, which [`tool_failure`] reads back into [`Error::Tool`]. What a
/// served tool's handler and a [typed fake](crate::fake) return when the tool fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// What went wrong, for the agent.
    pub message: String,
    /// A machine-readable code.
    pub code: Option<String>,
}

impl ToolError {
    /// An error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            code: None,
        }
    }

    /// Adds a code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// The `{ "error", "code"? }` object.
    pub(crate) fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("error".into(), Value::String(self.message.clone()));
        if let Some(code) = &self.code {
            object.insert("code".into(), Value::String(code.clone()));
        }
        Value::Object(object)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{} ({code})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

impl ToolError {
    /// The failed `tools/call` result a server sends for this failure: `isError: true` and
    /// the `{ "error", "code"? }` object as the JSON of its one text block. Not as
    /// `structuredContent`: a tool's `outputSchema` describes its successful result, and
    /// clients check any `structuredContent` against it, errors included.
    pub fn to_result(&self) -> CallToolResult {
        CallToolResult::error_text(self.to_value().to_string())
    }
}
