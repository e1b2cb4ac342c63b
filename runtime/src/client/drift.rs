//! The clients' drift check (see [`crate::drift`]): each generated module's [`Provenance`]
//! against the server's `tools/list`, kept current by `notifications/tools/list_changed` and by
//! the list's `ttlMs`, without a request of its own while the last list is fresh.
//!
//! A call of a generated method asks [`Drift::check_tool`]. While the module's check is fresh
//! that is a lock and a lookup; otherwise the client is asked for one `tools/list` (every page),
//! by one caller at a time, and every module the client serves is judged from the list it hands
//! back ([`Drift::observe`]). Any `tools/list` the client sends for another reason (the `-32020`
//! header refresh, [`HttpClient::tool_list`]) is handed over as well. This module sends
//! nothing itself: it keeps the state and judges what it is given.
//!
//! [`HttpClient::tool_list`]: crate::HttpClient::tool_list

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_bindgen_diff::{Options, Severity, Tool, digest, rules};
use serde_json::Value;

use super::{ToolList, lock};
use crate::Error;
use crate::drift::{Change, DriftPolicy, DriftReport, Provenance};

/// Receives each drift report that found changes (see the builders' `on_drift`).
pub(crate) type DriftHandler = Arc<dyn Fn(&DriftReport) + Send + Sync>;

/// The shortest time a list is trusted, whatever its `ttlMs` (a server that answers `ttlMs: 0`
/// would otherwise cost a `tools/list` before every call).
const RECHECK_FLOOR: Duration = Duration::from_secs(1);

/// How long calls go on unchecked after a `tools/list` failed, before the next try.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// The drift state of one client: one [`Guard`] per generated module it serves.
#[derive(Default)]
pub(crate) struct Drift {
    policy: DriftPolicy,
    /// Receives each report that found changes (the builders' `on_drift`).
    handler: Option<DriftHandler>,
    /// Bumped by each `notifications/tools/list_changed`: a guard checked before is stale.
    epoch: AtomicU64,
    guards: Mutex<HashMap<&'static str, Guard>>,
    /// One `tools/list` for the check at a time; the callers waiting meanwhile use its result.
    checking: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drift")
            .field("policy", &self.policy)
            .field("handler", &self.handler.as_ref().map(|_| "<handler>"))
            .field("epoch", &self.epoch)
            .field("modules", &lock(&self.guards).len())
            .finish()
    }
}

/// One module's last check.
#[derive(Debug)]
struct Guard {
    provenance: &'static Provenance,
    /// The module's tools, parsed from its provenance the first time they are needed.
    expected: Option<Arc<Value>>,
    report: Option<DriftReport>,
    /// Under a blocking policy, the tools whose calls fail, and why.
    blocked: HashMap<String, Vec<Change>>,
    /// The list epoch the check saw.
    epoch: u64,
    /// When the list stops being fresh (`ttlMs`); `None`: until the next `list_changed`.
    until: Option<Instant>,
}

impl Drift {
    pub(crate) fn new(policy: DriftPolicy, handler: Option<DriftHandler>) -> Self {
        Drift {
            policy,
            handler,
            ..Drift::default()
        }
    }

    /// Before a generated method calls `tool`: the module's verdict, checked first with the
    /// list `fetch` obtains (a `tools/list` that reaches [`Drift::observe`]) when it is not
    /// fresh. A failed fetch is logged and lets calls through for [`RETRY_AFTER`] rather than
    /// failing them; `peer` names the server in that message.
    pub(crate) async fn check_tool<F, Fut>(
        &self,
        provenance: &'static Provenance,
        tool: &str,
        peer: impl FnOnce() -> String,
        fetch: F,
    ) -> Result<(), Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<ToolList, Error>>,
    {
        if self.policy == DriftPolicy::Off {
            return Ok(());
        }
        if let Some(verdict) = self.current(provenance, tool) {
            return verdict;
        }
        let _one_at_a_time = self.checking.lock().await;
        // Another caller may have checked while this one waited.
        if let Some(verdict) = self.current(provenance, tool) {
            return verdict;
        }
        self.register(provenance);
        let epoch = self.epoch();
        if let Err(error) = fetch().await {
            let peer = peer();
            #[cfg(not(feature = "tracing"))]
            log::warn!(
                "could not check {peer}'s tools for drift (calls go on unchecked for {} s): \
                 {error}",
                RETRY_AFTER.as_secs()
            );
            #[cfg(feature = "tracing")]
            tracing::warn!(%peer, %error, "could not check the server's tools for drift");
            self.failed(provenance, epoch);
        }
        self.current(provenance, tool).unwrap_or(Ok(()))
    }

    /// Checks now, whatever the last check, with the list `fetch` obtains: the report, `None`
    /// under [`DriftPolicy::Off`].
    pub(crate) async fn check_now<F, Fut>(
        &self,
        provenance: &'static Provenance,
        fetch: F,
    ) -> Result<Option<DriftReport>, Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<ToolList, Error>>,
    {
        if self.policy == DriftPolicy::Off {
            return Ok(None);
        }
        let _one_at_a_time = self.checking.lock().await;
        self.register(provenance);
        fetch().await?;
        Ok(self.report(provenance))
    }

    /// The server announced a new tool list: every check is stale.
    pub(crate) fn list_changed(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// The verdict for a call of `tool` while `provenance`'s check is fresh; `None` when it
    /// has to be checked first.
    pub(crate) fn current(&self, provenance: &Provenance, tool: &str) -> Option<Result<(), Error>> {
        let guards = lock(&self.guards);
        let guard = guards.get(provenance.digest())?;
        if guard.epoch != self.epoch.load(Ordering::Acquire)
            || guard.until.is_some_and(|until| Instant::now() >= until)
        {
            return None;
        }
        Some(match guard.blocked.get(tool) {
            Some(changes) => Err(Error::Drift {
                tool: tool.to_owned(),
                changes: changes.clone(),
            }),
            None => Ok(()),
        })
    }

    fn register(&self, provenance: &'static Provenance) {
        lock(&self.guards)
            .entry(provenance.digest())
            .or_insert_with(|| Guard {
                provenance,
                expected: None,
                report: None,
                blocked: HashMap::new(),
                epoch: u64::MAX,
                until: None,
            });
    }

    /// The list epoch now, taken before a `tools/list` is sent: a `list_changed` that comes
    /// while it is answered leaves the checks stale.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    pub(crate) fn report(&self, provenance: &Provenance) -> Option<DriftReport> {
        lock(&self.guards)
            .get(provenance.digest())
            .and_then(|g| g.report.clone())
    }

    /// Judges every registered module from a `tools/list` the client received (requested at
    /// list epoch `epoch`, in the modern era when `modern`).
    pub(crate) fn observe(&self, list: &ToolList, epoch: u64, modern: bool) {
        let policy = self.policy;
        if policy == DriftPolicy::Off {
            return;
        }
        let until = match list.ttl_ms {
            Some(ttl) if modern => {
                Some(Instant::now() + Duration::from_millis(ttl).max(RECHECK_FLOOR))
            }
            _ => None,
        };
        let mut reports = Vec::new();
        {
            let mut guards = lock(&self.guards);
            for guard in guards.values_mut() {
                let report = judge(guard, &list.tools, policy);
                guard.blocked = if policy.blocks() {
                    blocked(&report)
                } else {
                    HashMap::new()
                };
                if !report.changes.is_empty() && guard.report.as_ref() != Some(&report) {
                    reports.push(report.clone());
                }
                guard.report = Some(report);
                guard.epoch = epoch;
                guard.until = until;
            }
        }
        // Outside the lock: the handler may ask the client for its report.
        for report in &reports {
            announce(report, self.handler.as_ref());
        }
    }

    /// A check's `tools/list` failed: calls go on unchecked for [`RETRY_AFTER`].
    fn failed(&self, provenance: &Provenance, epoch: u64) {
        if let Some(guard) = lock(&self.guards).get_mut(provenance.digest()) {
            guard.epoch = epoch;
            guard.until = Some(Instant::now() + RETRY_AFTER);
        }
    }
}

/// Reports `report` to the handler and to `log`.
fn announce(report: &DriftReport, handler: Option<&DriftHandler>) {
    if let Some(handler) = handler {
        handler(report);
    }
    // Through `log`, or with the `tracing` feature through `tracing` only (a subscriber that
    // also forwards `log` records would show it twice).
    #[cfg(not(feature = "tracing"))]
    {
        let level = if report.breaks(Severity::Breaking) {
            log::Level::Warn
        } else {
            log::Level::Info
        };
        log::log!(
            level,
            "the server's tools changed since this client was generated ({} change{}):\n{report}",
            report.changes.len(),
            if report.changes.len() == 1 { "" } else { "s" }
        );
    }
    #[cfg(feature = "tracing")]
    {
        let breaking = report.breaks(Severity::Breaking);
        let changes = report.changes.len();
        if breaking {
            tracing::warn!(changes, breaking, %report, "the server's tools changed");
        } else {
            tracing::info!(changes, breaking, %report, "the server's tools changed");
        }
    }
}

/// The module's tools against the server's: equal digests end it; otherwise `diff`'s rules,
/// restricted to the module's tools.
fn judge(guard: &mut Guard, live: &[Value], policy: DriftPolicy) -> DriftReport {
    let provenance = guard.provenance;
    let names: HashSet<&str> = provenance.names().iter().copied().collect();
    let mine: Vec<&Value> = live
        .iter()
        .filter(|t| names.contains(t.get("name").and_then(Value::as_str).unwrap_or("")))
        .collect();
    let live_digest = digest::digest(mine.iter().copied());
    let mut report = DriftReport {
        expected: provenance.digest().to_owned(),
        live: live_digest,
        changes: Vec::new(),
    };
    if report.unchanged() {
        return report;
    }
    let expected = guard
        .expected
        .get_or_insert_with(|| {
            Arc::new(serde_json::from_str(provenance.tools()).unwrap_or(Value::Null))
        })
        .clone();
    let old: Vec<Tool<'_>> = match expected.as_array() {
        Some(tools) => tools.iter().filter_map(Tool::from_json).collect(),
        None => Vec::new(),
    };
    // All of the server's tools, so that a removed tool's likely new name is found.
    let new: Vec<Tool<'_>> = live.iter().filter_map(Tool::from_json).collect();
    let diff = mcp_bindgen_diff::diff(&old, &new, &Options::default());
    report.changes = diff
        .changes
        .into_iter()
        .filter(|c| names.contains(c.tool.as_str()))
        .map(|mut c| {
            if policy == DriftPolicy::PinDescriptions && rules::is_told(&c.rule) {
                c.severity = Severity::Breaking;
            }
            c
        })
        .collect();
    report
        .changes
        .sort_by_key(|c| std::cmp::Reverse(c.severity));
    report
}

fn blocked(report: &DriftReport) -> HashMap<String, Vec<Change>> {
    let mut blocked: HashMap<String, Vec<Change>> = HashMap::new();
    for change in &report.changes {
        if change.severity == Severity::Breaking {
            blocked
                .entry(change.tool.clone())
                .or_default()
                .push(change.clone());
        }
    }
    blocked
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The tool a module was "generated" from, and its provenance.
    fn provenance() -> &'static Provenance {
        let tools = json!([{"name": "look", "title": "Look", "description": "Looks around.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": false, "destructiveHint": false}}]);
        let list = tools.as_array().expect("array");
        Box::leak(Box::new(Provenance::new(
            "test",
            Box::leak(digest::digest(list).into_boxed_str()),
            &["look"],
            Box::leak(digest::canonical(list).into_boxed_str()),
        )))
    }

    /// The server's list: the module's tool with `change` applied.
    fn live(change: impl FnOnce(&mut Value), ttl_ms: Option<u64>) -> ToolList {
        let mut tools: Value = serde_json::from_str(provenance().tools()).expect("json");
        change(&mut tools[0]);
        ToolList {
            tools: tools.as_array().cloned().unwrap_or_default(),
            ttl_ms,
            ..ToolList::default()
        }
    }

    fn expiry(drift: &Drift, provenance: &Provenance) -> Option<Instant> {
        lock(&drift.guards)
            .get(provenance.digest())
            .and_then(|g| g.until)
    }

    #[test]
    fn a_modern_list_is_trusted_at_least_for_the_floor() {
        let provenance = provenance();
        let drift = Drift::new(DriftPolicy::Strict, None);
        drift.register(provenance);
        let before = Instant::now();
        drift.observe(&live(|_| {}, Some(0)), drift.epoch(), true);
        let until = expiry(&drift, provenance).expect("a modern list expires");
        assert!(
            until >= before + RECHECK_FLOOR,
            "ttlMs 0 is trusted for 1 s"
        );
        // A longer ttl is the ttl.
        drift.observe(&live(|_| {}, Some(60_000)), drift.epoch(), true);
        let until = expiry(&drift, provenance).expect("expires");
        assert!(until >= before + Duration::from_secs(60));
        // A legacy list never expires: only list_changed makes it stale.
        drift.observe(&live(|_| {}, Some(0)), drift.epoch(), false);
        assert_eq!(expiry(&drift, provenance), None);
    }

    #[test]
    fn a_failed_check_lets_calls_through_and_is_tried_again_later() {
        let provenance = provenance();
        let drift = Drift::default();
        drift.register(provenance);
        assert!(drift.current(provenance, "look").is_none(), "never checked");
        let before = Instant::now();
        drift.failed(provenance, drift.epoch());
        let until = expiry(&drift, provenance).expect("a retry time");
        assert!(until >= before + RETRY_AFTER, "not before 5 s");
        assert!(until <= Instant::now() + RETRY_AFTER);
        assert!(
            matches!(drift.current(provenance, "look"), Some(Ok(()))),
            "calls go on unchecked meanwhile"
        );
        drift.list_changed();
        assert!(
            drift.current(provenance, "look").is_none(),
            "an announcement makes it stale at once"
        );
    }

    #[test]
    fn pin_descriptions_blocks_a_changed_title_or_behaviour_hint() {
        /// What is changed, and how.
        type Edit = (&'static str, fn(&mut Value));
        let changes: [Edit; 5] = [
            ("title", |t| t["title"] = json!("Peek")),
            ("description", |t| t["description"] = json!("Peeks.")),
            ("readOnlyHint", |t| {
                t["annotations"]["readOnlyHint"] = json!(true);
            }),
            ("destructiveHint", |t| {
                t["annotations"]["destructiveHint"] = json!(true);
            }),
            ("idempotentHint", |t| {
                t["annotations"]["idempotentHint"] = json!(true);
            }),
        ];
        for (what, change) in changes {
            for (policy, blocks) in [
                (DriftPolicy::Strict, false),
                (DriftPolicy::PinDescriptions, true),
            ] {
                let provenance = provenance();
                let drift = Drift::new(policy, None);
                drift.register(provenance);
                drift.observe(&live(change, None), drift.epoch(), false);
                let report = drift.report(provenance).expect("judged");
                assert!(!report.changes.is_empty(), "{what}: a change is reported");
                let verdict = drift.current(provenance, "look").expect("fresh");
                assert_eq!(
                    verdict.is_err(),
                    blocks,
                    "{what} under {policy:?}: {report}"
                );
            }
        }
    }
}
