//! The log ring `get_logs` reads: the process's `log` records (when the plugin installed its
//! logger) and what the plugin itself records (server start, system failures).
//!
//! A `log` logger is process-wide, so the ring is too: every app in the process that uses the
//! plugin reads the same records. Each record has a sequence number, the cursor of `since`.

use std::collections::VecDeque;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A record's severity, most severe first (the `log` crate's levels).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A failure.
    Error,
    /// Something unexpected that the app survived.
    Warn,
    /// Progress.
    Info,
    /// Detail for a developer.
    Debug,
    /// Fine-grained detail.
    Trace,
}

impl From<log::Level> for Level {
    fn from(level: log::Level) -> Self {
        match level {
            log::Level::Error => Level::Error,
            log::Level::Warn => Level::Warn,
            log::Level::Info => Level::Info,
            log::Level::Debug => Level::Debug,
            log::Level::Trace => Level::Trace,
        }
    }
}

/// One log record.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Record {
    /// Its sequence number (increasing; pass the last one seen as `since`).
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// Its severity.
    pub level: Level,
    /// The module or subsystem that logged it.
    pub target: String,
    /// The message.
    pub message: String,
}

struct Ring {
    records: VecDeque<Record>,
    capacity: usize,
    next: u64,
}

fn ring() -> &'static Mutex<Ring> {
    static RING: OnceLock<Mutex<Ring>> = OnceLock::new();
    RING.get_or_init(|| {
        Mutex::new(Ring {
            records: VecDeque::new(),
            capacity: 1000,
            next: 1,
        })
    })
}

/// Keeps at least `capacity` records (the largest capacity any app asked for).
pub(crate) fn reserve(capacity: usize) {
    let mut ring = ring().lock().unwrap_or_else(PoisonError::into_inner);
    ring.capacity = ring.capacity.max(capacity.max(1));
}

/// Appends a record, dropping the oldest beyond the capacity.
pub fn push(level: Level, target: &str, message: impl Into<String>) {
    let time_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut ring = ring().lock().unwrap_or_else(PoisonError::into_inner);
    let seq = ring.next;
    ring.next += 1;
    ring.records.push_back(Record {
        seq,
        time_ms,
        level,
        target: target.to_owned(),
        message: message.into(),
    });
    while ring.records.len() > ring.capacity {
        ring.records.pop_front();
    }
}

/// The records after `since` at `level` or more severe, oldest first, at most `limit`; and the
/// sequence number of the newest record in the ring.
pub(crate) fn read(since: u64, level: Level, limit: usize) -> (Vec<Record>, u64) {
    let ring = ring().lock().unwrap_or_else(PoisonError::into_inner);
    let records = ring
        .records
        .iter()
        .filter(|r| r.seq > since && r.level <= level)
        .take(limit)
        .cloned()
        .collect();
    (records, ring.next - 1)
}

/// The `log` logger the plugin installs: every record at or under the max level goes to the
/// ring; warnings and errors are also written to stderr.
struct RingLogger;

impl log::Log for RingLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let message = record.args().to_string();
        if record.level() <= log::Level::Warn {
            eprintln!("{} {}: {message}", record.level(), record.target());
        }
        push(record.level().into(), record.target(), message);
    }

    fn flush(&self) {}
}

/// Installs the ring logger as the process's `log` logger with `max` as the max level.
/// Returns whether it is installed (false when another logger was set first).
pub(crate) fn install(max: log::LevelFilter) -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    let installed = *INSTALLED.get_or_init(|| log::set_logger(&RingLogger).is_ok());
    if installed {
        log::set_max_level(max.max(log::max_level()));
    }
    installed
}
