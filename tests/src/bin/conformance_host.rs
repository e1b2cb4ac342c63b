//! The fixture host the MCP conformance suite's server scenarios run against: the tools those
//! scenarios call, declared with `#[derive(McpTool)]` and served by `mcp_bindgen::Server` on
//! 127.0.0.1, polled once per ~1 ms "frame".
//!
//! `conformance_host [PORT]` prints `http://127.0.0.1:PORT/mcp` once it listens.

use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError, ToolResult};
use mcp_bindgen::{AudioContent, Content, EmbeddedResource, ImageContent, ResourceContents};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Map;

/// The host's state: calls served.
#[derive(Debug, Default)]
struct Host {
    calls: u64,
}

/// A 1x1 red pixel PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
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
        .register::<Add>();
    let mut server = match Server::listen(registry, port) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: cannot listen: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("http://127.0.0.1:{}/mcp", server.port());
    let mut host = Host::default();
    loop {
        if !server.poll(&mut host) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
