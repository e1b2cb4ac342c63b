//! Protocol facts shared by the client and the server sides: the two protocol eras, the
//! `_meta` keys and HTTP headers of MCP 2026-07-28, and the error codes that revision added.
//!
//! MCP revisions up to 2025-11-25 are the *legacy* era (an `initialize` handshake, then a
//! session); 2026-07-28 is the *modern* era (stateless: every request carries its protocol
//! version, client capabilities and client info in `params._meta`, and no handshake).

/// The two protocol eras, named for how a connection works in each rather than for when they
/// came (the next revision will not make either one "legacy" or "modern").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: an `initialize` handshake, then a session; requests carry no
    /// `_meta` version.
    Session,
    /// 2026-07-28: stateless; every request carries its version and client capabilities in
    /// `params._meta`.
    Stateless,
}

/// Every protocol version this crate speaks, with its era, newest first: the one list the
/// server's `supportedVersions` and unsupported-version errors, `initialize`'s negotiation and
/// the client's choice of version are read from.
pub const VERSIONS: &[(&str, Era)] = &[
    ("2026-07-28", Era::Stateless),
    ("2025-11-25", Era::Session),
    ("2025-06-18", Era::Session),
    ("2025-03-26", Era::Session),
    ("2024-11-05", Era::Session),
];

/// The newest legacy-era version.
pub const LATEST_LEGACY: &str = latest(Era::Session);

/// The newest modern-era version.
pub const LATEST_MODERN: &str = latest(Era::Stateless);

/// The first (newest) version of `era` in [`VERSIONS`]; evaluated at compile time.
const fn latest(era: Era) -> &'static str {
    let mut i = 0;
    while i < VERSIONS.len() {
        if VERSIONS[i].1 as u8 == era as u8 {
            return VERSIONS[i].0;
        }
        i += 1;
    }
    panic!("every era has a version in VERSIONS")
}

/// The era of `version`, when this crate speaks it.
pub fn era_of(version: &str) -> Option<Era> {
    VERSIONS
        .iter()
        .find(|(known, _)| *known == version)
        .map(|&(_, era)| era)
}

/// Whether `version` belongs to the modern (stateless) era.
pub fn is_modern(version: &str) -> bool {
    era_of(version) == Some(Era::Stateless)
}

/// Whether `version` is one this crate speaks, in either era.
pub fn is_supported(version: &str) -> bool {
    era_of(version).is_some()
}

/// The versions of `era` this crate speaks, newest first.
pub fn versions(era: Era) -> impl Iterator<Item = &'static str> {
    VERSIONS
        .iter()
        .filter(move |&&(_, of)| of == era)
        .map(|&(version, _)| version)
}

/// Every version this crate speaks, newest first.
pub fn all_versions() -> impl Iterator<Item = &'static str> {
    VERSIONS.iter().map(|&(version, _)| version)
}

/// `_meta` keys of a modern-era request or result.
pub mod meta {
    /// The protocol version of this request (required on every modern request).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities (required on every modern request; may be `{}`).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version (advisory).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The lowest log level the client wants `notifications/message` for, for this request only.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, in the `_meta` of a `server/discover` result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The token progress notifications for this request carry (both eras).
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// The id of the `subscriptions/listen` request a notification on its stream belongs to
    /// (the request's JSON-RPC id, echoed unchanged).
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The task a legacy (2025-11-25) result or notification belongs to: `{taskId}`.
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
}

/// The tasks extension of 2026-07-28 (SEP-2663): the name a client declares under
/// `capabilities.extensions` on each request, and a server in `server/discover`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// HTTP headers of the Streamable HTTP transport.
pub mod header {
    /// The protocol version; in the modern era it must equal the request's `_meta` version.
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// The JSON-RPC method of the request (modern era, every request).
    pub const METHOD: &str = "mcp-method";
    /// `params.name` or `params.uri` (modern era; `tools/call`, `resources/read`, `prompts/get`).
    pub const NAME: &str = "mcp-name";
    /// Prefix of the headers that mirror tool parameters marked `x-mcp-header`.
    pub const PARAM_PREFIX: &str = "mcp-param-";
    /// The legacy era's session id (ignored by modern-era servers).
    pub const SESSION_ID: &str = "mcp-session-id";

    /// The member of `params` that a request of `method` mirrors in its `Mcp-Name` header
    /// (2026-07-28): `name` for a tool call and a prompt, `uri` for a resource read, `taskId`
    /// for the tasks extension's requests; `None` for every other method. The one rule the
    /// client (which writes the header) and the server (which checks it) share.
    #[cfg(any(feature = "client", feature = "server"))]
    pub(crate) fn name_member(method: &str) -> Option<&'static str> {
        match method {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
            _ => None,
        }
    }
}

/// JSON-RPC error codes added by MCP 2026-07-28.
pub mod code {
    /// An `Mcp-*` header disagrees with the request body (HTTP 400).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request lacks a client capability the server requires (HTTP 400).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol version is not supported; `data.supported` lists those that are
    /// (HTTP 400).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    /// Whether `code` is one of the errors only a modern-era server sends: over HTTP, a 400
    /// carrying one of these means "modern server, fix the request" rather than "legacy server,
    /// fall back to `initialize`".
    pub fn is_modern(code: i64) -> bool {
        matches!(
            code,
            HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION
        )
    }
}

/// The `resultType` of a modern-era result (absent means [`result_type::COMPLETE`]).
pub mod result_type {
    /// The request is answered.
    pub const COMPLETE: &str = "complete";
    /// The server needs input (`inputRequests`); the client retries the request with
    /// `inputResponses` and the `requestState` it was given (multi round-trip requests).
    pub const INPUT_REQUIRED: &str = "input_required";
    /// The call runs as a task (the tasks extension): the result is the task.
    pub const TASK: &str = "task";
}

/// Header values of the Streamable HTTP transport (`Mcp-Name`, `Mcp-Param-*`): plain when the
/// value is header-safe, else the Base64 sentinel form `=?base64?…?=` (2026-07-28,
/// `basic/transports/streamable-http`, "Value Encoding").
pub mod header_value {
    const PREFIX: &str = "=?base64?";
    const SUFFIX: &str = "?=";
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Whether `value` can be sent as it is: visible ASCII and inner spaces or tabs only, no
    /// leading or trailing whitespace, and not itself of the sentinel form.
    pub fn is_plain(value: &str) -> bool {
        value
            .bytes()
            .all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b))
            && !value.starts_with([' ', '\t'])
            && !value.ends_with([' ', '\t'])
            && (!value.starts_with(PREFIX) || !value.ends_with(SUFFIX))
    }

    /// The header value for `value`: itself when [`is_plain`], else `=?base64?{base64}?=`.
    ///
    /// ```
    /// use mcp_bindgen::era::header_value::encode;
    /// assert_eq!(encode("us-west1"), "us-west1");
    /// assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    /// ```
    pub fn encode(value: &str) -> String {
        if is_plain(value) {
            return value.to_owned();
        }
        let bytes = value.as_bytes();
        let mut out = String::with_capacity(PREFIX.len() + bytes.len().div_ceil(3) * 4 + 2);
        out.push_str(PREFIX);
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
                } else {
                    out.push('=');
                }
            }
        }
        out.push_str(SUFFIX);
        out
    }

    /// The text of an `x-mcp-header` argument, before [`encode`]: a string itself, a number or
    /// a boolean as JSON writes it; `None` for a value no header carries (null, an array, an
    /// object). The one rule the client (which writes `Mcp-Param-*` headers) and the server
    /// (which compares them with the body) share.
    #[cfg(any(feature = "client", feature = "server"))]
    pub(crate) fn argument_text(value: &serde_json::Value) -> Option<String> {
        match value {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The value a header carries: the decoded text of a sentinel-form value, else the value
    /// itself. `None` when the sentinel form holds invalid Base64 or bytes that are not UTF-8.
    ///
    /// ```
    /// use mcp_bindgen::era::header_value::decode;
    /// assert_eq!(decode("=?base64?IHBhZGRlZCA=?=").as_deref(), Some(" padded "));
    /// assert_eq!(decode("us-west1").as_deref(), Some("us-west1"));
    /// ```
    pub fn decode(header: &str) -> Option<String> {
        let Some(inner) = header
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.strip_suffix(SUFFIX))
        else {
            return Some(header.to_owned());
        };
        let inner = inner.as_bytes();
        if inner.len() % 4 != 0 {
            return None;
        }
        let mut bytes = Vec::with_capacity(inner.len() / 4 * 3);
        for (index, chunk) in inner.chunks(4).enumerate() {
            let last = index + 1 == inner.len() / 4;
            let pad = chunk.iter().rev().take_while(|&&b| b == b'=').count();
            if pad > 2 || (pad > 0 && !last) {
                return None;
            }
            let mut n = 0u32;
            for (i, &b) in chunk[..4 - pad].iter().enumerate() {
                let digit = ALPHABET.iter().position(|&a| a == b)? as u32;
                n |= digit << (18 - 6 * i);
            }
            let produced = 3 - pad;
            for i in 0..produced {
                bytes.push((n >> (16 - 8 * i)) as u8);
            }
        }
        String::from_utf8(bytes).ok()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The examples of the specification's "Value Encoding" table.
        #[test]
        fn the_specification_examples() {
            for (value, header) in [
                ("us-west1", "us-west1"),
                ("us west 1", "us west 1"),
                ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                (" padded ", "=?base64?IHBhZGRlZCA=?="),
                ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
                ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
                ("\tindented", "=?base64?CWluZGVudGVk?="),
                ("", ""),
            ] {
                assert_eq!(encode(value), header, "{value:?}");
                assert_eq!(decode(header).as_deref(), Some(value), "{header:?}");
            }
        }

        #[test]
        fn every_length_round_trips() {
            let text = "ab\u{e9}\u{4e16}\u{1f600}xyz\r\n";
            for end in text.char_indices().map(|(i, _)| i).chain([text.len()]) {
                let value = format!(" {}", &text[..end]);
                assert_eq!(decode(&encode(&value)).as_deref(), Some(value.as_str()));
            }
        }

        #[test]
        fn invalid_sentinels_are_refused() {
            for header in [
                "=?base64?abc?=",
                "=?base64?ab=c?=",
                "=?base64?a===?=",
                "=?base64?AA==AAAA?=",
                "=?base64?/w==?=",
                "=?base64?ab.c?=",
            ] {
                assert_eq!(decode(header), None, "{header}");
            }
        }
    }
}

/// The eight `notifications/message` severities, least severe first (RFC 5424 order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The wire name (`"info"`, `"warning"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level a wire name names.
    pub fn parse(name: &str) -> Option<LogLevel> {
        Some(match name {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod version_tests;
