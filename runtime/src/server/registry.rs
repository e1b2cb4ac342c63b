//! The tool registry and `dispatch`: JSON-RPC text in, JSON-RPC text out (tecs.io.mcp
//! semantics, MCP 2024-11-05 to 2025-11-25).

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::{Handler, ToolDefinition, ToolError, ToolOutput, ToolResult};

/// Protocol versions `initialize` negotiates, newest first.
pub(crate) const SUPPORTED_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

type Call<Ctx> = Box<dyn FnMut(&mut Ctx, Value) -> Result<ToolResult, ToolError> + Send>;

struct Entry<Ctx> {
    def: ToolDefinition,
    /// The input schema, compiled once, checked against each call's arguments.
    input: crate::CompiledSchema,
    call: Call<Ctx>,
}

/// The tools a game serves, and the JSON-RPC dispatcher for them. An explicit value: handlers
/// get `&mut Ctx` (the game) when [`Registry::dispatch`] (or `Server::poll`) runs them.
pub struct Registry<Ctx> {
    entries: Vec<Entry<Ctx>>,
    index: HashMap<String, usize>,
    crashed: Option<String>,
    name: String,
    version: String,
    instructions: Option<String>,
}

impl<Ctx> std::fmt::Debug for Registry<Ctx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("tools", &self.tools().map(|t| &t.name).collect::<Vec<_>>())
            .field("crashed", &self.crashed.is_some())
            .finish()
    }
}

impl<Ctx> Registry<Ctx> {
    /// An empty registry; `name` and `version` are the `serverInfo` sent in `initialize`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Registry {
            entries: Vec::new(),
            index: HashMap::new(),
            crashed: None,
            name: name.into(),
            version: version.into(),
            instructions: None,
        }
    }

    /// Sets the `instructions` sent in `initialize`.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers the tool `T`. Registering a name again replaces the tool and keeps the
    /// name's original position, so `tools/list` stays in first-registration order.
    pub fn register<T: Handler<Ctx>>(&mut self) -> &mut Self {
        let def = ToolDefinition::of::<T, T::Output>();
        let wrap = T::Output::output_schema().is_some_and(|(_, wrap)| wrap);
        let call: Call<Ctx> = Box::new(move |ctx, arguments| {
            let args: T = serde_json::from_value(arguments).map_err(|e| {
                ToolError::new(format!("invalid arguments for {}: {e}", T::NAME))
                    .with_code("invalid_arguments")
            })?;
            args.call(ctx)?.into_result(wrap)
        });
        self.insert(def, call)
    }

    /// Registers a tool from a definition and a closure over raw JSON arguments (the
    /// arguments object, already checked against `def.input_schema`). The closure returns a
    /// [`ToolResult`], or a `serde_json::Value` that becomes `structuredContent` (`null` gives
    /// `{}`).
    pub fn register_fn<R: Into<ToolResult>>(
        &mut self,
        def: ToolDefinition,
        mut handler: impl FnMut(&mut Ctx, Map<String, Value>) -> Result<R, ToolError> + Send + 'static,
    ) -> &mut Self {
        let call: Call<Ctx> = Box::new(move |ctx, arguments| {
            let Value::Object(arguments) = arguments else {
                return Err(ToolError::new("arguments must be an object"));
            };
            handler(ctx, arguments).map(Into::into)
        });
        self.insert(def, call)
    }

    fn insert(&mut self, def: ToolDefinition, call: Call<Ctx>) -> &mut Self {
        let entry = Entry {
            input: crate::CompiledSchema::new(&Value::Object(def.input_schema.clone())),
            def,
            call,
        };
        match self.index.get(&entry.def.name) {
            Some(&i) => self.entries[i] = entry,
            None => {
                self.index
                    .insert(entry.def.name.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        self
    }

    /// Every registered tool, in first-registration order.
    pub fn tools(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.entries.iter().map(|e| &e.def)
    }

    /// Records a crash: from now on, tools not marked `when_crashed` answer with `traceback`.
    pub fn set_crashed(&mut self, traceback: impl Into<String>) {
        self.crashed = Some(traceback.into());
    }

    /// The crash traceback, or `None` while the game is healthy.
    pub fn crashed(&self) -> Option<&str> {
        self.crashed.as_deref()
    }

    /// Leaves crash mode.
    pub fn clear_crashed(&mut self) {
        self.crashed = None;
    }

    /// Runs one JSON-RPC message and returns the response text; `None` for notifications and
    /// responses, which get no reply. Answers `initialize`, `ping`, `tools/list` and
    /// `tools/call`; any other method is `-32601`, text that is not JSON `-32700`, a message that
    /// is not a JSON-RPC request `-32600`, an unknown tool `-32602`. Tool failures, arguments that
    /// do not fit, and handler panics are results with `isError: true`.
    pub fn dispatch(&mut self, ctx: &mut Ctx, text: &str) -> Option<String> {
        let request: RawRequest<'_> = match serde_json::from_str(text) {
            Ok(request) => request,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return Some(error(&Value::Null, -32700, &format!("Parse error: {e}")));
            }
            Err(e) => {
                return Some(error(
                    &Value::Null,
                    -32600,
                    &format!("Invalid Request: {e}"),
                ));
            }
        };
        let id = match request.id {
            // A notification, or a response to a request we never send: no reply.
            None => return None,
            Some(id @ (Value::String(_) | Value::Number(_))) => id,
            Some(_) => {
                return Some(error(
                    &Value::Null,
                    -32600,
                    "Invalid Request: id must be a string or a number",
                ));
            }
        };
        if request.jsonrpc != Some("2.0") {
            return Some(error(
                &id,
                -32600,
                "Invalid Request: jsonrpc must be \"2.0\"",
            ));
        }
        let Some(method) = request.method else {
            if request.result.is_some() || request.error.is_some() {
                return None;
            }
            return Some(error(&id, -32600, "Invalid Request: missing method"));
        };
        Some(match method {
            "initialize" => self.initialize(&id, request.params.as_ref()),
            "ping" => respond(&id, &Map::new()),
            "tools/list" => self.list(&id, request.params.as_ref()),
            "tools/call" => self.call(ctx, &id, request.params),
            other => error(&id, -32601, &format!("Method not found: {other}")),
        })
    }

    fn initialize(&self, id: &Value, params: Option<&Value>) -> String {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = requested
            .filter(|v| SUPPORTED_VERSIONS.contains(v))
            .unwrap_or(SUPPORTED_VERSIONS[0]);
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Init<'a> {
            protocol_version: &'a str,
            capabilities: Value,
            server_info: Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            instructions: Option<&'a str>,
        }
        respond(
            id,
            &Init {
                protocol_version: version,
                capabilities: serde_json::json!({"tools": {"listChanged": false}}),
                server_info: serde_json::json!({"name": self.name, "version": self.version}),
                instructions: self.instructions.as_deref(),
            },
        )
    }

    fn list(&self, id: &Value, params: Option<&Value>) -> String {
        if params
            .and_then(|p| p.get("cursor"))
            .is_some_and(|c| !c.is_null())
        {
            // We never hand out cursors, so any cursor is invalid (spec: -32602).
            return error(id, -32602, "Invalid params: unknown cursor");
        }
        let tools: Vec<Value> = self.entries.iter().map(|e| e.def.to_json()).collect();
        respond(id, &serde_json::json!({ "tools": tools }))
    }

    fn call(&mut self, ctx: &mut Ctx, id: &Value, params: Option<Value>) -> String {
        let Some(Value::Object(mut params)) = params else {
            return error(
                id,
                -32602,
                "Invalid params: tools/call needs {\"name\", \"arguments\"}",
            );
        };
        let Some(Value::String(name)) = params.remove("name") else {
            return error(id, -32602, "Invalid params: tools/call needs a tool name");
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(arguments @ Value::Object(_)) => arguments,
            Some(_) => {
                return error(id, -32602, "Invalid params: arguments must be an object");
            }
        };
        let Some(&index) = self.index.get(&name) else {
            return error(id, -32602, &format!("Unknown tool: {name}"));
        };
        let entry = &mut self.entries[index];
        if let Some(traceback) = &self.crashed
            && !entry.def.when_crashed
        {
            let failure = ToolError::new(traceback.clone()).with_code("crashed");
            return respond(id, &CallResult::failure(&failure));
        }
        // SEP-1303: arguments that do not fit are a tool error the model can correct.
        if let Err(violation) = entry.input.validate(&arguments) {
            let failure = ToolError::new(format!("invalid arguments for {name}: {violation}"))
                .with_code("invalid_arguments");
            return respond(id, &CallResult::failure(&failure));
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| (entry.call)(ctx, arguments)));
        let result = match outcome {
            Ok(Ok(value)) => CallResult::success(value),
            Ok(Err(failure)) => CallResult::failure(&failure),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic payload".to_owned());
                CallResult::failure(
                    &ToolError::new(format!("the tool {name} panicked: {message}"))
                        .with_code("panic"),
                )
            }
        };
        respond(id, &result)
    }
}

#[derive(Deserialize)]
struct RawRequest<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a str>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<&'a str>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    result: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// `"id": null` is present (and invalid); a missing id is a notification.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    content: Blocks,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<Value>,
    is_error: bool,
}

/// The content of a result: the JSON text of `structuredContent` (the common case, written
/// without building a block), or the handler's own blocks.
enum Blocks {
    Text(String),
    Given(Vec<crate::Content>),
}

impl Serialize for Blocks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self {
            Blocks::Text(text) => {
                #[derive(Serialize)]
                struct TextBlock<'a> {
                    #[serde(rename = "type")]
                    kind: &'static str,
                    text: &'a str,
                }
                let mut seq = serializer.serialize_seq(Some(1))?;
                seq.serialize_element(&TextBlock { kind: "text", text })?;
                seq.end()
            }
            Blocks::Given(blocks) => blocks.serialize(serializer),
        }
    }
}

impl CallResult {
    fn success(result: ToolResult) -> Self {
        let content = match (result.content.is_empty(), &result.structured_content) {
            (true, Some(value)) => Blocks::Text(value.to_string()),
            _ => Blocks::Given(result.content),
        };
        CallResult {
            content,
            structured_content: result.structured_content,
            is_error: false,
        }
    }

    /// `{ error, code? }` in the text block only: the tool's `outputSchema` describes its
    /// successful result, and the official TypeScript client checks any `structuredContent`
    /// against it, errors included (Scape: "do not assume errors have structuredContent").
    fn failure(failure: &ToolError) -> Self {
        CallResult {
            content: Blocks::Text(failure.to_value().to_string()),
            structured_content: None,
            is_error: true,
        }
    }
}

fn respond<R: Serialize>(id: &Value, result: &R) -> String {
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
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string()
}
