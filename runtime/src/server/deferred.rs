//! Calls answered on a later frame: the [`Call`] a [`CallHandler`](super::CallHandler) answers
//! through, the [`ClientRequest`]s such a call sends its client, and the [`Waiters`] that route
//! the client's responses back.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};

use super::wire::{CallResult, ClientResponse, Outbound, OutboundTx, Reply, error, notification};
use super::{ToolError, ToolOutput};
use crate::era::LogLevel;

/// Requests the server sent to clients during calls, waiting for their responses, by id.
#[derive(Default)]
pub(crate) struct Waiters {
    next: AtomicU64,
    waiting: Mutex<HashMap<String, std::sync::mpsc::SyncSender<Result<Value, Value>>>>,
}

impl Waiters {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, std::sync::mpsc::SyncSender<Result<Value, Value>>>>
    {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh request id and the receiver its response will arrive on.
    fn wait(&self) -> (String, std::sync::mpsc::Receiver<Result<Value, Value>>) {
        let id = format!("mcp-bindgen-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.lock().insert(id.clone(), tx);
        (id, rx)
    }

    fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Hands a client's response to the call waiting for it; returns whether one was. A
    /// response nobody waits for (an unknown id, a call already answered) is dropped.
    pub(crate) fn deliver(&self, response: ClientResponse) -> bool {
        let Value::String(id) = &response.id else {
            return false;
        };
        let Some(waiter) = self.lock().remove(id) else {
            return false;
        };
        waiter.try_send(response.outcome).is_ok()
    }
}

/// The shared state of one [`Call`]: where its notifications and answer go.
pub(crate) struct CallRoute {
    pub(super) tool: String,
    pub(super) wrap: bool,
    pub(super) when_crashed: bool,
    pub(super) deadline: Instant,
    pub(super) timeout: Duration,
    pub(super) result_type: Option<&'static str>,
    /// A 2026-07-28 call (which cannot send requests to the client).
    pub(super) modern: bool,
    /// Where client responses are routed, when this call may send requests to its client.
    pub(super) waiters: Option<Arc<Waiters>>,
    /// A 2026-07-28 task's input requests: a request to the client is recorded there, for
    /// `tasks/get` to show and `tasks/update` to answer.
    pub(super) task_inputs: Option<Arc<TaskInputs>>,
    pub(super) state: Mutex<RouteState>,
}

pub(super) struct RouteState {
    pub(super) outlet: Option<OutboundTx>,
    pub(super) id: Value,
    pub(super) streamable: bool,
    pub(super) progress_token: Option<Value>,
    pub(super) log_level: Option<LogLevel>,
    pub(super) answered: bool,
    pub(super) hold: Hold,
}

/// Where a call's answer goes when it is given.
pub(super) enum Hold {
    /// While the handler's `start` runs: kept here for `Registry::run` to return, so an
    /// answer given at once leaves the way every other answer does.
    During(Option<Reply>),
    /// Afterwards (and for a task's call, or a resumed one): through the outlet.
    Off,
}

impl RouteState {
    /// Gives the answer: held while the handler's `start` runs, sent through the outlet after.
    /// Returns whether it can still reach the client.
    fn give(&mut self, reply: Reply) -> bool {
        let outlet = self.outlet.take();
        if let Hold::During(held) = &mut self.hold {
            *held = Some(reply);
            // What a send would say: the client is still there to be answered.
            return outlet.is_none_or(|o| !o.is_closed());
        }
        match outlet {
            Some(outlet) => outlet.send(Outbound::Done(reply)).is_ok(),
            None => false,
        }
    }
}

impl CallRoute {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, RouteState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the answer unless one was sent; returns whether this one was.
    pub(super) fn answer(&self, result: &CallResult) -> bool {
        let mut state = self.lock();
        if state.answered {
            return false;
        }
        state.answered = true;
        let text = result.respond(&state.id, self.result_type);
        state.give(Reply::answer(text))
    }

    /// Answers with a JSON-RPC error instead of a result, unless an answer was sent.
    pub(super) fn reject(&self, code: i64, message: &str) -> bool {
        let mut state = self.lock();
        if state.answered {
            return false;
        }
        state.answered = true;
        let text = error(&state.id, code, message);
        state.give(Reply::answer(text))
    }

    /// Ends the handler's `start`: the answer it gave, if it gave one, for `Registry::run`
    /// to return; any later answer goes through the outlet.
    pub(super) fn take_held(&self) -> Option<Reply> {
        match std::mem::replace(&mut self.lock().hold, Hold::Off) {
            Hold::During(held) => held,
            Hold::Off => None,
        }
    }

    /// Sends `method` to the call's client on its stream (see [`Call::request`]).
    pub(super) fn request(
        &self,
        method: &str,
        params: impl Serialize,
    ) -> Result<ClientRequest, ToolError> {
        let unable = |why: &str| {
            Err(ToolError::new(format!(
                "{} cannot send {method} to the client: {why}",
                self.tool
            ))
            .with_code("no_client_requests"))
        };
        let Some(waiters) = &self.waiters else {
            return unable(if self.modern {
                "a 2026-07-28 call asks its client through a task (declare the tool's task \
                 support) or an input_required result (an interactive tool)"
            } else {
                "only a call over HTTP whose client accepts text/event-stream can carry \
                 requests from the server"
            });
        };
        let params = match serde_json::to_value(params) {
            Ok(params) => params,
            Err(e) => return unable(&format!("the params are not JSON: {e}")),
        };
        let (id, response) = waiters.wait();
        if let Some(inputs) = &self.task_inputs {
            if self.is_finished() {
                waiters.forget(&id);
                return unable("the task is finished or cancelled");
            }
            inputs.ask(&id, method, params);
            return Ok(ClientRequest {
                id,
                method: method.to_owned(),
                response,
                waiters: waiters.clone(),
                inputs: Some(inputs.clone()),
            });
        }
        #[derive(Serialize)]
        struct Request<'a> {
            jsonrpc: &'static str,
            id: &'a str,
            method: &'a str,
            params: Value,
        }
        let text = serde_json::to_string(&Request {
            jsonrpc: "2.0",
            id: &id,
            method,
            params,
        })
        .unwrap_or_default();
        if !self.note(|_| Some(text)) {
            waiters.forget(&id);
            return unable("the call is answered or its client has gone");
        }
        Ok(ClientRequest {
            id,
            method: method.to_owned(),
            response,
            waiters: waiters.clone(),
            inputs: None,
        })
    }

    /// Answered, or nobody is waiting for the answer any more.
    pub(super) fn is_finished(&self) -> bool {
        let state = self.lock();
        state.answered || state.outlet.as_ref().is_none_or(|o| o.is_closed())
    }

    pub(super) fn note(&self, text: impl FnOnce(&RouteState) -> Option<String>) -> bool {
        let state = self.lock();
        if state.answered || !state.streamable {
            return false;
        }
        let Some(outlet) = &state.outlet else {
            return false;
        };
        match text(&state) {
            Some(text) => outlet.send(Outbound::Note(text)).is_ok(),
            None => false,
        }
    }
}

/// One running call of a [`CallHandler`](super::CallHandler) tool: report progress and log lines through it, and
/// answer with it, now or on a later frame (store it in the game and call
/// [`Call::complete`] when the work is done). Dropped unanswered, the call is answered with a
/// tool error (code `dropped`).
///
/// Progress and log lines reach the client only when its request asked for them (a
/// `progressToken`; a log level) and the transport can stream (an SSE answer over HTTP, lines
/// over stdio); otherwise they are dropped here, and the answer stays one plain JSON
/// response. Sending never blocks the game thread.
pub struct Call<T> {
    slot: Arc<CallRoute>,
    output: PhantomData<fn(T)>,
}

impl<T> std::fmt::Debug for Call<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.slot.tool)
            .field("deadline", &self.slot.deadline)
            .finish_non_exhaustive()
    }
}

impl<T> Call<T> {
    /// The handle a [`CallHandler`](super::CallHandler) answers `slot` through.
    pub(super) fn new(slot: Arc<CallRoute>) -> Self {
        Call {
            slot,
            output: PhantomData,
        }
    }
}

impl<T: ToolOutput> Call<T> {
    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.slot.tool
    }

    /// When the server answers this call with a tool error if the game has not.
    pub fn deadline(&self) -> Instant {
        self.slot.deadline
    }

    /// Whether the call no longer needs an answer: the client has gone, or the deadline or
    /// crash mode has answered it. The game may drop it then.
    pub fn is_abandoned(&self) -> bool {
        self.slot.is_finished()
    }

    /// Whether the client asked for progress (and the transport can carry it).
    pub fn wants_progress(&self) -> bool {
        self.slot.lock().progress_token.is_some()
    }

    /// Sends `notifications/progress` (`progress` of `total`, both increasing); returns
    /// whether it was sent (see the type's docs for when it is not).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.slot.note(|state| {
            let token = state.progress_token.as_ref()?;
            let mut params = Map::new();
            params.insert("progressToken".into(), token.clone());
            params.insert("progress".into(), Value::from(progress));
            if let Some(total) = total {
                params.insert("total".into(), Value::from(total));
            }
            if let Some(message) = message {
                params.insert("message".into(), Value::String(message.to_owned()));
            }
            Some(notification("notifications/progress", params))
        })
    }

    /// Sends `notifications/message` at `level` with `data` (any JSON; a string is usual) when
    /// the client asked for that level or a lower one; returns whether it was sent.
    pub fn log(&self, level: LogLevel, data: impl Serialize) -> bool {
        self.slot.note(|state| {
            if state.log_level.is_none_or(|wanted| level < wanted) {
                return None;
            }
            let mut params = Map::new();
            params.insert("level".into(), Value::String(level.as_str().into()));
            params.insert("logger".into(), Value::String(self.slot.tool.clone()));
            params.insert("data".into(), serde_json::to_value(data).ok()?);
            Some(notification("notifications/message", params))
        })
    }

    /// Sends a request to the client on this call's stream (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, ...) and returns the handle its response arrives
    /// on, on a later frame: keep it with the `Call` and check [`ClientRequest::try_response`]
    /// each frame, then [`Call::complete`].
    ///
    /// A 2026-07-28 call running as a task asks through the task: the request is listed in
    /// the task's `inputRequests` (status `input_required`) and the client's `tasks/update`
    /// answers it.
    ///
    /// Otherwise only a legacy-era call over HTTP whose client accepts an SSE answer can carry
    /// requests (stdio and [`Registry::dispatch`](super::Registry::dispatch) answer within the
    /// call, and other 2026-07-28 calls ask through `input_required` results). Otherwise, or
    /// when the call is already answered or its client has gone, this is an `Err` to answer
    /// the call with. The client's
    /// declared capabilities are not known to a stateless server: a client without the
    /// capability answers with a JSON-RPC error, which the handle reports.
    pub fn request(
        &self,
        method: &str,
        params: impl Serialize,
    ) -> Result<ClientRequest, ToolError> {
        self.slot.request(method, params)
    }

    /// Answers with a JSON-RPC error (`code`, `message`) instead of a result: the request
    /// failed (an internal failure, a resource that went away), not the tool, whose failures
    /// are [`Call::complete`] with an `Err`. A task ends `failed` with this error. Returns
    /// whether the answer was sent.
    pub fn error(self, code: i64, message: &str) -> bool {
        self.slot.reject(code, message)
    }

    /// Answers the call; returns whether the answer was sent (not when the call was already
    /// answered by its deadline or crash mode, or its client has gone).
    pub fn complete(self, result: Result<T, ToolError>) -> bool {
        let result = match result.and_then(|value| value.into_answer(self.slot.wrap)) {
            Ok(value) => CallResult::success(value),
            Err(failure) => CallResult::failure(&failure),
        };
        self.slot.answer(&result)
    }
}

impl<T> Drop for Call<T> {
    fn drop(&mut self) {
        // A panicking handler is answered by the registry, with the panic's message.
        if std::thread::panicking() {
            return;
        }
        let failure = ToolError::new(format!(
            "the game dropped this {} call without answering it",
            self.slot.tool
        ))
        .with_code("dropped");
        self.slot.answer(&CallResult::failure(&failure));
    }
}

/// A request a [`Call`] sent to its client, waiting for the response (see [`Call::request`]).
/// Dropping it forgets the request; a response that arrives later is ignored.
pub struct ClientRequest {
    id: String,
    method: String,
    response: std::sync::mpsc::Receiver<Result<Value, Value>>,
    waiters: Arc<Waiters>,
    /// The task's input requests, when the request went through a task.
    inputs: Option<Arc<TaskInputs>>,
}

impl std::fmt::Debug for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl ClientRequest {
    /// The JSON-RPC id the request was sent with.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The client's response once it has arrived (never blocks): its `result`, or its
    /// JSON-RPC error as a tool error (code `client_error`) naming the method. `None` while
    /// the client has not answered; call it again on a later frame.
    pub fn try_response(&self) -> Option<Result<Value, ToolError>> {
        let outcome = self.response.try_recv().ok()?;
        Some(outcome.map_err(|error| {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            let code = error
                .get("code")
                .map_or_else(String::new, |c| format!(" ({c})"));
            ToolError::new(format!(
                "the client refused {}: {message}{code}",
                self.method
            ))
            .with_code("client_error")
        }))
    }
}

impl Drop for ClientRequest {
    fn drop(&mut self) {
        self.waiters.forget(&self.id);
        if let Some(inputs) = &self.inputs {
            inputs.forget(&self.id);
        }
    }
}

/// What a task's call and the store share: the input requests the call is waiting on
/// (2026-07-28), by key, as `{method, params}`.
#[derive(Default)]
pub(crate) struct TaskInputs {
    pending: Mutex<Map<String, Value>>,
}

impl TaskInputs {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Map<String, Value>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a request the call sends its client through the task.
    pub(crate) fn ask(&self, key: &str, method: &str, params: Value) {
        self.lock().insert(
            key.to_owned(),
            serde_json::json!({"method": method, "params": params}),
        );
    }

    /// Forgets a request the call no longer waits for.
    pub(crate) fn forget(&self, key: &str) {
        self.lock().remove(key);
    }
}
