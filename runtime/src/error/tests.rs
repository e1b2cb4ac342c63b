use super::*;
use std::error::Error as _;

#[test]
fn transport_errors_show_and_chain_their_cause() {
    let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
    let error = Error::transport_source("could not reach http://127.0.0.1:9/mcp", io);
    assert_eq!(
        error.to_string(),
        "transport error: could not reach http://127.0.0.1:9/mcp: connection refused"
    );
    assert_eq!(
        error.source().map(ToString::to_string).as_deref(),
        Some("connection refused")
    );
    assert!(!error.is_timeout());
    let timed_out = Error::transport_source(
        "reading the answer",
        std::io::Error::new(std::io::ErrorKind::TimedOut, "deadline"),
    );
    assert!(timed_out.is_timeout());
    assert!(
        Error::Timeout {
            message: "tools/call x".into(),
            after: std::time::Duration::from_secs(1)
        }
        .is_timeout()
    );
    assert!(!Error::transport("plain").is_timeout());
}
