//! What the command line prints besides its results: warnings, silenced by `-q`, and a
//! progress line for long steps. Its own module so that the commands (`cli`) and the live
//! capture (`live`) share it without depending on each other.
//!
//! The progress line is a spinner on stderr with what is happening and for how long
//! (`⠙ listing the tools of https://… (4 s)`), shown only when stderr is a terminal (never in a
//! pipe, a file or CI logs), not with `-q`, not with `TERM=dumb`, and only for a step that
//! has run a quarter of a second: a fast command prints exactly what it printed without it.
//! Warnings and log lines clear it before they print, and it is gone when the step ends.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Whether `-q` was given: warnings and progress are not printed.
static QUIET: AtomicBool = AtomicBool::new(false);

/// The progress line, while a step runs.
static LINE: Mutex<Option<Line>> = Mutex::new(None);

/// How often the spinner turns.
const TICK: Duration = Duration::from_millis(100);

/// How long a step runs before its line appears.
const DELAY: Duration = Duration::from_millis(250);

/// The longest message shown, in characters: a line that wraps cannot be cleared.
const WIDTH: usize = 72;

/// The spinner's frames.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

struct Line {
    message: String,
    started: Instant,
    frame: usize,
    drawn: bool,
}

fn line() -> MutexGuard<'static, Option<Line>> {
    LINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// `-q`: from now on, warnings and progress are not printed.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints a warning on stderr, unless `-q`.
pub(crate) fn warn(message: impl std::fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        let mut line = line();
        clear(&mut line);
        eprintln!("warning: {message}");
    }
}

/// Whether a progress line may be drawn: stderr is a terminal that is not `dumb`, and no `-q`.
fn enabled(terminal: bool, quiet: bool, term: Option<&str>) -> bool {
    terminal && !quiet && term != Some("dumb")
}

/// The text of the progress line (without the leading carriage return and erase).
fn render(frame: usize, message: &str, elapsed: Duration) -> String {
    let mut shown: String = message.chars().take(WIDTH).collect();
    if message.chars().nth(WIDTH).is_some() {
        shown.pop();
        shown.push('…');
    }
    format!(
        "{} {shown} ({} s)",
        FRAMES[frame % FRAMES.len()],
        elapsed.as_secs()
    )
}

/// Erases a drawn progress line (the next tick draws it again).
fn clear(line: &mut Option<Line>) {
    if let Some(line) = line.as_mut().filter(|l| l.drawn) {
        eprint!("\r\x1b[2K");
        line.drawn = false;
    }
}

/// A long step's progress line; it is erased when this is dropped.
#[must_use = "the progress line ends when this is dropped"]
pub(crate) struct Progress {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Starts a progress line saying `message` (when [`enabled`]); it ends when the returned
/// value is dropped. One step at a time: a step started inside another replaces its message.
pub(crate) fn progress(message: impl Into<String>) -> Progress {
    let on = enabled(
        std::io::stderr().is_terminal(),
        QUIET.load(Ordering::Relaxed),
        std::env::var("TERM").ok().as_deref(),
    );
    start(on, message.into())
}

fn start(on: bool, message: String) -> Progress {
    let mut current = line();
    if !on || current.is_some() {
        if let Some(line) = current.as_mut() {
            line.message = message;
        }
        return Progress {
            stop: None,
            thread: None,
        };
    }
    *current = Some(Line {
        message,
        started: Instant::now(),
        frame: 0,
        drawn: false,
    });
    drop(current);
    let (stop, stopped) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("mcp-bindgen-progress".into())
        .spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                draw();
            }
        })
        .ok();
    Progress {
        stop: Some(stop),
        thread,
    }
}

/// Says what the current step is doing now (nothing without a progress line).
pub(crate) fn status(message: impl Into<String>) {
    if let Some(line) = line().as_mut() {
        line.message = message.into();
    }
}

fn draw() {
    let mut guard = line();
    let Some(line) = guard.as_mut() else { return };
    let elapsed = line.started.elapsed();
    if elapsed < DELAY {
        return;
    }
    line.frame += 1;
    let text = render(line.frame, &line.message, elapsed);
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "\r\x1b[2K{text}");
    let _ = stderr.flush();
    line.drawn = true;
}

impl Drop for Progress {
    fn drop(&mut self) {
        let Some(stop) = self.stop.take() else { return };
        drop(stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut line = line();
        clear(&mut line);
        *line = None;
    }
}

/// Stderr for log lines: erases the progress line before writing, so that a log line never
/// lands after a spinner's text.
pub(crate) struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut line = line();
        clear(&mut line);
        std::io::stderr().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// `n` and the noun, singular for one: `1 tool`, `3 tools`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Writes `text` to `output`, or to stdout when `output` is `-` (as bindgen does).
pub(crate) fn write_output(
    output: &std::path::Path,
    text: &str,
) -> Result<(), mcp_bindgen_codegen::Error> {
    if output == std::path::Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| mcp_bindgen_codegen::Error::Io {
                path: output.to_path_buf(),
                source,
            });
    }
    std::fs::write(output, text).map_err(|source| mcp_bindgen_codegen::Error::Io {
        path: output.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_drawn_only_on_a_terminal_without_quiet() {
        assert!(enabled(true, false, Some("xterm-256color")));
        assert!(enabled(true, false, None));
        assert!(!enabled(false, false, Some("xterm")), "a pipe or a file");
        assert!(!enabled(true, true, Some("xterm")), "-q");
        assert!(!enabled(true, false, Some("dumb")));
    }

    #[test]
    fn the_line_says_what_runs_and_for_how_long_and_never_wraps() {
        assert_eq!(
            render(
                1,
                "listing the tools of http://127.0.0.1:7100/mcp",
                Duration::from_millis(4_200)
            ),
            "⠙ listing the tools of http://127.0.0.1:7100/mcp (4 s)"
        );
        let long = "x".repeat(200);
        let text = render(0, &long, Duration::ZERO);
        assert_eq!(text.chars().count(), 2 + WIDTH + " (0 s)".len());
        assert!(text.contains("x…"), "{text}");
    }

    #[test]
    fn a_step_keeps_its_line_while_it_runs_and_leaves_nothing_behind() {
        // Off (a pipe, a file, -q): no line and no thread.
        let step = start(false, "generating".into());
        assert!(step.thread.is_none() && step.stop.is_none());
        status("still generating");
        assert!(line().is_none());
        drop(step);
        // On: the message is the latest status, an inner step only renames it, and the
        // line is gone when the step ends (dropped before the delay: nothing was drawn).
        let step = start(true, "connecting".into());
        assert!(step.thread.is_some());
        status("listing the tools");
        let inner = start(true, "generating".into());
        assert!(inner.thread.is_none(), "one line at a time");
        assert_eq!(
            line().as_ref().map(|l| l.message.clone()).as_deref(),
            Some("generating")
        );
        drop(inner);
        assert!(
            line().is_some(),
            "the inner step does not end the outer one"
        );
        drop(step);
        assert!(line().is_none());
    }
}
