//! A call carrying an OAuth token (stored, valid) against the same call carrying an API key,
//! in the same run, over loopback HTTP to this crate's server: what OAuth adds per call once
//! signed in (an atomic load to see the token is fresh, a read lock to take it). And a call
//! with a DPoP-bound token against a Bearer one: what a proof adds (one ES256 signature, a
//! SHA-256 of the token, a longer request), the server taking both alike.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bindgen::oauth::{MemoryTokenStore, OAuth, Secret, TokenStore, Tokens};
use mcp_bindgen::server::{Handler, McpTool, Registry, ServerBuilder, ToolError};
use mcp_bindgen::{HttpClient, ToolCaller};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, json};

const TOKEN: &str = "bench-token";

struct Game;

/// Add two numbers.
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

impl Handler<Game> for Add {
    type Output = Sum;
    fn call(self, _: &mut Game) -> Result<Sum, ToolError> {
        Ok(Sum {
            sum: self.a + self.b,
        })
    }
}

fn bearer_calls(c: &mut Criterion) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut registry = Registry::new("bench", "1");
        registry.register::<Add>();
        let mut server = ServerBuilder::new()
            .bearer_token(TOKEN)
            .port(0)
            .listen(registry)
            .expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut Game) {
                std::thread::yield_now();
            }
        }
    });
    let url = format!("http://127.0.0.1:{}/mcp", rx.recv().expect("port"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let api_key = runtime
        .block_on(HttpClient::builder(&url).api_key(TOKEN).connect())
        .expect("connects");
    // A token kept from an earlier sign-in, valid for an hour.
    let store = MemoryTokenStore::new();
    let in_an_hour = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 3600;
    store
        .save_tokens(
            &url,
            &Tokens {
                issuer: "https://auth.example".into(),
                access_token: Secret::new(TOKEN),
                refresh_token: None,
                expires_at: Some(in_an_hour),
                scope: None,
                dpop_key: None,
            },
        )
        .expect("stores");
    let oauth = runtime
        .block_on(
            HttpClient::builder(&url)
                .oauth(OAuth::new().token_store(store))
                .connect(),
        )
        .expect("connects");
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    let mut group = c.benchmark_group("bearer_call");
    group.measurement_time(Duration::from_secs(5));
    for (name, client) in [("api_key", &api_key), ("oauth_stored_token", &oauth)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime
                    .block_on(client.call_tool("add", arguments.clone()))
                    .expect("call")
            })
        });
    }
    // The two in alternation, call by call, so that the machine's drift touches both alike:
    // criterion times the OAuth calls, and the ratio of the totals is printed.
    let mut totals = (Duration::ZERO, Duration::ZERO);
    group.bench_function("oauth_alternated_with_api_key", |b| {
        b.iter_custom(|iterations| {
            let mut oauth_time = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                runtime
                    .block_on(api_key.call_tool("add", arguments.clone()))
                    .expect("call");
                let middle = Instant::now();
                runtime
                    .block_on(oauth.call_tool("add", arguments.clone()))
                    .expect("call");
                let end = Instant::now();
                totals.0 += middle - start;
                totals.1 += end - middle;
                oauth_time += end - middle;
            }
            oauth_time
        })
    });
    group.finish();
    eprintln!(
        "alternated: OAuth with a stored token / API key = {:.3} ({:?} / {:?})",
        totals.1.as_secs_f64() / totals.0.as_secs_f64(),
        totals.1,
        totals.0
    );
    stop.store(true, Ordering::Relaxed);
    game.join().expect("game thread");
}

/// Two clients of one server that checks no token: one with a stored Bearer token, one with a
/// stored DPoP-bound token and its key.
fn dpop_calls(c: &mut Criterion) {
    use base64::Engine as _;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut registry = Registry::new("bench", "1");
        registry.register::<Add>();
        let mut server = ServerBuilder::new()
            .port(0)
            .listen(registry)
            .expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut Game) {
                std::thread::yield_now();
            }
        }
    });
    let url = format!("http://127.0.0.1:{}/mcp", rx.recv().expect("port"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let in_an_hour = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 3600;
    let key = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &ring::rand::SystemRandom::new(),
    )
    .expect("key");
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key.as_ref());
    // A token the size of a signed JWT, as authorization servers issue them.
    let token = "t".repeat(800);
    let connect = |dpop_key: Option<Secret>| {
        let store = MemoryTokenStore::new();
        store
            .save_tokens(
                &url,
                &Tokens {
                    issuer: "https://auth.example".into(),
                    access_token: Secret::new(token.clone()),
                    refresh_token: None,
                    expires_at: Some(in_an_hour),
                    scope: None,
                    dpop_key,
                },
            )
            .expect("stores");
        runtime
            .block_on(
                HttpClient::builder(&url)
                    .oauth(OAuth::new().token_store(store))
                    .connect(),
            )
            .expect("connects")
    };
    let bearer = connect(None);
    let bound = connect(Some(Secret::new(key)));
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    let mut group = c.benchmark_group("dpop_call");
    group.measurement_time(Duration::from_secs(5));
    for (name, client) in [("bearer", &bearer), ("dpop", &bound)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime
                    .block_on(client.call_tool("add", arguments.clone()))
                    .expect("call")
            })
        });
    }
    let mut totals = (Duration::ZERO, Duration::ZERO);
    group.bench_function("dpop_alternated_with_bearer", |b| {
        b.iter_custom(|iterations| {
            let mut dpop_time = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                runtime
                    .block_on(bearer.call_tool("add", arguments.clone()))
                    .expect("call");
                let middle = Instant::now();
                runtime
                    .block_on(bound.call_tool("add", arguments.clone()))
                    .expect("call");
                let end = Instant::now();
                totals.0 += middle - start;
                totals.1 += end - middle;
                dpop_time += end - middle;
            }
            dpop_time
        })
    });
    group.finish();
    eprintln!(
        "alternated: DPoP-bound / Bearer = {:.3} ({:?} / {:?})",
        totals.1.as_secs_f64() / totals.0.as_secs_f64(),
        totals.1,
        totals.0
    );
    stop.store(true, Ordering::Relaxed);
    game.join().expect("game thread");
}

criterion_group!(benches, bearer_calls, dpop_calls);
criterion_main!(benches);
