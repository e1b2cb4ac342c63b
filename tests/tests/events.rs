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
    let mut stream = client
        .stream_unit_died(&blue, EventOptions::new())
        .await
        .expect("no drift");
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
    let mut waves = client
        .stream_wave_started(EventOptions::new())
        .await
        .expect("no drift");
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
        .stream_wave_started(EventOptions::new().delivery(mcp_bindgen::events::Delivery::Push))
        .await
        .expect("no drift");
    match pushed.next().await {
        Some(Ok(EventItem::Terminated(ended))) => {
            assert_eq!(ended.code, mcp_bindgen::events::code::UNSUPPORTED)
        }
        other => panic!("{other:?}"),
    }
}

fn interop(script: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("interop")
        .join(script)
}

/// The independent Python client (written from the SEP) checks this repository's server.
#[test]
fn an_independent_python_client_accepts_our_server() {
    let game = Running::start();
    let output = std::process::Command::new("python3")
        .arg(interop("py_events_client.py"))
        .arg(game.url())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for check in [
        "ok events/list",
        "ok events/poll",
        "ok maxEvents and hasMore",
        "ok truncated",
        "ok events/stream",
        "ok errors",
    ] {
        assert!(
            stdout.contains(check),
            "{check} missing:\n{stdout}\n{stderr}"
        );
    }
}

/// The independent Python server (written from the SEP), run until dropped.
struct PyServer {
    child: std::process::Child,
    url: String,
}

impl PyServer {
    fn start() -> PyServer {
        use std::io::BufRead;
        let mut child = std::process::Command::new("python3")
            .arg(interop("py_events_server.py"))
            .arg("0")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("a line");
        let url = line
            .trim()
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("not ready: {line}"))
            .to_owned();
        PyServer { child, url }
    }

    async fn client(&self) -> HttpClient {
        HttpClient::builder(&self.url)
            .protocol(Protocol::Modern)
            .connect()
            .await
            .expect("connects")
    }
}

impl Drop for PyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One weather reading's city and temperature.
#[derive(Debug, PartialEq, serde::Deserialize)]
struct Reading {
    city: String,
    celsius: f64,
}

async fn report(client: &HttpClient, city: &str, celsius: f64) {
    client
        .request(
            "tools/call",
            serde_json::json!({"name": "report", "arguments": {"city": city, "celsius": celsius}}),
        )
        .await
        .expect("report");
}

async fn readings(
    stream: &mut mcp_bindgen::events::EventStream<Reading>,
    n: usize,
) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    while out.len() < n {
        let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("within 10 s")
            .expect("an item")
            .expect("typed");
        if let EventItem::Event(occurrence) = item {
            out.push((occurrence.data.city, occurrence.data.celsius));
        }
    }
    out
}

/// Our client against the independent Python server: both modes, filtering by arguments, a
/// resumed stream, a gap, and a type without replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_reads_an_independent_python_server() {
    use mcp_bindgen::events::Delivery;
    let server = PyServer::start();
    let client = server.client().await;
    let types = client.list_events().await.expect("events/list");
    let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["weather.reading", "clock.tick"]);
    let oslo = serde_json::json!({"city": "Oslo"})
        .as_object()
        .cloned()
        .unwrap();
    for mode in [Delivery::Push, Delivery::Poll] {
        let mut stream = client
            .stream_events(
                "weather.reading",
                oslo.clone(),
                EventOptions::new().delivery(mode),
            )
            .typed::<Reading>();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while stream.cursor().is_none() {
            assert!(std::time::Instant::now() < deadline, "{mode:?}: no cursor");
            let _ = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        }
        report(&client, "Oslo", 3.0).await;
        report(&client, "Bergen", 9.5).await;
        report(&client, "Oslo", 4.5).await;
        assert_eq!(
            readings(&mut stream, 2).await,
            [("Oslo".to_owned(), 3.0), ("Oslo".to_owned(), 4.5)],
            "{mode:?}"
        );
        // Away while two more come: resumed from the cursor, nothing twice.
        let cursor = stream.cursor().expect("a cursor").to_owned();
        drop(stream);
        report(&client, "Oslo", 5.0).await;
        report(&client, "Oslo", 6.0).await;
        let mut again = client
            .stream_events(
                "weather.reading",
                oslo.clone(),
                EventOptions::new().delivery(mode).cursor(cursor.clone()),
            )
            .typed::<Reading>();
        assert_eq!(
            readings(&mut again, 2).await,
            [("Oslo".to_owned(), 5.0), ("Oslo".to_owned(), 6.0)],
            "{mode:?}"
        );
        drop(again);
        // Away too long (the server keeps five): truncated, then the five kept.
        for t in 0..7 {
            report(&client, "Oslo", f64::from(t)).await;
        }
        let mut late = client
            .stream_events(
                "weather.reading",
                oslo.clone(),
                EventOptions::new().delivery(mode).cursor(cursor),
            )
            .typed::<Reading>();
        let first = tokio::time::timeout(Duration::from_secs(10), late.next())
            .await
            .expect("within 10 s")
            .expect("an item")
            .expect("an item");
        assert!(
            matches!(first, EventItem::Truncated { .. }),
            "{mode:?}: {first:?}"
        );
        let kept: Vec<f64> = readings(&mut late, 5)
            .await
            .into_iter()
            .map(|r| r.1)
            .collect();
        assert_eq!(kept, [2.0, 3.0, 4.0, 5.0, 6.0], "{mode:?}");
    }
    // No replay: the cursor stays null, and the ticks still come.
    let mut ticks = client.stream_events("clock.tick", serde_json::Map::new(), EventOptions::new());
    for _ in 0..2 {
        client
            .request("tools/call", serde_json::json!({"name": "tick"}))
            .await
            .expect("tick");
    }
    let mut heard = 0;
    while heard < 2 {
        let item = tokio::time::timeout(Duration::from_secs(5), ticks.next())
            .await
            .expect("within 5 s")
            .expect("an item")
            .expect("an item");
        if let EventItem::Event(occurrence) = item {
            heard += 1;
            assert_eq!(occurrence.data["tick"], heard);
        }
    }
    assert_eq!(ticks.cursor(), None);
}

/// A side, one more than the capture knew.
#[derive(
    Clone, Copy, serde::Serialize, serde::Deserialize, mcp_bindgen::server::schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
enum TeamNow {
    /// The attackers.
    Red,
    /// The defenders.
    Blue,
    /// Mercenaries.
    Green,
}

/// A unit died.
#[derive(serde::Serialize, mcp_bindgen::server::schemars::JsonSchema)]
struct UnitDiedNow {
    /// The unit's id.
    unit: u32,
    /// What it was (`archer`, `knight`, ...).
    kind: String,
    /// Its side.
    team: TeamNow,
}

/// Which deaths a subscription hears.
#[derive(serde::Deserialize, mcp_bindgen::server::schemars::JsonSchema)]
struct ByTeamNow {
    /// Only this side's; both when absent.
    #[allow(dead_code)]
    team: Option<TeamNow>,
}

/// The generated module's drift guard covers its event types: a payload that may now carry a
/// value the client cannot read, and a type gone, stop the calls under `Strict` before
/// anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_type_that_drifted_is_refused_before_it_is_read() {
    use mcp_bindgen::server::{EventType, Registry, Server};
    let mut registry = Registry::<()>::new("skirmish", "1.0.0");
    registry.register_event(EventType::<UnitDiedNow, ByTeamNow>::new("unit_died"));
    let mut server = Server::listen(registry, 0).expect("listens");
    let url = format!("http://127.0.0.1:{}/mcp", server.port());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let frames = std::thread::spawn({
        let stop = stop.clone();
        move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                server.poll_for(&mut (), Duration::from_millis(1));
                std::thread::sleep(Duration::from_millis(1));
            }
            server.destroy();
        }
    });
    let caller = HttpClient::builder(&url)
        .protocol(Protocol::Modern)
        .drift_policy(mcp_bindgen::DriftPolicy::Strict)
        .connect()
        .await
        .expect("connects");
    let client = Client::new(caller);
    let all = types::UnitDiedSubscription { team: None };
    let widened = client
        .stream_unit_died(&all, EventOptions::new())
        .await
        .expect_err("the payload widened");
    assert!(
        matches!(&widened, mcp_bindgen::Error::Drift { .. }),
        "{widened}"
    );
    assert!(widened.to_string().contains("unit_died"), "{widened}");
    let report = client
        .caller()
        .catalog_drift(&mcp_bindgen_tests::events::PROVENANCE);
    let report = report.expect("a report");
    let rules: Vec<&str> = report.changes.iter().map(|c| c.rule.as_str()).collect();
    assert!(rules.contains(&"output-enum-widened"), "{rules:?}");
    assert!(
        rules.contains(&"event-removed"),
        "wave_started is gone: {rules:?}"
    );
    let gone = client.poll_wave_started(None).await.expect_err("gone");
    assert!(matches!(gone, mcp_bindgen::Error::Drift { .. }), "{gone}");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    frames.join().expect("the frames end");
}

/// A fake of the skirmish server serving events: what a test of code that reads them uses.
#[derive(Default)]
struct Skirmish {
    events: mcp_bindgen::fake::FakeEvents,
}

impl mcp_bindgen_tests::events::Fake for Skirmish {
    fn events(&self) -> Option<&mcp_bindgen::fake::FakeEvents> {
        Some(&self.events)
    }
}

/// A fake emits typed occurrences: a generated client over it streams and polls them as it
/// would the server's, and one that serves none says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_emits_typed_occurrences_to_the_generated_client() {
    use mcp_bindgen_tests::events::Faked;
    let events = mcp_bindgen::fake::FakeEvents::new();
    let client = Client::new(Faked(Skirmish {
        events: events.clone(),
    }));
    let all = types::UnitDiedSubscription { team: None };
    let start = client.poll_unit_died(&all, None).await.expect("poll");
    assert!(start.events.is_empty());
    let mut stream = client
        .stream_unit_died(&all, EventOptions::new())
        .await
        .expect("a stream");
    let knight = types::UnitDiedEvent {
        kind: "knight".into(),
        team: types::UnitDiedEventTeam::Red,
        unit: 7,
    };
    events.emit("unit_died", &knight);
    match stream.next().await.expect("an item").expect("typed") {
        EventItem::Event(occurrence) => assert_eq!(occurrence.data, knight),
        other => panic!("{other:?}"),
    }
    let page = client
        .poll_unit_died(&all, start.cursor.as_deref())
        .await
        .expect("poll");
    assert_eq!(page.events.len(), 1);
    assert_eq!(page.events[0].data, knight);
    // A payload that is not the event's type fails to decode, naming the event.
    events.emit("unit_died", &serde_json::json!({"unit": "seven"}));
    let wrong = stream
        .next()
        .await
        .expect("an item")
        .expect_err("undecodable");
    assert!(wrong.to_string().contains("unit_died"), "{wrong}");
    // A fake that serves no events.
    #[derive(Default)]
    struct Silent;
    impl mcp_bindgen_tests::events::Fake for Silent {}
    let silent = Client::new(Faked(Silent));
    let refused = silent.poll_unit_died(&all, None).await.expect_err("none");
    assert!(refused.to_string().contains("events"), "{refused}");
}

/// A cassette records a stream as it is read (each item when it passes) and replays it
/// without the server: the same typed occurrences, then the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cassette_records_and_replays_an_event_stream() {
    use mcp_bindgen::cassette::{Recorder, Replayer};
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("skirmish.jsonl");
    let red = types::UnitDiedSubscription {
        team: Some(types::UnitDiedSubscriptionTeam::Red),
    };
    let recorded: Vec<types::UnitDiedEvent> = {
        let game = Running::start();
        let http = HttpClient::builder(game.url())
            .protocol(Protocol::Modern)
            .connect()
            .await
            .expect("connects");
        let client = Client::new(Recorder::create(http, &path).expect("a cassette"));
        let mut stream = client
            .stream_unit_died(&red, EventOptions::new())
            .await
            .expect("no drift");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while game.died.streams() != 1 {
            assert!(std::time::Instant::now() < deadline, "no stream");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        game.died.emit(died(1, "knight", Team::Red));
        game.died.emit(died(2, "archer", Team::Blue));
        game.died.emit(died(3, "mage", Team::Red));
        let mut seen = Vec::new();
        while seen.len() < 2 {
            match stream.next().await.expect("an item").expect("typed") {
                EventItem::Event(occurrence) => seen.push(occurrence.data),
                other => panic!("{other:?}"),
            }
        }
        seen
    };
    assert_eq!(recorded.iter().map(|d| d.unit).collect::<Vec<_>>(), [1, 3]);
    let text = std::fs::read_to_string(&path).expect("the cassette");
    assert_eq!(
        text.lines().filter(|l| l.contains("\"events\":")).count(),
        2,
        "{text}"
    );
    // Replayed: no server.
    let replayer = Replayer::open(&path).expect("reads");
    let client = Client::new(replayer);
    let mut replayed = client
        .stream_unit_died(&red, EventOptions::new())
        .await
        .expect("no drift check offline");
    let mut again = Vec::new();
    while let Some(item) = replayed.next().await {
        match item.expect("typed") {
            EventItem::Event(occurrence) => again.push(occurrence.data),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(again, recorded);
    assert!(client.caller().unplayed_streams().is_empty());
    // Another subscription is not in the cassette: said so, naming what is.
    let blue = types::UnitDiedSubscription {
        team: Some(types::UnitDiedSubscriptionTeam::Blue),
    };
    let mut other = client
        .stream_unit_died(&blue, EventOptions::new())
        .await
        .expect("a stream");
    let error = other
        .next()
        .await
        .expect("an item")
        .expect_err("not recorded");
    assert!(
        matches!(error, mcp_bindgen::Error::Replay { .. }),
        "{error}"
    );
}

/// Over stdio, our client against our server: a poll, and a push stream whose occurrences the
/// server writes after the message that made them (a tool call that kills a unit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_our_client_polls_and_streams_our_server() {
    use mcp_bindgen::StdioClient;
    let stdio = StdioClient::builder(tokio::process::Command::new(env!(
        "CARGO_BIN_EXE_skirmish_stdio"
    )))
    .protocol(Protocol::Modern)
    .spawn()
    .await
    .expect("spawns");
    let client = Client::new(stdio);
    let all = types::UnitDiedSubscription { team: None };
    let start = client.poll_unit_died(&all, None).await.expect("poll");
    for mode in [
        mcp_bindgen::events::Delivery::Push,
        mcp_bindgen::events::Delivery::Poll,
    ] {
        let mut stream = client
            .stream_unit_died(&all, EventOptions::new().delivery(mode))
            .await
            .expect("no drift");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while stream.cursor().is_none() {
            assert!(std::time::Instant::now() < deadline, "{mode:?}: no cursor");
            let _ = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        }
        let killed = client
            .kill(&types::KillArgs {
                kind: "knight".into(),
                team: types::KillArgsTeam::Blue,
            })
            .await
            .expect("kill")
            .result;
        let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("within 10 s")
            .expect("an item")
            .expect("typed");
        match item {
            EventItem::Event(occurrence) => {
                assert_eq!(occurrence.data.unit, killed, "{mode:?}");
                assert_eq!(occurrence.data.team, types::UnitDiedEventTeam::Blue);
            }
            other => panic!("{mode:?}: {other:?}"),
        }
    }
    let page = client
        .poll_unit_died(&all, start.cursor.as_deref())
        .await
        .expect("poll");
    assert_eq!(page.events.len(), 2, "both kills, in order");
    assert!(page.events[0].data.unit < page.events[1].data.unit);
}
