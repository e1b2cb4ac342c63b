//! Calls made as tasks: [`McpClient::call_tool_as_task`] starts one, [`TaskHandle`] polls,
//! answers, cancels and awaits it, and [`McpClient::task`] finds it again by id (after a
//! reconnect, from another process). Both eras: the legacy era's `task` parameter with
//! `tasks/get` and `tasks/result`, and the 2026-07-28 `io.modelcontextprotocol/tasks`
//! extension (declared on each request that needs it), whose `tasks/get` inlines the outcome.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::{CallOptions, McpClient, Transport, session};
use crate::{CallToolResult, Error};

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// Running.
    Working,
    /// Waiting for the client: see [`TaskStatus::input_requests`], answer with
    /// [`TaskHandle::respond`].
    InputRequired,
    /// Finished with a result (a tool error included).
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl TaskState {
    fn parse(status: &str) -> Option<Self> {
        Some(match status {
            "working" => TaskState::Working,
            "input_required" => TaskState::InputRequired,
            "completed" => TaskState::Completed,
            "failed" => TaskState::Failed,
            "cancelled" => TaskState::Cancelled,
            _ => return None,
        })
    }

    /// Whether the task has finished (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Cancelled
        )
    }
}

/// A task's status, as `tasks/get` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    /// Where it stands.
    pub state: TaskState,
    /// The server's message about it, if any.
    pub message: Option<String>,
    /// How often the server suggests polling.
    pub poll_interval: Option<Duration>,
    /// How long the server keeps the task after creating it (`None`: unlimited).
    pub ttl: Option<Duration>,
    /// The requests the task waits on (2026-07-28, [`TaskState::InputRequired`]), by key:
    /// `{method, params}` each (`elicitation/create`, `sampling/createMessage`, ...).
    pub input_requests: Map<String, Value>,
    /// The whole `Task` object as the server sent it.
    pub raw: Value,
}

impl TaskStatus {
    fn read(task: &Value) -> Result<Self, Error> {
        let status = task["status"].as_str().unwrap_or_default();
        let state = TaskState::parse(status).ok_or_else(|| {
            Error::transport(format!("the server sent a task with status {status:?}"))
        })?;
        let millis = |modern: &str, legacy: &str| {
            task.get(modern)
                .or_else(|| task.get(legacy))
                .and_then(Value::as_u64)
                .map(Duration::from_millis)
        };
        Ok(TaskStatus {
            state,
            message: task["statusMessage"].as_str().map(str::to_owned),
            poll_interval: millis("pollIntervalMs", "pollInterval"),
            ttl: millis("ttlMs", "ttl"),
            input_requests: task["inputRequests"]
                .as_object()
                .cloned()
                .unwrap_or_default(),
            raw: task.clone(),
        })
    }
}

/// A call running as a task on the server. Poll it ([`TaskHandle::status`]), await its result
/// ([`TaskHandle::wait`], honouring the server's poll interval), answer what it asks
/// ([`TaskHandle::respond`]), or cancel it. Its [`id`](TaskHandle::id) is all it takes to find
/// it again ([`McpClient::task`]): store it, reconnect, and wait on.
///
/// A server may answer a task-capable call at once instead of making a task; the handle then
/// holds the result, and has no id.
pub struct TaskHandle<T> {
    client: McpClient<T>,
    tool: String,
    id: Option<String>,
    poll_interval: Duration,
    answered: Option<CallToolResult>,
}

impl<T> std::fmt::Debug for TaskHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("tool", &self.tool)
            .field("id", &self.id)
            .field("answered", &self.answered.is_some())
            .finish_non_exhaustive()
    }
}

/// The interval used when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

impl<T: Transport> McpClient<T> {
    /// Calls `name` as a task (2026-07-28: declaring the tasks extension on the request;
    /// legacy: with a `task` parameter) and returns its handle at once. A tool the server
    /// does not run as tasks is called plainly, and the handle holds its result.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<TaskHandle<T>, Error> {
        let modern = self.is_modern();
        let mut params = json!({"name": name, "arguments": arguments});
        let result = if modern {
            self.task_request("tools/call", params).await?
        } else {
            let plain = params.clone();
            params["task"] = json!({});
            match self.request("tools/call", params).await {
                // A tool that does not run as tasks (2025-11-25: "SHOULD return -32601"):
                // called plainly.
                Err(Error::Protocol { code: -32601, .. }) => {
                    self.request("tools/call", plain).await?
                }
                other => other?,
            }
        };
        let task = if modern {
            (result["resultType"] == "task").then_some(&result)
        } else {
            result.get("task")
        };
        let Some(task) = task else {
            // Answered at once.
            let answered: CallToolResult = serde_json::from_value(result).map_err(|e| {
                Error::transport_source("tools/call answered with neither a task nor a result", e)
            })?;
            return Ok(TaskHandle {
                client: self.clone(),
                tool: name.to_owned(),
                id: None,
                poll_interval: DEFAULT_POLL,
                answered: Some(answered),
            });
        };
        let status = TaskStatus::read(task)?;
        let id = task["taskId"]
            .as_str()
            .ok_or_else(|| Error::transport("the server's task has no taskId"))?;
        Ok(TaskHandle {
            client: self.clone(),
            tool: name.to_owned(),
            id: Some(id.to_owned()),
            poll_interval: status.poll_interval.unwrap_or(DEFAULT_POLL),
            answered: None,
        })
    }

    /// The task `id` (from [`TaskHandle::id`]), to poll, await or cancel again: after a
    /// reconnect, or from another client of the same credential. `tool` names it in errors.
    pub fn task(&self, tool: &str, id: &str) -> TaskHandle<T> {
        TaskHandle {
            client: self.clone(),
            tool: tool.to_owned(),
            id: Some(id.to_owned()),
            poll_interval: DEFAULT_POLL,
            answered: None,
        }
    }

    fn is_modern(&self) -> bool {
        self.protocol_version()
            .is_some_and(|v| crate::era::is_modern(&v))
    }

    /// A request that declares the tasks extension (2026-07-28).
    async fn task_request(&self, method: &str, params: Value) -> Result<Value, Error> {
        let options = CallOptions {
            as_task: true,
            ..CallOptions::default()
        };
        session::request(&self.conn, method, params, &options).await
    }
}

impl<T: Transport> TaskHandle<T> {
    /// The task's id; `None` when the server answered the call without making a task.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// `tasks/get`: where the task stands now.
    pub async fn status(&self) -> Result<TaskStatus, Error> {
        let Some(id) = &self.id else {
            return Ok(TaskStatus {
                state: TaskState::Completed,
                message: None,
                poll_interval: None,
                ttl: None,
                input_requests: Map::new(),
                raw: Value::Null,
            });
        };
        let task = self
            .client
            .task_request("tasks/get", json!({ "taskId": id }))
            .await?;
        TaskStatus::read(&task)
    }

    /// Answers the task's input requests (2026-07-28 `tasks/update`), by their keys in
    /// [`TaskStatus::input_requests`]: an elicitation's `{action, content}`, a sampling
    /// result, ...
    pub async fn respond(&self, answers: Map<String, Value>) -> Result<(), Error> {
        let Some(id) = &self.id else {
            return Ok(());
        };
        self.client
            .task_request(
                "tasks/update",
                json!({ "taskId": id, "inputResponses": answers }),
            )
            .await
            .map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task (it may still finish otherwise).
    pub async fn cancel(&self) -> Result<(), Error> {
        let Some(id) = &self.id else {
            return Ok(());
        };
        self.client
            .task_request("tasks/cancel", json!({ "taskId": id }))
            .await
            .map(drop)
    }

    /// Waits for the task to finish (polling at the server's interval) and returns its
    /// result. A tool error is [`Error::Tool`], a failed task [`Error::Protocol`] with the
    /// server's error, a cancelled one `Error::Protocol` with code `-32800` (the JSON-RPC
    /// code of a cancelled request). A task waiting for input keeps waiting: answer it from
    /// another handle with [`TaskHandle::respond`], or watch [`TaskHandle::status`] instead.
    pub async fn wait(&self) -> Result<CallToolResult, Error> {
        if let Some(answered) = &self.answered {
            return checked(&self.tool, answered.clone());
        }
        let Some(id) = &self.id else {
            return Err(Error::transport(
                "a task handle with neither an id nor a result",
            ));
        };
        let modern = self.client.is_modern();
        let mut interval = self.poll_interval;
        loop {
            let status = self.status().await?;
            if status.state.is_terminal() {
                if !modern {
                    // The legacy era reads the outcome with tasks/result.
                    let result = self
                        .client
                        .request("tasks/result", json!({ "taskId": id }))
                        .await?;
                    return checked(&self.tool, decode(&self.tool, result)?);
                }
                return match status.state {
                    TaskState::Completed => checked(
                        &self.tool,
                        decode(&self.tool, status.raw["result"].clone())?,
                    ),
                    TaskState::Cancelled => Err(Error::Protocol {
                        code: -32800,
                        message: format!("the task {id} of {} was cancelled", self.tool),
                        data: None,
                    }),
                    _ => {
                        let error = &status.raw["error"];
                        Err(Error::Protocol {
                            code: error["code"].as_i64().unwrap_or(-32603),
                            message: error["message"]
                                .as_str()
                                .unwrap_or("the task failed")
                                .to_owned(),
                            data: error.get("data").cloned(),
                        })
                    }
                };
            }
            if let Some(suggested) = status.poll_interval {
                interval = suggested.clamp(Duration::from_millis(10), Duration::from_secs(60));
            }
            super::io::sleep(interval).await?;
        }
    }

    /// [`TaskHandle::wait`], the result decoded as generated methods decode theirs
    /// (`structuredContent`, else the text's JSON, else the text).
    pub async fn wait_decoded<R: DeserializeOwned>(&self) -> Result<R, Error> {
        let result = self.wait().await?;
        crate::envelope::decode_result(&self.tool, result)
    }
}

fn decode(tool: &str, result: Value) -> Result<CallToolResult, Error> {
    serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            format!("the task of {tool} ended with a result that is not a CallToolResult"),
            e,
        )
    })
}

/// `isError` becomes [`Error::Tool`].
fn checked(tool: &str, result: CallToolResult) -> Result<CallToolResult, Error> {
    if result.is_error() {
        return Err(crate::envelope::tool_failure(tool, result));
    }
    Ok(result)
}
