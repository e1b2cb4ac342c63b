//! The client side against rmcp 3.11's client, in one criterion run (`cargo bench --bench
//! client`; see BENCHMARKS.md at the repository root for the figures).
//!
//! `client_round_trip_http/{ours,rmcp}` and `client_round_trip_https/{ours,rmcp}`: one small
//! `tools/call` (`add {a, b} -> {sum}`, structured output) over loopback, plain HTTP and TLS
//! 1.3, by our `HttpClient` and by rmcp's client on its reqwest transport, both talking to the
//! same server: rmcp's Streamable HTTP service (stateless, JSON responses) served by hyper, on
//! a plain listener and behind tokio-rustls (ring; a CA and certificate made here). Connections
//! are kept alive, so a round trip is one request and one response on an open connection.
//! `ours` negotiates 2026-07-28 with this server and rmcp's client 2025-11-25;
//! `ours_2025_11_25` is ours pinned to rmcp's version, so the two eras' cost on the server can
//! be told apart from the clients'.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
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
        let thread = std::thread::spawn(move || {
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
        });
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
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
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
    runtime
        .block_on(().serve(transport))
        .expect("rmcp connects")
}

fn round_trips(c: &mut Criterion) {
    let pki = pki();
    let server = Server::start(&pki);
    let runtime = current_thread();
    let arguments = arguments();
    for (group_name, url) in [
        (
            "client_round_trip_http",
            format!("http://127.0.0.1:{}/mcp", server.http_port),
        ),
        (
            "client_round_trip_https",
            format!("https://localhost:{}/mcp", server.https_port),
        ),
    ] {
        let ours = runtime
            .block_on(
                HttpClient::builder(&url)
                    .add_root_certificate(&pki.ca_pem)
                    .no_proxy()
                    .connect(),
            )
            .expect("ours connects");
        let result = runtime
            .block_on(ours.call_tool("add", arguments.clone()))
            .expect("ours calls");
        assert_eq!(result.structured_content, Some(json!({"sum": 3})));
        // Ours pinned to the version rmcp's client lands on, to tell the era's cost on the
        // server apart from the client's.
        let ours_legacy = runtime
            .block_on(
                HttpClient::builder(&url)
                    .add_root_certificate(&pki.ca_pem)
                    .no_proxy()
                    .protocol(mcp_bindgen::Protocol::Version("2025-11-25".into()))
                    .connect(),
            )
            .expect("ours connects");
        let theirs = rmcp_client(&runtime, &url, &pki);
        let params =
            rmcp::model::CallToolRequestParams::new("add").with_arguments(arguments.clone());
        let result = runtime
            .block_on(theirs.call_tool(params.clone()))
            .expect("rmcp calls");
        assert_eq!(result.structured_content, Some(json!({"sum": 3})));
        eprintln!(
            "{group_name}: ours on {:?}, rmcp on {:?}",
            ours.protocol_version(),
            theirs.peer_info().map(|i| i.protocol_version.to_string())
        );

        let mut group = c.benchmark_group(group_name);
        group.bench_function("ours", |b| {
            b.iter(|| {
                let result = runtime
                    .block_on(ours.call_tool("add", black_box(arguments.clone())))
                    .expect("call");
                assert!(!result.is_error());
            })
        });
        group.bench_function("ours_2025_11_25", |b| {
            b.iter(|| {
                let result = runtime
                    .block_on(ours_legacy.call_tool("add", black_box(arguments.clone())))
                    .expect("call");
                assert!(!result.is_error());
            })
        });
        group.bench_function("rmcp", |b| {
            b.iter(|| {
                let result = runtime
                    .block_on(theirs.call_tool(black_box(params.clone())))
                    .expect("call");
                assert_ne!(result.is_error, Some(true));
            })
        });
        group.finish();
        runtime.block_on(theirs.cancel()).expect("rmcp closes");
    }
    drop(server);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = round_trips
}
criterion_main!(benches);
