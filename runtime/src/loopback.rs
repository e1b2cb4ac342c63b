//! What counts as this machine, one rule for the client (which sends a bearer token over
//! cleartext HTTP only to it) and the server (which answers only requests whose `Host` and
//! `Origin` name it, against DNS rebinding).

/// `localhost`, `*.localhost`, `127.0.0.0/8`, `::1` (and `::ffff:127.x.y.z`), with or
/// without the brackets of a URL's IPv6 host.
pub(crate) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.to_canonical().is_loopback(),
        Err(_) => {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            host == "localhost" || host.ends_with(".localhost")
        }
    }
}

/// An HTTP `Host` (or an origin's authority) that names this machine: [`is_loopback`] of its
/// host, the port left out.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((host, port)) if port.is_empty() || port.starts_with(':') => host,
            _ => return false,
        },
        None => authority.split(':').next().unwrap_or_default(),
    };
    !host.is_empty() && is_loopback(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_authorities() {
        for host in [
            "localhost",
            "LOCALHOST",
            "app.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "[::1]",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "10.0.0.1",
            "::2",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
        for authority in [
            "127.0.0.1:7100",
            "localhost",
            "[::1]:80",
            "[::1]",
            "app.localhost:3000",
        ] {
            assert!(is_loopback_authority(authority), "{authority}");
        }
        for authority in [
            "evil.example:7100",
            "127.0.0.1.evil.example",
            "[::1]x",
            "",
            ":80",
            "[evil]:80",
        ] {
            assert!(!is_loopback_authority(authority), "{authority}");
        }
    }
}
