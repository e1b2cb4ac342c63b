//! The session: what a client knows of its server for the life of a connection (the era
//! agreed, the server's info and capabilities, the tools' `x-mcp-header` parameters, the drift
//! checks) and how it writes a request in that era ([`Session::outgoing`]). Around it, by what
//! each does, written once for every transport over a [`Connection`] (the session and its
//! transport): `negotiate.rs` finds the era, `request.rs` runs one request to its result,
//! `lists.rs` fetches every page of a list, and this file's [`request`], [`call_tool`] and
//! [`call_tool_decoded`] are what a client asks (a request whose `-32020` refreshes the tool
//! list). What the server sends unasked is routed in `super::inbox`; a
//! [`Transport`](super::Transport) only moves messages.

mod lists;
mod negotiate;
mod request;

pub(crate) use lists::{catalog_list, pages, tool_list};
pub(crate) use negotiate::negotiate;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mcp_bindgen_core::param_headers::ParamHeader;
use serde_json::{Map, Value, json};

use request::request_loop;

use super::decode::{TypedResult, ValueResult};
use super::drift::Drift;
use super::outgoing::{MetaKeys, ModernKeys};
use super::transport::Transport;
use super::{CallOptions, Outgoing, Settings, lock};
use crate::era::{self, Era};
use crate::{CallToolResult, Error};

/// The negotiated version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub(crate) version: String,
    pub(crate) era: Era,
}

impl Negotiated {
    pub(crate) fn is_modern(&self) -> bool {
        self.era == Era::Stateless
    }
}

/// Session state both transports share.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) settings: Settings,
    next_id: AtomicU64,
    negotiated: Mutex<Option<Negotiated>>,
    server_info: Mutex<Value>,
    /// The server's `capabilities` (from `initialize` or `server/discover`).
    capabilities: Mutex<Value>,
    header_params: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// The drift checks of the generated modules this client serves.
    pub(crate) drift: Drift,
    /// Woken by each change to the tools the server announces, for the application's
    /// handlers (see [`super::changes`]).
    pub(crate) tools_changed: std::sync::Arc<tokio::sync::Notify>,
    /// The client capabilities with the tasks extension, for 2026-07-28 calls made as tasks.
    with_tasks: Value,
    /// Room for the server's requests answered at once ([`super::inbox::ANSWERING_AT_ONCE`]).
    pub(crate) answering: Arc<tokio::sync::Semaphore>,
}

impl Session {
    pub(crate) fn new(mut settings: Settings) -> Self {
        settings.capabilities = settings.declared();
        Session {
            drift: Drift::new(settings.drift_policy, settings.on_drift.clone()),
            next_id: AtomicU64::new(1),
            negotiated: Mutex::new(None),
            server_info: Mutex::new(Value::Null),
            capabilities: Mutex::new(Value::Null),
            header_params: Mutex::new(HashMap::new()),
            tools_changed: Arc::default(),
            answering: Arc::new(tokio::sync::Semaphore::new(super::inbox::ANSWERING_AT_ONCE)),
            with_tasks: {
                let mut capabilities = settings.capabilities.clone();
                if let Value::Object(map) = &mut capabilities {
                    let extensions = map
                        .entry("extensions")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(extensions) = extensions {
                        extensions.insert(era::TASKS_EXTENSION.into(), json!({}));
                    }
                }
                capabilities
            },
            settings,
        }
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.negotiated).clone()
    }

    pub(crate) fn set_negotiated(&self, version: String, era: Era) {
        *lock(&self.negotiated) = Some(Negotiated { version, era });
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        lock(&self.negotiated).as_ref().map(|n| n.version.clone())
    }

    pub(crate) fn server_info(&self) -> Value {
        lock(&self.server_info).clone()
    }

    pub(crate) fn set_server_info(&self, info: Value) {
        *lock(&self.server_info) = info;
    }

    pub(crate) fn capabilities(&self) -> Value {
        lock(&self.capabilities).clone()
    }

    pub(crate) fn set_capabilities(&self, capabilities: Value) {
        *lock(&self.capabilities) = capabilities;
    }

    /// Whether the server says it announces changes to its tools (`tools.listChanged`).
    pub(crate) fn announces_tool_changes(&self) -> bool {
        lock(&self.capabilities)["tools"]["listChanged"] == Value::Bool(true)
    }

    /// The server's tools changed (a `list_changed` notification, or a listen stream
    /// reopened after a gap in which one may have been missed): the drift checks are stale,
    /// and the application's handlers get the new list.
    pub(crate) fn tools_changed(&self) {
        self.drift.list_changed();
        if !self.settings.on_tools_changed.is_empty() {
            self.tools_changed.notify_one();
        }
    }

    /// The `clientInfo` object.
    pub(crate) fn client_info(&self) -> Value {
        json!({"name": self.settings.client_name, "version": self.settings.client_version})
    }

    /// The `initialize` params for `version`.
    pub(crate) fn initialize_params(&self, version: &str) -> Value {
        json!({
            "protocolVersion": version,
            "capabilities": self.settings.capabilities,
            "clientInfo": self.client_info(),
        })
    }

    /// A JSON-RPC request, written: `params` with the modern `_meta` keys when `version` is a
    /// 2026-07-28 one, and the `progressToken` when there is one.
    pub(crate) fn outgoing<'a>(
        &self,
        id: u64,
        method: &'a str,
        params: &'a Value,
        version: Option<&Negotiated>,
        progress_token: Option<u64>,
        as_task: bool,
    ) -> Result<Outgoing<'a>, Error> {
        let keys = MetaKeys {
            modern: version.filter(|n| n.is_modern()).map(|n| ModernKeys {
                version: &n.version,
                capabilities: if as_task {
                    &self.with_tasks
                } else {
                    &self.settings.capabilities
                },
                client_name: &self.settings.client_name,
                client_version: &self.settings.client_version,
            }),
            progress_token,
        };
        let mut request = Outgoing::new(id, method, params, keys)?;
        if method == "tools/call"
            && version.is_some_and(Negotiated::is_modern)
            && let Some(tool) = params["name"].as_str()
            && let Some(params_of_tool) = lock(&self.header_params).get(tool)
        {
            request.mirrored = params_of_tool
                .iter()
                .filter_map(|param| {
                    let value = param.argument(&params["arguments"])?;
                    Some((param.name.clone(), header_text(value)?))
                })
                .collect();
        }
        request.era = version.cloned();
        Ok(request)
    }
}

/// A session and the transport that carries it: what every rule of this file works on, and
/// what a client ([`super::McpClient`]) holds.
#[derive(Debug)]
pub(crate) struct Connection<T> {
    pub(crate) session: Arc<Session>,
    pub(crate) transport: T,
    /// What runs beside the requests on the client's behalf (the application's tool-change
    /// handlers): ended with the connection.
    pub(crate) tasks: Mutex<Vec<tokio::task::AbortHandle>>,
}

impl<T> Connection<T> {
    pub(crate) fn new(session: Arc<Session>, transport: T) -> Self {
        Connection {
            session,
            transport,
            tasks: Mutex::new(Vec::new()),
        }
    }
}

impl<T> Drop for Connection<T> {
    fn drop(&mut self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}

/// Sends one request through `transport` and returns its `result`, with the rules of both
/// eras: the modern `_meta`, a retry with another version on `-32022`, a retry after
/// refreshing the tool list on `-32020` for `tools/call`, and the rounds of `input_required`.
pub(crate) async fn request<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    params: Value,
    options: &CallOptions,
) -> Result<Value, Error> {
    let refresh = || async { tool_list(conn).await.map(|_| ()) };
    request_loop(conn, method, params, options, refresh, &ValueResult).await
}

/// `tools/call` over `client`, its result read as the runtime's lenient [`CallToolResult`]:
/// what both transports' `call_tool_with` do.
pub(crate) async fn call_tool<T: Transport>(
    conn: &Connection<T>,
    name: &str,
    arguments: Map<String, Value>,
    options: &CallOptions,
) -> Result<CallToolResult, Error> {
    let result = request(
        conn,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        options,
    )
    .await?;
    serde_json::from_value(result).map_err(|e| {
        Error::transport_source(
            "tools/call answered with a result that is not a CallToolResult",
            e,
        )
    })
}

/// `tools/call` over `client`, its result decoded into `T` straight from the response's bytes
/// (see [`decode`]): what both transports' `call_tool_decoded` do.
pub(crate) async fn call_tool_decoded<C: Transport, T: serde::de::DeserializeOwned + Send>(
    conn: &Connection<C>,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<T, Error> {
    let refresh = || async { tool_list(conn).await.map(|_| ()) };
    let params = json!({"name": name, "arguments": arguments});
    let options = CallOptions::default();
    let decoder = TypedResult::<T>::new(name);
    request_loop(conn, "tools/call", params, &options, refresh, &decoder).await
}

/// An `x-mcp-header` argument as its header carries it (strings encoded where they must be),
/// `None` for a value no header can carry.
pub(crate) fn header_text(value: &Value) -> Option<String> {
    era::header_value::argument_text(value).map(|text| era::header_value::encode(&text))
}

#[cfg(test)]
mod tests;
