use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(task = "sometimes")]
struct Args {}

fn main() {}
