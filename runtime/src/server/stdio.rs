//! A stdio serve loop, for hosts their client spawns: newline-delimited JSON-RPC on stdin and
//! stdout (nothing else is written to stdout), until stdin closes.

use std::io::{BufRead, Write};

use super::Registry;
use super::announce::InBand;

/// Serves `registry` over `input`/`output` until `input` ends; with `std::io::stdin().lock()`
/// and `std::io::stdout().lock()` this is the MCP stdio transport. Blank lines are skipped.
/// Both protocol eras are answered, as by [`Registry::dispatch`]; the progress and log
/// notifications a call asked for are written as lines before its answer. Calls a
/// [`super::CallHandler`] defers to a later frame fail (no frame runs here): serve those tools
/// with `Server`.
///
/// Changes to the tools (made by handlers through a [`super::Registrar`]) are announced after
/// the message that made them: to a legacy-era client as `notifications/tools/list_changed`, and
/// in 2026-07-28 on each open `subscriptions/listen` request that asked for them (ended by the
/// client's `notifications/cancelled`).
///
/// An `events/stream` (2026-07-28 events extension) is written here too: its `active` as the
/// request's answer, then, after each message, the occurrences emitted since, until the
/// client's `notifications/cancelled`. Occurrences emitted while no message arrives wait in the
/// type's buffer for the next one, and no heartbeat is sent (nothing runs between messages):
/// serve games whose agents stream events with `Server`.
pub fn serve_stdio<Ctx>(
    registry: &mut Registry<Ctx>,
    ctx: &mut Ctx,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut listening = InBand::default();
    // Registered before anyone connected: nothing to announce.
    registry.announce_with(|_| {});
    for line in input.split(b'\n') {
        let line = line?;
        if line.trim_ascii().is_empty() {
            continue;
        }
        let mut failed = None;
        let reply = registry.dispatch_with(
            ctx,
            &line,
            true,
            |note| {
                if failed.is_none()
                    && let Err(e) = writeln!(output, "{note}")
                {
                    failed = Some(e);
                }
            },
            Some(&mut listening),
        );
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(reply) = reply {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
        }
        let mut events = Vec::new();
        registry.announce_with(|announced| events = listening.events(announced));
        events.extend(listening.events.lines(&registry.events));
        for event in events {
            output.write_all(event.as_bytes())?;
            output.write_all(b"\n")?;
        }
        output.flush()?;
    }
    Ok(())
}
