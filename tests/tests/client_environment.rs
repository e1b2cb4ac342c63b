//! What the HTTP client takes from its environment, checked in child processes (environment
//! variables are per process, so tests running in parallel do not see each other's), against
//! servers on this machine only:
//!
//! - a bearer token never crosses a cleartext hop that leaves the machine: an `http://` loopback
//!   URL reached through a proxy that is not loopback (`HTTP_PROXY`, `http_proxy`, `ALL_PROXY`,
//!   or `.proxy(url)`) is refused before anything is sent, unless `.allow_insecure_http()`;
//!   `NO_PROXY` and a loopback proxy keep the token on the machine;
//! - `SSL_CERT_FILE` names the CA certificates an `https://` server is checked against.
//!
//! The proxy "not on this machine" is `0.0.0.0`: not a loopback address, so the client must
//! treat it as a remote hop, yet Linux delivers a connection to it locally, so the opt-in case
//! reaches the recording proxy and no traffic leaves the machine.

#[path = "common/host.rs"]
mod host;
#[path = "common/pki.rs"]
mod pki;
#[path = "common/proxy.rs"]
mod proxy;
#[path = "common/tls_front.rs"]
mod tls_front;

use std::process::Command;

use host::Host;
use pki::Pki;
use proxy::LoopbackProxy;
use tls_front::TlsFront;

const TOKEN: &str = "environment-token";

/// `proxy_call URL ARGS...` with exactly the variables in `env` among those it reads (the
/// proxies and the certificate locations): the tools it listed, or what it printed on failure.
fn proxy_call(url: &str, args: &[&str], env: &[(&str, &str)]) -> Result<Vec<String>, String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_proxy_call"));
    command.arg(url).args(args);
    for var in ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"] {
        command.env_remove(var).env_remove(var.to_ascii_lowercase());
    }
    command
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .env_remove("REQUEST_METHOD");
    command.envs(env.iter().copied());
    let out = command.output().expect("runs proxy_call");
    if out.status.success() {
        let stdout = String::from_utf8_lossy(&out.stdout);
        Ok(serde_json::from_str(stdout.trim()).expect("one JSON line"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A proxy at `0.0.0.0:PORT`, which the client must count as off the machine, recording what
/// it carries on 127.0.0.1:PORT.
fn remote_looking(proxy: &LoopbackProxy) -> String {
    proxy.url.replace("127.0.0.1", "0.0.0.0")
}

fn refused_in_cleartext(result: Result<Vec<String>, String>, proxy: &str) -> String {
    let message = result.expect_err("the token would cross a cleartext hop: refused");
    assert!(
        message.contains("refusing to send the bearer token in cleartext")
            && message.contains(&format!("through the proxy {proxy}")),
        "{message}"
    );
    message
}

#[test]
fn a_token_is_never_sent_in_cleartext_through_a_proxy_off_the_machine() {
    let host = Host::start();
    let proxy = LoopbackProxy::start();
    let remote = remote_looking(&proxy);
    let token = ["--bearer", TOKEN];

    // From the environment, each variable an http:// request reads.
    for var in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        let message =
            refused_in_cleartext(proxy_call(&host.url, &token, &[(var, &remote)]), "0.0.0.0");
        assert!(message.contains("NO_PROXY"), "{var}: {message}");
    }
    // The builder's proxy(url).
    let message = refused_in_cleartext(
        proxy_call(&host.url, &["--bearer", TOKEN, "--proxy", &remote], &[]),
        "0.0.0.0",
    );
    assert!(message.contains("set with proxy()"), "{message}");
    assert_eq!(
        proxy.seen(),
        Vec::<String>::new(),
        "a refused connect sent something"
    );

    // allow_insecure_http() opts in: the request goes through the proxy, token and all.
    let names = proxy_call(
        &host.url,
        &["--bearer", TOKEN, "--allow-insecure-http"],
        &[("HTTP_PROXY", &remote)],
    )
    .expect("allowed");
    assert!(names.iter().any(|n| n == "add"), "{names:?}");
    let through = format!("POST {}", host.url);
    let seen = proxy.seen();
    assert!(
        !seen.is_empty() && seen.iter().all(|s| *s == through),
        "{seen:?}"
    );
}

#[test]
fn no_proxy_a_loopback_proxy_and_no_token_keep_the_call_working() {
    let host = Host::start();
    let token = ["--bearer", TOKEN];

    // NO_PROXY covers the loopback host: straight to the server, the proxy unused.
    let proxy = LoopbackProxy::start();
    let remote = remote_looking(&proxy);
    proxy_call(
        &host.url,
        &token,
        &[("HTTP_PROXY", &remote), ("NO_PROXY", "127.0.0.1")],
    )
    .expect("NO_PROXY: direct");
    // no_proxy() ignores the environment.
    let mut direct = token.to_vec();
    direct.push("--no-proxy");
    proxy_call(&host.url, &direct, &[("ALL_PROXY", &remote)]).expect("no_proxy(): direct");
    assert_eq!(proxy.seen(), Vec::<String>::new());

    // A proxy on this machine keeps the token on it.
    let local = LoopbackProxy::start();
    proxy_call(&host.url, &token, &[("HTTP_PROXY", &local.url)]).expect("loopback proxy");
    let through = format!("POST {}", host.url);
    assert!(local.seen().contains(&through), "{:?}", local.seen());

    // Without a token there is nothing to leak: the remote-looking proxy is used.
    let proxy = LoopbackProxy::start();
    proxy_call(&host.url, &[], &[("ALL_PROXY", &remote_looking(&proxy))]).expect("no token");
    assert!(proxy.seen().contains(&through), "{:?}", proxy.seen());
}

#[test]
fn ssl_cert_file_names_the_trusted_certificates() {
    let pki = Pki::new();
    let host = Host::start();
    let front = TlsFront::start(
        &pki.pem("server.pem"),
        &pki.pem("server-key.pem"),
        host.authority(),
    );
    let url = format!("{}/mcp", front.origin);
    let ca = pki.path("ca.pem");
    let other = pki.path("other-ca.pem");
    let token = ["--bearer", TOKEN];

    let names = proxy_call(
        &url,
        &token,
        &[("SSL_CERT_FILE", ca.to_str().expect("UTF-8"))],
    )
    .expect("trusted through SSL_CERT_FILE");
    assert!(names.iter().any(|n| n == "add"), "{names:?}");

    // Another CA in SSL_CERT_FILE, or none: the server's certificate is not trusted.
    for env in [
        vec![("SSL_CERT_FILE", other.to_str().expect("UTF-8"))],
        vec![],
    ] {
        let message = proxy_call(&url, &token, &env).expect_err("untrusted");
        assert!(
            message.to_lowercase().contains("certificate"),
            "{env:?}: {message}"
        );
    }
}
