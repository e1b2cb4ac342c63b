use mcp_bindgen::server::McpTool;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
enum Args {
    A,
    B,
}

fn main() {}
