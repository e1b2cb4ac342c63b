//! The streams on which the server speaks first: the legacy era's standalone GET stream, and
//! the 2026-07-28 `subscriptions/listen` stream the client opens to hear of tool changes.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::{Inner, headers, post_answer};
use crate::Error;
use crate::client::Reply;
use crate::client::sse::SseParser;
use crate::era;

/// The legacy era's standalone GET stream: the server's requests are answered and its
/// notifications go to the session (log lines to the log handler, tool list changes to the
/// drift checks and the application). Ends quietly when the server has no such stream (405),
/// when it closes it, or when the client is dropped.
pub(super) async fn get_stream(inner: std::sync::Weak<Inner>) {
    let (http, url, mut headers, limit) = {
        let Some(inner) = inner.upgrade() else { return };
        let negotiated = inner.session.negotiated();
        (
            inner.http.clone(),
            inner.url.clone(),
            headers(&inner, None, &Value::Null, &[], negotiated.as_ref()),
            inner.session.settings.max_message_bytes,
        )
    };
    headers.remove(header::CONTENT_TYPE);
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("text/event-stream"),
    );
    if let Some(inner) = inner.upgrade()
        && inner.credential.prove(&mut headers, "GET").is_err()
    {
        return;
    }
    let Ok(mut response) = http.get(url).headers(headers).send().await else {
        return;
    };
    if !response.status().is_success() {
        return;
    }
    let mut parser = SseParser::new(limit);
    while let Ok(Some(chunk)) = response.chunk().await {
        // An event past the limit ends the stream (the client lives on without it).
        let Ok(events) = parser.push(&chunk) else {
            return;
        };
        for data in events {
            let Some(inner) = inner.upgrade() else { return };
            let reply = post_answer(inner.clone(), inner.session.negotiated());
            inner.session.route(data.as_bytes(), |_| Vec::new(), reply);
        }
    }
}

/// The first wait before reopening a listen stream that dropped; doubled after each failed
/// try, up to [`LISTEN_BACKOFF_MAX`].
const LISTEN_BACKOFF: Duration = Duration::from_secs(1);
const LISTEN_BACKOFF_MAX: Duration = Duration::from_secs(60);

/// How one listen stream ended.
enum Listened {
    /// The server does not serve it (or not for tools): rely on `ttlMs`.
    NotServed(String),
    /// The stream was acknowledged, then ended (the server closed it, or the connection
    /// broke): open another.
    Dropped,
    /// It could not be opened this time (the server unreachable, busy, or silent).
    Failed(String),
    /// The client was dropped.
    Gone,
}

/// What a listen request answered with something other than an event stream means: busy or
/// failing (5xx, 429) is worth another try; anything else (404 and `-32601`, a refused filter,
/// an authorization it will not grant, a JSON body) is the server's answer: it does not serve it.
fn not_a_stream(status: StatusCode, body: &str) -> Listened {
    let reason = format!("HTTP {status}: {}", body.trim());
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        Listened::Failed(reason)
    } else {
        Listened::NotServed(reason)
    }
}

/// The 2026-07-28 `subscriptions/listen` stream for tool list changes, for the life of the
/// client: each `notifications/tools/list_changed` on it makes the drift checks stale and
/// wakes the application's handlers. A stream that drops is reopened after a back-off (reset
/// once a stream is acknowledged); since a change may have come while none was open, each
/// reopened stream counts as one. A server that does not serve it, or does not honour
/// `toolsListChanged`, ends this task: the client relies on `ttlMs` then.
pub(super) async fn listen_for_changes(inner: std::sync::Weak<Inner>) {
    let mut backoff = LISTEN_BACKOFF;
    let mut opened_before = false;
    loop {
        match listen_once(&inner, opened_before).await {
            Listened::Gone => return,
            Listened::NotServed(reason) => {
                #[cfg(not(feature = "tracing"))]
                log::debug!("no subscriptions/listen stream: {reason}; relying on ttlMs");
                #[cfg(feature = "tracing")]
                tracing::debug!(%reason, "no subscriptions/listen stream; relying on ttlMs");
                return;
            }
            Listened::Dropped => {
                opened_before = true;
                backoff = LISTEN_BACKOFF;
            }
            Listened::Failed(reason) => {
                #[cfg(not(feature = "tracing"))]
                log::debug!("subscriptions/listen failed ({reason}); again in {backoff:?}");
                #[cfg(feature = "tracing")]
                tracing::debug!(%reason, ?backoff, "subscriptions/listen failed; trying again");
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(LISTEN_BACKOFF_MAX);
    }
}

/// How long a listen stream may stay silent, in keep-alive intervals of its server's, before the
/// client takes its connection for dead (half-open: the server or a middlebox gone without a
/// word) and opens another. Only for a server seen sending keep-alives.
const KEEP_ALIVES_MISSED: u32 = 3;
/// The least silence taken for a dead listen stream.
const LISTEN_IDLE_MIN: Duration = Duration::from_secs(1);

/// Opens one listen stream and reads it to its end. Holds the client only while it sends the
/// request (through its credentials: a token refused with 401 is renewed and the request sent
/// again, as a call's would be) and while it hands an event over, so that dropping the client
/// ends the task.
async fn listen_once(weak: &std::sync::Weak<Inner>, opened_before: bool) -> Listened {
    let Some(inner) = weak.upgrade() else {
        return Listened::Gone;
    };
    let session = &inner.session;
    let Some(negotiated) = session.negotiated() else {
        return Listened::Gone;
    };
    let id = session.next_id();
    let params = json!({"notifications": {"toolsListChanged": true}});
    let request = match session.outgoing(
        id,
        "subscriptions/listen",
        &params,
        Some(&negotiated),
        None,
        false,
    ) {
        Ok(request) => request,
        Err(e) => return Listened::NotServed(e.to_string()),
    };
    let headers = headers(
        &inner,
        Some("subscriptions/listen"),
        &params,
        &[],
        Some(&negotiated),
    );
    let body = bytes::Bytes::from(request.text);
    let timeout = session.settings.timeout;
    // The stream, once a request was answered with one (the credential layer sees a reply).
    let opened: std::sync::Mutex<Option<reqwest::Response>> = std::sync::Mutex::default();
    let attempt = |mut headers: HeaderMap| {
        let proved = inner.credential.prove(&mut headers, "POST");
        let sending = inner
            .http
            .post(inner.url.clone())
            .headers(headers)
            .body(body.clone())
            .send();
        let opened = &opened;
        let credential = &inner.credential;
        async move {
            proved?;
            let response = match tokio::time::timeout(timeout, sending).await {
                Err(_) => return Err(Error::transport(format!("no answer within {timeout:?}"))),
                Ok(Err(e)) => return Err(Error::web("subscriptions/listen", e)),
                Ok(Ok(response)) => response,
            };
            credential.note(response.headers());
            let is_sse = response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
            if is_sse {
                *crate::client::lock(opened) = Some(response);
                return Ok(Reply::Accepted);
            }
            let status = response.status();
            let www_authenticate = response
                .headers()
                .get(header::WWW_AUTHENTICATE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let body = crate::client::body::refusal_text(response).await;
            Ok(Reply::Refused {
                status,
                body,
                error: None,
                www_authenticate,
            })
        }
    };
    let sent = inner.credential.send(&inner.http, headers, attempt).await;
    drop(inner);
    match sent {
        Err(e) => return Listened::Failed(e.to_string()),
        Ok(Reply::Refused { status, body, .. }) => return not_a_stream(status, &body),
        Ok(_) => {}
    }
    let Some(response) = crate::client::lock(&opened).take() else {
        return Listened::Failed("answered without a stream".to_owned());
    };
    read_listen(weak, response, id, timeout, opened_before).await
}

/// Reads an opened listen stream to its end: its acknowledgement within `timeout`, then its
/// events, handed to the session.
async fn read_listen(
    weak: &std::sync::Weak<Inner>,
    mut response: reqwest::Response,
    id: u64,
    timeout: Duration,
    opened_before: bool,
) -> Listened {
    let limit = match weak.upgrade() {
        Some(inner) => inner.session.settings.max_message_bytes,
        None => return Listened::Dropped,
    };
    let mut parser = SseParser::new(limit);
    let mut acknowledged = false;
    let deadline = tokio::time::Instant::now() + timeout;
    // Once the server is seen keeping the stream alive: the longest wait for a keep-alive.
    let mut keep_alive: Option<Duration> = None;
    let mut last = tokio::time::Instant::now();
    loop {
        let chunk = match (acknowledged, keep_alive) {
            (false, _) => match tokio::time::timeout_at(deadline, response.chunk()).await {
                Ok(chunk) => chunk,
                Err(_) => return Listened::Failed("no acknowledgement in time".to_owned()),
            },
            (true, None) => response.chunk().await,
            (true, Some(interval)) => {
                let idle = (interval * KEEP_ALIVES_MISSED).max(LISTEN_IDLE_MIN);
                match tokio::time::timeout(idle, response.chunk()).await {
                    Ok(chunk) => chunk,
                    // Silent past its keep-alives: the connection is dead; open another.
                    Err(_) => return Listened::Dropped,
                }
            }
        };
        let chunk = match chunk {
            Ok(Some(chunk)) => chunk,
            Ok(None) | Err(_) if acknowledged => return Listened::Dropped,
            Ok(None) => return Listened::Failed("the stream ended unacknowledged".to_owned()),
            Err(e) => return Listened::Failed(e.without_url().to_string()),
        };
        let now = tokio::time::Instant::now();
        let waited = now - last;
        last = now;
        let Ok(events) = parser.push(&chunk) else {
            return Listened::Failed(format!(
                "an event larger than {limit} bytes (ClientBuilder::max_message_bytes)"
            ));
        };
        if acknowledged && events.is_empty() {
            // A comment alone: the server keeps the stream alive, about this often.
            keep_alive = Some(keep_alive.map_or(waited, |longest| longest.max(waited)));
        }
        for data in events {
            let Ok(message) = serde_json::from_str::<Value>(&data) else {
                continue;
            };
            if message.get("method").is_none() {
                // The listen request's response: the server ended the stream (or refused it).
                if message.get("error").is_some() && !acknowledged {
                    return Listened::NotServed(format!("answered {}", message["error"]));
                }
                return Listened::Dropped;
            }
            let tag = &message["params"]["_meta"][era::meta::SUBSCRIPTION_ID];
            if !tag.is_null() && tag.as_u64() != Some(id) {
                continue;
            }
            let Some(inner) = weak.upgrade() else {
                return Listened::Gone;
            };
            match message["method"].as_str() {
                Some("notifications/subscriptions/acknowledged") => {
                    if message["params"]["notifications"]["toolsListChanged"] != Value::Bool(true) {
                        return Listened::NotServed(
                            "the server does not honour toolsListChanged".to_owned(),
                        );
                    }
                    acknowledged = true;
                    if opened_before {
                        // A change may have come while no stream was open.
                        inner.session.tools_changed();
                    }
                }
                _ if acknowledged => {
                    let reply = post_answer(inner.clone(), inner.session.negotiated());
                    inner.session.route(data.as_bytes(), |_| Vec::new(), reply);
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listen_answered_without_a_stream_is_retried_only_when_the_server_is_busy() {
        let not_found =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
        for (status, body) in [
            (StatusCode::NOT_FOUND, not_found),
            (StatusCode::OK, not_found),
            (StatusCode::BAD_REQUEST, ""),
            (StatusCode::UNAUTHORIZED, ""),
            (StatusCode::METHOD_NOT_ALLOWED, ""),
        ] {
            assert!(
                matches!(not_a_stream(status, body), Listened::NotServed(_)),
                "{status}: relies on ttlMs"
            );
        }
        for status in [
            StatusCode::SERVICE_UNAVAILABLE,
            StatusCode::BAD_GATEWAY,
            StatusCode::TOO_MANY_REQUESTS,
        ] {
            match not_a_stream(status, "busy") {
                Listened::Failed(reason) => assert!(reason.contains("busy"), "{reason}"),
                _ => panic!("{status}: tried again after the back-off"),
            }
        }
    }
}
