//! The plugin's costs:
//! - `idle_frame`: the `Last` schedule with the plugin's system and nothing queued, against the
//!   same schedule with one empty exclusive system (the difference is the plugin's cost per
//!   frame);
//! - `query_1000`: `query` of 1,000 entities with two components over loopback HTTP, the app
//!   updating in a tight loop on its own thread (calls per second = 1 / time per call);
//! - `frame_budget`: 32 HTTP clients against the app at 60 Hz with a 1 ms frame budget; one
//!   iteration is a round in which each client makes one `query` call. Latency percentiles,
//!   calls per frame, the busiest frame and the frames over their budget plus one call are
//!   printed.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_app::{App, Last};
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_bindgen::{HttpClient, ToolCaller};
use mcp_bindgen_bevy::{McpEndpoint, McpPlugin, McpStatus};
use serde_json::{Map, Value, json};

#[derive(Component, Reflect, Default)]
#[reflect(Component)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Reflect, Default)]
#[reflect(Component)]
struct Velocity {
    x: f32,
    y: f32,
}

fn noop(_: &mut World) {}

fn idle_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("idle_frame");
    let mut bare = App::new();
    bare.add_systems(Last, noop);
    bare.world_mut().run_schedule(Last);
    group.bench_function("empty_exclusive_system", |b| {
        b.iter(|| bare.world_mut().run_schedule(black_box(Last)))
    });
    let mut served = App::new();
    served.add_plugins(McpPlugin::default().port(0).capture_log(None));
    served.finish();
    served.cleanup();
    assert!(served.world().contains_resource::<McpEndpoint>());
    served.world_mut().run_schedule(Last);
    group.bench_function("mcp_plugin_system", |b| {
        b.iter(|| served.world_mut().run_schedule(black_box(Last)))
    });
    group.finish();
}

fn query_1000(c: &mut Criterion) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut app = App::new();
        app.add_plugins(McpPlugin::default().port(0).capture_log(None))
            .register_type::<Position>()
            .register_type::<Velocity>();
        for i in 0..1000 {
            let f = i as f32;
            app.world_mut()
                .spawn((Position { x: f, y: -f }, Velocity { x: 1.0, y: 0.5 }));
        }
        app.finish();
        app.cleanup();
        let url = app.world().resource::<McpEndpoint>().url.clone();
        tx.send(url).expect("url");
        while !flag.load(Ordering::Relaxed) {
            app.update();
            std::thread::yield_now();
        }
    });
    let url = rx.recv().expect("the app listens");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = runtime
        .block_on(HttpClient::connect(&url))
        .expect("connects");
    let arguments: Map<String, Value> = match json!({
        "with": ["frame::Position", "frame::Velocity"],
        "limit": 1000,
    }) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let first = runtime
        .block_on(client.call_tool("query", arguments.clone()))
        .expect("query");
    let structured = first.structured_content.expect("structured");
    assert_eq!(structured["total"], 1000);
    assert_eq!(structured["entities"].as_array().map(Vec::len), Some(1000));
    let mut group = c.benchmark_group("query_1000_entities_loopback_http");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("mcp_bindgen_bevy", |b| {
        b.iter(|| {
            black_box(
                runtime
                    .block_on(client.call_tool("query", arguments.clone()))
                    .expect("query"),
            )
        })
    });
    group.finish();
    stop.store(true, Ordering::Relaxed);
    let _ = game.join();
}

/// What the 60 Hz loop saw of the frames that polled.
#[derive(Debug, Default)]
struct FrameLog {
    frames: u64,
    calls: u64,
    most_calls: usize,
    worst: Duration,
    over_budget: u64,
}

const CLIENTS: usize = 32;
const BUDGET: Duration = Duration::from_millis(1);

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn frame_budget(c: &mut Criterion) {
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(FrameLog::default()));
    let (flag, frames) = (stop.clone(), log.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut app = App::new();
        app.add_plugins(
            McpPlugin::default()
                .port(0)
                .capture_log(None)
                .frame_budget(BUDGET),
        )
        .register_type::<Position>()
        .register_type::<Velocity>();
        for i in 0..1000 {
            let f = i as f32;
            app.world_mut()
                .spawn((Position { x: f, y: -f }, Velocity { x: 1.0, y: 0.5 }));
        }
        app.finish();
        app.cleanup();
        tx.send(app.world().resource::<McpEndpoint>().url.clone())
            .expect("url");
        let frame = Duration::from_secs(1) / 60;
        let mut next = Instant::now();
        let mut seen = 0;
        while !flag.load(Ordering::Relaxed) {
            app.update();
            let status = app.world().resource::<McpStatus>();
            if status.frame != seen && status.last_poll.calls > 0 {
                seen = status.frame;
                let stats = status.last_poll;
                let mut log = frames.lock().expect("log");
                log.frames += 1;
                log.calls += stats.calls as u64;
                log.most_calls = log.most_calls.max(stats.calls);
                log.worst = log.worst.max(stats.busy);
                if stats.busy > BUDGET + stats.longest {
                    log.over_budget += 1;
                }
            }
            next += frame;
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    });
    let url = rx.recv().expect("the app listens");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let clients: Vec<HttpClient> = (0..CLIENTS)
        .map(|_| {
            runtime
                .block_on(HttpClient::connect(&url))
                .expect("connects")
        })
        .collect();
    let arguments: Map<String, Value> = match json!({"with": ["frame::Position"], "limit": 10}) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    *log.lock().expect("log") = FrameLog::default();
    let latencies = Mutex::new(Vec::new());
    let mut group = c.benchmark_group("frame_budget_32_clients_60hz");
    group
        .throughput(Throughput::Elements(CLIENTS as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .sampling_mode(criterion::SamplingMode::Flat);
    group.bench_function("poll_for_1ms", |b| {
        b.iter_custom(|iters| {
            let started = Instant::now();
            for _ in 0..iters {
                let round: Vec<Duration> = runtime.block_on(async {
                    let calls = clients.iter().map(|client| {
                        let (client, arguments) = (client.clone(), arguments.clone());
                        async move {
                            let t = Instant::now();
                            client.call_tool("query", arguments).await.expect("query");
                            t.elapsed()
                        }
                    });
                    futures_join(calls).await
                });
                latencies.lock().expect("latencies").extend(round);
            }
            started.elapsed()
        })
    });
    group.finish();
    stop.store(true, Ordering::Relaxed);
    let _ = game.join();
    let log = log.lock().expect("log");
    let mut latencies = latencies.into_inner().expect("latencies");
    latencies.sort();
    eprintln!(
        "frame_budget_32_clients_60hz/poll_for_1ms: {} calls in {} frames that polled ({:.2} \
         per frame, at most {}); latency p50 {:?}, p99 {:?}, max {:?}; busiest frame {:?}; \
         frames over budget + one call: {}",
        log.calls,
        log.frames,
        log.calls as f64 / log.frames.max(1) as f64,
        log.most_calls,
        quantile(&latencies, 0.5),
        quantile(&latencies, 0.99),
        latencies.last().copied().unwrap_or_default(),
        log.worst,
        log.over_budget,
    );
}

/// Runs the futures concurrently on the runtime and returns their outputs in order.
async fn futures_join<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await.expect("task"));
    }
    out
}

criterion_group!(benches, idle_frame, query_1000, frame_budget);
criterion_main!(benches);
