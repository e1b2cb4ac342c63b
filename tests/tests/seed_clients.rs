//! Every Saving Throw and WorldForge method, called through an in-process `ToolCaller` that
//! records what it receives: the exact tool name and argument JSON, and refusal of values the
//! seeds forbid before anything is sent.

use std::sync::Arc;

use mcp_bindgen::mock::{MockCaller, RecordedCall};
use mcp_bindgen::{CallToolResult, Error};
use mcp_bindings::{saving_throw, worldforge};
use pollster::block_on;
use serde_json::{Value, json};

const SCENARIO: &str = "ddddddddeeeeeeeeffffffff";

fn recorder() -> Arc<MockCaller> {
    Arc::new(MockCaller::new())
}

fn only_call(mock: &MockCaller) -> RecordedCall {
    let calls = mock.calls();
    assert_eq!(calls.len(), 1, "expected exactly one call, got {calls:?}");
    calls.into_iter().next().expect("one call")
}

fn assert_sent(mock: &MockCaller, tool: &str, arguments: Value) {
    let call = only_call(mock);
    assert_eq!(call.name, tool);
    assert_eq!(call.arguments, arguments, "arguments sent to {tool}");
}

#[test]
fn saving_throw_sends_exact_names_and_arguments() {
    use saving_throw::types::*;
    let id = |s: &str| -> String { s.to_owned() };
    type Case = (
        &'static str,
        Value,
        Box<dyn Fn(&saving_throw::Client<Arc<MockCaller>>) -> Result<CallToolResult, Error>>,
    );
    let cases: Vec<Case> = vec![
        (
            "list_scenarios",
            json!({"limit": 50, "offset": 0}),
            Box::new(|c| block_on(c.list_scenarios_raw(&ListScenariosArgs::default()))),
        ),
        (
            "copy_scenario",
            json!({"scenario_id": "aaaaaaaabbbbbbbbcccccccc"}),
            Box::new(|c| {
                block_on(c.copy_scenario_raw(&CopyScenarioArgs {
                    scenario_id: "aaaaaaaabbbbbbbbcccccccc".parse().expect("valid id"),
                    name: None,
                }))
            }),
        ),
        (
            "list_suites",
            json!({}),
            Box::new(|c| block_on(c.list_suites_raw())),
        ),
        (
            // The seed's example: create_batch(scenario_ids=["dddd..."], reps_per_scenario=1)
            "create_batch",
            json!({"scenario_ids": [SCENARIO], "reps_per_scenario": 1}),
            Box::new(|c| {
                block_on(c.create_batch_raw(&CreateBatchArgs {
                    scenario_ids: vec![SCENARIO.parse().expect("valid id")],
                    reps_per_scenario: 1,
                }))
            }),
        ),
        (
            "get_batch",
            json!({"batch_id": SCENARIO}),
            Box::new(|c| {
                block_on(c.get_batch_raw(&GetBatchArgs {
                    batch_id: SCENARIO.parse().expect("valid id"),
                }))
            }),
        ),
        (
            "submit_to_benchmark",
            json!({"suite_key": "core", "suite_version": 3, "agent_label": "my-agent v1", "publish": true}),
            Box::new(|c| {
                block_on(c.submit_to_benchmark_raw(&SubmitToBenchmarkArgs {
                    suite_key: "core".into(),
                    suite_version: 3,
                    agent_label: "my-agent v1".parse().expect("printable ASCII"),
                    publish: true,
                }))
            }),
        ),
        (
            "get_submission",
            json!({"suite_key": "core", "suite_version": 3, "submission_id": SCENARIO}),
            Box::new(|c| {
                block_on(c.get_submission_raw(&GetSubmissionArgs {
                    suite_key: "core".into(),
                    suite_version: 3,
                    submission_id: SCENARIO.parse().expect("valid id"),
                }))
            }),
        ),
        (
            "list_runs",
            json!({}),
            Box::new(|c| block_on(c.list_runs_raw())),
        ),
        (
            "get_scene",
            json!({"run_id": "run_1"}),
            Box::new(move |c| {
                block_on(c.get_scene_raw(&GetSceneArgs {
                    run_id: id("run_1"),
                }))
            }),
        ),
        (
            "submit_action",
            json!({"run_id": "run_1", "content": "I open the door", "action_type": "speak"}),
            Box::new(move |c| {
                block_on(c.submit_action_raw(&SubmitActionArgs {
                    run_id: id("run_1"),
                    content: "I open the door".into(),
                    action_type: SubmitActionArgsActionType::default(),
                    choice: None,
                    combat: Default::default(),
                }))
            }),
        ),
        (
            "get_status",
            json!({"run_id": "run_1"}),
            Box::new(move |c| {
                block_on(c.get_status_raw(&GetStatusArgs {
                    run_id: id("run_1"),
                }))
            }),
        ),
        (
            "get_scorecard",
            json!({"run_id": "run_1"}),
            Box::new(move |c| {
                block_on(c.get_scorecard_raw(&GetScorecardArgs {
                    run_id: id("run_1"),
                }))
            }),
        ),
        (
            "get_coaching",
            json!({"run_id": "run_1"}),
            Box::new(move |c| {
                block_on(c.get_coaching_raw(&GetCoachingArgs {
                    run_id: id("run_1"),
                }))
            }),
        ),
        (
            "get_join_info",
            json!({"run_id": "run_1"}),
            Box::new(move |c| {
                block_on(c.get_join_info_raw(&GetJoinInfoArgs {
                    run_id: id("run_1"),
                }))
            }),
        ),
    ];
    assert_eq!(
        cases.len(),
        saving_throw::TOOL_NAMES.len(),
        "one case per tool"
    );
    for (tool, arguments, call) in cases {
        let mock = recorder();
        let client = saving_throw::Client::new(mock.clone());
        call(&client).unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_sent(&mock, tool, arguments);
    }
}

#[test]
fn worldforge_sends_exact_names_and_arguments() {
    use worldforge::types::*;
    let world = || "world_abc".to_owned();
    type Case = (
        &'static str,
        Value,
        Box<dyn Fn(&worldforge::Client<Arc<MockCaller>>) -> Result<Value, Error>>,
    );
    let cases: Vec<Case> = vec![
        (
            // readWorld(id) → read_world { id }
            "read_world",
            json!({"id": "world_abc"}),
            Box::new(move |c| block_on(c.read_world(&ReadWorldArgs { id: world() }))),
        ),
        (
            "get_world_summary",
            json!({"world_id": "world_abc"}),
            Box::new(move |c| {
                block_on(c.get_world_summary(&GetWorldSummaryArgs { world_id: world() }))
            }),
        ),
        (
            "list_lore",
            json!({"world_id": "world_abc"}),
            Box::new(move |c| {
                block_on(c.list_lore(&ListLoreArgs {
                    world_id: world(),
                    collection: None,
                }))
            }),
        ),
        (
            // { op: 'upsert', collection, entity } or { op: 'remove', collection, id }
            "propose_lore",
            json!({
                "world_id": "world_abc",
                "operations": [
                    {"op": "upsert", "collection": "pantheons", "entity": {"name": "Sun"}},
                    {"op": "remove", "collection": "eras", "id": "era_1"}
                ],
                "diff_summary": "Add the Sun, drop era 1",
            }),
            Box::new(move |c| {
                let mut entity = serde_json::Map::new();
                entity.insert("name".into(), json!("Sun"));
                block_on(c.propose_lore(&ProposeLoreArgs {
                    world_id: world(),
                    operations: vec![
                        ProposeLoreArgsOperationsItem::Upsert {
                            collection: "pantheons".into(),
                            entity,
                        },
                        ProposeLoreArgsOperationsItem::Remove {
                            collection: "eras".into(),
                            id: "era_1".into(),
                        },
                    ],
                    diff_summary: "Add the Sun, drop era 1".into(),
                    changeset_id: None,
                }))
            }),
        ),
        (
            "list_wiki_pages",
            json!({"world_id": "world_abc", "kind": "quest-log"}),
            Box::new(move |c| {
                block_on(c.list_wiki_pages(&ListWikiPagesArgs {
                    world_id: world(),
                    kind: Some(ListWikiPagesArgsKind::QuestLog),
                }))
            }),
        ),
        (
            "search_pois",
            json!({"world_id": "world_abc", "request": {"name": "inn", "radiusPx": 40.0}}),
            Box::new(move |c| {
                block_on(c.search_pois(&SearchPoisArgs {
                    world_id: world(),
                    request: SearchPoisArgsRequest {
                        name: Some("inn".into()),
                        radius_px: Some(40.0),
                        ..Default::default()
                    },
                }))
            }),
        ),
    ];
    assert_eq!(
        cases.len(),
        worldforge::TOOL_NAMES.len(),
        "one case per tool"
    );
    for (tool, arguments, call) in cases {
        let mock = recorder();
        let client = worldforge::Client::new(mock.clone());
        call(&client).unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_sent(&mock, tool, arguments);
    }
}

/// "limit (int, optional) — page size, 1–100 (default 50)": 101 never reaches the server.
#[test]
fn out_of_range_limit_is_refused_before_sending() {
    let mock = recorder();
    let client = saving_throw::Client::new(mock.clone());
    let args = saving_throw::types::ListScenariosArgs {
        limit: 101,
        offset: 0,
    };
    let err = block_on(client.list_scenarios(&args)).expect_err("101 is over the maximum");
    assert_eq!(
        err.to_string(),
        "invalid arguments for list_scenarios: arguments/limit: 101 is greater than the maximum 100"
    );
    assert!(mock.calls().is_empty(), "nothing may be sent");
}

/// "reps_per_scenario (int, optional) — repetitions per scenario, 1–10 (default 1)"
#[test]
fn out_of_range_reps_is_refused_before_sending() {
    let mock = recorder();
    let client = saving_throw::Client::new(mock.clone());
    let args = saving_throw::types::CreateBatchArgs {
        scenario_ids: vec![SCENARIO.parse().expect("valid id")],
        reps_per_scenario: 11,
    };
    let err = block_on(client.create_batch(&args)).expect_err("11 is over the maximum");
    assert!(
        matches!(&err, Error::InvalidArguments { pointer, .. } if pointer == "/reps_per_scenario"),
        "{err}"
    );
    assert!(mock.calls().is_empty());
}

/// "scenario_id (string, required) — 24-char hex ObjectId": a 23-char id cannot be built,
/// and the error names the type and the value.
#[test]
fn malformed_ids_cannot_be_constructed() {
    use saving_throw::types::ObjectId;
    let err = "aaaaaaaabbbbbbbbccccccc"
        .parse::<ObjectId>()
        .expect_err("23 chars");
    assert_eq!(
        err.to_string(),
        r#"invalid ObjectId "aaaaaaaabbbbbbbbccccccc": shorter than 24 characters"#
    );
    let err = ObjectId::try_from("aaaaaaaabbbbbbbbccccccxz").expect_err("not hex");
    assert!(err.to_string().contains("doesn't match pattern"), "{err}");
    // Nor can it be smuggled in through deserialisation.
    let err = serde_json::from_value::<saving_throw::types::CopyScenarioArgs>(
        json!({"scenario_id": "abc"}),
    )
    .expect_err("short id");
    assert!(
        err.to_string()
            .contains(r#"invalid ObjectId "abc": shorter than 24 characters"#),
        "{err}"
    );
}

/// The four tools that take a 24-hex id (copy_scenario, create_batch, get_batch,
/// get_submission) take one `ObjectId`, the type the agent contracts name: one type with one
/// check, not four copies.
#[test]
fn every_24_hex_id_is_one_object_id() {
    use saving_throw::types::*;
    let id: ObjectId = "aaaaaaaabbbbbbbbcccccccc".try_into().expect("valid id");
    let copy = CopyScenarioArgs {
        scenario_id: id.clone(),
        name: None,
    };
    let batch = CreateBatchArgs {
        scenario_ids: vec![copy.scenario_id.clone()],
        reps_per_scenario: 1,
    };
    let get = GetBatchArgs {
        batch_id: batch.scenario_ids[0].clone(),
    };
    let submission = GetSubmissionArgs {
        submission_id: get.batch_id,
        suite_key: "core".into(),
        suite_version: 3,
    };
    assert_eq!(submission.submission_id, id);
    let module = include_str!("../../generated/src/saving_throw.rs");
    assert_eq!(
        module.matches(r#"Regex::new("^[0-9a-fA-F]{24}$")"#).count(),
        1,
        "the 24-hex check is written once"
    );
    assert_eq!(module.matches("pub struct ObjectId").count(), 1);
}

/// "agent_label (string, required) — display name (printable ASCII, max 64 chars)": the label
/// is a plain `String`, and the client refuses one that breaks the rule before sending it.
#[test]
fn agent_label_must_be_printable_ascii_up_to_64() {
    use saving_throw::types::SubmitToBenchmarkArgs;
    let args = |agent_label: String| SubmitToBenchmarkArgs {
        agent_label,
        publish: true,
        suite_key: "core".into(),
        suite_version: 1,
    };
    for bad in [
        "tab\there".to_owned(),
        "caf\u{e9}".to_owned(),
        "x".repeat(65),
    ] {
        let mock = recorder();
        let client = saving_throw::Client::new(mock.clone());
        let err = block_on(client.submit_to_benchmark(&args(bad.clone()))).expect_err("refused");
        assert!(
            matches!(err, mcp_bindgen::Error::InvalidArguments { .. }),
            "{bad:?}: {err}"
        );
        assert!(mock.calls().is_empty(), "{bad:?} was sent");
    }
    let mock = recorder();
    let client = saving_throw::Client::new(mock.clone());
    let _ = block_on(client.submit_to_benchmark_raw(&args("x".repeat(64))));
    assert_eq!(only_call(&mock).arguments["agent_label"], "x".repeat(64));
}

/// "choice (int, optional) — 1-based option number, required when action_type is "choice""
#[test]
fn conditional_requirements_are_checked_before_sending() {
    use saving_throw::types::*;
    let mock = recorder();
    let client = saving_throw::Client::new(mock.clone());
    let args = SubmitActionArgs {
        run_id: "run_1".into(),
        content: "Option two".into(),
        action_type: SubmitActionArgsActionType::Choice,
        choice: None,
        combat: Default::default(),
    };
    let err = block_on(client.submit_action(&args)).expect_err("choice is required");
    assert_eq!(
        err.to_string(),
        "invalid arguments for submit_action: arguments: missing the required property \"choice\""
    );
    assert!(mock.calls().is_empty());
    let args = SubmitActionArgs {
        choice: Some(2),
        ..args
    };
    block_on(client.submit_action(&args)).expect("valid with a choice");
    assert_sent(
        &mock,
        "submit_action",
        json!({"run_id": "run_1", "content": "Option two", "action_type": "choice", "choice": 2}),
    );
}

/// The `_raw` variant is "the same call without the unwrapping, so the isError flag it
/// returns is never true" (WorldForge seed): failures are errors there too.
#[test]
fn raw_variant_returns_the_envelope_and_fails_on_is_error() {
    let mock = recorder();
    mock.push(Ok(CallToolResult::text("plain text")));
    mock.push(Ok(CallToolResult::error_text("world not found")));
    let client = worldforge::Client::new(mock.clone());
    let args = worldforge::types::ReadWorldArgs {
        id: "world_abc".into(),
    };
    let raw = block_on(client.read_world_raw(&args)).expect("raw result");
    assert_eq!(raw.texts().collect::<Vec<_>>(), ["plain text"]);
    let err = block_on(client.read_world_raw(&args)).expect_err("isError");
    match err {
        Error::Tool {
            tool,
            message,
            result,
            ..
        } => {
            assert_eq!(tool, "read_world");
            assert_eq!(message, "world not found");
            assert!(result.is_error());
        }
        other => panic!("expected Error::Tool, got {other:?}"),
    }
}
