//! A call running as a task, as its caller sees it: [`TaskHandle`] polls, answers, cancels
//! and awaits it, typed. The client transports make tasks (`McpClient::call_tool_as_task`,
//! in both eras); any other [`ToolCaller`](crate::ToolCaller) answers at once, and its handle
//! holds the result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

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
    pub(crate) fn read(task: &Value) -> Result<Self, Error> {
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

/// A call running as a task on the server, whose result is an `R` (the raw
/// [`CallToolResult`] unless [`typed`](TaskHandle::typed)): what `call_tool_as_task` and a
/// generated `{tool}_task` method return.
///
/// Poll it ([`TaskHandle::status`]), await its result ([`TaskHandle::wait`], honouring the
/// server's poll interval), answer what it asks ([`TaskHandle::respond`]), or cancel it. Its
/// [`id`](TaskHandle::id) is all it takes to find it again
/// ([`McpClient::task`](crate::client::McpClient::task)): store it,
/// reconnect, and wait on.
///
/// A server may answer a task-capable call at once instead of making a task, and a caller
/// that does not run tasks (a fake, a mock) answers every call at once: the handle then holds
/// the result ([`TaskHandle::ready`]) and has no id.
pub struct TaskHandle<R = CallToolResult> {
    /// The client the task is polled through; `None` for a handle that holds its result.
    peer: Option<Arc<dyn TaskPeer>>,
    tool: String,
    id: Option<String>,
    pub(crate) poll_interval: Duration,
    answered: Option<CallToolResult>,
    /// Reads the final result as an `R` (and a result with `isError: true` as the error).
    decode: fn(&str, CallToolResult) -> Result<R, Error>,
}

impl<R> Clone for TaskHandle<R> {
    fn clone(&self) -> Self {
        TaskHandle {
            peer: self.peer.clone(),
            tool: self.tool.clone(),
            id: self.id.clone(),
            poll_interval: self.poll_interval,
            answered: self.answered.clone(),
            decode: self.decode,
        }
    }
}

impl<R> std::fmt::Debug for TaskHandle<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("tool", &self.tool)
            .field("id", &self.id)
            .field("answered", &self.answered.is_some())
            .finish_non_exhaustive()
    }
}

/// The interval used when the server suggests none.
pub(crate) const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// The client a handle polls through, its transport erased so that the handle's one type
/// parameter is its result (implemented by the `client` feature's `McpClient`).
pub(crate) trait TaskPeer: Send + Sync {
    /// Whether the session speaks 2026-07-28.
    fn is_modern(&self) -> bool;

    /// Sends `method`; `as_task` declares the tasks extension on the request (2026-07-28).
    fn send(
        &self,
        method: &'static str,
        params: Value,
        as_task: bool,
    ) -> Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + '_>>;

    /// Waits `duration` between polls (on the client's own runtime).
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;
}

impl TaskHandle {
    /// The task `id` of `tool`, run by `peer`.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn remote(peer: Arc<dyn TaskPeer>, tool: &str, id: &str) -> Self {
        TaskHandle {
            peer: Some(peer),
            tool: tool.to_owned(),
            id: Some(id.to_owned()),
            poll_interval: DEFAULT_POLL,
            answered: None,
            decode: checked,
        }
    }

    /// A handle holding a result already: what a caller that runs no tasks returns from
    /// [`ToolCaller::call_tool_as_task`](crate::ToolCaller::call_tool_as_task), and what a
    /// server's immediate answer becomes.
    pub fn ready(tool: impl Into<String>, result: CallToolResult) -> Self {
        TaskHandle {
            peer: None,
            tool: tool.into(),
            id: None,
            poll_interval: DEFAULT_POLL,
            answered: Some(result),
            decode: checked,
        }
    }

    /// The same task, its result decoded as an `R` by the envelope rules (as generated
    /// methods decode theirs: `structuredContent`, else the text's JSON, else the text).
    pub fn typed<R: DeserializeOwned>(self) -> TaskHandle<R> {
        TaskHandle {
            peer: self.peer,
            tool: self.tool,
            id: self.id,
            poll_interval: self.poll_interval,
            answered: self.answered,
            decode: crate::envelope::decode_result::<R>,
        }
    }
}

impl<R> TaskHandle<R> {
    /// The task's id; `None` when the call was answered without making a task.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The tool the task runs.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// `tasks/get`: where the task stands now. A handle holding its result is
    /// [`TaskState::Completed`].
    pub async fn status(&self) -> Result<TaskStatus, Error> {
        let (Some(peer), Some(id)) = (&self.peer, &self.id) else {
            return Ok(TaskStatus {
                state: TaskState::Completed,
                message: None,
                poll_interval: None,
                ttl: None,
                input_requests: Map::new(),
                raw: Value::Null,
            });
        };
        let task = peer
            .send("tasks/get", json!({ "taskId": id }), true)
            .await?;
        TaskStatus::read(&task)
    }

    /// Answers the task's input requests (2026-07-28 `tasks/update`), by their keys in
    /// [`TaskStatus::input_requests`]: an elicitation's `{action, content}`, a sampling
    /// result, ...
    pub async fn respond(&self, answers: Map<String, Value>) -> Result<(), Error> {
        let (Some(peer), Some(id)) = (&self.peer, &self.id) else {
            return Ok(());
        };
        peer.send(
            "tasks/update",
            json!({ "taskId": id, "inputResponses": answers }),
            true,
        )
        .await
        .map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task (it may still finish otherwise).
    pub async fn cancel(&self) -> Result<(), Error> {
        let (Some(peer), Some(id)) = (&self.peer, &self.id) else {
            return Ok(());
        };
        peer.send("tasks/cancel", json!({ "taskId": id }), true)
            .await
            .map(drop)
    }

    /// Waits for the task to finish (polling at the server's interval) and returns its
    /// result as an `R`. A tool error is [`Error::Tool`], a result that does not fit `R`
    /// [`Error::Decode`], a failed task [`Error::Protocol`] with the server's error, a
    /// cancelled one `Error::Protocol` with code `-32800` (the JSON-RPC code of a cancelled
    /// request). A task waiting for input keeps waiting: answer it from another handle with
    /// [`TaskHandle::respond`], or watch [`TaskHandle::status`] instead.
    pub async fn wait(&self) -> Result<R, Error> {
        let result = self.wait_raw().await?;
        (self.decode)(&self.tool, result)
    }

    /// [`TaskHandle::wait`] without decoding: the `CallToolResult` as sent. A result with
    /// `isError: true` is still an [`Error::Tool`].
    pub async fn wait_raw(&self) -> Result<CallToolResult, Error> {
        if let Some(answered) = &self.answered {
            return checked(&self.tool, answered.clone());
        }
        let (Some(peer), Some(id)) = (&self.peer, &self.id) else {
            return Err(Error::transport(
                "a task handle with neither an id nor a result",
            ));
        };
        let modern = peer.is_modern();
        let mut interval = self.poll_interval;
        loop {
            let status = self.status().await?;
            if status.state.is_terminal() {
                if !modern {
                    // The legacy era reads the outcome with tasks/result.
                    let result = peer
                        .send("tasks/result", json!({ "taskId": id }), false)
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
            peer.sleep(interval).await?;
        }
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
