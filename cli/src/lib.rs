//! The `mcp-bindgen` command line, as a library: [`main`] parses the process's arguments and
//! runs the command (`capture`, `generate`, `regenerate`, `diff`; `mcp-bindgen --help` lists
//! them), and [`live`] captures a running server's lists, over Streamable HTTP or stdio.
//!
//! The generator itself is the `mcp-bindgen-codegen` crate, which a `build.rs` uses without
//! any of this crate's dependencies (clap, the runtime's client transports, OAuth).

#![deny(missing_docs)]

mod commands;
mod console;
pub mod live;

pub use commands::main;
