//! Event types a game declares and emits (the Events extension, SEP-3415, MCP 2026-07-28).
//!
//! An [`EventType`] names an event and its Rust types: the payload (each occurrence's `data`)
//! and the subscription's arguments, whose schemas schemars gives. Registering it returns an
//! [`Emitter`], which gameplay keeps and calls at any point of a frame; an occurrence is kept in
//! the type's ring buffer (bounded by count and age) and read from there by `events/poll` and by
//! each `events/stream` after its cursor. While nobody listens (no open stream, no poll within
//! the lease), `emit` is one atomic load and keeps nothing.
//!
//! The ring buffers live in a [`Hub`] the registry and the HTTP thread share: streams are served
//! on the HTTP thread, like `subscriptions/listen`, and never wait for a frame.

use std::any::Any;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::events::{Delivery, code};
use crate::server::wire::{Params, Text, error_with};

pub(crate) mod push;

/// The payload and the arguments of an occurrence, as filters see them.
type Shared = Arc<dyn Any + Send + Sync>;
type Filter = Box<dyn Fn(&dyn Any, &dyn Any) -> bool + Send + Sync>;
type ReadArgs = Box<dyn Fn(Value) -> Result<Shared, String> + Send + Sync>;

/// The most occurrences one `events/poll` page holds (a client may ask for fewer).
pub(crate) const PAGE_LIMIT: usize = 256;

/// An event type: its name, its payload `P` and the arguments `A` a subscription gives (none by
/// default), the delivery modes offered, how much is kept for clients that come back, and an
/// optional filter of occurrences by a subscription's arguments.
///
/// ```
/// use mcp_bindgen::server::{EventType, Registry, schemars::JsonSchema};
///
/// /// An entity was destroyed.
/// #[derive(serde::Serialize, JsonSchema)]
/// struct Destroyed { entity: u64, kind: String }
///
/// /// Which destructions to hear.
/// #[derive(serde::Deserialize, JsonSchema)]
/// struct ByKind {
///     /// Only entities of this kind.
///     kind: Option<String>,
/// }
///
/// let mut registry: Registry<()> = Registry::new("arena", "1.0.0");
/// let destroyed = registry.register_event(
///     EventType::<Destroyed, ByKind>::new("entity_destroyed")
///         .filter(|event, by| by.kind.as_ref().is_none_or(|k| *k == event.kind)),
/// );
/// // Gameplay, any time in a frame: nothing is kept while nobody listens.
/// destroyed.emit(Destroyed { entity: 7, kind: "goblin".into() });
/// assert!(!destroyed.is_heard());
/// ```
pub struct EventType<P, A = crate::NoArguments> {
    name: String,
    description: Option<String>,
    delivery: Vec<Delivery>,
    capacity: usize,
    max_age: Duration,
    next_poll: Duration,
    filter: Option<Filter>,
    _types: PhantomData<fn(P, A)>,
}

impl<P, A> std::fmt::Debug for EventType<P, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventType")
            .field("name", &self.name)
            .field("delivery", &self.delivery)
            .field("capacity", &self.capacity)
            .field("max_age", &self.max_age)
            .finish_non_exhaustive()
    }
}

impl<P, A> EventType<P, A>
where
    P: Serialize + JsonSchema + Send + Sync + 'static,
    A: DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    /// The event type `name`, offered by poll and push, keeping the last 1,024 occurrences of
    /// at most 10 minutes, suggesting a poll every second; described by `P`'s doc comment.
    pub fn new(name: impl Into<String>) -> Self {
        EventType {
            name: name.into(),
            description: None,
            delivery: vec![Delivery::Poll, Delivery::Push],
            capacity: 1024,
            max_age: Duration::from_secs(600),
            next_poll: Duration::from_secs(1),
            filter: None,
            _types: PhantomData,
        }
    }

    /// What the event means (default: the payload type's doc comment).
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The delivery modes offered: [`Delivery::Poll`], [`Delivery::Push`] or both (the
    /// default). Webhooks are not offered by this server (they need an authenticated principal
    /// and an HTTPS callback); a list without poll or push, or empty, is ignored.
    pub fn delivery(mut self, modes: &[Delivery]) -> Self {
        let modes: Vec<Delivery> = [Delivery::Poll, Delivery::Push]
            .into_iter()
            .filter(|m| modes.contains(m))
            .collect();
        if !modes.is_empty() {
            self.delivery = modes;
        }
        self
    }

    /// How many occurrences are kept (at least one; default 1,024) and for how long (default
    /// 10 minutes) for clients that resume from a cursor. One older than either is gone: a
    /// client whose cursor is before it is told `truncated`.
    pub fn keep(mut self, count: usize, age: Duration) -> Self {
        self.capacity = count.max(1);
        self.max_age = age;
        self
    }

    /// The pause suggested to polling clients (`nextPollMs`; default 1 s, which is also the
    /// floor clients apply).
    pub fn next_poll(mut self, interval: Duration) -> Self {
        self.next_poll = interval;
        self
    }

    /// Which occurrences a subscription hears, by its arguments (default: all). Runs on the
    /// server's HTTP thread for streams and on the game thread for polls, with the buffer
    /// locked: keep it a comparison.
    pub fn filter(mut self, hears: impl Fn(&P, &A) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Box::new(move |payload, args| {
            match (payload.downcast_ref::<P>(), args.downcast_ref::<A>()) {
                (Some(payload), Some(args)) => hears(payload, args),
                _ => true,
            }
        }));
        self
    }

    /// The type as the hub keeps it.
    pub(crate) fn into_kind(self, boot: &str) -> Kind {
        let (payload_schema, doc) = crate::server::schema::payload_schema::<P>();
        let input_schema = crate::server::schema::input_schema::<A>();
        let description = self.description.or(doc);
        let input_schema = Value::Object(input_schema);
        let mut descriptor = Map::new();
        descriptor.insert("name".into(), Value::String(self.name.clone()));
        if let Some(description) = description {
            descriptor.insert("description".into(), Value::String(description));
        }
        let delivery = self.delivery.iter().map(|m| m.as_str().into()).collect();
        descriptor.insert("delivery".into(), Value::Array(delivery));
        descriptor.insert("inputSchema".into(), input_schema.clone());
        descriptor.insert("payloadSchema".into(), Value::Object(payload_schema));
        Kind {
            payload: std::any::TypeId::of::<P>(),
            input: crate::CompiledSchema::new(&input_schema),
            name_json: Value::String(self.name.clone()).to_string(),
            name: self.name,
            descriptor: Value::Object(descriptor),
            delivery: self.delivery,
            read_args: Box::new(|value| {
                serde_json::from_value::<A>(value)
                    .map(|a| Arc::new(a) as Shared)
                    .map_err(|e| e.to_string())
            }),
            filter: self.filter,
            capacity: self.capacity,
            max_age: self.max_age,
            next_poll: self.next_poll,
            boot: boot.to_owned(),
            ring: Mutex::new(Ring {
                next: 1,
                entries: VecDeque::new(),
            }),
            heard: AtomicBool::new(false),
            lease: Mutex::new(None),
            streams: AtomicUsize::new(0),
            wake: Notify::new(),
            removed: AtomicBool::new(false),
        }
    }
}

/// The handle gameplay emits occurrences of one event type with. Cheap to clone; it works from
/// any thread, and while a handler runs (it does not need the registry). Once the type is
/// unregistered, emitting does nothing.
pub struct Emitter<P> {
    kind: Arc<Kind>,
    _payload: PhantomData<fn(P)>,
}

impl<P> Clone for Emitter<P> {
    fn clone(&self) -> Self {
        Emitter {
            kind: self.kind.clone(),
            _payload: PhantomData,
        }
    }
}

impl<P> std::fmt::Debug for Emitter<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emitter")
            .field("event", &self.kind.name)
            .field("heard", &self.is_heard())
            .finish()
    }
}

impl<P: Serialize + Send + Sync + 'static> Emitter<P> {
    pub(crate) fn new(kind: Arc<Kind>) -> Self {
        Emitter {
            kind,
            _payload: PhantomData,
        }
    }

    /// Records an occurrence of the event now, for every stream open on it and every client
    /// that polls. While nobody listens this is one atomic load. A payload that does not
    /// serialize is dropped (with the `tracing` feature, a warning names the event).
    pub fn emit(&self, payload: P) {
        if !self.kind.heard.load(Ordering::Relaxed) || !self.kind.still_heard() {
            return;
        }
        match serde_json::to_string(&payload) {
            Ok(data) => self.kind.push(&data, Arc::new(payload)),
            Err(_e) => {
                #[cfg(feature = "tracing")]
                tracing::warn!(event = %self.kind.name, error = %_e, "event payload not serialized");
            }
        }
    }
}

impl<P> Emitter<P> {
    /// Whether anyone listens: a stream is open, or a client polled within the last five
    /// minutes (or a stream closed then: it may come back with its cursor). Check it before
    /// building a payload that costs something.
    pub fn is_heard(&self) -> bool {
        self.kind.heard.load(Ordering::Relaxed)
    }

    /// The streams (`events/stream`) open on this event type now.
    pub fn streams(&self) -> usize {
        self.kind.streams.load(Ordering::Relaxed)
    }

    /// The event type's name.
    pub fn name(&self) -> &str {
        &self.kind.name
    }
}

/// How long a poll, or a stream that closed, keeps an event type recording.
const LEASE: Duration = Duration::from_secs(300);

/// One event type as the hub keeps it.
pub(crate) struct Kind {
    pub(crate) name: String,
    /// The payload's Rust type, for [`Hub::emitter`].
    payload: std::any::TypeId,
    /// The name as a JSON string.
    name_json: String,
    /// The `events/list` entry.
    pub(crate) descriptor: Value,
    delivery: Vec<Delivery>,
    input: crate::CompiledSchema,
    read_args: ReadArgs,
    filter: Option<Filter>,
    capacity: usize,
    max_age: Duration,
    pub(crate) next_poll: Duration,
    /// The process's cursor prefix (see [`Hub`]).
    boot: String,
    ring: Mutex<Ring>,
    /// Someone listens: emitted occurrences are kept.
    heard: AtomicBool,
    /// Until when a poll (or a closed stream) keeps `heard`.
    lease: Mutex<Option<Instant>>,
    streams: AtomicUsize,
    /// Wakes the streams when an occurrence is kept or the type removed.
    pub(crate) wake: Notify,
    pub(crate) removed: AtomicBool,
}

/// The occurrences kept, oldest first, and the number the next one gets.
struct Ring {
    next: u64,
    entries: VecDeque<Stored>,
}

struct Stored {
    seq: u64,
    at: Instant,
    /// The occurrence's members but the cursor: `"eventId":..,"name":..,"timestamp":..,"data":..`.
    members: Arc<str>,
    payload: Shared,
}

/// Where a subscription is: after occurrence `seq` of its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position(pub(crate) u64);

/// What one read of the buffer found.
pub(crate) struct Read {
    /// Each occurrence's members and number.
    pub(crate) found: Vec<(u64, Arc<str>)>,
    /// The position after the read (past what the filter skipped too).
    pub(crate) position: Position,
    pub(crate) truncated: bool,
    pub(crate) more: bool,
}

impl Kind {
    fn ring(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, data: &str, payload: Shared) {
        let now = Instant::now();
        let stamp = super::tasks::iso8601(SystemTime::now());
        {
            let mut ring = self.ring();
            let seq = ring.next;
            ring.next += 1;
            let members = format!(
                r#""eventId":"{}-{seq}","name":{},"timestamp":"{stamp}","data":{data}"#,
                self.boot, self.name_json
            );
            ring.entries.push_back(Stored {
                seq,
                at: now,
                members: members.into(),
                payload,
            });
            while ring.entries.len() > self.capacity {
                ring.entries.pop_front();
            }
            self.expire(&mut ring, now);
        }
        if self.streams.load(Ordering::Relaxed) > 0 {
            self.wake.notify_waiters();
        }
    }

    fn expire(&self, ring: &mut Ring, now: Instant) {
        while ring
            .entries
            .front()
            .is_some_and(|e| now.saturating_duration_since(e.at) > self.max_age)
        {
            ring.entries.pop_front();
        }
    }

    /// The cursor of `position`.
    pub(crate) fn cursor(&self, position: Position) -> String {
        format!("{}.{}", self.boot, position.0)
    }

    /// The position a cursor names, and whether the client missed something to get there: no
    /// cursor is now; one of another process, or one this process never gave, is now and
    /// truncated.
    pub(crate) fn start(&self, cursor: Option<&str>) -> (Position, bool) {
        let mut ring = self.ring();
        self.expire(&mut ring, Instant::now());
        let now = Position(ring.next - 1);
        let Some(cursor) = cursor else {
            return (now, false);
        };
        let seq = cursor
            .strip_prefix(self.boot.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|seq| seq.parse::<u64>().ok());
        match seq {
            Some(seq) if seq < ring.next => (Position(seq), false),
            _ => (now, true),
        }
    }

    /// Up to `max` occurrences after `from` that `args` hear, none older than `floor`; gaps
    /// (evicted occurrences, the floor) make it `truncated`.
    pub(crate) fn read(
        &self,
        from: Position,
        args: &Shared,
        max: usize,
        floor: Option<Instant>,
    ) -> Read {
        let mut ring = self.ring();
        self.expire(&mut ring, Instant::now());
        let mut position = from.0;
        let oldest = ring.entries.front().map_or(ring.next, |e| e.seq);
        let mut truncated = position + 1 < oldest;
        position = position.max(oldest - 1);
        let mut found = Vec::new();
        let mut more = false;
        let after = position;
        for entry in ring.entries.iter().filter(|e| e.seq > after) {
            if floor.is_some_and(|floor| entry.at < floor) {
                truncated = true;
                position = entry.seq;
                continue;
            }
            if !self
                .filter
                .as_ref()
                .is_none_or(|hears| hears(&*entry.payload, &**args))
            {
                position = entry.seq;
                continue;
            }
            if found.len() == max {
                more = true;
                break;
            }
            found.push((entry.seq, entry.members.clone()));
            position = entry.seq;
        }
        if !more {
            position = ring.next - 1;
        }
        Read {
            found,
            position: Position(position),
            truncated,
            more,
        }
    }

    /// Keeps the type recording for a lease from now (a poll, a stream that closed).
    pub(crate) fn renew(&self) {
        *self.lease.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now() + LEASE);
        self.hear();
    }

    /// Records from now on, unless the type was removed.
    fn hear(&self) {
        if !self.removed.load(Ordering::Relaxed) {
            self.heard.store(true, Ordering::Relaxed);
        }
    }

    /// A stream opened on the type.
    pub(crate) fn opened(&self) {
        self.streams.fetch_add(1, Ordering::Relaxed);
        self.hear();
    }

    /// A stream closed: the type keeps recording for a lease, for the client to come back.
    pub(crate) fn closed(&self) {
        self.streams.fetch_sub(1, Ordering::Relaxed);
        self.renew();
    }

    /// Whether someone still listens (a stream is open, or a lease runs); when not, the type
    /// stops recording here, at the first occurrence after the lease ran out, whether or not a
    /// frame announced anything since.
    fn still_heard(&self) -> bool {
        if self.streams.load(Ordering::Relaxed) > 0 {
            return true;
        }
        self.sweep(Instant::now());
        self.heard.load(Ordering::Relaxed)
    }

    /// Stops recording when nobody listens any more.
    fn sweep(&self, now: Instant) {
        if !self.heard.load(Ordering::Relaxed) || self.streams.load(Ordering::Relaxed) > 0 {
            return;
        }
        let lease = self.lease.lock().unwrap_or_else(|e| e.into_inner());
        if lease.is_none_or(|until| until <= now) {
            self.heard.store(false, Ordering::Relaxed);
        }
    }

    /// A subscription's arguments, checked against the input schema and read as `A`.
    fn arguments(&self, id: &Value, arguments: Value) -> Result<Shared, String> {
        let invalid = |why: &str| {
            let message = format!("Invalid params: arguments for {}: {why}", self.name);
            error_with(id, code::INVALID_PARAMS, &message, None)
        };
        if let Err(violation) = self.input.validate(&arguments) {
            return Err(invalid(&violation.to_string()));
        }
        (self.read_args)(arguments).map_err(|e| invalid(&e))
    }

    /// A notification on a stream, tagged with the stream's request `id`.
    pub(crate) fn note(method: &str, mut params: Map<String, Value>, id: &Value) -> String {
        params.insert(
            "_meta".into(),
            json!({crate::era::meta::SUBSCRIPTION_ID: id}),
        );
        json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
    }

    /// `notifications/events/event` for the stored occurrence `members` at `seq`.
    pub(crate) fn event_note(&self, members: &str, seq: u64, id: &Value) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/events/event","params":{{{members},"cursor":"{}","_meta":{}}}}}"#,
            self.cursor(Position(seq)),
            json!({crate::era::meta::SUBSCRIPTION_ID: id}),
        )
    }
}

/// The event types a registry serves, shared with its HTTP thread. Cursors are `boot.seq`:
/// `boot` is random per process, so a cursor from before a restart reads as truncated.
pub(crate) struct Hub {
    kinds: Mutex<Vec<Arc<Kind>>>,
    pub(crate) boot: String,
    /// The list changed since the registry last announced.
    changed: AtomicBool,
    /// The server is shutting down: streams end with their closing result.
    closing: AtomicBool,
}

impl Default for Hub {
    fn default() -> Self {
        let mut bytes = [0u8; 6];
        let boot = if ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .is_ok()
        {
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        } else {
            // No random source: the start time tells processes apart.
            let since = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            format!("{:x}", since.as_nanos())
        };
        Hub {
            kinds: Mutex::new(Vec::new()),
            boot,
            changed: AtomicBool::new(false),
            closing: AtomicBool::new(false),
        }
    }
}

/// An open subscription: its type, its arguments and where it is.
pub(crate) struct Subscribed {
    pub(crate) kind: Arc<Kind>,
    pub(crate) args: Shared,
    pub(crate) position: Position,
    pub(crate) truncated: bool,
    /// `maxAgeMs`: nothing older is replayed.
    pub(crate) floor: Option<Instant>,
}

impl Hub {
    fn kinds(&self) -> MutexGuard<'_, Vec<Arc<Kind>>> {
        self.kinds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds (or replaces, by name) an event type; a replaced type's streams end with
    /// `terminated`.
    pub(crate) fn insert(&self, kind: Kind) -> Arc<Kind> {
        let kind = Arc::new(kind);
        let mut kinds = self.kinds();
        match kinds.iter().position(|k| k.name == kind.name) {
            Some(i) => {
                let old = std::mem::replace(&mut kinds[i], kind.clone());
                old.retire();
                if old.descriptor != kind.descriptor {
                    self.changed.store(true, Ordering::Relaxed);
                }
            }
            None => {
                kinds.push(kind.clone());
                self.changed.store(true, Ordering::Relaxed);
            }
        }
        kind
    }

    /// The event type `name`, when its payload is `P`.
    pub(crate) fn find<P: 'static>(&self, name: &str) -> Option<Arc<Kind>> {
        self.kinds()
            .iter()
            .find(|k| k.name == name && k.payload == std::any::TypeId::of::<P>())
            .cloned()
    }

    /// Removes the event type `name`; its streams end with `terminated`.
    pub(crate) fn remove(&self, name: &str) -> bool {
        let mut kinds = self.kinds();
        let Some(i) = kinds.iter().position(|k| k.name == name) else {
            return false;
        };
        kinds.remove(i).retire();
        self.changed.store(true, Ordering::Relaxed);
        true
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.kinds().is_empty()
    }

    /// The types, in declaration order.
    pub(crate) fn all(&self) -> Vec<Arc<Kind>> {
        self.kinds().clone()
    }

    /// Whether the list changed since the registry last announced.
    pub(crate) fn changed_pending(&self) -> bool {
        self.changed.load(Ordering::Relaxed)
    }

    /// Whether the list changed since the last call.
    pub(crate) fn take_changed(&self) -> bool {
        self.changed.swap(false, Ordering::Relaxed)
    }

    /// Once a frame: types nobody listens to any more stop recording.
    pub(crate) fn sweep(&self) {
        let now = Instant::now();
        for kind in self.kinds().iter() {
            kind.sweep(now);
        }
    }

    /// Ends every stream with its closing result (the server is shutting down).
    pub(crate) fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
        for kind in self.kinds().iter() {
            kind.wake.notify_waiters();
        }
    }

    /// After a shutdown: the registry may be served again.
    pub(crate) fn reopen(&self) {
        self.closing.store(false, Ordering::Relaxed);
    }

    pub(crate) fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    /// Opens a subscription of `mode` from a request's params (`events/poll`,
    /// `events/stream`), or the JSON-RPC error that refuses it: an unknown type (`NotFound`),
    /// a mode the type does not offer (`Unsupported`), arguments its schema refuses
    /// (`-32602`).
    pub(crate) fn subscribe(
        &self,
        id: &Value,
        params: &Params,
        mode: Delivery,
    ) -> Result<Subscribed, String> {
        let Some(name) = params.name.as_ref().and_then(Text::as_str) else {
            let message = "Invalid params: the request needs an event type's \"name\"";
            return Err(error_with(id, code::INVALID_PARAMS, message, None));
        };
        let kind = self.kinds().iter().find(|k| k.name == name).cloned();
        let Some(kind) = kind else {
            let data = json!({"kind": "event", "name": name});
            let message = format!("NotFound: no event type {name} (events/list has the types)");
            return Err(error_with(id, code::NOT_FOUND, &message, Some(&data)));
        };
        if !kind.delivery.contains(&mode) {
            let data = json!({"feature": "deliveryMode", "value": mode.as_str()});
            let message = format!("Unsupported: {name} is not delivered by {}", mode.as_str());
            return Err(error_with(id, code::UNSUPPORTED, &message, Some(&data)));
        }
        let arguments = match &params.arguments {
            Some(tree) if !tree.is_null() => tree.to_value(),
            _ => Value::Object(Map::new()),
        };
        let args = kind.arguments(id, arguments)?;
        let rare = params.rare();
        let cursor = params.cursor.as_deref().and_then(Value::as_str);
        let (position, truncated) = kind.start(cursor);
        let floor = rare
            .max_age_ms
            .as_ref()
            .and_then(Value::as_u64)
            .filter(|_| cursor.is_some() && !truncated)
            .and_then(|ms| Instant::now().checked_sub(Duration::from_millis(ms)));
        Ok(Subscribed {
            kind,
            args,
            position,
            truncated,
            floor,
        })
    }
}

impl Kind {
    /// Ends the type's streams (`terminated`) and its recording.
    fn retire(&self) {
        self.removed.store(true, Ordering::Relaxed);
        self.heard.store(false, Ordering::Relaxed);
        self.wake.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
