use mcp_bindgen::server::McpPrompt;
use schemars::JsonSchema;
use serde::Deserialize;

/// A prompt takes a name, a title and a description; behaviour hints are for tools.
#[derive(McpPrompt, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Briefing {
    goal: String,
}

/// The name rules are a tool's.
#[derive(McpPrompt, Deserialize, JsonSchema)]
#[mcp(name = "level briefing")]
struct Spaced {}

fn main() {}
