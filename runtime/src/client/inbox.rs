//! The one place a message from the server is routed, for every transport and every stream
//! (a call's answer stream, the legacy standalone stream, a `subscriptions/listen` stream,
//! stdio's lines): a response goes back to the transport, which hands its bytes to the
//! request waiting for it; a notification to its handlers; a request of the server's (legacy
//! `ping`, elicitation, sampling, roots) to the application's handler, off the I/O threads,
//! its answer sent back by the transport. The modern era's `input_required` requests are
//! answered here too, by the same handler ([`Session::input_responses`]).
//!
//! A transport says two things only it knows: which calls a notification may concern (those
//! in flight on the stream it came on), and how an answer goes back (a POST, a line).

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{CallContext, LogMessage, Progress, Route, Session};
use crate::Error;

/// How many of the server's requests are answered at once (their handlers running); one more
/// is answered `-32603` at once, so a server cannot make the client queue work without end.
pub(crate) const ANSWERING_AT_ONCE: usize = 32;

/// The error response to a request that finds [`ANSWERING_AT_ONCE`] answers running.
fn busy(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": format!(
        "the client is answering {ANSWERING_AT_ONCE} requests of the server's already"
    )}})
}

/// What became of one message from the server.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Routed {
    /// A response, to the request with this id (`None`: an id that is not a number): the
    /// transport hands its bytes to the request that waits for it, decoded there.
    Response(Option<u64>),
    /// A notification handed to its handlers, or a request of the server's, being answered.
    Handled,
    /// Not a JSON-RPC message.
    Stray,
}

impl Session {
    /// Routes one message from the server. `concerns` names the calls a notification may
    /// concern (their progress and log handlers; none: the client's own); `reply` sends the
    /// answer to a request of the server's, from a background task.
    pub(crate) fn route<R, F>(
        self: &Arc<Self>,
        bytes: &[u8],
        concerns: impl FnOnce(&Value) -> Vec<CallContext>,
        reply: R,
    ) -> Routed
    where
        R: FnOnce(Value) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let Some(route) = Route::of(bytes) else {
            return Routed::Stray;
        };
        if !route.has_string_method() {
            return Routed::Response(route.id());
        }
        let Ok(message) = serde_json::from_slice::<Value>(bytes) else {
            return Routed::Stray;
        };
        if route.has_id() {
            let Ok(room) = self.answering.clone().try_acquire_owned() else {
                // A server that asks faster than the application answers is refused at once,
                // rather than queueing work without end.
                tokio::spawn(reply(busy(&message["id"])));
                return Routed::Handled;
            };
            let session = self.clone();
            tokio::spawn(async move {
                // The application's handler may take its time (a question to a person).
                let answered =
                    tokio::task::spawn_blocking(move || session.response_to(&message)).await;
                drop(room);
                if let Ok(answer) = answered {
                    reply(answer).await;
                }
            });
            return Routed::Handled;
        }
        let contexts = concerns(&message);
        if contexts.is_empty() {
            self.notify(&message, &CallContext::default());
        }
        for context in &contexts {
            self.notify(&message, context);
        }
        Routed::Handled
    }

    /// Hands a notification to the handler it is for.
    fn notify(&self, message: &Value, context: &CallContext) {
        let params = &message["params"];
        match message["method"].as_str() {
            Some("notifications/progress") => {
                if let (Some(handler), Some(progress)) =
                    (&context.progress, params["progress"].as_f64())
                {
                    handler(Progress {
                        progress,
                        total: params["total"].as_f64(),
                        message: params["message"].as_str().map(str::to_owned),
                    });
                }
            }
            Some("notifications/message") => {
                if let Some(handler) = context.log.as_ref().or(self.settings.log.as_ref()) {
                    handler(LogMessage {
                        level: params["level"].as_str().unwrap_or("info").to_owned(),
                        logger: params["logger"].as_str().map(str::to_owned),
                        data: params["data"].clone(),
                    });
                }
            }
            Some("notifications/tools/list_changed") => self.tools_changed(),
            Some("notifications/prompts/list_changed" | "notifications/resources/list_changed") => {
                self.drift.catalog_changed();
            }
            Some(method) if crate::events::is_stream_note(method) => {
                if let Some(sink) = &context.events {
                    sink.deliver(message);
                }
            }
            _ => {}
        }
    }

    /// The result of the server's request `method` (a legacy-era request or a modern-era
    /// input request alike): `ping` answers `{}`, with or without a handler; otherwise the
    /// method's own handler (`on_elicitation`, `on_sampling`, `on_roots`), the catch-all
    /// request handler, or `-32601`.
    pub(crate) fn answer(&self, method: &str, params: &Value) -> Result<Value, Error> {
        if method == "ping" {
            return Ok(json!({}));
        }
        if let Some(answers) = self.settings.answers.iter().find(|a| a.method == method) {
            return (answers.handler)(params);
        }
        match &self.settings.requests {
            Some(handler) => handler(method, params),
            None => Err(Error::Protocol {
                code: -32601,
                message: format!("Method not found: {method} (this client has no handler for it)"),
                data: None,
            }),
        }
    }

    /// The JSON-RPC response to the server's request `message`.
    fn response_to(&self, message: &Value) -> Value {
        let id = message["id"].clone();
        let method = message["method"].as_str().unwrap_or("");
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match self.answer(method, &params) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(Error::Protocol {
                code,
                message,
                data,
            }) => {
                let mut error = json!({"code": code, "message": message});
                if let Some(data) = data {
                    error["data"] = data;
                }
                json!({"jsonrpc": "2.0", "id": id, "error": error})
            }
            Err(other) => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": other.to_string()}}),
        }
    }

    /// The `inputResponses` for the `inputRequests` of an `input_required` result.
    pub(crate) fn input_responses(&self, requests: &Value) -> Result<Value, Error> {
        let Some(requests) = requests.as_object() else {
            return Err(Error::transport(
                "an input_required result without an inputRequests object",
            ));
        };
        let mut responses = Map::new();
        for (key, request) in requests {
            let method = request["method"].as_str().unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let result = self.answer(method, &params)?;
            responses.insert(key.clone(), result);
        }
        Ok(Value::Object(responses))
    }
}

#[cfg(test)]
mod tests;
