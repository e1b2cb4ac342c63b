use std::fmt;

use serde_json::Value;

use crate::CallToolResult;

/// Everything a generated client method can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The call never produced a JSON-RPC answer: connection refused or closed, TLS failure,
    /// HTTP status, unreadable response. `Display` includes the underlying reason; `source()`
    /// returns it.
    #[error("transport error: {message}{}", Causes(source.as_deref()))]
    Transport {
        /// What went wrong, for a person.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// No answer came in time: the request was cancelled on the server (see
    /// [`Error::is_timeout`]).
    #[error("{message} timed out after {after:?}")]
    Timeout {
        /// What timed out (`tools/call echo`, `initialize`, ...).
        message: String,
        /// The time that was allowed.
        after: std::time::Duration,
    },
    /// The server refused the credentials (HTTP 401 or 403), or the client refused to send
    /// the request: no credentials for a server that needs them, or a bearer token that would
    /// travel in cleartext.
    #[error("authentication failed: {message}")]
    Auth {
        /// The HTTP status (401: missing or invalid token; 403: insufficient scope); `None`
        /// when the client refused before sending anything.
        status: Option<u16>,
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
    /// The server changed the tool (or the prompt, resource or resource template) since this
    /// client was generated, in a way that breaks the call, and the client's
    /// [`DriftPolicy`](crate::drift::DriftPolicy) is `Strict` or `PinDescriptions`; nothing
    /// was sent. `Display` lists the changes, one per line.
    #[error(
        "MCP {} {tool} changed since this client was generated, so it was not called:{}",
        changes.first().map_or("tool", |c| c.kind.as_str()),
        Lines(changes)
    )]
    Drift {
        /// The tool's name (or the prompt's, resource's or template's: each change says its
        /// `kind`).
        tool: String,
        /// Its breaking changes.
        changes: Vec<crate::drift::Change>,
    },
    /// A [`Replayer`](crate::cassette::Replayer) was asked for a call its cassette does not
    /// hold next (or at all): `message` shows what was recorded and what was received.
    /// Nothing reached a server; record the cassette again, or replay in any order.
    #[error("replaying {cassette}: {message}")]
    Replay {
        /// The cassette's path.
        cassette: String,
        /// What was recorded and what was received.
        message: String,
    },
    /// A skill's file is not what the skill's listing says (its size, its digest, or the
    /// `SKILL.md` frontmatter), or is not listed at all: it was not used, and neither is the
    /// rest of the skill. List or get the skill again, then load it anew.
    #[cfg(feature = "client")]
    #[error("skill {skill}: {file} was not used: {mismatch}")]
    Skill {
        /// The URI of the skill's `SKILL.md`.
        skill: String,
        /// The URI of the file that did not verify.
        file: String,
        /// What did not match.
        #[source]
        mismatch: mcp_bindgen_core::skill::Mismatch,
    },
}

/// `"\n  " and a change` for each change.
struct Lines<'a>(&'a [crate::drift::Change]);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in self.0 {
            write!(f, "\n  {}", crate::drift::Line(change))?;
        }
        Ok(())
    }
}

/// `": cause: its cause: ..."` for every error in a source chain.
struct Causes<'a>(Option<&'a (dyn std::error::Error + Send + Sync + 'static)>);

impl fmt::Display for Causes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut next: Option<&(dyn std::error::Error + 'static)> = match self.0 {
            Some(e) => Some(e),
            None => None,
        };
        let mut last = String::new();
        while let Some(error) = next {
            let text = error.to_string();
            // Wrappers often repeat their inner error's text; say each reason once.
            if !text.is_empty() && !last.contains(&text) {
                write!(f, ": {text}")?;
            }
            last = text;
            next = error.source();
        }
        Ok(())
    }
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

    /// A transport error caused by the HTTP client: its error without the URL it names (a
    /// server's URL may carry an API key in its query, and the cause's text is shown wherever
    /// the error is: messages, logs, traces).
    #[cfg(feature = "client")]
    pub(crate) fn web(message: impl Into<String>, cause: reqwest::Error) -> Self {
        Error::transport_source(message, cause.without_url())
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

    /// Whether the request ran out of time (the client's timeout, or a timeout reported by
    /// the I/O layer underneath).
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::Transport {
                source: Some(source),
                ..
            } => {
                let mut next: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
                while let Some(error) = next {
                    if let Some(io) = error.downcast_ref::<std::io::Error>()
                        && io.kind() == std::io::ErrorKind::TimedOut
                    {
                        return true;
                    }
                    #[cfg(feature = "client")]
                    if let Some(http) = error.downcast_ref::<reqwest::Error>()
                        && http.is_timeout()
                    {
                        return true;
                    }
                    next = error.source();
                }
                false
            }
            _ => false,
        }
    }

    /// The tool's name, for errors that concern one tool.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Error::Tool { tool, .. }
            | Error::Decode { tool, .. }
            | Error::InvalidArguments { tool, .. }
            | Error::Drift { tool, .. } => Some(tool),
            Error::Transport { .. }
            | Error::Timeout { .. }
            | Error::Protocol { .. }
            | Error::Auth { .. }
            | Error::Replay { .. } => None,
            #[cfg(feature = "client")]
            Error::Skill { .. } => None,
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

#[cfg(test)]
mod tests;
