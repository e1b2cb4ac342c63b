use std::fmt;

use serde_json::Value;

use crate::CallToolResult;

/// Everything a generated client method can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The call never produced a JSON-RPC answer: connection refused or closed, HTTP status,
    /// timeout, unreadable response.
    #[error("transport error: {message}")]
    Transport {
        /// What went wrong, for a person.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The server refused the credentials (HTTP 401 or 403), or none were configured for a
    /// server that needs them.
    #[error("authentication failed: {message}")]
    Auth {
        /// The HTTP status (401: missing or invalid token; 403: insufficient scope); 0 when the
        /// client refused to connect without credentials.
        status: u16,
        /// What went wrong.
        message: String,
        /// The server's `WWW-Authenticate` header (`Bearer error="insufficient_scope", ..`).
        www_authenticate: Option<String>,
    },
    /// The server answered with a JSON-RPC error (unknown tool, malformed request, ...).
    #[error("MCP error {code}: {message}")]
    Protocol {
        /// The JSON-RPC error code (`-32602` for an unknown tool, for example).
        code: i64,
        /// The error message the server sent.
        message: String,
        /// The error's `data`, when the server sent one.
        data: Option<Value>,
    },
    /// The tool ran and reported a failure (`isError: true`).
    #[error("MCP tool {tool} failed: {message}")]
    Tool {
        /// The tool's name.
        tool: String,
        /// The `error` of an `{ error, code? }` object, else the result's joined text.
        message: String,
        /// The `code` of an `{ error, code? }` object, when there is one.
        code: Option<String>,
        /// The whole result as the server sent it.
        result: Box<CallToolResult>,
    },
    /// The tool succeeded but its value does not fit the result type.
    #[error("could not decode the result of {tool} at {path}: {message}")]
    Decode {
        /// The tool's name.
        tool: String,
        /// JSON path of the first field that does not fit (`.`, `players[3].x`, ...).
        path: String,
        /// What serde said.
        message: String,
        /// The value that was being decoded.
        value: Box<Value>,
    },
    /// The arguments do not satisfy the tool's input schema; nothing was sent.
    #[error("invalid arguments for {tool}: {}: {message}", display_pointer(.pointer))]
    InvalidArguments {
        /// The tool's name.
        tool: String,
        /// JSON pointer into the arguments of the value that is refused (`""` is the whole
        /// arguments object).
        pointer: String,
        /// Why it is refused.
        message: String,
    },
}

fn display_pointer(pointer: &str) -> impl fmt::Display + '_ {
    struct P<'a>(&'a str);
    impl fmt::Display for P<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            if self.0.is_empty() {
                f.write_str("arguments")
            } else {
                write!(f, "arguments{}", self.0)
            }
        }
    }
    P(pointer)
}

impl Error {
    /// A transport error with a message and no source.
    pub fn transport(message: impl Into<String>) -> Self {
        Error::Transport {
            message: message.into(),
            source: None,
        }
    }

    /// A transport error wrapping the error that caused it.
    pub fn transport_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Transport {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// The tool's name, for errors that concern one tool.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Error::Tool { tool, .. }
            | Error::Decode { tool, .. }
            | Error::InvalidArguments { tool, .. } => Some(tool),
            Error::Transport { .. } | Error::Protocol { .. } | Error::Auth { .. } => None,
        }
    }

    /// The error code: the `code` of a tool failure, or the JSON-RPC code as text.
    pub fn code(&self) -> Option<String> {
        match self {
            Error::Tool { code, .. } => code.clone(),
            Error::Protocol { code, .. } => Some(code.to_string()),
            _ => None,
        }
    }
}
