//! Saving Throw's result types, from the shapes its documentation gives in prose
//! (`generated/contracts/saving_throw.d.ts`): answers written to those sentences decode, keep
//! every field the prose does not name, and re-encode to the same JSON.

use mcp_bindgen::CallToolResult;
use mcp_bindings::saving_throw::types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Decodes through the envelope rules, as a client method does, and checks that re-encoding
/// gives the same JSON.
fn decode<T: DeserializeOwned + Serialize>(tool: &str, json: Value) -> T {
    let value: T = mcp_bindgen::decode_result(tool, CallToolResult::structured(json.clone()))
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert_eq!(
        serde_json::to_value(&value).expect("encodes"),
        json,
        "{tool}"
    );
    value
}

#[test]
fn list_scenarios_and_copy() {
    // "list_scenarios -> find scenario with directly_runnable=false, e.g.
    // scenario_id="aaaaaaaabbbbbbbbcccccccc""
    let list: ScenarioList = decode(
        "list_scenarios",
        json!({
            "scenarios": [{
                "scenario_id": "aaaaaaaabbbbbbbbcccccccc",
                "name": "Goblin ambush",
                "description": "A road, three goblins.",
                "visibility": "public",
                "traits": ["combat"],
                "slot_count": 4,
                "target_count": 1,
                "has_aic_slot": true,
                "directly_runnable": false,
                "created_by": "store"
            }],
            "total_returned": 1,
            "offset": 0
        }),
    );
    let store = &list.scenarios[0];
    assert!(!store.directly_runnable);
    assert_eq!((list.total_returned, list.offset), (1, 0));
    assert_eq!(store.name, json!("Goblin ambush"));
    assert_eq!(
        store.extra["created_by"],
        json!("store"),
        "unnamed fields are kept"
    );
    // "copy_scenario(...) -> returns {"scenario_id": "ddddddddeeeeeeeeffffffff"}"
    let copied: CopiedScenario = decode(
        "copy_scenario",
        json!({"scenario_id": "ddddddddeeeeeeeeffffffff"}),
    );
    assert_eq!(copied.scenario_id, "ddddddddeeeeeeeeffffffff");
    // `directly_runnable` is what tells store scenarios apart: it must be there.
    let err = mcp_bindgen::decode_result::<ScenarioList>(
        "list_scenarios",
        CallToolResult::structured(json!({"scenarios": [{"scenario_id": "a", "name": "n",
            "description": "", "visibility": "", "traits": [], "slot_count": 1,
            "target_count": 1, "has_aic_slot": false}], "total_returned": 1, "offset": 0})),
    )
    .expect_err("directly_runnable missing");
    assert!(err.to_string().contains("directly_runnable"), "{err}");
}

#[test]
fn suites_batches_and_submissions() {
    let suites: SuiteList = decode(
        "list_suites",
        json!({"suites": [{"suite_key": "core", "version": 3, "title": "Core", "description": "",
            "traits": [], "reps_per_scenario": 2, "released_at": "2026-01-05T00:00:00Z"}]}),
    );
    assert_eq!(
        (
            suites.suites[0].suite_key.as_str(),
            suites.suites[0].version
        ),
        ("core", 3)
    );

    let batch: Batch = decode(
        "get_batch",
        json!({"batch_id": "ddddddddeeeeeeeeffffffff",
            "run_counts": {"pending": 1, "running": 2, "completed": 3, "failed": 0},
            "created_at": "2026-01-05T00:00:00Z"}),
    );
    let counts = &batch.run_counts;
    assert_eq!(
        (
            counts.pending,
            counts.running,
            counts.completed,
            counts.failed
        ),
        (1, 2, 3, 0)
    );

    // "initial run counts": read when they come as `run_counts`, not required.
    let created: CreatedBatch = decode(
        "create_batch",
        json!({"batch_id": "ddddddddeeeeeeeeffffffff", "status": "queued"}),
    );
    assert!(created.run_counts.is_none());
    assert_eq!(created.extra["status"], json!("queued"));

    let submitted: CreatedSubmission = decode(
        "submit_to_benchmark",
        json!({"submission_id": "ddddddddeeeeeeeeffffffff", "status": "queued"}),
    );
    assert_eq!(submitted.submission_id, "ddddddddeeeeeeeeffffffff");
    let done: SubmissionStatus = decode(
        "get_submission",
        json!({"status": "complete", "aggregate_result": {"score": 0.8}, "leaderboard_visible": true}),
    );
    assert_eq!(done.status, "complete");
    assert_eq!(done.aggregate_result, json!({"score": 0.8}));
}

#[test]
fn runs_as_a_bare_list_or_in_an_object() {
    let bare: RunList = decode(
        "list_runs",
        json!([{"run_id": "run_1", "status": "active", "scored": false}]),
    );
    assert!(matches!(bare, RunList::Array(ref runs) if runs[0].run_id == "run_1"));
    let wrapped: RunList = decode(
        "list_runs",
        json!({"runs": [{"run_id": "run_2", "status": "completed", "scored": true}]}),
    );
    assert!(matches!(wrapped, RunList::RunListVariant1(ref r) if r.runs[0].scored));
}

#[test]
fn scene_and_status_with_and_without_degradation() {
    let scene: Scene = decode(
        "get_scene",
        json!({"narration": "The door creaks.", "recent_messages": [], "session_state": "active",
            "awaiting": "player", "combat": null}),
    );
    assert_eq!(scene.session_state, SessionState::Active);
    assert_eq!(scene.degraded, None);
    // "when the backend cannot reach dm-service ... degraded: true ... retry_after_seconds ...
    // The session_state is "unknown" in this case."
    let status: RunStatus = decode(
        "get_status",
        json!({"status": "active", "session_state": "unknown", "awaiting": null, "combat": null,
            "turn_count": 12, "scored": false, "degraded": true, "retry_after_seconds": 5}),
    );
    assert_eq!(status.session_state, SessionState::Unknown);
    assert_eq!(
        (status.degraded, status.retry_after_seconds),
        (Some(true), Some(5.0))
    );
    assert_eq!(status.turn_count, 12);
    let err = mcp_bindgen::decode_result::<Scene>(
        "get_scene",
        CallToolResult::structured(json!({"narration": "", "session_state": "sleeping",
            "awaiting": null, "combat": null})),
    )
    .expect_err("not a session state");
    assert!(err.to_string().contains("session_state"), "{err}");
}

#[test]
fn join_info() {
    let join: JoinInfo = decode(
        "get_join_info",
        json!({"ws_url": "wss://play.savingthrow.dev/ws", "character_token": "ct_1",
            "session_id": "sess_1", "protocol": 2}),
    );
    assert_eq!(join.ws_url, "wss://play.savingthrow.dev/ws");
    assert_eq!(join.protocol, json!(2));
}
