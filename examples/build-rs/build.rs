//! Generates the `time` client from a captured `tools/list` at build time.

use mcp_bindgen_codegen::{Builder, ServerConfig};

fn main() {
    let result = Builder::new()
        .server(ServerConfig::new("time", "tools/time.tools.json").with_name("Time"))
        .generate();
    if let Err(e) = result {
        // A located message (file:line:column, the line, what to do), not a backtrace.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
