//! Finding the era, once per connection and the same over every transport: the 2026-07-28
//! `server/discover` probe first, the legacy `initialize` handshake where the dual-era rules
//! say, within one time budget.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::request::{into_response, send};
use super::{Connection, Negotiated};
use crate::Error;
use crate::client::transport::Transport;
use crate::client::{CallContext, CallOptions, Reply};
use crate::era::{self, Era, meta};

/// The `serverInfo` of a `server/discover` result.
pub(crate) fn discover_server_info(result: &Value) -> Value {
    result
        .get("_meta")
        .and_then(|m| m.get(meta::SERVER_INFO))
        .or_else(|| result.get("serverInfo"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Finds the era, once per connection, with the same rules over every transport:
///
/// - a modern `server/discover` first (unless a legacy version is pinned); a result listing
///   our version settles it, another modern version is tried next (at most three times), a
///   `-32022` names the versions to pick from, and a modern error code ends the connect;
/// - a `-32601` with HTTP 404 is a modern server without `server/discover` (the 2026-07-28
///   answer to an unknown method); over stdio there is no status, so a `-32601` there, like
///   any other answer (an error, a 4xx without a modern error, a 202, a result without
///   `supportedVersions`, or silence), means a legacy server: `initialize` follows, where
///   [`Protocol::Auto`](super::Protocol::Auto) allows it;
/// - the whole connect has one time budget (the client's timeout): when a fallback is
///   allowed, the probe may take half of it and `initialize` the rest, so a silent server
///   fails within the budget with a message naming both steps.
pub(crate) async fn negotiate<T: Transport>(conn: &Connection<T>) -> Result<(), Error> {
    #[cfg(feature = "tracing")]
    {
        use tracing::Instrument;
        let span = tracing::debug_span!(
            "mcp_connect",
            peer = %conn.transport.peer(),
            transport = T::NAME,
            version = tracing::field::Empty,
        );
        let result = negotiate_era(conn).instrument(span.clone()).await;
        match (&result, conn.session.negotiated()) {
            (Ok(()), Some(negotiated)) => {
                span.record("version", negotiated.version.as_str());
                tracing::debug!(
                    parent: &span,
                    version = %negotiated.version,
                    era = if negotiated.is_modern() { "2026-07-28" } else { "legacy" },
                    "negotiated"
                );
            }
            (Ok(()), None) => {}
            (Err(error), _) => tracing::debug!(parent: &span, %error, "connect failed"),
        }
        result
    }
    #[cfg(not(feature = "tracing"))]
    negotiate_era(conn).await
}

async fn negotiate_era<T: Transport>(conn: &Connection<T>) -> Result<(), Error> {
    let session = &conn.session;
    let protocol = session.settings.protocol.clone();
    let budget = session.settings.timeout;
    let deadline = Instant::now() + budget;
    let (mut version, first_era) = protocol.first();
    if first_era == Era::Session {
        return initialize(conn, &version, deadline, false).await;
    }
    let probe_budget = if protocol.may_fall_back() {
        budget / 2
    } else {
        budget
    };
    for _ in 0..3 {
        let probe = discover(conn, &version, probe_budget).await?;
        let reason = match probe {
            Probe::Modern {
                server_info,
                capabilities,
            } => {
                session.set_negotiated(version, Era::Stateless);
                session.set_server_info(server_info);
                session.set_capabilities(capabilities);
                return Ok(());
            }
            Probe::Pick(supported) => match protocol.pick(&supported) {
                Some(next) if era::is_modern(&next) => {
                    version = next;
                    continue;
                }
                Some(legacy) => return initialize(conn, &legacy, deadline, false).await,
                None => {
                    return Err(Error::transport(format!(
                        "{} supports no protocol version this client speaks ({protocol:?}): \
                         it offers {supported}",
                        conn.transport.peer()
                    )));
                }
            },
            Probe::Legacy(reason) => reason,
            Probe::Silent(reason) => {
                if protocol.may_fall_back() {
                    #[cfg(feature = "tracing")]
                    tracing::info!(%reason, "no answer to server/discover: trying initialize");
                    return initialize(conn, era::LATEST_LEGACY, deadline, true).await;
                }
                reason
            }
        };
        if protocol.may_fall_back() {
            #[cfg(feature = "tracing")]
            tracing::info!(%reason, "not a 2026-07-28 server: falling back to initialize");
            return initialize(conn, era::LATEST_LEGACY, deadline, false).await;
        }
        return Err(Error::transport(format!(
            "{} does not speak MCP {version} ({reason}); it may speak a legacy version: use \
             Protocol::Auto or Protocol::Legacy",
            conn.transport.peer()
        )));
    }
    Err(Error::transport(format!(
        "{}: no protocol version agreed after 3 tries",
        conn.transport.peer()
    )))
}

/// What a `server/discover` probe found.
enum Probe {
    /// The server speaks the version asked for.
    Modern {
        server_info: Value,
        capabilities: Value,
    },
    /// It speaks others: these (`supportedVersions`, or a `-32022`'s `data.supported`).
    Pick(Value),
    /// It is no modern server: why.
    Legacy(String),
    /// It did not answer in time.
    Silent(String),
}

async fn discover<T: Transport>(
    conn: &Connection<T>,
    version: &str,
    timeout: Duration,
) -> Result<Probe, Error> {
    let negotiated = Negotiated {
        version: version.to_owned(),
        era: Era::Stateless,
    };
    let params = json!({});
    let context = CallContext::default();
    let sent = send(
        conn,
        "server/discover",
        &params,
        Some(&negotiated),
        &CallOptions::default(),
        &context,
        timeout,
    )
    .await;
    let (id, reply) = match sent {
        Ok(sent) => sent,
        Err(e @ Error::Timeout { .. }) => return Ok(Probe::Silent(e.to_string())),
        Err(e) => return Err(e),
    };
    let (response, status) = match reply {
        Reply::Response(response) => (response, None),
        Reply::Refused {
            status,
            error: Some(error),
            ..
        } if status != http::StatusCode::UNAUTHORIZED && status != http::StatusCode::FORBIDDEN => {
            (error, Some(status))
        }
        Reply::Refused {
            status,
            body,
            error: None,
            ..
        } if status.is_client_error()
            && status != http::StatusCode::UNAUTHORIZED
            && status != http::StatusCode::FORBIDDEN =>
        {
            return Ok(Probe::Legacy(format!("HTTP {status}: {}", body.trim())));
        }
        Reply::Accepted => return Ok(Probe::Legacy("a 202 to a request".to_owned())),
        refusal => {
            return Err(into_response(conn, refusal, "server/discover", &params)
                .err()
                .unwrap_or_else(|| Error::transport("server/discover: unexpected answer")));
        }
    };
    match response.result("server/discover", id) {
        Ok(result) => match result.get("supportedVersions").filter(|v| v.is_array()) {
            Some(supported)
                if supported
                    .as_array()
                    .is_some_and(|s| s.iter().any(|v| v == version)) =>
            {
                Ok(Probe::Modern {
                    server_info: discover_server_info(&result),
                    capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
                })
            }
            Some(supported) => Ok(Probe::Pick(supported.clone())),
            None => Ok(Probe::Legacy(
                "server/discover answered without supportedVersions".to_owned(),
            )),
        },
        Err(Error::Protocol { code, data, .. })
            if code == era::code::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            Ok(Probe::Pick(
                data.map(|mut d| d["supported"].take())
                    .unwrap_or(Value::Null),
            ))
        }
        Err(e @ Error::Protocol { code, .. }) if era::code::is_modern(code) => Err(e),
        Err(Error::Protocol { code, .. })
            if code == -32601 && status == Some(http::StatusCode::NOT_FOUND) =>
        {
            Ok(Probe::Modern {
                server_info: Value::Null,
                capabilities: Value::Null,
            })
        }
        Err(Error::Protocol { code, message, .. }) => Ok(Probe::Legacy(format!(
            "server/discover answered {code} {message}"
        ))),
        Err(e) => Err(e),
    }
}

/// The legacy handshake: `initialize` asking for `version`, then `notifications/initialized`,
/// within what is left of the connect's budget (`after_silence`: the probe went unanswered,
/// which a timeout here names too).
async fn initialize<T: Transport>(
    conn: &Connection<T>,
    version: &str,
    deadline: Instant,
    after_silence: bool,
) -> Result<(), Error> {
    let session = &conn.session;
    let budget = session.settings.timeout;
    let left = deadline.saturating_duration_since(Instant::now());
    let params = session.initialize_params(version);
    let context = CallContext::default();
    let (id, reply) = match send(
        conn,
        "initialize",
        &params,
        None,
        &CallOptions::default(),
        &context,
        left,
    )
    .await
    {
        Err(Error::Timeout { .. }) if after_silence => {
            return Err(Error::Timeout {
                message: format!(
                    "{} answered neither server/discover (the 2026-07-28 probe) nor \
                     initialize (the legacy handshake){}",
                    conn.transport.peer(),
                    conn.transport.printed_instead()
                ),
                after: budget,
            });
        }
        other => other?,
    };
    let result = into_response(conn, reply, "initialize", &params)?.result("initialize", id)?;
    let agreed = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(version)
        .to_owned();
    session.set_negotiated(agreed.clone(), Era::Session);
    session.set_server_info(result.get("serverInfo").cloned().unwrap_or(Value::Null));
    session.set_capabilities(result.get("capabilities").cloned().unwrap_or(Value::Null));
    let negotiated = Negotiated {
        version: agreed,
        era: Era::Session,
    };
    let left = deadline.saturating_duration_since(Instant::now());
    conn.transport
        .notify(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            negotiated,
            left.max(Duration::from_secs(1)),
        )
        .await?;
    conn.transport.initialized();
    Ok(())
}
