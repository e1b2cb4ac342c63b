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
        // Not an object, keys twice, an error, no result: through a `Value` of the whole
        // message, which gives the answers and errors of `decode_result` exactly.
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
    /// The general path: the whole message parsed into a `Value`, then
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
mod tests;
