//! What the HTTP client refuses and trusts: a token over a cleartext hop off the machine (the
//! route the request really takes, through the proxies), and the TLS roots (the system's and
//! those given), with what a certificate failure means for a person.

use std::sync::Arc;

use reqwest::Url;

use crate::Error;
use crate::client::is_loopback;

/// Where requests go: through the environment's proxies, one given proxy, or straight.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum ProxySetting {
    /// `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (and their lower-case forms).
    Environment,
    /// [`HttpClientBuilder::proxy`].
    Url(String),
    /// [`HttpClientBuilder::no_proxy`].
    Direct,
}

impl std::fmt::Debug for ProxySetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxySetting::Environment => f.write_str("Environment"),
            // The URL may hold a password: the host alone.
            ProxySetting::Url(url) => {
                let host = Url::parse(url).ok().and_then(|u| {
                    Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?))
                });
                f.debug_tuple("Url")
                    .field(&host.as_deref().unwrap_or("<unreadable>"))
                    .finish()
            }
            ProxySetting::Direct => f.write_str("Direct"),
        }
    }
}

/// Which proxy, if any, a request goes through: the rules reqwest applies, from the same
/// source (hyper-util's matcher: the environment's variables, or the one proxy of
/// [`HttpClientBuilder::proxy`]), so that the cleartext check sees the route the request takes.
pub(super) struct ProxyRoutes(Option<hyper_util::client::proxy::matcher::Matcher>);

impl ProxyRoutes {
    pub(super) fn of(setting: &ProxySetting) -> Self {
        use hyper_util::client::proxy::matcher::Matcher;
        ProxyRoutes(match setting {
            ProxySetting::Environment => Some(Matcher::from_system()),
            ProxySetting::Url(proxy) => Some(Matcher::builder().all(proxy.clone()).build()),
            ProxySetting::Direct => None,
        })
    }

    /// The host of the proxy a request to `url` is sent through; `None` when it goes
    /// straight to the server. A URL the matcher cannot read counts as proxied through an
    /// unknown host, so that the check fails closed.
    fn proxy_host(&self, url: &Url) -> Option<String> {
        let matcher = self.0.as_ref()?;
        let Ok(uri) = url.as_str().parse::<http::Uri>() else {
            return Some("<unknown>".to_owned());
        };
        let intercept = matcher.intercept(&uri)?;
        Some(intercept.uri().host().unwrap_or("<unknown>").to_owned())
    }
}

/// A bearer token never crosses a hop that is neither encrypted nor loopback: for an
/// `http://` URL, the server must be loopback, and so must the proxy the request goes through,
/// if any (a forwarding proxy reads the request, token included, as sent).
pub(super) fn refuse_cleartext(
    url: &Url,
    setting: &ProxySetting,
    routes: &ProxyRoutes,
) -> Result<(), Error> {
    let refuse = |message: String| {
        Err(Error::Auth {
            status: None,
            message,
            www_authenticate: None,
        })
    };
    let host = url.host_str().unwrap_or("the server");
    if !is_loopback(host) {
        return refuse(format!(
            "refusing to send the bearer token in cleartext to {host}: use an https:// URL, \
             or allow_insecure_http() on a network you trust"
        ));
    }
    match routes.proxy_host(url) {
        Some(proxy) if !is_loopback(&proxy) => {
            let (origin, bypass) = match setting {
                ProxySetting::Url(_) => ("set with proxy()", "no_proxy()"),
                _ => ("from HTTP_PROXY or ALL_PROXY", "NO_PROXY (or no_proxy())"),
            };
            refuse(format!(
                "refusing to send the bearer token in cleartext to {host} through the proxy \
                 {proxy} ({origin}), which is not on this machine: reach the server directly \
                 with {bypass}, use an https:// URL, or allow_insecure_http() on a network \
                 you trust"
            ))
        }
        _ => Ok(()),
    }
}

/// The rustls configuration: the ring provider, the system's roots plus `roots`.
pub(super) fn tls_config(roots: &[Vec<u8>], https: bool) -> Result<rustls::ClientConfig, Error> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    // rustls 0.23.48 deprecates the ring provider because it has no post-quantum key
    // exchange. ring stays, for a build without cmake or NASM: key exchange is X25519 or the
    // NIST curves, as with every rustls release before.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut extra = Vec::new();
    for (index, pem) in roots.iter().enumerate() {
        let before = extra.len();
        for cert in CertificateDer::pem_slice_iter(pem) {
            extra.push(cert.map_err(|e| {
                Error::transport_source(
                    format!(
                        "root certificate #{}: not a readable PEM certificate",
                        index + 1
                    ),
                    e,
                )
            })?);
        }
        if extra.len() == before {
            return Err(Error::transport(format!(
                "root certificate #{}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
                index + 1
            )));
        }
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::transport_source("could not set up TLS", e))?;
    let mut config = if https {
        let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider)
            .map_err(|e| {
                Error::transport_source(
                    "could not load CA certificates (install the system's CA certificates, set \
                     SSL_CERT_FILE, or add one with add_root_certificate)",
                    e,
                )
            })?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth()
    } else {
        // Plain HTTP: never used for a handshake (redirects are not followed).
        builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// What a certificate failure means and what to do about it, for the failures people meet
/// first: rustls names them by its variants (`UnknownIssuer`, `CaUsedAsEndEntity`, ...), which
/// say little to someone who only wanted HTTPS to work.
pub(super) fn tls_hint(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    // The causes only: the top error's text holds the URL, which may say anything.
    let mut chain = String::new();
    let mut next = error.source();
    while let Some(e) = next {
        chain.push_str(&e.to_string());
        chain.push('\n');
        next = e.source();
    }
    let hints: [(&[&str], &'static str); 5] = [
        (
            &["CaUsedAsEndEntity"],
            "the server presents a CA certificate as its own, which is what the common \
             `openssl req -x509` one-liner makes, and rustls refuses it: make a CA, then a \
             server certificate signed by it (basicConstraints CA:FALSE, subjectAltName \
             naming the host), serve that, and trust the CA with .add_root_certificate(pem), \
             --cacert FILE or SSL_CERT_FILE",
        ),
        (
            &["UnknownIssuer"],
            "the server's certificate is not signed by a CA this client trusts: give the CA's \
             certificate with .add_root_certificate(pem) (--cacert FILE on the command line) or \
             SSL_CERT_FILE=ca.pem; the system's CA certificates are trusted already",
        ),
        (
            &["BadSignature"],
            "a certificate's signature does not verify against its issuer: the server sends a \
             chain that does not belong to the CA given, or a damaged one",
        ),
        (
            &["NotValidForName", "not valid for name"],
            "the certificate does not name this host: connect with a name it lists in its \
             subjectAltName (often `localhost` rather than 127.0.0.1), or reissue it",
        ),
        (
            &["certificate expired"],
            "the server's certificate has expired (or this machine's clock is wrong): renew it",
        ),
    ];
    hints
        .iter()
        .find(|(needles, _)| needles.iter().any(|needle| chain.contains(needle)))
        .map(|(_, hint)| *hint)
}

#[cfg(test)]
mod tests;
