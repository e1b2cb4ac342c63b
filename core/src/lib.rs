//! What every mcp-bindgen crate shares, in the manner of `serde_core` under `serde`: the small,
//! dependency-light pieces the runtime (clients, servers, the schema checks generated code
//! runs), the comparison (`mcp-bindgen-diff`) and the generator each need, written once.
//!
//! - [`pointer`](mod@pointer): JSON pointers (RFC 6901) and local `$ref`s.
//! - [`value`]: JSON values compared as JSON Schema compares them (`1` equals `1.0`).
//! - [`param_headers`]: a tool's `x-mcp-header` annotations (2026-07-28), read once for the
//!   client that writes `Mcp-Param-*` headers, the server that checks them and the generator
//!   that warns.
//! - [`recorded`]: how a generated module records the tools it was made from.
//! - [`digest`] (feature `digest`, on by default): a tool list's fingerprint.
//! - [`schema`](mod@schema) (feature `schema`): the JSON Schema checks generated clients run on
//!   arguments before sending them and servers run on what they receive, compiled once.
//! - [`skill`] (feature `skill`): Agent Skills' listing entries, `SKILL.md` frontmatter and
//!   the checks a client makes of the files it reads.
//! - [`stack`]: a big stack for deep recursion, shared by the comparison and the generator.
//!
//! Nothing here speaks the protocol or does I/O; applications use these through
//! `mcp-bindgen` and the generator, and rarely name this crate.

#![deny(missing_docs)]

#[cfg(feature = "digest")]
pub mod digest;
pub mod param_headers;
pub mod pointer;
pub mod recorded;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "skill")]
pub mod skill;
pub mod stack;
pub mod value;
