use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(name = 5)]
struct Args {}

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(read_only = "yes")]
struct Other {}

fn main() {}
