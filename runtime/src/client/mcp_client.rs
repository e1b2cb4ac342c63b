//! The client, written once for every transport: what an application asks of a connection
//! (its negotiated version and the server's declarations, requests, tool calls) and its
//! [`ToolCaller`] for generated modules, each a call into the session's engine.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::session::{self, Connection};
use super::{CallOptions, LogHandler, ToolList, Transport, changes};
use crate::drift::{DriftReport, Provenance};
use crate::{CallToolResult, Error, ToolCaller};

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

    async fn check_tool(&self, provenance: &'static Provenance, tool: &str) -> Result<(), Error> {
        let peer = || self.conn.transport.peer();
        self.conn
            .session
            .drift
            .check_tool(provenance, tool, peer, || self.list_for_drift())
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
