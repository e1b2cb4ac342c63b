//! The event types a registry serves (the `io.modelcontextprotocol/events` extension, 2026-07-28
//! only): registering them, and the handlers of `events/list` and `events/poll`.
//! `events/stream` is served by the transports (`server/events/push.rs`), as
//! `subscriptions/listen` is.

use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use crate::events::Delivery;
use crate::server::events::{EventType, Kind, PAGE_LIMIT};
use crate::server::wire::Params;
use crate::server::{Emitter, schemars::JsonSchema};

impl<Ctx> Registry<Ctx> {
    /// Serves the event type `event` (listed by `events/list`, read by `events/poll` and
    /// `events/stream`, and the `io.modelcontextprotocol/events` extension declared) and
    /// returns the [`Emitter`] gameplay records its occurrences with. Registering a type of the
    /// same name again replaces it: the old one's emitters stop, its streams end with
    /// `notifications/events/terminated`, and clients that listen hear that the list changed.
    pub fn register_event<P, A>(&mut self, event: EventType<P, A>) -> Emitter<P>
    where
        P: serde::Serialize + JsonSchema + Send + Sync + 'static,
        A: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static,
    {
        let kind = event.into_kind(&self.events.boot);
        Emitter::new(self.events.insert(kind))
    }

    /// Stops serving the event type `name`: its emitters stop and its streams end with
    /// `notifications/events/terminated`. Returns whether there was one.
    pub fn unregister_event(&mut self, name: &str) -> bool {
        self.events.remove(name)
    }

    /// An emitter of the event type `name`, when one is served whose payload is `P`: for
    /// gameplay that is built apart from the registry (it finds its emitters by name).
    pub fn emitter<P>(&self, name: &str) -> Option<Emitter<P>>
    where
        P: serde::Serialize + Send + Sync + 'static,
    {
        self.events.find::<P>(name).map(Emitter::new)
    }

    /// The event types served, as `events/list` describes them, in registration order.
    pub fn event_types(&self) -> Vec<crate::events::EventDescriptor> {
        self.events
            .all()
            .iter()
            .filter_map(|k| serde_json::from_value(k.descriptor.clone()).ok())
            .collect()
    }

    pub(super) fn list_events(&self, id: &Value, params: &Params) -> String {
        let kinds = self.events.all();
        let items: Vec<&Arc<Kind>> = kinds.iter().collect();
        self.paged(id, "events", &items, params, true, |k| k.descriptor.clone())
    }

    /// `events/poll`: the occurrences after the cursor that the arguments hear, at most
    /// `maxEvents` (and [`PAGE_LIMIT`]); no cursor starts from now.
    pub(super) fn poll_events(&self, id: &Value, params: &Params) -> String {
        let sub = match self.events.subscribe(id, params, Delivery::Poll) {
            Ok(sub) => sub,
            Err(refused) => return refused,
        };
        let kind = &sub.kind;
        kind.renew();
        let max = params
            .rare()
            .max_events
            .as_ref()
            .and_then(Value::as_u64)
            .map_or(PAGE_LIMIT, |n| usize::try_from(n).unwrap_or(PAGE_LIMIT))
            .clamp(1, PAGE_LIMIT);
        let read = kind.read(sub.position, &sub.args, max, sub.floor);
        // The kept occurrences are JSON text already: the page is written around them, not
        // parsed and serialized again.
        let events: Vec<String> = read.found.iter().map(|(_, m)| format!("{{{m}}}")).collect();
        let cursor = Value::String(kind.cursor(read.position));
        let next = u64::try_from(kind.next_poll.as_millis()).unwrap_or(u64::MAX);
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"events":[{}],"cursor":{cursor},"truncated":{},"hasMore":{},"nextPollMs":{next},"resultType":"complete"}}}}"#,
            events.join(","),
            read.truncated || sub.truncated,
            read.more,
        )
    }
}
