//! The rules: every change `diff` reports carries one of these stable ids. Ids are never
//! renamed or reused; a new kind of change gets a new id.
//!
//! Severity is judged on the wire: `breaking` means a client built against the old tool list
//! can fail against the new server (a call it makes is refused, or a result it reads is not
//! what it expects); `warning` means its behaviour may change; `info` is everything else.
//! Rules of level `source` are only reported with `--level source`: they say what changes in
//! the Rust that `generate` writes (a `breaking` one there means code using the bindings may
//! stop compiling).
//!
//! Schema rules come in families over the constraints a schema puts on values. A constraint
//! is *narrowed* when the new schema admits fewer values, *widened* when it admits more, and
//! *changed* when neither admits all the other does. `inputSchema` is what the client sends,
//! so narrowing it breaks; `outputSchema` is what the client receives, so widening it breaks.
//!
//! The table below (the crate's `RULES.md`) gives every id, its severity and when it applies;
//! a test checks it against [`RULES`], [`CONSTRAINTS`] and [`lookup`].
//!
#![doc = include_str!("../RULES.md")]

use serde::Serialize;

/// How much a change matters to a client built against the old tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Nothing a client relies on.
    Info,
    /// Behaviour may change.
    Warning,
    /// A client can fail.
    Breaking,
}

impl Severity {
    /// `breaking`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Breaking => "breaking",
        }
    }
}

/// What a rule judges: the wire (default) or also the generated Rust (`--level source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// What a client sends and receives.
    #[default]
    Wire,
    /// Also what changes in the generated Rust.
    Source,
}

/// A rule with one id and one severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The stable id.
    pub id: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// Its level.
    pub level: Level,
}

const fn wire(id: &'static str, severity: Severity) -> Rule {
    Rule {
        id,
        severity,
        level: Level::Wire,
    }
}

const fn source(id: &'static str, severity: Severity) -> Rule {
    Rule {
        id,
        severity,
        level: Level::Source,
    }
}

use Severity::{Breaking, Info, Warning};

pub(crate) const TOOL_REMOVED: Rule = wire("tool-removed", Breaking);
pub(crate) const TOOL_ADDED: Rule = wire("tool-added", Info);
pub(crate) const TITLE_CHANGED: Rule = wire("title-changed", Info);
pub(crate) const DESCRIPTION_CHANGED: Rule = wire("description-changed", Info);
pub(crate) const READ_ONLY_HINT_CHANGED: Rule = wire("read-only-hint-changed", Warning);
pub(crate) const DESTRUCTIVE_HINT_CHANGED: Rule = wire("destructive-hint-changed", Warning);
pub(crate) const READ_ONLY_HINT_SAFER: Rule = wire("read-only-hint-safer", Info);
pub(crate) const DESTRUCTIVE_HINT_SAFER: Rule = wire("destructive-hint-safer", Info);
pub(crate) const IDEMPOTENT_HINT_CHANGED: Rule = wire("idempotent-hint-changed", Info);
pub(crate) const OPEN_WORLD_HINT_CHANGED: Rule = wire("open-world-hint-changed", Info);
pub(crate) const TASK_REQUIRED: Rule = wire("task-support-required", Breaking);
pub(crate) const TASK_SUPPORT_REMOVED: Rule = wire("task-support-removed", Warning);
pub(crate) const TASK_SUPPORT_RELAXED: Rule = wire("task-support-relaxed", Info);
pub(crate) const INPUT_REQUIRED_PROPERTY_ADDED: Rule =
    wire("input-required-property-added", Breaking);
pub(crate) const INPUT_PROPERTY_BECAME_REQUIRED: Rule =
    wire("input-property-became-required", Breaking);
pub(crate) const INPUT_PROPERTY_BECAME_OPTIONAL: Rule =
    wire("input-property-became-optional", Info);
pub(crate) const INPUT_PROPERTY_ADDED: Rule = wire("input-property-added", Info);
pub(crate) const INPUT_PROPERTY_REMOVED: Rule = wire("input-property-removed", Warning);
pub(crate) const INPUT_PROPERTY_REFUSED: Rule = wire("input-property-refused", Breaking);
pub(crate) const INPUT_DEFAULT_CHANGED: Rule = wire("input-default-changed", Warning);
pub(crate) const INPUT_ADDITIONAL_CLOSED: Rule =
    wire("input-additional-properties-closed", Warning);
pub(crate) const INPUT_ADDITIONAL_OPENED: Rule = wire("input-additional-properties-opened", Info);
pub(crate) const OUTPUT_PROPERTY_REMOVED: Rule = wire("output-property-removed", Breaking);
pub(crate) const OUTPUT_PROPERTY_BECAME_OPTIONAL: Rule =
    wire("output-property-became-optional", Breaking);
pub(crate) const OUTPUT_PROPERTY_BECAME_REQUIRED: Rule =
    wire("output-property-became-required", Info);
pub(crate) const OUTPUT_PROPERTY_ADDED: Rule = wire("output-property-added", Info);
pub(crate) const OUTPUT_ADDITIONAL_CLOSED: Rule = wire("output-additional-properties-closed", Info);
pub(crate) const OUTPUT_ADDITIONAL_OPENED: Rule = wire("output-additional-properties-opened", Info);
pub(crate) const OUTPUT_SCHEMA_ADDED: Rule = wire("output-schema-added", Info);
pub(crate) const OUTPUT_SCHEMA_REMOVED: Rule = wire("output-schema-removed", Breaking);
pub(crate) const COMPARISON_INCOMPLETE: Rule = wire("comparison-incomplete", Warning);
pub(crate) const UNRESOLVED_REF_CHANGED: Rule = wire("unresolved-ref-changed", Warning);
pub(crate) const SOURCE_RESULT_TYPE_CHANGED: Rule = source("source-result-type-changed", Breaking);
pub(crate) const SOURCE_FIELD_RENAMED: Rule = source("source-field-renamed", Breaking);
pub(crate) const SOURCE_FIELD_ADDED: Rule = source("source-field-added", Breaking);
pub(crate) const SOURCE_VARIANT_ADDED: Rule = source("source-variant-added", Warning);

pub(crate) const PROMPT_REMOVED: Rule = wire("prompt-removed", Breaking);
pub(crate) const PROMPT_ADDED: Rule = wire("prompt-added", Info);
pub(crate) const PROMPT_ARGUMENT_REQUIRED_ADDED: Rule =
    wire("prompt-argument-required-added", Breaking);
pub(crate) const PROMPT_ARGUMENT_BECAME_REQUIRED: Rule =
    wire("prompt-argument-became-required", Breaking);
pub(crate) const PROMPT_ARGUMENT_BECAME_OPTIONAL: Rule =
    wire("prompt-argument-became-optional", Info);
pub(crate) const PROMPT_ARGUMENT_ADDED: Rule = wire("prompt-argument-added", Info);
pub(crate) const PROMPT_ARGUMENT_REMOVED: Rule = wire("prompt-argument-removed", Warning);
pub(crate) const RESOURCE_REMOVED: Rule = wire("resource-removed", Breaking);
pub(crate) const RESOURCE_ADDED: Rule = wire("resource-added", Info);
pub(crate) const RESOURCE_URI_CHANGED: Rule = wire("resource-uri-changed", Breaking);
pub(crate) const TEMPLATE_REMOVED: Rule = wire("resource-template-removed", Breaking);
pub(crate) const TEMPLATE_ADDED: Rule = wire("resource-template-added", Info);
pub(crate) const TEMPLATE_CHANGED: Rule = wire("resource-template-changed", Breaking);
pub(crate) const SKILL_REMOVED: Rule = wire("skill-removed", Breaking);
pub(crate) const SKILL_ADDED: Rule = wire("skill-added", Info);
pub(crate) const SKILL_URI_CHANGED: Rule = wire("skill-uri-changed", Breaking);
pub(crate) const SKILL_CHANGED: Rule = wire("skill-changed", Warning);
pub(crate) const EVENT_REMOVED: Rule = wire("event-removed", Breaking);
pub(crate) const EVENT_ADDED: Rule = wire("event-added", Info);
pub(crate) const EVENT_DELIVERY_REMOVED: Rule = wire("event-delivery-removed", Breaking);
pub(crate) const EVENT_DELIVERY_ADDED: Rule = wire("event-delivery-added", Info);

/// Every rule with a fixed id (the constraint families are in [`CONSTRAINTS`]).
pub const RULES: &[Rule] = &[
    TOOL_REMOVED,
    TOOL_ADDED,
    TITLE_CHANGED,
    DESCRIPTION_CHANGED,
    READ_ONLY_HINT_CHANGED,
    DESTRUCTIVE_HINT_CHANGED,
    READ_ONLY_HINT_SAFER,
    DESTRUCTIVE_HINT_SAFER,
    IDEMPOTENT_HINT_CHANGED,
    OPEN_WORLD_HINT_CHANGED,
    TASK_REQUIRED,
    TASK_SUPPORT_REMOVED,
    TASK_SUPPORT_RELAXED,
    INPUT_REQUIRED_PROPERTY_ADDED,
    INPUT_PROPERTY_BECAME_REQUIRED,
    INPUT_PROPERTY_BECAME_OPTIONAL,
    INPUT_PROPERTY_ADDED,
    INPUT_PROPERTY_REMOVED,
    INPUT_PROPERTY_REFUSED,
    INPUT_DEFAULT_CHANGED,
    INPUT_ADDITIONAL_CLOSED,
    INPUT_ADDITIONAL_OPENED,
    OUTPUT_PROPERTY_REMOVED,
    OUTPUT_PROPERTY_BECAME_OPTIONAL,
    OUTPUT_PROPERTY_BECAME_REQUIRED,
    OUTPUT_PROPERTY_ADDED,
    OUTPUT_ADDITIONAL_CLOSED,
    OUTPUT_ADDITIONAL_OPENED,
    OUTPUT_SCHEMA_ADDED,
    OUTPUT_SCHEMA_REMOVED,
    COMPARISON_INCOMPLETE,
    UNRESOLVED_REF_CHANGED,
    SOURCE_RESULT_TYPE_CHANGED,
    SOURCE_FIELD_RENAMED,
    SOURCE_FIELD_ADDED,
    SOURCE_VARIANT_ADDED,
    PROMPT_REMOVED,
    PROMPT_ADDED,
    PROMPT_ARGUMENT_REQUIRED_ADDED,
    PROMPT_ARGUMENT_BECAME_REQUIRED,
    PROMPT_ARGUMENT_BECAME_OPTIONAL,
    PROMPT_ARGUMENT_ADDED,
    PROMPT_ARGUMENT_REMOVED,
    RESOURCE_REMOVED,
    RESOURCE_ADDED,
    RESOURCE_URI_CHANGED,
    TEMPLATE_REMOVED,
    TEMPLATE_ADDED,
    TEMPLATE_CHANGED,
    SKILL_REMOVED,
    SKILL_ADDED,
    SKILL_URI_CHANGED,
    SKILL_CHANGED,
    EVENT_REMOVED,
    EVENT_ADDED,
    EVENT_DELIVERY_REMOVED,
    EVENT_DELIVERY_ADDED,
];

/// The constraints of the `input-<constraint>-<outcome>` and `output-..` families.
pub const CONSTRAINTS: &[&str] = &[
    "type",
    "enum",
    "maximum",
    "minimum",
    "max-length",
    "min-length",
    "pattern",
    "format",
    "max-items",
    "min-items",
    "unique-items",
    "max-properties",
    "min-properties",
    "multiple-of",
    "any-of",
    "one-of",
    "all-of",
    "schema",
];

/// Which way a schema flows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// `inputSchema`: the client sends it.
    Input,
    /// `outputSchema`: the client receives it.
    Output,
}

impl Direction {
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Direction::Input => "input",
            Direction::Output => "output",
        }
    }
}

/// How a constraint moved between the old and the new schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The new schema admits fewer values.
    Narrowed,
    /// The new schema admits more values.
    Widened,
    /// Neither admits all the other does.
    Changed,
}

/// The id and severity of a constraint change.
pub(crate) fn constraint(direction: Direction, name: &str, outcome: Outcome) -> (String, Severity) {
    let (word, severity) = match (direction, outcome) {
        (Direction::Input, Outcome::Narrowed) => ("narrowed", Breaking),
        (Direction::Input, Outcome::Widened) => ("widened", Info),
        (Direction::Output, Outcome::Narrowed) => ("narrowed", Info),
        (Direction::Output, Outcome::Widened) => ("widened", Breaking),
        (_, Outcome::Changed) => ("changed", Breaking),
    };
    (format!("{}-{name}-{word}", direction.prefix()), severity)
}

/// The severity and level of rule `id` (fixed or of a constraint family), if it is one.
pub fn lookup(id: &str) -> Option<(Severity, Level)> {
    if let Some(rule) = RULES.iter().find(|r| r.id == id) {
        return Some((rule.severity, rule.level));
    }
    for direction in [Direction::Input, Direction::Output] {
        for name in CONSTRAINTS {
            for outcome in [Outcome::Narrowed, Outcome::Widened, Outcome::Changed] {
                let (rule, severity) = constraint(direction, name, outcome);
                if rule == id {
                    return Some((severity, Level::Wire));
                }
            }
        }
    }
    None
}

/// The rules about what a tool tells its caller rather than what it accepts or returns: its
/// title, its description and its behaviour hints. A team that reviews what its agent is told
/// treats these as breaking (the runtime's `DriftPolicy::PinDescriptions`).
pub const TOLD: &[Rule] = &[
    TITLE_CHANGED,
    DESCRIPTION_CHANGED,
    READ_ONLY_HINT_CHANGED,
    DESTRUCTIVE_HINT_CHANGED,
    READ_ONLY_HINT_SAFER,
    DESTRUCTIVE_HINT_SAFER,
    IDEMPOTENT_HINT_CHANGED,
    OPEN_WORLD_HINT_CHANGED,
];

/// Whether rule `id` is one of [`TOLD`].
pub fn is_told(id: &str) -> bool {
    TOLD.iter().any(|r| r.id == id)
}
