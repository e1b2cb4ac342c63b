//! Events end to end through generated code: `fixtures/edge/events.tools.json` is what
//! `mcp-bindgen capture` records of the skirmish game's server (checked here, so the fixture
//! cannot drift from the server), and the module generated from it (`snapshots/events.rs`)
//! polls and streams the game's events typed, over HTTP.

use std::time::Duration;

use mcp_bindgen::HttpClient;
use mcp_bindgen::client::Protocol;
use mcp_bindgen::events::{EventItem, EventOptions};
use mcp_bindgen_cli::live::{LiveOptions, capture_http};
use mcp_bindgen_tests::events::{Client, types};
use mcp_bindgen_tests::skirmish::{Running, Team, UnitDied, WaveStarted};
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/edge/events.tools.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture")).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_is_what_capture_records_of_the_skirmish_server() {
    let game = Running::start();
    let mut options = LiveOptions::default();
    options.protocol = Protocol::Modern;
    let captured = capture_http(&game.url(), &options).await.expect("captured");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/edge/events.tools.json"
        );
        let text = serde_json::to_string_pretty(&captured).unwrap() + "\n";
        std::fs::write(path, text).expect("written");
    }
    assert_eq!(
        captured,
        fixture(),
        "run with UPDATE_EXPECT=1 to record it again"
    );
}

async fn client(game: &Running) -> Client<HttpClient> {
    let caller = HttpClient::builder(game.url())
        .protocol(Protocol::Modern)
        .connect()
        .await
        .expect("connects");
    Client::new(caller)
}

fn died(unit: u32, kind: &str, team: Team) -> UnitDied {
    UnitDied {
        unit,
        kind: kind.into(),
        team,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_methods_poll_and_stream_typed_occurrences() {
    let game = Running::start();
    let client = client(&game).await;
    let blue = types::UnitDiedSubscription {
        team: Some(types::UnitDiedSubscriptionTeam::Blue),
    };
    let start = client.poll_unit_died(&blue, None).await.expect("poll");
    assert!(start.events.is_empty());
    let mut stream = client.stream_unit_died(&blue, EventOptions::new());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while game.died.streams() != 1 {
        assert!(std::time::Instant::now() < deadline, "no stream opened");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // A tool call on the game thread kills a red knight; gameplay kills two blue archers.
    let killed = client
        .kill(&types::KillArgs {
            kind: "knight".into(),
            team: types::KillArgsTeam::Red,
        })
        .await
        .expect("kill");
    assert_eq!(killed.result, 1);
    game.died.emit(died(2, "archer", Team::Blue));
    game.died.emit(died(3, "archer", Team::Blue));
    let mut heard = Vec::new();
    while heard.len() < 2 {
        let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("within 10 s")
            .expect("an item")
            .expect("typed");
        match item {
            EventItem::Event(occurrence) => heard.push(occurrence.data),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        heard,
        [
            types::UnitDiedEvent {
                kind: "archer".into(),
                team: types::UnitDiedEventTeam::Blue,
                unit: 2,
            },
            types::UnitDiedEvent {
                kind: "archer".into(),
                team: types::UnitDiedEventTeam::Blue,
                unit: 3,
            },
        ]
    );
    let page = client
        .poll_unit_died(&blue, start.cursor.as_deref())
        .await
        .expect("poll");
    let units: Vec<u32> = page.events.iter().map(|o| o.data.unit).collect();
    assert_eq!(units, [2, 3], "the red knight is filtered out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_offered_by_poll_only_is_streamed_by_polling() {
    let game = Running::start();
    let client = client(&game).await;
    let mut waves = client.stream_wave_started(EventOptions::new());
    // The first poll (from now) gives the cursor; the waves after it are heard.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while waves.cursor().is_none() {
        assert!(std::time::Instant::now() < deadline, "no first poll");
        let _ = tokio::time::timeout(Duration::from_millis(50), waves.next()).await;
    }
    for wave in 1..=2 {
        game.waves.emit(WaveStarted {
            wave,
            size: 10 * wave,
        });
    }
    let mut heard = Vec::new();
    while heard.len() < 2 {
        // A poll a second (the floor): within three.
        let item = tokio::time::timeout(Duration::from_secs(3), waves.next())
            .await
            .expect("within 3 s")
            .expect("an item")
            .expect("typed");
        if let EventItem::Event(occurrence) = item {
            heard.push((occurrence.data.wave, occurrence.data.size));
        }
    }
    assert_eq!(heard, [(1, 10), (2, 20)]);
    // Push is not offered: the server refuses it, and the stream says so.
    let mut pushed = client
        .stream_wave_started(EventOptions::new().delivery(mcp_bindgen::events::Delivery::Push));
    match pushed.next().await {
        Some(Ok(EventItem::Terminated(ended))) => {
            assert_eq!(ended.code, mcp_bindgen::events::code::UNSUPPORTED)
        }
        other => panic!("{other:?}"),
    }
}
