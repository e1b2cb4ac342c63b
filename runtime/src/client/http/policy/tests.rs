use super::*;
use crate::client::HttpClient;

/// A hint comes from the causes, not from the URL in the top error's text.
#[test]
fn tls_hints_read_the_causes_only() {
    #[derive(Debug)]
    struct Top(Option<std::io::Error>);
    impl std::fmt::Display for Top {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request for url (https://h/UnknownIssuer)")
        }
    }
    impl std::error::Error for Top {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.0.as_ref().map(|e| e as _)
        }
    }
    assert_eq!(tls_hint(&Top(None)), None);
    let refused = std::io::Error::other("connection refused");
    assert_eq!(tls_hint(&Top(Some(refused))), None);
    let unknown = std::io::Error::other("invalid peer certificate: UnknownIssuer");
    assert!(tls_hint(&Top(Some(unknown))).is_some_and(|h| h.contains("add_root_certificate")));
}

/// The builder's `Debug` names the proxy's host, never its password.
#[test]
fn debug_hides_the_proxy_password() {
    let builder = HttpClient::builder("https://mcp.example/mcp")
        .proxy("http://user:s3cret@proxy.internal:3128");
    let text = format!("{builder:?}");
    assert!(text.contains("proxy.internal:3128"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
    let direct = format!(
        "{:?}",
        HttpClient::builder("https://mcp.example/mcp").no_proxy()
    );
    assert!(direct.contains("proxy: Direct"), "{direct}");
}

/// The cleartext check follows the request's route: a loopback server reached through a
/// proxy that is not loopback is refused, as is a server that is not loopback; a loopback
/// proxy, a proxy `NO_PROXY` bypasses, and no proxy at all are not.
#[test]
fn a_token_never_crosses_a_cleartext_hop_off_the_machine() {
    let env = ProxySetting::Environment;
    let remote = routes("http://proxy.internal:3128", "");
    let refused = check("http://127.0.0.1:7100/mcp", &env, &remote).expect_err("refused");
    assert!(
        refused.contains("through the proxy proxy.internal"),
        "{refused}"
    );
    assert!(refused.contains("HTTP_PROXY or ALL_PROXY"), "{refused}");
    assert!(refused.contains("NO_PROXY"), "{refused}");
    for url in [
        "http://localhost:7100/mcp",
        "http://[::1]:7100/mcp",
        "http://game.localhost:7100/mcp",
    ] {
        assert!(
            check(url, &env, &remote).is_err(),
            "{url} through a remote proxy"
        );
        assert_eq!(
            check(url, &ProxySetting::Direct, &ProxyRoutes(None)),
            Ok(()),
            "{url}"
        );
    }
    // NO_PROXY covering the loopback host: the request goes straight there.
    let bypassed = routes("http://proxy.internal:3128", "127.0.0.1,localhost");
    assert_eq!(check("http://127.0.0.1:7100/mcp", &env, &bypassed), Ok(()));
    // A proxy on this machine keeps the token on it.
    for proxy in [
        "http://127.0.0.1:3128",
        "http://[::1]:3128",
        "http://localhost:3128",
    ] {
        assert_eq!(
            check("http://127.0.0.1:7100/mcp", &env, &routes(proxy, "")),
            Ok(()),
            "{proxy}"
        );
    }
    // An explicit proxy() names itself in the message.
    let explicit = ProxySetting::Url("http://proxy.internal:3128".to_owned());
    let refused = check(
        "http://127.0.0.1:7100/mcp",
        &explicit,
        &ProxyRoutes::of(&explicit),
    )
    .expect_err("refused");
    assert!(refused.contains("set with proxy()"), "{refused}");
    // A server that is not loopback, with or without a proxy.
    let refused = check(
        "http://mcp.example/mcp",
        &ProxySetting::Direct,
        &ProxyRoutes(None),
    )
    .expect_err("refused");
    assert!(refused.contains("in cleartext to mcp.example"), "{refused}");
}

fn routes(http: &str, no: &str) -> ProxyRoutes {
    use hyper_util::client::proxy::matcher::Matcher;
    ProxyRoutes(Some(Matcher::builder().http(http).no(no).build()))
}

fn check(url: &str, setting: &ProxySetting, routes: &ProxyRoutes) -> Result<(), String> {
    let url = Url::parse(url).expect("URL");
    refuse_cleartext(&url, setting, routes).map_err(|e| e.to_string())
}

#[test]
fn loopback_hosts() {
    for host in [
        "localhost",
        "LOCALHOST",
        "localhost.",
        "a.b.localhost",
        "127.0.0.1",
        "127.9.8.7",
        "::1",
        "[::1]",
        "::ffff:127.0.0.1",
    ] {
        assert!(is_loopback(host), "{host}");
    }
    for host in [
        "localhost.example",
        "mylocalhost",
        "10.0.0.1",
        "0.0.0.0",
        "::",
        "[::ffff:10.0.0.1]",
        "<unknown>",
    ] {
        assert!(!is_loopback(host), "{host}");
    }
}
