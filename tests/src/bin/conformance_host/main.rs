//! The fixture host the MCP conformance suite's server scenarios run against: the tools those
//! scenarios call, declared with `#[derive(McpTool)]` and served by `mcp_bindgen::Server` on
//! 127.0.0.1, polled with a 1 ms budget once per ~1 ms "frame". Both protocol eras are served
//! on the one port; the tools that report progress or log lines, or ask the client for sampling
//! or elicitation (legacy era), answer over several frames.
//!
//! Prompts, resources, a template, completion and the tools that ask for input are in
//! `beyond.rs`; the tools the tasks scenarios call in `tasks.rs`.
//!
//! `conformance_host [PORT]` prints `http://127.0.0.1:PORT/mcp` once it listens.

mod beyond;
mod tasks;

use std::time::{Duration, Instant};

use mcp_bindgen::server::{
    Call, CallHandler, ClientRequest, Handler, LogLevel, McpTool, Registrar, Registry, Server,
    ToolDefinition, ToolError, ToolResult,
};
use mcp_bindgen::{AudioContent, Content, EmbeddedResource, ImageContent, ResourceContents};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The host's state: calls served, and the calls that finish on a later frame.
#[derive(Debug, Default)]
pub(crate) struct Host {
    calls: u64,
    running: Vec<Steps>,
    asking: Vec<Asking>,
    /// Changes the tool list from inside a handler (`test_trigger_tool_change`).
    tools: Option<Registrar<Host>>,
    /// Whether `test_added_tool` is registered now.
    added: bool,
    /// Whether `test_added_prompt` is registered now.
    added_prompt: bool,
    /// Task calls waiting for their time or their client's answers.
    tasks: Vec<tasks::Pending>,
}

/// A call waiting for its client's response to a request it sent (sampling, elicitation).
#[derive(Debug)]
struct Asking {
    call: Call<ToolResult>,
    request: ClientRequest,
    /// Turns the client's result into the tool's text.
    answer: fn(&Value) -> String,
}

impl Asking {
    /// Sends `method` to the client; the answer comes on a later frame (see `Host::update`).
    fn start(
        host: &mut Host,
        call: Call<ToolResult>,
        method: &str,
        params: Value,
        answer: fn(&Value) -> String,
    ) {
        match call.request(method, params) {
            Ok(request) => host.asking.push(Asking {
                call,
                request,
                answer,
            }),
            Err(e) => {
                call.complete(Err(e));
            }
        }
    }
}

/// "action=..., content={...}" of an elicitation result.
fn elicited(result: &Value) -> String {
    format!(
        "action={}, content={}",
        result.get("action").and_then(Value::as_str).unwrap_or("?"),
        result.get("content").unwrap_or(&Value::Null)
    )
}

/// A call that reports three times, ~50 ms apart, then answers.
#[derive(Debug)]
struct Steps {
    call: Call<ToolResult>,
    started: Instant,
    step: u32,
    logs: bool,
}

impl Host {
    /// One frame: advance the calls in progress; never waits.
    fn update(&mut self) {
        let now = Instant::now();
        for steps in &mut self.running {
            while steps.step < 3 && now >= steps.started + Duration::from_millis(50) * steps.step {
                report(steps);
                steps.step += 1;
            }
        }
        self.asking.retain(|a| !a.call.is_abandoned());
        let mut i = 0;
        while i < self.asking.len() {
            let Some(response) = self.asking[i].request.try_response() else {
                i += 1;
                continue;
            };
            let asking = self.asking.swap_remove(i);
            let result = response.map(|r| ToolResult::text((asking.answer)(&r)));
            asking.call.complete(result);
        }
        for steps in self
            .running
            .extract_if(.., |s| s.step >= 3 || s.call.is_abandoned())
        {
            let text = if steps.logs {
                "Tool with logging completed"
            } else {
                "Tool with progress completed"
            };
            steps.call.complete(Ok(ToolResult::text(text)));
        }
        tasks::update(self);
    }
}

fn report(steps: &Steps) {
    if steps.logs {
        let line = [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ];
        steps.call.log(LogLevel::Info, line[steps.step as usize]);
    } else {
        steps
            .call
            .progress(f64::from(steps.step * 50), Some(100.0), None);
    }
}

/// Reports progress 0, 50, 100 (of 100) ~50 ms apart when asked (a `progressToken`), over
/// several frames, then answers.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_tool_with_progress", read_only)]
struct WithProgress {}

impl CallHandler<Host> for WithProgress {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let mut steps = Steps {
            call,
            started: Instant::now(),
            step: 0,
            logs: false,
        };
        report(&steps);
        steps.step = 1;
        host.running.push(steps);
    }
}

/// Logs three info lines ~50 ms apart when asked (a log level), over several frames.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_tool_with_logging", read_only)]
struct WithLogging {}

impl CallHandler<Host> for WithLogging {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let mut steps = Steps {
            call,
            started: Instant::now(),
            step: 0,
            logs: true,
        };
        report(&steps);
        steps.step = 1;
        host.running.push(steps);
    }
}

/// The 2026-07-28 scenarios' name for the logging tool.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_logging_tool", read_only)]
struct LoggingTool {}

impl CallHandler<Host> for LoggingTool {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        WithLogging {}.start(host, call);
    }
}

/// Needs the client's `sampling` capability (the registry refuses calls that lack it with
/// -32021 before this runs).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_missing_capability", read_only)]
struct MissingCapability {}

impl Handler<Host> for MissingCapability {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("the client declared sampling"))
    }
}

/// The 2026-07-28 scenario that checks a response stream carries no server-to-client requests
/// calls this name; a modern call cannot send such requests, and this answers with text.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_streaming_elicitation", read_only)]
struct StreamingElicitation {}

impl Handler<Host> for StreamingElicitation {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(
            "no elicitation: a 2026-07-28 call sends no requests",
        ))
    }
}

/// Asks the client to sample an LLM (`sampling/createMessage`) and answers with its text.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_sampling")]
struct Sampling {
    /// The prompt to send to the LLM.
    prompt: String,
}

impl CallHandler<Host> for Sampling {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": 100,
        });
        Asking::start(host, call, "sampling/createMessage", params, |result| {
            let text = result
                .pointer("/content/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("LLM response: {text}")
        });
    }
}

/// Asks the user for a name and an email (`elicitation/create`).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_elicitation")]
struct Elicitation {
    /// The message to show the user.
    message: String,
}

impl CallHandler<Host> for Elicitation {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let params = json!({
            "message": self.message,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                },
                "required": ["username", "email"],
            },
        });
        Asking::start(host, call, "elicitation/create", params, |result| {
            format!("User response: {}", elicited(result))
        });
    }
}

/// Elicits with a default for every primitive type (SEP-1034).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_elicitation_sep1034_defaults")]
struct ElicitationDefaults {}

impl CallHandler<Host> for ElicitationDefaults {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let params = json!({
            "message": "Please review your details",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {
                        "type": "string",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active"
                    },
                    "verified": {"type": "boolean", "default": true},
                },
            },
        });
        Asking::start(host, call, "elicitation/create", params, |result| {
            format!("Elicitation completed: {}", elicited(result))
        });
    }
}

/// Elicits with the five enum forms (SEP-1330).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_elicitation_sep1330_enums")]
struct ElicitationEnums {}

impl CallHandler<Host> for ElicitationEnums {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let params = json!({
            "message": "Please pick your options",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]},
                    "legacyEnum": {
                        "type": "string",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"]
                    },
                    "untitledMulti": {"type": "array", "items": {
                        "type": "string", "enum": ["option1", "option2", "option3"]
                    }},
                    "titledMulti": {"type": "array", "items": {"anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]}},
                },
            },
        });
        Asking::start(host, call, "elicitation/create", params, |result| {
            format!("Elicitation completed: {}", elicited(result))
        });
    }
}

/// A 1x1 red pixel PNG.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// 44-byte WAV header with 2 samples of silence (8 kHz, mono, 8-bit).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";

fn image() -> Content {
    Content::Image(ImageContent {
        data: PNG.into(),
        mime_type: "image/png".into(),
        annotations: None,
        meta: None,
        extra: Map::new(),
    })
}

fn resource(uri: &str, mime: &str, text: &str) -> Content {
    Content::Resource(EmbeddedResource {
        resource: ResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            text: Some(text.into()),
            blob: None,
            meta: None,
            extra: Map::new(),
        },
        annotations: None,
        meta: None,
        extra: Map::new(),
    })
}

/// Returns simple text.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_simple_text", read_only)]
struct SimpleText {}

impl Handler<Host> for SimpleText {
    type Output = ToolResult;
    fn call(self, host: &mut Host) -> Result<ToolResult, ToolError> {
        host.calls += 1;
        Ok(ToolResult::text(
            "This is a simple text response for testing.",
        ))
    }
}

/// Returns an image.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_image_content", read_only)]
struct ImageTool {}

impl Handler<Host> for ImageTool {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::content(vec![image()]))
    }
}

/// Returns audio.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_audio_content", read_only)]
struct AudioTool {}

impl Handler<Host> for AudioTool {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::content(vec![Content::Audio(AudioContent {
            data: WAV.into(),
            mime_type: "audio/wav".into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        })]))
    }
}

/// Returns an embedded resource.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_embedded_resource", read_only)]
struct EmbeddedTool {}

impl Handler<Host> for EmbeddedTool {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::content(vec![resource(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]))
    }
}

/// Returns text, an image and a resource.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_multiple_content_types", read_only)]
struct MixedTool {}

impl Handler<Host> for MixedTool {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::content(vec![
            Content::text("Multiple content types test:"),
            image(),
            resource(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ),
        ]))
    }
}

/// Always fails.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_error_handling")]
struct ErrorTool {}

impl Handler<Host> for ErrorTool {
    type Output = ();
    fn call(self, _: &mut Host) -> Result<(), ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Changes the tool list (adds `test_added_tool`, or removes it again), so that clients
/// listening for changes hear one (the suite's `server-stateless` listen checks).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_trigger_tool_change")]
struct TriggerToolChange {}

impl Handler<Host> for TriggerToolChange {
    type Output = ToolResult;
    fn call(self, host: &mut Host) -> Result<ToolResult, ToolError> {
        let tools = host
            .tools
            .as_ref()
            .ok_or_else(|| ToolError::new("the host has no registrar"))?;
        host.added = !host.added;
        if host.added {
            tools.register::<AddedTool>();
            Ok(ToolResult::text("test_added_tool registered"))
        } else {
            tools.unregister("test_added_tool");
            Ok(ToolResult::text("test_added_tool removed"))
        }
    }
}

/// Registered and removed by `test_trigger_tool_change`.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_added_tool", read_only)]
struct AddedTool {}

impl Handler<Host> for AddedTool {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("added"))
    }
}

/// Adds two numbers (structured output, for the interop clients).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "add", read_only, idempotent)]
struct Add {
    /// First.
    a: f64,
    /// Second.
    b: f64,
}

/// The sum.
#[derive(Debug, Serialize, JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

impl Handler<Host> for Add {
    type Output = Sum;
    fn call(self, _: &mut Host) -> Result<Sum, ToolError> {
        Ok(Sum {
            sum: self.a + self.b,
        })
    }
}

const SCHEMA_2020_12: &str = r##"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}"##;

const HEADER_PARAM_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
  "required": ["region"]
}"#;

fn object(text: &str) -> Map<String, serde_json::Value> {
    serde_json::from_str(text).expect("a JSON object")
}

fn main() -> std::process::ExitCode {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let mut registry = Registry::new("mcp-bindgen-conformance-host", env!("CARGO_PKG_VERSION"));
    registry
        .register::<SimpleText>()
        .register::<ImageTool>()
        .register::<AudioTool>()
        .register::<EmbeddedTool>()
        .register::<MixedTool>()
        .register::<ErrorTool>()
        .register::<Add>()
        .register::<MissingCapability>()
        .register::<StreamingElicitation>()
        .register::<TriggerToolChange>()
        .register_call::<WithProgress>(Duration::from_secs(30))
        .register_call::<WithLogging>(Duration::from_secs(30))
        .register_call::<LoggingTool>(Duration::from_secs(30))
        .register_call::<Sampling>(Duration::from_secs(30))
        .register_call::<Elicitation>(Duration::from_secs(30))
        .register_call::<ElicitationDefaults>(Duration::from_secs(30))
        .register_call::<ElicitationEnums>(Duration::from_secs(30));
    registry.require_client_capability("test_missing_capability", "sampling");
    beyond::register(&mut registry);
    tasks::register(&mut registry);
    // A JSON Schema 2020-12 input schema, sent verbatim ($schema, $defs with $anchor, allOf,
    // if/then/else, additionalProperties).
    registry.register_fn(
        ToolDefinition {
            description: "Tool with JSON Schema 2020-12 features".into(),
            ..ToolDefinition::new("json_schema_2020_12_tool", object(SCHEMA_2020_12))
        },
        |_, _| Ok(ToolResult::text("ok")),
    );
    // A parameter mirrored in the Mcp-Param-Region header (SEP-2243), which the server checks.
    registry.register_fn(
        ToolDefinition {
            description: "Echoes the region it was called for".into(),
            ..ToolDefinition::new("test_header_param", object(HEADER_PARAM_SCHEMA))
        },
        |_, arguments| {
            let region = arguments
                .get("region")
                .and_then(|r| r.as_str())
                .unwrap_or("");
            Ok(ToolResult::text(format!("region: {region}")))
        },
    );
    let mut server = match Server::listen(registry, port) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: cannot listen: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("http://127.0.0.1:{}/mcp", server.port());
    let mut host = Host {
        tools: Some(server.registry().registrar()),
        ..Host::default()
    };
    loop {
        host.update();
        server.poll_for(&mut host, Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(1));
    }
}
