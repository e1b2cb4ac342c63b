//! Tasks: calls answered at once with a task, whose outcome the client fetches later. Both
//! shapes are served from one store: the legacy era's (2025-11-25: `task` on `tools/call`,
//! `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`) and the 2026-07-28
//! `io.modelcontextprotocol/tasks` extension's (`tasks/get` with the outcome inlined,
//! `tasks/update` with the answers to the task's input requests, `tasks/cancel`).
//!
//! A task holds the receiving end of its call's answer channel (the same [`Outbound`] channel
//! a deferred call answers an HTTP request through), so a task runs exactly as a deferred call
//! does; the store reads the answer when someone asks. Dropping the receiver (cancel, expiry)
//! makes the call abandoned, which the game sees through `Call::is_abandoned`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::deferred::{TaskInputs, Waiters};
pub(crate) use super::owner::Owner;
use super::wire::{ClientResponse, Outbound, OutboundTx, Rejected, Reply, error, respond};
use crate::era::{self, Era};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

/// How long tasks are kept, how often clients should poll, how many may run at once and how
/// many are kept in all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// How long a task is kept after it is created (legacy clients may ask for less).
    pub ttl: Duration,
    /// The polling interval suggested to clients.
    pub poll_interval: Duration,
    /// Tasks not yet finished, per owner.
    pub live: usize,
    /// Tasks kept in all, running and finished (with their results), every owner's.
    pub kept: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ttl: Duration::from_secs(600),
            poll_interval: Duration::from_millis(250),
            live: 32,
            kept: 1024,
        }
    }
}

/// Why a task could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The owner has [`Limits::live`] tasks running.
    Owner(usize),
    /// The store keeps [`Limits::kept`] tasks, all of them running.
    Store(usize),
}

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Full::Owner(live) => write!(
                f,
                "too many tasks running ({live}): wait for one to finish, or cancel one"
            ),
            Full::Store(kept) => write!(
                f,
                "the server keeps {kept} tasks and all are running: try again when one \
                 finishes"
            ),
        }
    }
}

struct Task {
    owner: Owner,
    tool: String,
    status: Status,
    message: Option<String>,
    created: SystemTime,
    updated: SystemTime,
    ttl: Duration,
    expires: Instant,
    /// The call's answer, until it arrives.
    answer: Option<mpsc::UnboundedReceiver<Outbound>>,
    /// The input requests the call waits on, and where the answers go.
    inputs: Option<(Arc<TaskInputs>, Arc<Waiters>)>,
    /// The call's result (`CallToolResult`) or JSON-RPC error object, once known.
    outcome: Option<Result<Value, Value>>,
    /// Legacy `tasks/result` requests waiting for the outcome: their ids, outlets, and
    /// whether their answer may be an event stream (which then carries the call's progress
    /// and log lines).
    waiting: Vec<(Value, OutboundTx, bool)>,
    /// Where the task stood when its status was last noted for listeners: its 2026-07-28
    /// status name and how many input requests were outstanding.
    noted: (&'static str, usize),
    /// Its id is in [`Tasks::changed`], waiting for the next announcement.
    unheard: bool,
}

/// A task's status change, for the listen streams that named it (`notifications/tasks`).
#[derive(Debug, Clone)]
pub(crate) struct TaskNote {
    pub(crate) id: String,
    pub(crate) owner: Owner,
    /// The `DetailedTask`, as 2026-07-28 `tasks/get` reports it.
    pub(crate) task: Value,
}

impl Task {
    fn terminal(&self) -> bool {
        self.status != Status::Working
    }

    /// Reads the call's answer when it has come; passes its notifications (a legacy task's
    /// progress and log lines) to the `tasks/result` requests waiting on an event stream,
    /// tagged with the related-task `_meta`.
    fn refresh(&mut self, id: &str) {
        let Some(answer) = &mut self.answer else {
            return;
        };
        loop {
            match answer.try_recv() {
                Ok(Outbound::Done(reply)) => {
                    self.settle(&reply.text);
                    return;
                }
                Ok(Outbound::Note(text)) => {
                    if self.waiting.iter().any(|(.., stream)| *stream) {
                        let note = related(&text, id);
                        for (_, outlet, stream) in &self.waiting {
                            if *stream {
                                let _ = outlet.send(Outbound::Note(note.clone()));
                            }
                        }
                    }
                }
                Ok(Outbound::Deferred(_)) => {}
                Err(mpsc::error::TryRecvError::Empty) => return,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.answer = None;
                    let message = format!("{} ended without an answer", self.tool);
                    self.message = Some(message.clone());
                    self.outcome = Some(Err(serde_json::json!({
                        "code": -32603,
                        "message": message,
                    })));
                    self.finish(Status::Failed);
                    return;
                }
            }
        }
    }

    /// Records the call's JSON-RPC response text as the task's outcome.
    fn settle(&mut self, text: &str) {
        self.answer = None;
        let mut response: Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
        let (outcome, status) = match (response.remove("result"), response.remove("error")) {
            (Some(Value::Object(mut result)), _) => {
                result.remove("resultType");
                (Ok(Value::Object(result)), Status::Completed)
            }
            (_, Some(error)) => (Err(error), Status::Failed),
            _ => (
                Err(
                    serde_json::json!({"code": -32603, "message": "the call's answer was not JSON-RPC"}),
                ),
                Status::Failed,
            ),
        };
        // What went wrong, for a client that only polls (tasks/get SHOULD say so).
        self.message = match &outcome {
            Err(error) => Some(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the call failed")
                    .to_owned(),
            ),
            Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
                Some(format!("{} reported an error", self.tool))
            }
            Ok(_) => None,
        };
        self.outcome = Some(outcome);
        self.finish(status);
    }

    fn finish(&mut self, status: Status) {
        self.status = status;
        self.updated = SystemTime::now();
        self.answer = None;
        if let Some((inputs, _)) = self.inputs.take() {
            inputs.lock().clear();
        }
    }

    /// Where the task stands, for telling a change apart: the 2026-07-28 status name and the
    /// number of input requests outstanding.
    fn signature(&self) -> (&'static str, usize) {
        let waiting = self.waiting();
        (self.status_name_of(true, waiting), waiting)
    }

    /// How many input requests the task waits on (none once it has finished).
    fn waiting(&self) -> usize {
        match &self.inputs {
            Some((inputs, _)) if !self.terminal() => inputs.lock().len(),
            _ => 0,
        }
    }

    /// The `DetailedTask` (2026-07-28): the task, with its input requests, result or error.
    fn detailed(&self, id: &str, poll_interval: Duration) -> Map<String, Value> {
        let mut shape = self.to_json(id, true, poll_interval);
        if let Some(inputs) = self.input_requests() {
            shape.insert("inputRequests".into(), Value::Object(inputs));
        }
        match &self.outcome {
            Some(Ok(result)) => {
                shape.insert("result".into(), result.clone());
            }
            Some(Err(error)) => {
                shape.insert("error".into(), error.clone());
            }
            None => {}
        }
        shape
    }

    /// Waiting on the client: the input requests outstanding (2026-07-28).
    fn input_requests(&self) -> Option<Map<String, Value>> {
        let (inputs, _) = self.inputs.as_ref()?;
        let pending = inputs.lock();
        (!pending.is_empty() && !self.terminal()).then(|| pending.clone())
    }

    fn status_name(&self, modern: bool) -> &'static str {
        self.status_name_of(modern, self.waiting())
    }

    /// [`Task::status_name`], `waiting` input requests being outstanding.
    fn status_name_of(&self, modern: bool, waiting: usize) -> &'static str {
        match self.status {
            Status::Working if waiting > 0 => "input_required",
            // A legacy client reads the tool's failure from `tasks/result`.
            Status::Completed
                if !modern
                    && matches!(&self.outcome, Some(Ok(r)) if r.get("isError") == Some(&Value::Bool(true))) =>
            {
                "failed"
            }
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// The `Task` object: the 2026-07-28 field names (`ttlMs`, `pollIntervalMs`) or the
    /// legacy ones (`ttl`, `pollInterval`).
    fn to_json(&self, id: &str, modern: bool, poll_interval: Duration) -> Map<String, Value> {
        let mut task = Map::new();
        task.insert("taskId".into(), Value::String(id.to_owned()));
        task.insert(
            "status".into(),
            Value::String(self.status_name(modern).into()),
        );
        if let Some(message) = &self.message {
            task.insert("statusMessage".into(), Value::String(message.clone()));
        }
        task.insert("createdAt".into(), Value::String(iso8601(self.created)));
        task.insert("lastUpdatedAt".into(), Value::String(iso8601(self.updated)));
        let (ttl, poll) = if modern {
            ("ttlMs", "pollIntervalMs")
        } else {
            ("ttl", "pollInterval")
        };
        task.insert(ttl.into(), Value::from(millis(self.ttl)));
        if !self.terminal() {
            task.insert(poll.into(), Value::from(millis(poll_interval).max(1)));
        }
        task
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `2026-12-06T01:02:03.456Z`.
pub(crate) fn iso8601(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// A task's call, as the registry starts it.
pub(crate) struct NewTask {
    pub tool: String,
    pub owner: Owner,
    /// The ttl a legacy client asked for.
    pub requested_ttl: Option<Duration>,
    /// The call's answer channel (`None`: the outcome is already known).
    pub answer: Option<mpsc::UnboundedReceiver<Outbound>>,
    pub inputs: Option<(Arc<TaskInputs>, Arc<Waiters>)>,
    /// The outcome of a call that answered before the task was made (its response text).
    pub answered: Option<String>,
}

/// Every task the registry made and has not forgotten, by id. A refresh touches only the tasks
/// still working and those whose ttl has passed, so finished tasks kept for their ttl cost
/// nothing per frame.
pub(crate) struct Tasks {
    tasks: HashMap<String, Task>,
    /// The ids of the tasks still working.
    working: Vec<String>,
    /// When each task is forgotten, soonest first.
    expiry: BinaryHeap<Reverse<(Instant, String)>>,
    /// The tasks whose status changed since the last [`Tasks::take_notes`].
    changed: Vec<String>,
    pub(crate) limits: Limits,
}

impl Tasks {
    pub(crate) fn new() -> Self {
        Tasks {
            tasks: HashMap::new(),
            working: Vec::new(),
            expiry: BinaryHeap::new(),
            changed: Vec::new(),
            limits: Limits::default(),
        }
    }

    /// Tasks the store keeps (running or finished, not yet expired).
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether `owner` may start another task: fewer than [`Limits::live`] of its tasks are
    /// running, and the store has room (or a finished task it can forget to make some).
    pub(crate) fn has_room(&mut self, owner: &Owner) -> Result<(), Full> {
        self.refresh();
        let tasks = &self.tasks;
        let running = self
            .working
            .iter()
            .filter(|id| tasks.get(*id).is_some_and(|t| t.owner == *owner))
            .count();
        if running >= self.limits.live {
            return Err(Full::Owner(self.limits.live));
        }
        if self.tasks.len() >= self.limits.kept && self.working.len() >= self.tasks.len() {
            return Err(Full::Store(self.limits.kept));
        }
        Ok(())
    }

    /// Forgets finished tasks, the oldest first, until the store has room for one more.
    fn make_room(&mut self) {
        while self.tasks.len() >= self.limits.kept {
            let oldest = self
                .tasks
                .iter()
                .filter(|(_, task)| task.terminal())
                .min_by_key(|(_, task)| task.expires)
                .map(|(id, _)| id.clone());
            let Some(id) = oldest else { break };
            self.forget(&id, "was forgotten to make room for newer tasks");
        }
        // The expiry times of tasks forgotten early stay in the heap until they pass: rebuild
        // it before they outnumber the tasks kept.
        if self.expiry.len() > 2 * self.limits.kept {
            self.expiry = self
                .tasks
                .iter()
                .map(|(id, task)| Reverse((task.expires, id.clone())))
                .collect();
        }
    }

    /// Forgets the task `id`; the legacy `tasks/result` requests waiting on it are answered
    /// that it `fate` (expired, was forgotten).
    fn forget(&mut self, id: &str, fate: &str) {
        if let Some(mut task) = self.tasks.remove(id) {
            if task.unheard {
                self.changed.retain(|changed| changed != id);
            }
            for (request, outlet, _) in task.waiting.drain(..) {
                let text = error(&request, -32602, &format!("task {id} {fate}"));
                let _ = outlet.send(Outbound::Done(Reply::answer(text)));
            }
        }
    }

    /// Makes a task; returns the `tools/call` result that announces it.
    pub(crate) fn create(&mut self, new: NewTask, modern: bool) -> Map<String, Value> {
        self.make_room();
        let id = task_id();
        let now = SystemTime::now();
        let ttl = new
            .requested_ttl
            .map_or(self.limits.ttl, |asked| asked.min(self.limits.ttl))
            .max(Duration::from_secs(1));
        let mut task = Task {
            owner: new.owner,
            tool: new.tool,
            status: Status::Working,
            message: None,
            created: now,
            updated: now,
            ttl,
            expires: Instant::now() + ttl,
            answer: new.answer,
            inputs: new.inputs,
            outcome: None,
            waiting: Vec::new(),
            noted: ("working", 0),
            unheard: false,
        };
        if let Some(text) = new.answered {
            task.settle(&text);
        }
        task.refresh(&id);
        // The client learns where the task starts from the response.
        task.noted = task.signature();
        let shape = task.to_json(&id, modern, self.limits.poll_interval);
        if !task.terminal() {
            self.working.push(id.clone());
        }
        self.expiry.push(Reverse((task.expires, id.clone())));
        self.tasks.insert(id, task);
        if modern {
            let mut result = shape;
            result.insert("resultType".into(), Value::String("task".into()));
            result
        } else {
            let mut result = Map::new();
            result.insert("task".into(), Value::Object(shape));
            result
        }
    }

    /// Reads the answers that came, answers legacy `tasks/result` requests whose task is done,
    /// and forgets the tasks past their ttl. Every frame, and before each `tasks/*` request.
    pub(crate) fn refresh(&mut self) {
        if self.tasks.is_empty() {
            return;
        }
        let now = Instant::now();
        while let Some(Reverse((expires, _))) = self.expiry.peek() {
            if *expires > now {
                break;
            }
            let Some(Reverse((_, id))) = self.expiry.pop() else {
                break;
            };
            self.forget(&id, "expired");
        }
        let tasks = &mut self.tasks;
        let changed = &mut self.changed;
        self.working.retain(|id| {
            let Some(task) = tasks.get_mut(id) else {
                return false;
            };
            task.refresh(id);
            Self::note(changed, id, task);
            if !task.terminal() {
                return true;
            }
            for (request, outlet, _) in std::mem::take(&mut task.waiting) {
                let _ = outlet.send(Outbound::Done(Reply::answer(legacy_result(
                    id, task, &request,
                ))));
            }
            false
        });
    }

    /// Whether a task's status changed since the last [`Tasks::take_notes`].
    pub(crate) fn has_notes(&self) -> bool {
        !self.changed.is_empty()
    }

    /// The status changes since the last call, for `notifications/tasks`: each task once,
    /// as it stands now (2026-07-28 shape).
    pub(crate) fn take_notes(&mut self) -> Vec<TaskNote> {
        if self.changed.is_empty() {
            return Vec::new();
        }
        let changed = std::mem::take(&mut self.changed);
        let poll_interval = self.limits.poll_interval;
        changed
            .into_iter()
            .filter_map(|id| {
                let task = self.tasks.get_mut(&id)?;
                task.unheard = false;
                let detailed = Value::Object(task.detailed(&id, poll_interval));
                Some(TaskNote {
                    owner: task.owner,
                    task: detailed,
                    id,
                })
            })
            .collect()
    }

    /// Notes `task`'s status for listeners when it changed (its id once, however many
    /// changes come before the next announcement).
    fn note(changed: &mut Vec<String>, id: &str, task: &mut Task) {
        let now = task.signature();
        if now != task.noted {
            task.noted = now;
            if !task.unheard {
                task.unheard = true;
                changed.push(id.to_owned());
            }
        }
    }

    /// The task `id` when `owner` made it.
    fn find<'a>(
        tasks: &'a mut HashMap<String, Task>,
        id: &Value,
        owner: &Owner,
    ) -> Result<(String, &'a mut Task), String> {
        let Some(id) = id.as_str() else {
            return Err("Invalid params: taskId must be a string".into());
        };
        match tasks.get_mut(id) {
            Some(task) if task.owner == *owner => Ok((id.to_owned(), task)),
            _ => Err(format!(
                "Invalid params: no task {id} (unknown, or expired)"
            )),
        }
    }

    /// Answers a `tasks/*` request; `None` when a legacy `tasks/result` waits for its task
    /// (answered through `outlet` by [`Tasks::refresh`]).
    pub(crate) fn answer(
        &mut self,
        request: &super::wire::Request,
        era: Era,
        owner: &Owner,
        outlet: Option<(&OutboundTx, bool)>,
    ) -> Option<Reply> {
        self.refresh();
        let id = &request.id;
        let modern = era == Era::Stateless;
        if modern && !request_declares(request) {
            return Some(missing_extension(id, &request.method));
        }
        if !modern && request.method == "tasks/list" {
            return Some(Reply::answer(self.list(request, owner)));
        }
        let rare = request.params.rare.as_deref();
        let task_id = rare
            .and_then(|r| r.task_id.as_ref())
            .unwrap_or(&Value::Null);
        let poll_interval = self.limits.poll_interval;
        let (task_id, task) = match Self::find(&mut self.tasks, task_id, owner) {
            Ok(found) => found,
            Err(message) => return Some(Reply::answer(error(id, -32602, &message))),
        };
        let text = match (modern, &*request.method) {
            (_, "tasks/get") => {
                let shape = if modern {
                    let mut shape = task.detailed(&task_id, poll_interval);
                    shape.insert("resultType".into(), Value::String("complete".into()));
                    shape
                } else {
                    task.to_json(&task_id, false, poll_interval)
                };
                respond(id, &shape)
            }
            (true, "tasks/update") => {
                let answers = rare.and_then(|r| r.input_responses.as_ref());
                let text = update(id, task, answers);
                Self::note(&mut self.changed, &task_id, task);
                text
            }
            (_, "tasks/cancel") => {
                let text = cancel(id, &task_id, task, modern, poll_interval);
                Self::note(&mut self.changed, &task_id, task);
                text
            }
            (false, "tasks/result") => return wait_for_result(id, &task_id, task, outlet),
            (_, other) => error(id, -32601, &format!("Method not found: {other}")),
        };
        Some(Reply::answer(text))
    }

    /// Legacy `tasks/list`: the owner's tasks, oldest first, in one page.
    fn list(&self, request: &super::wire::Request, owner: &Owner) -> String {
        let id = &request.id;
        if request
            .params
            .cursor
            .as_deref()
            .is_some_and(|c| !c.is_null())
        {
            return error(id, -32602, "Invalid params: unknown cursor");
        }
        let mut tasks: Vec<(&String, &Task)> = self
            .tasks
            .iter()
            .filter(|(_, t)| t.owner == *owner)
            .collect();
        tasks.sort_by_key(|(_, t)| t.created);
        let poll_interval = self.limits.poll_interval;
        let tasks: Vec<Value> = tasks
            .into_iter()
            .map(|(id, t)| Value::Object(t.to_json(id, false, poll_interval)))
            .collect();
        respond(id, &serde_json::json!({"tasks": tasks}))
    }
}

/// `{"resultType": "complete"}`: a 2026-07-28 acknowledgement.
fn complete(id: &Value) -> String {
    let mut ack = Map::new();
    ack.insert("resultType".into(), Value::String("complete".into()));
    respond(id, &ack)
}

/// 2026-07-28 `tasks/update`: hands each answer to the input request it answers.
fn update(id: &Value, task: &mut Task, answers: Option<&Value>) -> String {
    let Some(Value::Object(answers)) = answers else {
        return error(
            id,
            -32602,
            "Invalid params: tasks/update needs inputResponses, an object",
        );
    };
    if let Some((inputs, waiters)) = &task.inputs {
        for (key, answer) in answers {
            if inputs.lock().remove(key).is_some() {
                waiters.deliver(ClientResponse {
                    id: Value::String(key.clone()),
                    outcome: Ok(answer.clone()),
                });
            }
        }
    }
    task.updated = SystemTime::now();
    complete(id)
}

/// `tasks/cancel`: a running task is cancelled (its call abandoned); a finished one is left
/// as it is (legacy: `-32602`).
fn cancel(
    id: &Value,
    task_id: &str,
    task: &mut Task,
    modern: bool,
    poll_interval: Duration,
) -> String {
    if !task.terminal() {
        task.message = Some("cancelled by the client".into());
        task.finish(Status::Cancelled);
    } else if !modern {
        return error(
            id,
            -32602,
            &format!("Invalid params: task {task_id} has already finished"),
        );
    }
    if modern {
        complete(id)
    } else {
        respond(id, &task.to_json(task_id, false, poll_interval))
    }
}

/// Legacy `tasks/result`: the outcome of a finished task; for one still working, `None`, the
/// request parked on its outlet until the task finishes or expires (HTTP only).
fn wait_for_result(
    id: &Value,
    task_id: &str,
    task: &mut Task,
    outlet: Option<(&OutboundTx, bool)>,
) -> Option<Reply> {
    if task.terminal() {
        return Some(Reply::answer(legacy_result(task_id, task, id)));
    }
    let Some((outlet, stream)) = outlet else {
        return Some(Reply::answer(error(
            id,
            -32603,
            &format!(
                "task {task_id} has not finished: poll it with tasks/get (tasks/result waits \
                 for a task only over HTTP)"
            ),
        )));
    };
    let left = task.expires.saturating_duration_since(Instant::now());
    let _ = outlet.send(Outbound::Deferred(left));
    task.waiting.push((id.clone(), outlet.clone(), stream));
    None
}

/// Whether a declared capability name is the tasks extension (see `Capabilities`).
fn is_tasks_extension(name: &str) -> bool {
    name.strip_prefix("extensions/") == Some(era::TASKS_EXTENSION)
}

/// Whether a 2026-07-28 request declared the tasks extension in its `_meta`.
pub(crate) fn request_declares(request: &super::wire::Request) -> bool {
    declared(
        request
            .params
            .meta
            .as_ref()
            .and_then(|m| m.capabilities.as_ref())
            .and_then(super::wire::Capabilities::declared),
    )
}

/// Whether a 2026-07-28 request declared the tasks extension.
pub(crate) fn declared(capabilities: Option<&[String]>) -> bool {
    capabilities.is_some_and(|d| d.iter().any(|c| is_tasks_extension(c)))
}

/// `-32021`: the request needs the tasks extension (a bad request).
pub(crate) fn missing_extension(id: &Value, what: &str) -> Reply {
    let mut extensions = Map::new();
    extensions.insert(era::TASKS_EXTENSION.into(), Value::Object(Map::new()));
    Reply::rejected(
        super::wire::error_with(
            id,
            era::code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            &format!(
                "Missing required client capability: {what} needs the {} extension in \
                 _meta[\"{}\"].extensions",
                era::TASKS_EXTENSION,
                era::meta::CLIENT_CAPABILITIES
            ),
            Some(&serde_json::json!({"requiredCapabilities": {"extensions": extensions}})),
        ),
        Rejected::BadRequest,
    )
}

/// A notification of a task's call, tagged with `_meta["io.modelcontextprotocol/related-task"]`
/// (what 2025-11-25 asks of messages about a task).
fn related(note: &str, task_id: &str) -> String {
    let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(note) else {
        return note.to_owned();
    };
    if let Some(Value::Object(params)) = message.get_mut("params") {
        tag_related(params, task_id);
    }
    Value::Object(message).to_string()
}

/// Adds `_meta["io.modelcontextprotocol/related-task"] = {taskId}` to `object` (a result, a
/// notification's params).
fn tag_related(object: &mut Map<String, Value>, task_id: &str) {
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(
            era::meta::RELATED_TASK.into(),
            serde_json::json!({ "taskId": task_id }),
        );
    }
}

/// A legacy `tasks/result` answer: the call's result (with the related-task `_meta`) or its
/// error.
fn legacy_result(task_id: &str, task: &Task, id: &Value) -> String {
    match &task.outcome {
        Some(Ok(Value::Object(result))) => {
            let mut result = result.clone();
            tag_related(&mut result, task_id);
            respond(id, &result)
        }
        Some(Err(failure)) => {
            let code = failure
                .get("code")
                .and_then(Value::as_i64)
                .unwrap_or(-32603);
            let message = failure
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the task failed");
            super::wire::error_with(id, code, message, failure.get("data"))
        }
        _ => error(
            id,
            -32602,
            &format!("Invalid params: task {task_id} was cancelled"),
        ),
    }
}

/// A fresh, unguessable task id (128 random bits), so that an id alone is no way into another
/// owner's task.
fn task_id() -> String {
    let mut bytes = [0u8; 16];
    if ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes).is_err() {
        // No random source: unique, if guessable (ownership is still checked).
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        bytes[..8].copy_from_slice(&n.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
