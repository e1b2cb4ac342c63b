//! The client, written once for every transport: what an application asks of a connection
//! (its negotiated version and the server's declarations, requests, tool calls) and its
//! [`ToolCaller`] for generated modules, each a call into the session's engine.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::session::{self, Connection};
use super::{CallOptions, LogHandler, ToolList, Transport, changes};
use crate::drift::{DriftReport, Kind, Provenance};
use crate::{
    CallToolResult, Completion, CompletionRef, Error, GetPromptResult, ReadResourceResult,
    ToolCaller,
};

/// An MCP client over the transport `T`: [`HttpClient`](super::HttpClient) (Streamable HTTP)
/// or [`StdioClient`](super::StdioClient) (a child process's stdio), which is what you name in
/// your code; a [`ToolCaller`] for generated modules.
///
/// Cheap to clone (the clones share one connection); what runs beside the requests (the
/// tool-change handlers, the streams the server announces on) ends with the last clone. Works
/// from any executor: its I/O runs on the crate's own runtime.
pub struct McpClient<T> {
    pub(crate) conn: Arc<Connection<T>>,
}

impl<T> Clone for McpClient<T> {
    fn clone(&self) -> Self {
        McpClient {
            conn: self.conn.clone(),
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for McpClient<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("transport", &self.conn.transport)
            .field("session", &self.conn.session)
            .finish()
    }
}

impl<T: Transport> McpClient<T> {
    /// Negotiates the era over `transport` (see [`Protocol`](super::Protocol)), then starts the
    /// application's tool-change handlers, if it has any.
    pub(crate) async fn open(session: Arc<session::Session>, transport: T) -> Result<Self, Error> {
        let conn = Arc::new(Connection::new(session, transport));
        session::negotiate(&conn).await?;
        changes::start(&conn);
        Ok(McpClient { conn })
    }

    /// The protocol version in use (`"2026-07-28"`, `"2025-11-25"`, ...).
    pub fn protocol_version(&self) -> Option<String> {
        self.conn.session.protocol_version()
    }

    /// The server's `serverInfo` (name, version, ...), `null` when it sent none.
    pub fn server_info(&self) -> Value {
        self.conn.session.server_info()
    }

    /// The server's `capabilities`, as it declared them (`initialize` or `server/discover`);
    /// `null` when it declared none.
    pub fn server_capabilities(&self) -> Value {
        self.conn.session.capabilities()
    }

    /// `tools/list`, every page, as the server sent the tools (over HTTP, less those with
    /// invalid `x-mcp-header` annotations: see [`McpClient::tool_list`]).
    pub async fn list_tools(&self) -> Result<Vec<Value>, Error> {
        Ok(self.tool_list().await?.tools)
    }

    /// `tools/list`, every page, with its caching hints and the tools left out. The list
    /// also renews the drift checks of the generated modules this client serves.
    pub async fn tool_list(&self) -> Result<ToolList, Error> {
        session::tool_list(&self.conn).await
    }

    /// `prompts/list`, every page, as the server sent the prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, Error> {
        self.list_all("prompts/list", "prompts").await
    }

    /// `prompts/get`: the prompt `name` with its arguments (strings, as MCP sends them). A
    /// server that asks for input first (2026-07-28 `input_required`) is answered by the
    /// client's handlers, as for tools.
    pub async fn get_prompt<K, V>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, Error>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), Value::String(v.into())))
            .collect();
        self.get_prompt_map(name, arguments).await
    }

    /// `prompts/get` with its arguments as the JSON object sent.
    async fn get_prompt_map(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, Error> {
        let result = self
            .request("prompts/get", json!({"name": name, "arguments": arguments}))
            .await?;
        typed("prompts/get", result)
    }

    /// `resources/list`, every page, as the server sent the resources.
    pub async fn list_resources(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/list", "resources").await
    }

    /// `resources/templates/list`, every page, as the server sent the templates.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// `resources/read`: the contents at `uri` (a resource's, or one a template describes). A
    /// resource the server does not have is [`Error::Protocol`] (`-32002`, or `-32602` in
    /// 2026-07-28).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        typed("resources/read", result)
    }

    /// `completion/complete`: values the server offers for `argument` of a prompt or template
    /// variable, given what was typed so far (`value`) and the arguments already chosen
    /// (`context`: name and value, as MCP sends arguments).
    pub async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<Completion, Error> {
        let mut params = json!({
            "ref": reference,
            "argument": {"name": argument, "value": value},
        });
        if !context.is_empty() {
            let chosen: Map<String, Value> = context
                .iter()
                .map(|(name, value)| ((*name).to_owned(), Value::from(*value)))
                .collect();
            params["context"] = json!({"arguments": chosen});
        }
        let result = self.request("completion/complete", params).await?;
        let completion = result.get("completion").cloned().unwrap_or(Value::Null);
        typed("completion/complete", completion)
    }

    /// Every page of a list method, the items under `key`.
    async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        Ok(session::pages(&self.conn, method, key).await?.items)
    }

    /// The last check's report of the prompts, resources and templates the module of
    /// `provenance` uses (see [`Provenance::with_catalog`]): `None` before one of its
    /// prompt, resource or completion methods was called, and for a module without them.
    /// Its tools' report is [`ToolCaller::drift`]'s.
    pub fn catalog_drift(&self, provenance: &Provenance) -> Option<DriftReport> {
        self.conn.session.drift.catalog_report(provenance)
    }

    /// Sends one JSON-RPC request and returns its `result`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        session::request(&self.conn, method, params, &CallOptions::default()).await
    }

    /// Sends one JSON-RPC request with per-call options (progress and log handlers, a
    /// timeout) and returns its `result`.
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        options: &CallOptions,
    ) -> Result<Value, Error> {
        session::request(&self.conn, method, params, options).await
    }

    /// Calls a tool with per-call options (progress and log handlers, a timeout).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<CallToolResult, Error> {
        session::call_tool(&self.conn, name, arguments, options).await
    }

    /// The client's log handler (the builders' `on_log`), for a call's log notifications when
    /// the call has none of its own.
    pub(crate) fn log_handler(&self) -> Option<LogHandler> {
        self.conn.session.settings.log.clone()
    }

    /// The `tools/list` a drift check needs, with the stream that keeps it current.
    async fn list_for_drift(&self) -> Result<ToolList, Error> {
        self.conn.transport.hear_changes();
        session::tool_list(&self.conn).await
    }
}

impl<T: Transport> ToolCaller for McpClient<T> {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments, &CallOptions::default())
            .await
    }

    async fn call_tool_decoded<R: serde::de::DeserializeOwned + Send>(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<R, Error> {
        session::call_tool_decoded(&self.conn, name, arguments).await
    }

    async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<crate::TaskHandle, Error> {
        McpClient::call_tool_as_task(self, name, arguments).await
    }

    async fn poll_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cursor: Option<&str>,
        max_events: Option<u32>,
    ) -> Result<crate::events::EventPage, Error> {
        McpClient::poll_events(self, name, arguments, cursor, max_events).await
    }

    fn stream_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: crate::events::EventOptions,
    ) -> crate::events::EventStream {
        McpClient::stream_events(self, name, arguments, options)
    }

    async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, Error> {
        self.get_prompt_map(name, arguments).await
    }

    async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        McpClient::read_resource(self, uri).await
    }

    async fn complete(
        &self,
        reference: &crate::CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<crate::Completion, Error> {
        McpClient::complete(self, reference, argument, value, context).await
    }

    async fn check_tool(&self, provenance: &'static Provenance, tool: &str) -> Result<(), Error> {
        let peer = || self.conn.transport.peer();
        self.conn
            .session
            .drift
            .check_tool(provenance, tool, peer, || self.list_for_drift())
            .await
    }

    async fn check_catalog(
        &self,
        provenance: &'static Provenance,
        kind: Kind,
        name: &str,
    ) -> Result<(), Error> {
        let peer = || self.conn.transport.peer();
        self.conn
            .session
            .drift
            .check_catalog(provenance, kind, name, peer, || {
                session::catalog_list(&self.conn)
            })
            .await
    }

    fn drift(&self, provenance: &Provenance) -> Option<DriftReport> {
        self.conn.session.drift.report(provenance)
    }

    async fn check_drift(
        &self,
        provenance: &'static Provenance,
    ) -> Result<Option<DriftReport>, Error> {
        self.conn
            .session
            .drift
            .check_now(provenance, || self.list_for_drift())
            .await
    }
}

/// A result read as the runtime's type for `method`.
fn typed<R: serde::de::DeserializeOwned>(method: &str, result: Value) -> Result<R, Error> {
    serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            format!("{method} answered with a result this client cannot read"),
            e,
        )
    })
}
