//! The methods the registry answers, as a table: each row names a method, the protocol eras
//! that have it, and its handler. The era is settled here, at the edge: a handler is only
//! reached in an era the row names, and a method an era lacks is `-32601` (in 2026-07-28 a
//! refusal of the request as such, HTTP 404). A new method is a row and a handler.

use serde_json::Map;

use super::Registry;
use crate::server::wire::{Era, Incoming, Rejected, Reply, error, respond};

/// Which protocol eras have a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eras {
    Both,
    /// The legacy handshake's eras (2024-11-05 to 2025-11-25).
    Session,
    /// 2026-07-28.
    Stateless,
}

impl Eras {
    fn have(self, era: Era) -> bool {
        match self {
            Eras::Both => true,
            Eras::Session => era == Era::Session,
            Eras::Stateless => era == Era::Stateless,
        }
    }
}

/// A method's handler: its answer now, or `None` when it answers later through the request's
/// outlet (a deferred call, a legacy `tasks/result` that waits).
type Handler<Ctx> = fn(&mut Registry<Ctx>, &mut Ctx, Incoming) -> Option<Reply>;

/// The row of `method`.
fn row<Ctx>(method: &str) -> Option<(Eras, Handler<Ctx>)> {
    use Eras::{Both, Session, Stateless};
    let row: (Eras, Handler<Ctx>) = match method {
        "tools/call" => (Both, Registry::call),
        "tools/list" => (Both, |r, _, i| {
            answer(r.list(&i.request.id, &i.request.params, modern(&i)))
        }),
        "initialize" => (Session, |r, _, i| {
            answer(r.initialize(&i.request.id, &i.request.params))
        }),
        "ping" => (Session, |_, _, i| {
            answer(respond(&i.request.id, &Map::new()))
        }),
        "logging/setLevel" => (Session, |r, _, i| {
            answer(r.set_level(&i.request.id, &i.request.params))
        }),
        "server/discover" => (Stateless, |r, _, i| answer(r.discover(&i.request.id))),
        "prompts/list" => (Both, |r, _, i| {
            answer(r.list_prompts(&i.request.id, &i.request.params, modern(&i)))
        }),
        "prompts/get" => (Both, get_prompt),
        "resources/list" => (Both, |r, _, i| {
            answer(r.list_resources(&i.request.id, &i.request.params, modern(&i)))
        }),
        "resources/templates/list" => (Both, |r, _, i| {
            answer(r.list_templates(&i.request.id, &i.request.params, modern(&i)))
        }),
        "resources/read" => (Both, |r, ctx, i| {
            answer(r.read_resource(ctx, &i.request.id, &i.request.params, modern(&i), &i.owner))
        }),
        "resources/subscribe" => (Session, |r, _, i| {
            answer(r.subscribe(&i.request.id, &i.request.params, true))
        }),
        "resources/unsubscribe" => (Session, |r, _, i| {
            answer(r.subscribe(&i.request.id, &i.request.params, false))
        }),
        "skills/list" => (Both, |r, _, i| {
            answer(r.list_skills(&i.request.id, &i.request.params, modern(&i)))
        }),
        "skills/get" => (Both, |r, _, i| {
            answer(r.get_skill(&i.request.id, &i.request.params, modern(&i)))
        }),
        "resources/directory/read" => (Both, |r, _, i| {
            answer(r.read_directory(&i.request.id, &i.request.params, modern(&i)))
        }),
        "events/list" => (Stateless, |r, _, i| {
            answer(r.list_events(&i.request.id, &i.request.params))
        }),
        "events/poll" => (Stateless, |r, _, i| {
            answer(r.poll_events(&i.request.id, &i.request.params))
        }),
        "completion/complete" => (Both, |r, ctx, i| {
            answer(r.complete(ctx, &i.request.id, &i.request.params, modern(&i)))
        }),
        "tasks/get" | "tasks/cancel" => (Both, tasks),
        "tasks/update" => (Stateless, tasks),
        "tasks/result" | "tasks/list" => (Session, tasks),
        _ => return None,
    };
    Some(row)
}

impl<Ctx> Registry<Ctx> {
    /// Runs one framed, classified request. Returns its answer when the request is answered
    /// before `run` returns, whatever its handler; only what comes later travels
    /// `incoming.outlet`: the notifications a [`CallHandler`](crate::server::CallHandler)
    /// sends before its answer, and the answer of a call deferred to a later frame (or a
    /// legacy `tasks/result` that waits), which then needs one.
    pub(crate) fn run(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        match row::<Ctx>(&incoming.request.method) {
            Some((eras, handler)) if eras.have(incoming.era) => handler(self, ctx, incoming),
            _ => Some(not_found(&incoming)),
        }
    }
}

fn modern(incoming: &Incoming) -> bool {
    incoming.era == Era::Stateless
}

fn answer(text: String) -> Option<Reply> {
    Some(Reply::answer(text))
}

fn get_prompt<Ctx>(r: &mut Registry<Ctx>, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
    let modern = modern(&incoming);
    let Incoming { request, owner, .. } = incoming;
    answer(r.get_prompt(ctx, &request.id, request.params, modern, &owner))
}

fn tasks<Ctx>(r: &mut Registry<Ctx>, _: &mut Ctx, incoming: Incoming) -> Option<Reply> {
    let Incoming {
        request,
        era,
        outlet,
        owner,
        streamable,
        ..
    } = &incoming;
    let outlet = outlet.as_ref().map(|outlet| (outlet, *streamable));
    r.tasks.answer(request, *era, owner, outlet)
}

/// `-32601`: no such method in the request's era.
fn not_found(incoming: &Incoming) -> Reply {
    let method = &incoming.request.method;
    let text = error(
        &incoming.request.id,
        -32601,
        &format!("Method not found: {method}"),
    );
    // In 2026-07-28 an unknown method is a refusal of the request as such.
    if modern(incoming) {
        Reply::rejected(text, Rejected::UnknownMethod)
    } else {
        Reply::answer(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method the wire layer knows by name has a row, or is one the transports answer
    /// themselves (`subscriptions/listen`).
    #[test]
    fn the_table_names_each_method_once_with_its_eras() {
        for (method, eras) in [
            ("tools/call", Eras::Both),
            ("initialize", Eras::Session),
            ("server/discover", Eras::Stateless),
            ("tasks/update", Eras::Stateless),
            ("tasks/list", Eras::Session),
        ] {
            let (found, _) = row::<()>(method).expect(method);
            assert_eq!(found, eras, "{method}");
        }
        assert!(row::<()>("subscriptions/listen").is_none());
        assert!(row::<()>("tools/delete").is_none());
    }
}
