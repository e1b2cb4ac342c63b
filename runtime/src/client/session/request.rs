//! One request to its result, with the rules of both eras: the modern `_meta`, a retry with
//! another version on `-32022`, a retry after refreshing the tool list on `-32020`, and the
//! rounds of `input_required`; and what a transport's [`Reply`] means for the caller.

use std::future::Future;
use std::time::Duration;
#[cfg(feature = "tracing")]
use std::time::Instant;

use serde_json::{Map, Value};

use super::{Connection, Negotiated};
use crate::Error;
use crate::client::decode::{Decoder, Step, ValueResult};
use crate::client::transport::Transport;
use crate::client::{CallContext, CallOptions, Reply, Response, describe, refused};
use crate::era::{self, Era};

/// Sends one request (written with a new id) and returns the id and what came back.
pub(super) async fn send<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: &Value,
    version: Option<&Negotiated>,
    options: &CallOptions,
    context: &CallContext,
    timeout: Duration,
) -> Result<(u64, Reply), Error> {
    let session = &conn.session;
    let id = session.next_id();
    let progress = options.progress.is_some().then_some(id);
    let request = session.outgoing(id, method, params, version, progress, options.as_task)?;
    let reply = conn
        .transport
        .exchange(request, context.clone(), timeout)
        .await?;
    #[cfg(feature = "tracing")]
    crate::trace::record("id", id);
    Ok((id, reply))
}

/// The response in a reply, or the error the reply means: a refusal with a JSON-RPC error is
/// that error's response; 401 and 403 are [`Error::Auth`]; any other refusal, and no response
/// at all, a transport error naming the peer.
pub(super) fn into_response<T: Transport>(
    conn: &Connection<T>,
    reply: Reply,
    method: &str,
    params: &Value,
) -> Result<Response, Error> {
    match reply {
        Reply::Response(response) => Ok(response),
        Reply::Refused {
            status,
            www_authenticate,
            ..
        } if status == http::StatusCode::UNAUTHORIZED || status == http::StatusCode::FORBIDDEN => {
            Err(Error::Auth {
                status: Some(status.as_u16()),
                message: format!("{} answered HTTP {status}", conn.transport.peer()),
                www_authenticate,
            })
        }
        Reply::Refused {
            error: Some(error), ..
        } => Ok(error),
        Reply::Refused { status, body, .. } => Err(refused(&conn.transport.peer(), status, &body)),
        Reply::Accepted => Err(Error::transport(format!(
            "{}: the server sent no response",
            describe(method, params)
        ))),
    }
}

/// [`request`] without the tool-list refresh (which itself sends requests).
pub(super) async fn request_plain<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || std::future::ready(Ok(()));
    request_loop(conn, method, params, options, refresh, &ValueResult).await
}

/// One request and its rounds; with the `tracing` feature, inside a `mcp_request` span
/// (method, tool, transport, protocol version, the last attempt's id, outcome and duration).
pub(super) async fn request_loop<T, R, F, D>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
    refresh: R,
    decoder: &D,
) -> Result<D::Output, Error>
where
    T: Transport,
    R: Fn() -> F,
    F: Future<Output = Result<(), Error>>,
    D: Decoder,
{
    #[cfg(feature = "tracing")]
    {
        use tracing::Instrument;
        use tracing::field::Empty;
        let span = tracing::debug_span!(
            "mcp_request",
            method,
            tool = params["name"].as_str().filter(|_| method == "tools/call"),
            transport = T::NAME,
            version = Empty,
            id = Empty,
            outcome = Empty,
            elapsed_ms = Empty,
        );
        if span.is_disabled() {
            return request_rounds(conn, method, params, options, refresh, decoder).await;
        }
        tracing::trace!(parent: &span, %params, "request");
        let started = Instant::now();
        let result = request_rounds(conn, method, params, options, refresh, decoder)
            .instrument(span.clone())
            .await;
        let elapsed = started.elapsed();
        span.record("elapsed_ms", elapsed.as_secs_f64() * 1e3);
        match &result {
            Ok(_) => {
                span.record("outcome", "ok");
                tracing::debug!(parent: &span, ?elapsed, "request answered");
            }
            Err(error) => {
                span.record("outcome", "error");
                tracing::debug!(parent: &span, ?elapsed, %error, "request failed");
            }
        }
        result
    }
    #[cfg(not(feature = "tracing"))]
    request_rounds(conn, method, params, options, refresh, decoder).await
}

async fn request_rounds<T, R, F, D>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
    refresh: R,
    decoder: &D,
) -> Result<D::Output, Error>
where
    T: Transport,
    R: Fn() -> F,
    F: Future<Output = Result<(), Error>>,
    D: Decoder,
{
    let session = &conn.session;
    let mut params = params;
    let context = CallContext {
        progress: options.progress.clone(),
        log: options.log.clone(),
        events: options.events.clone(),
    };
    let timeout = options.timeout.unwrap_or(session.settings.timeout);
    let mut version_retries = 0;
    let mut refreshed_headers = false;
    for _round in 0..32 {
        let negotiated = session.negotiated();
        #[cfg(feature = "tracing")]
        if let Some(negotiated) = &negotiated {
            crate::trace::record("version", negotiated.version.as_str());
        }
        let (id, reply) = send(
            conn,
            method,
            &params,
            negotiated.as_ref(),
            options,
            &context,
            timeout,
        )
        .await?;
        let answer = into_response(conn, reply, method, &params)?;
        #[cfg(feature = "tracing")]
        tracing::trace!(response = %String::from_utf8_lossy(&answer.body), "response");
        let modern = negotiated.as_ref().is_some_and(|n| n.is_modern());
        let expected = (!answer.any_id).then_some(id);
        let decoded = decoder.decode(method, expected, &answer.body);
        drop(answer);
        match decoded {
            Err(Error::Protocol { code, data, .. })
                if modern
                    && code == era::code::UNSUPPORTED_PROTOCOL_VERSION
                    && version_retries < 2
                    && data
                        .as_ref()
                        .and_then(|d| session.settings.protocol.pick(&d["supported"]))
                        .is_some_and(|v| era::is_modern(&v)) =>
            {
                version_retries += 1;
                let version = data
                    .as_ref()
                    .and_then(|d| session.settings.protocol.pick(&d["supported"]))
                    .unwrap_or_default();
                #[cfg(feature = "tracing")]
                tracing::info!(method, %version, "the server asked for another version: retrying");
                session.set_negotiated(version, Era::Stateless);
            }
            Err(Error::Protocol { code, .. })
                if modern
                    && code == era::code::HEADER_MISMATCH
                    && method == "tools/call"
                    && !refreshed_headers =>
            {
                refreshed_headers = true;
                #[cfg(feature = "tracing")]
                tracing::info!(
                    method,
                    "the server's headers disagree with its tool list: refreshing it, then retrying"
                );
                refresh().await?;
            }
            Err(e) => return Err(e),
            Ok(Step::Done(result)) => return Ok(result),
            Ok(Step::InputRequired(result)) => {
                #[cfg(feature = "tracing")]
                tracing::debug!(
                    method,
                    "the server asked for input: answering, then retrying"
                );
                let responses = session.input_responses(&result["inputRequests"])?;
                let map = params_object(&mut params);
                map.insert("inputResponses".into(), responses);
                match result.get("requestState") {
                    Some(state) => map.insert("requestState".into(), state.clone()),
                    None => map.remove("requestState"),
                };
            }
        }
    }
    Err(Error::transport(format!(
        "{method}: the server kept asking for input (32 rounds)"
    )))
}

fn params_object(params: &mut Value) -> &mut Map<String, Value> {
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    match params {
        Value::Object(map) => map,
        _ => unreachable!("made an object above"),
    }
}
