//! Forced failures, for tests: one tool made to fail at one stage of the generator, to prove
//! that it alone degrades there (and the module still compiles). Not part of the stable API.

/// A stage of the generator a tool's schemas go through.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// The normaliser, on the tool's input schema (made to panic).
    Normalise,
    /// typify, adding the tool's argument types (made to refuse them).
    Typify,
    /// typify, writing the Rust of a type space that holds the tool's argument types (made to
    /// panic when they are written after other tools' types, not alone).
    Render,
    /// The post-pass over typify's output (made to leave the tool's argument type naming a
    /// type that does not exist).
    PostPass,
    /// typify, adding the tool's result type from its `outputSchema` (made to refuse it).
    Output,
}

impl Stage {
    /// Every stage, in the order a schema goes through them.
    pub const ALL: [Stage; 5] = [
        Stage::Normalise,
        Stage::Typify,
        Stage::Render,
        Stage::PostPass,
        Stage::Output,
    ];
}

/// A failure forced on `tool` at `stage`.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The tool's name, as captured.
    pub tool: String,
    /// Where it fails.
    pub stage: Stage,
}

/// The message of a forced failure.
pub(crate) const INJECTED: &str = "failure forced by a test";
