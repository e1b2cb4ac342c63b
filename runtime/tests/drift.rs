//! The drift check of generated clients against a server whose tool list changes while the
//! client is connected (`fixtures/drift_server.py`, over stdio): each policy, the report's
//! tool, rule and pointer, `notifications/tools/list_changed` in the legacy era, `ttlMs` in the
//! modern one, and no `tools/list` while the last one is fresh.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::{
    DriftPolicy, DriftReport, Error, Provenance, StdioClient, ToolCaller, ToolSchema,
};
use serde_json::{Map, Value, json};

/// The tools the client was "generated" from: version 1 of the server's list, less `unused`,
/// `change` and `stats` (tools this client does not call). Recorded as a generated module
/// records them: the definitions without their input schemas, which are kept beside them.
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
    let digest = mcp_bindgen_core::digest::digest(list);
    let mut without_schemas = list.clone();
    let schemas: Vec<&'static ToolSchema> = without_schemas
        .iter_mut()
        .map(|tool| {
            let schema = tool
                .as_object_mut()
                .and_then(|t| t.remove("inputSchema"))
                .expect("a schema");
            let text: &'static str = Box::leak(schema.to_string().into_boxed_str());
            &*Box::leak(Box::new(ToolSchema::new(text)))
        })
        .collect();
    let canonical = mcp_bindgen_core::digest::canonical(&without_schemas);
    let names: &'static [&'static str] = &["echo", "free", "gone", "told"];
    let provenance = Provenance::new(
        "test",
        Box::leak(digest.into_boxed_str()),
        names,
        Box::leak(canonical.into_boxed_str()),
    )
    .with_input_schemas(schemas.leak());
    Box::leak(Box::new(provenance))
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
    assert_eq!(report.live, mcp_bindgen_core::digest::digest(&served));
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

/// `check_drift` checks now, whatever the last check, and reports only what changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_drift_lists_now() {
    let (client, _reports) = server("modern", 600_000, DriftPolicy::Warn).await;
    let provenance = provenance();
    // Nothing changed: no report to print (one line per change), and the clean one kept.
    let first = client.check_drift(provenance).await.expect("check");
    assert_eq!(first, None, "nothing changed");
    let kept = client.drift(provenance).expect("the last report");
    assert!(kept.unchanged() && kept.changes.is_empty(), "{kept}");
    change(&client).await;
    let second = client
        .check_drift(provenance)
        .await
        .expect("check")
        .expect("a report");
    assert_eq!(found(&second), version_2_changes(), "{second}");
    assert_eq!(lists(&client).await, 2);
}

/// A module "generated" from version 1 of the server's prompts, resources and templates (less
/// `unused_prompt`, which it has no method for), with the tools of [`provenance`].
fn catalog_provenance() -> &'static Provenance {
    let templates = json!([
        {"name": "level", "uriTemplate": "game://levels/{id}"},
        {"name": "entity", "uriTemplate": "game://entities/{id}"},
    ]);
    module_with_catalog(
        version_1_prompts(),
        json!([{"name": "log", "uri": "game://log"}, {"name": "map", "uri": "game://map"}]),
        templates,
    )
}

/// The prompts of version 1 that [`catalog_provenance`]'s module uses.
fn version_1_prompts() -> Value {
    json!([
        {"name": "brief", "arguments": [{"name": "level"}]},
        {"name": "gone_prompt"},
        {"name": "stable", "arguments": [{"name": "tone", "required": true}]},
    ])
}

/// A module with the tools of [`provenance`] that uses these prompts, resources and
/// templates.
fn module_with_catalog(prompts: Value, resources: Value, templates: Value) -> &'static Provenance {
    use mcp_bindgen_diff::catalog::Catalog;
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let (p, r, t) = (list(&prompts), list(&resources), list(&templates));
    let catalog = Catalog::from_json(&p, &r, &t);
    let digest: &'static str = Box::leak(catalog.digest().into_boxed_str());
    let canonical: &'static str = Box::leak(catalog.canonical().into_boxed_str());
    Box::leak(Box::new(Provenance::with_catalog(
        *provenance(),
        digest,
        canonical,
    )))
}

/// How many `prompts/list`, `resources/list` and `resources/templates/list` requests the
/// server answered, in that order.
async fn catalog_lists(client: &StdioClient) -> [u64; 3] {
    let stats = client.call_tool("stats", Map::new()).await.expect("stats");
    let counts = &stats.structured_content.expect("structured")["catalog_lists"];
    ["prompts", "resources", "resourceTemplates"].map(|key| counts[key].as_u64().expect("a count"))
}

/// Prompts, resources and templates (legacy era, `Strict`): checked once with the three
/// lists, then free while fresh; after `notifications/prompts/list_changed` the next check
/// lists again and refuses what broke (a prompt argument now required, a prompt gone, a
/// resource moved, a template changed) with the catalog rules, names a resource by the URI
/// the module recorded, and lets the rest through. The tools are not listed for any of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_refuses_the_prompts_and_resources_that_broke_and_only_those() {
    use mcp_bindgen::drift::Kind;
    let (client, reports) = server("legacy", 0, DriftPolicy::Strict).await;
    let provenance = catalog_provenance();
    assert_eq!(client.catalog_drift(provenance), None, "not checked yet");
    for (kind, name) in [
        (Kind::Prompt, "brief"),
        (Kind::Prompt, "gone_prompt"),
        (Kind::Resource, "game://log"),
        (Kind::ResourceTemplate, "level"),
    ] {
        client
            .check_catalog(provenance, kind, name)
            .await
            .expect("version 1");
    }
    let report = client.catalog_drift(provenance).expect("checked");
    assert!(report.unchanged(), "{report}");
    assert_eq!(
        catalog_lists(&client).await,
        [1, 1, 1],
        "one check for four calls"
    );

    client
        .call_tool("change_catalog", Map::new())
        .await
        .expect("change_catalog");
    let refused = |kind, name: &'static str, rule: &'static str| {
        let client = &client;
        async move {
            let error = client
                .check_catalog(provenance, kind, name)
                .await
                .expect_err(name);
            let Error::Drift { tool, changes } = &error else {
                panic!("{name}: not a drift error: {error:?}")
            };
            assert_eq!(changes.len(), 1, "{error}");
            assert_eq!((changes[0].kind, changes[0].rule.as_str()), (kind, rule));
            (tool.clone(), error.to_string())
        }
    };
    let (name, text) = refused(Kind::Prompt, "brief", "prompt-argument-became-required").await;
    assert_eq!(name, "brief");
    assert!(
        text.starts_with("MCP prompt brief changed since this client was generated"),
        "{text}"
    );
    assert!(text.contains("/arguments/level"), "{text}");
    refused(Kind::Prompt, "gone_prompt", "prompt-removed").await;
    // A resource is checked by its URI; the change names it by its name.
    let (name, _) = refused(Kind::Resource, "game://log", "resource-uri-changed").await;
    assert_eq!(name, "log");
    refused(Kind::ResourceTemplate, "level", "resource-template-changed").await;
    // What did not break goes on: a new description, an unchanged resource and template, a
    // URI the module does not record.
    for (kind, name) in [
        (Kind::Prompt, "stable"),
        (Kind::Resource, "game://map"),
        (Kind::Resource, "game://elsewhere"),
        (Kind::ResourceTemplate, "entity"),
    ] {
        client
            .check_catalog(provenance, kind, name)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert_eq!(
        catalog_lists(&client).await,
        [2, 2, 2],
        "one more after list_changed"
    );
    assert_eq!(lists(&client).await, 0, "no tools/list for the catalog");

    let report = client.catalog_drift(provenance).expect("checked");
    let mut rules: Vec<&str> = report.changes.iter().map(|c| c.rule.as_str()).collect();
    rules.sort_unstable();
    assert_eq!(
        rules,
        [
            "prompt-argument-became-required",
            "prompt-removed",
            "resource-template-changed",
            "resource-uri-changed",
        ],
        "{report}"
    );
    let seen = reports.all();
    assert_eq!(seen.len(), 1, "reported once to on_drift: {seen:?}");
    assert_eq!(seen[0], report);
}

/// Modern era: the catalog is trusted for its lists' `ttlMs`, whatever changed meanwhile;
/// `Warn` reports a change and lets every call through; `Off` lists nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_is_trusted_for_its_ttl_and_warn_and_off_let_calls_through() {
    use mcp_bindgen::drift::Kind;
    let (client, _reports) = server("modern", 60_000, DriftPolicy::Strict).await;
    let provenance = catalog_provenance();
    client
        .check_catalog(provenance, Kind::Prompt, "brief")
        .await
        .expect("v1");
    client
        .call_tool("change_catalog", Map::new())
        .await
        .expect("change_catalog");
    client
        .check_catalog(provenance, Kind::Prompt, "gone_prompt")
        .await
        .expect("the v1 lists are still fresh");
    assert_eq!(catalog_lists(&client).await, [1, 1, 1]);

    let (client, reports) = server("legacy", 0, DriftPolicy::Warn).await;
    client
        .call_tool("change_catalog", Map::new())
        .await
        .expect("change_catalog");
    client
        .check_catalog(provenance, Kind::Prompt, "gone_prompt")
        .await
        .expect("warn only");
    assert_eq!(reports.all().len(), 1, "reported");
    assert_eq!(reports.all()[0].changes.len(), 4);

    let (client, _reports) = server("legacy", 0, DriftPolicy::Off).await;
    client
        .call_tool("change_catalog", Map::new())
        .await
        .expect("change_catalog");
    client
        .check_catalog(provenance, Kind::Prompt, "gone_prompt")
        .await
        .expect("off");
    assert_eq!(catalog_lists(&client).await, [0, 0, 0]);
    assert_eq!(client.catalog_drift(provenance), None);
}

/// A check lists only what the modules it serves use: a module of prompts alone sends
/// `prompts/list` alone (a server's resources can be thousands of pages); once a module that
/// uses all three is served too, its first check sends the three lists, and judges both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_check_lists_only_what_the_modules_use() {
    use mcp_bindgen::drift::Kind;
    let (client, _reports) = server("legacy", 0, DriftPolicy::Strict).await;
    let prompts_only = module_with_catalog(version_1_prompts(), json!([]), json!([]));
    client
        .check_catalog(prompts_only, Kind::Prompt, "brief")
        .await
        .expect("v1");
    assert_eq!(catalog_lists(&client).await, [1, 0, 0]);
    assert!(
        client
            .catalog_drift(prompts_only)
            .expect("checked")
            .unchanged()
    );

    let everything = catalog_provenance();
    client
        .check_catalog(everything, Kind::Resource, "game://log")
        .await
        .expect("v1");
    assert_eq!(catalog_lists(&client).await, [2, 1, 1]);
    assert!(
        client
            .catalog_drift(everything)
            .expect("checked")
            .unchanged()
    );

    client
        .call_tool("change_catalog", Map::new())
        .await
        .expect("change_catalog");
    let refused = client
        .check_catalog(prompts_only, Kind::Prompt, "gone_prompt")
        .await
        .expect_err("gone in version 2");
    assert!(
        matches!(refused, mcp_bindgen::Error::Drift { .. }),
        "{refused}"
    );
    assert_eq!(
        catalog_lists(&client).await,
        [3, 2, 2],
        "both modules served: the three lists"
    );
    assert!(
        !client
            .catalog_drift(everything)
            .expect("judged too")
            .unchanged()
    );
}

/// Over stdio in 2026-07-28 the client listens for tool changes too (one `subscriptions/listen`
/// kept open in band): a change is heard at once, however long the list's `ttlMs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_stdio_client_listens_for_tool_changes() {
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/drift_server.py"
        ))
        .arg("modern-listen")
        .arg("600000");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = StdioClient::builder(command)
        .timeout(Duration::from_secs(60))
        .on_tools_changed(move |tools| {
            let _ = tx.send(tools.tools.len());
        })
        .spawn()
        .await
        .expect("the drift server starts");
    // The listen goes out when the handler is set: wait until the server has it, by a call
    // made after it on the same pipe.
    assert_eq!(lists(&client).await, 0);
    change(&client).await;
    let heard = tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("the change was heard over stdio")
        .expect("a list");
    assert_eq!(heard, 6, "version 2 has six tools");
    assert_eq!(lists(&client).await, 1, "one list fetched, for the handler");
}
