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

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::tasks::{Owner, TaskNote};
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
    fn task_notes(&self, announced: &Announcement<'_>) -> Vec<Value> {
        if !self.changes.contains(Changes::TASKS) {
            return Vec::new();
        }
        announced
            .tasks
            .iter()
            .filter(|note| note.owner == self.owner && self.task_ids.contains(&note.id))
            .map(|note| note.task.clone())
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
/// stream; or the error response, with its HTTP status: `-32602` (200) when the filter is
/// not an object, `-32021` (400) when it names tasks without declaring the tasks extension.
pub(crate) fn open(
    id: &Value,
    filter: Option<&Value>,
    by: Listening,
) -> Result<(Wants, String), Reply> {
    match honoured(filter, by) {
        Ok((wants, acknowledged)) => Ok((wants, acknowledgement(id, &acknowledged))),
        Err(Refused::Invalid(message)) => Err(Reply {
            text: super::wire::error(id, -32602, &message),
            status: 200,
        }),
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

/// The response that ends a listen stream the server closes (it is shutting down).
pub(crate) fn closing(id: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"resultType": "complete", "_meta": {meta::SUBSCRIPTION_ID: id}},
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
#[derive(Debug)]
pub(crate) struct Listeners {
    streams: Mutex<Vec<Listener>>,
    /// Wakes the announcer task on the HTTP thread (capacity 1).
    kick: mpsc::Sender<()>,
}

/// The game thread's side of one stream.
#[derive(Debug)]
struct Listener {
    wants: Wants,
    /// Changes announced and not written yet (a [`Changes`] bit set).
    pending: Arc<AtomicU8>,
    /// Resources updated and not written yet.
    updated: Arc<Mutex<Vec<String>>>,
    /// Task statuses not written yet.
    tasks: Arc<Mutex<Vec<Value>>>,
    /// Wakes the stream; capacity 1, so announcements between two writes are one wake-up.
    wake: mpsc::Sender<()>,
}

/// The HTTP thread's side of one stream: what to write next.
#[derive(Debug)]
pub(crate) struct Subscription {
    /// The listen request's id (modern era); `None` for a legacy GET stream.
    pub(crate) tag: Option<Value>,
    pending: Arc<AtomicU8>,
    updated: Arc<Mutex<Vec<String>>>,
    tasks: Arc<Mutex<Vec<Value>>>,
    wake: mpsc::Receiver<()>,
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
    /// waits on the receiver returned.
    pub(crate) fn with_announcer() -> (Listeners, mpsc::Receiver<()>) {
        let (kick, kicked) = mpsc::channel(1);
        let listeners = Listeners {
            streams: Mutex::default(),
            kick,
        };
        (listeners, kicked)
    }

    /// Runs on the HTTP thread: each kick wakes the streams that have something pending.
    pub(crate) async fn announcer(self: Arc<Self>, mut kicked: mpsc::Receiver<()>) {
        while kicked.recv().await.is_some() {
            Self::wake_pending(&self.streams());
        }
    }

    fn wake_pending(streams: &[Listener]) {
        for stream in streams {
            if stream.pending.load(Ordering::Acquire) != 0 {
                // Full: a wake-up is already on its way, and it will read the pending bits.
                let _ = stream.wake.try_send(());
            }
        }
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, Vec<Listener>> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new stream that hears `wants`.
    pub(crate) fn subscribe(&self, wants: Wants, tag: Option<Value>) -> Subscription {
        let (wake_tx, wake_rx) = mpsc::channel(1);
        let pending = Arc::new(AtomicU8::new(0));
        let updated = Arc::new(Mutex::new(Vec::new()));
        let tasks = Arc::new(Mutex::new(Vec::new()));
        self.streams().push(Listener {
            wants,
            pending: pending.clone(),
            updated: updated.clone(),
            tasks: tasks.clone(),
            wake: wake_tx,
        });
        Subscription {
            tag,
            pending,
            updated,
            tasks,
            wake: wake_rx,
        }
    }

    /// Tells every open stream that wants any of `changes`; forgets the streams whose client
    /// has gone. Never blocks on a stream, and wakes the HTTP thread once however many streams
    /// there are.
    pub(crate) fn announce(&self, announced: &Announcement<'_>) {
        let mut streams = self.streams();
        streams.retain(|stream| !stream.wake.is_closed());
        let mut any = false;
        for stream in streams.iter() {
            let mut wanted = stream
                .wants
                .changes
                .and(announced.changes)
                .without(Changes::RESOURCE_UPDATED)
                .without(Changes::TASKS);
            let updates = stream.wants.updates(announced);
            if !updates.is_empty() {
                lock(&stream.updated).extend(updates);
                wanted.insert(Changes::RESOURCE_UPDATED);
            }
            let tasks = stream.wants.task_notes(announced);
            if !tasks.is_empty() {
                lock(&stream.tasks).extend(tasks);
                wanted.insert(Changes::TASKS);
            }
            if !wanted.is_empty() {
                stream.pending.fetch_or(wanted.0, Ordering::AcqRel);
                any = true;
            }
        }
        if any {
            // Full: the announcer has a kick waiting, and it will see these bits.
            let _ = self.kick.try_send(());
        }
    }

    /// Streams open now.
    pub(crate) fn len(&self) -> usize {
        self.streams()
            .iter()
            .filter(|stream| !stream.wake.is_closed())
            .count()
    }

    /// Ends every stream (the server is shutting down): each writes what is pending, then its
    /// closing response.
    pub(crate) fn close_all(&self) {
        self.streams().clear();
    }
}

impl Subscription {
    /// Waits for the next announcement, as [`mpsc::Receiver::poll_recv`] does.
    pub(crate) fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Next> {
        use std::task::Poll;
        loop {
            let pending = Changes(self.pending.swap(0, Ordering::AcqRel));
            if !pending.is_empty() {
                return Poll::Ready(Next::Events(self.events(pending)));
            }
            match self.wake.poll_recv(cx) {
                Poll::Ready(Some(())) => continue,
                Poll::Ready(None) => {
                    let pending = Changes(self.pending.swap(0, Ordering::AcqRel));
                    if !pending.is_empty() {
                        return Poll::Ready(Next::Events(self.events(pending)));
                    }
                    return Poll::Ready(Next::Closed);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl Subscription {
    fn events(&self, pending: Changes) -> Vec<String> {
        let uris = if pending.contains(Changes::RESOURCE_UPDATED) {
            std::mem::take(&mut *lock(&self.updated))
        } else {
            Vec::new()
        };
        let tasks = if pending.contains(Changes::TASKS) {
            std::mem::take(&mut *lock(&self.tasks))
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
            events(
                changes,
                tag,
                &wants.updates(announced),
                wants.task_notes(announced),
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

    /// A `notifications/cancelled` for one of the open listen requests ends it.
    pub(crate) fn cancelled(&mut self, notification: &[u8]) {
        if self.subscriptions.is_empty() {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_only() -> Wants {
        Wants {
            changes: Changes::TOOLS,
            uris: Some(Vec::new()),
            ..Wants::default()
        }
    }

    fn only(changes: Changes) -> Announcement<'static> {
        static NONE: BTreeSet<String> = BTreeSet::new();
        Announcement {
            changes,
            updated: &[],
            subscribed: &NONE,
            tasks: &[],
        }
    }

    #[test]
    fn the_filter_is_honoured_for_what_the_server_announces() {
        let (wants, ack) = honoured(
            Some(&json!({"toolsListChanged": true})),
            Listening::default(),
        )
        .unwrap();
        assert_eq!(wants, tools_only());
        assert_eq!(ack, json!({"toolsListChanged": true}));
        let (wants, ack) = honoured(
            Some(&json!({
                "promptsListChanged": true,
                "resourcesListChanged": true,
                "resourceSubscriptions": ["file:///a"],
                "toolsListChanged": false,
                "somethingElse": true,
            })),
            Listening::default(),
        )
        .unwrap();
        let mut expected = Changes::PROMPTS;
        expected.insert(Changes::RESOURCES);
        expected.insert(Changes::RESOURCE_UPDATED);
        assert_eq!(wants.changes, expected);
        assert_eq!(wants.uris, Some(vec!["file:///a".to_owned()]));
        assert_eq!(
            ack,
            json!({
                "promptsListChanged": true,
                "resourcesListChanged": true,
                "resourceSubscriptions": ["file:///a"],
            }),
            "what the server does not announce is left out"
        );
        assert!(honoured(None, Listening::default()).is_err());
        assert!(honoured(Some(&json!([])), Listening::default()).is_err());
        assert!(
            honoured(
                Some(&json!({"resourceSubscriptions": "file:///a"})),
                Listening::default()
            )
            .is_err()
        );
        assert!(
            honoured(
                Some(&json!({"resourceSubscriptions": [1]})),
                Listening::default()
            )
            .is_err()
        );
    }

    #[test]
    fn events_are_tagged_with_the_listen_id() {
        let tagged = events(Changes::TOOLS, Some(&json!("listen-1")), &[], Vec::new());
        let message: Value = serde_json::from_str(&tagged[0]).unwrap();
        assert_eq!(message["method"], "notifications/tools/list_changed");
        assert_eq!(
            message["params"]["_meta"][meta::SUBSCRIPTION_ID],
            "listen-1"
        );
        let plain = events(Changes::TOOLS, None, &[], Vec::new());
        assert_eq!(
            plain,
            vec![r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
        );
        assert!(events(Changes::NONE, None, &[], Vec::new()).is_empty());
        let mut both = Changes::PROMPTS;
        both.insert(Changes::RESOURCES);
        let updated = events(both, Some(&json!(9)), &["test://a".to_owned()], Vec::new());
        let methods: Vec<Value> = updated
            .iter()
            .map(|e| serde_json::from_str::<Value>(e).unwrap())
            .collect();
        assert_eq!(methods[0]["method"], "notifications/prompts/list_changed");
        assert_eq!(methods[1]["method"], "notifications/resources/list_changed");
        assert_eq!(methods[2]["method"], "notifications/resources/updated");
        assert_eq!(methods[2]["params"]["uri"], "test://a");
        assert_eq!(methods[2]["params"]["_meta"][meta::SUBSCRIPTION_ID], 9);
    }

    #[test]
    fn task_ids_need_the_tasks_extension_and_are_acknowledged() {
        let filter = json!({"taskIds": ["t1", "t2"], "toolsListChanged": true});
        let refused = honoured(Some(&filter), Listening::default()).unwrap_err();
        assert!(matches!(refused, Refused::NeedsTasks), "{refused:?}");
        let owner = super::super::tasks::owner(Some(b"Bearer a"));
        let by = Listening {
            declares_tasks: true,
            owner,
        };
        let (wants, ack) = honoured(Some(&filter), by).unwrap();
        assert!(wants.changes.contains(Changes::TASKS));
        assert_eq!(wants.task_ids, ["t1", "t2"]);
        assert_eq!(wants.owner, owner);
        assert_eq!(
            ack,
            json!({"taskIds": ["t1", "t2"], "toolsListChanged": true})
        );
        // An empty list asks for nothing, and needs nothing.
        let (wants, ack) = honoured(Some(&json!({"taskIds": []})), Listening::default()).unwrap();
        assert!(!wants.changes.contains(Changes::TASKS));
        assert_eq!(ack, json!({}));
        assert!(matches!(
            honoured(Some(&json!({"taskIds": "t1"})), by),
            Err(Refused::Invalid(_))
        ));
        assert!(matches!(
            honoured(Some(&json!({"taskIds": [7]})), by),
            Err(Refused::Invalid(_))
        ));
        // The error a transport sends: -32021 naming the extension, HTTP 400.
        let reply = open(&json!(3), Some(&filter), Listening::default()).unwrap_err();
        assert_eq!(reply.status, 400);
        let error: Value = serde_json::from_str(&reply.text).unwrap();
        assert_eq!(error["error"]["code"], -32021, "{error}");
        assert!(
            error["error"]["data"]["requiredCapabilities"]["extensions"]
                .get(crate::era::TASKS_EXTENSION)
                .is_some(),
            "{error}"
        );
    }

    #[test]
    fn a_task_status_reaches_only_the_streams_of_its_owner_that_named_it() {
        let (listeners, _kicked) = Listeners::with_announcer();
        let alice = super::super::tasks::owner(Some(b"Bearer alice"));
        let mallory = super::super::tasks::owner(Some(b"Bearer mallory"));
        let wants = |ids: &[&str], owner| Wants {
            changes: Changes::TASKS,
            task_ids: ids.iter().map(|id| (*id).to_owned()).collect(),
            owner,
            ..Wants::default()
        };
        let mut named = listeners.subscribe(wants(&["t1"], alice), Some(json!("l-1")));
        let mut other_task = listeners.subscribe(wants(&["t2"], alice), Some(json!("l-2")));
        let mut other_owner = listeners.subscribe(wants(&["t1"], mallory), Some(json!("l-3")));
        let mut legacy = listeners.subscribe(Wants::legacy(), None);
        let notes = [TaskNote {
            id: "t1".into(),
            owner: alice,
            task: json!({"taskId": "t1", "status": "completed", "result": {"content": []}}),
        }];
        listeners.announce(&Announcement {
            changes: Changes::TASKS,
            updated: &[],
            subscribed: &BTreeSet::new(),
            tasks: &notes,
        });
        Listeners::wake_pending(&listeners.streams());
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let std::task::Poll::Ready(Next::Events(events)) = named.poll_next(&mut cx) else {
            panic!("the stream that named t1 heard nothing");
        };
        let message: Value = serde_json::from_str(&events[0]).unwrap();
        assert_eq!(message["method"], "notifications/tasks");
        assert_eq!(message["params"]["taskId"], "t1");
        assert_eq!(message["params"]["status"], "completed");
        assert_eq!(message["params"]["result"], json!({"content": []}));
        assert_eq!(message["params"]["_meta"][meta::SUBSCRIPTION_ID], "l-1");
        assert!(other_task.poll_next(&mut cx).is_pending());
        assert!(
            other_owner.poll_next(&mut cx).is_pending(),
            "another credential's listen never hears of the task"
        );
        assert!(legacy.poll_next(&mut cx).is_pending());
    }

    #[test]
    fn resource_updates_reach_only_their_subscribers() {
        let (listeners, _kicked) = Listeners::with_announcer();
        let mut modern = listeners.subscribe(
            Wants {
                changes: Changes::RESOURCE_UPDATED,
                uris: Some(vec!["test://a".into()]),
                ..Wants::default()
            },
            Some(json!(1)),
        );
        let mut legacy = listeners.subscribe(Wants::legacy(), None);
        let mut tools = listeners.subscribe(tools_only(), Some(json!(2)));
        let subscribed: BTreeSet<String> = ["test://b".to_owned()].into();
        let updated = [
            "test://a".to_owned(),
            "test://b".to_owned(),
            "test://c".to_owned(),
        ];
        listeners.announce(&Announcement {
            changes: Changes::RESOURCE_UPDATED,
            updated: &updated,
            subscribed: &subscribed,
            tasks: &[],
        });
        Listeners::wake_pending(&listeners.streams());
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let uris = |next: std::task::Poll<Next>| match next {
            std::task::Poll::Ready(Next::Events(events)) => events
                .iter()
                .map(|e| serde_json::from_str::<Value>(e).unwrap()["params"]["uri"].clone())
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        assert_eq!(uris(modern.poll_next(&mut cx)), [json!("test://a")]);
        assert_eq!(
            uris(legacy.poll_next(&mut cx)),
            [json!("test://b")],
            "a legacy stream hears the URIs legacy clients subscribed to"
        );
        assert!(tools.poll_next(&mut cx).is_pending());
    }

    #[test]
    fn announcements_coalesce_and_skip_streams_that_did_not_ask() {
        let (listeners, _kicked) = Listeners::with_announcer();
        let mut tools = listeners.subscribe(tools_only(), Some(json!(7)));
        let mut nothing = listeners.subscribe(Wants::default(), Some(json!(8)));
        listeners.announce(&only(Changes::TOOLS));
        listeners.announce(&only(Changes::TOOLS));
        // The announcer's part.
        Listeners::wake_pending(&listeners.streams());
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        match tools.poll_next(&mut cx) {
            std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
            _ => panic!("the tools stream heard nothing"),
        }
        assert!(
            tools.poll_next(&mut cx).is_pending(),
            "two announcements, one event"
        );
        assert!(nothing.poll_next(&mut cx).is_pending());
        drop(nothing);
        listeners.announce(&only(Changes::TOOLS));
        assert_eq!(
            listeners.len(),
            1,
            "a stream whose client went is forgotten"
        );
        listeners.close_all();
        match tools.poll_next(&mut cx) {
            std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
            _ => panic!("what was pending is written before the stream closes"),
        }
        assert!(matches!(
            tools.poll_next(&mut cx),
            std::task::Poll::Ready(Next::Closed)
        ));
    }

    #[test]
    fn an_announcer_wakes_the_streams_once_kicked() {
        let (listeners, mut kicked) = Listeners::with_announcer();
        let mut tools = listeners.subscribe(tools_only(), None);
        listeners.announce(&only(Changes::TOOLS));
        listeners.announce(&only(Changes::TOOLS));
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(matches!(
            kicked.poll_recv(&mut cx),
            std::task::Poll::Ready(Some(()))
        ));
        assert!(
            kicked.poll_recv(&mut cx).is_pending(),
            "one kick for two announcements"
        );
        // The announcer's part: wake what is pending.
        Listeners::wake_pending(&listeners.streams());
        match tools.poll_next(&mut cx) {
            std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
            _ => panic!("the stream was not woken"),
        }
    }

    #[test]
    fn stdio_listeners_hear_in_band() {
        let mut in_band = InBand {
            legacy: true,
            subscriptions: vec![(json!(3), tools_only()), (json!(4), Wants::default())],
        };
        assert_eq!(in_band.events(&only(Changes::TOOLS)).len(), 2);
        in_band.cancelled(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
        );
        in_band.legacy = false;
        assert!(in_band.events(&only(Changes::TOOLS)).is_empty());
        assert_eq!(in_band.subscriptions.len(), 1);
    }
}
