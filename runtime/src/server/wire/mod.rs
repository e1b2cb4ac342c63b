//! The server's wire layer, shared by the registry and both transports: taking a message in
//! ([`receive`]: framing it, then telling its era), and writing replies ([`reply`]); and the
//! types a transport hands a request to the registry with ([`Incoming`]) and gets its answer
//! back in ([`Outbound`]).

mod classify;
mod frame;
mod reply;

use std::time::Duration;
#[cfg(feature = "tracing")]
use std::time::Instant;

use tokio::sync::mpsc;

pub(crate) use crate::era::Era;
pub(crate) use classify::Headers;
use classify::classify;
pub(crate) use frame::{Capabilities, ClientResponse, Meta, Params, Rare, Request, Text};
use frame::{Framed, Rejection, frame};
pub(crate) use reply::{Blocks, CallResult, closing, error, error_with, notification, respond};

/// A message as it arrived, framed and its era told: the one way from bytes to a request, for
/// the HTTP server and the registry's own `dispatch` alike.
#[allow(
    clippy::large_enum_variant,
    reason = "a per-message temporary; a Box would allocate on every request"
)]
pub(crate) enum Received {
    /// A request to run, in its era.
    Request(Request, Era),
    /// A notification: no reply.
    Notification,
    /// A client's response to a request a call sent it: no reply.
    Response(ClientResponse),
    /// Refused before any handler: the error to answer with (HTTP 400 over HTTP).
    Refused {
        /// The JSON-RPC error response.
        text: String,
        /// What was wrong, for the trace: the message's shape, or its protocol metadata.
        what: &'static str,
    },
}

/// Takes one message in: checks its JSON-RPC shape ([`frame`]), then, for a request, its era
/// and whether its `_meta` and `headers` (HTTP's `Mcp-*`; `None` elsewhere) agree
/// ([`classify`]).
pub(crate) fn receive(body: &[u8], headers: Option<&Headers>) -> Received {
    let request = match frame(body) {
        Framed::Request(request) => request,
        Framed::NoReply => return Received::Notification,
        Framed::Response(response) => return Received::Response(response),
        Framed::Invalid(rejection) => return refused(&rejection, "not a JSON-RPC request"),
    };
    match classify(&request, headers) {
        Ok(era) => Received::Request(request, era),
        Err(rejection) => refused(&rejection, "the request's protocol metadata"),
    }
}

fn refused(rejection: &Rejection, what: &'static str) -> Received {
    Received::Refused {
        text: rejection.text(),
        what,
    }
}

/// A reply: its JSON-RPC text, and whether it refuses the request as a whole, which only the
/// HTTP layer turns into a status (`server/http.rs`); other transports send the text alone.
#[derive(Debug)]
pub(crate) struct Reply {
    pub text: String,
    pub rejected: Option<Rejected>,
}

impl Reply {
    /// An answer: a result, or an error about the request's content (HTTP 200).
    pub(crate) fn answer(text: String) -> Self {
        Reply {
            text,
            rejected: None,
        }
    }

    /// A refusal of the request as such.
    pub(crate) fn rejected(text: String, why: Rejected) -> Self {
        Reply {
            text,
            rejected: Some(why),
        }
    }
}

/// Why a request is refused as a whole (2026-07-28 over HTTP: a status besides the error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rejected {
    /// Malformed as a request of its kind: a missing required capability (`-32021`), headers
    /// that disagree with the body (HTTP 400).
    BadRequest,
    /// A method the server does not have (`-32601`, HTTP 404).
    UnknownMethod,
}

/// What a call sends back to its transport, in order: notifications, then one answer.
#[derive(Debug)]
pub(crate) enum Outbound {
    /// A notification (progress, log) for this request's stream.
    Note(String),
    /// The call was deferred to a later frame; its answer comes within this time.
    Deferred(Duration),
    /// The answer: `run`'s return value, sent on by the game loop, or one given later.
    Done(Reply),
}

/// The sending side of a request's reply channel. Unbounded: sending never blocks the game.
pub(crate) type OutboundTx = mpsc::UnboundedSender<Outbound>;

/// A request on its way to a handler, with where its answer goes.
pub(crate) struct Incoming {
    pub request: Request,
    pub era: Era,
    /// Where notifications and an answer given after `run` returned go (a deferred call's,
    /// a waiting `tasks/result`'s); `None` when the caller only takes `run`'s return value.
    pub outlet: Option<OutboundTx>,
    /// Whether the transport can carry notifications before the answer (an SSE answer, or
    /// stdio lines).
    pub streamable: bool,
    /// The `Mcp-Param-*` headers of an HTTP request, checked against the tool's parameters
    /// marked `x-mcp-header` (modern era); `None` over stdio.
    pub param_headers: Option<Vec<(String, String)>>,
    /// Whether a call may send requests to the client on its stream and get the responses
    /// back on later frames (legacy era over HTTP, with an SSE answer).
    pub requests: bool,
    /// Whom the tasks this request makes or reads belong to.
    pub owner: super::owner::Owner,
    /// When the HTTP server queued the request (its queue wait is traced); `None` when it
    /// was dispatched at once.
    #[cfg(feature = "tracing")]
    pub received: Option<Instant>,
}
