//! Typed fakes: every generated module's `Fake` trait and `Faked` adapter answer as the server
//! could, and no further. The `arena` fixture (`fixtures/edge/arena.tools.json`) has a tool
//! whose result type is wider than its output schema (`hp: i64` for `0..=100`), one without
//! arguments and one without an output schema; the seeds' modules show the same for a result
//! typed from agent contracts (Saving Throw) and for the Bevy game.

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_bindgen::{Error, ToolCaller, ToolError};
use mcp_bindgen_tests::arena::{self, Client, Fake, Faked, types};
use serde_json::{Map, Value, json};

/// A unit with 100 hit points that takes `damage` off them; counts the calls it ran.
#[derive(Default)]
struct Arena {
    hits: AtomicUsize,
    /// What `hit` answers instead of the arithmetic, when set.
    answer: Option<types::HitOutput>,
}

impl Fake for Arena {
    async fn hit(&self, args: types::HitArgs) -> Result<types::HitOutput, ToolError> {
        self.hits.fetch_add(1, Ordering::SeqCst);
        if args.target == "wall" {
            return Err(ToolError::new("walls cannot be hit").with_code("immune"));
        }
        Ok(self.answer.clone().unwrap_or(types::HitOutput {
            hp: 100 - args.damage as i64,
            tags: None,
            target: args.target,
        }))
    }

    async fn shout(&self, args: types::ShoutArgs) -> Result<Value, ToolError> {
        Ok(json!({ "heard": args.text.to_uppercase() }))
    }

    async fn siege(&self, args: types::SiegeArgs) -> Result<types::SiegeOutput, ToolError> {
        Ok(types::SiegeOutput {
            castle: args.castle,
            holder: "the defenders".into(),
            rounds: args.rounds,
        })
    }
}

fn hit(target: &str, damage: u64) -> types::HitArgs {
    types::HitArgs {
        damage,
        target: target.to_owned(),
    }
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[tokio::test]
async fn a_fake_answers_typed_through_the_generated_client() {
    let client = Client::new(Faked(Arena::default()));
    let answer = client.hit(&hit("orc", 30)).await.expect("hit");
    assert_eq!(
        answer,
        types::HitOutput {
            hp: 70,
            tags: None,
            target: "orc".into()
        }
    );
    // As a server sends it: the object as `structuredContent` and as JSON text.
    let raw = client.hit_raw(&hit("orc", 30)).await.expect("hit_raw");
    assert_eq!(
        raw.structured_content,
        Some(json!({ "hp": 70, "target": "orc" }))
    );
    assert_eq!(
        raw.texts().collect::<Vec<_>>(),
        [r#"{"hp":70,"target":"orc"}"#]
    );
    // A tool without an output schema: any JSON the fake answers.
    let heard = client
        .shout(&types::ShoutArgs { text: "hi".into() })
        .await
        .expect("shout");
    assert_eq!(heard, json!({ "heard": "HI" }));
    assert_eq!(client.caller().0.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_result_outside_the_output_schema_is_an_error_naming_the_tool_and_the_field() {
    let too_healthy = Arena {
        answer: Some(types::HitOutput {
            hp: 101,
            tags: None,
            target: "orc".into(),
        }),
        ..Arena::default()
    };
    let error = Client::new(Faked(too_healthy))
        .hit(&hit("orc", 1))
        .await
        .expect_err("hp 101 is above the schema's maximum of 100");
    let Error::Decode {
        tool,
        path,
        message,
        ..
    } = &error
    else {
        panic!("not a decode error: {error:?}");
    };
    assert_eq!((tool.as_str(), path.as_str()), ("hit", "hp"));
    assert!(message.contains("output schema"), "{message}");
    assert!(message.contains("100"), "{message}");

    // Nested: an array item's own constraint.
    let long_tag = Arena {
        answer: Some(types::HitOutput {
            hp: 5,
            tags: Some(vec!["ok".into(), "much too long".into()]),
            target: "orc".into(),
        }),
        ..Arena::default()
    };
    let error = Client::new(Faked(long_tag))
        .hit(&hit("orc", 1))
        .await
        .expect_err("a tag longer than 8 characters");
    assert!(
        matches!(&error, Error::Decode { tool, path, .. } if tool == "hit" && path == "tags[1]"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_tool_the_fake_does_not_implement_is_a_tool_error_naming_it() {
    let error = Client::new(Faked(Arena::default()))
        .reset()
        .await
        .expect_err("reset is not faked");
    let Error::Tool {
        tool,
        message,
        code,
        result,
    } = &error
    else {
        panic!("not a tool error: {error:?}");
    };
    assert_eq!(tool, "reset");
    assert_eq!(code.as_deref(), Some("not_faked"));
    assert!(message.contains("reset is not faked"), "{message}");
    assert!(message.contains("`Fake::reset`"), "{message}");
    assert!(result.is_error());
}

#[tokio::test]
async fn a_fakes_tool_error_reaches_the_caller_as_the_servers_would() {
    let error = Client::new(Faked(Arena::default()))
        .hit(&hit("wall", 10))
        .await
        .expect_err("walls are immune");
    assert!(
        matches!(
            &error,
            Error::Tool { tool, message, code, .. }
                if tool == "hit" && message == "walls cannot be hit" && code.as_deref() == Some("immune")
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn arguments_are_checked_before_the_fake_runs() {
    let faked = Faked(Arena::default());
    // Through the ToolCaller, as code that calls tools by name does: the input schema refuses
    // `damage: 0` (minimum 1), an unknown property, and a missing one.
    for (bad, pointer) in [
        (json!({ "target": "orc", "damage": 0 }), "/damage"),
        (
            json!({ "target": "orc", "damage": 5, "crit": true }),
            "/crit",
        ),
        (json!({ "damage": 5 }), ""),
    ] {
        let error = faked
            .call_tool("hit", arguments(bad.clone()))
            .await
            .expect_err("refused");
        assert!(
            matches!(&error, Error::InvalidArguments { tool, pointer: p, .. } if tool == "hit" && p == pointer),
            "{bad}: {error:?}"
        );
    }
    // Through the client too (which checks before calling at all).
    let error = Client::new(&faked)
        .hit(&hit("", 5))
        .await
        .expect_err("an empty target is refused (minLength 1)");
    assert!(
        matches!(&error, Error::InvalidArguments { pointer, .. } if pointer == "/target"),
        "{error:?}"
    );
    assert_eq!(faked.0.hits.load(Ordering::SeqCst), 0, "the fake never ran");

    // A tool without arguments refuses arguments its schema refuses.
    let error = faked
        .call_tool("reset", arguments(json!({ "hard": true })))
        .await
        .expect_err("reset takes no arguments");
    assert!(matches!(error, Error::InvalidArguments { .. }), "{error:?}");
}

#[tokio::test]
async fn a_tool_the_module_does_not_know_is_unknown_as_on_a_server() {
    let error = Faked(Arena::default())
        .call_tool("fly", Map::new())
        .await
        .expect_err("no such tool");
    assert!(
        matches!(&error, Error::Protocol { code: -32602, message, .. } if message.contains("fly")),
        "{error:?}"
    );
}

/// The seeds: a result typed from agent contracts (no output schema to check), and the Bevy
/// and tecs games' own tools, so that a game's agent code is tested without running the game.
#[tokio::test]
async fn the_seed_modules_have_fakes() {
    use mcp_bindings::{bevy_game, saving_throw};

    struct Steps;
    impl bevy_game::Fake for Steps {
        async fn step(
            &self,
            args: bevy_game::types::StepArgs,
        ) -> Result<bevy_game::types::StepOutput, ToolError> {
            let frames = u32::try_from(args.frames).map_err(|e| ToolError::new(e.to_string()))?;
            Ok(bevy_game::types::StepOutput {
                elapsed_secs: f64::from(frames) / 60.0,
                first_frame: 1,
                frames,
                last_frame: u64::from(frames),
                paused: true,
            })
        }
    }
    let game = bevy_game::Client::new(bevy_game::Faked(Steps));
    let stepped = game
        .step(&bevy_game::types::StepArgs { frames: 600 })
        .await
        .expect("step");
    assert_eq!((stepped.frames, stepped.last_frame), (600, 600));
    let error = game.ping().await.expect_err("ping is not faked");
    assert_eq!(error.code().as_deref(), Some("not_faked"));

    // The tecs example game's tools.
    struct Pong;
    impl mcp_bindings::tecs::Fake for Pong {
        async fn ping(&self) -> Result<mcp_bindings::tecs::types::PingOutput, ToolError> {
            Ok(mcp_bindings::tecs::types::PingOutput {
                frame: 7,
                pong: true,
            })
        }
    }
    let tecs = mcp_bindings::tecs::Client::new(mcp_bindings::tecs::Faked(Pong));
    assert_eq!(tecs.ping().await.expect("ping").frame, 7);

    struct Runs;
    impl saving_throw::Fake for Runs {
        async fn list_runs(&self) -> Result<saving_throw::types::RunList, ToolError> {
            serde_json::from_value(json!({ "runs": [] })).map_err(|e| ToolError::new(e.to_string()))
        }
    }
    let runs = saving_throw::Client::new(saving_throw::Faked(Runs))
        .list_runs()
        .await
        .expect("list_runs");
    assert_eq!(
        serde_json::to_value(&runs).expect("json")["runs"],
        json!([])
    );
}

#[test]
fn the_module_doc_says_how_to_fake() {
    // The way in is written where a user looks first.
    let snapshot = include_str!("../snapshots/arena.rs");
    assert!(snapshot.contains("implement [`Fake`] and hand `Client::new(Faked(fake))`"));
    let _: fn(Arena) -> arena::Client<Faked<Arena>> = |fake| Client::new(Faked(fake));
}

/// `siege` runs only as a task on the server; a fake runs no tasks, so its methods (the plain
/// one, which waits for the task, and `siege_task`) get the fake's answer at once, in a
/// handle without an id.
#[tokio::test]
async fn a_fake_answers_a_task_only_tool_at_once() {
    let client = Client::new(Faked(Arena::default()));
    let args = types::SiegeArgs {
        castle: "Dover".into(),
        rounds: 3,
    };
    let held = client.siege(&args).await.expect("siege");
    assert_eq!(held.holder, "the defenders");
    let handle = client.siege_task(&args).await.expect("siege_task");
    assert_eq!(handle.id(), None);
    assert_eq!(
        handle.status().await.expect("status").state,
        mcp_bindgen::TaskState::Completed
    );
    assert_eq!(handle.wait().await.expect("the answer"), held);
    // Arguments are checked against the input schema before anything runs, as for any tool.
    let error = client
        .siege(&types::SiegeArgs {
            castle: "Dover".into(),
            rounds: 0,
        })
        .await
        .expect_err("rounds start at 1");
    assert!(
        matches!(&error, Error::InvalidArguments { tool, .. } if tool == "siege"),
        "{error:?}"
    );
}
