//! The Events extension (`io.modelcontextprotocol/events`, SEP-3415, MCP 2026-07-28 and later):
//! what a server and a client share. A server declares event types (`events/list`: a name, the
//! JSON Schema of a subscription's arguments and of each occurrence's data, and the delivery
//! modes); a client reads them by polling (`events/poll`, one page of occurrences and a cursor
//! at a time) or by push (`events/stream`, one long request per subscription whose
//! notifications are the occurrences). Cursors are opaque strings a client keeps and sends back
//! to resume; `truncated` says that something was missed.
//!
//! The server's side is `server::EventType` and `server::Emitter`; the client's is
//! `client::McpClient::poll_events` and `client::McpClient::stream_events`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension's name, as declared under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/events";

/// The extension's JSON-RPC error codes (SEP-3415; the SEP calls the numbers provisional).
/// A client also reads the design sketch's earlier numbers (`-32011` to `-32015`) as the same
/// errors ([`code::of`]).
pub mod code {
    /// The arguments do not match the event type's `inputSchema` (`-32602`).
    pub const INVALID_PARAMS: i64 = -32602;
    /// No event type of that name (`data.kind: "event"`).
    pub const NOT_FOUND: i64 = -32023;
    /// The principal may not subscribe, or lost access.
    pub const FORBIDDEN: i64 = -32024;
    /// A quota is reached (`data.limit`).
    pub const RESOURCE_EXHAUSTED: i64 = -32025;
    /// A delivery mode the type does not offer (`data: {feature: "deliveryMode", value}`).
    pub const UNSUPPORTED: i64 = -32026;
    /// A webhook endpoint failed verification or could not be reached.
    pub const CALLBACK_ENDPOINT_ERROR: i64 = -32027;

    /// The SEP's code of an events error carrying `code`, mapping the design sketch's numbers
    /// (`-32011` to `-32015`, which early servers send) to the SEP's.
    pub fn of(code: i64) -> i64 {
        match code {
            -32015..=-32011 => code - 12,
            other => other,
        }
    }
}

/// How occurrences of an event type reach a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// `events/poll`: the client asks, page by page, with its cursor.
    Poll,
    /// `events/stream`: one long request per subscription, its notifications the occurrences.
    Push,
    /// `events/subscribe`: the server POSTs occurrences to the client's HTTPS endpoint.
    Webhook,
}

impl Delivery {
    /// The mode's name on the wire (`"poll"`, `"push"`, `"webhook"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Poll => "poll",
            Delivery::Push => "push",
            Delivery::Webhook => "webhook",
        }
    }
}

/// One event type as `events/list` describes it. Unknown members are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventDescriptor {
    /// The event type's name.
    pub name: String,
    /// What the event means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The delivery modes offered (at least one).
    #[serde(default)]
    pub delivery: Vec<Delivery>,
    /// The JSON Schema of a subscription's `arguments`.
    #[serde(default = "any_object")]
    pub input_schema: Value,
    /// The JSON Schema of each occurrence's `data`.
    #[serde(default = "any_object")]
    pub payload_schema: Value,
    /// Other members, as sent (`_meta` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn any_object() -> Value {
    serde_json::json!({"type": "object"})
}

/// One occurrence of an event: a page entry of `events/poll`, or the params of a
/// `notifications/events/event` on an `events/stream`. `P` is the payload's type (`Value` for
/// any).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence<P = Value> {
    /// The server's id of the occurrence, unique per event type: what a client deduplicates by.
    pub event_id: String,
    /// The event type's name.
    pub name: String,
    /// When it happened (ISO 8601, as the server wrote it).
    pub timestamp: String,
    /// What happened, as the type's `payloadSchema` describes.
    pub data: P,
    /// The position after this occurrence (push only; poll pages carry theirs). `None`: the
    /// type has no replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of `events/poll`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventPage<P = Value> {
    /// The occurrences after the cursor, in the server's order (empty is the usual answer).
    #[serde(default = "Vec::new")]
    pub events: Vec<Occurrence<P>>,
    /// Where to poll from next; `None`: the type has no replay (poll again with none).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Occurrences were missed (the cursor was older than the server keeps, or from before a
    /// restart): the page starts after a gap.
    #[serde(default)]
    pub truncated: bool,
    /// More are waiting: poll again at once.
    #[serde(default)]
    pub has_more: bool,
    /// How long the server suggests waiting before the next poll, in milliseconds.
    #[serde(default)]
    pub next_poll_ms: Option<u64>,
}
