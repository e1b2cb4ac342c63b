//! What the command line prints besides its results: warnings, silenced by `-q`. Its own
//! module so that the commands (`cli`) and the live capture (`live`) share it without
//! depending on each other.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether `-q` was given: warnings are not printed.
static QUIET: AtomicBool = AtomicBool::new(false);

/// `-q`: from now on, warnings are not printed.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints a warning on stderr, unless `-q`.
pub(crate) fn warn(message: impl std::fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("warning: {message}");
    }
}
