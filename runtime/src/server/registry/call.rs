//! `tools/call` as a pipeline of named steps, each a function of its own:
//!
//! 1. [`Registry::read_call`]: the request's params, the tool named, the arguments;
//! 2. [`Registry::check_declared`]: what a 2026-07-28 request must declare (client
//!    capabilities the tool requires) and mirror (its `Mcp-Param-*` headers);
//! 3. [`Registry::plan_task`]: whether the call runs as a task, and room for it;
//! 4. [`Registry::admit`]: crash mode, and the arguments against the input schema;
//! 5. the tool's kind of handler: [`Registry::run_now`], [`Registry::run_asking`] or
//!    [`Registry::run_deferred`].
//!
//! A step that refuses the call ends it: with a protocol error ([`Stop::Protocol`]) or a tool
//! error the model can read ([`Stop::Tool`]).

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::{Registry, Run, check_param_headers, panicked};
use crate::JsonTree;
use crate::era::{self, LogLevel};
use crate::server::ToolError;
use crate::server::deferred::{CallRoute, Hold, RouteState, TaskInputs};
use crate::server::input::{Binding, Outcome};
use crate::server::owner::Owner;
use crate::server::tasks::{self, NewTask};
use crate::server::wire::{
    CallResult, Capabilities, Era, Incoming, Meta, Outbound, OutboundTx, Params, Rare, Rejected,
    Reply, Request, Text, error, error_with, respond,
};

/// A `tools/call` once read: what every later step looks at (its arguments travel beside
/// it, to be moved into the handler).
pub(super) struct ToolCall {
    id: Value,
    name: Cow<'static, str>,
    meta: Option<Meta>,
    rare: Option<Box<Rare>>,
    /// The tool's place in the registry.
    index: usize,
    modern: bool,
    owner: Owner,
    outlet: Option<OutboundTx>,
    streamable: bool,
    /// Whether the call may send requests to its client on its stream (legacy era, an SSE
    /// answer).
    requests: bool,
    param_headers: Option<Vec<(String, String)>>,
}

impl ToolCall {
    /// The answer that carries `result` (`resultType` in 2026-07-28).
    fn answer(&self, result: &CallResult) -> Option<Reply> {
        #[cfg(feature = "tracing")]
        crate::trace::record("outcome", result.outcome());
        Some(Reply::answer(
            result.respond(&self.id, self.modern.then_some("complete")),
        ))
    }
}

/// Why a step ended a call.
pub(super) enum Stop {
    /// The request is refused: a JSON-RPC error.
    Protocol(Reply),
    /// The tool is not run: a tool error (`isError`), which the model can act on.
    Tool(CallResult),
}

/// A protocol error ends the call.
fn protocol(reply: Reply) -> Option<Reply> {
    #[cfg(feature = "tracing")]
    crate::trace::record("outcome", "protocol error");
    Some(reply)
}

/// A call that runs as a task: whose it is, and the ttl a legacy client asked for.
pub(super) struct TaskPlan {
    owner: Owner,
    requested_ttl: Option<Duration>,
}

impl<Ctx> Registry<Ctx> {
    /// Runs a `tools/call` through the steps above.
    #[inline]
    pub(super) fn call_tool(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        let (call, arguments) = match self.read_call(incoming) {
            Ok(read) => read,
            Err(reply) => return protocol(reply),
        };
        let task = match self
            .check_declared(&call, &arguments)
            .and_then(|()| self.plan_task(&call))
        {
            Ok(task) => task,
            Err(Stop::Protocol(reply)) => return protocol(reply),
            Err(Stop::Tool(result)) => return call.answer(&result),
        };
        if let Err(result) = self.admit(&call, &arguments) {
            return call.answer(&result);
        }
        match &self.entries[call.index].run {
            Run::Now(_) => self.run_now(ctx, call, arguments, task),
            Run::Ask(_) => self.run_asking(ctx, call, arguments, task),
            Run::Call { .. } => self.run_deferred(ctx, call, arguments, task),
        }
    }

    /// Step 1: the params of a `tools/call`, the tool it names and its arguments (an object;
    /// absent or `null` is `{}`).
    fn read_call(&self, incoming: Incoming) -> Result<(ToolCall, JsonTree), Reply> {
        let Incoming {
            request,
            era,
            outlet,
            streamable,
            param_headers,
            requests,
            owner,
            ..
        } = incoming;
        let modern = era == Era::Stateless;
        let Request { id, params, .. } = request;
        let Params {
            object,
            name,
            arguments,
            meta,
            rare,
            ..
        } = params;
        let refuse = |message: &str| Reply::answer(error(&id, -32602, message));
        if !object {
            return Err(refuse(
                "Invalid params: tools/call needs {\"name\", \"arguments\"}",
            ));
        }
        let Some(Text::Str(name)) = name else {
            return Err(refuse("Invalid params: tools/call needs a tool name"));
        };
        let arguments = match arguments {
            None => JsonTree::empty_object(),
            Some(arguments) if arguments.is_null() => JsonTree::empty_object(),
            Some(arguments) if arguments.is_object() => arguments,
            Some(_) => return Err(refuse("Invalid params: arguments must be an object")),
        };
        let Some(&index) = self.index.get(&*name) else {
            return Err(refuse(&format!("Unknown tool: {name}")));
        };
        let call = ToolCall {
            id,
            name,
            meta,
            rare,
            index,
            modern,
            owner,
            outlet,
            streamable,
            // Requests to the client travel on the call's SSE stream, in the legacy era only.
            requests: requests && streamable && !modern,
            param_headers,
        };
        Ok((call, arguments))
    }

    /// Step 2 (2026-07-28): the client capabilities the tool requires are declared on the
    /// request (`-32021` otherwise), and its `Mcp-Param-*` headers agree with the arguments
    /// (`-32020`).
    fn check_declared(&self, call: &ToolCall, arguments: &JsonTree) -> Result<(), Stop> {
        if !call.modern {
            return Ok(());
        }
        let entry = &self.entries[call.index];
        let (id, name) = (&call.id, &call.name);
        if !entry.requires.is_empty() {
            let declared = call
                .meta
                .as_ref()
                .and_then(|m| m.capabilities.as_ref())
                .and_then(Capabilities::declared);
            let missing: Map<String, Value> = entry
                .requires
                .iter()
                .filter(|c| !declared.is_some_and(|d| d.contains(c)))
                .map(|c| (c.clone(), Value::Object(Map::new())))
                .collect();
            if !missing.is_empty() {
                let names: Vec<&String> = missing.keys().collect();
                let message = format!(
                    "Missing required client capability: {name} needs {names:?} in \
                     _meta[\"{}\"]",
                    era::meta::CLIENT_CAPABILITIES
                );
                let data = serde_json::json!({ "requiredCapabilities": missing });
                let code = era::code::MISSING_REQUIRED_CLIENT_CAPABILITY;
                return Err(Stop::Protocol(Reply::rejected(
                    error_with(id, code, &message, Some(&data)),
                    Rejected::BadRequest,
                )));
            }
        }
        if let Some(headers) = &call.param_headers
            && let Err(what) = check_param_headers(&entry.mirrored, arguments, headers)
        {
            let message = format!("Bad Request: the request headers and body disagree: {what}");
            return Err(Stop::Protocol(Reply::rejected(
                error(id, era::code::HEADER_MISMATCH, &message),
                Rejected::BadRequest,
            )));
        }
        Ok(())
    }

    /// Step 3: whether the call runs as a task (a tool that allows it, called by a client
    /// that asks: 2026-07-28, the extension declared on the request; legacy, a `task`
    /// parameter), and whether the task store has room for it.
    fn plan_task(&mut self, call: &ToolCall) -> Result<Option<TaskPlan>, Stop> {
        use crate::server::TaskSupport;
        let (id, name, modern) = (&call.id, &call.name, call.modern);
        let support = self.entries[call.index].def.task_support;
        let legacy_task = call.rare.as_deref().and_then(|r| r.task.as_ref());
        let as_task = support != TaskSupport::Forbidden
            && if modern {
                tasks::declared(
                    call.meta
                        .as_ref()
                        .and_then(|m| m.capabilities.as_ref())
                        .and_then(Capabilities::declared),
                )
            } else {
                legacy_task.is_some()
            };
        if support == TaskSupport::Required && !as_task {
            if modern {
                let what = format!("{name} (a task-only tool)");
                return Err(Stop::Protocol(tasks::missing_extension(id, &what)));
            }
            let message = format!("{name} runs only as a task: call it with a `task` parameter");
            return Err(Stop::Protocol(Reply::answer(error(id, -32601, &message))));
        }
        if !modern && legacy_task.is_some() && support == TaskSupport::Forbidden {
            let message = format!("{name} does not run as a task: call it without `task`");
            return Err(Stop::Protocol(Reply::answer(error(id, -32601, &message))));
        }
        if !as_task {
            return Ok(None);
        }
        if let Err(full) = self.tasks.has_room(&call.owner) {
            let failure = ToolError::new(full.to_string()).with_code("too_many_tasks");
            return Err(Stop::Tool(CallResult::failure(&failure)));
        }
        Ok(Some(TaskPlan {
            owner: call.owner,
            requested_ttl: legacy_task
                .and_then(|t| t.get("ttl"))
                .and_then(Value::as_u64)
                .map(Duration::from_millis),
        }))
    }

    /// Step 4: a crashed game runs only `when_crashed` tools (the others answer with the
    /// traceback), and arguments that do not fit the input schema are a tool error the model
    /// can correct (SEP-1303).
    fn admit(&self, call: &ToolCall, arguments: &JsonTree) -> Result<(), CallResult> {
        let entry = &self.entries[call.index];
        if let Some(traceback) = &self.crashed
            && !entry.def.when_crashed
        {
            let failure = ToolError::new(traceback.clone()).with_code("crashed");
            return Err(CallResult::failure(&failure));
        }
        if let Err(violation) = entry.input.validate_tree(arguments) {
            let name = &call.name;
            let failure = ToolError::new(format!("invalid arguments for {name}: {violation}"))
                .with_code("invalid_arguments");
            return Err(CallResult::failure(&failure));
        }
        Ok(())
    }

    /// Step 5, a [`Handler`](crate::server::Handler): it answers before it returns.
    fn run_now(
        &mut self,
        ctx: &mut Ctx,
        call: ToolCall,
        arguments: JsonTree,
        task: Option<TaskPlan>,
    ) -> Option<Reply> {
        let Run::Now(run) = &mut self.entries[call.index].run else {
            return None;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| run(ctx, arguments)));
        let result = match outcome {
            Ok(Ok(value)) => CallResult::success(value),
            Ok(Err(failure)) => CallResult::failure(&failure),
            Err(panic) => panicked(&call.name, panic),
        };
        self.finish(&call, task, &result)
    }

    /// The answer of a call that answered before it returned: `result`, or, run as a task,
    /// the finished task made of it.
    fn finish(
        &mut self,
        call: &ToolCall,
        task: Option<TaskPlan>,
        result: &CallResult,
    ) -> Option<Reply> {
        match task {
            Some(plan) => self.answered_task(plan, call, result),
            None => call.answer(result),
        }
    }

    /// Step 5, an [`InteractiveHandler`](crate::server::InteractiveHandler): it answers, or
    /// asks the client for input first (2026-07-28: an `input_required` result with a sealed
    /// state; legacy over a stream: requests on the call's stream, run again later).
    fn run_asking(
        &mut self,
        ctx: &mut Ctx,
        call: ToolCall,
        arguments: JsonTree,
        task: Option<TaskPlan>,
    ) -> Option<Reply> {
        let modern = call.modern;
        // What a sealed state is bound to: made only when a state is opened or sealed.
        let binding = || {
            let arguments = arguments.to_value();
            Binding::new("tools/call", &call.name, &arguments, &call.owner)
        };
        let none = Rare::default();
        let rare = call.rare.as_deref().unwrap_or(&none);
        let input = match self.input(rare, call.meta.as_ref(), binding, modern) {
            Ok(input) => input,
            Err(refused) => return protocol(Reply::answer(refused.reply(&call.id))),
        };
        let Run::Ask(ask) = &mut self.entries[call.index].run else {
            return None;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| ask(ctx, &arguments, &input)));
        // A task is made once the handler has what it asked for (SEP-2663 with SEP-2322: the
        // input rounds come first).
        let asked = match outcome {
            Ok(Ok(Outcome::InputRequired(asked))) => asked,
            Ok(Ok(Outcome::Complete(value))) => {
                return self.finish(&call, task, &CallResult::success(value));
            }
            Ok(Err(failure)) => return self.finish(&call, task, &CallResult::failure(&failure)),
            Err(panic) => {
                let result = panicked(&call.name, panic);
                return self.finish(&call, task, &result);
            }
        };
        let name = &call.name;
        if call.requests && call.outlet.is_some() {
            // A legacy call over a stream asks its client there, and runs again with the
            // answers on a later frame.
            let ToolCall {
                id,
                name,
                outlet,
                streamable,
                ..
            } = call;
            let slot = self.asking_slot(&name, id, outlet, streamable);
            self.ask_over_stream(slot, name.to_string(), arguments, asked);
            return None;
        }
        if !modern {
            let keys: Vec<&str> = asked.keys().collect();
            let failure = ToolError::new(format!(
                "{name} needs input from the client ({keys:?}): call it over HTTP with an SSE \
                 answer (Accept: text/event-stream), or in protocol 2026-07-28"
            ))
            .with_code("input_unavailable");
            return call.answer(&CallResult::failure(&failure));
        }
        #[cfg(feature = "tracing")]
        crate::trace::record("outcome", "input required");
        let text = self.input_required(&call.id, asked, &input, binding, modern, name);
        Some(Reply::answer(text))
    }

    /// Step 5, a [`CallHandler`](crate::server::CallHandler): it gets a route for its
    /// notifications and answer, and may answer on a later frame (within its deadline); run as
    /// a task, it answers into the task, and the request's answer is the task.
    fn run_deferred(
        &mut self,
        ctx: &mut Ctx,
        call: ToolCall,
        arguments: JsonTree,
        task: Option<TaskPlan>,
    ) -> Option<Reply> {
        let Run::Call {
            deadline: timeout,
            wrap,
            ..
        } = &self.entries[call.index].run
        else {
            return None;
        };
        let (timeout, wrap) = (*timeout, *wrap);
        let modern = call.modern;
        let meta = call.meta.as_ref();
        let progress_token = meta.and_then(|m| m.progress_token.as_deref().cloned());
        let log_level = if modern {
            meta.and_then(|m| m.log_level.as_ref())
                .and_then(Text::as_str)
                .and_then(LogLevel::parse)
        } else {
            self.log_level
        };
        // A task's call answers into the task, which reads it when asked; its requests to the
        // client become the task's input requests (2026-07-28).
        let in_task = task.is_some();
        let (outlet, answer_rx, inputs) = if in_task {
            let (tx, rx) = mpsc::unbounded_channel();
            let inputs = modern.then(|| Arc::new(TaskInputs::default()));
            (Some(tx), Some(rx), inputs)
        } else {
            (call.outlet.clone(), None, None)
        };
        // A legacy task's progress and log lines go into the task, which passes them to the
        // `tasks/result` requests waiting on it (2026-07-28 tasks send none).
        let notes = call.streamable && !in_task || in_task && !modern;
        let slot = Arc::new(CallRoute {
            tool: call.name.to_string(),
            wrap,
            when_crashed: self.entries[call.index].def.when_crashed,
            deadline: Instant::now() + timeout,
            timeout,
            result_type: (modern && !in_task).then_some("complete"),
            modern,
            waiters: (call.requests && !in_task || inputs.is_some()).then(|| self.waiters.clone()),
            task_inputs: inputs.clone(),
            state: Mutex::new(RouteState {
                outlet: outlet.clone(),
                id: if in_task {
                    Value::Null
                } else {
                    call.id.clone()
                },
                streamable: notes,
                progress_token: progress_token.filter(|_| notes),
                log_level: log_level.filter(|_| notes),
                answered: false,
                // A task's call answers into the task; the request's answer is the task.
                hold: if in_task {
                    Hold::Off
                } else {
                    Hold::During(None)
                },
            }),
        });
        let Run::Call { start, .. } = &mut self.entries[call.index].run else {
            return None;
        };
        match catch_unwind(AssertUnwindSafe(|| start(ctx, arguments, slot.clone()))) {
            Ok(Ok(())) => {}
            Ok(Err(failure)) => {
                slot.answer(&CallResult::failure(&failure));
            }
            Err(panic) => {
                slot.answer(&panicked(&call.name, panic));
            }
        }
        if let Some(reply) = slot.take_held() {
            #[cfg(feature = "tracing")]
            crate::trace::record("outcome", "answered");
            return Some(reply);
        }
        if slot.is_finished() {
            #[cfg(feature = "tracing")]
            crate::trace::record("outcome", "answered");
        } else {
            #[cfg(feature = "tracing")]
            crate::trace::record("deferred", true);
            if let (Some(outlet), false) = (&outlet, in_task) {
                let _ = outlet.send(Outbound::Deferred(timeout));
            }
            self.outstanding.push(slot);
        }
        let plan = task?;
        let created = self.tasks.create(
            NewTask {
                tool: call.name.to_string(),
                owner: plan.owner,
                requested_ttl: plan.requested_ttl,
                answer: answer_rx,
                inputs: inputs.map(|inputs| (inputs, self.waiters.clone())),
                answered: None,
            },
            modern,
        );
        Some(Reply::answer(respond(&call.id, &created)))
    }

    /// Makes a finished task of a call that answered before the task was made (a
    /// [`Handler`](crate::server::Handler)'s, an
    /// [`InteractiveHandler`](crate::server::InteractiveHandler)'s), and returns the
    /// `tools/call` answer that announces it.
    fn answered_task(
        &mut self,
        plan: TaskPlan,
        call: &ToolCall,
        result: &CallResult,
    ) -> Option<Reply> {
        #[cfg(feature = "tracing")]
        crate::trace::record("outcome", "task");
        let created = self.tasks.create(
            NewTask {
                tool: call.name.to_string(),
                owner: plan.owner,
                requested_ttl: plan.requested_ttl,
                answer: None,
                inputs: None,
                answered: Some(result.respond(&Value::Null, None)),
            },
            call.modern,
        );
        Some(Reply::answer(respond(&call.id, &created)))
    }
}
