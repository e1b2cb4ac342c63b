//! The server's wire layer, shared by the registry and both transports: framing a message
//! ([`frame`]), telling its era ([`classify`]), and writing replies ([`reply`]); and the types a
//! transport hands a request to the registry with ([`Incoming`]) and gets its answer back in
//! ([`Outbound`]).

mod classify;
mod frame;
mod reply;

use std::time::Duration;
#[cfg(feature = "tracing")]
use std::time::Instant;

use tokio::sync::mpsc;

pub(crate) use crate::era::Era;
pub(crate) use classify::{Headers, classify};
pub(crate) use frame::{
    Capabilities, ClientResponse, Framed, Meta, Params, Rare, Request, Text, frame,
};
pub(crate) use reply::{CallResult, error, error_with, notification, respond};

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
    /// The answer.
    Done(Reply),
}

/// The sending side of a request's reply channel. Unbounded: sending never blocks the game.
pub(crate) type OutboundTx = mpsc::UnboundedSender<Outbound>;

/// A request on its way to a handler, with where its answer goes.
pub(crate) struct Incoming {
    pub request: Request,
    pub era: Era,
    /// Where notifications and a deferred answer go; `None` when the caller takes the answer
    /// from `run`'s return value and the tool answers before `run` returns.
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
    pub owner: super::tasks::Owner,
    /// When the HTTP server queued the request (its queue wait is traced); `None` when it
    /// was dispatched at once.
    #[cfg(feature = "tracing")]
    pub received: Option<Instant>,
}
