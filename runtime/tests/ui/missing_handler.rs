use mcp_bindgen::server::{McpTool, Registry};

struct Game;

#[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
struct PlacedCount {}

fn main() {
    let mut registry = Registry::<Game>::new("game", "1.0");
    registry.register::<PlacedCount>();
}
