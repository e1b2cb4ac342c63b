//! Prompts: declared with `#[derive(McpPrompt)]` on a struct of arguments, or built from a
//! [`PromptDefinition`] and a closure; listed by `prompts/list`, answered by `prompts/get`.
//!
//! MCP sends prompt arguments as strings. A typed argument that is not a string (a number, a
//! boolean) is read from its string as JSON, so `"3"` fills a `u32` field; the arguments are
//! then checked against the struct's schema, and a prompt whose arguments do not fit is
//! `-32602`, with the pointer and the reason.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ToolError;
use super::input::{Input, Outcome};
use crate::{CompiledSchema, PromptMessage};

/// A prompt's arguments type, with the prompt's name, title and description. Implement it with
/// `#[derive(McpPrompt)]` (`#[mcp(name = "..", title = "..", description = "..")]`; the name
/// defaults to the snake_case of the type name, the description to the doc comment). Each
/// field is an argument: `Option` ones are optional, the field's doc comment is the
/// argument's description.
pub trait McpPrompt: DeserializeOwned + schemars::JsonSchema {
    /// The name a client asks for.
    const NAME: &'static str;
    /// Display name.
    const TITLE: Option<&'static str>;
    /// What the prompt is for.
    const DESCRIPTION: &'static str;
}

/// What a prompt gives: its messages, made on the game thread with the game.
///
/// ```
/// use mcp_bindgen::server::{McpPrompt, PromptHandler, Registry, ToolError};
/// use mcp_bindgen::{Content, PromptMessage};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// struct Game { level: u32 }
///
/// /// Sets an agent up to play a level
/// #[derive(McpPrompt, Deserialize, JsonSchema)]
/// struct Briefing {
///     /// What the agent should try first
///     goal: String,
///     /// easy, normal or hard
///     difficulty: Option<String>,
/// }
///
/// impl PromptHandler<Game> for Briefing {
///     fn get(self, game: &mut Game) -> Result<Vec<PromptMessage>, ToolError> {
///         let difficulty = self.difficulty.as_deref().unwrap_or("normal");
///         Ok(vec![PromptMessage::user(Content::text(format!(
///             "You play level {} on {difficulty}. Goal: {}",
///             game.level, self.goal
///         )))])
///     }
/// }
///
/// let mut registry = Registry::new("my-game", "1.0.0");
/// registry.register_prompt::<Briefing>();
/// let reply = registry.dispatch(
///     &mut Game { level: 2 },
///     r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"briefing","arguments":{"goal":"find the key"}}}"#,
/// );
/// assert!(reply.unwrap().contains("You play level 2 on normal. Goal: find the key"));
/// ```
pub trait PromptHandler<Ctx>: McpPrompt {
    /// The prompt's messages. An `Err` is answered as a JSON-RPC error (`-32603`, with the
    /// error's message and code in `data`).
    fn get(self, ctx: &mut Ctx) -> Result<Vec<PromptMessage>, ToolError>;
}

/// One argument of a prompt, as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether `prompts/get` needs it.
    pub required: bool,
}

/// One entry of `prompts/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptDefinition {
    /// The name a client asks for.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What the prompt is for (sent as `""` when empty: some clients need one).
    pub description: String,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
    /// The JSON Schema the arguments are checked against (their string values read as JSON
    /// where a property is not a string); `None`: not checked.
    pub schema: Option<Map<String, Value>>,
}

impl PromptDefinition {
    /// A prompt with a name and a description, and no arguments.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptDefinition {
            name: name.into(),
            title: None,
            description: description.into(),
            arguments: Vec::new(),
            schema: None,
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let description: String = description.into();
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: (!description.is_empty()).then_some(description),
            required,
        });
        self
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The definition of a derived prompt: one argument per property of its schema.
    pub fn of<T: McpPrompt>() -> Self {
        let schema = super::input_schema::<T>();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let arguments = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, property)| PromptArgument {
                        name: name.clone(),
                        description: property
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        required: required.contains(&name.as_str()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        PromptDefinition {
            name: T::NAME.to_owned(),
            title: T::TITLE.map(str::to_owned),
            description: T::DESCRIPTION.to_owned(),
            arguments,
            schema: Some(schema),
        }
    }

    /// The `Prompt` object of `prompts/list`.
    pub fn to_json(&self) -> Value {
        let mut prompt = Map::new();
        prompt.insert("name".into(), Value::String(self.name.clone()));
        if let Some(title) = &self.title {
            prompt.insert("title".into(), Value::String(title.clone()));
        }
        prompt.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        if !self.arguments.is_empty() {
            let arguments = self
                .arguments
                .iter()
                .map(|a| {
                    let mut argument = Map::new();
                    argument.insert("name".into(), Value::String(a.name.clone()));
                    if let Some(description) = &a.description {
                        argument.insert("description".into(), Value::String(description.clone()));
                    }
                    argument.insert("required".into(), Value::Bool(a.required));
                    Value::Object(argument)
                })
                .collect();
            prompt.insert("arguments".into(), Value::Array(arguments));
        }
        Value::Object(prompt)
    }
}

/// A prompt's messages made from its arguments (already checked), with what a retry answered.
pub(crate) type Get<Ctx> = Box<
    dyn FnMut(
            &mut Ctx,
            Map<String, Value>,
            &Input,
        ) -> Result<Outcome<Vec<PromptMessage>>, ToolError>
        + Send,
>;

pub(crate) struct Prompt<Ctx> {
    pub(crate) def: PromptDefinition,
    schema: Option<CompiledSchema>,
    pub(crate) get: Get<Ctx>,
}

impl<Ctx> Prompt<Ctx> {
    pub(crate) fn new(def: PromptDefinition, get: Get<Ctx>) -> Self {
        let schema = def
            .schema
            .as_ref()
            .map(|s| CompiledSchema::new(&Value::Object(s.clone())));
        Prompt { def, schema, get }
    }

    /// The arguments as the prompt reads them: string values read as JSON where the schema's
    /// property is not a string, then checked. `Err`: the `-32602` message.
    pub(crate) fn arguments(&self, given: Option<Value>) -> Result<Map<String, Value>, String> {
        let given = match given {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(given)) => given,
            Some(_) => return Err("arguments must be an object of strings".to_owned()),
        };
        for argument in self.def.arguments.iter().filter(|a| a.required) {
            if !given.contains_key(&argument.name) {
                return Err(format!(
                    "the prompt {} needs the argument {:?}",
                    self.def.name, argument.name
                ));
            }
        }
        let properties = self
            .def
            .schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        let arguments: Map<String, Value> = given
            .into_iter()
            .map(|(name, value)| {
                let value = match (&value, properties.and_then(|p| p.get(&name))) {
                    (Value::String(text), Some(property)) if !takes_string(property) => {
                        serde_json::from_str(text).unwrap_or(value)
                    }
                    _ => value,
                };
                (name, value)
            })
            .collect();
        let value = Value::Object(arguments);
        if let Some(schema) = &self.schema {
            schema.validate(&value).map_err(|violation| {
                format!(
                    "invalid arguments for the prompt {}: {violation}",
                    self.def.name
                )
            })?;
        }
        Ok(match value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        })
    }
}

/// Whether a property's schema accepts a string as such (its `type` is or includes `string`,
/// or it names no type).
fn takes_string(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => property
            .get("enum")
            .and_then(Value::as_array)
            .is_none_or(|values| values.iter().any(Value::is_string)),
    }
}
