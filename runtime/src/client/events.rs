//! The client's side of the Events extension (`io.modelcontextprotocol/events`, SEP-3415):
//! `events/list`, `events/poll`, and [`EventStream`]s, which a task on the I/O runtime feeds by
//! push (`events/stream`, its notifications routed here by `Session::route` through the
//! request's [`EventSink`]) or by poll, reopening and resuming from the last cursor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::session::{self, Connection};
use super::{CallOptions, McpClient, Transport, io};
use crate::Error;
use crate::events::{
    Delivery, Ended, EventDescriptor, EventItem, EventOptions, EventPage, EventStream, Feed,
    Feeder, Occurrence, code,
};

/// How many notifications of one push stream wait for its reader; past that the stream is
/// dropped and reopened from its cursor (nothing is lost, the server keeps what it sent).
const SINK_CAPACITY: usize = 256;
/// The longest pause between attempts to reopen a stream or poll again after a failure.
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// Where the notifications of one `events/stream` request go: a bounded channel, and whether
/// it overflowed.
#[derive(Clone)]
pub(crate) struct EventSink {
    tx: mpsc::Sender<Value>,
    overflowed: Arc<AtomicBool>,
}

impl EventSink {
    fn new() -> (Self, mpsc::Receiver<Value>) {
        let (tx, rx) = mpsc::channel(SINK_CAPACITY);
        let sink = EventSink {
            tx,
            overflowed: Arc::default(),
        };
        (sink, rx)
    }

    /// Hands over one `notifications/events/*` message (never waits: a full sink is marked).
    pub(crate) fn deliver(&self, message: &Value) {
        if self.tx.try_send(message.clone()).is_err() {
            self.overflowed.store(true, Ordering::Relaxed);
        }
    }
}

impl<T: Transport> McpClient<T> {
    /// The server's event types (`events/list`, every page).
    pub async fn list_events(&self) -> Result<Vec<EventDescriptor>, Error> {
        list(&self.conn).await
    }

    /// Polls the event type `name` once (`events/poll`): the occurrences after `cursor` (none:
    /// from now, which returns no occurrences and the cursor to poll from) that `arguments`
    /// hear, at most `max_events`. A server error is [`Error::Protocol`] with the extension's
    /// code ([`code`]).
    pub async fn poll_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cursor: Option<&str>,
        max_events: Option<u32>,
    ) -> Result<EventPage, Error> {
        poll(&self.conn, name, &arguments, cursor, max_events, None).await
    }

    /// The occurrences of the event type `name` that `arguments` hear, as they come (see
    /// [`EventStream`]): by push when the type offers it (`events/stream`), else by poll,
    /// unless `options` pick the mode.
    pub fn stream_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: EventOptions,
    ) -> EventStream {
        let (stream, feeder) = EventStream::channel(options.cursor.clone());
        let runtime = match io::handle() {
            Ok(runtime) => runtime,
            Err(e) => return EventStream::failed(e),
        };
        let conn = self.conn.clone();
        let task = runtime.spawn(produce(conn, name.to_owned(), arguments, options, feeder));
        stream.holding(Abort(task.abort_handle()))
    }
}

/// Aborts the producing task when its stream is dropped.
struct Abort(tokio::task::AbortHandle);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn list<T: Transport>(conn: &Connection<T>) -> Result<Vec<EventDescriptor>, Error> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    // A server that pages without end is cut off: 1,000 pages is more than any server lists.
    for _ in 0..1000 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = session::request(conn, "events/list", params, &CallOptions::default()).await?;
        let events = page.get("events").cloned().unwrap_or(Value::Array(vec![]));
        let events: Vec<EventDescriptor> = serde_json::from_value(events).map_err(|e| {
            Error::transport_source("events/list answered with a malformed event type", e)
        })?;
        all.extend(events);
        cursor = page["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    Ok(all)
}

async fn poll<T: Transport>(
    conn: &Connection<T>,
    name: &str,
    arguments: &Map<String, Value>,
    cursor: Option<&str>,
    max_events: Option<u32>,
    max_age: Option<Duration>,
) -> Result<EventPage, Error> {
    let mut params = subscription(name, arguments, cursor, max_age);
    if let Some(max) = max_events {
        params["maxEvents"] = Value::from(max);
    }
    let page = session::request(conn, "events/poll", params, &CallOptions::default()).await?;
    serde_json::from_value(page).map_err(|e| {
        Error::transport_source("events/poll answered with a result that is not a page", e)
    })
}

/// The params of a poll or a stream: the type, its arguments, the cursor (`null`: from now)
/// and `maxAgeMs`.
fn subscription(
    name: &str,
    arguments: &Map<String, Value>,
    cursor: Option<&str>,
    max_age: Option<Duration>,
) -> Value {
    let mut params = json!({"name": name, "arguments": arguments, "cursor": cursor});
    if let Some(age) = max_age {
        params["maxAgeMs"] = Value::from(u64::try_from(age.as_millis()).unwrap_or(u64::MAX));
    }
    params
}

/// What one round of a producer came to.
enum Round {
    /// Go on after this pause.
    Again(Duration),
    /// The stream ended (the server ended the subscription, or the reader went).
    Ended,
    /// Failed; tried again after a back-off when `retry`, else handed to the reader.
    Failed(Error, bool),
}

/// Where a producer is: the cursor to resume from, and `maxAgeMs` for its first request.
struct Resume {
    cursor: Option<String>,
    max_age: Option<Duration>,
}

/// Feeds one [`EventStream`] until its reader drops it or the server ends the subscription.
async fn produce<T: Transport>(
    conn: Arc<Connection<T>>,
    name: String,
    arguments: Map<String, Value>,
    options: EventOptions,
    feeder: Feeder,
) {
    let mode = match options.delivery {
        Some(mode) => Ok(mode),
        None => pick(&conn, &name).await,
    };
    let mode = match mode {
        Ok(mode) => mode,
        Err(round) => {
            finish(round, &feeder).await;
            return;
        }
    };
    let mut at = Resume {
        cursor: options.cursor.clone(),
        max_age: options.max_age,
    };
    let mut backoff = Duration::from_secs(1);
    loop {
        let round = match mode {
            Delivery::Poll => {
                poll_round(&conn, &name, &arguments, &mut at, &options, &feeder).await
            }
            Delivery::Push => {
                push_round(&conn, &name, &arguments, &mut at, &options, &feeder).await
            }
            Delivery::Webhook => Round::Failed(
                Error::transport("webhook delivery needs an HTTPS endpoint; this client has none"),
                false,
            ),
        };
        let pause = match round {
            Round::Again(pause) => {
                backoff = Duration::from_secs(1);
                pause
            }
            Round::Failed(_e, true) => {
                #[cfg(feature = "tracing")]
                tracing::debug!(event = %name, error = %_e, ?backoff, "event stream: trying again");
                let pause = backoff;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                pause
            }
            ended => {
                finish(ended, &feeder).await;
                return;
            }
        };
        if !pause.is_zero()
            && let First::B(()) = first(tokio::time::sleep(pause), feeder.dropped()).await
        {
            return;
        }
        if feeder.is_dropped() {
            return;
        }
    }
}

/// Hands a last failure to the reader.
async fn finish(round: Round, feeder: &Feeder) {
    if let Round::Failed(error, _) = round {
        feeder.send(Feed::Failed(error)).await;
    }
}

/// The mode for `name`: push when the type offers it, else poll.
async fn pick<T: Transport>(conn: &Connection<T>, name: &str) -> Result<Delivery, Round> {
    let types = list(conn).await.map_err(|e| Round::Failed(e, false))?;
    let Some(kind) = types.iter().find(|t| t.name == name) else {
        return Err(Round::Failed(
            Error::Protocol {
                code: code::NOT_FOUND,
                message: format!("the server lists no event type {name}"),
                data: Some(json!({"kind": "event"})),
            },
            false,
        ));
    };
    [Delivery::Push, Delivery::Poll]
        .into_iter()
        .find(|mode| kind.delivery.contains(mode))
        .ok_or_else(|| {
            let offered: Vec<&str> = kind.delivery.iter().map(|m| m.as_str()).collect();
            let message = format!(
                "the event type {name} is delivered by {} only; this client polls or streams",
                offered.join(", ")
            );
            Round::Failed(Error::transport(message), false)
        })
}

/// A server's error that ends the subscription, as the reader sees it; `None` for anything
/// else.
fn ending(error: &Error) -> Option<Ended> {
    let Error::Protocol {
        code: sent,
        message,
        data,
    } = error
    else {
        return None;
    };
    let code = code::of(*sent);
    matches!(
        code,
        code::NOT_FOUND | code::FORBIDDEN | code::UNSUPPORTED | code::INVALID_PARAMS
    )
    .then(|| Ended {
        code,
        message: message.clone(),
        data: data.clone(),
    })
}

/// What a failed request comes to: a failure to try again (a transport's) or not (anything
/// the server answered).
fn failed(error: Error) -> Round {
    let retry = matches!(error, Error::Transport { .. } | Error::Timeout { .. });
    Round::Failed(error, retry)
}

/// One poll: its gap, occurrences and cursor fed; the pause the server suggests (at least the
/// floor), none when it has more.
async fn poll_round<T: Transport>(
    conn: &Connection<T>,
    name: &str,
    arguments: &Map<String, Value>,
    at: &mut Resume,
    options: &EventOptions,
    feeder: &Feeder,
) -> Round {
    let max_age = at.max_age.take();
    let page = match poll(conn, name, arguments, at.cursor.as_deref(), None, max_age).await {
        Ok(page) => page,
        Err(error) => {
            if let Some(ended) = ending(&error) {
                feeder.send(Feed::Item(EventItem::Terminated(ended))).await;
                return Round::Ended;
            }
            return failed(error);
        }
    };
    let had_cursor = at.cursor.is_some();
    at.cursor.clone_from(&page.cursor);
    if page.truncated && had_cursor {
        let cursor = page.cursor.clone();
        if !feeder
            .send(Feed::Item(EventItem::Truncated { cursor }))
            .await
        {
            return Round::Ended;
        }
    }
    // The page's cursor is the position after its last occurrence: a reader that stops
    // there resumes after it (one that stops earlier is given the rest again).
    let last = page.events.len();
    for (i, mut occurrence) in page.events.into_iter().enumerate() {
        if i + 1 == last {
            occurrence.cursor.clone_from(&page.cursor);
        }
        if !feeder.send(Feed::Item(EventItem::Event(occurrence))).await {
            return Round::Ended;
        }
    }
    if !feeder.send(Feed::Cursor(page.cursor)).await {
        return Round::Ended;
    }
    if page.has_more {
        return Round::Again(Duration::ZERO);
    }
    let suggested = Duration::from_millis(page.next_poll_ms.unwrap_or(0));
    Round::Again(suggested.max(options.poll_floor))
}

/// One push stream, read until it ends: `Again` at once when it was open and dropped (or the
/// server closed it), a failure when it could not open or went silent.
async fn push_round<T: Transport>(
    conn: &Connection<T>,
    name: &str,
    arguments: &Map<String, Value>,
    at: &mut Resume,
    options: &EventOptions,
    feeder: &Feeder,
) -> Round {
    let (sink, mut notes) = EventSink::new();
    let overflowed = sink.overflowed.clone();
    let params = subscription(name, arguments, at.cursor.as_deref(), at.max_age.take());
    let call = CallOptions {
        events: Some(sink),
        timeout: Some(Duration::MAX),
        ..CallOptions::default()
    };
    let request = session::request(conn, "events/stream", params, &call);
    let mut request = std::pin::pin!(request);
    let mut opened = false;
    loop {
        let heard = first(
            first(
                request.as_mut(),
                tokio::time::timeout(options.silence, notes.recv()),
            ),
            feeder.dropped(),
        )
        .await;
        let note = match heard {
            First::B(()) => return Round::Ended,
            First::A(First::A(done)) => {
                // What came before the answer is read first.
                while let Ok(note) = notes.try_recv() {
                    match read_note(&note, at, feeder).await {
                        Some(round) => return round,
                        None => opened = true,
                    }
                }
                return match done {
                    // The server closed the stream (it shuts down): open it again, at once if
                    // it had been open, else after a back-off (a server that ends every stream
                    // at once must not make the client spin).
                    Ok(_) if opened => Round::Again(Duration::ZERO),
                    Ok(_) => Round::Failed(
                        Error::transport("the server ended the event stream before it opened"),
                        true,
                    ),
                    Err(error) if opened => Round::Failed(error, true),
                    Err(error) => match ending(&error) {
                        Some(ended) => {
                            feeder.send(Feed::Item(EventItem::Terminated(ended))).await;
                            Round::Ended
                        }
                        None => failed(error),
                    },
                };
            }
            First::A(First::B(note)) => note,
        };
        let Ok(Some(note)) = note else {
            // Silent past the heartbeats: the connection is dead (dropping the request closes
            // it); resume from the cursor.
            return Round::Failed(Error::transport("the event stream went silent"), true);
        };
        if let Some(round) = read_note(&note, at, feeder).await {
            return round;
        }
        opened = true;
        if overflowed.load(Ordering::Relaxed) {
            // The reader fell behind: resume from the cursor on a new stream.
            return Round::Again(Duration::ZERO);
        }
    }
}

/// Which of two futures finished first.
enum First<A, B> {
    A(A),
    B(B),
}

/// Runs `a` and `b` until one finishes (`a` first when both are ready).
async fn first<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> First<A::Output, B::Output> {
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(out) = a.as_mut().poll(cx) {
            return std::task::Poll::Ready(First::A(out));
        }
        if let std::task::Poll::Ready(out) = b.as_mut().poll(cx) {
            return std::task::Poll::Ready(First::B(out));
        }
        std::task::Poll::Pending
    })
    .await
}

/// Feeds one notification of a push stream; `Some` when the stream is over.
async fn read_note(note: &Value, at: &mut Resume, feeder: &Feeder) -> Option<Round> {
    let params = &note["params"];
    let cursor = || params["cursor"].as_str().map(str::to_owned);
    let fed = match note["method"].as_str().unwrap_or("") {
        "notifications/events/active" => {
            let resumed = at.cursor.is_some();
            at.cursor = cursor();
            if params["truncated"] == Value::Bool(true) && resumed {
                let item = EventItem::Truncated { cursor: cursor() };
                feeder.send(Feed::Item(item)).await
            } else {
                feeder.send(Feed::Cursor(cursor())).await
            }
        }
        "notifications/events/event" => {
            let Ok(occurrence) = serde_json::from_value::<Occurrence>(params.clone()) else {
                return None;
            };
            if occurrence.cursor.is_some() {
                at.cursor.clone_from(&occurrence.cursor);
            }
            feeder.send(Feed::Item(EventItem::Event(occurrence))).await
        }
        "notifications/events/heartbeat" => {
            at.cursor = cursor();
            feeder.send(Feed::Cursor(cursor())).await
        }
        "notifications/events/terminated" => {
            let error = &params["error"];
            let ended = Ended {
                code: code::of(error["code"].as_i64().unwrap_or(code::NOT_FOUND)),
                message: error["message"].as_str().unwrap_or("terminated").to_owned(),
                data: error.get("data").cloned(),
            };
            feeder.send(Feed::Item(EventItem::Terminated(ended))).await;
            return Some(Round::Ended);
        }
        // `notifications/events/error`: the server retries on its own.
        _ => true,
    };
    (!fed).then_some(Round::Ended)
}
