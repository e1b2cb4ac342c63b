use mcp_bindgen::server::{McpPrompt, McpTool};

// A typo in the attribute is the one error: the struct's uses below add none.
#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
#[mcp(readonly)]
struct Args {}

#[derive(McpPrompt, serde::Deserialize, schemars::JsonSchema)]
#[mcp(destructive)]
struct Briefing {}

fn tool<T: McpTool>() {}
fn prompt<T: McpPrompt>() {}

fn main() {
    tool::<Args>();
    prompt::<Briefing>();
}
