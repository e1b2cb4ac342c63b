//! Protocol facts shared by the client and the server sides: the two protocol eras, the
//! `_meta` keys and HTTP headers of MCP 2026-07-28, and the error codes that revision added.
//!
//! MCP revisions up to 2025-11-25 are the *legacy* era (an `initialize` handshake, then a
//! session); 2026-07-28 is the *modern* era (stateless: every request carries its protocol
//! version, client capabilities and client info in `params._meta`, and no handshake).

/// Legacy-era protocol versions this crate speaks, oldest first.
pub const LEGACY_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Modern-era (stateless) protocol versions this crate speaks, oldest first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// The newest legacy-era version.
pub const LATEST_LEGACY: &str = "2025-11-25";

/// The newest modern-era version.
pub const LATEST_MODERN: &str = "2026-07-28";

/// Whether `version` belongs to the modern (stateless) era.
pub fn is_modern(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version)
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
}

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
}

/// Every version this crate speaks, newest first: what `server/discover` lists as
/// `supportedVersions` and an unsupported-version error as `data.supported`.
pub const ALL_VERSIONS: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// Whether `version` is one this crate speaks, in either era.
pub fn is_supported(version: &str) -> bool {
    ALL_VERSIONS.contains(&version)
}

/// Decodes an `Mcp-Name` / `Mcp-Param-*` header value: the value itself, or the text inside
/// the sentinel form `=?base64?<standard base64 of the UTF-8 bytes>?=` that values which are not
/// header-safe use. `None` when a sentinel's payload is not base64 of UTF-8 text.
pub fn decode_header_value(value: &str) -> Option<String> {
    let value = value.trim_matches([' ', '\t']);
    let Some(payload) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    String::from_utf8(base64_decode(payload)?).ok()
}

/// Standard base64 (RFC 4648 section 4), padded to a multiple of four characters.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    if bytes.len() % 4 == 1 || text.len() - bytes.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= sextet(c)? << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    Some(out)
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
mod tests {
    use super::*;

    #[test]
    fn header_values_decode_plain_and_sentinel_forms() {
        assert_eq!(decode_header_value("add").as_deref(), Some("add"));
        assert_eq!(decode_header_value(" add\t").as_deref(), Some("add"));
        // "héllo wörld" in standard base64, with and without padding.
        assert_eq!(
            decode_header_value("=?base64?aMOpbGxvIHfDtnJsZA==?=").as_deref(),
            Some("héllo wörld")
        );
        // Padding is required (SEP-2243's test table rejects "SGVsbG8").
        assert_eq!(decode_header_value("=?base64?aMOpbGxvIHfDtnJsZA?="), None);
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
        assert_eq!(decode_header_value("=?base64?SGVs!!!bG8=?="), None);
        // Without the whole wrapper, a value is literal.
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(decode_header_value("=?base64?YQ==?=").as_deref(), Some("a"));
        assert_eq!(
            decode_header_value("=?base64?YWI=?=").as_deref(),
            Some("ab")
        );
        assert_eq!(
            decode_header_value("=?base64?YWJj?=").as_deref(),
            Some("abc")
        );
        assert_eq!(decode_header_value("=?base64?not*base64?="), None);
        assert_eq!(decode_header_value("=?base64?Y?="), None);
        // Valid base64 of bytes that are not UTF-8.
        assert_eq!(decode_header_value("=?base64?/w==?="), None);
    }

    #[test]
    fn log_levels_order_and_round_trip() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        for name in [
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency",
        ] {
            assert_eq!(LogLevel::parse(name).map(LogLevel::as_str), Some(name));
        }
        assert_eq!(LogLevel::parse("verbose"), None);
    }
}
