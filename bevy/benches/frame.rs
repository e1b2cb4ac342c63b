//! The plugin's costs:
//! - `idle_frame`: the `Last` schedule with the plugin's system and nothing queued, against the
//!   same schedule with one empty exclusive system (the difference is the plugin's cost per
//!   frame);
//! - `query_1000`: `query` of 1,000 entities with two components over loopback HTTP, the app
//!   updating in a tight loop on its own thread (calls per second = 1 / time per call).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bevy_app::{App, Last};
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::{HttpClient, ToolCaller};
use mcp_bindgen_bevy::{McpEndpoint, McpPlugin};
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

criterion_group!(benches, idle_frame, query_1000);
criterion_main!(benches);
