//! The client transports' side of tasks: [`McpClient::call_tool_as_task`] starts one (and a
//! generated `{tool}_task` method, through [`ToolCaller`](crate::ToolCaller)), and
//! [`McpClient::task`] finds it again by id (after a reconnect, from another process). Both
//! eras: the legacy era's `task` parameter with `tasks/get` and `tasks/result`, and the
//! 2026-07-28 `io.modelcontextprotocol/tasks` extension (declared on each request that needs
//! it), whose `tasks/get` inlines the outcome. The handle itself is [`crate::TaskHandle`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{CallOptions, McpClient, Transport, session};
use crate::task::{DEFAULT_POLL, TaskPeer};
use crate::{CallToolResult, Error, TaskHandle, TaskStatus};

impl<T: Transport> TaskPeer for McpClient<T> {
    fn is_modern(&self) -> bool {
        self.conn
            .session
            .negotiated()
            .is_some_and(|n| n.is_modern())
    }

    fn send(
        &self,
        method: &'static str,
        params: Value,
        as_task: bool,
    ) -> Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + '_>> {
        Box::pin(async move {
            let options = CallOptions {
                as_task,
                ..CallOptions::default()
            };
            session::request(&self.conn, method, params, &options).await
        })
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send>> {
        Box::pin(super::io::sleep(duration))
    }
}

impl<T: Transport> McpClient<T> {
    /// Calls `name` as a task (2026-07-28: declaring the tasks extension on the request;
    /// legacy: with a `task` parameter) and returns its handle at once. A tool the server
    /// does not run as tasks is called plainly, and the handle holds its result: in the
    /// legacy era, a server that does not declare `tasks.requests.tools.call` is called
    /// plainly at once, and a task call refused with `-32601` (or `-32602`, as the TypeScript
    /// SDK answers) is made again without the `task` parameter.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<TaskHandle, Error> {
        let modern = self.is_modern();
        let mut params = json!({"name": name, "arguments": arguments});
        let result = if modern {
            self.send("tools/call", params, true).await?
        } else if !self.server_capabilities()["tasks"]["requests"]["tools"]["call"].is_object() {
            // A server that runs no tool calls as tasks is never sent one (2025-11-25: the
            // receiver's capability decides).
            self.request("tools/call", params).await?
        } else {
            params["task"] = json!({});
            match self.request("tools/call", params.clone()).await {
                // A tool that does not run as tasks: called plainly. 2025-11-25 says the
                // server SHOULD answer -32601; the TypeScript SDK answers -32602. A -32602
                // for arguments that do not fit comes back again from the plain call.
                Err(Error::Protocol {
                    code: -32601 | -32602,
                    ..
                }) => {
                    if let Some(params) = params.as_object_mut() {
                        params.remove("task");
                    }
                    self.request("tools/call", params).await?
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
            return Ok(TaskHandle::ready(name, answered));
        };
        let status = TaskStatus::read(task)?;
        let id = task["taskId"]
            .as_str()
            .ok_or_else(|| Error::transport("the server's task has no taskId"))?;
        let mut handle = self.task(name, id);
        handle.poll_interval = status.poll_interval.unwrap_or(DEFAULT_POLL);
        Ok(handle)
    }

    /// The task `id` (from [`TaskHandle::id`]), to poll, await or cancel again: after a
    /// reconnect, or from another client of the same credential. `tool` names it in errors;
    /// [`TaskHandle::typed`] reads its result as the tool's generated output type.
    pub fn task(&self, tool: &str, id: &str) -> TaskHandle {
        TaskHandle::remote(Arc::new(self.clone()), tool, id)
    }
}
