//! A stdio serve loop, for hosts their client spawns: newline-delimited JSON-RPC on stdin and
//! stdout (nothing else is written to stdout), until stdin closes.

use std::io::{BufRead, Write};

use super::Registry;

/// Serves `registry` over `input`/`output` until `input` ends; with `std::io::stdin().lock()`
/// and `std::io::stdout().lock()` this is the MCP stdio transport. Blank lines are skipped.
pub fn serve_stdio<Ctx>(
    registry: &mut Registry<Ctx>,
    ctx: &mut Ctx,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(reply) = registry.dispatch(ctx, &line) {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}
