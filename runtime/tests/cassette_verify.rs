//! A cassette checked against the live server (`cassette::verify`): recorded over HTTP from a
//! game's server, the game changed, then its read-only calls played again. Only they are
//! played unless every call is asked for, and what answers differently is named by pointer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use mcp_bindgen::cassette::{self, Recorder, Verdict};
use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError};
use mcp_bindgen::{HttpClient, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

struct Game {
    placed: u32,
}

/// How many are placed.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only, idempotent)]
struct PlacedCount {}

#[derive(Serialize, JsonSchema)]
struct Count {
    count: u32,
}

impl Handler<Game> for PlacedCount {
    type Output = Count;
    fn call(self, game: &mut Game) -> Result<Count, ToolError> {
        Ok(Count { count: game.placed })
    }
}

/// Places `n` more.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Place {
    n: u32,
}

impl Handler<Game> for Place {
    type Output = Count;
    fn call(self, game: &mut Game) -> Result<Count, ToolError> {
        game.placed += self.n;
        Ok(Count { count: game.placed })
    }
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn verify_plays_the_read_only_calls_again_and_names_what_changed() {
    let mut registry = Registry::new("verify-game", "0.1.0");
    registry.register::<PlacedCount>();
    registry.register::<Place>();
    let mut server = Server::listen(registry, 0).expect("listens");
    let url = format!("http://127.0.0.1:{}/mcp", server.port());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let game = thread::spawn(move || {
        let mut game = Game { placed: 3 };
        while !flag.load(Ordering::Relaxed) {
            server.poll(&mut game);
            thread::sleep(Duration::from_millis(1));
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    let (same, changed, everything) = pollster::block_on(async {
        let client = HttpClient::connect(&url).await.expect("connects");
        let recorder = Recorder::create(&client, &path).expect("create");
        recorder
            .call_tool("placed_count", Map::new())
            .await
            .expect("count");
        recorder
            .call_tool("place", args(json!({"n": 2})))
            .await
            .expect("place");
        recorder.finish().expect("written");
        let calls = cassette::read(&path).expect("read");
        let tools: Vec<Value> = client.list_tools().await.expect("tools/list");
        // Nothing changed since the recording but what `place` did: the count now differs
        // from the first recorded answer.
        let same = cassette::verify(&calls, &tools, &client, false).await;
        // The game changes (not through the cassette): the count differs again.
        client
            .call_tool("place", args(json!({"n": 10})))
            .await
            .expect("place");
        let changed = cassette::verify(&calls, &tools, &client, false).await;
        let everything = cassette::verify(&calls, &tools, &client, true).await;
        (same, changed, everything)
    });
    stop.store(true, Ordering::Relaxed);
    game.join().expect("the game thread");

    // The recorded count was 3; after `place 2` the server says 5.
    assert_eq!(same.len(), 2);
    assert_eq!(
        same[0].verdict,
        Verdict::Differs {
            pointer: "/structuredContent/count".into(),
            recorded: json!(3),
            live: json!(5),
        }
    );
    // `place` is not read-only: not played unless asked.
    assert!(
        matches!(&same[1].verdict, Verdict::Skipped(why) if why.contains("read-only")),
        "{:?}",
        same[1]
    );
    assert_eq!(
        changed[0].verdict,
        Verdict::Differs {
            pointer: "/structuredContent/count".into(),
            recorded: json!(3),
            live: json!(15),
        }
    );
    // With every call played, `place 2` answers 17 where 5 was recorded.
    assert_eq!(everything[1].tool, "place");
    assert_eq!(
        everything[1].verdict,
        Verdict::Differs {
            pointer: "/structuredContent/count".into(),
            recorded: json!(5),
            live: json!(17),
        }
    );
}

#[test]
fn verify_finds_the_same_answers_same_and_a_gone_tool_skipped() {
    use mcp_bindgen::CallToolResult;
    use mcp_bindgen::mock::MockCaller;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    let answer = |_: &str, _: &Map<String, Value>| {
        let mut result = CallToolResult::structured(json!({"count": 1.0}));
        result.meta = Some(args(json!({"served_at": "now"})));
        Ok(result)
    };
    let recorder = Recorder::create(MockCaller::with_responder(answer), &path).expect("create");
    pollster::block_on(async {
        recorder
            .call_tool("count", Map::new())
            .await
            .expect("count");
        recorder.call_tool("gone", Map::new()).await.expect("gone");
    });
    recorder.finish().expect("written");
    let calls = cassette::read(&path).expect("read");
    let tools = [json!({"name": "count", "annotations": {"readOnlyHint": true}})];
    // `1` now where `1.0` was recorded, and another `_meta`: the same answer.
    let live = MockCaller::with_responder(|_, _| {
        let mut result = CallToolResult::structured(json!({"count": 1}));
        result.meta = Some(args(json!({"served_at": "later"})));
        Ok(result)
    });
    let verified = pollster::block_on(cassette::verify(&calls, &tools, &live, true));
    assert_eq!(verified[0].verdict, Verdict::Same);
    assert!(
        matches!(&verified[1].verdict, Verdict::Skipped(why) if why.contains("no longer lists")),
        "{:?}",
        verified[1]
    );
}
