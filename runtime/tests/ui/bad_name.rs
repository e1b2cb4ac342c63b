use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(name = "run lua")]
struct Args {}

fn main() {}
