//! Being a server: tool records declared with `#[derive(McpTool)]`, a [`Registry`] that
//! answers JSON-RPC, and a [`Server`] on loopback that the game polls once per frame.
//!
//! ```
//! use mcp_bindgen::server::{Handler, McpTool, Registry, ToolError};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! struct Game { placed: u32 }
//!
//! /// Count entities that carry a Transform2D
//! #[derive(McpTool, Deserialize, JsonSchema)]
//! #[mcp(read_only)]
//! struct PlacedCount {}
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Count { count: u32 }
//!
//! impl Handler<Game> for PlacedCount {
//!     type Output = Count;
//!     fn call(self, game: &mut Game) -> Result<Count, ToolError> {
//!         Ok(Count { count: game.placed })
//!     }
//! }
//!
//! let mut registry = Registry::new("my-game", "1.0.0");
//! registry.register::<PlacedCount>();
//! let mut game = Game { placed: 3 };
//! let reply = registry.dispatch(
//!     &mut game,
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"placed_count"}}"#,
//! );
//! assert!(reply.unwrap().contains(r#""structuredContent":{"count":3}"#));
//! ```

mod announce;
mod deferred;
mod events;
mod game;
mod http;
mod input;
mod owner;
mod prompts;
mod protected;
mod registrar;
mod registry;
mod resources;
mod schema;
mod skills;
mod stdio;
mod tasks;
mod tool;
mod wire;

pub use crate::CompletionRef;
pub use crate::ToolError;
pub use crate::era::LogLevel;
pub use crate::events::Delivery;
pub use deferred::{Call, ClientRequest};
pub use events::{Emitter, EventType};
pub use game::{PollStats, Server};
pub use http::ServerBuilder;
pub use input::{Input, InputRequired, Outcome};
pub use mcp_bindgen_macro::{McpPrompt, McpTool};
pub use prompts::{McpPrompt, PromptArgument, PromptDefinition, PromptHandler};
pub use protected::ProtectedResource;
pub use registrar::Registrar;
pub use registry::Registry;
pub use resources::{ResourceDefinition, TemplateDefinition, complete_from};
pub use schema::{input_schema, output_schema};
/// The schemars version the derive's schemas come from.
pub use schemars;
pub use skills::{Skill, SkillError};
pub use stdio::serve_stdio;
pub use tool::{
    Annotations, Answer, CallHandler, Handler, InteractiveHandler, McpTool, TaskSupport,
    ToolDefinition, ToolOutput, ToolResult,
};
