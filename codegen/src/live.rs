//! Capturing a live server's `tools/list` (the `mcp-bindgen capture` command): over Streamable
//! HTTP or a child process's stdio, following `nextCursor`, keeping each tool as the server
//! sent it, and recording the server's name, version and the negotiated protocol version. The
//! result is a capture that [`crate::capture`], `generate` and `regenerate` read directly.

use std::time::Duration;

use mcp_bindgen::{HttpClient, StdioClient};
use serde_json::{Map, Value};

/// What to send in `initialize`, and how long to wait.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// `capabilities` sent in `initialize` (some servers list more tools for clients that
    /// declare more, e.g. `{"sampling": {}}`).
    pub client_capabilities: Value,
    /// Bearer token for HTTP servers.
    pub bearer_token: Option<String>,
    /// Time allowed for each request.
    pub timeout: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            client_capabilities: Value::Object(Map::new()),
            bearer_token: None,
            timeout: Duration::from_secs(60),
        }
    }
}

/// A capture document: `{"protocolVersion", "serverInfo", "tools"}`.
fn document(version: Option<String>, server: Value, tools: Vec<Value>) -> Value {
    let mut capture = Map::new();
    capture.insert(
        "protocolVersion".into(),
        version.map_or(Value::Null, Value::String),
    );
    capture.insert("serverInfo".into(), server);
    capture.insert("tools".into(), Value::Array(tools));
    Value::Object(capture)
}

/// Captures the Streamable HTTP server at `url`.
pub async fn capture_http(url: &str, options: &LiveOptions) -> Result<Value, mcp_bindgen::Error> {
    let mut builder = HttpClient::builder(url)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .timeout(options.timeout);
    if let Some(token) = &options.bearer_token {
        builder = builder.bearer_token(token.clone());
    }
    let client = builder.connect().await?;
    let tools = client.list_tools().await?;
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        tools,
    ))
}

/// Captures the stdio server started by `program args...` (ended afterwards).
pub async fn capture_stdio(
    program: &str,
    args: &[String],
    options: &LiveOptions,
) -> Result<Value, mcp_bindgen::Error> {
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let client = StdioClient::builder(command)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .timeout(options.timeout)
        .spawn()
        .await?;
    let tools = client.list_tools().await?;
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        tools,
    ))
}
