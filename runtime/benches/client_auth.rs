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

/// The bench's game: `add` served on loopback (requiring `token` when given), polled in a
/// tight loop on its own thread until the returned flag is set.
fn game(token: Option<&str>) -> (String, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let token = token.map(str::to_owned);
    let (tx, rx) = std::sync::mpsc::channel();
    let game = std::thread::spawn(move || {
        let mut registry = Registry::new("bench", "1");
        registry.register::<Add>();
        let mut builder = ServerBuilder::new().port(0);
        if let Some(token) = token {
            builder = builder.bearer_token(token);
        }
        let mut server = builder.listen(registry).expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut Game) {
                std::thread::yield_now();
            }
        }
    });
    let url = format!("http://127.0.0.1:{}/mcp", rx.recv().expect("port"));
    (url, stop, game)
}

/// An OAuth client of `url` holding `token` (bound to `dpop_key` when given) from an earlier
/// sign-in, valid for an hour: no sign-in happens.
fn stored_token_client(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    token: &str,
    dpop_key: Option<Secret>,
) -> HttpClient {
    let in_an_hour = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 3600;
    let store = MemoryTokenStore::new();
    store
        .save_tokens(
            url,
            &Tokens {
                issuer: "https://auth.example".into(),
                access_token: Secret::new(token),
                refresh_token: None,
                expires_at: Some(in_an_hour),
                scope: None,
                dpop_key,
            },
        )
        .expect("stores");
    runtime
        .block_on(
            HttpClient::builder(url)
                .oauth(OAuth::new().token_store(store))
                .connect(),
        )
        .expect("connects")
}

/// Each client alone (criterion, one after the other), then `measured` and `baseline` in
/// alternation call by call, so that the machine's drift touches both alike: criterion times
/// `measured`'s calls, and the ratio of the totals is printed as `what`.
fn compare(
    c: &mut Criterion,
    group: &str,
    runtime: &tokio::runtime::Runtime,
    (baseline_name, baseline): (&str, &HttpClient),
    (measured_name, measured): (&str, &HttpClient),
    what: &str,
) {
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    let call = |client: &HttpClient| {
        runtime
            .block_on(client.call_tool("add", arguments.clone()))
            .expect("call")
    };
    let mut group = c.benchmark_group(group);
    group.measurement_time(Duration::from_secs(5));
    for (name, client) in [(baseline_name, baseline), (measured_name, measured)] {
        group.bench_function(name, |b| b.iter(|| call(client)));
    }
    let mut totals = (Duration::ZERO, Duration::ZERO);
    group.bench_function(
        format!("{measured_name}_alternated_with_{baseline_name}"),
        |b| {
            b.iter_custom(|iterations| {
                let mut measured_time = Duration::ZERO;
                for _ in 0..iterations {
                    let start = Instant::now();
                    call(baseline);
                    let middle = Instant::now();
                    call(measured);
                    let end = Instant::now();
                    totals.0 += middle - start;
                    totals.1 += end - middle;
                    measured_time += end - middle;
                }
                measured_time
            })
        },
    );
    group.finish();
    eprintln!(
        "alternated: {what} = {:.3} ({:?} / {:?})",
        totals.1.as_secs_f64() / totals.0.as_secs_f64(),
        totals.1,
        totals.0
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn bearer_calls(c: &mut Criterion) {
    let (url, stop, game) = game(Some(TOKEN));
    let runtime = runtime();
    let api_key = runtime
        .block_on(HttpClient::builder(&url).api_key(TOKEN).connect())
        .expect("connects");
    let oauth = stored_token_client(&runtime, &url, TOKEN, None);
    compare(
        c,
        "bearer_call",
        &runtime,
        ("api_key", &api_key),
        ("oauth", &oauth),
        "OAuth with a stored token / API key",
    );
    stop.store(true, Ordering::Relaxed);
    game.join().expect("game thread");
}

/// Two clients of one server that checks no token (so that it takes both alike): one with a
/// stored Bearer token, one with a stored DPoP-bound token and its key.
fn dpop_calls(c: &mut Criterion) {
    use base64::Engine as _;
    let (url, stop, game) = game(None);
    let runtime = runtime();
    let key = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &ring::rand::SystemRandom::new(),
    )
    .expect("key");
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key.as_ref());
    // A token the size of a signed JWT, as authorization servers issue them.
    let token = "t".repeat(800);
    let bearer = stored_token_client(&runtime, &url, &token, None);
    let bound = stored_token_client(&runtime, &url, &token, Some(Secret::new(key)));
    compare(
        c,
        "dpop_call",
        &runtime,
        ("bearer", &bearer),
        ("dpop", &bound),
        "DPoP-bound / Bearer",
    );
    stop.store(true, Ordering::Relaxed);
    game.join().expect("game thread");
}

criterion_group!(benches, bearer_calls, dpop_calls);
criterion_main!(benches);
