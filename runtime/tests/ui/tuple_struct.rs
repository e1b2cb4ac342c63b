use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
struct Args(u32, String);

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
struct Unit;

fn main() {}
