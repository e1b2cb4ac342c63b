//! The tools the conformance suite's `tasks-*` scenarios call (the 2026-07-28 tasks extension):
//! `greet` (never a task), `slow_compute` (a task that sleeps, or is cancelled), `failing_job`
//! (task-only, ends with a tool error), `protocol_error_job` (ends with a JSON-RPC error),
//! `confirm_delete` and `multi_input` (ask the client through the task), and
//! `test_tool_with_task` (asks with an `input_required` result first, then runs as a task).

use std::time::{Duration, Instant};

use mcp_bindgen::server::{
    Call, CallHandler, ClientRequest, Handler, Input, InputRequired, InteractiveHandler, McpTool,
    Outcome, Registry, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Host;

/// A task's call waiting for its time or its client's answers.
#[derive(Debug)]
pub(crate) enum Pending {
    /// Answers with `text` (or a tool error) at `until`.
    Sleep {
        call: Call<ToolResult>,
        until: Instant,
        answer: Result<String, String>,
    },
    /// Answers with a JSON-RPC error at `until`.
    ProtocolError {
        call: Call<ToolResult>,
        until: Instant,
    },
    /// Waits for every request's answer, then answers with them.
    Asking {
        call: Call<ToolResult>,
        requests: Vec<ClientRequest>,
        answers: Vec<Value>,
        what: String,
    },
}

impl Pending {
    fn call(&self) -> &Call<ToolResult> {
        match self {
            Pending::Sleep { call, .. }
            | Pending::ProtocolError { call, .. }
            | Pending::Asking { call, .. } => call,
        }
    }
}

/// One frame: finish the task calls whose time or answers have come; drop the cancelled.
pub(crate) fn update(host: &mut Host) {
    let now = Instant::now();
    host.tasks.retain(|p| !p.call().is_abandoned());
    for pending in &mut host.tasks {
        if let Pending::Asking {
            requests, answers, ..
        } = pending
        {
            let mut i = 0;
            while i < requests.len() {
                match requests[i].try_response() {
                    Some(Ok(answer)) => {
                        answers.push(answer);
                        requests.swap_remove(i);
                    }
                    Some(Err(_)) => {
                        requests.swap_remove(i);
                    }
                    None => i += 1,
                }
            }
        }
    }
    let due = |p: &mut Pending| match p {
        Pending::Sleep { until, .. } | Pending::ProtocolError { until, .. } => now >= *until,
        Pending::Asking { requests, .. } => requests.is_empty(),
    };
    for pending in host.tasks.extract_if(.., due) {
        match pending {
            Pending::Sleep { call, answer, .. } => {
                call.complete(answer.map(ToolResult::text).map_err(ToolError::new));
            }
            Pending::ProtocolError { call, .. } => {
                call.error(-32603, "protocol_error_job failed inside the server");
            }
            Pending::Asking {
                call,
                answers,
                what,
                ..
            } => {
                let confirmed = answers
                    .iter()
                    .filter(|a| a.pointer("/content/confirm") == Some(&Value::Bool(true)))
                    .count();
                call.complete(Ok(ToolResult::text(format!(
                    "{what}: {confirmed} of {} confirmed",
                    answers.len()
                ))));
            }
        }
    }
}

/// Greets someone (never runs as a task).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
struct Greet {
    /// Whom to greet.
    name: String,
}

impl Handler<Host> for Greet {
    type Output = ToolResult;
    fn call(self, _: &mut Host) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!("Hello, {}!", self.name)))
    }
}

/// Works for `seconds` seconds, then reports its label (a task when the client can run one).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct SlowCompute {
    /// How long the work takes.
    seconds: f64,
    /// What the result is labelled.
    #[serde(default)]
    label: String,
}

impl CallHandler<Host> for SlowCompute {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let seconds = self.seconds.clamp(0.0, 3600.0);
        let answer = Ok(format!("computed {} in {seconds} s", self.label));
        if seconds == 0.0 {
            call.complete(answer.map(ToolResult::text).map_err(ToolError::new));
            return;
        }
        host.tasks.push(Pending::Sleep {
            call,
            until: Instant::now() + Duration::from_secs_f64(seconds),
            answer,
        });
    }
}

/// A job that always fails (after 200 ms), and runs only as a task.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct FailingJob {}

impl CallHandler<Host> for FailingJob {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        host.tasks.push(Pending::Sleep {
            call,
            until: Instant::now() + Duration::from_millis(200),
            answer: Err("the job failed, as it always does".into()),
        });
    }
}

/// A job whose request fails inside the server (a JSON-RPC error, not a tool error).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct ProtocolErrorJob {}

impl CallHandler<Host> for ProtocolErrorJob {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        host.tasks.push(Pending::ProtocolError {
            call,
            until: Instant::now() + Duration::from_millis(100),
        });
    }
}

fn confirm(message: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"],
        },
    })
}

fn ask(host: &mut Host, call: Call<ToolResult>, messages: &[String], what: String) {
    let mut requests = Vec::new();
    for message in messages {
        match call.request("elicitation/create", confirm(message)) {
            Ok(request) => requests.push(request),
            Err(e) => {
                call.complete(Err(e));
                return;
            }
        }
    }
    host.tasks.push(Pending::Asking {
        call,
        requests,
        answers: Vec::new(),
        what,
    });
}

/// Deletes a file once the user confirms (asks through the task).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional", destructive)]
struct ConfirmDelete {
    /// The file to delete.
    filename: String,
}

impl CallHandler<Host> for ConfirmDelete {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let message = format!("Delete {}?", self.filename);
        ask(host, call, &[message], format!("delete {}", self.filename));
    }
}

/// Asks two questions at once (through the task).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "optional")]
struct MultiInput {}

impl CallHandler<Host> for MultiInput {
    type Output = ToolResult;
    fn start(self, host: &mut Host, call: Call<ToolResult>) {
        let messages = ["First question?".to_owned(), "Second question?".to_owned()];
        ask(host, call, &messages, "multi_input".into());
    }
}

/// Asks for the user's name (an `input_required` result), then greets them in a task.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(task = "required")]
struct TestToolWithTask {}

impl InteractiveHandler<Host> for TestToolWithTask {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        match input
            .accepted("user_name")
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
        {
            Some(name) => Ok(Outcome::Complete(ToolResult::text(format!(
                "Hello, {name}! (from a task)"
            )))),
            None => Ok(InputRequired::new()
                .elicit(
                    "user_name",
                    "What is your name?",
                    json!({
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"],
                    }),
                )
                .into()),
        }
    }
}

pub(crate) fn register(registry: &mut Registry<Host>) {
    let deadline = Duration::from_secs(600);
    registry
        .register::<Greet>()
        .register_call::<SlowCompute>(deadline)
        .register_call::<FailingJob>(deadline)
        .register_call::<ProtocolErrorJob>(deadline)
        .register_call::<ConfirmDelete>(deadline)
        .register_call::<MultiInput>(deadline)
        .register_interactive::<TestToolWithTask>();
}
