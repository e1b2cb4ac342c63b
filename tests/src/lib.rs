//! End-to-end tests of mcp-bindgen (in `tests/`), and the generated snapshots, compiled here so
//! that every snapshot is proven to build (see `tests/snapshots.rs`).

/// A small game's tools, for the typed fakes' tests (`tests/fakes.rs`).
#[rustfmt::skip]
#[path = "../snapshots/arena.rs"]
pub mod arena;

#[rustfmt::skip]
#[path = "../snapshots/catalog.rs"]
pub mod catalog;

/// A game's tools and event types (the Events extension): the module generated from a capture
/// of [`skirmish`]'s server.
#[rustfmt::skip]
#[path = "../snapshots/events.rs"]
pub mod events;

pub mod skirmish;

#[rustfmt::skip]
#[path = "../snapshots/edge_cases.rs"]
pub mod edge_cases;

#[rustfmt::skip]
#[path = "../snapshots/hostile.rs"]
pub mod hostile;

#[rustfmt::skip]
#[path = "../snapshots/idioms.rs"]
pub mod idioms;

#[rustfmt::skip]
#[path = "../snapshots/shared_ids.rs"]
pub mod shared_ids;

#[rustfmt::skip]
#[path = "../snapshots/everything.rs"]
pub mod everything;

#[rustfmt::skip]
#[path = "../snapshots/fetch.rs"]
pub mod fetch;

#[rustfmt::skip]
#[path = "../snapshots/filesystem.rs"]
pub mod filesystem;

#[rustfmt::skip]
#[path = "../snapshots/git.rs"]
pub mod git;

#[rustfmt::skip]
#[path = "../snapshots/memory.rs"]
pub mod memory;

#[rustfmt::skip]
#[path = "../snapshots/sequential_thinking.rs"]
pub mod sequential_thinking;

#[rustfmt::skip]
#[path = "../snapshots/time.rs"]
pub mod time;

/// The official TypeScript SDK v2 server of the interop tests (`interop/ts_tls_server.mjs`),
/// captured over HTTPS (`fixtures/captures/peers/`).
#[rustfmt::skip]
#[path = "../snapshots/ts_v2_tls.rs"]
pub mod ts_v2_tls;

/// The Python `mcp` 2.3.0 server of the interop tests (`interop/py_tls_server.py`), captured
/// over HTTPS (`fixtures/captures/peers/`).
#[rustfmt::skip]
#[path = "../snapshots/py_tls.rs"]
pub mod py_tls;

/// The time capture with `convert_time` made to fail at each stage of the generator
/// (`tests/snapshots.rs`): each still compiles.
#[rustfmt::skip]
#[path = "../snapshots/forced/forced_normalise.rs"]
pub mod forced_normalise;

#[rustfmt::skip]
#[path = "../snapshots/forced/forced_typify.rs"]
pub mod forced_typify;

#[rustfmt::skip]
#[path = "../snapshots/forced/forced_render.rs"]
pub mod forced_render;

#[rustfmt::skip]
#[path = "../snapshots/forced/forced_post_pass.rs"]
pub mod forced_post_pass;

#[rustfmt::skip]
#[path = "../snapshots/forced/forced_output.rs"]
pub mod forced_output;

/// Modules generated from the agent-contract snippets of `tests/contracts.rs`, one per mapping
/// rule.
#[path = "../snapshots/contracts/mod.rs"]
pub mod contracts;

/// Modules generated from published npm declaration files (see `tests/npm_contracts.rs`).
#[path = "../snapshots/npm/mod.rs"]
pub mod npm;

/// Modules generated from the corpus of real servers' captures (see `tests/corpus.rs`): 23
/// servers, 63,000 lines. They are checked by clippy (`cargo clippy --workspace --all-targets
/// -- -D warnings`, as CI runs it) and left out of test builds, where their code generation
/// would add minutes and no test uses them.
#[cfg(clippy)]
#[path = "../snapshots/corpus/mod.rs"]
pub mod corpus;
