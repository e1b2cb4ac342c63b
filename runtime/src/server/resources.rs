//! Resources: static ones (a URI and a closure that reads it) and templates (an RFC 6570 URI
//! template whose variables a read fills, typed), listed by `resources/list` and
//! `resources/templates/list`, read by `resources/read`; and completion of prompt and template
//! arguments (`completion/complete`).

use serde_json::{Map, Value};

use super::ToolError;
use super::input::{Input, Outcome};
use crate::uri_template::UriTemplate;
use crate::{Completion, CompletionRef, ResourceContents};

/// The builder methods both listings share: `title`, `description` and `mime_type`.
macro_rules! described {
    ($type:ident) => {
        impl $type {
            /// Sets the display name.
            #[must_use]
            pub fn title(mut self, title: impl Into<String>) -> Self {
                self.title = Some(title.into());
                self
            }

            /// Sets what it holds.
            #[must_use]
            pub fn description(mut self, description: impl Into<String>) -> Self {
                self.description = Some(description.into());
                self
            }

            /// Sets the MIME type of its contents.
            #[must_use]
            pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
                self.mime_type = Some(mime_type.into());
                self
            }
        }
    };
}

described!(ResourceDefinition);
described!(TemplateDefinition);

/// One entry of `resources/list`: a resource at a fixed URI.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDefinition {
    /// Its URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
}

impl ResourceDefinition {
    /// A resource at `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceDefinition {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// The `Resource` object of `resources/list`.
    pub fn to_json(&self) -> Value {
        let mut resource = Map::new();
        resource.insert("uri".into(), Value::String(self.uri.clone()));
        describe(
            &mut resource,
            &self.name,
            self.title.as_ref(),
            self.description.as_ref(),
            self.mime_type.as_ref(),
        );
        Value::Object(resource)
    }
}

/// One entry of `resources/templates/list`: resources whose URIs fit an RFC 6570 template.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateDefinition {
    /// The URI template (`level://{id}/map`).
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// Their MIME type.
    pub mime_type: Option<String>,
}

impl TemplateDefinition {
    /// Resources at the URIs that fit `uri_template`, named `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        TemplateDefinition {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// The `ResourceTemplate` object of `resources/templates/list`.
    pub fn to_json(&self) -> Value {
        let mut template = Map::new();
        template.insert(
            "uriTemplate".into(),
            Value::String(self.uri_template.clone()),
        );
        describe(
            &mut template,
            &self.name,
            self.title.as_ref(),
            self.description.as_ref(),
            self.mime_type.as_ref(),
        );
        Value::Object(template)
    }
}

fn describe(
    object: &mut Map<String, Value>,
    name: &str,
    title: Option<&String>,
    description: Option<&String>,
    mime_type: Option<&String>,
) {
    object.insert("name".into(), Value::String(name.to_owned()));
    for (key, value) in [
        ("title", title),
        ("description", description),
        ("mimeType", mime_type),
    ] {
        if let Some(value) = value {
            object.insert(key.into(), Value::String(value.clone()));
        }
    }
}

/// A resource's contents, or the input its handler needs first (2026-07-28).
pub(crate) type Read<Ctx> =
    Box<dyn FnMut(&mut Ctx, &Input) -> Result<Outcome<Vec<ResourceContents>>, ToolError> + Send>;
/// A templated resource's contents, from its URI and variables, or the input needed first.
pub(crate) type ReadTemplate<Ctx> = Box<
    dyn FnMut(
            &mut Ctx,
            &str,
            Map<String, Value>,
            &Input,
        ) -> Result<Outcome<Vec<ResourceContents>>, ToolError>
        + Send,
>;
pub(crate) type Complete<Ctx> =
    Box<dyn FnMut(&mut Ctx, &str, &Map<String, Value>) -> Vec<String> + Send>;

pub(crate) struct Resource<Ctx> {
    pub(crate) def: ResourceDefinition,
    pub(crate) read: Read<Ctx>,
}

pub(crate) struct Template<Ctx> {
    pub(crate) def: TemplateDefinition,
    pub(crate) pattern: UriTemplate,
    pub(crate) read: ReadTemplate<Ctx>,
}

pub(crate) struct Completer<Ctx> {
    pub(crate) reference: CompletionRef,
    pub(crate) argument: String,
    pub(crate) complete: Complete<Ctx>,
}

/// The values that start with `prefix` (case-insensitively), as a [`Completion`]: a helper for
/// completers over a fixed or computed list.
pub fn complete_from<I, S>(values: I, prefix: &str) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let prefix = prefix.to_lowercase();
    values
        .into_iter()
        .map(Into::into)
        .filter(|v: &String| v.to_lowercase().starts_with(&prefix))
        .collect()
}

/// `V` from a URI's variables (strings, lists of strings): as they are, or else with the
/// strings that read as JSON numbers or booleans read so (`{id}` into a `u32` field).
pub(crate) fn typed<V: serde::de::DeserializeOwned>(
    variables: Map<String, Value>,
) -> Result<V, serde_json::Error> {
    fn scalar(value: Value) -> Value {
        match value {
            Value::String(text) => match serde_json::from_str::<Value>(&text) {
                Ok(read @ (Value::Number(_) | Value::Bool(_))) => read,
                _ => Value::String(text),
            },
            Value::Array(items) => Value::Array(items.into_iter().map(scalar).collect()),
            other => other,
        }
    }
    let first = match serde_json::from_value(Value::Object(variables.clone())) {
        Ok(typed) => return Ok(typed),
        Err(e) => e,
    };
    let read: Map<String, Value> = variables
        .into_iter()
        .map(|(name, value)| (name, scalar(value)))
        .collect();
    serde_json::from_value(Value::Object(read)).map_err(|_| first)
}

/// The `completion` member of a `completion/complete` result.
pub(crate) fn completion(values: Vec<String>) -> Value {
    serde_json::to_value(Completion::of(values)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_from_a_list_keeps_prefix_matches() {
        assert_eq!(
            complete_from(["Goblin", "goat", "Orc"], "go"),
            vec!["Goblin", "goat"]
        );
        let many: Vec<String> = (0..150).map(|i| format!("e{i}")).collect();
        let completion = completion(many);
        assert_eq!(completion["values"].as_array().unwrap().len(), 100);
        assert_eq!(completion["total"], 150);
        assert_eq!(completion["hasMore"], true);
    }
}
