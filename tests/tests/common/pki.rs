//! Test PKI made by each test that needs TLS, shared by the test binaries.
#![allow(dead_code)] // each binary uses a part

use std::path::PathBuf;

/// A CA and certificates made for one test: `ca.pem`, a valid `localhost` certificate, an
/// expired one, and a second CA that signed nothing the servers use.
pub(crate) struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    pub(crate) fn new() -> Self {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: String| {
            std::fs::write(dir.path().join(name), text).expect("writes");
        };
        let ca = |name: &str| {
            let key = KeyPair::generate().expect("key");
            let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            params
                .distinguished_name
                .push(DnType::CommonName, format!("mcp-bindgen test {name}"));
            let cert = params.self_signed(&key).expect("CA");
            (cert, Issuer::new(params, key))
        };
        let (ca_cert, issuer) = ca("CA");
        write("ca.pem", ca_cert.pem());
        let (other_ca, _) = ca("other CA");
        write("other-ca.pem", other_ca.pem());
        for (name, expired) in [("server", false), ("expired", true)] {
            let key = KeyPair::generate().expect("key");
            let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
            if expired {
                params.not_before = rcgen::date_time_ymd(2020, 1, 1);
                params.not_after = rcgen::date_time_ymd(2021, 1, 1);
            }
            let cert = params.signed_by(&key, &issuer).expect("signs");
            write(&format!("{name}.pem"), cert.pem());
            write(&format!("{name}-key.pem"), key.serialize_pem());
        }
        // What `openssl req -x509 -newkey ... -subj /CN=localhost` makes: a self-signed
        // certificate that is a CA (basicConstraints CA:TRUE) and serves as its own server
        // certificate, which rustls refuses.
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).expect("self-signed");
        write("selfsigned.pem", cert.pem());
        write("selfsigned-key.pem", key.serialize_pem());
        Pki { dir }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn pem(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("pem")
    }
}
