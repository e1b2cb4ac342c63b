//! Drift: what changed in a server's tools since a client was generated from them.
//!
//! Every generated module records its [`Provenance`]: the generator, the digest of the tools
//! its client calls, and those tools' definitions. The client transports
//! ([`HttpClient`](crate::HttpClient), [`StdioClient`](crate::StdioClient)) compare it with the
//! server's `tools/list` before the first call of a generated method, and again after the server
//! announces a new list (`notifications/tools/list_changed`) or the list it sent expires
//! (`ttlMs`, 2026-07-28). Equal digests end the check; otherwise each change is classified by
//! the rules of `mcp-bindgen diff` (the `mcp-bindgen-diff` crate, the same code), restricted to
//! the tools the client calls, and the [`DriftPolicy`] decides what happens to calls.

use std::fmt;

pub use mcp_bindgen_diff::{Change, Kind, Severity};
use serde_json::Value;

use crate::ToolSchema;

/// What a generated module was made from: written by the generator as the module's
/// `PROVENANCE`, read by the client's drift check.
#[derive(Debug, Clone, Copy)]
pub struct Provenance {
    generator: &'static str,
    digest: &'static str,
    names: &'static [&'static str],
    tools: &'static str,
    input_schemas: &'static [&'static ToolSchema],
    catalog_digest: &'static str,
    catalog: &'static str,
}

impl PartialEq for Provenance {
    fn eq(&self, other: &Self) -> bool {
        let schemas = |p: &Self| p.input_schemas.iter().map(|s| s.json());
        self.generator == other.generator
            && self.digest == other.digest
            && self.names == other.names
            && self.tools == other.tools
            && schemas(self).eq(schemas(other))
            && self.catalog_digest == other.catalog_digest
            && self.catalog == other.catalog
    }
}

impl Eq for Provenance {}

impl Provenance {
    /// The provenance of a module: the generator (`mcp-bindgen 0.1.0`), the digest of its
    /// tools (`sha256:…`, see `mcp_bindgen_core::digest`), their names and their canonical
    /// JSON.
    pub const fn new(
        generator: &'static str,
        digest: &'static str,
        names: &'static [&'static str],
        tools: &'static str,
    ) -> Self {
        Provenance {
            generator,
            digest,
            names,
            tools,
            input_schemas: &[],
            catalog_digest: "",
            catalog: "",
        }
    }

    /// The same, its tools' input schemas kept beside it rather than in its JSON: `schemas`
    /// holds one per name, in the order of [`Self::names`], and [`Self::definitions`] puts each
    /// back into its tool. A generated module records its tools this way, so that each schema
    /// is written once, in its `schemas` module, which its methods check arguments with.
    pub const fn with_input_schemas(self, schemas: &'static [&'static ToolSchema]) -> Self {
        Provenance {
            input_schemas: schemas,
            ..self
        }
    }

    /// The same, with the prompts, resources and resource templates the module's methods
    /// use: their digest and canonical JSON (see `mcp_bindgen_diff::catalog::Catalog`). The
    /// client checks them against the server's lists before such a method's request, as it
    /// checks tools.
    pub const fn with_catalog(self, digest: &'static str, catalog: &'static str) -> Self {
        Provenance {
            catalog_digest: digest,
            catalog,
            ..self
        }
    }

    /// The generator and its version.
    pub const fn generator(&self) -> &'static str {
        self.generator
    }

    /// The digest of the tools the module's client calls, as the server listed them then.
    pub const fn digest(&self) -> &'static str {
        self.digest
    }

    /// The names of the tools the module's client calls.
    pub const fn names(&self) -> &'static [&'static str] {
        self.names
    }

    /// Those tools' definitions as recorded: a JSON array in canonical form, without the
    /// input schemas kept beside it ([`Self::with_input_schemas`]). [`Self::definitions`]
    /// gives them whole.
    pub const fn tools(&self) -> &'static str {
        self.tools
    }

    /// The input schemas kept beside the definitions, one per name (empty when the
    /// definitions hold their own).
    pub const fn input_schemas(&self) -> &'static [&'static ToolSchema] {
        self.input_schemas
    }

    /// Those tools' definitions, whole: the recorded JSON parsed, each tool's input schema put
    /// back from [`Self::input_schemas`]. Empty when the recorded text is not a JSON array.
    pub fn definitions(&self) -> Vec<Value> {
        let mut tools: Vec<Value> = serde_json::from_str(self.tools).unwrap_or_default();
        if self.input_schemas.is_empty() {
            return tools;
        }
        let schema_of = |name: &str| {
            let schema = self
                .names
                .iter()
                .position(|n| *n == name)
                .and_then(|i| self.input_schemas.get(i))
                .and_then(|schema| schema.schema());
            Ok::<_, std::convert::Infallible>(schema.cloned())
        };
        let Ok(()) = mcp_bindgen_core::recorded::put_back_input_schemas(&mut tools, schema_of);
        tools
    }

    /// The digest of the prompts, resources and templates the module's methods use (empty
    /// when it has none).
    pub const fn catalog_digest(&self) -> &'static str {
        self.catalog_digest
    }

    /// Their canonical JSON (empty when the module has none).
    pub const fn catalog(&self) -> &'static str {
        self.catalog
    }
}

/// What a client does when the server's tools changed since it was generated (set with the
/// builders' `drift_policy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DriftPolicy {
    /// Report breaking changes and warnings (the `on_drift` handler, and `log` at `warn`);
    /// calls go on.
    #[default]
    Warn,
    /// As `Warn`, and a call of a tool with a breaking change fails with [`Error::Drift`]
    /// before anything is sent. Calls of the other tools go on.
    ///
    /// [`Error::Drift`]: crate::Error::Drift
    Strict,
    /// As `Strict`, and a changed title, description or annotation also counts as breaking:
    /// for teams that review what their agent is told.
    PinDescriptions,
    /// No check: no `tools/list` is sent for it.
    Off,
}

impl DriftPolicy {
    /// Whether a call of a tool with a breaking change fails.
    pub fn blocks(self) -> bool {
        matches!(self, DriftPolicy::Strict | DriftPolicy::PinDescriptions)
    }
}

/// The outcome of one drift check: the server's tools against a module's [`Provenance`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriftReport {
    /// The digest the module recorded.
    pub expected: String,
    /// The digest of the same tools as the server lists them now.
    pub live: String,
    /// Each change to a tool the client calls, most severe first (empty when the digests are
    /// equal, or when they differ only where no rule applies, such as number spelling).
    pub changes: Vec<Change>,
}

impl DriftReport {
    /// Whether the server's tools are those the module was generated from.
    pub fn unchanged(&self) -> bool {
        self.expected == self.live
    }

    /// Whether any change is at least `severity`.
    pub fn breaks(&self, severity: Severity) -> bool {
        self.changes.iter().any(|c| c.severity >= severity)
    }

    /// The breaking changes to `tool`.
    pub fn breaking(&self, tool: &str) -> Vec<Change> {
        self.changes
            .iter()
            .filter(|c| c.tool == tool && c.severity == Severity::Breaking)
            .cloned()
            .collect()
    }
}

impl fmt::Display for DriftReport {
    /// One line per change, `diff`'s text format: `breaking echo input-… /inputSchema/…: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            return if self.unchanged() {
                write!(
                    f,
                    "the server's tools are those the client was generated from"
                )
            } else {
                write!(
                    f,
                    "the server's tools changed, but nothing a client relies on"
                )
            };
        }
        for (i, change) in self.changes.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", Line(change))?;
        }
        Ok(())
    }
}

/// One change as a line: severity, tool, rule, pointer, message.
pub(crate) struct Line<'a>(pub(crate) &'a Change);

impl fmt::Display for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        let at = if c.pointer.is_empty() { "" } else { " " };
        write!(
            f,
            "{} {} {}{at}{}: {}",
            c.severity.as_str(),
            c.tool,
            c.rule,
            c.pointer,
            c.message
        )
    }
}
