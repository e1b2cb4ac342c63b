//! The builder both transports share: the settings every client has (who it is, its
//! timeout, which era it speaks, its handlers), with the transport's own options beside them
//! ([`HttpOptions`](super::http::HttpOptions), [`StdioOptions`](super::stdio::StdioOptions)).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::drift::DriftHandler;
use super::{LogHandler, Protocol, RequestHandler, ToolsChangedHandler};
use crate::Error;

/// Settings for a client: those every transport has, here, and the transport's own in `O`
/// (see [`HttpClientBuilder`](super::HttpClientBuilder) and
/// [`StdioClientBuilder`](super::StdioClientBuilder)).
#[derive(Clone)]
pub struct ClientBuilder<O> {
    pub(crate) options: O,
    pub(crate) settings: Settings,
}

impl<O: std::fmt::Debug> std::fmt::Debug for ClientBuilder<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("options", &self.options)
            .field("settings", &self.settings)
            .finish()
    }
}

impl<O> ClientBuilder<O> {
    pub(crate) fn with(options: O) -> Self {
        ClientBuilder {
            options,
            settings: Settings::default(),
        }
    }

    /// The client's name and version, sent as `clientInfo` (default: this crate's).
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.settings.client_name = name.into();
        self.settings.client_version = version.into();
        self
    }

    /// The largest message the server may send (default 64 MiB): one HTTP response body, one
    /// event of a stream. A larger one fails its request with [`Error::Transport`] naming the
    /// limit as soon as the limit is passed (at once when `Content-Length` says so), without
    /// reading the rest into memory; the client stays usable. An error response's body is
    /// read up to 64 KiB, for its message.
    ///
    /// [`Error::Transport`]: crate::Error::Transport
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_message_bytes = bytes;
        self
    }

    /// The client capabilities declared to the server (default `{}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.settings.capabilities = capabilities;
        self
    }

    /// How long one request may take before it fails with [`Error::Timeout`] and is
    /// cancelled on the server (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.settings.timeout = timeout;
        self
    }

    /// Which protocol era or version to speak (default
    /// [`Protocol::Auto`](super::Protocol::Auto): modern if the server speaks it,
    /// else legacy).
    pub fn protocol(mut self, protocol: super::Protocol) -> Self {
        self.settings.protocol = protocol;
        self
    }

    /// Receives the server's log notifications (unless a call has its own handler).
    pub fn on_log(mut self, handler: impl Fn(super::LogMessage) + Send + Sync + 'static) -> Self {
        self.settings.log = Some(Arc::new(handler));
        self
    }

    /// Answers the server's requests (elicitation, sampling, roots, ...), in both eras.
    /// `ping` is answered by the client itself, never passed here; without a handler,
    /// everything else gets `-32601` (method not found). A server asks only what the client
    /// declares: declare what this handler answers with [`capabilities`](Self::capabilities),
    /// or use [`on_elicitation`](Self::on_elicitation), [`on_sampling`](Self::on_sampling) and
    /// [`on_roots`](Self::on_roots), which declare theirs (and are asked before this one).
    /// At most 32 of the server's requests are answered at once (handlers running, off the
    /// I/O threads); one more is answered `-32603` at once.
    pub fn on_request(
        mut self,
        handler: impl Fn(&str, &Value) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Self {
        self.settings.requests = Some(Arc::new(handler));
        self
    }

    /// Answers the server's `elicitation/create` requests (a question for the user: the
    /// handler gets the request's params and returns the result, `{"action": "accept",
    /// "content": {..}}`, `decline` or `cancel`), in both eras, and declares the `elicitation`
    /// capability, so that the server knows it may ask.
    pub fn on_elicitation(
        self,
        handler: impl Fn(&Value) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Self {
        self.answering("elicitation/create", "elicitation", handler)
    }

    /// Answers the server's `sampling/createMessage` requests (a completion from the
    /// application's model), in both eras, and declares the `sampling` capability.
    pub fn on_sampling(
        self,
        handler: impl Fn(&Value) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Self {
        self.answering("sampling/createMessage", "sampling", handler)
    }

    /// Answers the server's `roots/list` requests (`{"roots": [{"uri": "file:///..."}]}`), in
    /// both eras, and declares the `roots` capability.
    pub fn on_roots(
        self,
        handler: impl Fn(&Value) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Self {
        self.answering("roots/list", "roots", handler)
    }

    fn answering(
        mut self,
        method: &'static str,
        capability: &'static str,
        handler: impl Fn(&Value) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Self {
        self.settings.answers.retain(|a| a.method != method);
        self.settings.answers.push(Answers {
            method,
            capability,
            handler: Arc::new(handler),
        });
        self
    }

    /// What generated clients do when the server's tools changed since they were
    /// generated (default [`DriftPolicy::Warn`](crate::DriftPolicy::Warn): report, and
    /// call). See [`crate::drift`].
    pub fn drift_policy(mut self, policy: crate::DriftPolicy) -> Self {
        self.settings.drift_policy = policy;
        self
    }

    /// Receives each drift report that found changes (they also go to `log`: `warn` when
    /// one breaks a call, else `info`).
    pub fn on_drift(
        mut self,
        handler: impl Fn(&crate::DriftReport) + Send + Sync + 'static,
    ) -> Self {
        self.settings.on_drift = Some(Arc::new(handler));
        self
    }

    /// Receives the server's new tool list each time it announces that its tools changed
    /// (the legacy era's `notifications/tools/list_changed`; in 2026-07-28, the
    /// `subscriptions/listen` stream the HTTP client opens when the server advertises
    /// `tools.listChanged`). The list is fetched once per announcement, however many
    /// handlers there are, and handed to each in the order they were added, on a blocking
    /// thread of the client's I/O runtime. Announcements that come while a list is being
    /// fetched are answered by one more fetch. Generated clients' drift checks go stale on
    /// the same announcements, with or without a handler.
    pub fn on_tools_changed(
        mut self,
        handler: impl Fn(&super::ToolList) + Send + Sync + 'static,
    ) -> Self {
        self.settings.on_tools_changed.push(Arc::new(handler));
        self
    }
}

/// A handler of one method of the server's: its params to its result.
pub(crate) type MethodHandler = Arc<dyn Fn(&Value) -> Result<Value, Error> + Send + Sync>;

/// A handler of one of the server's requests, and the client capability it implies.
#[derive(Clone)]
pub(crate) struct Answers {
    pub(crate) method: &'static str,
    pub(crate) capability: &'static str,
    pub(crate) handler: MethodHandler,
}

impl Settings {
    /// The capabilities to declare: those set, and those the method handlers imply (an
    /// explicit declaration of the same capability wins).
    pub(crate) fn declared(&self) -> Value {
        let mut capabilities = self.capabilities.clone();
        if let Value::Object(map) = &mut capabilities {
            for answers in &self.answers {
                map.entry(answers.capability)
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
            }
        }
        capabilities
    }
}

/// Builder settings both transports share.
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) client_name: String,
    pub(crate) client_version: String,
    pub(crate) capabilities: Value,
    pub(crate) timeout: Duration,
    pub(crate) protocol: Protocol,
    pub(crate) log: Option<LogHandler>,
    pub(crate) requests: Option<RequestHandler>,
    /// The handlers of one method each, and the capability each declares.
    pub(crate) answers: Vec<Answers>,
    pub(crate) drift_policy: crate::DriftPolicy,
    pub(crate) on_drift: Option<DriftHandler>,
    pub(crate) on_tools_changed: Vec<ToolsChangedHandler>,
    pub(crate) max_message_bytes: usize,
}

/// The default of [`ClientBuilder::max_message_bytes`]: 64 MiB (a skill's 16 MiB of files in
/// base64 fits, with room).
pub(crate) const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            capabilities: json!({}),
            timeout: Duration::from_secs(30),
            protocol: Protocol::Auto,
            log: None,
            requests: None,
            answers: Vec::new(),
            drift_policy: crate::DriftPolicy::default(),
            on_drift: None,
            on_tools_changed: Vec::new(),
            max_message_bytes: MAX_MESSAGE_BYTES,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("client_name", &self.client_name)
            .field("client_version", &self.client_version)
            .field("capabilities", &self.capabilities)
            .field("timeout", &self.timeout)
            .field("protocol", &self.protocol)
            .field("log", &self.log.as_ref().map(|_| "<handler>"))
            .field("requests", &self.requests.as_ref().map(|_| "<handler>"))
            .field(
                "answers",
                &self.answers.iter().map(|a| a.method).collect::<Vec<_>>(),
            )
            .field("drift_policy", &self.drift_policy)
            .field("on_drift", &self.on_drift.as_ref().map(|_| "<handler>"))
            .field("on_tools_changed", &self.on_tools_changed.len())
            .finish()
    }
}
