//! Asking the client for input in the middle of a request (2026-07-28, "multi round-trip
//! requests"): a handler answers [`Outcome::InputRequired`] with the requests it needs
//! answered (elicitation, sampling, roots) and a state of its own; the client asks its user or
//! model, then retries the request with the answers, and the handler runs again and finds them
//! in [`Input`].
//!
//! The state travels through the client, so the client could change it: the registry seals it
//! (HMAC-SHA256 under a key made when the registry is, bound to the method, the tool or prompt
//! name, the arguments and an expiry of ten minutes) and refuses a retry whose state is not the
//! one it sent (`-32602`), before the handler runs.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

/// The client's answers to the input requests of an earlier [`InputRequired`], and the state
/// the handler sent with them: what a retried request carries (empty on a first request).
#[derive(Debug, Default, Clone)]
pub struct Input {
    responses: Map<String, Value>,
    state: Option<Value>,
    capabilities: Option<Vec<String>>,
}

impl Input {
    pub(crate) fn new(
        responses: Map<String, Value>,
        state: Option<Value>,
        capabilities: Option<Vec<String>>,
    ) -> Self {
        Input {
            responses,
            state,
            capabilities,
        }
    }

    /// The client's answer to the request sent under `key`: an `ElicitResult`
    /// (`{action, content?}`), a `CreateMessageResult` or a `ListRootsResult`, as sent.
    pub fn response(&self, key: &str) -> Option<&Value> {
        self.responses.get(key)
    }

    /// What the user entered for the elicitation sent under `key`, when they accepted it
    /// (`{"action": "accept", "content": {..}}`); `None` when there is no answer, or the user
    /// declined or cancelled.
    pub fn accepted(&self, key: &str) -> Option<&Map<String, Value>> {
        let answer = self.responses.get(key)?;
        if answer.get("action").and_then(Value::as_str) != Some("accept") {
            return None;
        }
        answer.get("content").and_then(Value::as_object)
    }

    /// Every answer, by key.
    pub fn responses(&self) -> &Map<String, Value> {
        &self.responses
    }

    /// The state the handler sent with its last [`InputRequired`] (checked: the client cannot
    /// have changed it).
    pub fn state(&self) -> Option<&Value> {
        self.state.as_ref()
    }

    /// Whether the client declared `capability` (`"elicitation"`, `"sampling"`, `"roots"`) on
    /// this request: only requests it can answer reach it. `true` when the request declared
    /// none (a legacy request, whose capabilities were declared at `initialize`).
    pub fn client_can(&self, capability: &str) -> bool {
        self.capabilities
            .as_ref()
            .is_none_or(|declared| declared.iter().any(|c| c == capability))
    }
}

/// What a handler that may ask for input returns: its result, or the input it needs first.
#[derive(Debug)]
pub enum Outcome<T> {
    /// Done: the result.
    Complete(T),
    /// Not yet: ask the client these, then run again with the answers.
    InputRequired(InputRequired),
}

impl<T> From<InputRequired> for Outcome<T> {
    fn from(input: InputRequired) -> Self {
        Outcome::InputRequired(input)
    }
}

/// The requests a handler needs the client to answer, each under a key of the handler's
/// choosing, and a state to find again in [`Input::state`] when the client retries.
///
/// ```
/// use mcp_bindgen::server::InputRequired;
/// use serde_json::json;
///
/// let ask = InputRequired::new()
///     .elicit(
///         "confirm",
///         "Delete every enemy on the level?",
///         json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
///     )
///     .with_state(json!({"level": 3}));
/// assert_eq!(ask.keys().collect::<Vec<_>>(), ["confirm"]);
/// ```
#[derive(Debug, Default, Clone, PartialEq)]
pub struct InputRequired {
    pub(crate) requests: Map<String, Value>,
    pub(crate) state: Option<Value>,
}

impl InputRequired {
    /// No requests yet.
    pub fn new() -> Self {
        InputRequired::default()
    }

    /// Asks the user (`elicitation/create`, form mode) to fill `requested_schema` (a flat
    /// object schema of primitive properties), showing `message`.
    #[must_use]
    pub fn elicit(
        self,
        key: impl Into<String>,
        message: impl Into<String>,
        requested_schema: Value,
    ) -> Self {
        self.request(
            key,
            "elicitation/create",
            json!({"mode": "form", "message": message.into(), "requestedSchema": requested_schema}),
        )
    }

    /// Asks the client's model (`sampling/createMessage`, with `params` as that method takes
    /// them: `messages`, `maxTokens`, ...).
    #[must_use]
    pub fn sample(self, key: impl Into<String>, params: Value) -> Self {
        self.request(key, "sampling/createMessage", params)
    }

    /// Asks for the client's roots (`roots/list`).
    #[must_use]
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.request(key, "roots/list", json!({}))
    }

    /// Asks `method` with `params` (for methods the helpers above do not cover).
    #[must_use]
    pub fn request(mut self, key: impl Into<String>, method: &str, params: Value) -> Self {
        self.requests
            .insert(key.into(), json!({"method": method, "params": params}));
        self
    }

    /// State to find again in [`Input::state`] on the retry (sealed: the client cannot change
    /// it).
    #[must_use]
    pub fn with_state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// The keys asked, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.requests.keys().map(String::as_str)
    }

    /// Drops the requests whose capability the client did not declare (a request it cannot
    /// answer must not reach it).
    pub(crate) fn keep_answerable(&mut self, input: &Input) {
        self.requests.retain(|_, request| {
            let capability = match request.get("method").and_then(Value::as_str) {
                Some("elicitation/create") => "elicitation",
                Some("sampling/createMessage") => "sampling",
                Some("roots/list") => "roots",
                _ => return true,
            };
            input.client_can(capability)
        });
    }
}

/// How long a sealed state stays valid.
const STATE_TTL: Duration = Duration::from_secs(600);

/// Seals and opens request states: an HMAC-SHA256 key made when the registry is.
pub(crate) struct Sealer {
    key: ring::hmac::Key,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer")
    }
}

/// Why a `requestState` was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unsealed {
    /// Not a state this server sent (changed, forged, or sent by another server).
    Forged,
    /// A state of this server, for another request.
    Elsewhere,
    /// Older than its ten minutes.
    Expired,
}

impl std::fmt::Display for Unsealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unsealed::Forged => "requestState is not one this server sent (changed or forged)",
            Unsealed::Elsewhere => {
                "requestState belongs to another request (method, name or arguments differ)"
            }
            Unsealed::Expired => "requestState has expired: make the request again without it",
        })
    }
}

impl Sealer {
    /// A key from the system's random source; `None` when it has none.
    pub(crate) fn new() -> Option<Sealer> {
        let random = ring::rand::SystemRandom::new();
        let key = ring::hmac::Key::generate(ring::hmac::HMAC_SHA256, &random).ok()?;
        Some(Sealer { key })
    }

    /// `state`, bound to the request (`binding`: method, name and arguments) and an expiry:
    /// `v1.<payload>.<tag>`, both base64url.
    pub(crate) fn seal(&self, state: Option<&Value>, binding: &str) -> String {
        let expires = now() + STATE_TTL.as_secs();
        let payload = json!({"s": state, "b": digest(binding), "e": expires}).to_string();
        let payload = URL_SAFE_NO_PAD.encode(payload);
        let tag = ring::hmac::sign(&self.key, payload.as_bytes());
        format!("v1.{payload}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    }

    /// The state inside `sealed`, when this server sealed it for this request and it has not
    /// expired.
    pub(crate) fn open(&self, sealed: &str, binding: &str) -> Result<Option<Value>, Unsealed> {
        let rest = sealed.strip_prefix("v1.").ok_or(Unsealed::Forged)?;
        let (payload, tag) = rest.split_once('.').ok_or(Unsealed::Forged)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Unsealed::Forged)?;
        ring::hmac::verify(&self.key, payload.as_bytes(), &tag).map_err(|_| Unsealed::Forged)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| Unsealed::Forged)?;
        let payload: Value = serde_json::from_slice(&payload).map_err(|_| Unsealed::Forged)?;
        if payload["b"].as_str() != Some(&digest(binding)) {
            return Err(Unsealed::Elsewhere);
        }
        if payload["e"].as_u64().is_none_or(|expires| expires < now()) {
            return Err(Unsealed::Expired);
        }
        Ok(match payload.get("s") {
            None | Some(Value::Null) => None,
            Some(state) => Some(state.clone()),
        })
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// SHA-256 of the binding, base64url (the arguments are not repeated in the state).
fn digest(binding: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        binding.as_bytes(),
    ))
}

/// What a request's state is bound to: its method, the tool or prompt (or resource) it names,
/// and its arguments (their JSON, keys sorted).
pub(crate) fn binding(method: &str, name: &str, arguments: &Value) -> String {
    format!("{method}\n{name}\n{arguments}")
}

#[cfg(test)]
mod tests;
