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
    lock(&drift.tools.guards)
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
