//! [`Error`]: everything that stops generation.

use std::path::PathBuf;

use crate::diagnostic::Diagnostic;

/// Everything that stops generation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// An input is wrong: the message says where and what to do.
    #[error("{0}")]
    Input(Box<Diagnostic>),
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error::Input(Box::new(d))
    }
}

impl Error {
    /// The located diagnostic, for input errors.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            Error::Input(d) => Some(d),
            Error::Io { .. } => None,
        }
    }
}
