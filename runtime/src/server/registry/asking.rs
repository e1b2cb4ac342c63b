//! Interactive tools in the legacy era: the handler's input requests go to the client on the
//! call's SSE stream (`elicitation/create`, `sampling/createMessage`, `roots/list`), the
//! answers come back on later frames, and the handler runs again with them, until it answers.
//! The call is deferred meanwhile (answered by [`Registry::expire_deferred`] if its client
//! takes longer than the registry's input timeout, or by crash mode).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{Registry, Run, panicked};
use crate::JsonTree;
use crate::server::ToolError;
use crate::server::deferred::{CallRoute, ClientRequest, Hold, RouteState};
use crate::server::input::{Input, InputRequired, Outcome};
use crate::server::wire::{CallResult, Outbound, OutboundTx};

/// A legacy call waiting for its client's answers.
pub(super) struct Asking {
    slot: Arc<CallRoute>,
    tool: String,
    arguments: JsonTree,
    /// Requests sent and not answered yet, by key.
    pending: Vec<(String, ClientRequest)>,
    /// Answers so far, by key.
    responses: Map<String, Value>,
    /// The handler's state, kept here (it never leaves the server in this era).
    state: Option<Value>,
}

impl<Ctx> Registry<Ctx> {
    /// How long a legacy-era call of an interactive tool waits for its client to answer what
    /// the tool asked (default 5 minutes: a person may be answering); then it is answered
    /// with a tool error (code `deadline`).
    pub fn with_input_timeout(mut self, timeout: Duration) -> Self {
        self.input_timeout = timeout;
        self
    }

    /// The deferred answer of a legacy call that asks its client for input.
    pub(super) fn asking_slot(
        &self,
        tool: &str,
        id: Value,
        outlet: Option<OutboundTx>,
        streamable: bool,
    ) -> Arc<CallRoute> {
        let when_crashed = self
            .index
            .get(tool)
            .is_some_and(|&i| self.entries[i].def.when_crashed);
        Arc::new(CallRoute {
            tool: tool.to_owned(),
            wrap: false,
            when_crashed,
            deadline: Instant::now() + self.input_timeout,
            timeout: self.input_timeout,
            result_type: None,
            modern: false,
            waiters: Some(self.waiters.clone()),
            task_inputs: None,
            state: Mutex::new(RouteState {
                outlet,
                id,
                streamable,
                progress_token: None,
                log_level: None,
                answered: false,
                hold: Hold::Off,
            }),
        })
    }

    /// Sends what the handler asked on the call's stream and waits (deferred) for the answers.
    pub(super) fn ask_over_stream(
        &mut self,
        slot: Arc<CallRoute>,
        tool: String,
        arguments: JsonTree,
        asked: InputRequired,
    ) {
        let first = !self.outstanding.iter().any(|s| Arc::ptr_eq(s, &slot));
        let pending = match send(&slot, &asked) {
            Ok(pending) => pending,
            Err(failure) => {
                slot.answer(&CallResult::failure(&failure));
                return;
            }
        };
        if first {
            if let Some(outlet) = &slot.lock().outlet {
                let _ = outlet.send(Outbound::Deferred(self.input_timeout));
            }
            self.outstanding.push(slot.clone());
        }
        self.asking.push(Asking {
            slot,
            tool,
            arguments,
            pending,
            responses: Map::new(),
            state: asked.state,
        });
    }

    /// Runs again, with their answers, the legacy calls whose clients have answered everything
    /// they were asked. `Server::poll` does this every frame.
    #[inline]
    pub(crate) fn resume_asking(&mut self, ctx: &mut Ctx) {
        if !self.asking.is_empty() {
            self.resume(ctx);
        }
    }

    fn resume(&mut self, ctx: &mut Ctx) {
        let mut i = 0;
        while i < self.asking.len() {
            let asking = &mut self.asking[i];
            if asking.slot.is_finished() {
                self.asking.swap_remove(i);
                continue;
            }
            let mut refused = None;
            let responses = &mut asking.responses;
            asking
                .pending
                .retain(|(key, request)| match request.try_response() {
                    None => true,
                    Some(Ok(answer)) => {
                        responses.insert(key.clone(), answer);
                        false
                    }
                    Some(Err(failure)) => {
                        refused = Some(failure);
                        false
                    }
                });
            if let Some(failure) = refused {
                asking.slot.answer(&CallResult::failure(&failure));
                self.asking.swap_remove(i);
                continue;
            }
            if !asking.pending.is_empty() {
                i += 1;
                continue;
            }
            let asking = self.asking.swap_remove(i);
            self.run_again(ctx, asking);
        }
    }

    fn run_again(&mut self, ctx: &mut Ctx, asking: Asking) {
        let Asking {
            slot,
            tool,
            arguments,
            responses,
            state,
            ..
        } = asking;
        let Some(Run::Ask(ask)) = self.index.get(&tool).map(|&i| &mut self.entries[i].run) else {
            let failure = ToolError::new(format!(
                "{tool} was removed while it waited for the client's answers"
            ))
            .with_code("removed");
            slot.answer(&CallResult::failure(&failure));
            return;
        };
        let input = Input::new(responses, state, None);
        match catch_unwind(AssertUnwindSafe(|| ask(ctx, &arguments, &input))) {
            Ok(Ok(Outcome::Complete(value))) => {
                slot.answer(&CallResult::success(value));
            }
            Ok(Ok(Outcome::InputRequired(asked))) => {
                self.ask_over_stream(slot, tool, arguments, asked);
            }
            Ok(Err(failure)) => {
                slot.answer(&CallResult::failure(&failure));
            }
            Err(panic) => {
                slot.answer(&panicked(&tool, panic));
            }
        }
    }
}

/// Sends each request asked on the call's stream.
fn send(
    slot: &CallRoute,
    asked: &InputRequired,
) -> Result<Vec<(String, ClientRequest)>, ToolError> {
    if asked.requests.is_empty() {
        return Err(ToolError::new(format!(
            "{} asked for input but named no request",
            slot.tool
        ))
        .with_code("no_requests"));
    }
    asked
        .requests
        .iter()
        .map(|(key, request)| {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            slot.request(method, params).map(|sent| (key.clone(), sent))
        })
        .collect()
}
