//! The mcp-bindgen generator: a captured MCP `tools/list` in, a typed Rust client out; and
//! agent-contract TypeScript declarations (`.d.ts`) in, result types out (see
//! [`ServerConfig::contracts`] and [`ServerConfig::results`]).
//!
//! Four ways in, all on this crate:
//!
//! - **build.rs**: [`Builder`] writes modules into `OUT_DIR` for `include!`.
//! - **a checked-in crate**: `mcp-bindgen regenerate` reads a `bindings.toml`
//!   ([`manifest`]) and rewrites the crate's sources; `--check` fails on drift.
//! - **one file**: `mcp-bindgen generate --tools capture.json -o client.rs`.
//! - **a macro**: `mcp_bindgen_include::include_tools!("tools/server.tools.json")`.
//!
//! All four share [`ServerConfig`] (what to generate for one server) and [`Generator`]. To
//! generate large inputs faster, generate and render inside [`on_generator_stack`].
//!
//! ```no_run
//! use mcp_bindgen_codegen::{Generator, ServerConfig};
//!
//! let config = ServerConfig::new("saving_throw", "captures/saving_throw.tools.json")
//!     .with_rename("list_runs", "runs");
//! let module = Generator::new().generate(&config)?;
//! for warning in &module.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! std::fs::write("src/saving_throw.rs", module.to_module_file("mcp-bindgen regenerate"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The ways in and what they share.
mod builder;
mod config;
mod error;
mod generate;
pub mod manifest;
mod module;

// The stages (ARCHITECTURE.md, "The generator"), run in order by `generate`: `capture` and
// `contracts` read the inputs, `plan` decides each tool's method, `signature` how it is typed
// (through `normalise`, which rewrites schemas for typify), `types` runs typify, `signature`
// settles what failed, `emit` writes the module.
pub mod capture;
mod catalog;
mod contracts;
mod emit;
mod events;
mod normalise;
mod plan;
mod signature;
mod types;

// What the stages share.
mod diagnostic;
mod dialect;
mod docs;
mod fault;
mod handoff;
mod imports;
mod literal;
pub mod model;
mod naming;

// Comparing and capturing servers.
pub mod diff;

pub use builder::Builder;
pub use config::ServerConfig;
pub use diagnostic::{Diagnostic, LineCol, Warning};
pub use error::Error;
#[cfg(feature = "fault-injection")]
#[doc(hidden)]
pub use fault::{Fault, Stage};
pub use generate::{Generator, on_generator_stack};
pub use module::Module;
