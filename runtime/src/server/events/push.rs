//! Push delivery (`events/stream`): the notifications one subscription is sent, the same over
//! HTTP (a task on the HTTP thread per stream, [`pump`]) and stdio (read after each message,
//! [`Stdio`]). First `notifications/events/active` with the cursor and whether something was
//! missed, then one `notifications/events/event` per occurrence, a fresh `active` when the
//! stream fell behind what the buffer keeps, `heartbeat`s while quiet (HTTP), `terminated` when
//! the type goes, and the closing result when the server shuts down.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{Hub, Kind, Position, Read, Subscribed};
use crate::events::code;

/// How many occurrences one read of the buffer hands a stream.
const BATCH: usize = 64;

/// Keeps a type's count of open streams while a stream lives.
struct Open(Arc<Kind>);

impl Open {
    fn new(kind: &Arc<Kind>) -> Self {
        kind.opened();
        Open(kind.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.closed();
    }
}

/// What a stream writes next, from one read of the buffer: a fresh `active` first when
/// `announce` (the stream's start) or when the read found a gap, then the occurrences.
fn lines(sub: &mut Subscribed, id: &Value, announce: bool, out: &mut Vec<String>) -> bool {
    let kind = &sub.kind;
    let Read {
        found,
        position,
        truncated,
        more,
    } = kind.read(sub.position, &sub.args, BATCH, sub.floor.take());
    let truncated = truncated || std::mem::take(&mut sub.truncated);
    if announce || truncated {
        let at = found.first().map_or(position, |(seq, _)| Position(seq - 1));
        let mut params = Map::new();
        params.insert("cursor".into(), Value::String(kind.cursor(at)));
        params.insert("truncated".into(), Value::Bool(truncated));
        out.push(Kind::note("notifications/events/active", params, id));
    }
    for (seq, members) in &found {
        out.push(kind.event_note(members, *seq, id));
    }
    sub.position = position;
    more
}

/// `notifications/events/terminated`: the type was removed (or replaced).
fn terminated(kind: &Kind, id: &Value) -> String {
    let mut params = Map::new();
    let reason = format!("the event type {} is no longer served", kind.name);
    params.insert(
        "error".into(),
        json!({"code": code::NOT_FOUND, "message": "NotFound",
               "data": {"kind": "event", "reason": reason}}),
    );
    Kind::note("notifications/events/terminated", params, id)
}

/// Serves one HTTP stream until the client goes (`out` closed), the type goes or the server
/// shuts down. A client that reads nothing for `stall` is dropped; what it missed is in the
/// buffer for its cursor.
pub(crate) async fn pump(
    hub: Arc<Hub>,
    mut sub: Subscribed,
    id: Value,
    out: mpsc::Sender<String>,
    heartbeat: Duration,
    stall: Duration,
) {
    let kind = sub.kind.clone();
    let _open = Open::new(&kind);
    let send = |text: String| {
        let out = out.clone();
        async move {
            matches!(
                tokio::time::timeout(stall, out.send(text)).await,
                Ok(Ok(()))
            )
        }
    };
    let mut first = true;
    loop {
        let notified = kind.wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if hub.is_closing() {
            send(crate::server::wire::closing(&id)).await;
            return;
        }
        if kind.removed.load(std::sync::atomic::Ordering::Relaxed) {
            send(terminated(&kind, &id)).await;
            return;
        }
        let mut batch = Vec::new();
        let more = lines(&mut sub, &id, std::mem::take(&mut first), &mut batch);
        for line in batch {
            if !send(line).await {
                return;
            }
        }
        if more {
            continue;
        }
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(heartbeat) => {
                let mut params = Map::new();
                params.insert("cursor".into(), Value::String(kind.cursor(sub.position)));
                if !send(Kind::note("notifications/events/heartbeat", params, &id)).await {
                    return;
                }
            }
            () = out.closed() => return,
        }
    }
}

/// The event streams open on one stdio connection, each read after every message (no frame
/// runs there: occurrences emitted meanwhile wait in the buffer for the next message).
#[derive(Default)]
pub(crate) struct Stdio {
    open: Vec<(Value, Subscribed, Open)>,
}

impl std::fmt::Debug for Stdio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio")
            .field("open", &self.open.len())
            .finish()
    }
}

impl Stdio {
    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Opens a stream for the request `id`: its `active` and what is already after its cursor.
    pub(crate) fn open(&mut self, id: Value, mut sub: Subscribed) -> Vec<String> {
        let mut out = Vec::new();
        while lines(&mut sub, &id, out.is_empty(), &mut out) {}
        let open = Open::new(&sub.kind);
        self.open.push((id, sub, open));
        out
    }

    /// The lines every open stream has to write now; streams whose type went end.
    pub(crate) fn lines(&mut self, hub: &Hub) -> Vec<String> {
        let mut out = Vec::new();
        self.open.retain_mut(|(id, sub, _)| {
            if hub.is_closing() {
                out.push(crate::server::wire::closing(id));
                return false;
            }
            if sub.kind.removed.load(std::sync::atomic::Ordering::Relaxed) {
                out.push(terminated(&sub.kind, id));
                return false;
            }
            while lines(sub, id, false, &mut out) {}
            true
        });
        out
    }

    /// `notifications/cancelled` for a stream's request ends it; whether one was.
    pub(crate) fn cancel(&mut self, request_id: &Value) -> bool {
        let before = self.open.len();
        self.open.retain(|(id, ..)| id != request_id);
        self.open.len() != before
    }
}
