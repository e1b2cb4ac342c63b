//! The registry beyond tools: prompts, resources, resource templates and completion, declared
//! and answered in both eras; and the `input_required` answers of handlers that ask the
//! client for input (2026-07-28).

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Deserialize as _;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Registry;
use crate::server::ToolError;
use crate::server::announce::{Announcement, Changes};
use crate::server::input::{Binding, Input, InputRequired, Outcome, Unsealed};
use crate::server::owner::Owner;
use crate::server::prompts::{Prompt, PromptDefinition, PromptHandler};
use crate::server::resources::{
    Completer, Resource, ResourceDefinition, Template, TemplateDefinition, completion, typed,
};
use crate::server::wire::{Meta, Params, Rare, Text, error, error_with, respond};
use crate::uri_template::UriTemplate;
use crate::{CompletionRef, PromptMessage, ResourceContents};

/// JSON-RPC "resource not found": `-32002` in the legacy era; 2026-07-28 made it `-32602`.
fn not_found_code(modern: bool) -> i64 {
    if modern { -32602 } else { -32002 }
}

impl<Ctx> Registry<Ctx> {
    /// Registers the prompt `T` (`#[derive(McpPrompt)]`): `prompts/get` reads its arguments
    /// into `T` and runs [`PromptHandler::get`] with the game. Registering a name again
    /// replaces the prompt.
    pub fn register_prompt<T: PromptHandler<Ctx>>(&mut self) -> &mut Self {
        self.register_prompt_fn(PromptDefinition::of::<T>(), |ctx, arguments, _| {
            let prompt: T = serde_json::from_value(Value::Object(arguments)).map_err(|e| {
                ToolError::new(format!("invalid arguments for the prompt {}: {e}", T::NAME))
                    .with_code("invalid_arguments")
            })?;
            prompt.get(ctx).map(Outcome::Complete)
        })
    }

    /// Registers a prompt from a definition and a closure over its arguments (checked against
    /// `def.schema` when it has one) and, on a retry, the client's answers to what it asked
    /// for (`Outcome::InputRequired`, 2026-07-28).
    pub fn register_prompt_fn(
        &mut self,
        def: PromptDefinition,
        get: impl FnMut(
            &mut Ctx,
            Map<String, Value>,
            &Input,
        ) -> Result<Outcome<Vec<PromptMessage>>, ToolError>
        + Send
        + 'static,
    ) -> &mut Self {
        let prompt = Prompt::new(def, Box::new(get));
        if upsert(&mut self.prompts, prompt, |p| (&p.def.name, &p.def)) {
            self.changes.insert(Changes::PROMPTS);
        }
        self
    }

    /// Removes the prompt `name`. Returns whether it was registered.
    pub fn unregister_prompt(&mut self, name: &str) -> bool {
        let before = self.prompts.len();
        self.prompts.retain(|p| p.def.name != name);
        let removed = self.prompts.len() != before;
        if removed {
            self.changes.insert(Changes::PROMPTS);
        }
        removed
    }

    /// Every registered prompt, in registration order.
    pub fn prompts(&self) -> impl Iterator<Item = &PromptDefinition> {
        self.prompts.iter().map(|p| &p.def)
    }

    /// Registers a resource at a fixed URI: `resources/read` of `def.uri` runs `read` with the
    /// game. Registering a URI again replaces the resource.
    pub fn register_resource(
        &mut self,
        def: ResourceDefinition,
        mut read: impl FnMut(&mut Ctx) -> Result<Vec<ResourceContents>, ToolError> + Send + 'static,
    ) -> &mut Self {
        self.register_resource_fn(def, move |ctx, _| read(ctx).map(Outcome::Complete))
    }

    /// [`Registry::register_resource`] for a read that may ask the client for input first
    /// (2026-07-28 `input_required`, as [`Registry::register_prompt_fn`]): `read` gets the
    /// game and, on a retry, the client's answers, and returns the contents or what it needs.
    /// In the legacy era a read that asks is an error naming what it needed.
    pub fn register_resource_fn(
        &mut self,
        def: ResourceDefinition,
        read: impl FnMut(&mut Ctx, &Input) -> Result<Outcome<Vec<ResourceContents>>, ToolError>
        + Send
        + 'static,
    ) -> &mut Self {
        let resource = Resource {
            def,
            read: Box::new(read),
        };
        if upsert(&mut self.resources, resource, |r| (&r.def.uri, &r.def)) {
            self.changes.insert(Changes::RESOURCES);
        }
        self
    }

    /// Registers resources whose URIs fit `def.uri_template` (RFC 6570): `resources/read` of
    /// such a URI deserializes its variables into `V` (strings, percent-decoded, read as
    /// numbers or booleans where `V` wants them; an exploded variable is a list)
    /// and runs `read` with the game and the URI. A URI that fits but whose variables do not
    /// make a `V` is "not found". Static resources are tried first, then templates in
    /// registration order.
    ///
    /// # Panics
    ///
    /// When `def.uri_template` is not an RFC 6570 template (an unclosed `{`, a bad variable
    /// name, ...: see [`uri_template::check`](crate::uri_template::check)), a mistake in the
    /// program, as a route that does not parse is to a web framework. A template that comes
    /// from data goes through [`Registry::try_register_template`] instead.
    pub fn register_template<V: DeserializeOwned>(
        &mut self,
        def: TemplateDefinition,
        read: impl FnMut(&mut Ctx, &str, V) -> Result<Vec<ResourceContents>, ToolError> + Send + 'static,
    ) -> &mut Self {
        match self.try_register_template(def, read) {
            Ok(registry) => registry,
            Err(e) => panic!("register_template: {e}"),
        }
    }

    /// [`Registry::register_template`], with an invalid template an error (naming the fault
    /// and its place) instead of a panic; nothing is registered then.
    pub fn try_register_template<V: DeserializeOwned>(
        &mut self,
        def: TemplateDefinition,
        mut read: impl FnMut(&mut Ctx, &str, V) -> Result<Vec<ResourceContents>, ToolError>
        + Send
        + 'static,
    ) -> Result<&mut Self, crate::uri_template::TemplateError> {
        self.register_template_fn(def, move |ctx, uri, variables: V, _| {
            read(ctx, uri, variables).map(Outcome::Complete)
        })
    }

    /// [`Registry::try_register_template`] for reads that may ask the client for input first
    /// (2026-07-28 `input_required`, as [`Registry::register_resource_fn`]): `read` also gets,
    /// on a retry, the client's answers.
    pub fn register_template_fn<V: DeserializeOwned>(
        &mut self,
        def: TemplateDefinition,
        mut read: impl FnMut(
            &mut Ctx,
            &str,
            V,
            &Input,
        ) -> Result<Outcome<Vec<ResourceContents>>, ToolError>
        + Send
        + 'static,
    ) -> Result<&mut Self, crate::uri_template::TemplateError> {
        let pattern = UriTemplate::parse(&def.uri_template)?;
        let read = move |ctx: &mut Ctx, uri: &str, variables: Map<String, Value>, input: &Input| {
            let variables: V = typed(variables)
                .map_err(|e| ToolError::new(format!("{uri}: {e}")).with_code("not_found"))?;
            read(ctx, uri, variables, input)
        };
        let template = Template {
            def,
            pattern,
            read: Box::new(read),
        };
        if upsert(&mut self.templates, template, |t| {
            (&t.def.uri_template, &t.def)
        }) {
            self.changes.insert(Changes::RESOURCES);
        }
        Ok(self)
    }

    /// Removes the resource at `uri`, or the template `uri`. Returns whether there was one.
    pub fn unregister_resource(&mut self, uri: &str) -> bool {
        let before = self.resources.len() + self.templates.len();
        self.resources.retain(|r| r.def.uri != uri);
        self.templates.retain(|t| t.def.uri_template != uri);
        let removed = self.resources.len() + self.templates.len() != before;
        if removed {
            self.changes.insert(Changes::RESOURCES);
        }
        removed
    }

    /// Offers values for `argument` of a prompt or a template variable: `complete` gets the
    /// game, the value typed so far and the arguments already chosen (`context.arguments`),
    /// and returns the candidates, best first (the first 100 are sent, with the total; see
    /// [`complete_from`](crate::server::complete_from) for prefix matching over a list).
    pub fn register_completion(
        &mut self,
        reference: CompletionRef,
        argument: impl Into<String>,
        complete: impl FnMut(&mut Ctx, &str, &Map<String, Value>) -> Vec<String> + Send + 'static,
    ) -> &mut Self {
        let argument = argument.into();
        self.completers
            .retain(|c| !(c.reference == reference && c.argument == argument));
        self.completers.push(Completer {
            reference,
            argument,
            complete: Box::new(complete),
        });
        self
    }

    /// Tells the clients subscribed to `uri` that it changed (`notifications/resources/updated`):
    /// legacy sessions that sent `resources/subscribe` and 2026-07-28 listen streams that
    /// named it in `resourceSubscriptions`. Announced with the frame's other changes.
    pub fn resource_updated(&mut self, uri: impl Into<String>) {
        let uri = uri.into();
        if !self.updated.contains(&uri) {
            self.updated.push(uri);
        }
        self.changes.insert(Changes::RESOURCE_UPDATED);
    }

    /// Takes what changed since the last announcement (after applying queued edits) and hands
    /// it to the transport's `announce`; nothing when nothing changed.
    pub(crate) fn announce_with(&mut self, announce: impl FnOnce(&Announcement<'_>)) {
        self.events.sweep();
        let mut changes = self.take_changes();
        let updated = std::mem::take(&mut self.updated);
        let tasks = self.tasks.take_notes();
        if !tasks.is_empty() {
            changes.insert(Changes::TASKS);
        }
        if changes.is_empty() {
            return;
        }
        announce(&Announcement {
            changes,
            updated: &updated,
            subscribed: &self.subscribed,
            tasks: &tasks,
        });
    }

    pub(super) fn list_prompts(&self, id: &Value, params: &Params, modern: bool) -> String {
        let items: Vec<&PromptDefinition> = self.prompts.iter().map(|p| &p.def).collect();
        self.paged(
            id,
            "prompts",
            &items,
            params,
            modern,
            PromptDefinition::to_json,
        )
    }

    pub(super) fn list_resources(&self, id: &Value, params: &Params, modern: bool) -> String {
        let items: Vec<&ResourceDefinition> = (self.resources.iter().map(|r| &r.def))
            .chain(self.skill_resources())
            .collect();
        self.paged(
            id,
            "resources",
            &items,
            params,
            modern,
            ResourceDefinition::to_json,
        )
    }

    pub(super) fn list_templates(&self, id: &Value, params: &Params, modern: bool) -> String {
        let items: Vec<&TemplateDefinition> = self.templates.iter().map(|t| &t.def).collect();
        self.paged(
            id,
            "resourceTemplates",
            &items,
            params,
            modern,
            TemplateDefinition::to_json,
        )
    }

    /// One page of a list (all of it unless a page size was set), with the 2026-07-28
    /// caching hints in that era. A cursor is `<key>:<start>`.
    pub(super) fn paged<T>(
        &self,
        id: &Value,
        key: &str,
        items: &[T],
        params: &Params,
        modern: bool,
        to_json: impl Fn(T) -> Value,
    ) -> String
    where
        T: Copy,
    {
        let start = match params.cursor.as_deref() {
            None | Some(Value::Null) => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| c.strip_prefix(key))
                .and_then(|c| c.strip_prefix(':'))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| self.page_size.is_some() && n < items.len())
            {
                Some(start) => start,
                None => return error(id, -32602, "Invalid params: unknown cursor"),
            },
        };
        let end = match self.page_size {
            Some(size) => (start + size).min(items.len()),
            None => items.len(),
        };
        let mut result = Map::new();
        result.insert(
            key.to_owned(),
            Value::Array(
                items[start..end]
                    .iter()
                    .map(|&item| to_json(item))
                    .collect(),
            ),
        );
        if end < items.len() {
            result.insert("nextCursor".into(), Value::String(format!("{key}:{end}")));
        }
        if modern {
            self.complete_hints(&mut result);
        }
        respond(id, &result)
    }

    /// `ttlMs`, `cacheScope` and `resultType` of a 2026-07-28 list or read.
    pub(super) fn complete_hints(&self, result: &mut Map<String, Value>) {
        result.insert("ttlMs".into(), self.ttl_ms());
        result.insert("cacheScope".into(), Value::String("public".into()));
        result.insert("resultType".into(), Value::String("complete".into()));
    }

    pub(super) fn get_prompt(
        &mut self,
        ctx: &mut Ctx,
        id: &Value,
        params: Params,
        modern: bool,
        owner: &Owner,
    ) -> String {
        let Some(name) = params.name.as_ref().and_then(Text::as_str) else {
            return error(
                id,
                -32602,
                "Invalid params: prompts/get needs a prompt name",
            );
        };
        let Some(i) = self.prompts.iter().position(|p| p.def.name == name) else {
            return error(
                id,
                -32602,
                &format!("Invalid params: no prompt named {name:?}"),
            );
        };
        let given = params.arguments.as_ref().map(crate::JsonTree::to_value);
        let arguments = match self.prompts[i].arguments(given) {
            Ok(arguments) => arguments,
            Err(message) => return error(id, -32602, &format!("Invalid params: {message}")),
        };
        // What a sealed state is bound to (the arguments as sent): made only when a state is
        // opened or sealed.
        let binding = || {
            let given = params
                .arguments
                .as_ref()
                .map(crate::JsonTree::to_value)
                .filter(|v| !v.is_null())
                .unwrap_or_else(|| Value::Object(Map::new()));
            Binding::new("prompts/get", name, &given, owner)
        };
        let input = match self.input(params.rare(), params.meta.as_ref(), binding, modern) {
            Ok(input) => input,
            Err(refused) => return refused.reply(id),
        };
        let name = name.to_owned();
        let prompt = &mut self.prompts[i];
        let outcome = catch_unwind(AssertUnwindSafe(|| (prompt.get)(ctx, arguments, &input)));
        match outcome {
            Ok(Ok(Outcome::Complete(messages))) => {
                #[derive(serde::Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Got<'a> {
                    #[serde(skip_serializing_if = "str::is_empty")]
                    description: &'a str,
                    messages: &'a [PromptMessage],
                    #[serde(skip_serializing_if = "Option::is_none")]
                    result_type: Option<&'static str>,
                }
                respond(
                    id,
                    &Got {
                        description: &prompt.def.description,
                        messages: &messages,
                        result_type: modern.then_some("complete"),
                    },
                )
            }
            Ok(Ok(Outcome::InputRequired(asked))) => {
                self.input_required(id, asked, &input, binding, modern, &name)
            }
            Ok(Err(failure)) => handler_error(id, &failure),
            Err(_) => error(
                id,
                -32603,
                &format!("Internal error: the prompt {name} panicked"),
            ),
        }
    }

    pub(super) fn read_resource(
        &mut self,
        ctx: &mut Ctx,
        id: &Value,
        params: &Params,
        modern: bool,
        owner: &Owner,
    ) -> String {
        let Some(uri) = params.uri.as_deref().and_then(Value::as_str) else {
            return error(
                id,
                -32602,
                "Invalid params: resources/read needs a \"uri\" string",
            );
        };
        // What a sealed state is bound to: the method and the URI.
        let binding = || Binding::new("resources/read", uri, &Value::Null, owner);
        let input = match self.input(params.rare(), params.meta.as_ref(), binding, modern) {
            Ok(input) => input,
            Err(refused) => return refused.reply(id),
        };
        let outcome = if let Some(resource) = self.resources.iter_mut().find(|r| r.def.uri == uri) {
            catch_unwind(AssertUnwindSafe(|| (resource.read)(ctx, &input)))
        } else if let Some(file) = self.skill_file(uri) {
            Ok(Ok(Outcome::Complete(vec![file])))
        } else if let Some((template, variables)) = self
            .templates
            .iter_mut()
            .find_map(|t| t.pattern.matches(uri).map(|v| (t, v)))
        {
            catch_unwind(AssertUnwindSafe(|| {
                (template.read)(ctx, uri, variables, &input)
            }))
        } else {
            return not_found(id, uri, modern);
        };
        match outcome {
            Ok(Ok(Outcome::InputRequired(asked))) => {
                self.input_required(id, asked, &input, binding, modern, uri)
            }
            Ok(Ok(Outcome::Complete(contents))) if contents.is_empty() => {
                not_found(id, uri, modern)
            }
            Ok(Ok(Outcome::Complete(contents))) => {
                #[derive(serde::Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Read<'a> {
                    contents: &'a [ResourceContents],
                    #[serde(skip_serializing_if = "Option::is_none")]
                    ttl_ms: Option<Value>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    cache_scope: Option<&'static str>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    result_type: Option<&'static str>,
                }
                respond(
                    id,
                    &Read {
                        contents: &contents,
                        ttl_ms: modern.then(|| self.ttl_ms()),
                        cache_scope: modern.then_some("public"),
                        result_type: modern.then_some("complete"),
                    },
                )
            }
            Ok(Err(failure)) if failure.code.as_deref() == Some("not_found") => {
                not_found(id, uri, modern)
            }
            Ok(Err(failure)) => handler_error(id, &failure),
            Err(_) => error(
                id,
                -32603,
                &format!("Internal error: reading {uri} panicked"),
            ),
        }
    }

    pub(super) fn complete(
        &mut self,
        ctx: &mut Ctx,
        id: &Value,
        params: &Params,
        modern: bool,
    ) -> String {
        let rare = params.rare();
        let Some(reference) = rare
            .reference
            .as_ref()
            .and_then(|r| CompletionRef::deserialize(r).ok())
        else {
            return error(
                id,
                -32602,
                "Invalid params: completion/complete needs a \"ref\" ({\"type\": \"ref/prompt\", \
                 \"name\"} or {\"type\": \"ref/resource\", \"uri\"})",
            );
        };
        let argument = rare.argument.as_ref();
        let (Some(name), Some(value)) = (
            argument.and_then(|a| a.get("name")).and_then(Value::as_str),
            argument
                .and_then(|a| a.get("value"))
                .and_then(Value::as_str),
        ) else {
            return error(
                id,
                -32602,
                "Invalid params: completion/complete needs \"argument\": {\"name\", \"value\"}",
            );
        };
        let known = match &reference {
            CompletionRef::Prompt(prompt) => self.prompts.iter().any(|p| p.def.name == *prompt),
            CompletionRef::Resource(template) => {
                self.templates
                    .iter()
                    .any(|t| t.def.uri_template == *template)
                    || self.resources.iter().any(|r| r.def.uri == *template)
            }
        };
        if !known {
            return error(
                id,
                -32602,
                &format!("Invalid params: nothing to complete for {reference:?}"),
            );
        }
        let empty = Map::new();
        let chosen = rare
            .context
            .as_ref()
            .and_then(|c| c.get("arguments"))
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let values = match self
            .completers
            .iter_mut()
            .find(|c| c.reference == reference && c.argument == name)
        {
            Some(completer) => catch_unwind(AssertUnwindSafe(|| {
                (completer.complete)(ctx, value, chosen)
            }))
            .unwrap_or_default(),
            None => Vec::new(),
        };
        let mut result = Map::new();
        result.insert("completion".into(), completion(values));
        if modern {
            result.insert("resultType".into(), Value::String("complete".into()));
        }
        respond(id, &result)
    }

    /// Legacy `resources/subscribe` and `resources/unsubscribe`.
    pub(super) fn subscribe(&mut self, id: &Value, params: &Params, on: bool) -> String {
        let Some(uri) = params.uri.as_deref().and_then(Value::as_str) else {
            return error(id, -32602, "Invalid params: needs a \"uri\" string");
        };
        if on {
            if !self.knows_resource(uri) {
                return not_found(id, uri, false);
            }
            self.subscribed.insert(uri.to_owned());
        } else {
            self.subscribed.remove(uri);
        }
        respond(id, &Map::new())
    }

    fn knows_resource(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.def.uri == uri)
            || self
                .templates
                .iter()
                .any(|t| t.pattern.matches(uri).is_some())
    }

    /// The client's answers of a retried request (2026-07-28): its `inputResponses` and its
    /// `requestState`, opened (the state was sealed for this request). `Err`: the error reply
    /// (`-32602`) for answers that are not an object or a state this server did not send.
    pub(super) fn input(
        &self,
        rare: &Rare,
        meta: Option<&Meta>,
        binding: impl FnOnce() -> Binding,
        modern: bool,
    ) -> Result<Input, Refusal> {
        let responses = match &rare.input_responses {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(responses)) if modern => responses.clone(),
            Some(Value::Object(_)) => Map::new(),
            Some(_) => {
                return Err(Refusal::Message(
                    "Invalid params: inputResponses must be an object of answers by key".into(),
                ));
            }
        };
        let state = match &rare.request_state {
            Some(Value::String(sealed)) if modern => {
                let Some(sealer) = &self.sealer else {
                    return Err(Refusal::Message(
                        "Invalid params: this server cannot open request states (no random source)"
                            .into(),
                    ));
                };
                match sealer.open(sealed, &binding()) {
                    Ok(state) => state,
                    Err(why) => return Err(Refusal::State(why)),
                }
            }
            None | Some(Value::Null) => None,
            Some(Value::String(_)) => None,
            Some(_) => {
                return Err(Refusal::Message(
                    "Invalid params: requestState must be a string".into(),
                ));
            }
        };
        let capabilities = meta
            .and_then(|m| m.capabilities.as_ref())
            .map(|c| c.declared().map(<[String]>::to_vec).unwrap_or_default())
            .filter(|_| modern)
            .or_else(|| modern.then(Vec::new));
        Ok(Input::new(responses, state, capabilities))
    }

    /// The `input_required` result of a handler that asked for input: its requests the client
    /// can answer, and its state sealed for this request. The legacy era has no such result: a
    /// tool error says what the handler needed.
    pub(super) fn input_required(
        &self,
        id: &Value,
        mut asked: InputRequired,
        input: &Input,
        binding: impl FnOnce() -> Binding,
        modern: bool,
        name: &str,
    ) -> String {
        if !modern {
            let keys: Vec<&str> = asked.keys().collect();
            return error_with(
                id,
                -32603,
                &format!(
                    "{name} needs input from the client ({keys:?}), which this server asks for \
                     in protocol 2026-07-28 only"
                ),
                None,
            );
        }
        asked.keep_answerable(input);
        let mut result = Map::new();
        result.insert("resultType".into(), Value::String("input_required".into()));
        if !asked.requests.is_empty() {
            result.insert("inputRequests".into(), Value::Object(asked.requests));
        }
        match self
            .sealer
            .as_ref()
            .and_then(|sealer| sealer.seal(asked.state.as_ref(), &binding()))
        {
            Some(sealed) => {
                result.insert("requestState".into(), Value::String(sealed));
            }
            None if result.contains_key("inputRequests") => {}
            None => {
                return error(
                    id,
                    -32603,
                    "Internal error: no random source to seal a request state",
                );
            }
        }
        respond(id, &result)
    }
}

/// Puts `item` in `list`: in place of the entry with the same key (keeping its position), or
/// last. `identity` gives an entry's key and definition. Returns whether the list changed (a
/// new key, or a new definition under an old one: a new handler alone is no change).
fn upsert<T, K: PartialEq, D: PartialEq>(
    list: &mut Vec<T>,
    item: T,
    identity: impl Fn(&T) -> (&K, &D),
) -> bool {
    let (key, def) = identity(&item);
    match list.iter().position(|e| identity(e).0 == key) {
        Some(i) => {
            let changed = identity(&list[i]).1 != def;
            list[i] = item;
            changed
        }
        None => {
            list.push(item);
            true
        }
    }
}

/// Why a retry's answers were refused.
pub(super) enum Refusal {
    Message(String),
    State(Unsealed),
}

impl Refusal {
    pub(super) fn reply(&self, id: &Value) -> String {
        match self {
            Refusal::Message(message) => error(id, -32602, message),
            Refusal::State(why) => error(id, -32602, &format!("Invalid params: {why}")),
        }
    }
}

fn not_found(id: &Value, uri: &str, modern: bool) -> String {
    error_with(
        id,
        not_found_code(modern),
        &format!("Resource not found: {uri}"),
        Some(&serde_json::json!({ "uri": uri })),
    )
}

/// A prompt's or resource's failure: `-32603` with the message, and the code in `data`.
fn handler_error(id: &Value, failure: &ToolError) -> String {
    let data = failure
        .code
        .as_ref()
        .map(|code| serde_json::json!({ "code": code }));
    error_with(id, -32603, &failure.message, data.as_ref())
}
