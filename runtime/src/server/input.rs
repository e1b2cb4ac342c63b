//! Asking the client for input in the middle of a request (2026-07-28, "multi round-trip
//! requests"): a handler answers [`Outcome::InputRequired`] with the requests it needs
//! answered (elicitation, sampling, roots) and a state of its own; the client asks its user or
//! model, then retries the request with the answers, and the handler runs again and finds them
//! in [`Input`].
//!
//! The state travels through the client, so the client could read or change it: the registry
//! seals it (AES-256-GCM under a key made when the registry is: encrypted and authenticated,
//! bound to the method, the tool, prompt or resource, the arguments, the credential that made
//! the request and an expiry of ten minutes) and refuses a retry whose state is not the one it
//! sent for that request (`-32602`), before the handler runs.

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
pub(crate) const STATE_TTL: Duration = Duration::from_secs(600);

/// What every sealed state starts with: the format's version.
const VERSION: &str = "v2.";

/// Seals and opens request states with AES-256-GCM under a key made when the registry is: the
/// client can neither read a state nor change it, and a state opens only for the request it
/// was sealed for (method, name, arguments and owner) within [`STATE_TTL`].
pub(crate) struct Sealer {
    key: ring::aead::LessSafeKey,
    random: ring::rand::SystemRandom,
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
                "requestState belongs to another request (method, name, arguments or credential \
                 differ)"
            }
            Unsealed::Expired => "requestState has expired: make the request again without it",
        })
    }
}

impl Sealer {
    /// A key from the system's random source; `None` when it has none.
    pub(crate) fn new() -> Option<Sealer> {
        use ring::rand::SecureRandom as _;
        let random = ring::rand::SystemRandom::new();
        let mut key = [0u8; 32];
        random.fill(&mut key).ok()?;
        let key = ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &key).ok()?;
        Some(Sealer {
            key: ring::aead::LessSafeKey::new(key),
            random,
        })
    }

    /// `state`, bound to the request (`binding`) and an expiry, encrypted and authenticated:
    /// `v2.` and the base64url of a random nonce, the ciphertext and its tag. `None` when the
    /// system's random source fails.
    pub(crate) fn seal(&self, state: Option<&Value>, binding: &Binding) -> Option<String> {
        self.seal_until(state, binding, now() + STATE_TTL.as_secs())
    }

    fn seal_until(&self, state: Option<&Value>, binding: &Binding, expires: u64) -> Option<String> {
        use ring::rand::SecureRandom as _;
        let mut nonce = [0u8; ring::aead::NONCE_LEN];
        self.random.fill(&mut nonce).ok()?;
        let mut sealed = json!({"s": state, "b": binding.0, "e": expires})
            .to_string()
            .into_bytes();
        self.key
            .seal_in_place_append_tag(
                ring::aead::Nonce::assume_unique_for_key(nonce),
                ring::aead::Aad::from(VERSION),
                &mut sealed,
            )
            .ok()?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        Some(format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// The plain payload of a state this server sealed: `{s, b, e}`.
    fn payload(&self, sealed: &str) -> Result<Value, Unsealed> {
        let text = sealed.strip_prefix(VERSION).ok_or(Unsealed::Forged)?;
        let mut bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| Unsealed::Forged)?;
        if bytes.len() < ring::aead::NONCE_LEN {
            return Err(Unsealed::Forged);
        }
        let mut nonce = [0u8; ring::aead::NONCE_LEN];
        nonce.copy_from_slice(&bytes[..ring::aead::NONCE_LEN]);
        let plain = self
            .key
            .open_in_place(
                ring::aead::Nonce::assume_unique_for_key(nonce),
                ring::aead::Aad::from(VERSION),
                &mut bytes[ring::aead::NONCE_LEN..],
            )
            .map_err(|_| Unsealed::Forged)?;
        serde_json::from_slice(plain).map_err(|_| Unsealed::Forged)
    }

    /// The state inside `sealed`, when this server sealed it for this request and it has not
    /// expired.
    pub(crate) fn open(&self, sealed: &str, binding: &Binding) -> Result<Option<Value>, Unsealed> {
        let payload = self.payload(sealed)?;
        if payload["b"].as_str() != Some(binding.0.as_str()) {
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

/// What a request's state is bound to: the SHA-256 (base64url) of its method, the tool, prompt
/// or resource it names, its arguments in canonical JSON (keys sorted, so neither the client's
/// key order nor serde_json's map type changes it) and its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding(String);

impl Binding {
    pub(crate) fn new(
        method: &str,
        name: &str,
        arguments: &Value,
        owner: &super::owner::Owner,
    ) -> Binding {
        let arguments = mcp_bindgen_core::digest::canonical_value(arguments);
        let owner: &[u8] = owner.as_ref().map_or(&[], |owner| owner);
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        // Each part after its length, so that no two requests' parts run together alike.
        for part in [
            method.as_bytes(),
            name.as_bytes(),
            arguments.as_bytes(),
            owner,
        ] {
            context.update(&(part.len() as u64).to_le_bytes());
            context.update(part);
        }
        Binding(URL_SAFE_NO_PAD.encode(context.finish()))
    }
}

#[cfg(test)]
mod tests;
