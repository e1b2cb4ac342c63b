//! Change announcements: which clients listen for which changes, and what they are sent.
//!
//! A client listens in one of two ways. In the legacy era, a session's standalone GET stream
//! (or the stdio connection) gets every change as an untagged
//! `notifications/tools/list_changed`. In 2026-07-28, a `subscriptions/listen` request names the
//! kinds of change it wants; its stream starts with `notifications/subscriptions/acknowledged`
//! (the kinds the server honours), and each notification on it carries the request's id as
//! `_meta["io.modelcontextprotocol/subscriptionId"]`.
//!
//! The registry records what changed as a [`Changes`] set; a transport takes it once per frame
//! (the server) or once per message (stdio) and announces it, so several changes in one frame are
//! one announcement. Over HTTP the game thread only sets a bit per listening stream and wakes
//! the HTTP thread once ([`Listeners::announce`]); there the announcer task wakes each stream
//! that has something pending (a wake within the thread, no system call per stream), and the
//! streams write the events.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc};

use super::owner::Owner;
use super::tasks::TaskNote;
use super::wire::Reply;
use crate::era::meta;

/// A set of kinds of change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Changes(u8);

impl Changes {
    /// Nothing changed.
    pub(crate) const NONE: Changes = Changes(0);
    /// The tool list (a tool registered, replaced or removed).
    pub(crate) const TOOLS: Changes = Changes(1);
    /// The prompt list.
    pub(crate) const PROMPTS: Changes = Changes(2);
    /// The resource list (resources and templates).
    pub(crate) const RESOURCES: Changes = Changes(4);
    /// A resource's contents ([`Registry::resource_updated`](super::Registry::resource_updated)).
    pub(crate) const RESOURCE_UPDATED: Changes = Changes(8);
    /// A task's status (2026-07-28 tasks extension: `notifications/tasks`, to the listen
    /// streams that named the task).
    pub(crate) const TASKS: Changes = Changes(16);
    /// The event types (2026-07-28 events extension: `notifications/events/list_changed`).
    pub(crate) const EVENTS: Changes = Changes(32);

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn contains(self, other: Changes) -> bool {
        self.0 & other.0 == other.0 && !other.is_empty()
    }

    #[must_use]
    pub(crate) fn and(self, other: Changes) -> Changes {
        Changes(self.0 & other.0)
    }

    pub(crate) fn insert(&mut self, other: Changes) {
        self.0 |= other.0;
    }

    #[must_use]
    pub(crate) fn without(self, other: Changes) -> Changes {
        Changes(self.0 & !other.0)
    }

    /// Every kind a legacy listener hears (the legacy era has no task notifications here).
    pub(crate) const ALL: Changes = Changes(1 | 2 | 4 | 8);
}

/// What one listener wants: kinds of change, which resources' updates, and which tasks'.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Wants {
    pub(crate) changes: Changes,
    /// The URIs whose updates it hears (`resourceSubscriptions`); `None`: those of the
    /// registry's legacy subscriptions (`resources/subscribe`).
    pub(crate) uris: Option<Vec<String>>,
    /// The tasks whose status it hears (`taskIds`), of those its owner made.
    pub(crate) task_ids: Vec<String>,
    /// Whose listen request it was (see [`Owner`]): another owner's tasks are never sent.
    pub(crate) owner: Owner,
}

impl Wants {
    /// A legacy listener: every kind, and the legacy subscriptions' updates.
    pub(crate) fn legacy() -> Wants {
        Wants {
            changes: Changes::ALL,
            uris: None,
            task_ids: Vec::new(),
            owner: None,
        }
    }

    /// Of the task notes announced, those this listener hears: the tasks it named, of its
    /// owner.
    fn task_notes(&self, announced: &Announcement<'_>) -> Vec<(String, Value)> {
        if !self.changes.contains(Changes::TASKS) {
            return Vec::new();
        }
        announced
            .tasks
            .iter()
            .filter(|note| note.owner == self.owner && self.task_ids.contains(&note.id))
            .map(|note| (note.id.clone(), note.task.clone()))
            .collect()
    }

    /// Of `updated`, the URIs this listener hears of.
    fn updates<'a>(&self, announced: &Announcement<'a>) -> Vec<String> {
        if !self.changes.contains(Changes::RESOURCE_UPDATED) {
            return Vec::new();
        }
        announced
            .updated
            .iter()
            .filter(|uri| match &self.uris {
                Some(uris) => uris.contains(uri),
                None => announced.subscribed.contains(*uri),
            })
            .cloned()
            .collect()
    }
}

/// What a frame announces: the kinds that changed, the resources updated, the URIs legacy
/// clients subscribed to, and the tasks whose status changed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Announcement<'a> {
    pub(crate) changes: Changes,
    pub(crate) updated: &'a [String],
    pub(crate) subscribed: &'a BTreeSet<String>,
    pub(crate) tasks: &'a [TaskNote],
}

/// Who sent a listen request: whether it declared the tasks extension (needed for `taskIds`),
/// and its owner (whose tasks it may hear of).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Listening {
    pub(crate) declares_tasks: bool,
    pub(crate) owner: Owner,
}

/// A `subscriptions/listen` request with id `id` and filter `params.notifications`, as every
/// transport answers it: the kinds of change to send it and the acknowledgement that opens its
/// stream; or the error response: `-32602` when the filter is not an object, `-32021` (a bad
/// request) when it names tasks without declaring the tasks extension.
pub(crate) fn open(
    id: &Value,
    filter: Option<&Value>,
    by: Listening,
) -> Result<(Wants, String), Reply> {
    match honoured(filter, by) {
        Ok((wants, acknowledged)) => Ok((wants, acknowledgement(id, &acknowledged))),
        Err(Refused::Invalid(message)) => {
            Err(Reply::answer(super::wire::error(id, -32602, &message)))
        }
        Err(Refused::NeedsTasks) => Err(super::tasks::missing_extension(
            id,
            "subscriptions/listen with taskIds",
        )),
    }
}

/// Why a listen filter is refused.
#[derive(Debug)]
enum Refused {
    /// Not a filter: the message says why.
    Invalid(String),
    /// It names tasks, and the request did not declare the tasks extension.
    NeedsTasks,
}

/// The kinds of change a listen filter (`params.notifications`) asks for that this server
/// honours, and the filter to acknowledge (only those kinds: the revision leaves unsupported
/// ones out of the acknowledgement).
fn honoured(filter: Option<&Value>, by: Listening) -> Result<(Wants, Value), Refused> {
    let Some(Value::Object(filter)) = filter else {
        return Err(Refused::Invalid(
            "Invalid params: subscriptions/listen needs a \"notifications\" object (for \
             example {\"toolsListChanged\": true})"
                .to_owned(),
        ));
    };
    let mut wants = Changes::NONE;
    let mut acknowledged = Map::new();
    for (key, kind) in [
        ("toolsListChanged", Changes::TOOLS),
        ("promptsListChanged", Changes::PROMPTS),
        ("resourcesListChanged", Changes::RESOURCES),
        ("eventsListChanged", Changes::EVENTS),
    ] {
        if filter.get(key) == Some(&Value::Bool(true)) {
            wants.insert(kind);
            acknowledged.insert(key.into(), Value::Bool(true));
        }
    }
    let mut uris = Vec::new();
    match filter.get("resourceSubscriptions") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) if list.iter().all(Value::is_string) => {
            uris = list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            if !uris.is_empty() {
                wants.insert(Changes::RESOURCE_UPDATED);
                acknowledged.insert("resourceSubscriptions".into(), Value::from(uris.clone()));
            }
        }
        Some(_) => {
            return Err(Refused::Invalid(
                "Invalid params: resourceSubscriptions must be an array of URIs".to_owned(),
            ));
        }
    }
    let mut task_ids = Vec::new();
    match filter.get("taskIds") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) if list.iter().all(Value::is_string) => {
            if !list.is_empty() && !by.declares_tasks {
                return Err(Refused::NeedsTasks);
            }
            task_ids = list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            if !task_ids.is_empty() {
                wants.insert(Changes::TASKS);
                acknowledged.insert("taskIds".into(), Value::from(task_ids.clone()));
            }
        }
        Some(_) => {
            return Err(Refused::Invalid(
                "Invalid params: taskIds must be an array of task ids".to_owned(),
            ));
        }
    }
    Ok((
        Wants {
            changes: wants,
            uris: Some(uris),
            task_ids,
            owner: by.owner,
        },
        Value::Object(acknowledged),
    ))
}

/// The first message of a listen stream.
fn acknowledgement(id: &Value, acknowledged: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "_meta": {meta::SUBSCRIPTION_ID: id},
            "notifications": acknowledged,
        },
    })
    .to_string()
}

/// The notifications for `changes`, the updated resources `uris` and the tasks `tasks`
/// (`DetailedTask`s): tagged with the listen request's id `tag`, or untagged (the legacy era).
pub(crate) fn events(
    changes: Changes,
    tag: Option<&Value>,
    uris: &[String],
    tasks: Vec<Value>,
) -> Vec<String> {
    let note = |method: &str, params: Map<String, Value>| {
        let mut params = params;
        if let Some(tag) = tag {
            params.insert("_meta".into(), json!({meta::SUBSCRIPTION_ID: tag}));
        }
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_empty() {
            message["params"] = Value::Object(params);
        }
        message.to_string()
    };
    let mut out = Vec::new();
    for (kind, method) in [
        (Changes::TOOLS, "notifications/tools/list_changed"),
        (Changes::PROMPTS, "notifications/prompts/list_changed"),
        (Changes::RESOURCES, "notifications/resources/list_changed"),
        (Changes::EVENTS, "notifications/events/list_changed"),
    ] {
        if changes.contains(kind) {
            out.push(note(method, Map::new()));
        }
    }
    for uri in uris {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.clone()));
        out.push(note("notifications/resources/updated", params));
    }
    for task in tasks {
        if let Value::Object(params) = task {
            out.push(note("notifications/tasks", params));
        }
    }
    out
}

/// The streams listening over HTTP, shared by the game thread (which announces) and the HTTP
/// thread (which opens streams and writes their events).
///
/// Bounded: a stream is forgotten the moment its response body is dropped (the client closed
/// it, or the server did); what waits to be written on one stream is a set of kinds, a set of
/// URIs (of those it asked for) and the latest status of each task it named, so announcing the
/// same thing again adds nothing; and a stream that has had something to write for longer than
/// its stall limit ([`ServerBuilder::stall_timeout`](super::ServerBuilder::stall_timeout)) is
/// closed, with its connection.
#[derive(Debug)]
pub(crate) struct Listeners {
    streams: Arc<Mutex<Streams>>,
    /// Wakes the announcer task on the HTTP thread (capacity 1).
    kick: mpsc::Sender<()>,
    /// How long a stream may stay behind (something to write, not taken) before it is closed.
    stall: Duration,
}

/// The open streams, by a number of their own.
#[derive(Debug, Default)]
struct Streams {
    next: u64,
    open: HashMap<u64, Listener>,
}

/// The game thread's side of one stream.
#[derive(Debug)]
struct Listener {
    wants: Wants,
    queue: Arc<Queue>,
    /// Wakes the stream; capacity 1, so announcements between two writes are one wake-up.
    wake: mpsc::Sender<()>,
    /// Closes the stream's connection (a stalled reader's); `None` where there is none.
    close: Option<Arc<Notify>>,
}

/// What one stream has to write, shared by both sides.
#[derive(Debug, Default)]
struct Queue {
    /// Changes announced and not written yet (a [`Changes`] bit set).
    pending: AtomicU8,
    /// Resources updated and not written yet: each URI once.
    updated: Mutex<BTreeSet<String>>,
    /// The latest status of each task not written yet, by task id.
    tasks: Mutex<BTreeMap<String, Value>>,
    /// Since when the stream has had something to write and has not taken it.
    behind_since: Mutex<Option<Instant>>,
}

/// The HTTP thread's side of one stream: what to write next. Dropping it (the response body
/// is gone) forgets the stream.
#[derive(Debug)]
pub(crate) struct Subscription {
    /// The listen request's id (modern era); `None` for a legacy GET stream.
    pub(crate) tag: Option<Value>,
    id: u64,
    queue: Arc<Queue>,
    wake: mpsc::Receiver<()>,
    streams: Weak<Mutex<Streams>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(streams) = self.streams.upgrade() {
            lock(&streams).open.remove(&self.id);
        }
    }
}

/// What a [`Subscription`] has to write next.
pub(crate) enum Next {
    /// These notifications.
    Events(Vec<String>),
    /// The server is closing the stream.
    Closed,
}

impl Listeners {
    /// Listeners whose streams are woken by an announcer task ([`Listeners::announcer`]), which
    /// waits on the receiver returned; a stream behind for longer than `stall` is closed.
    pub(crate) fn with_announcer(stall: Duration) -> (Listeners, mpsc::Receiver<()>) {
        let (kick, kicked) = mpsc::channel(1);
        let listeners = Listeners {
            streams: Arc::default(),
            kick,
            stall,
        };
        (listeners, kicked)
    }

    /// Runs on the HTTP thread: each kick wakes the streams that have something pending.
    pub(crate) async fn announcer(self: Arc<Self>, mut kicked: mpsc::Receiver<()>) {
        while kicked.recv().await.is_some() {
            Self::wake_pending(&self.streams());
        }
    }

    fn wake_pending(streams: &Streams) {
        for stream in streams.open.values() {
            if stream.queue.pending.load(Ordering::Acquire) != 0 {
                // Full: a wake-up is already on its way, and it will read the pending bits.
                let _ = stream.wake.try_send(());
            }
        }
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, Streams> {
        lock(&self.streams)
    }

    /// A new stream that hears `wants`; `close` closes its connection when it stalls.
    pub(crate) fn subscribe(
        &self,
        wants: Wants,
        tag: Option<Value>,
        close: Option<Arc<Notify>>,
    ) -> Subscription {
        let (wake_tx, wake_rx) = mpsc::channel(1);
        let queue = Arc::new(Queue::default());
        let mut streams = self.streams();
        let id = streams.next;
        streams.next += 1;
        streams.open.insert(
            id,
            Listener {
                wants,
                queue: queue.clone(),
                wake: wake_tx,
                close,
            },
        );
        Subscription {
            tag,
            id,
            queue,
            wake: wake_rx,
            streams: Arc::downgrade(&self.streams),
        }
    }

    /// Tells every open stream that wants any of `changes`, and closes those that stayed
    /// behind past the stall limit. Never blocks on a stream, and wakes the HTTP thread once
    /// however many streams there are.
    pub(crate) fn announce(&self, announced: &Announcement<'_>) {
        let mut streams = self.streams();
        let mut any = false;
        let mut now = None;
        let stall = self.stall;
        streams.open.retain(|_, stream| {
            let mut wanted = stream
                .wants
                .changes
                .and(announced.changes)
                .without(Changes::RESOURCE_UPDATED)
                .without(Changes::TASKS);
            let queue = &stream.queue;
            let updates = stream.wants.updates(announced);
            if !updates.is_empty() {
                lock(&queue.updated).extend(updates);
                wanted.insert(Changes::RESOURCE_UPDATED);
            }
            let tasks = stream.wants.task_notes(announced);
            if !tasks.is_empty() {
                lock(&queue.tasks).extend(tasks);
                wanted.insert(Changes::TASKS);
            }
            if wanted.is_empty() {
                return true;
            }
            let now = *now.get_or_insert_with(Instant::now);
            let mut behind = lock(&queue.behind_since);
            match *behind {
                Some(since) if now.saturating_duration_since(since) > stall => {
                    // The reader stopped reading: free the stream and its connection.
                    #[cfg(feature = "tracing")]
                    tracing::debug!(
                        behind = ?now.saturating_duration_since(since),
                        "closing a change stream whose client stopped reading"
                    );
                    if let Some(close) = &stream.close {
                        close.notify_one();
                    }
                    return false;
                }
                Some(_) => {}
                None => *behind = Some(now),
            }
            drop(behind);
            queue.pending.fetch_or(wanted.0, Ordering::AcqRel);
            any = true;
            true
        });
        if any {
            // Full: the announcer has a kick waiting, and it will see these bits.
            let _ = self.kick.try_send(());
        }
    }

    /// Streams kept now (each open one, and nothing else).
    pub(crate) fn len(&self) -> usize {
        self.streams().open.len()
    }

    /// Ends every stream (the server is shutting down): each writes what is pending, then its
    /// closing response.
    pub(crate) fn close_all(&self) {
        self.streams().open.clear();
    }
}

impl Subscription {
    /// Waits for the next announcement, as [`mpsc::Receiver::poll_recv`] does.
    pub(crate) fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Next> {
        use std::task::Poll;
        loop {
            let pending = Changes(self.queue.pending.swap(0, Ordering::AcqRel));
            if !pending.is_empty() {
                return Poll::Ready(Next::Events(self.events(pending)));
            }
            match self.wake.poll_recv(cx) {
                Poll::Ready(Some(())) => continue,
                Poll::Ready(None) => {
                    let pending = Changes(self.queue.pending.swap(0, Ordering::AcqRel));
                    if !pending.is_empty() {
                        return Poll::Ready(Next::Events(self.events(pending)));
                    }
                    return Poll::Ready(Next::Closed);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn events(&self, pending: Changes) -> Vec<String> {
        *lock(&self.queue.behind_since) = None;
        let uris: Vec<String> = if pending.contains(Changes::RESOURCE_UPDATED) {
            std::mem::take(&mut *lock(&self.queue.updated))
                .into_iter()
                .collect()
        } else {
            Vec::new()
        };
        let tasks = if pending.contains(Changes::TASKS) {
            std::mem::take(&mut *lock(&self.queue.tasks))
                .into_values()
                .collect()
        } else {
            Vec::new()
        };
        events(pending, self.tag.as_ref(), &uris, tasks)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The listening state of one stdio connection (whose messages are lines, answered in order).
#[derive(Debug, Default)]
pub(crate) struct InBand {
    /// The client made the legacy handshake: it hears every change, untagged.
    pub(crate) legacy: bool,
    /// Open `subscriptions/listen` requests: their ids and what each wants.
    pub(crate) subscriptions: Vec<(Value, Wants)>,
    /// Open `events/stream` requests.
    pub(crate) events: super::events::push::Stdio,
}

impl InBand {
    /// The notifications to write for what was announced.
    pub(crate) fn events(&self, announced: &Announcement<'_>) -> Vec<String> {
        let mut out = Vec::new();
        if announced.changes.is_empty() {
            return out;
        }
        let for_one = |wants: &Wants, tag: Option<&Value>| {
            let changes = wants
                .changes
                .and(announced.changes)
                .without(Changes::RESOURCE_UPDATED)
                .without(Changes::TASKS);
            let tasks = wants.task_notes(announced).into_iter();
            events(
                changes,
                tag,
                &wants.updates(announced),
                tasks.map(|(_, task)| task).collect(),
            )
        };
        if self.legacy {
            out.extend(for_one(&Wants::legacy(), None));
        }
        for (id, wants) in &self.subscriptions {
            out.extend(for_one(wants, Some(id)));
        }
        out
    }

    /// A `notifications/cancelled` for one of the open listen or event streams ends it.
    pub(crate) fn cancelled(&mut self, notification: &[u8]) {
        if self.subscriptions.is_empty() && self.events.is_empty() {
            return;
        }
        let Ok(message) = serde_json::from_slice::<Value>(notification) else {
            return;
        };
        if message["method"] != "notifications/cancelled" {
            return;
        }
        let id = &message["params"]["requestId"];
        self.subscriptions.retain(|(open, _)| open != id);
        self.events.cancel(id);
    }
}

#[cfg(test)]
mod tests;
