//! An in-process [`ToolCaller`] for tests: it records every call and answers from a script.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::{CallToolResult, Error, ToolCaller};

/// One call a [`MockCaller`] received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// The tool name.
    pub name: String,
    /// The arguments object, exactly as it would go on the wire.
    pub arguments: Value,
}

type Responder =
    Box<dyn Fn(&str, &Map<String, Value>) -> Result<CallToolResult, Error> + Send + Sync>;

/// Records calls and answers them: first from queued results, then from a responder function
/// (by default, an empty structured result `{}`).
pub struct MockCaller {
    calls: Mutex<Vec<RecordedCall>>,
    queue: Mutex<VecDeque<Result<CallToolResult, Error>>>,
    responder: Responder,
}

impl std::fmt::Debug for MockCaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockCaller")
            .field("calls", &self.calls())
            .finish_non_exhaustive()
    }
}

impl Default for MockCaller {
    fn default() -> Self {
        MockCaller::new()
    }
}

impl MockCaller {
    /// A caller that answers every call with `structuredContent: {}`.
    pub fn new() -> Self {
        MockCaller::with_responder(|_, _| Ok(CallToolResult::structured(Value::Object(Map::new()))))
    }

    /// A caller that answers with `respond(name, arguments)`.
    pub fn with_responder(
        respond: impl Fn(&str, &Map<String, Value>) -> Result<CallToolResult, Error>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        MockCaller {
            calls: Mutex::new(Vec::new()),
            queue: Mutex::new(VecDeque::new()),
            responder: Box::new(respond),
        }
    }

    /// Queues the answer to the next call (answers are used in order, before the responder).
    pub fn push(&self, answer: Result<CallToolResult, Error>) -> &Self {
        lock(&self.queue).push_back(answer);
        self
    }

    /// Every call received so far.
    pub fn calls(&self) -> Vec<RecordedCall> {
        lock(&self.calls).clone()
    }

    /// The last call received.
    pub fn last_call(&self) -> Option<RecordedCall> {
        lock(&self.calls).last().cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl ToolCaller for MockCaller {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        lock(&self.calls).push(RecordedCall {
            name: name.to_owned(),
            arguments: Value::Object(arguments.clone()),
        });
        let queued = lock(&self.queue).pop_front();
        match queued {
            Some(answer) => answer,
            None => (self.responder)(name, &arguments),
        }
    }
}
