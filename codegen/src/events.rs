//! The client's event types (the `io.modelcontextprotocol/events` extension): per event type a
//! payload type (`{Stem}Event`, from its `payloadSchema`) and an arguments type
//! (`{Stem}Subscription`, from its `inputSchema`; none when it takes none), typed as tools'
//! are, and two methods: `poll_<event>` (one `events/poll`) and `stream_<event>` (an
//! `EventStream` the runtime feeds by push or poll). A type whose schema fails degrades, as a
//! tool does: its arguments to a JSON object, its payload to `serde_json::Value`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use crate::diagnostic::Reporter;
use crate::docs::{METHOD_DOC_WIDTH, dedent, doc_at as doc};
use crate::model::{Capture, Event};
use crate::naming::{ident, method_name, type_name};
use crate::normalise;
use crate::signature::{Args, Output};
use crate::types::{self, Origin, Unit};

/// What one event type becomes.
#[derive(Debug)]
pub(crate) struct EventPlan<'a> {
    pub event: &'a Event,
    /// How its arguments are passed, and its payload's type.
    pub args: Args,
    pub payload: Output,
}

/// A plan per event type, its names reserved; the units that type them, after the tools'.
pub(crate) fn plan<'a>(
    capture: Option<&'a Capture>,
    names: &mut crate::naming::Names,
    report: &mut Reporter<'_>,
) -> (Vec<EventPlan<'a>>, Vec<Unit>) {
    let Some(capture) = capture else {
        return (Vec::new(), Vec::new());
    };
    let mut plans = Vec::new();
    let mut units = Vec::new();
    for event in &capture.events {
        let mut stem = type_name(&event.name);
        if stem.is_empty() {
            stem = "Unnamed".into();
        }
        let args_name = names.reserve(&format!("{stem}Subscription"));
        let payload_name = names.reserve(&format!("{stem}Event"));
        let args = if !signature_takes_arguments(&event.input_schema) {
            Args::None
        } else {
            match unit(event, &stem, &args_name, true, names, report) {
                Some(unit) => {
                    units.push(unit);
                    Args::Typed(args_name)
                }
                None => Args::Map(args_name),
            }
        };
        let payload = match unit(event, &stem, &payload_name, false, names, report) {
            Some(unit) => {
                units.push(unit);
                Output::Schema(payload_name)
            }
            None => Output::Json,
        };
        plans.push(EventPlan {
            event,
            args,
            payload,
        });
    }
    (plans, units)
}

fn signature_takes_arguments(schema: &Value) -> bool {
    crate::signature::takes_arguments(schema)
}

/// An event type's arguments (`arguments`) or payload normalised into the unit `root`.
fn unit(
    event: &Event,
    stem: &str,
    root: &str,
    arguments: bool,
    names: &mut crate::naming::Names,
    report: &mut Reporter<'_>,
) -> Option<Unit> {
    let (key, schema, doc, origin) = if arguments {
        (
            "inputSchema",
            &event.input_schema,
            "What a subscription to",
            Origin::Arguments(event.name.clone()),
        )
    } else {
        (
            "payloadSchema",
            &event.payload_schema,
            "One occurrence of",
            Origin::Result(event.name.clone()),
        )
    };
    let pointer = format!("{}/{key}", event.pointer);
    let normalised = match types::guarded(|| normalise::normalise(schema, root, stem, names)) {
        Ok(normalised) => normalised,
        Err(message) => {
            report.warn(
                &event.name,
                pointer,
                format!("normaliser panicked: {message}; typed as JSON"),
            );
            return None;
        }
    };
    for (p, m) in normalised.warnings {
        report.warn(&event.name, format!("{pointer}{p}"), m);
    }
    let doc = if arguments {
        format!("{doc} the `{}` event hears.", event.name)
    } else {
        format!("{doc} the `{}` event.", event.name)
    };
    Some(Unit {
        handwritten: normalised.handwritten,
        substitutions: normalised.substitutions,
        doc: Some(doc),
        ..Unit::new(root, origin, normalised.defs)
    })
}

/// After typify: an event type whose types failed (by name) degrades, with a warning.
pub(crate) fn settle(
    plans: &mut [EventPlan<'_>],
    items: &[syn::Item],
    failed: &BTreeMap<String, String>,
    report: &mut Reporter<'_>,
) {
    let defined = types::defined_names(items);
    for plan in plans {
        let lost = |name: &str| {
            failed.get(name).cloned().or_else(|| {
                (!defined.contains(name)).then(|| format!("`{name}` is not in the generated types"))
            })
        };
        if let Args::Typed(name) = &plan.args
            && let Some(reason) = lost(name)
        {
            report.warn(
                &plan.event.name,
                format!("{}/inputSchema", plan.event.pointer),
                format!("{reason}; arguments typed as a JSON object"),
            );
            plan.args = Args::Map(name.clone());
        }
        if let Some(name) = plan.payload.name()
            && let Some(reason) = lost(name)
        {
            report.warn(
                &plan.event.name,
                format!("{}/payloadSchema", plan.event.pointer),
                format!("{reason}; payload typed as serde_json::Value"),
            );
            plan.payload = Output::Json;
        }
    }
}

/// The client's methods for the event types, their names free of `taken`.
pub(crate) fn methods(
    plans: &[EventPlan<'_>],
    taken: &mut BTreeSet<String>,
) -> syn::Result<Vec<syn::ImplItem>> {
    let mut out = Vec::new();
    for plan in plans {
        let base = method_name(&plan.event.name);
        let poll = crate::catalog::unique(taken, &format!("poll_{base}"), "_", |_| true);
        let stream = crate::catalog::unique(taken, &format!("stream_{base}"), "_", |_| true);
        for tokens in event_methods(plan, &poll, &stream) {
            out.push(syn::parse2::<syn::ImplItem>(tokens)?);
        }
    }
    Ok(out)
}

/// `poll_<event>` and `stream_<event>`.
fn event_methods(plan: &EventPlan<'_>, poll: &str, stream: &str) -> [TokenStream; 2] {
    let event = plan.event;
    let name = &event.name;
    let about = match &event.description {
        Some(description) => dedent(description),
        None => format!("The `{name}` event."),
    };
    let offered = if event.delivery.is_empty() {
        String::new()
    } else {
        format!(" The server delivers it by {}.", event.delivery.join(", "))
    };
    let payload = match plan.payload.name() {
        Some(ty) => {
            let ty = ident(ty);
            quote!(types::#ty)
        }
        None => quote!(::serde_json::Value),
    };
    let (param, pass) = match &plan.args {
        Args::None => (quote!(), quote!(&::mcp_bindgen::NoArguments {})),
        Args::Typed(ty) => {
            let ty = ident(ty);
            (quote!(args: &types::#ty,), quote!(args))
        }
        Args::Map(_) => (
            quote!(args: &::serde_json::Map<::std::string::String, ::serde_json::Value>,),
            quote!(args),
        ),
    };
    let hears = if matches!(plan.args, Args::None) {
        ""
    } else {
        " that `args` hear"
    };
    let poll_doc = doc(
        &format!(
            "{about}\n\nPolls it once (`events/poll`): the occurrences after `cursor`{hears} \
             (`None`: from now, which gives no occurrences and the cursor to poll from), and \
             the cursor to poll from next.{offered}"
        ),
        METHOD_DOC_WIDTH,
    );
    let stream_doc = doc(
        &format!(
            "{about}\n\nIts occurrences{hears}, as they come: by push when the server offers \
             it, else by poll (`options` may choose), resumed from the last cursor after a \
             dropped connection; each `eventId` once. Fails at once, as a call does, when the \
             event type drifted from what this module was generated from."
        ),
        METHOD_DOC_WIDTH,
    );
    let poll = ident(poll);
    let stream = ident(stream);
    [
        quote! {
            #poll_doc
            pub async fn #poll(
                &self,
                #param
                cursor: ::std::option::Option<&str>,
            ) -> ::std::result::Result<
                ::mcp_bindgen::events::EventPage<#payload>,
                ::mcp_bindgen::Error,
            > {
                self.caller
                    .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::Event, #name)
                    .await?;
                ::mcp_bindgen::events::poll(&self.caller, #name, #pass, cursor).await
            }
        },
        quote! {
            #stream_doc
            pub async fn #stream(
                &self,
                #param
                options: ::mcp_bindgen::events::EventOptions,
            ) -> ::std::result::Result<
                ::mcp_bindgen::events::EventStream<#payload>,
                ::mcp_bindgen::Error,
            > {
                self.caller
                    .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::Event, #name)
                    .await?;
                Ok(::mcp_bindgen::events::stream(&self.caller, #name, #pass, options))
            }
        },
    ]
}
