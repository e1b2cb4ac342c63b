//! One tool of a `tools/list` result, read from the JSON the server sent.

use serde_json::Value;

/// The schema of a tool that sends none: any arguments (the comparison treats it as `true`).
static ANY: Value = Value::Bool(true);

/// A tool as [`crate::diff`] compares it: borrowed from the tool object a server sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tool<'a> {
    /// The name a client calls.
    pub name: &'a str,
    /// Display name (2025-06-18+).
    pub title: Option<&'a str>,
    /// What the tool does.
    pub description: Option<&'a str>,
    /// The JSON Schema of the arguments (`true` when the server sent none).
    pub input_schema: &'a Value,
    /// The JSON Schema of `structuredContent`, when the server sends one.
    pub output_schema: Option<&'a Value>,
    /// Behaviour hints.
    pub annotations: Annotations<'a>,
    /// `execution.taskSupport` (`forbidden`, `optional`, `required`); absent is `forbidden`.
    pub task_support: Option<&'a str>,
    /// The tool object as sent: two tools with equal objects are not compared further.
    pub raw: &'a Value,
}

/// `ToolAnnotations`. Absent hints are `None`: the spec's defaults (destructive and open-world
/// `true`) apply to them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations<'a> {
    /// `annotations.title`.
    pub title: Option<&'a str>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl<'a> Tool<'a> {
    /// Reads a tool object (`{"name": .., "inputSchema": .., ..}`); `None` when it has no
    /// string `name`. Fields of the wrong type count as absent: a server's list is compared as
    /// well as it can be, and the generator's capture reader is where malformed tools are
    /// refused with their location.
    pub fn from_json(tool: &'a Value) -> Option<Self> {
        let name = tool.get("name")?.as_str()?;
        let string = |v: Option<&'a Value>| v.and_then(Value::as_str);
        let schema = |key: &str| match tool.get(key) {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => Some(schema),
            _ => None,
        };
        let hints = tool.get("annotations").filter(|a| a.is_object());
        let hint = |key: &str| hints.and_then(|a| a.get(key)).and_then(Value::as_bool);
        Some(Tool {
            name,
            title: string(tool.get("title")),
            description: string(tool.get("description")),
            input_schema: schema("inputSchema").unwrap_or(&ANY),
            output_schema: schema("outputSchema"),
            annotations: Annotations {
                title: string(hints.and_then(|a| a.get("title"))),
                read_only: hint("readOnlyHint"),
                destructive: hint("destructiveHint"),
                idempotent: hint("idempotentHint"),
                open_world: hint("openWorldHint"),
            },
            task_support: string(tool.get("execution").and_then(|e| e.get("taskSupport"))),
            raw: tool,
        })
    }
}
