//! The tool registry and `dispatch`: JSON-RPC text in, JSON-RPC text out, in both protocol
//! eras (the legacy `initialize` handshake, MCP 2024-11-05 to 2025-11-25, and the stateless
//! 2026-07-28 revision, told apart per request by its `params._meta`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::{Answer, CallHandler, Handler, ToolDefinition, ToolError, ToolOutput, ToolResult};
use crate::JsonTree;
use crate::era::{self, LogLevel};
use crate::schema::{Json, Kind};

/// Legacy protocol versions `initialize` negotiates, newest first.
pub(crate) const SUPPORTED_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The protocol era of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2024-11-05 to 2025-11-25: `initialize`, then requests without `_meta`.
    Legacy,
    /// 2026-07-28: every request carries its version and client capabilities in `_meta`.
    Modern,
}

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
    /// `_meta`, when it is an object.
    pub meta: Option<Meta>,
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

/// The methods and protocol versions the server reads, as static strings.
const KNOWN: &[&str] = &[
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
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// A duration in whole microseconds, for trace fields.
#[cfg(feature = "tracing")]
fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// What the server advertises, the same in both eras (`initialize` and `server/discover`), and
/// each part is answered in both: tools; log messages (`logging/setLevel` in the legacy era, the
/// request's log level in 2026-07-28); prompts and resources as empty lists (a tools server
/// has none, and clients that probe them find a consistent server).
fn capabilities() -> Value {
    serde_json::json!({
        "tools": {"listChanged": false},
        "logging": {},
        "prompts": {"listChanged": false},
        "resources": {"listChanged": false},
    })
}

impl Text {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(text) => Some(text),
            Text::NotAString => None,
        }
    }
}

/// `_meta`'s client capabilities: the names an object declares (their values are not read), or
/// a value that is not an object.
#[derive(Debug)]
pub(crate) enum Capabilities {
    Declared(Vec<String>),
    NotAnObject,
}

impl Capabilities {
    /// The declared names, when the capabilities are an object.
    fn declared(&self) -> Option<&[String]> {
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
    fn new(id: &Value, code: i64, message: impl Into<String>) -> Self {
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

/// Requests the server sent to clients during calls, waiting for their responses, by id.
#[derive(Default)]
pub(crate) struct Waiters {
    next: AtomicU64,
    waiting: Mutex<HashMap<String, std::sync::mpsc::SyncSender<Result<Value, Value>>>>,
}

impl Waiters {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, std::sync::mpsc::SyncSender<Result<Value, Value>>>>
    {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh request id and the receiver its response will arrive on.
    fn wait(&self) -> (String, std::sync::mpsc::Receiver<Result<Value, Value>>) {
        let id = format!("mcp-bindgen-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.lock().insert(id.clone(), tx);
        (id, rx)
    }

    fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Hands a client's response to the call waiting for it; returns whether one was. A
    /// response nobody waits for (an unknown id, a call already answered) is dropped.
    pub(crate) fn deliver(&self, response: ClientResponse) -> bool {
        let Value::String(id) = &response.id else {
            return false;
        };
        let Some(waiter) = self.lock().remove(id) else {
            return false;
        };
        waiter.try_send(response.outcome).is_ok()
    }
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
/// escapes decoded, the same nesting limit), so that what is valid JSON in a message is what it
/// was when the whole message was one `Value`; then dropped, without allocating.
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
                Ok(Text::Str(
                    match KNOWN.iter().find(|known| **known == text) {
                        Some(known) => Cow::Borrowed(known),
                        None => Cow::Owned(text.to_owned()),
                    },
                ))
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
struct Is2_0(bool);

impl<'de> serde::Deserialize<'de> for Is2_0 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Is2_0;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"2.0\"")
            }
            neither_object_nor_string!(Is2_0(false));
            fn visit_str<E>(self, text: &str) -> Result<Is2_0, E> {
                Ok(Is2_0(text == "2.0"))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Is2_0, A::Error> {
                skip_members(map)?;
                Ok(Is2_0(false))
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
                Member::Jsonrpc => envelope.jsonrpc_2_0 = map.next_value::<Is2_0>()?.0,
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
                    map.next_value::<Skip>()?;
                    names.push(name);
                }
                Ok(Capabilities::Declared(names))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The `Mcp-*` headers of an HTTP request, for the era checks (`None` over stdio).
#[derive(Debug, Default)]
pub(crate) struct Headers {
    pub version: Option<String>,
    pub method: Option<String>,
    pub name: Option<String>,
    /// `Mcp-Param-*` headers: the lowercase suffix and the raw value.
    pub params: Vec<(String, String)>,
}

/// Which era a request belongs to, and whether its `_meta` and headers are consistent
/// (`basic/versioning.mdx`, `basic/transports/streamable-http.mdx` of 2026-07-28). Errors are
/// answered with HTTP 400.
pub(crate) fn classify(request: &Request, headers: Option<&Headers>) -> Result<Era, Rejection> {
    let id = &request.id;
    let meta = request.params.meta.as_ref();
    let claim = meta.and_then(|m| m.protocol_version.as_ref());
    let header_version = headers.and_then(|h| h.version.as_deref());
    let header_modern = header_version.is_some_and(era::is_modern);
    let mismatch = |what: String| {
        Rejection::new(
            id,
            era::code::HEADER_MISMATCH,
            format!("Bad Request: the request headers and body disagree: {what}"),
        )
    };
    let claims_modern = claim.and_then(Text::as_str).is_some_and(era::is_modern);
    if request.method == "initialize" && !claims_modern {
        if header_modern {
            return Err(mismatch(
                "an initialize request (legacy handshake) came with a 2026-07-28 \
                 MCP-Protocol-Version header"
                    .into(),
            ));
        }
        return Ok(Era::Legacy);
    }
    let Some(claim) = claim else {
        if header_modern || request.method == "server/discover" {
            let missing = match meta {
                None => "_meta".to_owned(),
                Some(m) if m.capabilities.is_none() => format!(
                    "{}, {}",
                    era::meta::PROTOCOL_VERSION,
                    era::meta::CLIENT_CAPABILITIES
                ),
                Some(_) => era::meta::PROTOCOL_VERSION.to_owned(),
            };
            let mut r = Rejection::new(
                id,
                -32602,
                format!(
                    "Invalid params: a {} request needs params._meta with \
                     {} and {}; missing: {missing}",
                    era::LATEST_MODERN,
                    era::meta::PROTOCOL_VERSION,
                    era::meta::CLIENT_CAPABILITIES
                ),
            );
            r.data = Some(Box::new(serde_json::json!({"missing": missing})));
            return Err(r);
        }
        if let Some(version) = header_version
            && !era::is_supported(version)
        {
            return Err(unsupported(id, version));
        }
        return Ok(Era::Legacy);
    };
    let meta = meta.expect("a claim is in _meta");
    let Some(version) = claim.as_str() else {
        return Err(Rejection::new(
            id,
            -32602,
            format!(
                "Invalid params: _meta[\"{}\"] must be a protocol version string",
                era::meta::PROTOCOL_VERSION
            ),
        ));
    };
    if meta
        .capabilities
        .as_ref()
        .and_then(Capabilities::declared)
        .is_none()
    {
        return Err(Rejection::new(
            id,
            -32602,
            format!(
                "Invalid params: _meta[\"{}\"] is required (an object; {{}} when the client \
                 declares none)",
                era::meta::CLIENT_CAPABILITIES
            ),
        ));
    }
    if let Some(header) = header_version
        && header != version
    {
        return Err(mismatch(format!(
            "_meta names protocol version {version} but the MCP-Protocol-Version header names \
             {header}"
        )));
    }
    if !era::is_modern(version) {
        if era::is_supported(version) {
            return Ok(Era::Legacy);
        }
        return Err(unsupported(id, version));
    }
    if let Some(headers) = headers {
        if header_version.is_none() {
            return Err(mismatch(
                "the MCP-Protocol-Version header is required on every request".into(),
            ));
        }
        match headers.method.as_deref() {
            None => {
                return Err(mismatch(format!(
                    "the body names method {} but the Mcp-Method header is absent",
                    request.method
                )));
            }
            Some(m) if m != request.method => {
                return Err(mismatch(format!(
                    "the body names method {} but the Mcp-Method header names {m}",
                    request.method
                )));
            }
            Some(_) => {}
        }
        let params = &request.params;
        let field = match &*request.method {
            "tools/call" | "prompts/get" => {
                Some(("name", params.name.as_ref().and_then(Text::as_str)))
            }
            "resources/read" => Some(("uri", params.uri.as_deref().and_then(Value::as_str))),
            _ => None,
        };
        if let Some((field, Some(body))) = field {
            match headers.name.as_deref() {
                None => {
                    return Err(mismatch(format!(
                        "the body carries params.{field}={body:?} but the Mcp-Name header is \
                         absent"
                    )));
                }
                Some(raw) => match era::header_value::decode(raw) {
                    None => {
                        return Err(mismatch(
                            "the Mcp-Name header carries an invalid =?base64?...?= value".into(),
                        ));
                    }
                    Some(name) if name != body => {
                        return Err(mismatch(format!(
                            "the body carries params.{field}={body:?} but the Mcp-Name header \
                             names {name:?}"
                        )));
                    }
                    Some(_) => {}
                },
            }
        }
    }
    Ok(Era::Modern)
}

fn unsupported(id: &Value, requested: &str) -> Rejection {
    let mut r = Rejection::new(
        id,
        era::code::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested:?}; supported: {}",
            era::ALL_VERSIONS.join(", ")
        ),
    );
    r.data = Some(Box::new(serde_json::json!({
        "supported": era::ALL_VERSIONS,
        "requested": requested,
    })));
    r
}

/// A reply and the HTTP status it goes out with.
#[derive(Debug)]
pub(crate) struct Reply {
    pub text: String,
    pub status: u16,
}

/// What a call sends back to its transport, in order: notifications, then one answer.
#[derive(Debug)]
pub(crate) enum Out {
    /// A notification (progress, log) for this request's stream.
    Note(String),
    /// The call was deferred to a later frame; its answer comes within this time.
    Deferred(Duration),
    /// The answer.
    Done(Reply),
}

/// The sending side of a request's reply channel. Unbounded: sending never blocks the game.
pub(crate) type Outlet = mpsc::UnboundedSender<Out>;

/// A request on its way to a handler, with where its answer goes.
pub(crate) struct Incoming {
    pub request: Request,
    pub era: Era,
    /// Where notifications and a deferred answer go; `None` when the caller takes the answer
    /// from `run`'s return value and the tool answers before `run` returns.
    pub outlet: Option<Outlet>,
    /// Whether the transport can carry notifications before the answer (an SSE answer, or
    /// stdio lines).
    pub streamable: bool,
    /// The `Mcp-Param-*` headers of an HTTP request, checked against the tool's parameters
    /// marked `x-mcp-header` (modern era); `None` over stdio.
    pub param_headers: Option<Vec<(String, String)>>,
    /// Whether a call may send requests to the client on its stream and get the responses
    /// back on later frames (legacy era over HTTP, with an SSE answer).
    pub requests: bool,
    /// When the HTTP server queued the request (its queue wait is traced); `None` when it
    /// was dispatched at once.
    #[cfg(feature = "tracing")]
    pub received: Option<Instant>,
}

type Now<Ctx> = Box<dyn FnMut(&mut Ctx, JsonTree) -> Result<Answer, ToolError> + Send>;
type Start<Ctx> = Box<dyn FnMut(&mut Ctx, JsonTree, Arc<Slot>) -> Result<(), ToolError> + Send>;

enum Run<Ctx> {
    /// A [`Handler`]: answers before it returns.
    Now(Now<Ctx>),
    /// A [`CallHandler`]: may report, and may answer on a later frame, within the deadline.
    Call(Start<Ctx>, Duration, bool),
}

struct Entry<Ctx> {
    def: ToolDefinition,
    /// The input schema, compiled once, checked against each call's arguments.
    input: crate::CompiledSchema,
    run: Run<Ctx>,
    /// Client capabilities a 2026-07-28 request must declare to call this tool.
    requires: Vec<String>,
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
    outstanding: Vec<Arc<Slot>>,
    /// Requests sent to clients during calls, waiting for their responses.
    pub(crate) waiters: Arc<Waiters>,
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
        }
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

    /// How long a 2026-07-28 client may cache `tools/list` (its `ttlMs`; default 0, since
    /// tools may be registered at any time and no `list_changed` notification is sent).
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

    /// Registers the tool `T`, whose handler gets a [`Call`] to report progress and log lines
    /// through and to answer with, now or on a later frame. A call not answered within
    /// `deadline` is answered with a tool error (code `deadline`) by the frame that notices.
    pub fn register_call<T: CallHandler<Ctx>>(&mut self, deadline: Duration) -> &mut Self {
        let def = ToolDefinition::of::<T, T::Output>();
        let wrap = T::Output::output_schema().is_some_and(|(_, wrap)| wrap);
        let start: Start<Ctx> = Box::new(move |ctx, arguments, slot| {
            let args: T = parse_arguments::<T>(&arguments)?;
            args.start(
                ctx,
                Call {
                    slot,
                    output: PhantomData,
                },
            );
            Ok(())
        });
        self.insert(def, Run::Call(start, deadline, wrap))
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
        let entry = Entry {
            input: crate::CompiledSchema::new(&Value::Object(def.input_schema.clone())),
            def,
            run,
            requires: Vec::new(),
        };
        match self.index.get(&entry.def.name) {
            Some(&i) => self.entries[i] = entry,
            None => {
                self.index
                    .insert(entry.def.name.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        self
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
        self.dispatch_with(ctx, text.as_bytes(), false, |_| {})
    }

    /// `dispatch`, handing each notification to `note` before the reply.
    pub(crate) fn dispatch_with(
        &mut self,
        ctx: &mut Ctx,
        text: &[u8],
        streamable: bool,
        mut note: impl FnMut(String),
    ) -> Option<String> {
        let request = match frame(text) {
            Framed::Request(request) => request,
            Framed::NoReply => return None,
            Framed::Response(response) => {
                self.waiters.deliver(response);
                return None;
            }
            Framed::Invalid(rejection) => return Some(rejection.text()),
        };
        let era = match classify(&request, None) {
            Ok(era) => era,
            Err(rejection) => return Some(rejection.text()),
        };
        // A channel only for the tools that answer through one.
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
                #[cfg(feature = "tracing")]
                received: None,
            },
        );
        let Some(replies) = &mut replies else {
            return reply.map(|r| r.text);
        };
        if let Some(reply) = reply {
            return Some(reply.text);
        }
        loop {
            match replies.try_recv() {
                Ok(Out::Note(text)) => note(text),
                Ok(Out::Done(reply)) => return Some(reply.text),
                Ok(Out::Deferred(_)) | Err(_) => break,
            }
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
            Ok(Out::Done(reply)) => Some(reply.text),
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
                .is_some_and(|&i| matches!(self.entries[i].run, Run::Call(..)))
    }

    /// Runs one framed, classified request. Returns its answer when it has one now; a
    /// [`CallHandler`] call answers through `incoming.outlet` instead (with any notifications
    /// before), now or on a later frame, and needs one.
    pub(crate) fn run(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        if incoming.request.method == "tools/call" {
            return self.call(ctx, incoming);
        }
        let Incoming { request, era, .. } = incoming;
        let id = &request.id;
        let modern = era == Era::Modern;
        let (text, status) = match (era, &*request.method) {
            (Era::Legacy, "initialize") => (self.initialize(id, &request.params), 200),
            (Era::Legacy, "ping") => (respond(id, &Map::new()), 200),
            (Era::Legacy, "logging/setLevel") => self.set_level(id, &request.params),
            (Era::Modern, "server/discover") => (self.discover(id), 200),
            (_, "prompts/list") => (self.empty_list(id, "prompts", modern), 200),
            (_, "resources/list") => (self.empty_list(id, "resources", modern), 200),
            (_, "resources/templates/list") => {
                (self.empty_list(id, "resourceTemplates", modern), 200)
            }
            (_, "resources/read") => {
                let uri = request
                    .params
                    .uri
                    .as_deref()
                    .cloned()
                    .unwrap_or(Value::Null);
                // 2026-07-28 renumbered "resource not found" to -32602; legacy says -32002.
                let code = if modern { -32602 } else { -32002 };
                let text = error_with(
                    id,
                    code,
                    &format!("Resource not found: {uri}"),
                    Some(&serde_json::json!({ "uri": uri })),
                );
                (text, 200)
            }
            (_, "prompts/get") => {
                let name = request
                    .params
                    .name
                    .as_ref()
                    .and_then(Text::as_str)
                    .unwrap_or_default();
                let text = error(
                    id,
                    -32602,
                    &format!("Invalid params: no prompt named {name:?}"),
                );
                (text, 200)
            }
            (_, "tools/list") => {
                let text = self.list(id, &request.params, modern);
                (text, 200)
            }
            (_, other) => (
                error(id, -32601, &format!("Method not found: {other}")),
                if modern { 404 } else { 200 },
            ),
        };
        Some(Reply { text, status })
    }

    fn initialize(&self, id: &Value, params: &Params) -> String {
        let requested = params.protocol_version.as_ref().and_then(Text::as_str);
        let version = requested
            .filter(|v| SUPPORTED_VERSIONS.contains(v))
            .unwrap_or(SUPPORTED_VERSIONS[0]);
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
                capabilities: capabilities(),
                server_info: serde_json::json!({"name": self.name, "version": self.version}),
                instructions: self.instructions.as_deref(),
            },
        )
    }

    fn set_level(&mut self, id: &Value, params: &Params) -> (String, u16) {
        match params
            .level
            .as_ref()
            .and_then(Text::as_str)
            .and_then(LogLevel::parse)
        {
            Some(level) => {
                self.log_level = Some(level);
                (respond(id, &Map::new()), 200)
            }
            None => (
                error(
                    id,
                    -32602,
                    "Invalid params: level must be one of debug, info, notice, warning, error, \
                     critical, alert, emergency",
                ),
                200,
            ),
        }
    }

    fn discover(&self, id: &Value) -> String {
        let mut result = serde_json::json!({
            "supportedVersions": era::ALL_VERSIONS,
            "capabilities": capabilities(),
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

    /// A tools server has no prompts and no resources: empty lists (with the 2026-07-28
    /// caching hints in that era), so a client's probes and caches see the server it
    /// advertised.
    fn empty_list(&self, id: &Value, key: &str, modern: bool) -> String {
        let mut result = Map::new();
        result.insert(key.to_owned(), Value::Array(Vec::new()));
        if modern {
            result.insert("ttlMs".into(), self.ttl_ms());
            result.insert("cacheScope".into(), Value::String("public".into()));
            result.insert("resultType".into(), Value::String("complete".into()));
        }
        respond(id, &result)
    }

    fn ttl_ms(&self) -> Value {
        Value::from(u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX))
    }

    fn list(&self, id: &Value, params: &Params, modern: bool) -> String {
        let start = match params.cursor.as_deref() {
            None | Some(Value::Null) => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| c.strip_prefix("tools:"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| self.page_size.is_some() && n < self.entries.len())
            {
                Some(start) => start,
                None => return error(id, -32602, "Invalid params: unknown cursor"),
            },
        };
        let end = match self.page_size {
            Some(size) => (start + size).min(self.entries.len()),
            None => self.entries.len(),
        };
        let tools: Vec<Value> = self.entries[start..end]
            .iter()
            .map(|e| e.def.to_json())
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        if end < self.entries.len() {
            result.insert("nextCursor".into(), Value::String(format!("tools:{end}")));
        }
        if modern {
            result.insert("ttlMs".into(), self.ttl_ms());
            result.insert("cacheScope".into(), Value::String("public".into()));
            result.insert("resultType".into(), Value::String("complete".into()));
        }
        respond(id, &result)
    }

    /// Runs a `tools/call`; with the `tracing` feature, inside a `mcp_tool_call` span (tool,
    /// era, request id, queue wait, handler time, whether it was deferred, outcome).
    fn call(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        #[cfg(feature = "tracing")]
        {
            use tracing::field::Empty;
            if !tracing::level_enabled!(tracing::Level::DEBUG) {
                return self.call_tool(ctx, incoming);
            }
            let span = tracing::debug_span!(
                "mcp_tool_call",
                tool = incoming.request.params.name.as_ref().and_then(Text::as_str),
                era = if incoming.era == Era::Modern { "2026-07-28" } else { "legacy" },
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
        #[cfg(not(feature = "tracing"))]
        self.call_tool(ctx, incoming)
    }

    #[inline]
    fn call_tool(&mut self, ctx: &mut Ctx, incoming: Incoming) -> Option<Reply> {
        let Incoming {
            request,
            era,
            outlet,
            streamable,
            param_headers,
            requests,
            ..
        } = incoming;
        let modern = era == Era::Modern;
        // Requests to the client travel on the call's SSE stream, in the legacy era only.
        let requests = requests && streamable && !modern;
        let Request { id, params, .. } = request;
        let done = |text: String, status: u16| {
            #[cfg(feature = "tracing")]
            crate::trace::record("outcome", "protocol error");
            Some(Reply { text, status })
        };
        let Params {
            object,
            name,
            arguments,
            meta,
            ..
        } = params;
        if !object {
            return done(
                error(
                    &id,
                    -32602,
                    "Invalid params: tools/call needs {\"name\", \"arguments\"}",
                ),
                200,
            );
        }
        let Some(Text::Str(name)) = name else {
            return done(
                error(&id, -32602, "Invalid params: tools/call needs a tool name"),
                200,
            );
        };
        let arguments = match arguments {
            None => JsonTree::empty_object(),
            Some(arguments) if arguments.is_null() => JsonTree::empty_object(),
            Some(arguments) if arguments.is_object() => arguments,
            Some(_) => {
                return done(
                    error(&id, -32602, "Invalid params: arguments must be an object"),
                    200,
                );
            }
        };
        let Some(&index) = self.index.get(&*name) else {
            return done(error(&id, -32602, &format!("Unknown tool: {name}")), 200);
        };
        let meta = meta.as_ref();
        let entry = &mut self.entries[index];
        let result_type = modern.then_some("complete");
        let answer = |result: CallResult| {
            #[cfg(feature = "tracing")]
            crate::trace::record("outcome", result.outcome());
            Some(Reply {
                text: result.respond(&id, result_type),
                status: 200,
            })
        };
        if modern && !entry.requires.is_empty() {
            let declared = meta
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
                return done(
                    error_with(
                        &id,
                        era::code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                        &format!(
                            "Missing required client capability: {name} needs {names:?} in \
                             _meta[\"{}\"]",
                            era::meta::CLIENT_CAPABILITIES
                        ),
                        Some(&serde_json::json!({ "requiredCapabilities": missing })),
                    ),
                    400,
                );
            }
        }
        if modern
            && let Some(headers) = &param_headers
            && let Err(what) = check_param_headers(&entry.def.input_schema, &arguments, headers)
        {
            return done(
                error(
                    &id,
                    era::code::HEADER_MISMATCH,
                    &format!("Bad Request: the request headers and body disagree: {what}"),
                ),
                400,
            );
        }
        if let Some(traceback) = &self.crashed
            && !entry.def.when_crashed
        {
            let failure = ToolError::new(traceback.clone()).with_code("crashed");
            return answer(CallResult::failure(&failure));
        }
        // SEP-1303: arguments that do not fit are a tool error the model can correct.
        if let Err(violation) = entry.input.validate_tree(&arguments) {
            let failure = ToolError::new(format!("invalid arguments for {name}: {violation}"))
                .with_code("invalid_arguments");
            return answer(CallResult::failure(&failure));
        }
        match &mut entry.run {
            Run::Now(run) => {
                let outcome = catch_unwind(AssertUnwindSafe(|| run(ctx, arguments)));
                answer(match outcome {
                    Ok(Ok(value)) => CallResult::success(value),
                    Ok(Err(failure)) => CallResult::failure(&failure),
                    Err(panic) => panicked(&name, panic),
                })
            }
            Run::Call(start, timeout, wrap) => {
                let (timeout, wrap) = (*timeout, *wrap);
                let progress_token = meta.and_then(|m| m.progress_token.as_deref().cloned());
                let log_level = if modern {
                    meta.and_then(|m| m.log_level.as_ref())
                        .and_then(Text::as_str)
                        .and_then(LogLevel::parse)
                } else {
                    self.log_level
                };
                let slot = Arc::new(Slot {
                    tool: name.to_string(),
                    wrap,
                    when_crashed: entry.def.when_crashed,
                    deadline: Instant::now() + timeout,
                    timeout,
                    result_type,
                    modern,
                    waiters: requests.then(|| self.waiters.clone()),
                    state: Mutex::new(SlotState {
                        outlet: outlet.clone(),
                        id,
                        streamable,
                        progress_token: progress_token.filter(|_| streamable),
                        log_level: log_level.filter(|_| streamable),
                        answered: false,
                    }),
                });
                let outcome =
                    catch_unwind(AssertUnwindSafe(|| start(ctx, arguments, slot.clone())));
                match outcome {
                    Ok(Ok(())) => {}
                    Ok(Err(failure)) => {
                        slot.answer(&CallResult::failure(&failure));
                    }
                    Err(panic) => {
                        slot.answer(&panicked(&name, panic));
                    }
                }
                #[cfg(feature = "tracing")]
                if slot.is_finished() {
                    crate::trace::record("outcome", "answered");
                }
                if !slot.is_finished() {
                    #[cfg(feature = "tracing")]
                    crate::trace::record("deferred", true);
                    if let Some(outlet) = &outlet {
                        let _ = outlet.send(Out::Deferred(timeout));
                    }
                    self.outstanding.push(slot);
                }
                None
            }
        }
    }
}

/// SEP-2243: every argument whose property is marked `x-mcp-header` travels in its
/// `Mcp-Param-{name}` header too, and the two must agree.
fn check_param_headers(
    schema: &Map<String, Value>,
    arguments: &JsonTree,
    headers: &[(String, String)],
) -> Result<(), String> {
    // A key given twice: its last value, as in the `Value` of the arguments.
    if arguments.has_duplicate_keys() {
        return check_param_headers_in(schema, &arguments.to_value(), headers);
    }
    check_param_headers_in(schema, arguments.root(), headers)
}

fn check_param_headers_in<'v>(
    schema: &Map<String, Value>,
    arguments: impl Json<'v>,
    headers: &[(String, String)],
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (property, spec) in properties {
        let Some(name) = spec.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let wanted = name.to_ascii_lowercase();
        let header = headers
            .iter()
            .find(|(suffix, _)| *suffix == wanted)
            .map(|(_, v)| v.as_str());
        let body = arguments
            .get(property)
            .filter(|v| !matches!(v.kind(), Kind::Null));
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
                let expected = match body.kind() {
                    Kind::String(s) => s.to_owned(),
                    _ => body.to_value().to_string(),
                };
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

/// The shared state of one [`Call`]: where its notifications and answer go.
pub(crate) struct Slot {
    tool: String,
    wrap: bool,
    when_crashed: bool,
    deadline: Instant,
    timeout: Duration,
    result_type: Option<&'static str>,
    /// A 2026-07-28 call (which cannot send requests to the client).
    modern: bool,
    /// Where client responses are routed, when this call may send requests to its client.
    waiters: Option<Arc<Waiters>>,
    state: Mutex<SlotState>,
}

struct SlotState {
    outlet: Option<Outlet>,
    id: Value,
    streamable: bool,
    progress_token: Option<Value>,
    log_level: Option<LogLevel>,
    answered: bool,
}

impl Slot {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the answer unless one was sent; returns whether this one was.
    fn answer(&self, result: &CallResult) -> bool {
        let mut state = self.lock();
        if state.answered {
            return false;
        }
        state.answered = true;
        let text = result.respond(&state.id, self.result_type);
        match state.outlet.take() {
            Some(outlet) => outlet.send(Out::Done(Reply { text, status: 200 })).is_ok(),
            None => false,
        }
    }

    /// Answered, or nobody is waiting for the answer any more.
    fn is_finished(&self) -> bool {
        let state = self.lock();
        state.answered || state.outlet.as_ref().is_none_or(|o| o.is_closed())
    }

    fn note(&self, text: impl FnOnce(&SlotState) -> Option<String>) -> bool {
        let state = self.lock();
        if state.answered || !state.streamable {
            return false;
        }
        let Some(outlet) = &state.outlet else {
            return false;
        };
        match text(&state) {
            Some(text) => outlet.send(Out::Note(text)).is_ok(),
            None => false,
        }
    }
}

/// One running call of a [`CallHandler`] tool: report progress and log lines through it, and
/// answer with it, now or on a later frame (store it in the game and call
/// [`Call::complete`] when the work is done). Dropped unanswered, the call is answered with a
/// tool error (code `dropped`).
///
/// Progress and log lines reach the client only when its request asked for them (a
/// `progressToken`; a log level) and the transport can stream (an SSE answer over HTTP, lines
/// over stdio); otherwise they are dropped here, and the answer stays one plain JSON
/// response. Sending never blocks the game thread.
pub struct Call<T> {
    slot: Arc<Slot>,
    output: PhantomData<fn(T)>,
}

impl<T> std::fmt::Debug for Call<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.slot.tool)
            .field("deadline", &self.slot.deadline)
            .finish_non_exhaustive()
    }
}

impl<T: ToolOutput> Call<T> {
    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.slot.tool
    }

    /// When the server answers this call with a tool error if the game has not.
    pub fn deadline(&self) -> Instant {
        self.slot.deadline
    }

    /// Whether the call no longer needs an answer: the client has gone, or the deadline or
    /// crash mode has answered it. The game may drop it then.
    pub fn is_abandoned(&self) -> bool {
        self.slot.is_finished()
    }

    /// Whether the client asked for progress (and the transport can carry it).
    pub fn wants_progress(&self) -> bool {
        self.slot.lock().progress_token.is_some()
    }

    /// Sends `notifications/progress` (`progress` of `total`, both increasing); returns
    /// whether it was sent (see the type's docs for when it is not).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.slot.note(|state| {
            let token = state.progress_token.as_ref()?;
            let mut params = Map::new();
            params.insert("progressToken".into(), token.clone());
            params.insert("progress".into(), Value::from(progress));
            if let Some(total) = total {
                params.insert("total".into(), Value::from(total));
            }
            if let Some(message) = message {
                params.insert("message".into(), Value::String(message.to_owned()));
            }
            Some(notification("notifications/progress", params))
        })
    }

    /// Sends `notifications/message` at `level` with `data` (any JSON; a string is usual) when
    /// the client asked for that level or a lower one; returns whether it was sent.
    pub fn log(&self, level: LogLevel, data: impl Serialize) -> bool {
        self.slot.note(|state| {
            if state.log_level.is_none_or(|wanted| level < wanted) {
                return None;
            }
            let mut params = Map::new();
            params.insert("level".into(), Value::String(level.as_str().into()));
            params.insert("logger".into(), Value::String(self.slot.tool.clone()));
            params.insert("data".into(), serde_json::to_value(data).ok()?);
            Some(notification("notifications/message", params))
        })
    }

    /// Sends a request to the client on this call's stream (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, ...) and returns the handle its response arrives
    /// on, on a later frame: keep it with the `Call` and check [`ClientRequest::try_response`]
    /// each frame, then [`Call::complete`].
    ///
    /// Only a legacy-era call over HTTP whose client accepts an SSE answer can carry requests
    /// (stdio and [`Registry::dispatch`] answer within the call, and 2026-07-28 asks the client
    /// through `input_required` results instead). Otherwise, or when the call is already
    /// answered or its client has gone, this is an `Err` to answer the call with. The client's
    /// declared capabilities are not known to a stateless server: a client without the
    /// capability answers with a JSON-RPC error, which the handle reports.
    pub fn request(
        &self,
        method: &str,
        params: impl Serialize,
    ) -> Result<ClientRequest, ToolError> {
        let unable = |why: &str| {
            Err(ToolError::new(format!(
                "{} cannot send {method} to the client: {why}",
                self.slot.tool
            ))
            .with_code("no_client_requests"))
        };
        let Some(waiters) = &self.slot.waiters else {
            return unable(if self.slot.modern {
                "a 2026-07-28 call cannot carry requests from the server"
            } else {
                "only a call over HTTP whose client accepts text/event-stream can carry \
                 requests from the server"
            });
        };
        let params = match serde_json::to_value(params) {
            Ok(params) => params,
            Err(e) => return unable(&format!("the params are not JSON: {e}")),
        };
        let (id, response) = waiters.wait();
        #[derive(Serialize)]
        struct Request<'a> {
            jsonrpc: &'static str,
            id: &'a str,
            method: &'a str,
            params: Value,
        }
        let text = serde_json::to_string(&Request {
            jsonrpc: "2.0",
            id: &id,
            method,
            params,
        })
        .unwrap_or_default();
        if !self.slot.note(|_| Some(text)) {
            waiters.forget(&id);
            return unable("the call is answered or its client has gone");
        }
        Ok(ClientRequest {
            id,
            method: method.to_owned(),
            response,
            waiters: waiters.clone(),
        })
    }

    /// Answers the call; returns whether the answer was sent (not when the call was already
    /// answered by its deadline or crash mode, or its client has gone).
    pub fn complete(self, result: Result<T, ToolError>) -> bool {
        let result = match result.and_then(|value| value.into_answer(self.slot.wrap)) {
            Ok(value) => CallResult::success(value),
            Err(failure) => CallResult::failure(&failure),
        };
        self.slot.answer(&result)
    }
}

impl<T> Drop for Call<T> {
    fn drop(&mut self) {
        // A panicking handler is answered by the registry, with the panic's message.
        if std::thread::panicking() {
            return;
        }
        let failure = ToolError::new(format!(
            "the game dropped this {} call without answering it",
            self.slot.tool
        ))
        .with_code("dropped");
        self.slot.answer(&CallResult::failure(&failure));
    }
}

/// A request a [`Call`] sent to its client, waiting for the response (see [`Call::request`]).
/// Dropping it forgets the request; a response that arrives later is ignored.
pub struct ClientRequest {
    id: String,
    method: String,
    response: std::sync::mpsc::Receiver<Result<Value, Value>>,
    waiters: Arc<Waiters>,
}

impl std::fmt::Debug for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl ClientRequest {
    /// The JSON-RPC id the request was sent with.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The client's response once it has arrived (never blocks): its `result`, or its
    /// JSON-RPC error as a tool error (code `client_error`) naming the method. `None` while
    /// the client has not answered; call it again on a later frame.
    pub fn try_response(&self) -> Option<Result<Value, ToolError>> {
        let outcome = self.response.try_recv().ok()?;
        Some(outcome.map_err(|error| {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            let code = error
                .get("code")
                .map_or_else(String::new, |c| format!(" ({c})"));
            ToolError::new(format!(
                "the client refused {}: {message}{code}",
                self.method
            ))
            .with_code("client_error")
        }))
    }
}

impl Drop for ClientRequest {
    fn drop(&mut self) {
        self.waiters.forget(&self.id);
    }
}

fn notification(method: &str, params: Map<String, Value>) -> String {
    #[derive(Serialize)]
    struct Notification<'a> {
        jsonrpc: &'static str,
        method: &'a str,
        params: Map<String, Value>,
    }
    serde_json::to_string(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
    .unwrap_or_default()
}

/// A call's result: a typed output's JSON text, or content blocks.
enum CallResult {
    /// A typed output's JSON text: `structuredContent`, and the one text block's text.
    Json(String),
    Blocks {
        content: Blocks,
        structured_content: Option<Value>,
        is_error: bool,
    },
}

/// A call result with the 2026-07-28 `resultType` when there is one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Typed<'a> {
    content: &'a Blocks,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Value>,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
}

/// The content of a result: one text block, or the handler's own blocks.
enum Blocks {
    Text(String),
    Given(Vec<crate::Content>),
}

/// The one text block of a result, `[{"type":"text","text":...}]`.
struct TextBlocks<'a>(&'a str);

impl Serialize for TextBlocks<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        #[derive(Serialize)]
        struct TextBlock<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'a str,
        }
        let mut seq = serializer.serialize_seq(Some(1))?;
        seq.serialize_element(&TextBlock {
            kind: "text",
            text: self.0,
        })?;
        seq.end()
    }
}

impl Serialize for Blocks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Blocks::Text(text) => TextBlocks(text).serialize(serializer),
            Blocks::Given(blocks) => blocks.serialize(serializer),
        }
    }
}

impl CallResult {
    /// `ok` or `tool error`, for traces.
    #[cfg(feature = "tracing")]
    fn outcome(&self) -> &'static str {
        match self {
            CallResult::Blocks { is_error: true, .. } => "tool error",
            _ => "ok",
        }
    }

    fn success(answer: Answer) -> Self {
        let result = match answer {
            Answer::Json(text) => return CallResult::Json(text),
            Answer::Result(result) => result,
        };
        let content = match (result.content.is_empty(), &result.structured_content) {
            (true, Some(value)) => Blocks::Text(value.to_string()),
            _ => Blocks::Given(result.content),
        };
        CallResult::Blocks {
            content,
            structured_content: result.structured_content,
            is_error: false,
        }
    }

    /// `{ error, code? }` in the text block only: the tool's `outputSchema` describes its
    /// successful result, and the official TypeScript client checks any `structuredContent`
    /// against it, errors included (Scape: "do not assume errors have structuredContent").
    fn failure(failure: &ToolError) -> Self {
        CallResult::Blocks {
            content: Blocks::Text(failure.to_value().to_string()),
            structured_content: None,
            is_error: true,
        }
    }

    /// The JSON-RPC response carrying this result (with the 2026-07-28 `resultType` when
    /// there is one). A typed output's JSON text goes in as written, without a `Value`.
    fn respond(&self, id: &Value, result_type: Option<&'static str>) -> String {
        match self {
            CallResult::Json(json) => respond_with_json(id, json, result_type),
            CallResult::Blocks {
                content,
                structured_content,
                is_error,
            } => respond(
                id,
                &Typed {
                    content,
                    structured_content: structured_content.as_ref(),
                    is_error: *is_error,
                    result_type,
                },
            ),
        }
    }
}

/// The response to a call whose typed output was written to `json`: the same bytes `Typed`
/// would write for a text block and `structuredContent` of that JSON, with the text spliced
/// in as `structuredContent`.
fn respond_with_json(id: &Value, json: &str, result_type: Option<&'static str>) -> String {
    // The text block escapes the JSON's quotes: room for both copies, the fixed members and
    // a small id, so that the buffer is allocated once.
    let mut out = Vec::with_capacity(2 * json.len() + 160);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    let written = serde_json::to_writer(&mut out, id).and_then(|()| {
        out.extend_from_slice(br#","result":{"content":"#);
        serde_json::to_writer(&mut out, &TextBlocks(json))
    });
    if let Err(e) = written {
        return error(id, -32603, &format!("Internal error: {e}"));
    }
    out.extend_from_slice(br#","structuredContent":"#);
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(br#","isError":false"#);
    if let Some(result_type) = result_type {
        out.extend_from_slice(br#","resultType":""#);
        // A fixed ASCII word ("complete"): no escaping needed.
        out.extend_from_slice(result_type.as_bytes());
        out.push(b'"');
    }
    out.extend_from_slice(b"}}");
    // Every piece is UTF-8: JSON from serde_json and the handler's JSON text.
    String::from_utf8(out).unwrap_or_else(|e| error(id, -32603, &format!("Internal error: {e}")))
}

fn respond<R: Serialize>(id: &Value, result: &R) -> String {
    #[derive(Serialize)]
    struct Response<'a, R> {
        jsonrpc: &'static str,
        id: &'a Value,
        result: &'a R,
    }
    serde_json::to_string(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_else(|e| error(id, -32603, &format!("Internal error: {e}")))
}

pub(crate) fn error(id: &Value, code: i64, message: &str) -> String {
    error_with(id, code, message, None)
}

pub(crate) fn error_with(id: &Value, code: i64, message: &str, data: Option<&Value>) -> String {
    let mut error = serde_json::json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data.clone();
    }
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": error,
    })
    .to_string()
}
