//! Runtime for [mcp-bindgen](https://github.com/mcp-bindgen/mcp-bindgen): what generated MCP
//! clients (and the games that host MCP tools) link.
//!
//! Generated code talks to a server through one seam, the [`ToolCaller`] trait: an async
//! `call_tool(name, arguments)`. A generated module holds one [`ToolDescriptor`] per tool (its
//! name and input schema), and each of its methods is one call of that descriptor, which takes
//! three steps over the seam, each a function of this crate that you can also call by hand:
//!
//! 1. [`encode_arguments`] serialises the typed arguments and checks them against the tool's
//!    input schema ([`ToolSchema`]), so a value the server would refuse (an integer over its
//!    `maximum`, a string that misses its `pattern`) fails here, before anything is sent.
//! 2. [`call_checked`] calls the tool and turns `isError: true` into [`Error::Tool`].
//! 3. [`decode_result`] applies the envelope rules and deserialises the value into the result
//!    type, reporting the JSON path of the first field that does not fit.
//!
//! The typed methods ([`ToolDescriptor::call`]) take steps 2 and 3 in one,
//! [`ToolCaller::call_tool_decoded`]: by default `call_tool` then `decode_result`, while the
//! client transports decode the result type straight from the response's bytes (same rules,
//! same errors). The `_raw` methods ([`ToolDescriptor::call_raw`]) are steps 1 and 2. Between
//! steps 1 and 2, the caller's drift guard checks the tool against the server's list
//! ([`ToolCaller::check_tool`], see [`drift`]).
//!
//! The envelope rules, in order (applied by [`decode_result`]):
//!
//! 1. A transport failure or JSON-RPC error is [`Error::Transport`] / [`Error::Protocol`].
//! 2. `isError: true` is [`Error::Tool`]; its message and code come from an `{ error, code? }`
//!    object in `structuredContent` or in the text block, else from the joined text.
//! 3. The value is `structuredContent` when present; else one text block parsed as JSON (the raw
//!    text when it is not JSON); several text blocks joined with newlines; non-text blocks are
//!    ignored.
//! 4. The value is deserialised into the result type; a mismatch is [`Error::Decode`].
//!
//! The protocol types here ([`CallToolResult`], [`Content`]) are deliberately lenient: unknown
//! fields are kept, and an unknown content block type is kept as raw JSON instead of failing
//! the whole result.
//!
//! # Testing without the server
//!
//! Three test doubles stand where a server would, each a [`ToolCaller`], for three jobs:
//!
//! - [`fake`]: the typed one. A generated module's `Fake` trait (one method per tool, typed
//!   arguments in, typed result out) made a `ToolCaller` by its `Faked` adapter, which checks
//!   arguments and results against the schemas the server listed: for unit tests of an agent's
//!   logic, written in Rust.
//! - [`cassette`]: the recorded one. A [`cassette::Recorder`] wraps a real client and writes
//!   each call and its outcome; a [`cassette::Replayer`] answers from the file: for tests that
//!   replay what the real server once said.
//! - [`mock`]: the untyped one. A [`mock::MockCaller`] records every call and answers from a
//!   script of results: for testing code that takes any `ToolCaller`, such as the runtime's
//!   own wrappers.
//!
//! # Features
//!
//! - `client`: `HttpClient` and `StdioClient`, in both protocol eras.
//! - `server`: `#[derive(McpTool)]`, the tool `server::Registry` and the frame-polled
//!   loopback `server::Server`.
//! - `oauth`: signing in where a server asks for OAuth 2.1 (implies `client`).
//! - `tracing`: a span per client request (`mcp_request`, with `mcp_connect` for the
//!   negotiation) and per tool call served (`mcp_tool_call`), and events for fallbacks,
//!   retries, cancellations, drift reports, refused requests, connection-cap decisions and
//!   crash mode. Arguments and results only at `TRACE`; credentials never. Without the feature
//!   no tracing code is compiled in.

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs of what every build has link to the clients (`HttpClient`, `StdioClient`, ...),
// which only the `client` feature compiles: without it those links show as plain names.
#![cfg_attr(not(feature = "client"), allow(rustdoc::broken_intra_doc_links))]

mod caller;
pub mod cassette;
mod descriptor;
pub mod drift;
mod envelope;
pub mod era;
pub mod events;
/// Agent Skills' listings (the `io.modelcontextprotocol/skills` extension): entries, files with
/// their digests, `SKILL.md` frontmatter, and what a client checks. A server serves skills with
/// `server::Skill`; a client reads them with `client::McpClient::load_skill`.
#[cfg(any(feature = "client", feature = "server"))]
pub mod skill {
    pub use mcp_bindgen_core::skill::*;
}
mod error;
pub mod fake;
#[cfg(any(feature = "client", feature = "server"))]
mod loopback;
pub mod mock;
mod protocol;
use mcp_bindgen_core::schema;
mod task;
#[cfg(feature = "tracing")]
mod trace;
pub mod uri_template;

pub use caller::ToolCaller;
pub use descriptor::{NoArguments, SkillRef, ToolDescriptor};
pub use drift::{DriftPolicy, DriftReport, Provenance};
pub use envelope::{ToolError, call_checked, decode_result, encode_arguments};
pub use error::Error;
pub use protocol::{
    AudioContent, CallToolResult, Completion, CompletionRef, Content, EmbeddedResource,
    GetPromptResult, ImageContent, PromptMessage, ReadResourceResult, ResourceContents,
    ResourceLink, Role, TextContent,
};
pub(crate) use schema::CompiledSchema;
#[cfg(feature = "server")]
pub(crate) use schema::JsonTree;
pub use schema::{ToolSchema, Violation};
pub use task::{TaskHandle, TaskState, TaskStatus};

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "client")]
pub use client::{CallOptions, HttpClient, Protocol, StdioClient};
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub use server::{Handler, McpTool, Registry, Server};

mod support;

/// What generated code reaches through this crate: the crates it names (so that a crate
/// holding generated bindings needs only `mcp-bindgen`, `serde` and `serde_json` as
/// dependencies), its conversion error, serde helpers and default values; and what this
/// repository's tests and benches measure the runtime with (the schema engine, the envelope
/// rules, a response decoder).
///
/// Not part of the stable API: use the crates directly in your own code.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "client")]
    pub use crate::client::decode::decode_tool_response;
    pub use crate::envelope::{envelope_value, tool_failure};
    pub use crate::schema::{CompiledSchema, JsonTree, validate_value};
    pub use crate::support::*;
}
