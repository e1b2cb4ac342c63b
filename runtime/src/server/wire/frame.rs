//! JSON-RPC framing: one message body in, a typed request (or what else it was) out, parsed
//! straight into place with serde visitors (no `Value` for the message, its `params` or their
//! `_meta`).

use std::borrow::Cow;

use serde_json::Value;

use super::reply::error_with;
use crate::JsonTree;
use crate::era::{self, VERSIONS};

/// A framed JSON-RPC request (one with an id and a method).
#[derive(Debug)]
pub(crate) struct Request {
    pub id: Value,
    /// The method; one the server answers is a static string (no allocation).
    pub method: Cow<'static, str>,
    /// The members of `params` the server reads (all `None` when `params` is absent or not an
    /// object).
    pub params: Params,
}

/// The members of a request's `params` that the server reads, parsed straight from the text
/// into place: no `Value` or map for `params` or `_meta`. `arguments` is a [`JsonTree`] (no
/// `Value` either), which the compiled argument check reads and the tool's struct is
/// deserialized from; members only a rare method reads are boxed `Value`s, so that a request
/// stays small to move.
/// Every other member is checked as strictly as a `Value` parse would check it, and dropped.
#[derive(Debug, Default)]
pub(crate) struct Params {
    /// Whether `params` is an object; when it is absent or not one, every member is `None`.
    pub object: bool,
    /// `name` (`tools/call`, `prompts/get`).
    pub name: Option<Text>,
    /// `arguments` (`tools/call`).
    pub arguments: Option<JsonTree>,
    /// `uri` (`resources/read`).
    pub uri: Option<Box<Value>>,
    /// `cursor` (`tools/list`).
    pub cursor: Option<Box<Value>>,
    /// `protocolVersion` (`initialize`).
    pub protocol_version: Option<Text>,
    /// `level` (`logging/setLevel`).
    pub level: Option<Text>,
    /// `notifications` (`subscriptions/listen`: the filter).
    pub notifications: Option<Box<Value>>,
    /// The members only completion and retried requests carry, boxed together.
    pub rare: Option<Box<Rare>>,
    /// `_meta`, when it is an object.
    pub meta: Option<Meta>,
}

/// Members of `params` few requests carry: `completion/complete`'s, and a 2026-07-28 retry's
/// answers to an `input_required` result.
#[derive(Debug, Default)]
pub(crate) struct Rare {
    /// `ref` (`completion/complete`: what is completed).
    pub reference: Option<Value>,
    /// `argument` (`completion/complete`: `{name, value}`).
    pub argument: Option<Value>,
    /// `context` (`completion/complete`: `{arguments}` already chosen).
    pub context: Option<Value>,
    /// `inputResponses` (a retry: the client's answers, by key).
    pub input_responses: Option<Value>,
    /// `requestState` (a retry: the state the server sent, verbatim).
    pub request_state: Option<Value>,
    /// `taskId` (`tasks/get`, `tasks/update`, `tasks/cancel`, `tasks/result`).
    pub task_id: Option<Value>,
    /// `task` (a legacy `tools/call` run as a task: `{ttl?}`).
    pub task: Option<Value>,
    /// `maxEvents` (`events/poll`: the most occurrences a page holds).
    pub max_events: Option<Value>,
    /// `maxAgeMs` (`events/poll`, `events/stream`: nothing older is replayed).
    pub max_age_ms: Option<Value>,
}

/// The keys of `params._meta` that the server reads.
#[derive(Debug, Default)]
pub(crate) struct Meta {
    /// [`era::meta::PROTOCOL_VERSION`].
    pub protocol_version: Option<Text>,
    /// [`era::meta::CLIENT_CAPABILITIES`].
    pub capabilities: Option<Capabilities>,
    /// [`era::meta::PROGRESS_TOKEN`] (any JSON; echoed in progress notifications).
    pub progress_token: Option<Box<Value>>,
    /// [`era::meta::LOG_LEVEL`].
    pub log_level: Option<Text>,
}

/// A member the server reads as a string: the string (static when it is a method or protocol
/// version the server knows, so that those allocate nothing), or any other JSON.
#[derive(Debug)]
pub(crate) enum Text {
    Str(Cow<'static, str>),
    NotAString,
}

/// The methods the server reads, as static strings (the protocol versions are [`VERSIONS`]).
const KNOWN_METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "logging/setLevel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "subscriptions/listen",
    "completion/complete",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// `text` as a static string when it is a method or protocol version the server knows.
fn known(text: &str) -> Option<&'static str> {
    KNOWN_METHODS
        .iter()
        .copied()
        .chain(VERSIONS.iter().map(|&(version, _)| version))
        .find(|known| *known == text)
}

impl Params {
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// The rare members (all `None` when none was sent).
    pub(crate) fn rare(&self) -> &Rare {
        static NONE: Rare = Rare {
            reference: None,
            argument: None,
            context: None,
            input_responses: None,
            request_state: None,
            task_id: None,
            task: None,
            max_events: None,
            max_age_ms: None,
        };
        self.rare.as_deref().unwrap_or(&NONE)
    }
}

impl Text {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(text) => Some(text),
            Text::NotAString => None,
        }
    }
}

/// `_meta`'s client capabilities: the names an object declares (their values are not read,
/// but for `extensions`, whose names are listed as `extensions/<name>`), or a value that is
/// not an object.
#[derive(Debug)]
pub(crate) enum Capabilities {
    Declared(Vec<String>),
    NotAnObject,
}

impl Capabilities {
    /// The declared names, when the capabilities are an object.
    pub(crate) fn declared(&self) -> Option<&[String]> {
        match self {
            Capabilities::Declared(names) => Some(names),
            Capabilities::NotAnObject => None,
        }
    }
}

/// What a message body is.
// Taken apart as soon as it is made; boxing the request would add an allocation per request.
#[allow(
    clippy::large_enum_variant,
    reason = "a per-message temporary; a Box would allocate on every request"
)]
pub(crate) enum Framed {
    Request(Request),
    /// A notification: no reply.
    NoReply,
    /// A client's response to a request the server sent it (no reply).
    Response(ClientResponse),
    /// Not a message we can take: the error to answer with (HTTP 400).
    Invalid(Rejection),
}

/// A JSON-RPC error answered before the request reaches a handler.
#[derive(Debug)]
pub(crate) struct Rejection {
    pub id: Value,
    pub code: i64,
    pub message: String,
    pub data: Option<Box<Value>>,
}

impl Rejection {
    pub(crate) fn new(id: &Value, code: i64, message: impl Into<String>) -> Self {
        Rejection {
            id: id.clone(),
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The JSON-RPC error response.
    pub(crate) fn text(&self) -> String {
        error_with(&self.id, self.code, &self.message, self.data.as_deref())
    }
}

/// A client's JSON-RPC response: its `result`, or its `error` object.
#[derive(Debug)]
pub(crate) struct ClientResponse {
    pub id: Value,
    pub outcome: Result<Value, Value>,
}

/// Frames one message: checks UTF-8, JSON, and the JSON-RPC shape. Batches are refused (MCP
/// 2025-06-18 removed them), as is anything that is neither a request, a notification (a
/// `method` and no `id`) nor a response (an `id` with a `result` or an `error`).
pub(crate) fn frame(body: &[u8]) -> Framed {
    let null = Value::Null;
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            return Framed::Invalid(Rejection::new(
                &null,
                -32700,
                format!(
                    "Parse error: the message is not UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            ));
        }
    };
    let mut envelope = Envelope::default();
    let mut parser = serde_json::Deserializer::from_str(text);
    let parsed = serde::de::DeserializeSeed::deserialize(InPlace(&mut envelope), &mut parser)
        .and_then(|message| parser.end().map(|()| message));
    match parsed {
        Ok(Message::Object) => {}
        Ok(Message::EmptyArray) => {
            return Framed::Invalid(Rejection::new(
                &null,
                -32600,
                "Invalid Request: an empty batch; send one JSON-RPC message object per request",
            ));
        }
        Ok(Message::Array) => {
            return Framed::Invalid(Rejection::new(
                &null,
                -32600,
                "Invalid Request: JSON-RPC batches are not supported (MCP removed them in \
                 2025-06-18); send one message object per request",
            ));
        }
        Ok(Message::Other) => {
            return Framed::Invalid(Rejection::new(
                &null,
                -32600,
                "Invalid Request: a JSON-RPC message is an object",
            ));
        }
        Err(e) => {
            return Framed::Invalid(Rejection::new(&null, -32700, format!("Parse error: {e}")));
        }
    }
    let Envelope {
        jsonrpc_2_0,
        id,
        method,
        params,
        result,
        error,
    } = envelope;
    let is_response = result.is_some() || error.is_some();
    let id = match id {
        None => {
            return match method {
                Some(Text::Str(_)) => Framed::NoReply,
                _ => Framed::Invalid(Rejection::new(
                    &null,
                    -32600,
                    "Invalid Request: a message needs a \"method\" (and a request an \"id\")",
                )),
            };
        }
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        Some(_) => {
            return Framed::Invalid(Rejection::new(
                &null,
                -32600,
                "Invalid Request: id must be a string or a number",
            ));
        }
    };
    if method.is_none() && is_response {
        // A response to a request the server sent during a call (see `Call::request`).
        let outcome = match (result, error) {
            (Some(result), _) => Ok(*result),
            (None, error) => Err(error.map_or(Value::Null, |e| *e)),
        };
        return Framed::Response(ClientResponse { id, outcome });
    }
    if !jsonrpc_2_0 {
        return Framed::Invalid(Rejection::new(
            &id,
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ));
    }
    let method = match method {
        Some(Text::Str(method)) => method,
        None => {
            return Framed::Invalid(Rejection::new(
                &id,
                -32600,
                "Invalid Request: missing method",
            ));
        }
        Some(_) => {
            return Framed::Invalid(Rejection::new(
                &id,
                -32600,
                "Invalid Request: method must be a string",
            ));
        }
    };
    Framed::Request(Request { id, method, params })
}

/// What a message body is, as parsed: an object (its members filled into an [`Envelope`] in
/// place), or what else the JSON was.
enum Message {
    Object,
    EmptyArray,
    Array,
    Other,
}

/// The members of a JSON-RPC message, typed (no `Value` or map for the whole message, its
/// `params` or their `_meta`); a member given twice keeps its last value, as a JSON object
/// parsed into a map does.
#[derive(Default)]
struct Envelope {
    /// Whether `jsonrpc` is the string "2.0".
    jsonrpc_2_0: bool,
    id: Option<Value>,
    method: Option<Text>,
    params: Params,
    result: Option<Box<Value>>,
    error: Option<Box<Value>>,
}

/// An enum of the member names an object's visitor reads (and `Other`), matched without
/// allocating; a name with escapes is matched as decoded, as a map key would be.
macro_rules! member_names {
    ($(#[$doc:meta])* $name:ident { $($text:pat => $variant:ident),* $(,)? }) => {
        $(#[$doc])*
        enum $name {
            $($variant,)*
            Other,
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Names;
                impl serde::de::Visitor<'_> for Names {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a member name")
                    }
                    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<$name, E> {
                        Ok(match name {
                            $($text => $name::$variant,)*
                            _ => $name::Other,
                        })
                    }
                }
                deserializer.deserialize_identifier(Names)
            }
        }
    };
}

member_names! {
    /// The members of a JSON-RPC message.
    Member {
        "jsonrpc" => Jsonrpc,
        "id" => Id,
        "method" => Method,
        "params" => Params,
        "result" => Result,
        "error" => Error,
    }
}

member_names! {
    /// The members of `params` the server reads.
    ParamsMember {
        "name" => Name,
        "arguments" => Arguments,
        "uri" => Uri,
        "cursor" => Cursor,
        "protocolVersion" => ProtocolVersion,
        "level" => Level,
        "notifications" => Notifications,
        "ref" => Ref,
        "argument" => Argument,
        "context" => Context,
        "inputResponses" => InputResponses,
        "requestState" => RequestState,
        "taskId" => TaskId,
        "task" => Task,
        "maxEvents" => MaxEvents,
        "maxAgeMs" => MaxAgeMs,
        "_meta" => Meta,
    }
}

member_names! {
    /// The keys of `params._meta` the server reads.
    MetaKey {
        era::meta::PROTOCOL_VERSION => ProtocolVersion,
        era::meta::CLIENT_CAPABILITIES => Capabilities,
        era::meta::PROGRESS_TOKEN => ProgressToken,
        era::meta::LOG_LEVEL => LogLevel,
    }
}

/// The `Visitor` methods for JSON that is neither an object nor a string: each returns
/// `$value`, after checking an array's elements (as strictly as a `Value` parse) and dropping
/// them.
macro_rules! neither_object_nor_string {
    ($value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok($value)
        }
    };
}

/// Any JSON value, parsed exactly as strictly as into a `Value` (numbers in range, string
/// escapes decoded, the same nesting limit), so that a message is valid JSON exactly when a
/// `Value` parse of it would succeed; then dropped, without allocating.
struct Skip;

impl<'de> serde::Deserialize<'de> for Skip {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Skip;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            neither_object_nor_string!(Skip);
            fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
                while map.next_key::<Skip>()?.is_some() {
                    map.next_value::<Skip>()?;
                }
                Ok(Skip)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Skips an object's members (see [`Skip`]).
fn skip_members<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_key::<Skip>()?.is_some() {
        map.next_value::<Skip>()?;
    }
    Ok(())
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            neither_object_nor_string!(Text::NotAString);
            fn visit_str<E>(self, text: &str) -> Result<Text, E> {
                Ok(Text::Str(match known(text) {
                    Some(known) => Cow::Borrowed(known),
                    None => Cow::Owned(text.to_owned()),
                }))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
                skip_members(map)?;
                Ok(Text::NotAString)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Whether a value is the string "2.0" (`jsonrpc`).
struct JsonRpc2(bool);

impl<'de> serde::Deserialize<'de> for JsonRpc2 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = JsonRpc2;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"2.0\"")
            }
            neither_object_nor_string!(JsonRpc2(false));
            fn visit_str<E>(self, text: &str) -> Result<JsonRpc2, E> {
                Ok(JsonRpc2(text == "2.0"))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<JsonRpc2, A::Error> {
                skip_members(map)?;
                Ok(JsonRpc2(false))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Deserializes into a place (`params`, `_meta`, the whole message): the parsed members are
/// written where they stay, instead of being returned and moved up through each level.
struct InPlace<'a, T>(&'a mut T);

/// A message, into its envelope; the seed's value says what the JSON was.
impl<'de> serde::de::DeserializeSeed<'de> for InPlace<'_, Envelope> {
    type Value = Message;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Message, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for InPlace<'_, Envelope> {
    type Value = Message;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_unit<E>(self) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        if seq.next_element::<Skip>()?.is_none() {
            return Ok(Message::EmptyArray);
        }
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Message::Array)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let envelope = self.0;
        while let Some(member) = map.next_key::<Member>()? {
            match member {
                Member::Jsonrpc => envelope.jsonrpc_2_0 = map.next_value::<JsonRpc2>()?.0,
                Member::Id => envelope.id = Some(map.next_value()?),
                Member::Method => envelope.method = Some(map.next_value()?),
                Member::Params => map.next_value_seed(InPlace(&mut envelope.params))?,
                Member::Result => envelope.result = Some(map.next_value()?),
                Member::Error => envelope.error = Some(map.next_value()?),
                Member::Other => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Message::Object)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for InPlace<'_, Params> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // `params` given twice: the last one counts, whole.
        *self.0 = Params::default();
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for InPlace<'_, Params> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("params")
    }

    neither_object_nor_string!(());

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let params = self.0;
        params.object = true;
        while let Some(member) = map.next_key::<ParamsMember>()? {
            // Never `Option<_>`: a `null` member is `Some(null)`.
            match member {
                ParamsMember::Name => params.name = Some(map.next_value()?),
                ParamsMember::Arguments => params.arguments = Some(map.next_value()?),
                ParamsMember::Uri => params.uri = Some(map.next_value()?),
                ParamsMember::Cursor => params.cursor = Some(map.next_value()?),
                ParamsMember::ProtocolVersion => params.protocol_version = Some(map.next_value()?),
                ParamsMember::Level => params.level = Some(map.next_value()?),
                ParamsMember::Notifications => params.notifications = Some(map.next_value()?),
                ParamsMember::Ref => params.rare_mut().reference = Some(map.next_value()?),
                ParamsMember::Argument => params.rare_mut().argument = Some(map.next_value()?),
                ParamsMember::Context => params.rare_mut().context = Some(map.next_value()?),
                ParamsMember::InputResponses => {
                    params.rare_mut().input_responses = Some(map.next_value()?);
                }
                ParamsMember::RequestState => {
                    params.rare_mut().request_state = Some(map.next_value()?);
                }
                ParamsMember::TaskId => params.rare_mut().task_id = Some(map.next_value()?),
                ParamsMember::Task => params.rare_mut().task = Some(map.next_value()?),
                ParamsMember::MaxEvents => params.rare_mut().max_events = Some(map.next_value()?),
                ParamsMember::MaxAgeMs => params.rare_mut().max_age_ms = Some(map.next_value()?),
                ParamsMember::Meta => map.next_value_seed(InPlace(&mut params.meta))?,
                ParamsMember::Other => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(())
    }
}

/// `params._meta`: `None` when it is not an object.
impl<'de> serde::de::DeserializeSeed<'de> for InPlace<'_, Option<Meta>> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = None;
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for InPlace<'_, Option<Meta>> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_meta")
    }

    neither_object_nor_string!(());

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let meta = self.0.insert(Meta::default());
        while let Some(key) = map.next_key::<MetaKey>()? {
            match key {
                MetaKey::ProtocolVersion => meta.protocol_version = Some(map.next_value()?),
                MetaKey::Capabilities => meta.capabilities = Some(map.next_value()?),
                MetaKey::ProgressToken => meta.progress_token = Some(map.next_value()?),
                MetaKey::LogLevel => meta.log_level = Some(map.next_value()?),
                MetaKey::Other => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(())
    }
}

impl<'de> serde::Deserialize<'de> for Capabilities {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Capabilities;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("client capabilities")
            }
            neither_object_nor_string!(Capabilities::NotAnObject);
            fn visit_str<E>(self, _: &str) -> Result<Capabilities, E> {
                Ok(Capabilities::NotAnObject)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Capabilities, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    if name == "extensions" {
                        // The extension names, each as `extensions/<name>`.
                        if let Value::Object(extensions) = map.next_value::<Value>()? {
                            names.extend(extensions.keys().map(|e| format!("extensions/{e}")));
                        }
                    } else {
                        map.next_value::<Skip>()?;
                    }
                    names.push(name);
                }
                Ok(Capabilities::Declared(names))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}
