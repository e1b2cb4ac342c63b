//! The stdio client transport: spawns the server, speaks newline-delimited JSON-RPC on its
//! stdin/stdout, passes its stderr through, and ends it when the client is dropped.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::http_client::PROTOCOL_VERSION;
use crate::{CallToolResult, Error, ToolCaller};

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Settings for [`StdioClient::spawn`].
#[derive(Debug)]
pub struct StdioClientBuilder {
    command: Command,
    client_name: String,
    client_version: String,
    capabilities: Value,
    timeout: Duration,
}

impl StdioClientBuilder {
    /// The `clientInfo` sent in `initialize` (default: this crate's name and version).
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_name = name.into();
        self.client_version = version.into();
        self
    }

    /// The client capabilities sent in `initialize` (default `{}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// How long one request may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Starts the server and runs `initialize` / `notifications/initialized`.
    pub async fn spawn(mut self) -> Result<StdioClient, Error> {
        let program = self
            .command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::transport_source(format!("could not start {program}"), e))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| Error::transport("the server's stdin is not available"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::transport("the server's stdout is not available"))?;
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        let reader = tokio::spawn(read_loop(stdout, pending.clone(), stdin.clone()));
        let client = StdioClient {
            inner: Arc::new(Inner {
                stdin,
                pending,
                next_id: AtomicU64::new(1),
                timeout: self.timeout,
                reader,
                child: Mutex::new(child),
                negotiated: Mutex::new(None),
                server_info: Mutex::new(Value::Null),
            }),
        };
        let result = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": self.capabilities,
                    "clientInfo": {"name": self.client_name, "version": self.client_version},
                }),
            )
            .await?;
        *lock(&client.inner.negotiated) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        *lock(&client.inner.server_info) = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        client
            .write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(client)
    }
}

/// An MCP client over a child process's stdio; a [`ToolCaller`]. The child is ended when the
/// last clone is dropped.
#[derive(Debug, Clone)]
pub struct StdioClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    pending: Pending,
    next_id: AtomicU64,
    timeout: Duration,
    reader: JoinHandle<()>,
    child: Mutex<Child>,
    negotiated: Mutex<Option<String>>,
    server_info: Mutex<Value>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.reader.abort();
        let _ = lock(&self.child).start_kill();
    }
}

impl StdioClient {
    /// Settings for running `command` (`Command::new("npx").arg(..)`).
    pub fn builder(command: Command) -> StdioClientBuilder {
        StdioClientBuilder {
            command,
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            capabilities: json!({}),
            timeout: Duration::from_secs(30),
        }
    }

    /// Starts `command` with the default settings.
    pub async fn spawn(command: Command) -> Result<Self, Error> {
        StdioClient::builder(command).spawn().await
    }

    /// The protocol version the server chose.
    pub fn protocol_version(&self) -> Option<String> {
        lock(&self.inner.negotiated).clone()
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Value {
        lock(&self.inner.server_info).clone()
    }

    /// `tools/list`, every page, as the server sent the tools.
    pub async fn list_tools(&self) -> Result<Vec<Value>, Error> {
        crate::http_client::list_pages(|params| self.request("tools/list", params)).await
    }

    async fn write(&self, message: &Value) -> Result<(), Error> {
        let mut line = message.to_string();
        line.push('\n');
        let mut stdin = self.inner.stdin.lock().await;
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| Error::transport_source("could not write to the server", e))?;
        stdin
            .flush()
            .await
            .map_err(|e| Error::transport_source("could not write to the server", e))
    }

    /// Sends one JSON-RPC request and returns its `result`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.inner.pending).insert(id, tx);
        if let Err(e) = self
            .write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
        {
            lock(&self.inner.pending).remove(&id);
            return Err(e);
        }
        let timeout = self.inner.timeout;
        let answer = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => {
                return Err(Error::transport(format!(
                    "{method}: the server closed its output before answering"
                )));
            }
            Err(_) => {
                lock(&self.inner.pending).remove(&id);
                return Err(Error::transport(format!(
                    "{method} timed out after {timeout:?}"
                )));
            }
        };
        crate::http_client::response_result(method, answer)
    }
}

/// Routes responses to their requests; answers the server's own requests (`ping` with `{}`,
/// anything else "method not found"); skips notifications and lines that are not JSON.
async fn read_loop(
    stdout: tokio::process::ChildStdout,
    pending: Pending,
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned();
        if message.get("method").is_some() {
            if let Some(id) = id {
                let reply = if message["method"] == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
                };
                let mut stdin = stdin.lock().await;
                let _ = stdin.write_all(format!("{reply}\n").as_bytes()).await;
                let _ = stdin.flush().await;
            }
            continue;
        }
        if let Some(id) = id.as_ref().and_then(Value::as_u64)
            && let Some(tx) = lock(&pending).remove(&id)
        {
            let _ = tx.send(message);
        }
    }
    // The server is gone: every waiting request fails now rather than at its timeout.
    lock(&pending).clear();
}

impl ToolCaller for StdioClient {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        crate::http_client::call_tool_result(result)
    }
}
