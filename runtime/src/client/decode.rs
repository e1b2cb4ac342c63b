//! Responses decoded from the bytes they came in: a JSON-RPC response to `tools/call` goes
//! straight into the tool's result type, without a `Value` of the message, and the text copy of
//! `structuredContent` in `content` is skipped, not parsed. Anything unusual (an error, `isError`,
//! no `structuredContent`, a `resultType`, a value that does not fit) takes the general path,
//! which gives the same results and errors as decoding the message into a `Value` first.

use std::marker::PhantomData;

use bytes::Bytes;
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::era;
use crate::{CallToolResult, Error};

/// One JSON-RPC response as it came off the wire.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    /// The message's bytes: an HTTP body, an SSE event's data, a line of stdout.
    pub(crate) body: Bytes,
    /// Whether the response may carry any id: the JSON-RPC error in the body of an HTTP error
    /// status (often with `"id": null`). Otherwise its id must be the request's.
    pub(crate) any_id: bool,
}

impl Response {
    /// A response whose id must be the request's.
    pub(crate) fn new(body: impl Into<Bytes>) -> Self {
        Response {
            body: body.into(),
            any_id: false,
        }
    }

    /// The `result` of the response to request `id` of `method` as a `Value`, or its `error`
    /// as [`Error::Protocol`].
    pub(crate) fn result(&self, method: &str, id: u64) -> Result<Value, Error> {
        response_value(method, (!self.any_id).then_some(id), &self.body)
    }
}

/// What a response came to.
#[derive(Debug)]
pub(crate) enum Step<R> {
    /// The result (`resultType` absent or `complete`).
    Done(R),
    /// An `input_required` result, as sent.
    InputRequired(Value),
}

/// Turns the bytes of one JSON-RPC response into what the caller wants. JSON-RPC errors are
/// [`Error::Protocol`].
pub(crate) trait Decoder: Sync {
    type Output: Send;

    /// Decodes the response to request `id` (`None`: any id) of `method`.
    fn decode(
        &self,
        method: &str,
        id: Option<u64>,
        body: &[u8],
    ) -> Result<Step<Self::Output>, Error>;
}

/// The result as a `Value`.
pub(crate) struct ValueResult;

impl Decoder for ValueResult {
    type Output = Value;

    fn decode(&self, method: &str, id: Option<u64>, body: &[u8]) -> Result<Step<Value>, Error> {
        step_of(method, response_value(method, id, body)?)
    }
}

/// The `result` of a response as a `Value`, or its `error` as [`Error::Protocol`] (the rules of
/// [`response_result`]).
pub(crate) fn response_value(method: &str, id: Option<u64>, body: &[u8]) -> Result<Value, Error> {
    let answer: Value = serde_json::from_slice(body).map_err(not_json)?;
    if let Some(id) = id
        && answer.get("id").and_then(Value::as_u64) != Some(id)
    {
        return Err(different_request(id));
    }
    response_result(method, answer)
}

fn not_json(e: serde_json::Error) -> Error {
    Error::transport_source("the server answered with something that is not JSON", e)
}

fn different_request(id: u64) -> Error {
    Error::transport(format!(
        "the server answered a different request (expected id {id})"
    ))
}

/// `Done` for a complete result (or a task, for the caller that asked for one to read),
/// `InputRequired` for `input_required`, an error for a `resultType` this client does not
/// know.
fn step_of(method: &str, result: Value) -> Result<Step<Value>, Error> {
    match result.get("resultType").and_then(Value::as_str) {
        None | Some(era::result_type::COMPLETE | era::result_type::TASK) => Ok(Step::Done(result)),
        Some(era::result_type::INPUT_REQUIRED) => Ok(Step::InputRequired(result)),
        Some(other) => Err(Error::transport(format!(
            "{method}: the server answered with an unknown resultType {other:?}"
        ))),
    }
}

/// A `tools/call` result decoded into `T` by the envelope rules.
pub(crate) struct TypedResult<T> {
    tool: String,
    output: PhantomData<fn() -> T>,
}

impl<T> TypedResult<T> {
    pub(crate) fn new(tool: &str) -> Self {
        TypedResult {
            tool: tool.to_owned(),
            output: PhantomData,
        }
    }
}

/// A present field, `null` included, as its raw text (`Option<&RawValue>` alone reads `null`
/// as absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The raw text of `structuredContent` in a result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StructuredText<'a> {
    #[serde(borrow, default)]
    structured_content: Option<&'a RawValue>,
}

/// A response's `id`, `result` and `error`, as raw text.
#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// What serde said, without serde_json's `at line 1 column 30`: the position would be in the
/// text of `structuredContent`, not of the response (the path says where).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// Whether a message is a JSON object (serde reads a struct from an array too).
fn is_object(message: &[u8]) -> bool {
    message.trim_ascii_start().first() == Some(&b'{')
}

fn id_is(raw: Option<&RawValue>, id: u64) -> bool {
    raw.and_then(|raw| serde_json::from_str::<u64>(raw.get()).ok()) == Some(id)
}

impl<T: DeserializeOwned + Send> Decoder for TypedResult<T> {
    type Output = T;

    fn decode(&self, method: &str, id: Option<u64>, body: &[u8]) -> Result<Step<T>, Error> {
        match Scan::new(body).response(id) {
            Some(value) => Ok(Step::Done(value)),
            None => self.general(method, id, body),
        }
    }
}

/// The fast path: a forward scan of the response's structure that reads `structuredContent`
/// into `T` where it stands (serde_json, from the bytes) and skips everything else, the text
/// copy included, at the cost of finding where each skipped value ends. Any surprise (an
/// escaped key, an error, `isError` not false, a `resultType`, a duplicate, a value that does
/// not fit) gives `None`, and the general path decides.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Scan { bytes, at: 0 }
    }

    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// An object key without escapes.
    fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => break,
                b'\\' => return None,
                _ => self.at += 1,
            }
        }
        let key = &self.bytes[start..self.at];
        self.at += 1;
        self.eat(b':')?;
        Some(key)
    }

    /// Past a string, at its opening quote. Eight bytes at a time where there is neither a
    /// quote nor a backslash (the text copy of a result is most of a response).
    fn string(&mut self) -> Option<()> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        // The lowest byte equal to `byte` has its high bit set in the result (higher bytes may
        // be false positives; only the lowest is used).
        fn equal(word: u64, byte: u8) -> u64 {
            let x = word ^ (ONES * u64::from(byte));
            x.wrapping_sub(ONES) & !x & HIGH
        }
        self.at += 1;
        loop {
            if let Some(chunk) = self.bytes.get(self.at..self.at + 8) {
                let word = u64::from_le_bytes(chunk.try_into().ok()?);
                let found = equal(word, b'"') | equal(word, b'\\');
                if found == 0 {
                    self.at += 8;
                    continue;
                }
                self.at += (found.trailing_zeros() / 8) as usize;
            }
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// Past one value; its bytes.
    fn value(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        match self.peek()? {
            b'"' => self.string()?,
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.bytes.get(self.at)? {
                        b'"' => self.string()?,
                        b'{' | b'[' => {
                            depth += 1;
                            self.at += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            self.at += 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => self.at += 1,
                    }
                }
            }
            _ => {
                let scalar = self.at;
                while let Some(byte) = self.bytes.get(self.at)
                    && !matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    self.at += 1;
                }
                if self.at == scalar {
                    return None;
                }
            }
        }
        Some(self.bytes[start..self.at].trim_ascii_start())
    }

    /// The members of an object, each handed to `member` (which reads its value); `None` if
    /// `member` gives up or the object is malformed.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A whole response to request `id` whose result has a `structuredContent` that fits `T`.
    fn response<T: DeserializeOwned>(mut self, id: Option<u64>) -> Option<T> {
        let (mut got_id, mut value) = (None, None);
        self.object(|scan, key| match key {
            b"id" => {
                got_id = Some(scan.value()?);
                Some(())
            }
            b"result" if value.is_none() => {
                value = Some(scan.result::<T>()?);
                Some(())
            }
            b"result" | b"error" => None,
            _ => scan.value().map(drop),
        })?;
        if self.peek().is_some() {
            return None;
        }
        if let Some(id) = id {
            // Digits only, as JSON writes an unsigned integer (`u64::from_str` takes `+5`).
            let got = got_id?;
            let digits = got.iter().all(u8::is_ascii_digit) && (got.len() == 1 || got[0] != b'0');
            if !digits || std::str::from_utf8(got).ok()?.parse::<u64>().ok()? != id {
                return None;
            }
        }
        value
    }

    /// A `CallToolResult`: `structuredContent` decoded into `T` where it stands.
    fn result<T: DeserializeOwned>(&mut self) -> Option<T> {
        let mut value = None;
        self.object(|scan, key| match key {
            b"structuredContent" if value.is_none() => {
                // `null` means "no structured result": the text rules.
                if scan.peek()? == b'n' {
                    return None;
                }
                let mut values =
                    serde_json::Deserializer::from_slice(&scan.bytes[scan.at..]).into_iter::<T>();
                value = Some(values.next()?.ok()?);
                scan.at += values.byte_offset();
                Some(())
            }
            b"isError" => matches!(scan.value()?, b"false" | b"null").then_some(()),
            b"structuredContent" | b"resultType" => None,
            _ => scan.value().map(drop),
        })?;
        value
    }
}

impl<T: DeserializeOwned> TypedResult<T> {
    /// What the fast path does not take: every rule of [`crate::decode_result`], with
    /// `structuredContent` decoded from its bytes (so [`Error::Decode`] names the path in the
    /// text the server sent).
    fn general(&self, method: &str, id: Option<u64>, body: &[u8]) -> Result<Step<T>, Error> {
        // Not an object, keys twice, an error, no result: through a `Value` of the message, as
        // before this module, for the same answers and errors.
        let Some(envelope) = is_object(body)
            .then(|| serde_json::from_slice::<RawEnvelope<'_>>(body).ok())
            .flatten()
        else {
            return self.via_value(method, id, body);
        };
        if let Some(id) = id
            && !id_is(envelope.id, id)
        {
            return Err(different_request(id));
        }
        let Some(result) = envelope.result.filter(|_| envelope.error.is_none()) else {
            return self.via_value(method, id, body);
        };
        let value: Value = serde_json::from_str(result.get()).map_err(not_json)?;
        let value = match step_of(method, value)? {
            Step::Done(value) => value,
            Step::InputRequired(value) => return Ok(Step::InputRequired(value)),
        };
        let call = call_tool_result(value)?;
        let structured = match &call.structured_content {
            Some(structured) if !structured.is_null() && !call.is_error() => {
                serde_json::from_str::<StructuredText<'_>>(result.get())
                    .ok()
                    .and_then(|s| s.structured_content)
            }
            _ => None,
        };
        let Some(structured) = structured else {
            return crate::decode_result(&self.tool, call).map(Step::Done);
        };
        let mut deserializer = serde_json::Deserializer::from_str(structured.get());
        serde_path_to_error::deserialize(&mut deserializer)
            .map(Step::Done)
            .map_err(|e| Error::Decode {
                tool: self.tool.clone(),
                path: e.path().to_string(),
                message: without_position(&e.into_inner()),
                value: Box::new(call.structured_content.unwrap_or_default()),
            })
    }
}

impl<T: DeserializeOwned> TypedResult<T> {
    /// The client before this module: the message parsed into a `Value`, then
    /// [`crate::decode_result`].
    fn via_value(&self, method: &str, id: Option<u64>, body: &[u8]) -> Result<Step<T>, Error> {
        match step_of(method, response_value(method, id, body)?)? {
            Step::Done(value) => {
                crate::decode_result(&self.tool, call_tool_result(value)?).map(Step::Done)
            }
            Step::InputRequired(value) => Ok(Step::InputRequired(value)),
        }
    }
}

/// A `tools/call` result read as the lenient [`CallToolResult`].
pub(crate) fn call_tool_result(value: Value) -> Result<CallToolResult, Error> {
    serde_json::from_value(value).map_err(|e| {
        Error::transport_source(
            "tools/call answered with a result that is not a CallToolResult",
            e,
        )
    })
}

/// What the generated client does with the bytes of a `tools/call` response: `T` decoded by
/// the envelope rules, exactly as [`crate::HttpClient`] and [`crate::StdioClient`] do. For
/// benches and tests; not part of the stable API.
#[doc(hidden)]
pub fn decode_tool_response<T: DeserializeOwned + Send>(
    tool: &str,
    id: u64,
    body: &[u8],
) -> Result<T, Error> {
    match TypedResult::<T>::new(tool).decode("tools/call", Some(id), body)? {
        Step::Done(value) => Ok(value),
        Step::InputRequired(_) => Err(Error::transport(
            "tools/call: the server asked for input (answered by the client's request loop)",
        )),
    }
}

/// How a message on a stream is routed: its `id` and whether it has a `method`, read without
/// a `Value` of the message.
#[derive(Deserialize)]
pub(crate) struct Route<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
}

impl Route<'_> {
    /// Reads `message`; `None` when it is not a JSON object.
    pub(crate) fn of(message: &[u8]) -> Option<Route<'_>> {
        if !is_object(message) {
            return None;
        }
        serde_json::from_slice(message).ok()
    }

    /// A request or a notification (it has a `method`).
    pub(crate) fn has_method(&self) -> bool {
        self.method.is_some()
    }

    /// Its `method` is a string.
    pub(crate) fn has_string_method(&self) -> bool {
        self.method.is_some_and(|raw| raw.get().starts_with('"'))
    }

    /// It has an `id` (with a `method`: a request).
    pub(crate) fn has_id(&self) -> bool {
        self.id.is_some()
    }

    /// Its `id`, when it is an unsigned integer.
    pub(crate) fn id(&self) -> Option<u64> {
        self.id
            .and_then(|raw| serde_json::from_str::<u64>(raw.get()).ok())
    }
}

/// The `result` of a JSON-RPC response, or its `error` as [`Error::Protocol`].
pub(crate) fn response_result(method: &str, mut answer: Value) -> Result<Value, Error> {
    if let Some(error) = answer.get("error") {
        return Err(Error::Protocol {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            data: error.get("data").cloned(),
        });
    }
    answer
        .get_mut("result")
        .map(Value::take)
        .ok_or_else(|| Error::transport(format!("{method}: the response has no result")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Player {
        x: i64,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Observation {
        players: Vec<Player>,
    }

    fn body(message: Value) -> Vec<u8> {
        message.to_string().into_bytes()
    }

    /// What decoding through a `Value` of the message gives (the client before this module).
    fn via_value<T: DeserializeOwned>(message: &[u8], id: u64) -> Result<T, Error> {
        let result = response_value("tools/call", Some(id), message)?;
        let call: CallToolResult = serde_json::from_value(result).map_err(|e| {
            Error::transport_source(
                "tools/call answered with a result that is not a CallToolResult",
                e,
            )
        })?;
        crate::decode_result("observe", call)
    }

    #[test]
    fn decode_errors_name_the_path_in_the_bytes() {
        let structured = json!({"players": [{"x": 1}, {"x": "far"}]});
        let message = body(json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured,
        }}));
        let err = decode_tool_response::<Observation>("observe", 3, &message).unwrap_err();
        match &err {
            Error::Decode {
                tool,
                path,
                message,
                value,
            } => {
                assert_eq!(tool, "observe");
                assert_eq!(path, "players[1].x");
                assert!(
                    message.contains("invalid type: string \"far\""),
                    "{message}"
                );
                assert_eq!(**value, structured);
            }
            other => panic!("expected Error::Decode, got {other:?}"),
        }
        // The same error as decoding through a `Value`.
        let old = via_value::<Observation>(&message, 3).unwrap_err();
        assert_eq!(err.to_string(), old.to_string());
    }

    #[test]
    fn bytes_and_values_decode_alike() {
        let good = json!({"players": [{"x": 1}, {"x": 2}]});
        let text = good.to_string();
        let cases = [
            // The fast path: structuredContent after its text copy, and before it.
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "content": [{"type": "text", "text": text}], "structuredContent": good}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "structuredContent": good, "isError": false,
                "content": [{"type": "text", "text": text}]}}),
            // No structuredContent, or null: the text block.
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "content": [{"type": "text", "text": text}]}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "content": [{"type": "text", "text": text}], "structuredContent": null}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "content": [{"type": "text", "text": "not json"}]}}),
            // isError after a structuredContent that fits.
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "structuredContent": {"players": []}, "isError": true,
                "content": [{"type": "text", "text": "boom"}]}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {
                "structuredContent": {"error": "no room", "code": "E1"}, "isError": true}}),
            // JSON-RPC errors, an error beside a result, an explicit null error.
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "bad"}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good},
                "error": {"code": -32000, "message": "both"}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good},
                "error": null}),
            // Another request's answer, no result, a result that is not a CallToolResult.
            json!({"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": good}}),
            json!({"jsonrpc": "2.0", "id": "5", "result": {"structuredContent": good}}),
            json!({"jsonrpc": "2.0", "id": 5}),
            json!({"jsonrpc": "2.0", "id": 5, "result": null}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
                "isError": "yes"}}),
            // resultType complete; a value that does not fit at the top.
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
                "resultType": "complete"}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": [1, 2]}}),
            // Not an object (serde reads a struct from an array too).
            json!([5, {"structuredContent": good}]),
            json!(5),
        ];
        for case in cases {
            let message = body(case.clone());
            let new = decode_tool_response::<Observation>("observe", 5, &message);
            let old = via_value::<Observation>(&message, 5);
            match (&new, &old) {
                (Ok(new), Ok(old)) => assert_eq!(new, old, "{case}"),
                (Err(new), Err(old)) => assert_eq!(new.to_string(), old.to_string(), "{case}"),
                _ => panic!("{case}: bytes gave {new:?}, a Value {old:?}"),
            }
        }
        // Written by hand: escapes, brackets in strings, escaped keys, odd ids, layout.
        let raw_cases: [&[u8]; 12] = [
            br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a \"}]\\\" {[ b"}],"structuredContent":{"players":[{"x":1}]}}}"#,
            br#"{"id":5,"result":{"structured\u0043ontent":{"players":[{"x":1}]}}}"#,
            br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"structuredContent":{"players":[]}}}"#,
            br#"{"id":5,"result":{"structuredContent":{"players":[]}},"result":{"structuredContent":{"players":[{"x":1}]}}}"#,
            br#"{"id":05,"result":{"structuredContent":{"players":[]}}}"#,
            br#"{"id":+5,"result":{"structuredContent":{"players":[]}}}"#,
            br#"{"id":5.0,"result":{"structuredContent":{"players":[]}}}"#,
            br#"{"id":5,"result":{"structuredContent":{"players":[]}}} trailing"#,
            br#"{"id":5,"result":{"structuredContent":{"players":[]}x}}"#,
            b"{\n  \"id\" : 5 ,\n  \"result\" : {\n    \"isError\" : false ,\n    \"structuredContent\" : { \"players\" : [ { \"x\" : 1 } ] }\n  }\n}\n",
            br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"isError":null,"_meta":{"a":[1,{"b":"}"}]}}}"#,
            br#"{"id":5,"result":{"structuredContent":{"players":[{"x":1}]},"content":[{"type":"text","text":"unterminated}]}}"#,
        ];
        for message in raw_cases {
            let new = decode_tool_response::<Observation>("observe", 5, message);
            let old = via_value::<Observation>(message, 5);
            let case = String::from_utf8_lossy(message);
            match (&new, &old) {
                (Ok(new), Ok(old)) => assert_eq!(new, old, "{case}"),
                (Err(new), Err(old)) => assert_eq!(new.to_string(), old.to_string(), "{case}"),
                _ => panic!("{case}: bytes gave {new:?}, a Value {old:?}"),
            }
        }
        let not_json =
            decode_tool_response::<Observation>("observe", 5, b"{\"id\": 5,").unwrap_err();
        assert!(not_json.to_string().contains("not JSON"), "{not_json}");
    }

    /// The fast path takes the usual answers (else they would be right, but slow) and leaves
    /// the rest to the general path.
    #[test]
    fn the_fast_path_takes_what_it_should() {
        let good = json!({"players": [{"x": 1}, {"x": 2}]});
        let taken = [
            body(json!({"jsonrpc": "2.0", "id": 5, "result": {
                "content": [{"type": "text", "text": good.to_string()}], "structuredContent": good}})),
            body(
                json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
                "content": [{"type": "text", "text": "a \\\" {[ \\\\\" ]} \u{e9}"}],
                "isError": false, "_meta": {"k": [1, true, null, -2.5e3, {"s": "}"}]}}}),
            ),
            serde_json::to_vec_pretty(&json!({"jsonrpc": "2.0", "id": 5, "result": {
                "structuredContent": good, "isError": null}}))
            .expect("json"),
        ];
        for message in taken {
            let case = String::from_utf8_lossy(&message).into_owned();
            let fast = Scan::new(&message).response::<Observation>(Some(5));
            assert_eq!(fast.map(|o| o.players.len()), Some(2), "{case}");
        }
        let left = [
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good, "isError": true}}),
            json!({"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": good}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": null}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"content": []}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": good,
                "resultType": "complete"}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": {"players": 1}}}),
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "m"}}),
        ];
        for message in left {
            let fast = Scan::new(&body(message.clone())).response::<Observation>(Some(5));
            assert!(fast.is_none(), "{message}");
        }
    }

    #[test]
    fn input_required_and_unknown_result_types_leave_the_fast_path() {
        let message = body(json!({"jsonrpc": "2.0", "id": 9, "result": {
            "resultType": "input_required", "inputRequests": {"a": {"method": "ping"}},
            "structuredContent": {"players": []}}}));
        let step = TypedResult::<Observation>::new("observe")
            .decode("tools/call", Some(9), &message)
            .expect("decodes");
        assert!(
            matches!(&step, Step::InputRequired(result) if result["inputRequests"]["a"]["method"] == "ping"),
            "{step:?}"
        );
        let message = body(json!({"jsonrpc": "2.0", "id": 9, "result": {
            "resultType": "later", "structuredContent": {"players": []}}}));
        let err = decode_tool_response::<Observation>("observe", 9, &message).unwrap_err();
        assert!(
            err.to_string().contains("unknown resultType \"later\""),
            "{err}"
        );
    }

    #[test]
    fn routes_read_id_and_method() {
        let route =
            Route::of(br#"{"jsonrpc":"2.0","id":12,"result":{"big":[1,2,3]}}"#).expect("an object");
        assert_eq!((route.id(), route.has_method()), (Some(12), false));
        let route = Route::of(br#"{"method":"ping","id":"a"}"#).expect("an object");
        assert!(route.has_method() && route.has_string_method() && route.has_id());
        assert_eq!(route.id(), None);
        let route = Route::of(br#"{"method":null}"#).expect("an object");
        assert!(route.has_method() && !route.has_string_method() && !route.has_id());
        assert!(Route::of(b"[1]").is_none() && Route::of(b"not json").is_none());
    }
}
