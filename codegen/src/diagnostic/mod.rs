//! Located messages: every error and warning a user can cause names the file, a line:column or
//! JSON pointer, shows the offending line and says what to do.

pub(crate) mod locate;

use std::fmt;
use std::path::{Path, PathBuf};

pub use locate::LineCol;

/// A located problem with an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user named it (relative paths stay relative).
    pub file: PathBuf,
    /// Where in the file, when known.
    pub at: Option<LineCol>,
    /// JSON pointer into the document, for JSON inputs.
    pub pointer: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The offending source line, when known.
    pub source_line: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic for `file` with a message and nothing else.
    pub fn new(file: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.as_ref().to_path_buf(),
            at: None,
            pointer: None,
            message: message.into(),
            source_line: None,
            help: None,
        }
    }

    /// Points at a line and column of `text`, and keeps that line to show it.
    pub fn at(mut self, text: &str, at: LineCol) -> Self {
        self.source_line = text.lines().nth(at.line - 1).map(str::to_owned);
        self.at = Some(at);
        self
    }

    /// Points at a JSON pointer; when `text` is the JSON it came from, also at its line:column.
    pub fn pointer(mut self, text: Option<&str>, pointer: impl Into<String>) -> Self {
        let pointer = pointer.into();
        if let Some(text) = text
            && let Some(at) = locate::locate(text, &pointer)
        {
            self = self.at(text, at);
        }
        self.pointer = Some(pointer);
        self
    }

    /// Adds what to do.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Located {
            file: &self.file,
            at: self.at,
            pointer: self.pointer.as_deref(),
            tool: None,
            message: &self.message,
            source_line: self.source_line.as_deref(),
            help: self.help.as_deref(),
        }
        .fmt(f)
    }
}

/// The one rendering of a located message, errors and warnings alike: the file, its
/// `:line:column` and ` (at /pointer)` when known, the tool when there is one, the message,
/// then the offending line with a caret under the column, then what to do (`= help: ..`).
struct Located<'a> {
    file: &'a Path,
    at: Option<LineCol>,
    pointer: Option<&'a str>,
    tool: Option<&'a str>,
    message: &'a str,
    source_line: Option<&'a str>,
    help: Option<&'a str>,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(at) = self.at {
            write!(f, ":{}:{}", at.line, at.column)?;
        }
        if let Some(pointer) = self.pointer {
            write!(f, " (at {})", display_pointer(pointer))?;
        }
        if let Some(tool) = self.tool {
            write!(f, ": tool `{tool}`")?;
        }
        write!(f, ": {}", self.message)?;
        if let (Some(line), Some(at)) = (self.source_line, self.at) {
            let number = at.line.to_string();
            let pad = " ".repeat(number.len());
            // Show at most 160 characters of a long (minified) line, around the column.
            let (shown, caret) = window(line, at.column, 160);
            write!(
                f,
                "\n{pad} |\n{number} | {shown}\n{pad} | {}^",
                " ".repeat(caret)
            )?;
        }
        if let Some(help) = self.help {
            write!(f, "\n  = help: {help}")?;
        }
        Ok(())
    }
}

/// `""` is the document root, which reads better as `/`.
fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// The part of `line` to show around 1-based `column`, and the caret's offset in it.
fn window(line: &str, column: usize, width: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let col = column.saturating_sub(1).min(chars.len());
    if chars.len() <= width {
        return (line.to_owned(), col);
    }
    let start = col.saturating_sub(width / 2);
    let end = (start + width).min(chars.len());
    let mut shown: String = chars[start..end].iter().collect();
    let mut caret = col - start;
    if start > 0 {
        shown.insert_str(0, "...");
        caret += 3;
    }
    if end < chars.len() {
        shown.push_str("...");
    }
    (shown, caret)
}

/// Where the stages report on one JSON input (a server's capture): errors and warnings located
/// by JSON pointer in its text, the warnings kept in the order they were given.
#[derive(Debug)]
pub(crate) struct Reporter<'a> {
    file: &'a Path,
    text: &'a str,
    warnings: Vec<Warning>,
}

impl<'a> Reporter<'a> {
    /// Reports on `text`, read from `file`.
    pub(crate) fn new(file: &'a Path, text: &'a str) -> Self {
        Reporter {
            file,
            text,
            warnings: Vec::new(),
        }
    }

    /// The file reported on.
    pub(crate) fn file(&self) -> &'a Path {
        self.file
    }

    /// An error at `pointer`, with what to do about it.
    pub(crate) fn error(&self, pointer: &str, message: String, help: &str) -> Diagnostic {
        Diagnostic::new(self.file, message)
            .pointer(Some(self.text), pointer)
            .help(help)
    }

    /// A warning about `tool`, at `pointer`.
    pub(crate) fn warn(&mut self, tool: &str, pointer: String, message: String) {
        self.warnings.push(Warning {
            file: self.file.to_path_buf(),
            at: locate::locate(self.text, &pointer),
            tool: Some(tool.to_owned()),
            pointer: Some(pointer),
            message,
        });
    }

    /// The warnings given, in order.
    pub(crate) fn into_warnings(self) -> Vec<Warning> {
        self.warnings
    }
}

/// A problem the generator worked around: the affected type is looser than the schema (its
/// values are still checked against the schema before a call is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The input file.
    pub file: PathBuf,
    /// Where in the file, when known.
    pub at: Option<LineCol>,
    /// The tool concerned, when there is one.
    pub tool: Option<String>,
    /// JSON pointer into the input file.
    pub pointer: Option<String>,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Located {
            file: &self.file,
            at: self.at,
            pointer: self.pointer.as_deref(),
            tool: self.tool.as_deref(),
            message: &self.message,
            source_line: None,
            help: None,
        }
        .fmt(f)
    }
}
