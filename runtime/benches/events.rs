//! Events (SEP-3415) on the game's side and end to end, each against its floor:
//! - `emit` of one occurrence with nobody listening, with a poll's lease (kept, no stream),
//!   and with 32 push streams open over loopback HTTP (each read by a client), against
//!   serializing the payload alone (what any delivery must do once): the difference is what an
//!   occurrence adds to the game's frame;
//! - from `emit` on the game thread to the occurrence decoded (typed) by a client's
//!   `EventStream` over loopback HTTP: median and 99th percentile of 2,000 occurrences, printed
//!   after criterion's results (criterion reports means, not tails).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use mcp_bindgen::HttpClient;
use mcp_bindgen::client::Protocol;
use mcp_bindgen::events::{EventItem, EventOptions};
use mcp_bindgen::server::{Emitter, EventType, Registry, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A unit died.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Died {
    unit: u32,
    team: String,
    x: f32,
    y: f32,
}

fn died(unit: u32) -> Died {
    Died {
        unit,
        team: "red".into(),
        x: 12.5,
        y: -3.25,
    }
}

/// A server polled on its own thread (about 1 kHz), until dropped.
struct Game {
    port: u16,
    emitter: Emitter<Died>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Game {
    fn start() -> Game {
        let mut registry = Registry::<()>::new("bench", "1");
        let emitter = registry
            .register_event(EventType::<Died>::new("died").keep(4096, Duration::from_secs(600)));
        let mut server = Server::listen(registry, 0).expect("listens");
        let port = server.port();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let stop = stop.clone();
            move || {
                while !stop.load(Ordering::Relaxed) {
                    server.poll_for(&mut (), Duration::from_millis(1));
                    std::thread::sleep(Duration::from_millis(1));
                }
                server.destroy();
            }
        });
        Game {
            port,
            emitter,
            stop,
            thread: Some(thread),
        }
    }

    async fn client(&self) -> HttpClient {
        HttpClient::builder(format!("http://127.0.0.1:{}/mcp", self.port))
            .protocol(Protocol::Modern)
            .connect()
            .await
            .expect("connects")
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn emit(c: &mut Criterion) {
    let mut group = c.benchmark_group("events/emit");
    group.bench_function("floor: serialize the payload", |b| {
        let payload = died(1);
        b.iter(|| black_box(serde_json::to_string(black_box(&payload)).unwrap()));
    });
    {
        let game = Game::start();
        group.bench_function("nobody listening", |b| {
            b.iter(|| game.emitter.emit(black_box(died(1))));
        });
        // A poll starts the lease: occurrences are kept, no stream to wake.
        let rt = runtime();
        rt.block_on(async {
            let client = game.client().await;
            client
                .poll_events("died", serde_json::Map::new(), None, None)
                .await
                .expect("poll");
        });
        group.bench_function("kept (a poll's lease), no stream", |b| {
            b.iter(|| game.emitter.emit(black_box(died(1))));
        });
    }
    {
        let game = Game::start();
        let rt = runtime();
        let readers = rt.block_on(async {
            let client = game.client().await;
            let mut readers = Vec::new();
            for _ in 0..32 {
                let mut stream =
                    client.stream_events("died", serde_json::Map::new(), EventOptions::new());
                readers.push(tokio::spawn(async move {
                    while let Some(item) = stream.next().await {
                        black_box(item.ok());
                    }
                }));
            }
            readers
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        while game.emitter.streams() != 32 {
            assert!(Instant::now() < deadline, "32 streams did not open");
            std::thread::sleep(Duration::from_millis(5));
        }
        group.bench_function("32 push streams open", |b| {
            b.iter(|| game.emitter.emit(black_box(died(1))));
        });
        for reader in readers {
            reader.abort();
        }
    }
    group.finish();
}

/// Emit on this thread, the occurrence decoded by a client's stream on the runtime: the
/// median and the 99th percentile.
fn latency() {
    let game = Game::start();
    let rt = runtime();
    let samples = 2000;
    let mut taken: Vec<Duration> = rt.block_on(async {
        let client = game.client().await;
        let mut stream = client
            .stream_events("died", serde_json::Map::new(), EventOptions::new())
            .typed::<Died>();
        let deadline = Instant::now() + Duration::from_secs(30);
        while game.emitter.streams() != 1 {
            assert!(Instant::now() < deadline, "the stream did not open");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let mut taken = Vec::with_capacity(samples);
        for unit in 0..samples as u32 {
            let emitter = game.emitter.clone();
            let started = Instant::now();
            // Emitted off the runtime, as a game thread would.
            std::thread::spawn(move || emitter.emit(died(unit)))
                .join()
                .expect("emitted");
            loop {
                match stream.next().await {
                    Some(Ok(EventItem::Event(o))) if o.data.unit == unit => break,
                    Some(_) => continue,
                    None => panic!("the stream ended"),
                }
            }
            taken.push(started.elapsed());
        }
        taken
    });
    taken.sort_unstable();
    let at = |q: f64| taken[((taken.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "events/latency emit -> typed occurrence over loopback HTTP ({samples} samples): \
         median {:?}, p99 {:?}, max {:?}",
        at(0.5),
        at(0.99),
        taken[taken.len() - 1]
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    emit(&mut c);
    c.final_summary();
    // `cargo bench -- <filter>` runs criterion's benches only.
    if std::env::args().skip(1).all(|a| a.starts_with('-')) {
        latency();
    }
}
