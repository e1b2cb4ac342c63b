use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(read_only, destructive)]
struct Args {}

fn main() {}
