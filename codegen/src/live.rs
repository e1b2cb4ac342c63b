//! Capturing a live server's `tools/list` (the `mcp-bindgen capture` command): over Streamable
//! HTTP (`http://` or `https://`) or a child process's stdio, following `nextCursor`, keeping
//! each tool as the server sent it, and recording the server's name, version, the negotiated
//! protocol version and, when the server sent them, the list's caching hints (`ttlMs`,
//! `cacheScope`). The result is a capture that [`crate::capture`], `generate` and `regenerate`
//! read directly.

use std::path::PathBuf;
use std::time::Duration;

use mcp_bindgen::client::ToolList;
use mcp_bindgen::{HttpClient, Protocol, StdioClient};
use serde_json::{Map, Value};

/// The flags that say which live server to talk to and how: `--url` (with `--bearer-env`,
/// `--cacert`, `--allow-insecure-http`) or a stdio command after `--`, and `--protocol`,
/// `--client-capabilities`, `--timeout`. Flatten it into any subcommand that reaches a live
/// server (`#[command(flatten)]`).
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("server").args(["url", "command"])))]
pub struct LiveArgs {
    /// The server's Streamable HTTP endpoint (`https://example.com/mcp`,
    /// `http://127.0.0.1:7100/mcp`).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The environment variable holding a bearer token (never put it in the URL).
    #[arg(long, value_name = "VAR", requires = "url")]
    pub bearer_env: Option<String>,
    /// A PEM file of CA certificates to trust besides the system's (a private or test CA).
    #[arg(long, value_name = "FILE", requires = "url")]
    pub cacert: Option<PathBuf>,
    /// Send the bearer token over plain http:// to a host that is not loopback.
    #[arg(long, requires = "url")]
    pub allow_insecure_http: bool,
    /// The protocol: `auto` (modern if the server speaks it, else legacy), `modern`, `legacy`,
    /// or a version such as `2025-06-18`.
    #[arg(long, value_name = "auto|modern|legacy|VERSION", default_value = "auto",
          value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// Client capabilities to declare, as a JSON object (default `{}`).
    #[arg(long, value_name = "JSON", value_parser = parse_capabilities)]
    pub client_capabilities: Option<Value>,
    /// Seconds allowed for each request.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl Default for LiveArgs {
    /// No server, and the defaults of the flags (`--protocol auto`, `--timeout 60`).
    fn default() -> Self {
        LiveArgs {
            url: None,
            bearer_env: None,
            cacert: None,
            allow_insecure_http: false,
            protocol: Protocol::Auto,
            client_capabilities: None,
            timeout: 60,
            command: Vec::new(),
        }
    }
}

fn parse_protocol(text: &str) -> Result<Protocol, String> {
    match text {
        "auto" => Ok(Protocol::Auto),
        "modern" => Ok(Protocol::Modern),
        "legacy" => Ok(Protocol::Legacy),
        v if mcp_bindgen::era::is_modern(v) || mcp_bindgen::era::LEGACY_VERSIONS.contains(&v) => {
            Ok(Protocol::Version(v.to_owned()))
        }
        other => Err(format!(
            "`{other}` is not auto, modern, legacy or a protocol version this client speaks ({}, {})",
            mcp_bindgen::era::LEGACY_VERSIONS.join(", "),
            mcp_bindgen::era::MODERN_VERSIONS.join(", ")
        )),
    }
}

fn parse_capabilities(text: &str) -> Result<Value, String> {
    match serde_json::from_str(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err("takes a JSON object, e.g. '{\"sampling\": {}}'".to_owned()),
    }
}

impl LiveArgs {
    /// Whether a server was named (`--url`, or a command after `--`).
    pub fn given(&self) -> bool {
        self.url.is_some() || !self.command.is_empty()
    }

    /// The server, for messages: the URL, or the command line.
    pub fn server(&self) -> String {
        match &self.url {
            Some(url) => url.clone(),
            None => self.command.join(" "),
        }
    }

    /// The options these flags stand for: reads the bearer token's variable and the CA file.
    pub fn options(&self) -> Result<LiveOptions, String> {
        let mut options = LiveOptions {
            protocol: self.protocol.clone(),
            allow_insecure_http: self.allow_insecure_http,
            timeout: Duration::from_secs(self.timeout),
            ..LiveOptions::default()
        };
        if let Some(capabilities) = &self.client_capabilities {
            options.client_capabilities = capabilities.clone();
        }
        if let Some(var) = &self.bearer_env {
            match std::env::var(var) {
                Ok(token) if !token.is_empty() => options.bearer_token = Some(token),
                _ => {
                    return Err(format!(
                        "--bearer-env {var}: the environment variable {var} is not set"
                    ));
                }
            }
        }
        if let Some(path) = &self.cacert {
            let pem =
                std::fs::read(path).map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            options.root_certificates.push(pem);
        }
        Ok(options)
    }

    /// Captures the server these flags name, with `options` (from [`LiveArgs::options`]).
    pub async fn capture(&self, options: &LiveOptions) -> Result<Value, mcp_bindgen::Error> {
        match (&self.url, self.command.split_first()) {
            (Some(url), _) => capture_http(url, options).await,
            (None, Some((program, args))) => capture_stdio(program, args, options).await,
            (None, None) => Err(mcp_bindgen::Error::transport(
                "give --url URL, or the server command after --",
            )),
        }
    }
}

/// How to reach a server, and how long to wait.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LiveOptions {
    /// Capabilities to declare (some servers list more tools for clients that declare more,
    /// e.g. `{"sampling": {}}`).
    pub client_capabilities: Value,
    /// Bearer token for HTTP servers.
    pub bearer_token: Option<String>,
    /// PEM texts of CA certificates to trust besides the system's.
    pub root_certificates: Vec<Vec<u8>>,
    /// Send the bearer token over plain http:// to a host that is not loopback.
    pub allow_insecure_http: bool,
    /// The protocol era or version.
    pub protocol: Protocol,
    /// Time allowed for each request.
    pub timeout: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            client_capabilities: Value::Object(Map::new()),
            bearer_token: None,
            root_certificates: Vec::new(),
            allow_insecure_http: false,
            protocol: Protocol::Auto,
            timeout: Duration::from_secs(60),
        }
    }
}

/// A capture document: `{"protocolVersion", "serverInfo", "ttlMs"?, "cacheScope"?, "tools"}`.
fn document(version: Option<String>, server: Value, list: ToolList) -> Value {
    let mut capture = Map::new();
    if let Some(version) = version {
        capture.insert("protocolVersion".into(), Value::String(version));
    }
    if !server.is_null() {
        capture.insert("serverInfo".into(), server);
    }
    if let Some(ttl) = list.ttl_ms {
        capture.insert("ttlMs".into(), ttl.into());
    }
    if let Some(scope) = list.cache_scope {
        capture.insert("cacheScope".into(), Value::String(scope));
    }
    capture.insert("tools".into(), Value::Array(list.tools));
    Value::Object(capture)
}

/// Captures the Streamable HTTP server at `url`.
pub async fn capture_http(url: &str, options: &LiveOptions) -> Result<Value, mcp_bindgen::Error> {
    let mut builder = HttpClient::builder(url)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .protocol(options.protocol.clone())
        .timeout(options.timeout);
    if let Some(token) = &options.bearer_token {
        builder = builder.bearer_token(token.clone());
    }
    for pem in &options.root_certificates {
        builder = builder.add_root_certificate(pem);
    }
    if options.allow_insecure_http {
        builder = builder.allow_insecure_http();
    }
    let client = builder.connect().await?;
    let list = client.tool_list().await?;
    for (tool, reason) in &list.rejected {
        eprintln!("warning: {url}: tool {tool} left out: {reason}");
    }
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        list,
    ))
}

/// Captures the stdio server started by `program args...` (ended afterwards).
pub async fn capture_stdio(
    program: &str,
    args: &[String],
    options: &LiveOptions,
) -> Result<Value, mcp_bindgen::Error> {
    let mut command = std::process::Command::new(program);
    command.args(args);
    let client = StdioClient::builder(command)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .protocol(options.protocol.clone())
        .timeout(options.timeout)
        .spawn()
        .await?;
    let list = client.tool_list().await?;
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        list,
    ))
}
