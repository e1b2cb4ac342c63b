//! What the stages hand on about the definitions they make: the normaliser's output
//! ([`Normalised`]), the placeholders the type layer must undo ([`Substitution`]), and the
//! types it writes itself instead of typify ([`Handwritten`]).

use serde_json::Value;

/// A string enum value typify would name badly: it gets the placeholder `placeholder`, and the
/// generated code is rewritten to the real `value` and the variant name `variant`.
#[derive(Debug, Clone)]
pub(crate) struct Substitution {
    /// The string typify sees (an enum value or a property name).
    pub placeholder: String,
    /// The real value the generated code must use instead.
    pub value: String,
    /// The identifier typify derives from the placeholder...
    pub ident_from: String,
    /// ...and the one to use instead.
    pub ident_to: String,
}

/// One normalised schema: definitions for typify, the root among them.
#[derive(Debug, Default)]
pub(crate) struct Normalised {
    pub defs: Vec<(String, Value)>,
    pub substitutions: Vec<Substitution>,
    /// Definitions typify cannot type correctly, emitted by `types` itself (their entry in
    /// `defs` is left as `{}`).
    pub handwritten: Vec<Handwritten>,
    pub warnings: Vec<(String, String)>,
}

/// A type the type layer writes itself, because typify 0.8 would accept values the schema
/// forbids.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Handwritten {
    /// A one-value boolean or integer enum (`protocol: 1`, `ok: true`): a unit struct that
    /// encodes the value and decodes nothing else.
    Const {
        name: String,
        value: Value,
        description: Option<String>,
    },
    /// A `oneOf` of objects told apart by a boolean or integer property (typify makes these
    /// untagged enums that never look at the tag): each variant's other fields are the
    /// definition `payload`.
    Tagged {
        name: String,
        tag: String,
        variants: Vec<HandwrittenVariant>,
        description: Option<String>,
    },
}

impl Handwritten {
    /// The definition name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Handwritten::Const { name, .. } | Handwritten::Tagged { name, .. } => name,
        }
    }
}

/// One variant of [`Handwritten::Tagged`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HandwrittenVariant {
    pub name: String,
    /// The tag's value.
    pub value: Value,
    /// The definition holding the other fields.
    pub payload: String,
    pub description: Option<String>,
}
