use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(readonly)]
struct Args {}

fn main() {}
