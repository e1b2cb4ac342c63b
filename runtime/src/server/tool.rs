//! The tool API: the record `#[derive(McpTool)]` writes ([`McpTool`], [`ToolDefinition`],
//! [`Annotations`], [`TaskSupport`]), the handlers a game implements ([`Handler`],
//! [`InteractiveHandler`], [`CallHandler`]) and what they return ([`ToolOutput`],
//! [`ToolResult`], [`Answer`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::deferred::Call;
use super::input::{Input, Outcome};
use super::schema::{input_schema, output_schema};
use crate::ToolError;

/// A tool's arguments type, with the tool's record. Implement it with `#[derive(McpTool)]`:
///
/// - `#[mcp(name = "..")]`: the tool name (default: the snake_case of the type name);
/// - `#[mcp(title = "..")]`: display name;
/// - `#[mcp(description = "..")]`: default: the doc comment; none is sent as `""`;
/// - `#[mcp(read_only, destructive, idempotent, open_world)]`: hints, all four always sent
///   (`false` unless set);
/// - `#[mcp(when_crashed)]`: still callable after [`Registry::set_crashed`](super::Registry::set_crashed);
/// - `#[mcp(task = "optional")]` or `"required"`: calls may (or must) run as tasks (see
///   [`TaskSupport`]).
///
/// The input schema comes from the type's `JsonSchema` in a portable profile (see
/// [`input_schema`]); the handler is [`Handler`].
pub trait McpTool: DeserializeOwned + schemars::JsonSchema {
    /// The name a client calls.
    const NAME: &'static str;
    /// Display name.
    const TITLE: Option<&'static str>;
    /// One line shown to the agent; `""` when there is none.
    const DESCRIPTION: &'static str;
    /// Behaviour hints.
    const ANNOTATIONS: Annotations;
    /// Whether the tool stays callable in crash mode.
    const WHEN_CRASHED: bool;
    /// Whether calls may run as tasks (default: never).
    const TASK_SUPPORT: TaskSupport = TaskSupport::Forbidden;
}

/// Whether a tool's calls run as MCP tasks: answered at once with a task the client polls
/// (`tasks/get`), cancels and reads the result of later, while the game does the work over as
/// many frames as it needs. Sent as the tool's `execution.taskSupport`.
///
/// A call runs as a task when the tool allows it and the client asks: in 2026-07-28 by
/// declaring the `io.modelcontextprotocol/tasks` extension on the request (the server then
/// makes every such call of the tool a task), in the legacy era by a `task` parameter on
/// `tools/call`. A [`CallHandler`] tool is the natural task: its [`Call`] is answered whenever
/// the game completes it, and [`Call::request`] asks the client for input through the task
/// (2026-07-28). Other handlers' tasks are complete when they are created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Calls never run as tasks (the default; `execution` is not sent).
    #[default]
    Forbidden,
    /// A client may run a call as a task, or call it plainly.
    Optional,
    /// Every call runs as a task: a client that cannot (2026-07-28: did not declare the
    /// extension) gets `-32021` (legacy: `-32601`).
    Required,
}

impl TaskSupport {
    /// The wire name (`forbidden`, `optional`, `required`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// What a tool does when called: runs on the game thread, inside `poll`, with the game.
#[diagnostic::on_unimplemented(
    message = "the tool `{Self}` has no handler for the context `{Ctx}`",
    label = "no `Handler<{Ctx}>` for this tool",
    note = "implement it: `impl Handler<{Ctx}> for {Self} {{ type Output = ..; fn call(self, ctx: &mut {Ctx}) -> Result<Self::Output, ToolError> {{ .. }} }}`"
)]
pub trait Handler<Ctx>: McpTool {
    /// The result: any `Serialize + JsonSchema` type, whose JSON is the call's
    /// `structuredContent` (wrapped as `{"result": ..}` when it is not an object; `()` gives
    /// `{}`) and whose schema is the tool's `outputSchema`; or a [`ToolResult`] with content
    /// blocks of any kind (image, audio, resources).
    type Output: ToolOutput;

    /// Runs the tool. An `Err` is reported as `isError` with `{ error, code? }` in the text
    /// block.
    fn call(self, ctx: &mut Ctx) -> Result<Self::Output, ToolError>;
}

/// A tool whose handler may ask the client for input before it answers: a confirmation from
/// the player before a destructive action, a choice, a model's answer, the client's roots.
/// Register it with [`Registry::register_interactive`](super::Registry::register_interactive).
///
/// The first call finds [`Input`] empty; the handler returns [`Outcome::InputRequired`] with
/// what it needs, the client asks its user (or model) and calls again with the answers, and
/// the handler runs again with them in `input` (and the state it sent, unchanged).
///
/// ```
/// use mcp_bindgen::server::{Input, InputRequired, InteractiveHandler, McpTool, Outcome, Registry, ToolError};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
///
/// struct Game { enemies: u32 }
///
/// /// Remove every enemy from the level (asks the player first)
/// #[derive(McpTool, Deserialize, JsonSchema)]
/// #[mcp(destructive)]
/// struct ClearLevel {}
///
/// impl InteractiveHandler<Game> for ClearLevel {
///     type Output = String;
///     fn call(self, game: &mut Game, input: &Input) -> Result<Outcome<String>, ToolError> {
///         match input.accepted("confirm").and_then(|answer| answer.get("ok")) {
///             Some(ok) if ok == true => {
///                 game.enemies = 0;
///                 Ok(Outcome::Complete("cleared".into()))
///             }
///             Some(_) => Err(ToolError::new("the player said no").with_code("declined")),
///             None => Ok(InputRequired::new()
///                 .elicit(
///                     "confirm",
///                     format!("Remove all {} enemies?", game.enemies),
///                     json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
///                 )
///                 .into()),
///         }
///     }
/// }
///
/// let mut registry = Registry::new("my-game", "1.0.0");
/// registry.register_interactive::<ClearLevel>();
/// ```
pub trait InteractiveHandler<Ctx>: McpTool {
    /// The result, as for [`Handler::Output`].
    type Output: ToolOutput;

    /// Runs the tool with what the client answered so far (nothing on the first call).
    fn call(self, ctx: &mut Ctx, input: &Input) -> Result<Outcome<Self::Output>, ToolError>;
}

/// A tool whose handler reports while it runs (progress, log lines) or answers on a later
/// frame: it gets a [`Call`] and answers through it, now or once the game has done the work
/// (store the `Call` in the game; complete it from a later frame). Register it with
/// [`Registry::register_call`](super::Registry::register_call), which takes the deadline after which the server answers a call
/// still pending with a tool error.
///
/// ```
/// use mcp_bindgen::server::{Call, CallHandler, McpTool, Registry, ToolError};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use std::time::Duration;
///
/// #[derive(Default)]
/// struct Game { frame: u64, waiting: Vec<(u64, Call<Stepped>)> }
///
/// /// Step the world `frames` frames, then report the frame reached
/// #[derive(McpTool, Deserialize, JsonSchema)]
/// struct RunFrames { frames: u64 }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Stepped { frame: u64 }
///
/// impl CallHandler<Game> for RunFrames {
///     type Output = Stepped;
///     fn start(self, game: &mut Game, call: Call<Stepped>) {
///         game.waiting.push((game.frame + self.frames, call));
///     }
/// }
///
/// impl Game {
///     /// Each frame: finish the calls whose frame has come.
///     fn update(&mut self) {
///         self.frame += 1;
///         let frame = self.frame;
///         for (_, call) in self.waiting.extract_if(.., |(until, _)| *until <= frame) {
///             call.complete(Ok(Stepped { frame }));
///         }
///     }
/// }
///
/// let mut registry = Registry::new("my-game", "1.0.0");
/// registry.register_call::<RunFrames>(Duration::from_secs(30));
/// ```
pub trait CallHandler<Ctx>: McpTool {
    /// The result, as for [`Handler::Output`].
    type Output: ToolOutput;

    /// Starts the call, on the game thread inside `poll`. Answer with
    /// [`Call::complete`] now or on a later frame.
    fn start(self, ctx: &mut Ctx, call: Call<Self::Output>);
}

/// What a handler may return: see [`Handler::Output`].
pub trait ToolOutput {
    /// The `outputSchema`, and whether values are wrapped as `{"result": value}`; `None` when
    /// the output has no schema.
    fn output_schema() -> Option<(Map<String, Value>, bool)>;
    /// The call result.
    fn into_result(self, wrap: bool) -> Result<ToolResult, ToolError>;

    /// The call result as the registry writes it: for a typed output, its JSON text written
    /// straight from the value (no intermediate `Value`).
    #[doc(hidden)]
    fn into_answer(self, wrap: bool) -> Result<Answer, ToolError>
    where
        Self: Sized,
    {
        self.into_result(wrap).map(Answer::Result)
    }
}

/// What a handler's output becomes (see [`ToolOutput::into_answer`]).
#[doc(hidden)]
#[derive(Debug)]
pub enum Answer {
    /// A result with content blocks.
    Result(ToolResult),
    /// The JSON text of `structuredContent` (already wrapped; also the text block).
    Json(String),
}

impl<T: Serialize + schemars::JsonSchema> ToolOutput for T {
    fn output_schema() -> Option<(Map<String, Value>, bool)> {
        Some(output_schema::<T>())
    }

    fn into_result(self, wrap: bool) -> Result<ToolResult, ToolError> {
        let value = serde_json::to_value(self).map_err(not_json)?;
        Ok(ToolResult::structured(structured(value, wrap)))
    }

    fn into_answer(self, wrap: bool) -> Result<Answer, ToolError> {
        let text = serde_json::to_string(&self).map_err(not_json)?;
        Ok(Answer::Json(if text == "null" {
            "{}".to_owned()
        } else if wrap {
            format!("{{\"result\":{text}}}")
        } else {
            text
        }))
    }
}

fn not_json(e: serde_json::Error) -> ToolError {
    ToolError::new(format!("the result is not JSON: {e}")).with_code("internal")
}

impl ToolOutput for ToolResult {
    fn output_schema() -> Option<(Map<String, Value>, bool)> {
        None
    }

    fn into_result(self, _: bool) -> Result<ToolResult, ToolError> {
        Ok(self)
    }
}

/// A handler's JSON as `structuredContent`: an object (wrapped under `result` when the output
/// type is not one; `null` becomes `{}`).
pub(crate) fn structured(value: Value, wrap: bool) -> Value {
    match value {
        Value::Null => Value::Object(Map::new()),
        value if wrap => {
            let mut object = Map::new();
            object.insert("result".into(), value);
            Value::Object(object)
        }
        value => value,
    }
}

/// A successful call result with any content blocks (text, image, audio, resource links,
/// embedded resources) and, optionally, `structuredContent`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The content blocks; when empty and `structured_content` is set, its JSON is sent as one
    /// text block (as the spec recommends).
    pub content: Vec<crate::Content>,
    /// The structured result.
    pub structured_content: Option<Value>,
}

impl ToolResult {
    /// A result whose value is `structuredContent` (and its JSON text).
    pub fn structured(value: Value) -> Self {
        ToolResult {
            content: Vec::new(),
            structured_content: Some(value),
        }
    }

    /// A result of content blocks.
    pub fn content(content: Vec<crate::Content>) -> Self {
        ToolResult {
            content,
            structured_content: None,
        }
    }

    /// A result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult::content(vec![crate::Content::text(text)])
    }
}

impl From<Value> for ToolResult {
    fn from(value: Value) -> Self {
        ToolResult::structured(structured(value, false))
    }
}

/// The four behaviour hints. Advisory: the server reports them and enforces none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// Only reads state.
    pub read_only: bool,
    /// May change state a caller would not want changed without asking.
    pub destructive: bool,
    /// Calling twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// Reaches beyond the game (network, files).
    pub open_world: bool,
}

/// One entry of `tools/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The name a client calls.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// One line for the agent; sent as `""` when empty, never omitted.
    pub description: String,
    /// The JSON Schema of the arguments (an object schema), sent verbatim.
    pub input_schema: Map<String, Value>,
    /// The JSON Schema of `structuredContent`, when known.
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints, all four always sent.
    pub annotations: Annotations,
    /// Whether the tool stays callable in crash mode.
    pub when_crashed: bool,
    /// Whether calls may run as tasks.
    pub task_support: TaskSupport,
}

impl ToolDefinition {
    /// A definition with a name and an input schema; the rest empty or `false`.
    pub fn new(name: impl Into<String>, input_schema: Map<String, Value>) -> Self {
        ToolDefinition {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema,
            output_schema: None,
            annotations: Annotations::default(),
            when_crashed: false,
            task_support: TaskSupport::Forbidden,
        }
    }

    /// The definition of a derived tool whose handler returns `Output`.
    pub fn of<T: McpTool, Output: ToolOutput>() -> Self {
        ToolDefinition {
            name: T::NAME.to_owned(),
            title: T::TITLE.map(str::to_owned),
            description: T::DESCRIPTION.to_owned(),
            input_schema: input_schema::<T>(),
            output_schema: Output::output_schema().map(|(schema, _)| schema),
            annotations: T::ANNOTATIONS,
            when_crashed: T::WHEN_CRASHED,
            task_support: T::TASK_SUPPORT,
        }
    }

    /// The `Tool` object of `tools/list`.
    pub fn to_json(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), Value::String(self.name.clone()));
        if let Some(title) = &self.title {
            tool.insert("title".into(), Value::String(title.clone()));
        }
        tool.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        tool.insert(
            "inputSchema".into(),
            Value::Object(self.input_schema.clone()),
        );
        if let Some(output) = &self.output_schema {
            tool.insert("outputSchema".into(), Value::Object(output.clone()));
        }
        let a = self.annotations;
        let mut annotations = Map::new();
        if let Some(title) = &self.title {
            annotations.insert("title".into(), Value::String(title.clone()));
        }
        annotations.insert("readOnlyHint".into(), Value::Bool(a.read_only));
        annotations.insert("destructiveHint".into(), Value::Bool(a.destructive));
        annotations.insert("idempotentHint".into(), Value::Bool(a.idempotent));
        annotations.insert("openWorldHint".into(), Value::Bool(a.open_world));
        tool.insert("annotations".into(), Value::Object(annotations));
        if self.task_support != TaskSupport::Forbidden {
            tool.insert(
                "execution".into(),
                serde_json::json!({"taskSupport": self.task_support.as_str()}),
            );
        }
        Value::Object(tool)
    }
}

impl super::wire::CallResult {
    pub(crate) fn success(answer: Answer) -> Self {
        let result = match answer {
            Answer::Json(text) => return Self::Json(text),
            Answer::Result(result) => result,
        };
        let content = match (result.content.is_empty(), &result.structured_content) {
            (true, Some(value)) => super::wire::Blocks::Text(value.to_string()),
            _ => super::wire::Blocks::Given(result.content),
        };
        Self::Blocks {
            content,
            structured_content: result.structured_content,
            is_error: false,
        }
    }
}
