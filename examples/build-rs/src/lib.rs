//! Example: an MCP client generated in build.rs with `mcp_bindgen_codegen::Builder`.
//!
//! `build.rs` reads `tools/time.tools.json` (a capture of the `mcp-server-time` server) and
//! writes `$OUT_DIR/time.rs`, which holds `pub mod time { .. }`:
//!
//! ```no_run
//! # async fn demo<C: mcp_bindgen::ToolCaller>(caller: C) -> Result<(), mcp_bindgen::Error> {
//! use mcp_bindgen_example_build::time;
//!
//! let client = time::Client::new(caller);
//! let now = client
//!     .get_current_time(&time::types::GetCurrentTimeArgs { timezone: "Europe/Paris".into() })
//!     .await?;
//! println!("{} ({})", now.datetime, now.day_of_week);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/time.rs"));
