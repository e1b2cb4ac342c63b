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

use serde::de::DeserializeOwned;
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

/// Whether `method` is a notification of an `events/stream` (routed to its stream, by the
/// stream's request id), not one of the session's (`notifications/events/list_changed`).
#[cfg(feature = "client")]
pub(crate) fn is_stream_note(method: &str) -> bool {
    method.starts_with("notifications/events/") && method != "notifications/events/list_changed"
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
    /// The position after this occurrence, when the server gave one: on a push stream each
    /// occurrence's; in a stream read by poll, the last of each page carries the page's.
    /// `None` in a page of [`EventPage`], and for a type without replay.
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

/// What a subscription's stream hands its reader ([`EventStream::next`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EventItem<P = Value> {
    /// An occurrence (never the same `eventId` twice in one stream).
    Event(Occurrence<P>),
    /// Occurrences were missed before what follows (the server no longer kept them, or it
    /// restarted); delivery goes on from `cursor`.
    Truncated {
        /// The position delivery goes on from.
        cursor: Option<String>,
    },
    /// The server ended the subscription (the event type is gone, or access was revoked):
    /// nothing follows. On `NotFound` or `Unsupported`, list the types again and subscribe
    /// anew; on `Forbidden`, stop.
    Terminated(Ended),
}

/// Why a server ended a subscription (`notifications/events/terminated`, or an error
/// answering a poll).
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    /// The error code, as the SEP numbers it ([`code::of`]).
    pub code: i64,
    /// The server's message.
    pub message: String,
    /// The error's data, if any.
    pub data: Option<Value>,
}

/// How a subscription's stream is read ([`EventStream`]): the delivery mode (by default the
/// runtime picks push when the type offers it, else poll), where to start, and the limits.
#[derive(Debug, Clone)]
pub struct EventOptions {
    pub(crate) delivery: Option<Delivery>,
    pub(crate) cursor: Option<String>,
    pub(crate) max_age: Option<std::time::Duration>,
    pub(crate) poll_floor: std::time::Duration,
    pub(crate) silence: std::time::Duration,
}

impl Default for EventOptions {
    fn default() -> Self {
        EventOptions {
            delivery: None,
            cursor: None,
            max_age: None,
            poll_floor: std::time::Duration::from_secs(1),
            silence: std::time::Duration::from_secs(65),
        }
    }
}

impl EventOptions {
    /// The defaults: the mode the type offers (push before poll), from now, polls at most once
    /// a second, a push stream silent for 65 s taken for dead and reopened.
    pub fn new() -> Self {
        EventOptions::default()
    }

    /// Use this delivery mode, whatever the type offers (the server refuses one it does not
    /// offer: the stream ends with that error).
    pub fn delivery(mut self, mode: Delivery) -> Self {
        self.delivery = Some(mode);
        self
    }

    /// Resume after `cursor` (one a stream or a poll gave before) rather than from now.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Replay nothing older than `age` when resuming (`maxAgeMs`).
    pub fn max_age(mut self, age: std::time::Duration) -> Self {
        self.max_age = Some(age);
        self
    }

    /// The least pause between polls, whatever the server suggests (`nextPollMs`); default
    /// 1 s, the SEP's floor, which a shorter value does not go under.
    pub fn poll_floor(mut self, floor: std::time::Duration) -> Self {
        self.poll_floor = floor.max(std::time::Duration::from_secs(1));
        self
    }

    /// How long a push stream may be silent (no occurrence, no heartbeat) before it is taken
    /// for dead and reopened from its cursor; default 65 s (servers send a heartbeat at least
    /// every 30 s).
    pub fn silence(mut self, silence: std::time::Duration) -> Self {
        self.silence = silence;
        self
    }
}

/// What a producer hands an [`EventStream`]: items, and the cursor to resume from.
#[derive(Debug)]
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) enum Feed {
    Item(EventItem<Value>),
    Cursor(Option<String>),
    Failed(crate::Error),
}

/// How many feeds wait for a reader before the producer waits.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
const FEED_CAPACITY: usize = 256;
/// How many recent `eventId`s a stream remembers to drop repeats.
const SEEN: usize = 1024;

/// A bounded queue between a producer (a task on the client's I/O runtime, a fake, a cassette)
/// and the stream's reader, with no runtime of its own.
#[derive(Default)]
struct Queue {
    items: std::collections::VecDeque<Feed>,
    reader: Option<std::task::Waker>,
    writer: Option<std::task::Waker>,
    /// The producer is done (nothing more will come).
    done: bool,
    /// The reader dropped the stream.
    dropped: bool,
}

type Shared = std::sync::Arc<std::sync::Mutex<Queue>>;

fn lock(queue: &Shared) -> std::sync::MutexGuard<'_, Queue> {
    queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The producing end of an [`EventStream`].
pub(crate) struct Feeder {
    queue: Shared,
}

#[cfg_attr(not(feature = "client"), allow(dead_code))]
impl Feeder {
    /// Hands `feed` to the reader, waiting while the queue is full; `false` once the reader
    /// dropped the stream.
    pub(crate) async fn send(&self, feed: Feed) -> bool {
        let mut feed = Some(feed);
        std::future::poll_fn(|cx| {
            let mut queue = lock(&self.queue);
            if queue.dropped {
                return std::task::Poll::Ready(false);
            }
            if queue.items.len() >= FEED_CAPACITY {
                queue.writer = Some(cx.waker().clone());
                return std::task::Poll::Pending;
            }
            if let Some(feed) = feed.take() {
                queue.items.push_back(feed);
            }
            if let Some(reader) = queue.reader.take() {
                reader.wake();
            }
            std::task::Poll::Ready(true)
        })
        .await
    }

    /// Hands `feed` over without waiting: `Some(false)` when the queue is full (the feed is
    /// not kept), `None` once the reader dropped the stream.
    pub(crate) fn offer(&self, feed: Feed) -> Option<bool> {
        let mut queue = lock(&self.queue);
        if queue.dropped {
            return None;
        }
        if queue.items.len() >= FEED_CAPACITY {
            return Some(false);
        }
        queue.items.push_back(feed);
        if let Some(reader) = queue.reader.take() {
            reader.wake();
        }
        Some(true)
    }

    /// Whether the reader dropped the stream.
    pub(crate) fn is_dropped(&self) -> bool {
        lock(&self.queue).dropped
    }

    /// Resolves once the reader dropped the stream.
    pub(crate) async fn dropped(&self) {
        std::future::poll_fn(|cx| {
            let mut queue = lock(&self.queue);
            if queue.dropped {
                return std::task::Poll::Ready(());
            }
            queue.writer = Some(cx.waker().clone());
            std::task::Poll::Pending
        })
        .await;
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        let mut queue = lock(&self.queue);
        queue.done = true;
        if let Some(reader) = queue.reader.take() {
            reader.wake();
        }
    }
}

/// A subscription's occurrences as they come, typed as `P`: from
/// [`ToolCaller::stream_events`](crate::ToolCaller::stream_events) (what a generated
/// `stream_<event>` method returns). Over a client, it reopens a dropped push stream from its
/// last cursor and polls at the pace the server suggests (never more than once a second); it
/// hands over each `eventId` once. Dropping it ends the subscription.
pub struct EventStream<P = Value> {
    queue: Reader,
    cursor: Option<String>,
    seen: std::collections::HashSet<String>,
    order: std::collections::VecDeque<String>,
    ended: bool,
    /// Ends the producer when the stream is dropped (a task on the client's runtime).
    _stop: Option<Box<dyn Send + Sync>>,
    /// Sees each item handed over (a cassette's recorder).
    tap: Option<Tap>,
    _payload: std::marker::PhantomData<fn() -> P>,
}

impl<P> std::fmt::Debug for EventStream<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("cursor", &self.cursor)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

/// What sees each item a stream hands over, before its data is decoded.
type Tap = Box<dyn FnMut(&EventItem<Value>) + Send + Sync>;

/// The reading end of the queue: dropping it tells the producer to stop.
struct Reader(Shared);

impl Drop for Reader {
    fn drop(&mut self) {
        let mut queue = lock(&self.0);
        queue.dropped = true;
        if let Some(writer) = queue.writer.take() {
            writer.wake();
        }
    }
}

impl<P> EventStream<P> {
    /// The same stream, its occurrences' data read as `Q`.
    pub fn typed<Q: DeserializeOwned>(self) -> EventStream<Q> {
        EventStream {
            queue: self.queue,
            cursor: self.cursor,
            seen: self.seen,
            order: self.order,
            ended: self.ended,
            _stop: self._stop,
            tap: self.tap,
            _payload: std::marker::PhantomData,
        }
    }

    /// The same stream, `tap` seeing each item before it is handed over.
    pub(crate) fn tapped(
        mut self,
        tap: impl FnMut(&EventItem<Value>) + Send + Sync + 'static,
    ) -> Self {
        self.tap = Some(Box::new(tap));
        self
    }
}

impl<P: DeserializeOwned> EventStream<P> {
    /// A stream and the end that feeds it; `stop` is dropped with the stream (an abort handle).
    pub(crate) fn channel(cursor: Option<String>) -> (Self, Feeder) {
        let queue = Shared::default();
        let stream = EventStream {
            queue: Reader(queue.clone()),
            cursor,
            seen: Default::default(),
            order: Default::default(),
            ended: false,
            _stop: None,
            tap: None,
            _payload: std::marker::PhantomData,
        };
        (stream, Feeder { queue })
    }

    /// A stream that hands over `items`, then ends (a cassette's replay).
    pub(crate) fn from_items(items: Vec<EventItem<Value>>) -> Self {
        let (stream, feeder) = EventStream::channel(None);
        lock(&feeder.queue)
            .items
            .extend(items.into_iter().map(Feed::Item));
        stream
    }

    /// Keeps `stop` until the stream is dropped.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn holding(mut self, stop: impl Send + Sync + 'static) -> Self {
        self._stop = Some(Box::new(stop));
        self
    }

    /// A stream that fails at once with `error`.
    pub fn failed(error: crate::Error) -> Self {
        let (stream, feeder) = EventStream::channel(None);
        lock(&feeder.queue).items.push_back(Feed::Failed(error));
        stream
    }

    /// The next item: an occurrence (its data read as `P`), a gap, or the end the server gave
    /// it. `None` once the stream has ended (after `Terminated`, after an error the producer
    /// cannot get past, or when the producer stopped). An occurrence whose data does not read
    /// as `P` is an [`Error::Decode`](crate::Error::Decode), and the stream goes on.
    pub async fn next(&mut self) -> Option<Result<EventItem<P>, crate::Error>> {
        loop {
            if self.ended {
                return None;
            }
            let feed = std::future::poll_fn(|cx| {
                let mut queue = lock(&self.queue.0);
                if let Some(feed) = queue.items.pop_front() {
                    if let Some(writer) = queue.writer.take() {
                        writer.wake();
                    }
                    return std::task::Poll::Ready(Some(feed));
                }
                if queue.done {
                    return std::task::Poll::Ready(None);
                }
                queue.reader = Some(cx.waker().clone());
                std::task::Poll::Pending
            })
            .await;
            let Some(feed) = feed else {
                self.ended = true;
                return None;
            };
            if let (Some(tap), Feed::Item(item)) = (&mut self.tap, &feed) {
                let repeat = matches!(item, EventItem::Event(o) if self.seen.contains(&o.event_id));
                if !repeat {
                    tap(item);
                }
            }
            match feed {
                Feed::Cursor(cursor) => self.cursor = cursor,
                Feed::Failed(error) => {
                    self.ended = true;
                    return Some(Err(error));
                }
                Feed::Item(EventItem::Terminated(ended)) => {
                    self.ended = true;
                    return Some(Ok(EventItem::Terminated(ended)));
                }
                Feed::Item(EventItem::Truncated { cursor }) => {
                    self.cursor.clone_from(&cursor);
                    return Some(Ok(EventItem::Truncated { cursor }));
                }
                Feed::Item(EventItem::Event(occurrence)) => {
                    if occurrence.cursor.is_some() {
                        self.cursor.clone_from(&occurrence.cursor);
                    }
                    if !self.first_time(&occurrence.event_id) {
                        continue;
                    }
                    return Some(decode(occurrence).map(EventItem::Event));
                }
            }
        }
    }

    /// Where the stream is: the cursor to resume from later ([`EventOptions::cursor`]), after
    /// what was handed over. `None` before the server gave one, or for a type without replay.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }

    /// Whether `event_id` is new to this stream (remembering the last [`SEEN`]).
    fn first_time(&mut self, event_id: &str) -> bool {
        if self.seen.contains(event_id) {
            return false;
        }
        if self.order.len() == SEEN
            && let Some(oldest) = self.order.pop_front()
        {
            self.seen.remove(&oldest);
        }
        self.seen.insert(event_id.to_owned());
        self.order.push_back(event_id.to_owned());
        true
    }
}

impl Occurrence<Value> {
    /// The occurrence with its data read as `P`; a value that does not fit is
    /// [`Error::Decode`](crate::Error::Decode) naming the event and the JSON path.
    pub fn typed<P: DeserializeOwned>(self) -> Result<Occurrence<P>, crate::Error> {
        decode(self)
    }
}

impl EventPage<Value> {
    /// The page with its occurrences' data read as `P` (see [`Occurrence::typed`]).
    pub fn typed<P: DeserializeOwned>(self) -> Result<EventPage<P>, crate::Error> {
        decode_page(self)
    }
}

/// An occurrence with its data read as `P`.
fn decode<P: DeserializeOwned>(
    occurrence: Occurrence<Value>,
) -> Result<Occurrence<P>, crate::Error> {
    let Occurrence {
        event_id,
        name,
        timestamp,
        data,
        cursor,
    } = occurrence;
    let data = serde_path_to_error::deserialize(&data).map_err(|e| crate::Error::Decode {
        tool: name.clone(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
        value: Box::new(data.clone()),
    })?;
    Ok(Occurrence {
        event_id,
        name,
        timestamp,
        data,
        cursor,
    })
}

/// A page with its occurrences' data read as `P`.
fn decode_page<P: DeserializeOwned>(page: EventPage<Value>) -> Result<EventPage<P>, crate::Error> {
    let EventPage {
        events,
        cursor,
        truncated,
        has_more,
        next_poll_ms,
    } = page;
    Ok(EventPage {
        events: events.into_iter().map(decode).collect::<Result<_, _>>()?,
        cursor,
        truncated,
        has_more,
        next_poll_ms,
    })
}

/// A subscription's arguments as the JSON object sent, or why they cannot be one.
fn arguments<A: Serialize + ?Sized>(
    name: &str,
    args: &A,
) -> Result<Map<String, Value>, crate::Error> {
    match serde_json::to_value(args) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(crate::Error::transport(format!(
            "the arguments of the event {name} serialize to {other}, not a JSON object"
        ))),
        Err(e) => Err(crate::Error::transport_source(
            format!("the arguments of the event {name} do not serialize"),
            e,
        )),
    }
}

/// Polls the event type `name` once with typed arguments and payload: what a generated
/// `poll_<event>` method calls (see [`ToolCaller::poll_events`](crate::ToolCaller::poll_events)).
pub async fn poll<C, A, P>(
    caller: &C,
    name: &str,
    args: &A,
    cursor: Option<&str>,
) -> Result<EventPage<P>, crate::Error>
where
    C: crate::ToolCaller + ?Sized,
    A: Serialize + ?Sized,
    P: DeserializeOwned,
{
    let arguments = arguments(name, args)?;
    caller
        .poll_events(name, arguments, cursor, None)
        .await?
        .typed()
}

/// The occurrences of the event type `name` that `args` hear, typed: what a generated
/// `stream_<event>` method calls (see
/// [`ToolCaller::stream_events`](crate::ToolCaller::stream_events)).
pub fn stream<C, A, P>(caller: &C, name: &str, args: &A, options: EventOptions) -> EventStream<P>
where
    C: crate::ToolCaller + ?Sized,
    A: Serialize + ?Sized,
    P: DeserializeOwned,
{
    match arguments(name, args) {
        Ok(arguments) => caller.stream_events(name, arguments, options).typed(),
        Err(error) => EventStream::failed(error),
    }
}
