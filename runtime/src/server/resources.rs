//! Resources: static ones (a URI and a closure that reads it) and templates (an RFC 6570 URI
//! template whose variables a read fills, typed), listed by `resources/list` and
//! `resources/templates/list`, read by `resources/read`; and completion of prompt and template
//! arguments (`completion/complete`).

use serde_json::{Map, Value};

use super::ToolError;
use crate::{Completion, CompletionRef, ResourceContents};

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

    /// Sets what it holds.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets its MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets its display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
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

    /// Sets what its resources hold.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets their MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
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

pub(crate) type Read<Ctx> =
    Box<dyn FnMut(&mut Ctx) -> Result<Vec<ResourceContents>, ToolError> + Send>;
pub(crate) type ReadTemplate<Ctx> = Box<
    dyn FnMut(&mut Ctx, &str, Map<String, Value>) -> Result<Vec<ResourceContents>, ToolError>
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

/// An RFC 6570 URI template, for matching URIs against it (levels 1 to 4: simple, reserved
/// `+`, fragment `#`, label `.`, path `/`, path-parameter `;`, query `?` and `&` expressions,
/// explode `*`, prefixes `:n`).
#[derive(Debug)]
pub(crate) struct UriTemplate {
    regex: Option<regress::Regex>,
    expressions: Vec<Expression>,
}

#[derive(Debug)]
struct Expression {
    operator: Option<char>,
    variables: Vec<(String, bool)>,
}

impl UriTemplate {
    pub(crate) fn new(template: &str) -> UriTemplate {
        let mut pattern = String::from("^");
        let mut expressions = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            pattern.push_str(&escape(&rest[..open]));
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            rest = &rest[open + close + 1..];
            let (operator, list) = match body.chars().next() {
                Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &body[1..]),
                _ => (None, body),
            };
            let variables: Vec<(String, bool)> = list
                .split(',')
                .map(|v| {
                    let v = v.split(':').next().unwrap_or(v);
                    match v.strip_suffix('*') {
                        Some(name) => (name.to_owned(), true),
                        None => (v.to_owned(), false),
                    }
                })
                .collect();
            pattern.push_str(match operator {
                None => "([^/?#&]*)",
                Some('+') => "([^?#]*)",
                Some('#') => "(#.*)?",
                Some('.') => "((?:\\.[^/?#]*)?)",
                Some('/') => "((?:/[^/?#]*)*)",
                Some(';') => "((?:;[^/?#]*)*)",
                Some('?') => "(\\?[^#]*)?",
                _ => "(&[^#]*)?",
            });
            expressions.push(Expression {
                operator,
                variables,
            });
        }
        pattern.push_str(&escape(rest));
        pattern.push('$');
        UriTemplate {
            regex: regress::Regex::new(&pattern).ok(),
            expressions,
        }
    }

    /// The variables of `uri`, when it fits: strings, and arrays for exploded variables.
    pub(crate) fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        let found = self.regex.as_ref()?.find(uri)?;
        let mut variables = Map::new();
        for (i, expression) in self.expressions.iter().enumerate() {
            let Some(range) = found.group(i + 1) else {
                continue;
            };
            expression.read(&uri[range], &mut variables);
        }
        Some(variables)
    }
}

impl Expression {
    fn read(&self, text: &str, into: &mut Map<String, Value>) {
        let (prefix, separator, named) = match self.operator {
            None | Some('+') => ("", ',', false),
            Some('#') => ("#", ',', false),
            Some('.') => (".", '.', false),
            Some('/') => ("/", '/', false),
            Some(';') => (";", ';', true),
            Some('?') => ("?", '&', true),
            _ => ("&", '&', true),
        };
        let Some(text) = text.strip_prefix(prefix) else {
            return;
        };
        if text.is_empty() && prefix.is_empty() && self.variables.len() == 1 {
            into.insert(self.variables[0].0.clone(), Value::String(String::new()));
            return;
        }
        if named {
            for pair in text.split(separator).filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let key = decode(key);
                let value = Value::String(decode(value));
                let exploded = self
                    .variables
                    .iter()
                    .any(|(name, explode)| *explode && *name == key);
                match into.get_mut(&key) {
                    Some(Value::Array(values)) if exploded => values.push(value),
                    _ if exploded => {
                        into.insert(key, Value::Array(vec![value]));
                    }
                    _ => {
                        into.insert(key, value);
                    }
                }
            }
            return;
        }
        let pieces: Vec<String> =
            if self.variables.len() == 1 && !self.variables[0].1 && separator == ',' {
                vec![decode(text)]
            } else {
                text.split(separator).map(decode).collect()
            };
        if let [(name, true)] = self.variables.as_slice() {
            into.insert(
                name.clone(),
                Value::Array(pieces.into_iter().map(Value::String).collect()),
            );
            return;
        }
        for ((name, _), piece) in self.variables.iter().zip(pieces) {
            into.insert(name.clone(), Value::String(piece));
        }
    }
}

/// `text` with the regex syntax characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Percent-decoding (an invalid escape is kept as written).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(template: &str, uri: &str) -> Option<Value> {
        UriTemplate::new(template).matches(uri).map(Value::Object)
    }

    #[test]
    fn templates_match_uris_of_every_level() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(json!({"id": "123"}))
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://other/1/data"),
            None
        );
        assert_eq!(
            vars("level://{name}", "level://dark%20forest"),
            Some(json!({"name": "dark forest"}))
        );
        assert_eq!(
            vars("file:///{+path}", "file:///maps/a/b.json"),
            Some(json!({"path": "maps/a/b.json"}))
        );
        assert_eq!(
            vars("map://{x},{y}", "map://3,4"),
            Some(json!({"x": "3", "y": "4"}))
        );
        assert_eq!(
            vars("map://{x,y}", "map://3,4"),
            Some(json!({"x": "3", "y": "4"}))
        );
        assert_eq!(
            vars("repo://{owner}{/path*}", "repo://me/src/lib.rs"),
            Some(json!({"owner": "me", "path": ["src", "lib.rs"]}))
        );
        assert_eq!(
            vars(
                "search://items{?q,limit}",
                "search://items?q=red%20key&limit=5"
            ),
            Some(json!({"q": "red key", "limit": "5"}))
        );
        assert_eq!(
            vars("search://items{?q,limit}", "search://items"),
            Some(json!({}))
        );
        assert_eq!(
            vars("tags://x{?tag*}", "tags://x?tag=a&tag=b"),
            Some(json!({"tag": ["a", "b"]}))
        );
        assert_eq!(
            vars("tags://x{?tag*}", "tags://x?tag=a"),
            Some(json!({"tag": ["a"]})),
            "an exploded variable is a list even of one"
        );
        assert_eq!(
            vars("doc://{id}{#section}", "doc://7#intro"),
            Some(json!({"id": "7", "section": "intro"}))
        );
        assert_eq!(
            vars("name://{first:3}.txt", "name://abc.txt"),
            Some(json!({"first": "abc"}))
        );
        assert_eq!(
            vars("a.b://{x}", "aXb://1"),
            None,
            "literals are not patterns"
        );
    }

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
