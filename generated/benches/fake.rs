//! A call through a generated module's typed fake against the same call through
//! `mock::MockCaller`, in one run: the generated method, the argument check and the typed
//! decode are the same on both sides; the fake adds decoding the arguments into their type,
//! checking them again (a fake is a `ToolCaller` for any caller, not only the client), running
//! the fake, and serialising and checking its result against the output schema. The mock
//! answers a `CallToolResult` built once, cloned per call.
//!
//! Two tools: the Bevy game's `step` (an output schema to check) and Saving Throw's
//! `get_status` (a result typed from agent contracts: none to check).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::mock::MockCaller;
use mcp_bindgen::{CallToolResult, ToolError};
use mcp_bindings::{bevy_game, saving_throw};
use serde_json::json;

struct Game;

impl bevy_game::Fake for Game {
    async fn step(
        &self,
        args: bevy_game::types::StepArgs,
    ) -> Result<bevy_game::types::StepOutput, ToolError> {
        Ok(bevy_game::types::StepOutput {
            elapsed_secs: 10.0,
            first_frame: 1,
            frames: args.frames as u32,
            last_frame: args.frames,
            paused: true,
        })
    }
}

fn status() -> serde_json::Value {
    json!({
        "status": "running", "session_state": "active", "awaiting": null, "combat": null,
        "turn_count": 3, "scored": false
    })
}

struct Runs(saving_throw::types::RunStatus);

impl saving_throw::Fake for Runs {
    async fn get_status(
        &self,
        _: saving_throw::types::GetStatusArgs,
    ) -> Result<saving_throw::types::RunStatus, ToolError> {
        Ok(self.0.clone())
    }
}

fn bench(c: &mut Criterion) {
    let step = bevy_game::types::StepArgs { frames: 600 };
    let answer = CallToolResult::structured(json!({
        "elapsed_secs": 10.0, "first_frame": 1, "frames": 600, "last_frame": 600, "paused": true
    }));
    let faked = bevy_game::Client::new(bevy_game::Faked(Game));
    let mocked = bevy_game::Client::new(MockCaller::with_responder(move |_, _| Ok(answer.clone())));
    // Both answer the same.
    let expected = pollster::block_on(faked.step(&step)).expect("fake");
    assert_eq!(
        pollster::block_on(mocked.step(&step)).expect("mock"),
        expected
    );
    let mut group = c.benchmark_group("typed_call/step");
    group.bench_function("fake", |b| {
        b.iter(|| pollster::block_on(faked.step(black_box(&step))))
    });
    group.bench_function("mock_caller", |b| {
        b.iter(|| pollster::block_on(mocked.step(black_box(&step))))
    });
    group.finish();

    let args = saving_throw::types::GetStatusArgs {
        run_id: "run-1".into(),
    };
    let typed: saving_throw::types::RunStatus =
        serde_json::from_value(status()).expect("a RunStatus");
    let faked = saving_throw::Client::new(saving_throw::Faked(Runs(typed)));
    let answer = CallToolResult::structured(status());
    let mocked =
        saving_throw::Client::new(MockCaller::with_responder(move |_, _| Ok(answer.clone())));
    let expected = pollster::block_on(faked.get_status(&args)).expect("fake");
    assert_eq!(
        pollster::block_on(mocked.get_status(&args)).expect("mock"),
        expected
    );
    let mut group = c.benchmark_group("typed_call/get_status");
    group.bench_function("fake", |b| {
        b.iter(|| pollster::block_on(faked.get_status(black_box(&args))))
    });
    group.bench_function("mock_caller", |b| {
        b.iter(|| pollster::block_on(mocked.get_status(black_box(&args))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
