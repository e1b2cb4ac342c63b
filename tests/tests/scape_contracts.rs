//! Scape's results, typed from the seed's agent contracts (`generated/contracts/`): observations
//! written to the seed's rules decode and re-encode to the same JSON, and what the rules forbid
//! does not decode.

use std::sync::Arc;

use mcp_bindgen::mock::MockCaller;
use mcp_bindgen::{CallToolResult, Error};
use mcp_bindings::scape::{self, types::*};
use pollster::block_on;
use serde_json::{Value, json};

fn round_trip(json: Value) -> AgentObservation {
    let observation: AgentObservation = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("does not decode: {e}\n{json:#}"));
    // Exactly: TypeScript numbers are written as JavaScript writes them (`15000`, not
    // `15000.0`), integers stay integers.
    assert_eq!(
        serde_json::to_value(&observation).expect("encodes"),
        json,
        "re-encoding changed the observation"
    );
    observation
}

fn limits() -> Value {
    json!({"radius": 6, "heartbeatMs": 15000, "idleTimeoutMs": 120000, "maxSpeechLength": 320})
}

/// "self can be null while connecting. movement is null before a movement operation exists."
fn connecting() -> Value {
    json!({
        "protocol": 1,
        "sessionId": "s-1",
        "revision": 0,
        "observedAt": 1767225600000_i64,
        "room": "lobby",
        "status": "connecting",
        "self": null,
        "players": [],
        "objects": [],
        "blocked": [],
        "movement": null,
        "limits": limits()
    })
}

fn connected_moving() -> Value {
    json!({
        "protocol": 1,
        "sessionId": "s-1",
        "revision": 7,
        "observedAt": 1767225601000_i64,
        "room": "lobby",
        "status": "connected",
        "self": {"x": 3, "y": 4, "floor": 0, "id": "agent-1", "name": "Scout", "text": ""},
        "players": [
            {"x": 10, "y": 12, "floor": 1, "id": "p-2", "name": "Ada", "text": "hi", "textRevision": 3, "settled": true}
        ],
        "objects": [
            {"x": 5, "y": 5, "floor": 0, "emoji": "\u{1f333}"},
            {"x": 6, "y": 5, "floor": 0, "emoji": "\u{1f4fb}", "text": "radio"}
        ],
        "blocked": [{"x": 0, "y": 0}, {"x": 63, "y": 39}],
        "movement": {"id": "op-1", "target": {"x": 8, "y": 4, "floor": 0}, "status": "moving"},
        "interacting": false,
        "limits": limits()
    })
}

#[test]
fn connecting_with_self_null() {
    let observation = round_trip(connecting());
    assert!(observation.self_.is_none());
    assert!(observation.movement.is_none());
    assert!(observation.pursuit.is_none(), "absent pursuit");
    assert_eq!(observation.protocol, AgentObservationProtocol);
}

#[test]
fn moving_then_arrived() {
    let moving = round_trip(connected_moving());
    let me = moving.self_.as_ref().expect("self");
    assert_eq!((me.x, me.y, *me.floor), (3, 4, 0), "integer grid cells");
    let movement = moving.movement.as_ref().expect("movement");
    assert_eq!(movement.id, "op-1");
    assert_eq!(movement.status, AgentMovementStatus::Moving);
    assert_eq!(moving.blocked[1].x, 63);
    assert_eq!(moving.players[0].text_revision, 3.0);

    let mut arrived = connected_moving();
    arrived["movement"]["status"] = json!("arrived");
    arrived["self"]["x"] = json!(8);
    let arrived = round_trip(arrived);
    assert_eq!(
        arrived.movement.expect("movement").status,
        AgentMovementStatus::Arrived
    );
    for status in ["stopped", "blocked", "timed_out", "disconnected"] {
        let mut other = connected_moving();
        other["movement"]["status"] = json!(status);
        round_trip(other);
    }
}

/// "pursuit may be absent or null": absent, null and present all come back as they were.
#[test]
fn pursuit_present_null_or_absent() {
    let absent = round_trip(connected_moving());
    assert_eq!(absent.pursuit, None);
    let mut null = connected_moving();
    null["pursuit"] = Value::Null;
    assert_eq!(round_trip(null).pursuit, Some(None));
    let mut present = connected_moving();
    present["pursuit"] = json!({
        "id": "op-9", "player": "p-2", "mode": "follow", "status": "holding", "expiresAt": 1767225660000_i64
    });
    let pursuit = round_trip(present).pursuit.flatten().expect("pursuit");
    assert_eq!(pursuit.mode, AgentPursuitMode::Follow);
    assert_eq!(pursuit.status, AgentPursuitStatus::Holding);
    assert_eq!(pursuit.expires_at, 1767225660000);
}

#[test]
fn roster_and_appearance() {
    let mut observation = connected_moving();
    observation["roster"] = json!([
        {"x": 1, "y": 1, "floor": 0, "id": "p-2", "name": "Ada", "encounterKey": "k1"},
        {"x": 2, "y": 1, "floor": 1, "id": "p-3", "name": "Bo"}
    ]);
    observation["appearance"] =
        json!({"kind": "robot", "emoji": "\u{1f916}", "model": null, "expressions": ["happy"]});
    let observation = round_trip(observation);
    let roster = observation.roster.expect("roster");
    assert_eq!(roster[0].encounter_key.as_deref(), Some("k1"));
    assert_eq!(roster[1].encounter_key, None);
    assert_eq!(observation.appearance.expect("appearance").model, None);
}

/// The scene, with the seed's four conveyor directions (U+FE0F kept).
#[test]
fn scene_with_emoji_conveyors() {
    let mut observation = connected_moving();
    observation["scene"] = json!({
        "blocked": [0, 65, 2559],
        "objects": [
            {"id": "c1", "x": 1, "y": 1, "emoji": "\u{1f6de}", "conveyorEmoji": "\u{27a1}\u{fe0f}"},
            {"id": "c2", "x": 2, "y": 1, "emoji": "\u{1f6de}", "conveyorEmoji": "\u{2b07}\u{fe0f}", "floor": 1},
            {"id": "c3", "x": 3, "y": 1, "emoji": "\u{1f6de}", "conveyorEmoji": "\u{2b05}\u{fe0f}"},
            {"id": "c4", "x": 4, "y": 1, "emoji": "\u{1f6de}", "conveyorEmoji": "\u{2b06}\u{fe0f}"},
            {"id": "door", "x": 9, "y": 9, "emoji": "\u{1f6aa}", "isEntry": true, "targetRoomName": "hall", "linkedRoom": true}
        ],
        "floor": 0,
        "hasBasement": true,
        "editing": "owner",
        "gameFacts": {"gemsEnabled": true, "gemRefundHours": 24}
    });
    let observation = round_trip(observation);
    let scene = observation.scene.expect("scene");
    assert_eq!(scene.blocked, [0, 65, 2559], "cell indexes y * 64 + x");
    let conveyors: Vec<_> = scene
        .objects
        .iter()
        .filter_map(|o| o.conveyor_emoji)
        .collect();
    use AgentSceneObjectConveyorEmoji::*;
    assert_eq!(conveyors, [Right, Down, Left, Up]);
    assert_eq!(scene.editing, Some(AgentSceneEditing::Owner));
    // Without U+FE0F it is not one of the declared values.
    let mut bad = serde_json::to_value(&scene.objects[0]).expect("encodes");
    bad["conveyorEmoji"] = json!("\u{27a1}");
    assert!(serde_json::from_value::<AgentSceneObject>(bad).is_err());
}

#[test]
fn what_the_rules_forbid_does_not_decode() {
    let refuse = |edit: &dyn Fn(&mut Value), why: &str| {
        let mut v = connected_moving();
        edit(&mut v);
        let err = serde_json::from_value::<AgentObservation>(v).expect_err(why);
        err.to_string()
    };
    assert!(
        refuse(&|v| v["self"]["floor"] = json!(2), "floor is 0 or 1")
            .contains("invalid Floor 2: not one of its values")
    );
    assert!(refuse(&|v| v["protocol"] = json!(2), "protocol is 1").contains("expected 1"));
    assert!(
        !refuse(
            &|v| v["self"]["x"] = json!(3.5),
            "coordinates are integer cells"
        )
        .is_empty()
    );
    assert!(
        refuse(
            &|v| v["movement"]["status"] = json!("teleported"),
            "status enum"
        )
        .contains("unknown variant")
    );
    assert!(
        refuse(
            &|v| {
                v.as_object_mut().expect("object").remove("movement");
            },
            "movement is always present"
        )
        .contains("missing field `movement`")
    );
}

#[test]
fn the_contract_constants() {
    assert_eq!(MAX_STATUS_TEXT_LENGTH, 320);
    assert_eq!(AGENT_NAME_MAX_LENGTH, 24);
    assert_eq!((grid::WIDTH, grid::HEIGHT), (64, 40));
}

fn scape(answer: Value) -> scape::Client<Arc<MockCaller>> {
    let mock = Arc::new(MockCaller::new());
    mock.push(Ok(CallToolResult::structured(answer)));
    scape::Client::new(mock)
}

/// A union told apart by a literal tag (`entered: true | false`) encodes its variant's fields
/// beside the tag and decodes back, and a payload that does not fit names the bad field's path.
#[test]
fn a_literal_tagged_union_round_trips_and_names_the_bad_field() {
    let pending = json!({
        "entered": false,
        "status": "awaiting_owner_approval",
        "expiresAt": 1767225900000_i64,
    });
    let value: AgentEnterResult = serde_json::from_value(pending.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(&value).expect("encodes"), pending);
    let entered =
        json!({"entered": true, "observation": connecting(), "inactivityTimeoutMs": 120000});
    let value: AgentEnterResult = serde_json::from_value(entered.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(&value).expect("encodes"), entered);
    let bad = json!({"entered": false, "status": "awaiting_owner_approval", "expiresAt": "soon"});
    let err = serde_json::from_value::<AgentEnterResult>(bad).expect_err("expiresAt is a number");
    assert!(
        err.to_string()
            .starts_with("expiresAt: invalid type: string \"soon\""),
        "{err}"
    );
}

/// Every method returns its typed result.
#[test]
fn every_method_is_typed() {
    let observation = block_on(scape(connected_moving()).scape_observe(&Default::default()))
        .expect("observation");
    assert_eq!(observation.revision, 7);

    let entered = block_on(
        scape(json!({"entered": true, "observation": connecting(), "inactivityTimeoutMs": 120000}))
            .scape_enter(),
    )
    .expect("entered");
    assert!(matches!(entered, AgentEnterResult::Entered(ref e) if e.observation.self_.is_none()));
    let pending = block_on(
        scape(json!({"entered": false, "status": "awaiting_owner_approval", "expiresAt": 1767225900000_i64}))
            .scape_enter(),
    )
    .expect("pending");
    assert!(
        matches!(pending, AgentEnterResult::NotEntered(ref p) if p.expires_at == 1767225900000)
    );

    let args = ScapeMoveToArgs {
        x: 8,
        y: 4,
        floor: Floor::try_from(0).expect("floor"),
        command_id: Some("t1".into()),
    };
    let op = block_on(scape(json!({"operationId": "t1", "commandId": "t1"})).scape_move_to(&args))
        .expect("operation");
    assert_eq!(
        (op.operation_id.as_str(), op.command_id.as_str()),
        ("t1", "t1")
    );

    let ack: AgentAcknowledgement =
        block_on(scape(json!({"stopped": true})).scape_stop(&ScapeStopArgs { command_id: None }))
            .expect("acknowledged");
    assert_eq!(ack.0["stopped"], json!(true));

    // A result that does not fit is a decode error naming the path.
    let err = block_on(scape(json!({"operationId": 5})).scape_step(&ScapeStepArgs {
        direction: ScapeStepArgsDirection::Up,
        command_id: None,
    }))
    .expect_err("operationId is a string");
    assert!(
        matches!(err, Error::Decode { ref path, .. } if path == "operationId"),
        "{err}"
    );
}
