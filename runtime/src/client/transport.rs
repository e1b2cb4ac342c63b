//! What a client's transport is: something that moves one request's bytes and reports what
//! came back ([`Reply`]). Every protocol rule (the era, `_meta`, retries, paging, drift) is the
//! session's, written once for every transport; credentials are the HTTP transport's own
//! affair (a 401 is answered inside it, as a layer around the requests it sends).

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use super::{CallContext, Negotiated, Outgoing, Response};
use crate::Error;

/// What a transport reports of one request: the response, or what the server did instead.
///
/// Nominally `pub`, in this private module, for the same reason as `Carrier`: the futures
/// that `Carrier::exchange` returns name it.
#[derive(Debug)]
#[allow(private_interfaces)]
pub enum Reply {
    /// The JSON-RPC response to the request, as it came (checked and decoded by the session).
    Response(Response),
    /// An HTTP error status (never over stdio), after the transport's own credentials could
    /// not change the answer; `error` is the JSON-RPC error response in the body, if any.
    Refused {
        status: http::StatusCode,
        body: String,
        error: Option<Response>,
        /// The `WWW-Authenticate` header of a 401 or 403.
        www_authenticate: Option<String>,
    },
    /// HTTP 202 (or another success without a body) to a request that needed a response.
    Accepted,
}

/// `URL answered HTTP 500 Internal Server Error: <the body's first 500 characters>`.
pub(crate) fn refused(peer: &str, status: http::StatusCode, body: &str) -> Error {
    let mut message = format!("{peer} answered HTTP {status}");
    let body = body.trim();
    if !body.is_empty() {
        let cut: String = body.chars().take(500).collect();
        message.push_str(&format!(": {cut}"));
    }
    Error::transport(message)
}

/// A client transport: [`HttpTransport`](super::http::HttpTransport) (Streamable HTTP) or
/// [`StdioTransport`](super::stdio::StdioTransport) (a child process's stdio), the `T` of
/// [`McpClient<T>`](super::McpClient). Sealed: the protocol engine relies on what each one
/// promises.
pub trait Transport: engine::Carrier {}

impl<T: engine::Carrier> Transport for T {}

pub(crate) use engine::Carrier;

// Reachable only as `Transport`'s supertrait, which nothing outside this crate can name or
// implement: the crate's own types in its signatures stay its own.
#[allow(private_interfaces)]
mod engine {
    use super::*;

    /// What the session asks of a transport. `exchange` sends one request, hands the
    /// notifications that come with its answer to `context`, answers the server's requests,
    /// and reports what happened (or fails, cancelling the request on the server).
    pub trait Carrier: Send + Sync + 'static {
        /// Whether tools' `x-mcp-header` annotations are mirrored as headers (Streamable HTTP in
        /// the modern era), so that `tools/list` drops the tools whose annotations are invalid.
        const MIRRORS_HEADERS: bool;

        /// The transport's name in traces (`streamable-http`, `stdio`).
        const NAME: &'static str;

        /// Who the server is, for messages (`https://mcp.example/mcp`, `the server`).
        fn peer(&self) -> String;

        /// What the server printed that was not the protocol, for a message about its silence
        /// (` (instead of JSON-RPC it printed ...)`); nothing by default.
        fn printed_instead(&self) -> String {
            String::new()
        }

        /// Sends `request` and reports what came back.
        fn exchange(
            &self,
            request: Outgoing<'_>,
            context: CallContext,
            timeout: Duration,
        ) -> impl Future<Output = Result<Reply, Error>> + Send;

        /// Sends a notification (no response expected) in the era `negotiated`.
        fn notify(
            &self,
            message: Value,
            negotiated: Negotiated,
            timeout: Duration,
        ) -> impl Future<Output = Result<(), Error>> + Send;

        /// The legacy handshake is done: start what the era needs besides requests (over HTTP,
        /// the stream on which the server sends its own requests and notifications).
        fn initialized(&self) {}

        /// Someone relies on hearing of changes to the server's tools (a generated module's
        /// drift check, the application's handlers): start listening where the era needs a
        /// stream of its own for that (2026-07-28 over HTTP). Nothing by default: legacy
        /// notifications come on the streams already open.
        fn hear_changes(&self) {}
    }
}
