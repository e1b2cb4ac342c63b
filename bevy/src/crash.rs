//! Crash access: Bevy's fallback error handler (a plain `fn`, one per world) receives every
//! error a system, command, observer or run condition returns, and every panic the schedule
//! executor catches. The plugin's handler logs the failure and hands it to the app whose
//! schedule is running on this thread; the plugin's system then puts the server in crash mode.
//!
//! The handler has no state of its own, so the failures travel through a thread-local sink
//! that the plugin's system sets on the thread that runs the app. Failures on other threads
//! (a multi-threaded executor's workers) go to a process-wide queue, which the first app to
//! poll takes.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use bevy_ecs::error::{BevyError, ErrorContext, Severity};

use crate::logs::{self, Level};

/// The failures one app has not yet taken.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pending: AtomicBool,
    failures: Mutex<Vec<String>>,
}

impl Sink {
    fn push(&self, failure: String) {
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(failure);
        self.pending.store(true, Ordering::Release);
    }

    /// Whether failures wait (one atomic load: the per-frame check).
    pub(crate) fn pending(&self) -> bool {
        self.pending.load(Ordering::Acquire) || ORPHANS_PENDING.load(Ordering::Acquire)
    }

    /// The failures since the last call, this app's and the orphans'.
    pub(crate) fn take(&self) -> Vec<String> {
        self.pending.store(false, Ordering::Release);
        let mut failures =
            std::mem::take(&mut *self.failures.lock().unwrap_or_else(PoisonError::into_inner));
        if ORPHANS_PENDING.swap(false, Ordering::AcqRel) {
            failures.append(&mut ORPHANS.lock().unwrap_or_else(PoisonError::into_inner));
        }
        failures
    }
}

static ORPHANS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static ORPHANS_PENDING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static CURRENT: RefCell<Weak<Sink>> = const { RefCell::new(Weak::new()) };
}

/// Makes `sink` the one this thread's failures go to (cheap when it already is).
pub(crate) fn claim_thread(sink: &Arc<Sink>) {
    CURRENT.with(|current| {
        let mut current = current.borrow_mut();
        if !std::ptr::eq(current.as_ptr(), Arc::as_ptr(sink)) {
            *current = Arc::downgrade(sink);
        }
    });
}

/// The error handler the plugin installs as the world's `FallbackErrorHandler` (when
/// `McpPlugin::crash_access` is on). A failure (an error of severity `Error` or `Panic`, the
/// default, or a panic the executor caught) is logged at error level and recorded for crash
/// mode, and the app keeps running where Bevy's default handler would panic. Errors of a lower
/// severity are only logged at their level (`Ignore`: not at all).
pub fn record_failure(mut error: BevyError, context: ErrorContext) {
    // An error its system marked below `Error` is logged at its level, as Bevy's default
    // handler does, and is not a failure.
    let level = match error.severity() {
        Severity::Ignore => return,
        Severity::Trace => Some(Level::Trace),
        Severity::Debug => Some(Level::Debug),
        Severity::Info => Some(Level::Info),
        Severity::Warning => Some(Level::Warn),
        Severity::Error | Severity::Panic => None,
    };
    if let Some(level) = level {
        let message = format!("{context}: {}", error.to_string().trim());
        if level == Level::Warn {
            eprintln!("WARN {message}");
        }
        logs::push(level, "mcp_bindgen_bevy::error", message);
        return;
    }
    let mut failure = format!("{context}: {}", error.to_string().trim());
    if let Some(payload) = error.take_payload() {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned());
        if let Some(message) = message {
            failure.push_str(": ");
            failure.push_str(&message);
        }
    }
    logs::push(Level::Error, "mcp_bindgen_bevy::crash", failure.clone());
    eprintln!("ERROR {failure}");
    let sink = CURRENT.with(|current| current.borrow().upgrade());
    match sink {
        Some(sink) => sink.push(failure),
        None => {
            ORPHANS
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(failure);
            ORPHANS_PENDING.store(true, Ordering::Release);
        }
    }
}
