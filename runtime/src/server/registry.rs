//! The tool registry and `dispatch`: JSON-RPC text in, JSON-RPC text out, in both protocol
//! eras (the legacy `initialize` handshake, MCP 2024-11-05 to 2025-11-25, and the stateless
//! 2026-07-28 revision, told apart per request by its `params._meta`).

mod asking;
mod call;
mod catalog;
mod events;
mod methods;
mod skills;

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_bindgen_core::param_headers::{ParamHeader, param_headers};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::announce::{self, Changes, InBand};
use super::deferred::{Call, CallRoute, Waiters};
use super::input::{Input, Outcome, Sealer};
use super::prompts::Prompt;
use super::registrar::{Edits, Registrar};
use super::resources::{Completer, Resource, Template};
use super::tasks::Tasks;
use super::wire::{
    CallResult, Era, Incoming, Outbound, Params, Received, Reply, Request, Text, error, receive,
    respond,
};
use super::{
    Answer, CallHandler, Handler, InteractiveHandler, ToolDefinition, ToolError, ToolOutput,
    ToolResult,
};
use crate::JsonTree;
use crate::era::{self, LogLevel};

/// A duration in whole microseconds, for trace fields.
#[cfg(feature = "tracing")]
fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// What the server advertises, the same in both eras (`initialize` and `server/discover`), and
/// each part is answered in both: tools, prompts and resources, whose list changes are
/// announced (legacy era: on the GET stream and on stdio; 2026-07-28: on
/// `subscriptions/listen` streams), with subscriptions to a resource's updates; completion of
/// prompt and template arguments; log messages (`logging/setLevel` in the legacy era, the
/// request's log level in 2026-07-28). A registry with no prompts or resources answers their
/// lists empty, so clients that probe them find a consistent server.
///
/// Tasks differ by era: the legacy `tasks` capability (`tasks/list`, `tasks/cancel`, tasks
/// for `tools/call`; protocol 2025-11-25), or the 2026-07-28 `io.modelcontextprotocol/tasks`
/// extension.
///
/// A registry that serves skills declares the `io.modelcontextprotocol/skills` extension, with
/// `resources/directory/read` (`directoryRead`), in both eras.
fn capabilities(tasks: Option<Era>, skills: bool, events: bool) -> Value {
    let mut capabilities = serde_json::json!({
        "tools": {"listChanged": true},
        "logging": {},
        "prompts": {"listChanged": true},
        "resources": {"listChanged": true, "subscribe": true},
        "completions": {},
    });
    match tasks {
        Some(Era::Stateless) => {
            capabilities["extensions"] = serde_json::json!({ era::TASKS_EXTENSION: {} });
        }
        Some(Era::Session) => {
            capabilities["tasks"] =
                serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        }
        None => {}
    }
    let mut extend = |name: &str, settings: Value| match capabilities["extensions"].as_object_mut()
    {
        Some(extensions) => {
            extensions.insert(name.into(), settings);
        }
        None => capabilities["extensions"] = serde_json::json!({ name: settings }),
    };
    if skills {
        extend(
            mcp_bindgen_core::skill::EXTENSION,
            serde_json::json!({"directoryRead": true}),
        );
    }
    // 2026-07-28 only (the legacy handshake passes `false`); poll and push, never webhooks.
    if events {
        extend(
            crate::events::EXTENSION,
            serde_json::json!({"listChanged": true}),
        );
    }
    capabilities
}

type Now<Ctx> = Box<dyn FnMut(&mut Ctx, JsonTree) -> Result<Answer, ToolError> + Send>;
type Start<Ctx> =
    Box<dyn FnMut(&mut Ctx, JsonTree, Arc<CallRoute>) -> Result<(), ToolError> + Send>;

type Ask<Ctx> =
    Box<dyn FnMut(&mut Ctx, &JsonTree, &Input) -> Result<Outcome<Answer>, ToolError> + Send>;

enum Run<Ctx> {
    /// A [`Handler`]: answers before it returns.
    Now(Now<Ctx>),
    /// An [`InteractiveHandler`]: answers, or asks the client for input first (2026-07-28).
    Ask(Ask<Ctx>),
    /// A [`CallHandler`]: may report, and may answer on a later frame, within `deadline`.
    Call {
        start: Start<Ctx>,
        deadline: Duration,
        /// Whether the output is wrapped as `{"result": value}` (a non-object output schema).
        wrap: bool,
    },
}

struct Entry<Ctx> {
    def: ToolDefinition,
    /// The input schema, compiled once, checked against each call's arguments.
    input: crate::CompiledSchema,
    run: Run<Ctx>,
    /// Client capabilities a 2026-07-28 request must declare to call this tool.
    requires: Vec<String>,
    /// The arguments its `x-mcp-header` annotations mirror in headers (none when the
    /// annotations are invalid: clients drop such a tool, so no call of it carries them).
    mirrored: Vec<ParamHeader>,
}

/// FNV-1a, for the tool index: its names are few and chosen by the game, and requests only
/// look names up (never insert), so a keyed hash (SipHash, about ten times the work on a short
/// name) buys nothing there.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The tools a game serves, and the JSON-RPC dispatcher for them. An explicit value: handlers
/// get `&mut Ctx` (the game) when [`Registry::dispatch`] (or `Server::poll`) runs them.
///
/// Both protocol eras are answered: a request whose `params._meta` names 2026-07-28 is a
/// stateless modern request (`server/discover`, `tools/list`, `tools/call`, with `resultType`,
/// caching hints, and `-32602` when `_meta` lacks its required keys); anything else is the
/// legacy era (`initialize`, `ping`, `logging/setLevel`, `tools/list`, `tools/call`), answered
/// exactly as servers of 2025-11-25 do.
pub struct Registry<Ctx> {
    entries: Vec<Entry<Ctx>>,
    index: HashMap<String, usize, BuildHasherDefault<Fnv>>,
    crashed: Option<String>,
    name: String,
    version: String,
    instructions: Option<String>,
    page_size: Option<usize>,
    list_ttl: Duration,
    /// The legacy era's `logging/setLevel` (a stateless server has one for every client).
    log_level: Option<LogLevel>,
    /// Deferred calls not answered yet.
    outstanding: Vec<Arc<CallRoute>>,
    /// Requests sent to clients during calls, waiting for their responses.
    pub(crate) waiters: Arc<Waiters>,
    /// What changed since a transport last announced it.
    changes: Changes,
    /// Changes queued by [`Registrar`]s.
    edits: Arc<Edits<Ctx>>,
    /// Prompts, in registration order.
    prompts: Vec<Prompt<Ctx>>,
    /// Resources at fixed URIs, in registration order.
    resources: Vec<Resource<Ctx>>,
    /// Resource templates, in registration order.
    templates: Vec<Template<Ctx>>,
    /// Completion of prompt arguments and template variables.
    completers: Vec<Completer<Ctx>>,
    /// URIs legacy clients subscribed to (`resources/subscribe`; one set: a stateless server).
    subscribed: BTreeSet<String>,
    /// URIs updated since the transport last announced.
    updated: Vec<String>,
    /// Seals the states of `input_required` results (`None`: no random source).
    sealer: Option<Sealer>,
    /// Legacy calls of interactive tools waiting for their clients' answers.
    asking: Vec<asking::Asking>,
    /// How long a legacy call waits for its client's answers.
    input_timeout: Duration,
    /// Calls answered with a task, by task id.
    tasks: Tasks,
    /// Agent Skills, in registration order.
    skills: Vec<super::skills::Skill>,
    /// Event types and what they kept, shared with the HTTP thread's streams.
    pub(crate) events: Arc<super::events::Hub>,
}

impl<Ctx> std::fmt::Debug for Registry<Ctx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("tools", &self.tools().map(|t| &t.name).collect::<Vec<_>>())
            .field("crashed", &self.crashed.is_some())
            .field("deferred", &self.outstanding.len())
            .finish()
    }
}

impl<Ctx> Registry<Ctx> {
    /// An empty registry; `name` and `version` are the `serverInfo` sent in `initialize` and
    /// `server/discover`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Registry {
            entries: Vec::new(),
            index: HashMap::default(),
            crashed: None,
            name: name.into(),
            version: version.into(),
            instructions: None,
            page_size: None,
            list_ttl: Duration::ZERO,
            log_level: None,
            outstanding: Vec::new(),
            waiters: Arc::default(),
            changes: Changes::NONE,
            edits: Arc::default(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            completers: Vec::new(),
            subscribed: BTreeSet::new(),
            updated: Vec::new(),
            sealer: Sealer::new(),
            asking: Vec::new(),
            input_timeout: Duration::from_secs(300),
            tasks: Tasks::new(),
            skills: Vec::new(),
            events: Arc::default(),
        }
    }

    /// How long a task is kept after it is created (its `ttl`; default 10 minutes: a legacy
    /// client may ask for less, never more; at least a second) and how many tasks one owner
    /// (credential) may have running at once (default 32; a call past it
    /// is a tool error with code `too_many_tasks`). See [`TaskSupport`](super::TaskSupport).
    pub fn with_tasks(mut self, ttl: Duration, live: usize) -> Self {
        self.tasks.limits.ttl = ttl.max(Duration::from_secs(1));
        self.tasks.limits.live = live.max(1);
        self
    }

    /// How many tasks the registry keeps in all, running and finished with their results,
    /// every owner's together (default 1,024). A new task past it first makes room by
    /// forgetting finished tasks, the oldest first, before their ttl; when every task kept is
    /// running, the call is a tool error with code `too_many_tasks`.
    pub fn with_tasks_kept(mut self, kept: usize) -> Self {
        self.tasks.limits.kept = kept.max(1);
        self
    }

    /// The polling interval suggested to task clients (`pollIntervalMs`; default 250 ms).
    pub fn with_task_poll_interval(mut self, interval: Duration) -> Self {
        self.tasks.limits.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Tasks kept now: running, or finished and not yet past their ttl.
    pub fn tasks_kept(&self) -> usize {
        self.tasks.len()
    }

    /// Sets the `instructions` sent in `initialize` and `server/discover`.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Answers `tools/list` in pages of at most `tools` entries, with a `nextCursor` to the
    /// next page (default: every tool in one page). For registries of thousands of tools.
    pub fn with_page_size(mut self, tools: usize) -> Self {
        self.page_size = Some(tools.max(1));
        self
    }

    /// How long a 2026-07-28 client may cache `tools/list` (its `ttlMs`; default 0: tools may
    /// be registered at any time, and a client that does not listen for changes learns of
    /// them only by listing again). Clients that listen (`subscriptions/listen`) hear of each
    /// change whatever the ttl.
    pub fn with_list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// Registers the tool `T`. Registering a name again replaces the tool and keeps the
    /// name's original position, so `tools/list` stays in first-registration order.
    pub fn register<T: Handler<Ctx>>(&mut self) -> &mut Self {
        let def = ToolDefinition::of::<T, T::Output>();
        let wrap = T::Output::output_schema().is_some_and(|(_, wrap)| wrap);
        let call: Now<Ctx> = Box::new(move |ctx, arguments| {
            let args: T = parse_arguments::<T>(&arguments)?;
            args.call(ctx)?.into_answer(wrap)
        });
        self.insert(def, Run::Now(call))
    }

    /// Registers the tool `T`, whose handler may ask the client for input before it answers
    /// (an elicitation, a sampling request, the client's roots): in 2026-07-28 the call is
    /// answered `input_required`, and the client's retry runs the handler again with the
    /// answers (see [`InteractiveHandler`]). In the legacy era, over HTTP with an SSE answer,
    /// the requests go to the client on the call's stream and the handler runs again on a
    /// later frame once every answer is in (within [`Registry::with_input_timeout`]); where a
    /// legacy call cannot carry requests (stdio, [`Registry::dispatch`]) the call is a tool
    /// error (code `input_unavailable`) naming what the handler needed.
    pub fn register_interactive<T: InteractiveHandler<Ctx>>(&mut self) -> &mut Self {
        let def = ToolDefinition::of::<T, T::Output>();
        let wrap = T::Output::output_schema().is_some_and(|(_, wrap)| wrap);
        let ask: Ask<Ctx> = Box::new(move |ctx, arguments, input| {
            let args: T = parse_arguments::<T>(arguments)?;
            Ok(match args.call(ctx, input)? {
                Outcome::Complete(output) => Outcome::Complete(output.into_answer(wrap)?),
                Outcome::InputRequired(asked) => Outcome::InputRequired(asked),
            })
        });
        self.insert(def, Run::Ask(ask))
    }

    /// Registers the tool `T`, whose handler gets a [`Call`] to report progress and log lines
    /// through and to answer with, now or on a later frame. A call not answered within
    /// `deadline` is answered with a tool error (code `deadline`) by the frame that notices.
    pub fn register_call<T: CallHandler<Ctx>>(&mut self, deadline: Duration) -> &mut Self {
        let def = ToolDefinition::of::<T, T::Output>();
        let wrap = T::Output::output_schema().is_some_and(|(_, wrap)| wrap);
        let start: Start<Ctx> = Box::new(move |ctx, arguments, slot| {
            let args: T = parse_arguments::<T>(&arguments)?;
            args.start(ctx, Call::new(slot));
            Ok(())
        });
        self.insert(
            def,
            Run::Call {
                start,
                deadline,
                wrap,
            },
        )
    }

    /// Registers a tool from a definition and a closure over raw JSON arguments (the
    /// arguments object, already checked against `def.input_schema`). The closure returns a
    /// [`ToolResult`], or a `serde_json::Value` that becomes `structuredContent` (`null` gives
    /// `{}`).
    pub fn register_fn<R: Into<ToolResult>>(
        &mut self,
        def: ToolDefinition,
        mut handler: impl FnMut(&mut Ctx, Map<String, Value>) -> Result<R, ToolError> + Send + 'static,
    ) -> &mut Self {
        // The handler takes a map: the tree becomes one here (as the `Value` it was parsed
        // into before the check read trees).
        let call: Now<Ctx> = Box::new(move |ctx, arguments: JsonTree| {
            let Value::Object(arguments) = arguments.to_value() else {
                return Err(ToolError::new("arguments must be an object"));
            };
            handler(ctx, arguments).map(|r| Answer::Result(r.into()))
        });
        self.insert(def, Run::Now(call))
    }

    /// Makes the tool `name` require a client capability (`"sampling"`, `"elicitation"`,
    /// ...): a 2026-07-28 request whose `_meta` client capabilities lack it is refused with
    /// `-32021` (HTTP 400) before the handler runs. Legacy requests are not checked (a
    /// stateless server does not know what the client declared in `initialize`). Returns
    /// whether the tool exists.
    pub fn require_client_capability(&mut self, name: &str, capability: &str) -> bool {
        let Some(&i) = self.index.get(name) else {
            return false;
        };
        self.entries[i].requires.push(capability.to_owned());
        true
    }

    fn insert(&mut self, def: ToolDefinition, run: Run<Ctx>) -> &mut Self {
        let schema = Value::Object(def.input_schema.clone());
        let entry = Entry {
            input: crate::CompiledSchema::new(&schema),
            mirrored: param_headers(&schema).unwrap_or_default(),
            def,
            run,
            requires: Vec::new(),
        };
        match self.index.get(&entry.def.name) {
            Some(&i) => {
                // A new handler behind the same definition is no change to the list.
                if self.entries[i].def != entry.def {
                    self.changes.insert(Changes::TOOLS);
                }
                self.entries[i] = entry;
            }
            None => {
                self.index
                    .insert(entry.def.name.clone(), self.entries.len());
                self.entries.push(entry);
                self.changes.insert(Changes::TOOLS);
            }
        }
        self
    }

    /// Removes the tool `name`; the others keep their order. Returns whether it was
    /// registered. Its deferred calls still running are answered as before.
    pub fn unregister(&mut self, name: &str) -> bool {
        let Some(i) = self.index.remove(name) else {
            return false;
        };
        self.entries.remove(i);
        for position in self.index.values_mut() {
            if *position > i {
                *position -= 1;
            }
        }
        self.changes.insert(Changes::TOOLS);
        true
    }

    /// A handle that registers and removes tools from where the registry cannot be reached:
    /// a tool handler, another thread, a Bevy system. Its changes are applied by the
    /// registry's owner (see [`Registrar`]).
    pub fn registrar(&self) -> Registrar<Ctx>
    where
        Ctx: 'static,
    {
        Registrar::new(self.edits.clone(), self.events.clone())
    }

    /// Whether changes wait to be applied or announced: queued by a [`Registrar`], made
    /// since the transport last announced, or a task's status that listeners have not heard
    /// (a game loop that skips `poll` when nothing is queued should not skip it while this
    /// holds).
    #[inline]
    pub fn changes_pending(&self) -> bool {
        !self.changes.is_empty()
            || self.edits.pending()
            || self.tasks.has_notes()
            || self.events.changed_pending()
    }

    /// Applies what [`Registrar`]s queued, in order.
    #[inline]
    pub(crate) fn apply_edits(&mut self) {
        if self.edits.pending() {
            for edit in self.edits.take() {
                edit(self);
            }
        }
    }

    /// What changed since the last call (after applying queued edits), for the transport to
    /// announce.
    #[inline]
    pub(crate) fn take_changes(&mut self) -> Changes {
        self.apply_edits();
        if self.events.take_changed() {
            self.changes.insert(Changes::EVENTS);
        }
        std::mem::take(&mut self.changes)
    }

    /// Every registered tool, in first-registration order.
    pub fn tools(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.entries.iter().map(|e| &e.def)
    }

    /// Records a crash: from now on, tools not marked `when_crashed` answer with `traceback`,
    /// and so do their deferred calls still waiting for an answer.
    pub fn set_crashed(&mut self, traceback: impl Into<String>) {
        let traceback = traceback.into();
        let failure = ToolError::new(traceback.clone()).with_code("crashed");
        self.outstanding.retain(|slot| {
            if slot.when_crashed {
                return true;
            }
            slot.answer(&CallResult::failure(&failure));
            false
        });
        #[cfg(feature = "tracing")]
        tracing::warn!(
            traceback = %traceback,
            still_callable = self.entries.iter().filter(|e| e.def.when_crashed).count(),
            "crash mode: only tools marked when_crashed run"
        );
        self.crashed = Some(traceback);
    }

    /// The crash traceback, or `None` while the game is healthy.
    pub fn crashed(&self) -> Option<&str> {
        self.crashed.as_deref()
    }

    /// Leaves crash mode.
    pub fn clear_crashed(&mut self) {
        #[cfg(feature = "tracing")]
        if self.crashed.is_some() {
            tracing::info!("crash mode cleared");
        }
        self.crashed = None;
    }

    /// Deferred calls still waiting for their answer.
    pub fn deferred_calls(&self) -> usize {
        self.outstanding.len()
    }

    /// Answers deferred calls past their deadline with a tool error, and forgets those already
    /// answered or whose client has gone. `Server::poll` does this every frame.
    pub fn expire_deferred(&mut self, now: Instant) {
        if self.outstanding.is_empty() {
            self.tasks.refresh();
            return;
        }
        self.outstanding.retain(|slot| {
            if slot.is_finished() {
                return false;
            }
            if now >= slot.deadline {
                let failure = ToolError::new(format!(
                    "{} did not finish within its deadline of {:?}",
                    slot.tool, slot.timeout
                ))
                .with_code("deadline");
                slot.answer(&CallResult::failure(&failure));
                return false;
            }
            true
        });
        // Tasks whose calls were just answered, and legacy `tasks/result` requests waiting.
        self.tasks.refresh();
    }

    /// Runs one JSON-RPC message and returns the response text; `None` for notifications and
    /// responses, which get no reply. Answers `initialize`, `ping`, `logging/setLevel`,
    /// `tools/list` and `tools/call` (legacy era), and `server/discover`, `tools/list`,
    /// `tools/call` (2026-07-28, told apart by `params._meta`); any other method is `-32601`,
    /// text that is not JSON `-32700`, a message that is not one JSON-RPC request or
    /// notification `-32600`, an unknown tool `-32602`. Tool failures, arguments that do not
    /// fit, and handler panics are results with `isError: true`.
    ///
    /// Notifications a [`CallHandler`] sends are dropped here (use `serve_stdio` or `Server`
    /// to deliver them), and a call it defers to a later frame is answered with a tool error:
    /// `dispatch` returns before any later frame.
    pub fn dispatch(&mut self, ctx: &mut Ctx, text: &str) -> Option<String> {
        let reply = self.dispatch_with(ctx, text.as_bytes(), false, |_| {}, None);
        self.apply_edits();
        reply
    }

    /// `dispatch`, handing each notification to `note` before the reply. With `in_band` (a
    /// stdio connection), `subscriptions/listen` is served on the same connection: its
    /// acknowledgement is the reply, and the announcements follow other messages'
    /// ([`InBand::events`]).
    pub(crate) fn dispatch_with(
        &mut self,
        ctx: &mut Ctx,
        text: &[u8],
        streamable: bool,
        mut note: impl FnMut(String),
        in_band: Option<&mut InBand>,
    ) -> Option<String> {
        let (request, era) = match receive(text, None) {
            Received::Request(request, era) => (request, era),
            Received::Notification => {
                if let Some(in_band) = in_band {
                    in_band.cancelled(text);
                }
                return None;
            }
            Received::Response(response) => {
                self.waiters.deliver(response);
                return None;
            }
            Received::Refused { text, .. } => return Some(text),
        };
        match (era, &*request.method, in_band) {
            (Era::Session, "initialize", Some(in_band)) => in_band.legacy = true,
            (Era::Stateless, "subscriptions/listen", in_band) => {
                let id = &request.id;
                let Some(in_band) = in_band else {
                    return Some(error(
                        id,
                        -32601,
                        "subscriptions/listen needs a stream: serve the registry with Server or \
                         serve_stdio",
                    ));
                };
                let by = announce::Listening {
                    declares_tasks: super::tasks::request_declares(&request),
                    owner: None,
                };
                return Some(
                    match announce::open(id, request.params.notifications.as_deref(), by) {
                        Ok((wants, acknowledgement)) => {
                            in_band.subscriptions.push((id.clone(), wants));
                            acknowledgement
                        }
                        Err(refused) => refused.text,
                    },
                );
            }
            (Era::Stateless, "events/stream", in_band) => {
                let id = &request.id;
                let Some(in_band) = in_band else {
                    return Some(error(
                        id,
                        -32601,
                        "events/stream needs a stream: serve the registry with Server or \
                         serve_stdio",
                    ));
                };
                let sub = self
                    .events
                    .subscribe(id, &request.params, crate::events::Delivery::Push);
                return Some(match sub {
                    Ok(sub) => in_band.events.open(id.clone(), sub).join("\n"),
                    Err(refused) => refused,
                });
            }
            _ => {}
        }
        // A channel only for the tools that can send notifications or answer later.
        let (outlet, mut replies) = if self.answers_through_call(&request) {
            let (outlet, replies) = mpsc::unbounded_channel();
            (Some(outlet), Some(replies))
        } else {
            (None, None)
        };
        let reply = self.run(
            ctx,
            Incoming {
                request,
                era,
                outlet,
                streamable,
                param_headers: None,
                requests: false,
                owner: None,
                #[cfg(feature = "tracing")]
                received: None,
            },
        );
        let Some(replies) = &mut replies else {
            return reply.map(|r| r.text);
        };
        // The notifications the call sent before it answered or deferred.
        while let Ok(Outbound::Note(text)) = replies.try_recv() {
            note(text);
        }
        if let Some(reply) = reply {
            return Some(reply.text);
        }
        // Deferred: nothing runs a later frame here, so the call fails now.
        let slot = self.outstanding.pop()?;
        slot.answer(&CallResult::failure(
            &ToolError::new(format!(
                "{} answers on a later frame; serve it with Server::poll",
                slot.tool
            ))
            .with_code("deferred"),
        ));
        match replies.try_recv() {
            Ok(Outbound::Done(reply)) => Some(reply.text),
            _ => None,
        }
    }

    /// Whether `request` calls a [`CallHandler`] tool.
    fn answers_through_call(&self, request: &Request) -> bool {
        request.method == "tools/call"
            && request
                .params
                .name
                .as_ref()
                .and_then(Text::as_str)
                .and_then(|name| self.index.get(name))
                .is_some_and(|&i| matches!(self.entries[i].run, Run::Call { .. }))
    }

    pub(super) fn initialize(&self, id: &Value, params: &Params) -> String {
        let requested = params.protocol_version.as_ref().and_then(Text::as_str);
        let version = requested
            .filter(|v| era::era_of(v) == Some(Era::Session))
            .unwrap_or(era::LATEST_LEGACY);
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Init<'a> {
            protocol_version: &'a str,
            capabilities: Value,
            server_info: Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            instructions: Option<&'a str>,
        }
        respond(
            id,
            &Init {
                protocol_version: version,
                capabilities: capabilities(
                    (version >= "2025-11-25").then_some(Era::Session),
                    !self.skills.is_empty(),
                    false,
                ),
                server_info: serde_json::json!({"name": self.name, "version": self.version}),
                instructions: self.instructions.as_deref(),
            },
        )
    }

    pub(super) fn set_level(&mut self, id: &Value, params: &Params) -> String {
        match params
            .level
            .as_ref()
            .and_then(Text::as_str)
            .and_then(LogLevel::parse)
        {
            Some(level) => {
                self.log_level = Some(level);
                respond(id, &Map::new())
            }
            None => error(
                id,
                -32602,
                "Invalid params: level must be one of debug, info, notice, warning, error, \
                 critical, alert, emergency",
            ),
        }
    }

    pub(super) fn discover(&self, id: &Value) -> String {
        let mut result = serde_json::json!({
            "supportedVersions": era::all_versions().collect::<Vec<_>>(),
            "capabilities": capabilities(
                Some(Era::Stateless),
                !self.skills.is_empty(),
                !self.events.is_empty(),
            ),
            "ttlMs": 0,
            "cacheScope": "public",
            "resultType": "complete",
            "_meta": {era::meta::SERVER_INFO: {"name": self.name, "version": self.version}},
        });
        if let Some(instructions) = &self.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        respond(id, &result)
    }

    fn ttl_ms(&self) -> Value {
        Value::from(u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn list(&self, id: &Value, params: &Params, modern: bool) -> String {
        let tools: Vec<&ToolDefinition> = self.tools().collect();
        self.paged(id, "tools", &tools, params, modern, ToolDefinition::to_json)
    }

    /// Runs a `tools/call`; with the `tracing` feature and a subscriber that wants DEBUG, inside
    /// a `mcp_tool_call` span ([`Self::call_traced`]). Without one, the path is the untraced
    /// build's but for one atomic load: the traced path is out of line, so that it changes
    /// neither the inlining nor the layout of this one.
    #[inline(always)]
    pub(super) fn call(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        #[cfg(feature = "tracing")]
        if tracing::level_enabled!(tracing::Level::DEBUG) {
            return self.call_traced(ctx, incoming);
        }
        self.call_tool(ctx, incoming)
    }

    /// [`Self::call`] inside a `mcp_tool_call` span (tool, era, request id, queue wait, handler
    /// time, whether it was deferred, outcome).
    #[cfg(feature = "tracing")]
    #[cold]
    #[inline(never)]
    fn call_traced(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        use tracing::field::Empty;
        let span = tracing::debug_span!(
            "mcp_tool_call",
            tool = incoming.request.params.name.as_ref().and_then(Text::as_str),
            era = if incoming.era == Era::Stateless { "2026-07-28" } else { "legacy" },
            id = %incoming.request.id,
            queue_wait_us = Empty,
            handler_us = Empty,
            deferred = false,
            outcome = Empty,
        );
        if span.is_disabled() {
            return self.call_tool(ctx, incoming);
        }
        if let Some(received) = incoming.received {
            span.record("queue_wait_us", micros(received.elapsed()));
        }
        let started = Instant::now();
        let reply = span.in_scope(|| self.call_tool(ctx, incoming));
        span.record("handler_us", micros(started.elapsed()));
        tracing::trace!(
            parent: &span,
            reply = reply.as_ref().map(|r| r.text.as_str()),
            "answered"
        );
        reply
    }
}

/// SEP-2243: every argument whose property is marked `x-mcp-header` (at any depth of
/// `properties`) travels in its `Mcp-Param-{name}` header too, and the two must agree. Out of
/// line: only HTTP requests of the 2026-07-28 era come here, and the call path stays small.
#[inline(never)]
fn check_param_headers(
    mirrored: &[ParamHeader],
    arguments: &JsonTree,
    headers: &[(String, String)],
) -> Result<(), String> {
    if mirrored.is_empty() {
        return Ok(());
    }
    // A key given twice: its last value, as in the `Value` of the arguments.
    if arguments.has_duplicate_keys() {
        let arguments = arguments.to_value();
        let member = |path: &[String]| {
            path.iter()
                .try_fold(&arguments, |value, key| value.get(key))
                .filter(|value| !value.is_null())
                .cloned()
        };
        return check_param_headers_in(mirrored, member, headers);
    }
    check_param_headers_in(mirrored, |path| arguments.value_at(path), headers)
}

/// [`check_param_headers`] with the arguments read through `member` (the value at a path of
/// member names; `None` when absent or `null`).
fn check_param_headers_in(
    mirrored: &[ParamHeader],
    member: impl Fn(&[String]) -> Option<Value>,
    headers: &[(String, String)],
) -> Result<(), String> {
    for param in mirrored {
        let name = &param.name;
        let wanted = name.to_ascii_lowercase();
        let header = headers
            .iter()
            .find(|(suffix, _)| *suffix == wanted)
            .map(|(_, v)| v.as_str());
        let body = member(&param.path);
        let property = param.dotted();
        match (body, header) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(format!(
                    "arguments.{property} is in the body but the Mcp-Param-{name} header is absent"
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "the Mcp-Param-{name} header is set but arguments.{property} is absent"
                ));
            }
            (Some(body), Some(raw)) => {
                let Some(decoded) = era::header_value::decode(raw) else {
                    return Err(format!(
                        "the Mcp-Param-{name} header carries an invalid =?base64?...?= value"
                    ));
                };
                let expected =
                    era::header_value::argument_text(&body).unwrap_or_else(|| body.to_string());
                if decoded != expected {
                    return Err(format!(
                        "arguments.{property} is {expected:?} but the Mcp-Param-{name} header \
                         names {decoded:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The tool's struct, from the checked arguments (the result and error of `from_value` on
/// their `Value`).
fn parse_arguments<T: super::McpTool>(arguments: &JsonTree) -> Result<T, ToolError> {
    arguments.deserialize().map_err(|e| {
        ToolError::new(format!("invalid arguments for {}: {e}", T::NAME))
            .with_code("invalid_arguments")
    })
}

fn panicked(name: &str, panic: Box<dyn std::any::Any + Send>) -> CallResult {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned());
    CallResult::failure(
        &ToolError::new(format!("the tool {name} panicked: {message}")).with_code("panic"),
    )
}
