//! The drift check of generated clients against a server whose tool list changes while the
//! client is connected (`fixtures/drift_server.py`, over stdio): each policy, the report's
//! tool, rule and pointer, `notifications/tools/list_changed` in the legacy era, `ttlMs` in the
//! modern one, and no `tools/list` while the last one is fresh.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::{DriftPolicy, DriftReport, Error, Provenance, StdioClient, ToolCaller};
use serde_json::{Map, Value, json};

/// The tools the client was "generated" from: version 1 of the server's list, less `unused`,
/// `change` and `stats` (tools this client does not call).
fn provenance() -> &'static Provenance {
    let tools = json!([
        {"name": "echo", "description": "Echoes.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        // Another key order and spacing than the server's: the digest does not see it.
        {"inputSchema": {"properties": {"a": {"type": "string"}}, "type": "object"},
         "description": "Takes what it is given.", "name": "free"},
        {"name": "gone", "description": "Removed in version 2.", "inputSchema": {"type": "object"}},
        {"name": "told", "description": "Says one thing.", "inputSchema": {"type": "object"}},
    ]);
    let list = tools.as_array().expect("array");
    let digest = mcp_bindgen_diff::digest::digest(list);
    let canonical = mcp_bindgen_diff::digest::canonical(list);
    let names: &'static [&'static str] = &["echo", "free", "gone", "told"];
    Box::leak(Box::new(Provenance::new(
        "test",
        Box::leak(digest.into_boxed_str()),
        names,
        Box::leak(canonical.into_boxed_str()),
    )))
}

async fn server(era: &str, ttl_ms: u64, policy: DriftPolicy) -> (StdioClient, Reports) {
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/drift_server.py"
        ))
        .arg(era)
        .arg(ttl_ms.to_string());
    let reports = Reports::default();
    let seen = reports.clone();
    let client = StdioClient::builder(command)
        .timeout(Duration::from_secs(60))
        .drift_policy(policy)
        .on_drift(move |report| seen.0.lock().unwrap().push(report.clone()))
        .spawn()
        .await
        .expect("the drift server starts");
    (client, reports)
}

#[derive(Clone, Default)]
struct Reports(Arc<Mutex<Vec<DriftReport>>>);

impl Reports {
    fn all(&self) -> Vec<DriftReport> {
        self.0.lock().unwrap().clone()
    }
}

/// How many `tools/list` the server answered.
async fn lists(client: &StdioClient) -> u64 {
    let stats = client.call_tool("stats", Map::new()).await.expect("stats");
    stats.structured_content.expect("structured")["lists"]
        .as_u64()
        .expect("a count")
}

async fn change(client: &StdioClient) {
    client
        .call_tool("change", Map::new())
        .await
        .expect("change");
}

/// (tool, rule, pointer) of each change, sorted.
fn found(report: &DriftReport) -> Vec<(String, String, String)> {
    let mut found: Vec<_> = report
        .changes
        .iter()
        .map(|c| (c.tool.clone(), c.rule.clone(), c.pointer.clone()))
        .collect();
    found.sort();
    found
}

fn triple(tool: &str, rule: &str, pointer: &str) -> (String, String, String) {
    (tool.into(), rule.into(), pointer.into())
}

/// What version 2 changes in the client's tools (and not `unused`, which it does not call).
fn version_2_changes() -> Vec<(String, String, String)> {
    let mut expected = vec![
        triple(
            "echo",
            "input-property-became-required",
            "/inputSchema/properties/text",
        ),
        triple("free", "input-property-added", "/inputSchema/properties/b"),
        triple("gone", "tool-removed", ""),
        triple("told", "description-changed", "/description"),
    ];
    expected.sort();
    expected
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_list_is_checked_once_and_then_costs_no_request() {
    let (client, reports) = server("legacy", 0, DriftPolicy::Strict).await;
    let provenance = provenance();
    assert_eq!(
        client.drift(provenance),
        None,
        "no check before the first call"
    );
    for tool in ["echo", "free", "gone", "told", "echo"] {
        client
            .check_tool(provenance, tool)
            .await
            .expect("unchanged");
    }
    let report = client.drift(provenance).expect("checked");
    assert!(report.unchanged(), "{report}");
    assert!(report.changes.is_empty());
    assert_eq!(lists(&client).await, 1, "one tools/list for five calls");
    assert!(reports.all().is_empty(), "nothing to report");
    // The live digest is the server's own list's, computed here apart from the client: the
    // module's tools as the server sends them (another key order than the provenance's).
    let served: Vec<Value> = client
        .list_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .filter(|t| {
            provenance
                .names()
                .contains(&t["name"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(report.live, mcp_bindgen_diff::digest::digest(&served));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_fails_only_the_calls_of_broken_tools_after_list_changed() {
    let (client, reports) = server("legacy", 0, DriftPolicy::Strict).await;
    let provenance = provenance();
    client.check_tool(provenance, "echo").await.expect("v1");
    change(&client).await;
    // The server's list_changed makes the check stale: the next call lists again.
    let refused = client
        .check_tool(provenance, "echo")
        .await
        .expect_err("echo now requires an argument this client may not send");
    let Error::Drift { tool, changes } = &refused else {
        panic!("not a drift error: {refused:?}")
    };
    assert_eq!(tool, "echo");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].rule, "input-property-became-required");
    let text = refused.to_string();
    assert!(
        text.contains("breaking echo input-property-became-required /inputSchema/properties/text"),
        "{text}"
    );
    let gone = client
        .check_tool(provenance, "gone")
        .await
        .expect_err("removed");
    assert!(gone.to_string().contains("tool-removed"), "{gone}");
    // Unaffected tools go on: an added optional argument and a new description do not break.
    client
        .check_tool(provenance, "free")
        .await
        .expect("compatible");
    client
        .check_tool(provenance, "told")
        .await
        .expect("description only");
    assert_eq!(
        lists(&client).await,
        2,
        "one list for v1, one after list_changed"
    );

    let report = client.drift(provenance).expect("checked");
    assert_eq!(found(&report), version_2_changes(), "{report}");
    assert_ne!(report.live, report.expected);
    let seen = reports.all();
    assert_eq!(seen.len(), 1, "reported once: {seen:?}");
    assert_eq!(seen[0], report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warn_reports_and_lets_every_call_through() {
    let (client, reports) = server("legacy", 0, DriftPolicy::Warn).await;
    let provenance = provenance();
    client.check_tool(provenance, "echo").await.expect("v1");
    change(&client).await;
    for tool in ["echo", "gone", "free", "told"] {
        client
            .check_tool(provenance, tool)
            .await
            .expect("warn only");
    }
    let seen = reports.all();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(found(&seen[0]), version_2_changes(), "{}", seen[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pin_descriptions_also_fails_a_tool_whose_description_changed() {
    let (client, _reports) = server("legacy", 0, DriftPolicy::PinDescriptions).await;
    let provenance = provenance();
    client.check_tool(provenance, "told").await.expect("v1");
    change(&client).await;
    let refused = client
        .check_tool(provenance, "told")
        .await
        .expect_err("its description changed");
    assert!(
        refused
            .to_string()
            .contains("breaking told description-changed /description"),
        "{refused}"
    );
    client
        .check_tool(provenance, "free")
        .await
        .expect("compatible");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_sends_no_tools_list() {
    let (client, _reports) = server("legacy", 0, DriftPolicy::Off).await;
    let provenance = provenance();
    change(&client).await;
    client
        .check_tool(provenance, "echo")
        .await
        .expect("no check");
    assert_eq!(client.check_drift(provenance).await.expect("off"), None);
    assert_eq!(client.drift(provenance), None);
    assert_eq!(lists(&client).await, 0);
}

/// Modern era: no `tools/list` while the last one is fresh (its `ttlMs`, a minute here: no
/// machine is that slow), although the server changed meanwhile (there is no `list_changed`
/// without a subscription, which this stdio server does not serve).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_modern_list_is_trusted_for_its_ttl() {
    let (client, _reports) = server("modern", 60_000, DriftPolicy::Strict).await;
    assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"));
    let provenance = provenance();
    client.check_tool(provenance, "echo").await.expect("v1");
    change(&client).await;
    client
        .check_tool(provenance, "echo")
        .await
        .expect("the v1 list is still fresh");
    assert_eq!(lists(&client).await, 1, "no tools/list while fresh");
}

/// Modern era: once the `ttlMs` has passed, the next call checks again and finds the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_modern_list_is_checked_again_after_its_ttl() {
    let ttl = Duration::from_secs(2);
    let (client, _reports) = server("modern", ttl.as_millis() as u64, DriftPolicy::Strict).await;
    let provenance = provenance();
    let started = std::time::Instant::now();
    client.check_tool(provenance, "echo").await.expect("v1");
    change(&client).await;
    tokio::time::sleep(ttl.saturating_sub(started.elapsed()) + Duration::from_millis(200)).await;
    client
        .check_tool(provenance, "echo")
        .await
        .expect_err("the list expired: checked again, and echo broke");
    assert_eq!(lists(&client).await, 2, "one more tools/list after the ttl");
}

/// A `tools/list` the application sends itself refreshes the checks: the next call is judged
/// from it, with no request of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_applications_tool_list_refreshes_the_check() {
    let (client, reports) = server("modern", 600_000, DriftPolicy::Strict).await;
    let provenance = provenance();
    client.check_tool(provenance, "echo").await.expect("v1");
    change(&client).await;
    client
        .check_tool(provenance, "echo")
        .await
        .expect("still fresh");
    client.tool_list().await.expect("tools/list");
    assert_eq!(
        found(&client.drift(provenance).expect("a report")),
        version_2_changes()
    );
    assert_eq!(reports.all().len(), 1, "the report went to on_drift");
    client
        .check_tool(provenance, "echo")
        .await
        .expect_err("judged from the application's list");
    assert_eq!(
        lists(&client).await,
        2,
        "the check sent no tools/list of its own"
    );
}

/// `check_drift` checks now, whatever the last check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_drift_lists_now() {
    let (client, _reports) = server("modern", 600_000, DriftPolicy::Warn).await;
    let provenance = provenance();
    let first = client
        .check_drift(provenance)
        .await
        .expect("check")
        .expect("a report");
    assert!(first.unchanged(), "{first}");
    change(&client).await;
    let second = client
        .check_drift(provenance)
        .await
        .expect("check")
        .expect("a report");
    assert_eq!(found(&second), version_2_changes(), "{second}");
    assert_eq!(lists(&client).await, 2);
}
