//! The client side against rmcp 3.11's client, in one criterion run (`cargo bench --bench
//! client`; see BENCHMARKS.md at the repository root for the figures).
//!
//! `client_round_trip_http/{ours,rmcp}` and `client_round_trip_https/{ours,rmcp}`: one small
//! `tools/call` (`add {a, b} -> {sum}`, structured output) over loopback, plain HTTP and TLS
//! 1.3, by our `HttpClient` and by rmcp's client on its reqwest transport, both talking to the
//! same server: rmcp's Streamable HTTP service (stateless, JSON responses) served by hyper, on
//! a plain listener and behind tokio-rustls (ring; a CA and certificate made here). Connections
//! are kept alive, so a round trip is one request and one response on an open connection.
//! `ours` negotiates 2026-07-28 with this server and rmcp's client, as it comes, 2025-11-25
//! (`rmcp`); the two like-for-like pairs are `ours` against `rmcp_2026_07_28` (rmcp's client in
//! its `Discover` lifecycle, the 2026-07-28 era) and `ours_2025_11_25` (ours pinned) against
//! `rmcp`, so the two eras' cost on the server can be told apart from the clients'.
//!
//! `CLIENT_ALTERNATING=30 cargo bench --bench client` runs the same round trips in
//! alternation instead (30 rounds of 200 calls by each client in turn), for a machine whose
//! load drifts between criterion's groups: it prints each client's median and, round by round,
//! ours ÷ rmcp's time.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use mcp_bindgen::{HttpClient, ToolCaller};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Clone)]
struct RmcpAdd {
    tool_router: Arc<ToolRouter<RmcpAdd>>,
}

#[tool_router]
impl RmcpAdd {
    fn new() -> Self {
        RmcpAdd {
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    /// Add two numbers.
    #[tool(annotations(read_only_hint = true))]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for RmcpAdd {}

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// A test CA, and a `localhost` certificate it signed.
struct Pki {
    ca_pem: String,
    cert: rustls::pki_types::CertificateDer<'static>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
}

fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().expect("key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).expect("CA");
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().expect("key");
    let cert = CertificateParams::new(vec!["localhost".to_owned()])
        .expect("params")
        .signed_by(&key, &issuer)
        .expect("signs");
    Pki {
        ca_pem: ca_cert.pem(),
        cert: cert.der().clone(),
        key: rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
    }
}

/// The server thread's name, to tell its CPU time from the clients'.
const SERVER_THREAD: &str = "bench-server";

/// CPU time so far of this process's threads, in nanoseconds: the server thread's and the
/// rest's (the bench thread, and our client's I/O thread), from `/proc/self/task/*/schedstat`.
/// `None` where `/proc` is not there.
fn cpu_ns() -> Option<(u64, u64)> {
    let (mut server, mut client) = (0, 0);
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path();
        let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let Some(ns) = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        else {
            continue;
        };
        if comm.trim_end() == SERVER_THREAD {
            server += ns;
        } else {
            client += ns;
        }
    }
    Some((server, client))
}

/// rmcp's Streamable HTTP service served by hyper on its own thread (a current-thread
/// runtime), on a plain listener and a TLS one.
struct Server {
    http_port: u16,
    https_port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(pki: &Pki) -> Self {
        use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
        use rmcp::transport::streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService,
        };
        // ring, as the runtime (rustls 0.23.48 deprecates it: no post-quantum key exchange).
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(vec![pki.cert.clone()], pki.key.clone_key())
            .expect("certificate");
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(SERVER_THREAD.into())
            .spawn(move || {
                current_thread().block_on(async move {
                let handler = RmcpAdd::new();
                let service = StreamableHttpService::new(
                    move || Ok(handler.clone()),
                    Arc::new(NeverSessionManager::default()),
                    StreamableHttpServerConfig::default()
                        .with_legacy_session_mode(false)
                        .with_json_response(true),
                );
                let bind = || tokio::net::TcpListener::bind("127.0.0.1:0");
                let (http, https) = (bind().await.expect("binds"), bind().await.expect("binds"));
                let port = |l: &tokio::net::TcpListener| l.local_addr().expect("addr").port();
                port_tx.send((port(&http), port(&https))).expect("ports");
                loop {
                    let (stream, tls) = tokio::select! {
                        _ = &mut stop_rx => break,
                        accepted = http.accept() => match accepted {
                            Ok((stream, _)) => (stream, false),
                            Err(_) => continue,
                        },
                        accepted = https.accept() => match accepted {
                            Ok((stream, _)) => (stream, true),
                            Err(_) => continue,
                        },
                    };
                    let _ = stream.set_nodelay(true);
                    let service = service.clone();
                    let acceptor = acceptor.clone();
                    tokio::spawn(async move {
                        let hyper_service = hyper::service::service_fn(move |request| {
                            let mut service = service.clone();
                            async move { tower_service::Service::call(&mut service, request).await }
                        });
                        let http1 = hyper::server::conn::http1::Builder::new();
                        if tls {
                            let Ok(stream) = acceptor.accept(stream).await else {
                                return;
                            };
                            let io = hyper_util::rt::TokioIo::new(stream);
                            let _ = http1.serve_connection(io, hyper_service).await;
                        } else {
                            let io = hyper_util::rt::TokioIo::new(stream);
                            let _ = http1.serve_connection(io, hyper_service).await;
                        }
                    });
                }
            });
            })
            .expect("server thread");
        let (http_port, https_port) = port_rx.recv().expect("ports");
        Server {
            http_port,
            https_port,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().expect("server thread");
        }
    }
}

fn arguments() -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    arguments
}

/// rmcp's client on its reqwest transport, with the same TLS settings as ours (ring, the test
/// CA, HTTP/1.1).
fn rmcp_client(
    runtime: &Runtime,
    url: &str,
    pki: &Pki,
    modern: bool,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    // ring, as the runtime (rustls 0.23.48 deprecates it: no post-quantum key exchange).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    use rustls::pki_types::pem::PemObject;
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(pki.ca_pem.as_bytes()) {
        roots.add(cert.expect("CA")).expect("adds the CA");
    }
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let _entered = runtime.enter();
    let http = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .no_proxy()
        .build()
        .expect("reqwest client");
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()),
    );
    let connected = if modern {
        use rmcp::ClientServiceExt;
        let lifecycle = rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        };
        runtime.block_on(().serve_with_lifecycle(transport, lifecycle))
    } else {
        runtime.block_on(().serve(transport))
    };
    connected.expect("rmcp connects")
}

/// The four clients of one scheme, connected to the bench's server.
struct Clients {
    group: &'static str,
    ours: HttpClient,
    /// Ours pinned to the version rmcp's client lands on, to tell the era's cost on the
    /// server apart from the client's.
    ours_legacy: HttpClient,
    /// rmcp's client in the 2026-07-28 era (its `Discover` lifecycle), like for like with `ours`.
    rmcp_modern: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    /// rmcp's client as it comes (the legacy `initialize` handshake).
    rmcp: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    params: rmcp::model::CallToolRequestParams,
}

impl Clients {
    fn connect(runtime: &Runtime, group: &'static str, url: &str, pki: &Pki) -> Self {
        let ours_with = |protocol: Option<&str>| {
            let mut builder = HttpClient::builder(url)
                .add_root_certificate(&pki.ca_pem)
                .no_proxy();
            if let Some(version) = protocol {
                builder = builder.protocol(mcp_bindgen::Protocol::Version(version.into()));
            }
            runtime.block_on(builder.connect()).expect("ours connects")
        };
        let ours = ours_with(None);
        let result = runtime
            .block_on(ours.call_tool("add", arguments()))
            .expect("ours calls");
        assert_eq!(result.structured_content, Some(json!({"sum": 3})));
        let ours_legacy = ours_with(Some("2025-11-25"));
        let rmcp_modern = rmcp_client(runtime, url, pki, true);
        let rmcp = rmcp_client(runtime, url, pki, false);
        let params = rmcp::model::CallToolRequestParams::new("add").with_arguments(arguments());
        for client in [&rmcp_modern, &rmcp] {
            let result = runtime
                .block_on(client.call_tool(params.clone()))
                .expect("rmcp calls");
            assert_eq!(result.structured_content, Some(json!({"sum": 3})));
        }
        let version = |client: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
            client.peer_info().map(|i| i.protocol_version.to_string())
        };
        eprintln!(
            "{group}: ours on {:?}, ours pinned on {:?}, rmcp_2026_07_28 on {:?}, rmcp on {:?}",
            ours.protocol_version(),
            ours_legacy.protocol_version(),
            version(&rmcp_modern),
            version(&rmcp),
        );
        Clients {
            group,
            ours,
            ours_legacy,
            rmcp_modern,
            rmcp,
            params,
        }
    }

    const NAMES: [&'static str; 4] = ["ours", "ours_2025_11_25", "rmcp_2026_07_28", "rmcp"];

    /// For each of ours, the rmcp client that speaks the same era (an index into
    /// [`Clients::NAMES`]).
    const SAME_ERA: [(usize, usize); 2] = [(0, 2), (1, 3)];

    /// One round trip by client `which` (an index into [`Clients::NAMES`]).
    fn call(&self, runtime: &Runtime, which: usize, arguments: &Map<String, Value>) {
        match which {
            0 | 1 => {
                let client = if which == 0 {
                    &self.ours
                } else {
                    &self.ours_legacy
                };
                let result = runtime
                    .block_on(client.call_tool("add", black_box(arguments.clone())))
                    .expect("call");
                assert!(!result.is_error());
            }
            _ => {
                let client = if which == 2 {
                    &self.rmcp_modern
                } else {
                    &self.rmcp
                };
                let result = runtime
                    .block_on(client.call_tool(black_box(self.params.clone())))
                    .expect("call");
                assert_ne!(result.is_error, Some(true));
            }
        }
    }

    fn close(self, runtime: &Runtime) {
        runtime
            .block_on(self.rmcp_modern.cancel())
            .expect("rmcp closes");
        runtime.block_on(self.rmcp.cancel()).expect("rmcp closes");
    }
}

/// Both schemes' clients, against one server.
fn with_clients(mut each: impl FnMut(&Runtime, &Clients)) {
    let pki = pki();
    let server = Server::start(&pki);
    let runtime = current_thread();
    for (group, url) in [
        (
            "client_round_trip_http",
            format!("http://127.0.0.1:{}/mcp", server.http_port),
        ),
        (
            "client_round_trip_https",
            format!("https://localhost:{}/mcp", server.https_port),
        ),
    ] {
        let clients = Clients::connect(&runtime, group, &url, &pki);
        each(&runtime, &clients);
        clients.close(&runtime);
    }
    drop(server);
}

fn round_trips(c: &mut Criterion) {
    let arguments = arguments();
    with_clients(|runtime, clients| {
        let mut group = c.benchmark_group(clients.group);
        for (which, name) in Clients::NAMES.into_iter().enumerate() {
            group.bench_function(name, |b| {
                b.iter(|| clients.call(runtime, which, &arguments))
            });
        }
        group.finish();
    });
}

/// The same round trips in alternation, for a machine whose load drifts: `rounds` rounds (30
/// unless `CLIENT_ALTERNATING` says otherwise) of `CALLS` calls by each client in turn, the
/// order rotated every round, so that each client meets the same conditions. Prints each
/// client's median time per call over the rounds, the CPU time per call on the client's side
/// and the server's (medians over the rounds), and, per round, ours ÷ rmcp's time (median, and
/// the quartiles).
fn alternating(rounds: usize, only: Option<&str>) {
    const CALLS: usize = 200;
    let arguments = arguments();
    with_clients(|runtime, clients| {
        let n = Clients::NAMES.len();
        for which in 0..n {
            for _ in 0..CALLS / 4 {
                clients.call(runtime, which, &arguments);
            }
        }
        let mut per_call = vec![Vec::with_capacity(rounds); n];
        // CPU µs per call: (server thread, every other thread = the client's side).
        let mut cpu = vec![Vec::with_capacity(rounds); n];
        for round in 0..rounds {
            for k in 0..n {
                let which = (round + k) % n;
                if only.is_some_and(|only| only != Clients::NAMES[which]) {
                    continue;
                }
                let cpu_before = cpu_ns();
                let started = Instant::now();
                for _ in 0..CALLS {
                    clients.call(runtime, which, &arguments);
                }
                per_call[which].push(started.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
                if let (Some(before), Some(after)) = (cpu_before, cpu_ns()) {
                    let per = |a: u64, b: u64| (a - b) as f64 / 1e3 / CALLS as f64;
                    cpu[which].push((per(after.0, before.0), per(after.1, before.1)));
                }
            }
        }
        println!("{} ({rounds} rounds of {CALLS} calls each):", clients.group);
        let rmcp = n - 1;
        for (which, name) in Clients::NAMES.into_iter().enumerate() {
            if per_call[which].is_empty() {
                continue;
            }
            print!(
                "  {name:<16} median {:7.1} µs/call",
                quartiles(&per_call[which]).1
            );
            if !cpu[which].is_empty() {
                let client: Vec<f64> = cpu[which].iter().map(|c| c.1).collect();
                let server: Vec<f64> = cpu[which].iter().map(|c| c.0).collect();
                print!(
                    "   CPU µs/call: client {:6.1}, server {:6.1}",
                    quartiles(&client).1,
                    quartiles(&server).1
                );
            }
            if which != rmcp && !per_call[rmcp].is_empty() {
                let ratios: Vec<f64> = (0..rounds)
                    .map(|i| per_call[which][i] / per_call[rmcp][i])
                    .collect();
                let (low, median, high) = quartiles(&ratios);
                print!("   ÷ rmcp per round: median {median:.3} (quartiles {low:.3}–{high:.3})");
            }
            println!();
        }
        for (ours, theirs) in Clients::SAME_ERA {
            if per_call[ours].is_empty() || per_call[theirs].is_empty() {
                continue;
            }
            let ratios: Vec<f64> = (0..rounds)
                .map(|i| per_call[ours][i] / per_call[theirs][i])
                .collect();
            let (low, median, high) = quartiles(&ratios);
            println!(
                "  same era: {} ÷ {} per round: median {median:.3} (quartiles {low:.3}–{high:.3})",
                Clients::NAMES[ours],
                Clients::NAMES[theirs]
            );
        }
    });
}

/// The lower quartile, the median and the upper quartile of `values` (not empty).
fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.5), at(0.75))
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = round_trips
}

fn main() {
    if let Some(rounds) = std::env::var_os("CLIENT_ALTERNATING") {
        let rounds = rounds.to_str().and_then(|r| r.parse().ok()).unwrap_or(30);
        // `CLIENT_ONLY=ours` (or another of `Clients::NAMES`): that client alone, to profile it.
        let only = std::env::var("CLIENT_ONLY").ok();
        alternating(rounds, only.as_deref());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
