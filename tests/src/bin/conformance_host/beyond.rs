//! The host beyond tools: the prompts, resources, template and completion the suite's
//! `prompts-*`, `resources-*` and `completion-complete` scenarios read, and the tools and the
//! prompt that ask the client for input (`input-required-result-*`, 2026-07-28); and an Agent
//! Skill about these (`fixtures/skills/`) for the `sep-2640-*` scenarios of the skills
//! extension.

use mcp_bindgen::server::{
    CompletionRef, Handler, Input, InputRequired, InteractiveHandler, McpPrompt, McpTool, Outcome,
    PromptDefinition, PromptHandler, Registry, ResourceDefinition, TemplateDefinition, ToolError,
    ToolResult, complete_from,
};
use mcp_bindgen::{Content, PromptMessage, ResourceContents};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Host, PNG};

/// A simple prompt without arguments
#[derive(Debug, McpPrompt, Deserialize, JsonSchema)]
#[mcp(name = "test_simple_prompt")]
struct SimplePrompt {}

impl PromptHandler<Host> for SimplePrompt {
    fn get(self, _: &mut Host) -> Result<Vec<PromptMessage>, ToolError> {
        Ok(vec![PromptMessage::user(Content::text(
            "This is a simple prompt for testing.",
        ))])
    }
}

/// A prompt with two required arguments
#[derive(Debug, McpPrompt, Deserialize, JsonSchema)]
#[mcp(name = "test_prompt_with_arguments")]
struct WithArguments {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

impl PromptHandler<Host> for WithArguments {
    fn get(self, _: &mut Host) -> Result<Vec<PromptMessage>, ToolError> {
        Ok(vec![PromptMessage::user(Content::text(format!(
            "Prompt with arguments: arg1='{}', arg2='{}'",
            self.arg1, self.arg2
        )))])
    }
}

/// A prompt that embeds a resource
#[derive(Debug, McpPrompt, Deserialize, JsonSchema)]
#[mcp(name = "test_prompt_with_embedded_resource")]
struct WithEmbeddedResource {
    /// URI of the resource to embed
    #[serde(rename = "resourceUri")]
    resource_uri: String,
}

impl PromptHandler<Host> for WithEmbeddedResource {
    fn get(self, _: &mut Host) -> Result<Vec<PromptMessage>, ToolError> {
        Ok(vec![
            PromptMessage::user(Content::resource(ResourceContents::text(
                self.resource_uri,
                "text/plain",
                "Embedded resource content for testing.",
            ))),
            PromptMessage::user(Content::text("Please process the embedded resource above.")),
        ])
    }
}

/// A prompt with an image
#[derive(Debug, McpPrompt, Deserialize, JsonSchema)]
#[mcp(name = "test_prompt_with_image")]
struct WithImage {}

impl PromptHandler<Host> for WithImage {
    fn get(self, _: &mut Host) -> Result<Vec<PromptMessage>, ToolError> {
        Ok(vec![
            PromptMessage::user(Content::image(PNG, "image/png")),
            PromptMessage::user(Content::text("Please analyze the image above.")),
        ])
    }
}

/// An elicitation form of one string field.
fn ask_for(field: &str) -> Value {
    json!({
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field],
    })
}

/// Asks the user's name, then greets them.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_elicitation")]
struct AskName {}

impl InteractiveHandler<Host> for AskName {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        Ok(
            match input
                .accepted("user_name")
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
            {
                Some(name) => Outcome::Complete(ToolResult::text(format!("Hello, {name}!"))),
                None => InputRequired::new()
                    .elicit("user_name", "What is your name?", ask_for("name"))
                    .into(),
            },
        )
    }
}

fn sampling(question: &str) -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
        "maxTokens": 100,
    })
}

/// Asks the client's model a question.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_sampling")]
struct AskModel {}

impl InteractiveHandler<Host> for AskModel {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        Ok(match input.response("capital_question") {
            Some(answer) => Outcome::Complete(ToolResult::text(format!(
                "The model said: {}",
                answer
                    .pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            ))),
            None => InputRequired::new()
                .sample(
                    "capital_question",
                    sampling("What is the capital of France?"),
                )
                .into(),
        })
    }
}

/// Asks the client's roots.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_list_roots")]
struct AskRoots {}

impl InteractiveHandler<Host> for AskRoots {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        Ok(
            match input
                .response("client_roots")
                .and_then(|r| r.get("roots"))
                .and_then(Value::as_array)
            {
                Some(roots) => {
                    let uris: Vec<&str> = roots
                        .iter()
                        .filter_map(|r| r.get("uri").and_then(Value::as_str))
                        .collect();
                    Outcome::Complete(ToolResult::text(format!("roots: {}", uris.join(", "))))
                }
                None => InputRequired::new().list_roots("client_roots").into(),
            },
        )
    }
}

/// Asks for a confirmation, with a state it reads back.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_request_state")]
struct AskWithState {}

impl InteractiveHandler<Host> for AskWithState {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        match (input.state(), input.accepted("confirm")) {
            (Some(state), Some(_)) if state["asked"] == "confirm" => {
                Ok(Outcome::Complete(ToolResult::text("state-ok: confirmed")))
            }
            _ => Ok(InputRequired::new()
                .elicit(
                    "confirm",
                    "Proceed?",
                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                )
                .with_state(json!({"asked": "confirm"}))
                .into()),
        }
    }
}

/// The same, for the suite's tampered-state check (a changed state is refused before this
/// runs).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_tampered_state")]
struct AskTampered {}

impl InteractiveHandler<Host> for AskTampered {
    type Output = ToolResult;
    fn call(self, host: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        AskWithState {}.call(host, input)
    }
}

/// Asks for three things at once: a name, a model's greeting, the roots.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_multiple_inputs")]
struct AskMany {}

impl InteractiveHandler<Host> for AskMany {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        let name = input
            .accepted("user_name")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str);
        let greeting = input
            .response("greeting")
            .and_then(|r| r.pointer("/content/text"))
            .and_then(Value::as_str);
        let roots = input.response("client_roots").and_then(|r| r.get("roots"));
        if let (Some(name), Some(greeting), Some(_)) = (name, greeting, roots) {
            return Ok(Outcome::Complete(ToolResult::text(format!(
                "{greeting} {name}"
            ))));
        }
        Ok(InputRequired::new()
            .elicit("user_name", "What is your name?", ask_for("name"))
            .sample("greeting", sampling("Say hello"))
            .list_roots("client_roots")
            .with_state(json!({"round": 1}))
            .into())
    }
}

/// Two rounds: a name, then a colour.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_multi_round")]
struct AskTwice {}

impl InteractiveHandler<Host> for AskTwice {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        let step = input.state().and_then(|s| s["step"].as_u64());
        match step {
            Some(2) => {
                if let Some(colour) = input
                    .accepted("step2")
                    .and_then(|c| c.get("color"))
                    .and_then(Value::as_str)
                {
                    let name = input
                        .state()
                        .and_then(|s| s["name"].as_str())
                        .unwrap_or("?");
                    return Ok(Outcome::Complete(ToolResult::text(format!(
                        "{name} likes {colour}"
                    ))));
                }
            }
            Some(1) => {
                if let Some(name) = input
                    .accepted("step1")
                    .and_then(|c| c.get("name"))
                    .and_then(Value::as_str)
                {
                    return Ok(InputRequired::new()
                        .elicit("step2", "Your favourite colour?", ask_for("color"))
                        .with_state(json!({"step": 2, "name": name}))
                        .into());
                }
            }
            _ => {}
        }
        Ok(InputRequired::new()
            .elicit("step1", "What is your name?", ask_for("name"))
            .with_state(json!({"step": 1}))
            .into())
    }
}

/// Asks for a name and a model's answer: only what the client declared it can answer is
/// sent.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_input_required_result_capabilities")]
struct AskWhatItCan {}

impl InteractiveHandler<Host> for AskWhatItCan {
    type Output = ToolResult;
    fn call(self, _: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        if !input.responses().is_empty() {
            return Ok(Outcome::Complete(ToolResult::text("answered")));
        }
        Ok(InputRequired::new()
            .elicit("user_name", "What is your name?", ask_for("name"))
            .sample(
                "capital_question",
                sampling("What is the capital of France?"),
            )
            .into())
    }
}

/// Changes the prompt list (adds `test_added_prompt`, or removes it again), so that clients
/// listening for prompt changes hear one.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "test_trigger_prompt_change")]
struct TriggerPromptChange {}

impl Handler<Host> for TriggerPromptChange {
    type Output = ToolResult;
    fn call(self, host: &mut Host) -> Result<ToolResult, ToolError> {
        let registrar = host
            .tools
            .as_ref()
            .ok_or_else(|| ToolError::new("the host has no registrar"))?;
        host.added_prompt = !host.added_prompt;
        if host.added_prompt {
            registrar.edit(|registry| {
                registry.register_prompt_fn(
                    PromptDefinition::new(
                        "test_added_prompt",
                        "Added by test_trigger_prompt_change",
                    ),
                    |_, _, _| {
                        Ok(Outcome::Complete(vec![PromptMessage::user(Content::text(
                            "added",
                        ))]))
                    },
                );
            });
            Ok(ToolResult::text("test_added_prompt registered"))
        } else {
            registrar.edit(|registry| {
                registry.unregister_prompt("test_added_prompt");
            });
            Ok(ToolResult::text("test_added_prompt removed"))
        }
    }
}

/// Remove every enemy from a level: a destructive game action that asks the player to
/// confirm first (answered by an official client's elicitation handler, in both eras).
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(name = "clear_level", destructive)]
struct ClearLevel {
    /// The level to clear.
    level: u32,
}

impl InteractiveHandler<Host> for ClearLevel {
    type Output = ToolResult;
    fn call(self, host: &mut Host, input: &Input) -> Result<Outcome<ToolResult>, ToolError> {
        let asked_for = input.state().and_then(|s| s["level"].as_u64());
        match input.accepted("confirm").and_then(|c| c.get("ok")) {
            Some(ok) if asked_for == Some(u64::from(self.level)) => {
                if ok == true {
                    host.calls += 1;
                    Ok(Outcome::Complete(ToolResult::text(format!(
                        "level {} cleared",
                        self.level
                    ))))
                } else {
                    Err(ToolError::new("the player kept the enemies").with_code("declined"))
                }
            }
            _ => Ok(InputRequired::new()
                .elicit(
                    "confirm",
                    format!("Remove every enemy from level {}?", self.level),
                    json!({
                        "type": "object",
                        "properties": {"ok": {"type": "boolean", "description": "Yes, clear it"}},
                        "required": ["ok"],
                    }),
                )
                .with_state(json!({"level": self.level}))
                .into()),
        }
    }
}

pub(crate) fn register(registry: &mut Registry<Host>) {
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/skills");
    if let Err(e) = registry.register_skills_dir(skills) {
        eprintln!("conformance_host: {e}");
        std::process::exit(2);
    }
    registry
        .register::<TriggerPromptChange>()
        .register_interactive::<ClearLevel>()
        .register_prompt::<SimplePrompt>()
        .register_prompt::<WithArguments>()
        .register_prompt::<WithEmbeddedResource>()
        .register_prompt::<WithImage>()
        .register_interactive::<AskName>()
        .register_interactive::<AskModel>()
        .register_interactive::<AskRoots>()
        .register_interactive::<AskWithState>()
        .register_interactive::<AskTampered>()
        .register_interactive::<AskMany>()
        .register_interactive::<AskTwice>()
        .register_interactive::<AskWhatItCan>();
    // A prompt that asks the user for context first (input_required outside tools/call).
    registry.register_prompt_fn(
        PromptDefinition::new(
            "test_input_required_result_prompt",
            "A prompt that asks the user for context first",
        ),
        |_, _, input| {
            Ok(
                match input
                    .accepted("user_context")
                    .and_then(|c| c.get("context"))
                    .and_then(Value::as_str)
                {
                    Some(context) => Outcome::Complete(vec![PromptMessage::user(Content::text(
                        format!("Context: {context}"),
                    ))]),
                    None => InputRequired::new()
                        .elicit(
                            "user_context",
                            "What context should the prompt use?",
                            ask_for("context"),
                        )
                        .into(),
                },
            )
        },
    );
    registry
        .register_resource(
            ResourceDefinition::new("test://static-text", "Static Text Resource")
                .description("A static text resource for testing")
                .mime_type("text/plain"),
            |_| {
                Ok(vec![ResourceContents::text(
                    "test://static-text",
                    "text/plain",
                    "This is the content of the static text resource.",
                )])
            },
        )
        .register_resource(
            ResourceDefinition::new("test://static-binary", "Static Binary Resource")
                .description("A static binary resource (image) for testing")
                .mime_type("image/png"),
            |_| Ok(vec![ResourceContents::blob("test://static-binary", "image/png", PNG)]),
        )
        .register_resource(
            ResourceDefinition::new("test://watched-resource", "Watched Resource")
                .description("A resource to subscribe to")
                .mime_type("text/plain"),
            |_| {
                Ok(vec![ResourceContents::text(
                    "test://watched-resource",
                    "text/plain",
                    "Watched resource content",
                )])
            },
        )
        .register_template(
            TemplateDefinition::new("test://template/{id}/data", "Resource Template")
                .description("A resource template with parameter substitution")
                .mime_type("application/json"),
            |_, uri, variables: TemplateId| {
                Ok(vec![ResourceContents::text(
                    uri,
                    "application/json",
                    json!({"id": variables.id, "templateTest": true, "data": format!("Data for ID: {}", variables.id)}).to_string(),
                )])
            },
        )
        .register_completion(
            CompletionRef::Prompt("test_prompt_with_arguments".into()),
            "arg1",
            |_, typed, _| complete_from(["test1", "test2", "testValue1", "other"], typed),
        );
}

/// The variables of `test://template/{id}/data`.
#[derive(Deserialize)]
struct TemplateId {
    id: String,
}
