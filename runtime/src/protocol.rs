//! MCP result types, small and lenient: unknown fields are kept, and a content block of an
//! unknown type is kept as raw JSON instead of failing the whole result.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The result of `tools/call`, as the server sent it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Content blocks (text, image, audio, resource links, embedded resources, ...).
    #[serde(default)]
    pub content: Vec<Content>,
    /// The structured result (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` when the tool failed; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The result's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Fields this crate does not know (`resultType`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// A successful result with `value` as `structuredContent` and its JSON in a text block,
    /// as the MCP spec recommends.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(text)],
            ..Default::default()
        }
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..CallToolResult::text(text)
        }
    }

    /// Whether the tool reported a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The text blocks' texts, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|c| match c {
            Content::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
    }
}

/// A content block. Blocks of a type this crate does not know are kept in
/// [`Content::Unknown`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// `{"type": "text"}`
    Text(TextContent),
    /// `{"type": "image"}`
    Image(ImageContent),
    /// `{"type": "audio"}` (2025-03-26+)
    Audio(AudioContent),
    /// `{"type": "resource_link"}` (2025-06-18+)
    ResourceLink(ResourceLink),
    /// `{"type": "resource"}`: an embedded resource.
    Resource(EmbeddedResource),
    /// Any other block, or a known type with fields this crate cannot read, as sent.
    Unknown(Value),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        })
    }

    /// The block's `type`.
    pub fn kind(&self) -> &str {
        match self {
            Content::Text(_) => "text",
            Content::Image(_) => "image",
            Content::Audio(_) => "audio",
            Content::ResourceLink(_) => "resource_link",
            Content::Resource(_) => "resource",
            Content::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Audience, priority, lastModified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The block's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Base64 image data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// `image/png`, ...
    pub mime_type: String,
    /// Audience, priority, lastModified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The block's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Base64 audio data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// `audio/wav`, ...
    pub mime_type: String,
    /// Audience, priority, lastModified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The block's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A link to a resource the client may read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Machine name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Audience, priority, lastModified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The block's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields (`icons`, ...), kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A resource embedded in the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's contents.
    pub resource: ResourceContents,
    /// Audience, priority, lastModified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The block's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Text or base64 contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// The contents' `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: Some(text.into()),
            blob: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Binary contents of `uri`, already base64-encoded.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: None,
            blob: Some(base64.into()),
            meta: None,
            extra: Map::new(),
        }
    }
}

impl Content {
    /// An embedded resource block.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource: contents,
            annotations: None,
            meta: None,
            extra: Map::new(),
        })
    }

    /// A base64 image block.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(ImageContent {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        })
    }
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt (`prompts/get`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: Role,
    /// What is said: text, an image, audio, a resource link or an embedded resource.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: Content) -> Self {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: Content) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// The prompt's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
    /// The result's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Fields this crate does not know (`resultType`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The contents (several for a resource that is a collection).
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
    /// The result's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Fields this crate does not know (`resultType`, `ttlMs`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The values `completion/complete` offers for an argument.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values, best first.
    #[serde(default)]
    pub values: Vec<String>,
    /// How many values there are in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than `values` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The first 100 of `values` (the protocol's limit), with `total` and `hasMore` set.
    pub fn of(values: Vec<String>) -> Self {
        let total = values.len();
        let mut values = values;
        values.truncate(100);
        Completion {
            has_more: Some(total > values.len()),
            total: Some(total as u64),
            values,
        }
    }
}

/// What `completion/complete` completes: an argument of a prompt (by name) or a variable of a
/// resource template (by its URI template).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompletionRef {
    /// `{"type": "ref/prompt", "name": ..}`.
    Prompt(String),
    /// `{"type": "ref/resource", "uri": ..}`: a URI template.
    Resource(String),
}

impl CompletionRef {
    /// The `ref` of a `completion/complete` request, when it is one of the two kinds.
    fn parse(reference: &Value) -> Option<CompletionRef> {
        match reference.get("type")?.as_str()? {
            "ref/prompt" => Some(CompletionRef::Prompt(
                reference.get("name")?.as_str()?.to_owned(),
            )),
            "ref/resource" => Some(CompletionRef::Resource(
                reference.get("uri")?.as_str()?.to_owned(),
            )),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for CompletionRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        CompletionRef::parse(&value).ok_or_else(|| {
            D::Error::custom(
                "a completion ref is {\"type\": \"ref/prompt\", \"name\"} or \
                 {\"type\": \"ref/resource\", \"uri\"}",
            )
        })
    }
}

impl Serialize for CompletionRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = match self {
            CompletionRef::Prompt(name) => serde_json::json!({"type": "ref/prompt", "name": name}),
            CompletionRef::Resource(uri) => serde_json::json!({"type": "ref/resource", "uri": uri}),
        };
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if !value.is_object() {
            return Err(D::Error::custom("a content block is an object"));
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let parsed = match kind {
            "text" => TextContent::deserialize(&value).map(Content::Text),
            "image" => ImageContent::deserialize(&value).map(Content::Image),
            "audio" => AudioContent::deserialize(&value).map(Content::Audio),
            "resource_link" => ResourceLink::deserialize(&value).map(Content::ResourceLink),
            "resource" => EmbeddedResource::deserialize(&value).map(Content::Resource),
            _ => return Ok(Content::Unknown(value)),
        };
        Ok(match parsed {
            Ok(mut content) => {
                strip_type(&mut content);
                content
            }
            Err(_) => Content::Unknown(value),
        })
    }
}

/// `type` lands in `extra` through `flatten`; it is written back by `Serialize`.
fn strip_type(content: &mut Content) {
    let extra = match content {
        Content::Text(c) => &mut c.extra,
        Content::Image(c) => &mut c.extra,
        Content::Audio(c) => &mut c.extra,
        Content::ResourceLink(c) => &mut c.extra,
        Content::Resource(c) => &mut c.extra,
        Content::Unknown(_) => return,
    };
    extra.remove("type");
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn tagged<T: Serialize, E: serde::ser::Error>(kind: &str, inner: &T) -> Result<Value, E> {
            let mut value = serde_json::to_value(inner).map_err(E::custom)?;
            if let Value::Object(map) = &mut value {
                map.insert("type".into(), Value::String(kind.into()));
            }
            Ok(value)
        }
        let value = match self {
            Content::Text(c) => tagged("text", c)?,
            Content::Image(c) => tagged("image", c)?,
            Content::Audio(c) => tagged("audio", c)?,
            Content::ResourceLink(c) => tagged("resource_link", c)?,
            Content::Resource(c) => tagged("resource", c)?,
            Content::Unknown(v) => v.clone(),
        };
        value.serialize(serializer)
    }
}
