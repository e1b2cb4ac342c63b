//! A TLS front on loopback: terminates TLS with a test certificate and forwards each request,
//! one per connection, to a plain HTTP server. For the tests of what the client trusts
//! (`SSL_CERT_FILE`) that need no external server.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub(crate) struct TlsFront {
    /// `https://localhost:PORT`
    pub(crate) origin: String,
}

impl TlsFront {
    /// Serves `cert` (PEM, with its `key`) on 127.0.0.1 and forwards to `upstream`
    /// (`host:port`).
    pub(crate) fn start(cert: &[u8], key: &[u8], upstream: String) -> Self {
        let certs = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<Vec<_>, _>>()
            .expect("certificate PEM");
        let key = PrivateKeyDer::from_pem_slice(key).expect("key PEM");
        // ring, as the runtime (rustls 0.23.48 deprecates it: no post-quantum key exchange).
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("certificate and key");
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let origin = format!(
            "https://localhost:{}",
            listener.local_addr().expect("address").port()
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let (config, upstream) = (config.clone(), upstream.clone());
                std::thread::spawn(move || {
                    // A handshake the client refuses ends here; that is what some tests want.
                    let _ = forward(stream, config, &upstream);
                });
            }
        });
        TlsFront { origin }
    }
}

fn forward(
    stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
    upstream: &str,
) -> std::io::Result<()> {
    let connection = rustls::ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut tls = rustls::StreamOwned::new(connection, stream);
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 65536 || tls.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let length = text
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    tls.read_exact(&mut body)?;
    let mut server = TcpStream::connect(upstream)?;
    let mut forwarded = text;
    forwarded.truncate(forwarded.len() - 2);
    forwarded.push_str("Connection: close\r\n\r\n");
    server.write_all(forwarded.as_bytes())?;
    server.write_all(&body)?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    tls.write_all(&answer)?;
    tls.conn.send_close_notify();
    tls.flush()
}
