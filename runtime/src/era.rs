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
