//! The clients' drift check (see [`crate::drift`]): each generated module's [`Provenance`]
//! against the server's lists, kept current by the `list_changed` notifications and by each
//! list's `ttlMs`, without a request of its own while the last list is fresh.
//!
//! Two ledgers keep the checks: one of tools, judged from `tools/list`, and one of the prompts,
//! resources and resource templates a module's methods use, judged from `prompts/list`,
//! `resources/list` and `resources/templates/list` together (its catalog). A call of a
//! generated method asks [`Drift::check_tool`] (or [`Drift::check_catalog`]). While the
//! module's check is fresh that is a lock and a lookup; otherwise the client is asked for the
//! lists (every page), by one caller at a time, and every module the client serves is judged
//! from what it hands back ([`Drift::observe`], [`Drift::observe_catalog`]). Any `tools/list`
//! the client sends for another reason (the `-32020` header refresh,
//! [`HttpClient::tool_list`]) is handed over as well. This module sends nothing itself: it
//! keeps the state and judges what it is given.
//!
//! [`HttpClient::tool_list`]: crate::HttpClient::tool_list

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_bindgen_core::digest;
use mcp_bindgen_diff::catalog::{self, Catalog};
use mcp_bindgen_diff::{Kind, Options, Severity, Tool, rules};
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

/// A server's prompts, resources and resource templates, every page of each list, as a
/// catalog check is handed them; a list the server does not serve, or that no module uses
/// (see [`Drift::catalog_needs`]), is empty.
#[derive(Debug, Default)]
pub(crate) struct CatalogList {
    pub(crate) prompts: Vec<Value>,
    pub(crate) resources: Vec<Value>,
    pub(crate) templates: Vec<Value>,
    /// `events/list`'s event types.
    pub(crate) events: Vec<Value>,
    /// The shortest `ttlMs` of the lists (modern era).
    pub(crate) ttl_ms: Option<u64>,
}

/// Which of a server's catalog lists a check fetches: those some module it serves uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CatalogNeeds {
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) templates: bool,
    pub(crate) events: bool,
}

/// The drift state of one client: a [`Ledger`] of tools and one of catalogs.
#[derive(Default)]
pub(crate) struct Drift {
    policy: DriftPolicy,
    /// Receives each report that found changes (the builders' `on_drift`).
    handler: Option<DriftHandler>,
    /// Judged from `tools/list`; made stale by `notifications/tools/list_changed`.
    tools: Ledger,
    /// Judged from the prompt, resource and template lists; made stale by
    /// `notifications/prompts/list_changed` and `notifications/resources/list_changed`.
    catalog: Ledger,
}

/// One kind of check, for every generated module the client serves.
#[derive(Default)]
struct Ledger {
    /// Bumped by each announcement that the lists changed: a guard checked before is stale.
    epoch: AtomicU64,
    /// By the digest the module recorded (its tools' or its catalog's).
    guards: Mutex<HashMap<&'static str, Guard>>,
    /// One fetch of the lists at a time; the callers waiting meanwhile use its result.
    checking: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drift")
            .field("policy", &self.policy)
            .field("handler", &self.handler.as_ref().map(|_| "<handler>"))
            .field("tools_epoch", &self.tools.epoch)
            .field("catalog_epoch", &self.catalog.epoch)
            .field("modules", &lock(&self.tools.guards).len())
            .finish()
    }
}

/// One module's last check.
#[derive(Debug)]
struct Guard {
    provenance: &'static Provenance,
    /// What the module recorded (its tools or its catalog), parsed the first time it is
    /// needed.
    expected: Option<Arc<Value>>,
    report: Option<DriftReport>,
    /// Under a blocking policy, what may not be called, and why: by kind and name (a
    /// resource by its URI, which is what its read method is given).
    blocked: HashMap<(Kind, String), Vec<Change>>,
    /// The list epoch the check saw.
    epoch: u64,
    /// When the list stops being fresh (`ttlMs`); `None`: until the next `list_changed`.
    until: Option<Instant>,
}

impl Ledger {
    /// The verdict for `name` while `key`'s check is fresh; `None` when it has to be
    /// checked first.
    fn current(&self, key: &str, kind: Kind, name: &str) -> Option<Result<(), Error>> {
        let guards = lock(&self.guards);
        let guard = guards.get(key)?;
        if guard.epoch != self.epoch.load(Ordering::Acquire)
            || guard.until.is_some_and(|until| Instant::now() >= until)
        {
            return None;
        }
        Some(match guard.blocked.get(&(kind, name.to_owned())) {
            Some(changes) => Err(Error::Drift {
                tool: changes.first().map_or(name, |c| c.tool.as_str()).to_owned(),
                changes: changes.clone(),
            }),
            None => Ok(()),
        })
    }

    fn register(&self, key: &'static str, provenance: &'static Provenance) {
        lock(&self.guards).entry(key).or_insert_with(|| Guard {
            provenance,
            expected: None,
            report: None,
            blocked: HashMap::new(),
            epoch: u64::MAX,
            until: None,
        });
    }

    fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    fn report(&self, key: &str) -> Option<DriftReport> {
        lock(&self.guards).get(key).and_then(|g| g.report.clone())
    }

    /// Judges every registered module with `judge`, from lists requested at `epoch` and
    /// fresh `until`; returns the reports that are new and found changes.
    fn settle(
        &self,
        policy: DriftPolicy,
        epoch: u64,
        until: Option<Instant>,
        judge: impl Fn(&mut Guard) -> DriftReport,
    ) -> Vec<DriftReport> {
        let mut reports = Vec::new();
        let mut guards = lock(&self.guards);
        for guard in guards.values_mut() {
            let report = judge(guard);
            guard.blocked = if policy.blocks() {
                blocked(&report, guard)
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
        reports
    }

    /// A check's fetch failed: calls go on unchecked for [`RETRY_AFTER`].
    fn failed(&self, key: &str, epoch: u64) {
        if let Some(guard) = lock(&self.guards).get_mut(key) {
            guard.epoch = epoch;
            guard.until = Some(Instant::now() + RETRY_AFTER);
        }
    }
}

/// Which ledger a check asks.
#[derive(Clone, Copy)]
enum Lists {
    Tools,
    Catalog,
}

impl Drift {
    pub(crate) fn new(policy: DriftPolicy, handler: Option<DriftHandler>) -> Self {
        Drift {
            policy,
            handler,
            ..Drift::default()
        }
    }

    fn ledger(&self, lists: Lists) -> &Ledger {
        match lists {
            Lists::Tools => &self.tools,
            Lists::Catalog => &self.catalog,
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
        let key = provenance.digest();
        self.check(Lists::Tools, key, provenance, Kind::Tool, tool, peer, fetch)
            .await
    }

    /// Before a generated method gets a prompt, reads a resource or template, or completes
    /// one's argument: as [`Drift::check_tool`], against the module's catalog and the lists
    /// `fetch` obtains (reaching [`Drift::observe_catalog`]). `name` is the prompt's or
    /// template's name, or the resource's URI. A module without a catalog checks nothing.
    pub(crate) async fn check_catalog<F, Fut>(
        &self,
        provenance: &'static Provenance,
        kind: Kind,
        name: &str,
        peer: impl FnOnce() -> String,
        fetch: F,
    ) -> Result<(), Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<CatalogList, Error>>,
    {
        let key = provenance.catalog_digest();
        if key.is_empty() {
            return Ok(());
        }
        self.check(Lists::Catalog, key, provenance, kind, name, peer, fetch)
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn check<F, Fut, L>(
        &self,
        lists: Lists,
        key: &'static str,
        provenance: &'static Provenance,
        kind: Kind,
        name: &str,
        peer: impl FnOnce() -> String,
        fetch: F,
    ) -> Result<(), Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<L, Error>>,
    {
        if self.policy == DriftPolicy::Off {
            return Ok(());
        }
        let ledger = self.ledger(lists);
        if let Some(verdict) = ledger.current(key, kind, name) {
            return verdict;
        }
        let _one_at_a_time = ledger.checking.lock().await;
        // Another caller may have checked while this one waited.
        if let Some(verdict) = ledger.current(key, kind, name) {
            return verdict;
        }
        ledger.register(key, provenance);
        let epoch = ledger.epoch();
        if let Err(error) = fetch().await {
            let peer = peer();
            let what = match lists {
                Lists::Tools => "tools",
                Lists::Catalog => "prompts and resources",
            };
            #[cfg(not(feature = "tracing"))]
            log::warn!(
                "could not check {peer}'s {what} for drift (calls go on unchecked for {} s): \
                 {error}",
                RETRY_AFTER.as_secs()
            );
            #[cfg(feature = "tracing")]
            tracing::warn!(%peer, %error, what, "could not check the server's lists for drift");
            ledger.failed(key, epoch);
        }
        ledger.current(key, kind, name).unwrap_or(Ok(()))
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
        let _one_at_a_time = self.tools.checking.lock().await;
        self.tools.register(provenance.digest(), provenance);
        fetch().await?;
        // What changed that the module relies on; the report of a clean check stays with
        // `drift()`, for an app to show.
        Ok(self.report(provenance).filter(|r| !r.changes.is_empty()))
    }

    /// The server announced a new tool list: every tool check is stale.
    pub(crate) fn list_changed(&self) {
        self.tools.epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// The lists a catalog check needs: those the modules checked so far (the caller's
    /// included, registered before its fetch) use. A list none uses is never requested:
    /// a server's resources can run to thousands of pages.
    pub(crate) fn catalog_needs(&self) -> CatalogNeeds {
        let mut needs = CatalogNeeds::default();
        for guard in lock(&self.catalog.guards).values_mut() {
            let provenance = guard.provenance;
            let recorded = expected(guard, || {
                serde_json::from_str(provenance.catalog()).unwrap_or(Value::Null)
            });
            let uses = |key: &str| recorded[key].as_array().is_some_and(|a| !a.is_empty());
            needs.prompts |= uses("prompts");
            needs.resources |= uses("resources");
            needs.templates |= uses("resourceTemplates");
            needs.events |= uses("events");
        }
        needs
    }

    /// The server announced new prompts or resources: every catalog check is stale.
    pub(crate) fn catalog_changed(&self) {
        self.catalog.epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// The verdict for a call of `tool` while `provenance`'s check is fresh; `None` when it
    /// has to be checked first.
    #[cfg(test)]
    fn current(&self, provenance: &Provenance, tool: &str) -> Option<Result<(), Error>> {
        self.tools.current(provenance.digest(), Kind::Tool, tool)
    }

    #[cfg(test)]
    fn register(&self, provenance: &'static Provenance) {
        self.tools.register(provenance.digest(), provenance);
    }

    /// The tool list epoch now, taken before a `tools/list` is sent: a `list_changed` that
    /// comes while it is answered leaves the checks stale.
    pub(crate) fn epoch(&self) -> u64 {
        self.tools.epoch()
    }

    /// The catalog epoch now, taken before the catalog's lists are sent.
    pub(crate) fn catalog_epoch(&self) -> u64 {
        self.catalog.epoch()
    }

    /// The last tool check's report for `provenance`'s module.
    pub(crate) fn report(&self, provenance: &Provenance) -> Option<DriftReport> {
        self.tools.report(provenance.digest())
    }

    /// The last catalog check's report for `provenance`'s module (`None` before the first,
    /// and for a module without a catalog).
    pub(crate) fn catalog_report(&self, provenance: &Provenance) -> Option<DriftReport> {
        self.catalog.report(provenance.catalog_digest())
    }

    /// Judges every registered module from a `tools/list` the client received (requested at
    /// list epoch `epoch`, in the modern era when `modern`).
    pub(crate) fn observe(&self, list: &ToolList, epoch: u64, modern: bool) {
        if self.policy == DriftPolicy::Off {
            return;
        }
        let policy = self.policy;
        let reports = self
            .tools
            .settle(policy, epoch, fresh_until(list.ttl_ms, modern), |g| {
                judge(g, &list.tools, policy)
            });
        // Outside the lock: the handler may ask the client for its report.
        for report in &reports {
            announce(report, self.handler.as_ref());
        }
    }

    /// Judges every registered module's catalog from the lists the client received
    /// (requested at catalog epoch `epoch`, in the modern era when `modern`).
    pub(crate) fn observe_catalog(&self, list: &CatalogList, epoch: u64, modern: bool) {
        if self.policy == DriftPolicy::Off {
            return;
        }
        let live = Catalog::from_json(&list.prompts, &list.resources, &list.templates)
            .with_events(&list.events);
        let until = fresh_until(list.ttl_ms, modern);
        let reports = self
            .catalog
            .settle(self.policy, epoch, until, |g| judge_catalog(g, &live));
        for report in &reports {
            announce(report, self.handler.as_ref());
        }
    }

    /// A check's `tools/list` failed: calls go on unchecked for [`RETRY_AFTER`].
    #[cfg(test)]
    fn failed(&self, provenance: &Provenance, epoch: u64) {
        self.tools.failed(provenance.digest(), epoch);
    }
}

/// When a list stops being fresh: its `ttlMs` (at least [`RECHECK_FLOOR`]) in the modern era;
/// never in the legacy one, where only `list_changed` makes it stale.
fn fresh_until(ttl_ms: Option<u64>, modern: bool) -> Option<Instant> {
    match ttl_ms {
        Some(ttl) if modern => Some(Instant::now() + Duration::from_millis(ttl).max(RECHECK_FLOOR)),
        _ => None,
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
            "the server changed since this client was generated ({} change{}):\n{report}",
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
    let expected = expected(guard, || Value::Array(provenance.definitions()));
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

/// What the module recorded, made by `recorded` once and kept in the guard.
fn expected(guard: &mut Guard, recorded: impl FnOnce() -> Value) -> Arc<Value> {
    guard
        .expected
        .get_or_insert_with(|| Arc::new(recorded()))
        .clone()
}

/// The module's catalog against the server's: equal digests (of what the module uses) end
/// it; otherwise `diff`'s catalog rules, restricted to what the module uses.
fn judge_catalog(guard: &mut Guard, live: &Catalog<'_>) -> DriftReport {
    let provenance = guard.provenance;
    let recorded = expected(guard, || {
        serde_json::from_str(provenance.catalog()).unwrap_or(Value::Null)
    });
    let list = |key: &str| recorded[key].as_array().map_or(&[][..], Vec::as_slice);
    let old = Catalog::from_json(
        list("prompts"),
        list("resources"),
        list("resourceTemplates"),
    )
    .with_events(list("events"));
    let mut report = DriftReport {
        expected: provenance.catalog_digest().to_owned(),
        live: live.restricted_to(&old).digest(),
        changes: Vec::new(),
    };
    if report.unchanged() {
        return report;
    }
    let uses = |c: &Change| match c.kind {
        Kind::Prompt => old.prompts.iter().any(|p| p.name == c.tool),
        Kind::Resource => old.resources.iter().any(|r| r.name == c.tool),
        Kind::ResourceTemplate => old.templates.iter().any(|t| t.name == c.tool),
        Kind::Skill => old.skills.iter().any(|s| s.name == c.tool),
        Kind::Event => old.events.iter().any(|e| e.name == c.tool),
        Kind::Tool => false,
    };
    report.changes = catalog::diff(&old, live).into_iter().filter(uses).collect();
    report
        .changes
        .sort_by_key(|c| std::cmp::Reverse(c.severity));
    report
}

/// The breaking changes of `report`, by what a generated method names when it checks: a
/// tool, prompt or template by its name, a resource by the URI the module recorded.
fn blocked(report: &DriftReport, guard: &Guard) -> HashMap<(Kind, String), Vec<Change>> {
    let mut blocked: HashMap<(Kind, String), Vec<Change>> = HashMap::new();
    for change in &report.changes {
        if change.severity != Severity::Breaking {
            continue;
        }
        let name = match change.kind {
            Kind::Resource => guard
                .expected
                .as_ref()
                .and_then(|recorded| recorded["resources"].as_array())
                .and_then(|resources| {
                    resources
                        .iter()
                        .find(|r| r["name"].as_str() == Some(change.tool.as_str()))
                })
                .and_then(|r| r["uri"].as_str())
                .unwrap_or(&change.tool)
                .to_owned(),
            _ => change.tool.clone(),
        };
        blocked
            .entry((change.kind, name))
            .or_default()
            .push(change.clone());
    }
    blocked
}

#[cfg(test)]
mod tests;
