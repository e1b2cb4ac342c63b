//! The registry beyond tools, through `dispatch` in both eras: prompts (derived and built),
//! resources and RFC 6570 templates, completion, legacy subscriptions, and handlers that ask
//! the client for input (2026-07-28 `input_required`, with a sealed request state).
#![cfg(feature = "server")]

use mcp_bindgen::server::{
    CompletionRef, Input, InputRequired, InteractiveHandler, McpPrompt, McpTool, Outcome,
    PromptDefinition, PromptHandler, Registry, ResourceDefinition, TemplateDefinition, ToolError,
    complete_from,
};
use mcp_bindgen::{Content, PromptMessage, ResourceContents};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Default)]
struct Game {
    level: u32,
    enemies: Vec<String>,
    cleared: bool,
}

/// Sets an agent up to play a level
#[derive(McpPrompt, Deserialize, JsonSchema)]
#[mcp(title = "Level briefing")]
struct Briefing {
    /// What to try first
    goal: String,
    /// Which level (the current one when absent)
    level: Option<u32>,
}

impl PromptHandler<Game> for Briefing {
    fn get(self, game: &mut Game) -> Result<Vec<PromptMessage>, ToolError> {
        if self.goal == "fail" {
            return Err(ToolError::new("no briefing for that").with_code("no_briefing"));
        }
        if self.goal == "panic" {
            panic!("briefing exploded");
        }
        Ok(vec![PromptMessage::user(Content::text(format!(
            "Level {}: {}",
            self.level.unwrap_or(game.level),
            self.goal
        )))])
    }
}

/// Remove every enemy (asks the player first)
#[derive(McpTool, Deserialize, JsonSchema)]
#[mcp(destructive)]
struct ClearLevel {
    level: u32,
}

impl InteractiveHandler<Game> for ClearLevel {
    type Output = String;
    fn call(self, game: &mut Game, input: &Input) -> Result<Outcome<String>, ToolError> {
        let confirmed = input.accepted("confirm").and_then(|c| c.get("ok"));
        match (input.state(), confirmed) {
            (Some(state), Some(ok)) if state["level"] == self.level => {
                if ok == true {
                    game.cleared = true;
                    Ok(Outcome::Complete(format!("level {} cleared", self.level)))
                } else {
                    Err(ToolError::new("the player said no").with_code("declined"))
                }
            }
            _ => Ok(InputRequired::new()
                .elicit(
                    "confirm",
                    format!("Clear level {}?", self.level),
                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                )
                .sample("advice", json!({"messages": [], "maxTokens": 5}))
                .with_state(json!({"level": self.level}))
                .into()),
        }
    }
}

#[derive(Deserialize)]
struct EntityVars {
    id: u32,
    #[serde(default)]
    fields: Vec<String>,
}

fn registry() -> Registry<Game> {
    let mut r = Registry::new("beyond-test", "1.0.0");
    r.register_prompt::<Briefing>()
        .register_interactive::<ClearLevel>()
        .register_resource(
            ResourceDefinition::new("game://level", "level")
                .title("The current level")
                .description("Its number, as text")
                .mime_type("text/plain"),
            |game| {
                Ok(vec![ResourceContents::text(
                    "game://level",
                    "text/plain",
                    game.level.to_string(),
                )])
            },
        )
        .register_resource(ResourceDefinition::new("game://empty", "empty"), |_| {
            Ok(Vec::new())
        })
        .register_template(
            TemplateDefinition::new("game://entity/{id}{?fields*}", "entity")
                .mime_type("application/json"),
            |game, uri, vars: EntityVars| {
                let Some(name) = game.enemies.get(vars.id as usize) else {
                    return Err(ToolError::new("no such entity").with_code("not_found"));
                };
                Ok(vec![ResourceContents::text(
                    uri,
                    "application/json",
                    json!({"name": name, "fields": vars.fields}).to_string(),
                )])
            },
        )
        .register_template(
            TemplateDefinition::new("game://named/{name}", "named"),
            |_, uri, vars: Value| {
                Ok(vec![ResourceContents::text(
                    uri,
                    "text/plain",
                    vars["name"].as_str().unwrap_or_default(),
                )])
            },
        )
        .register_completion(
            CompletionRef::Prompt("briefing".into()),
            "goal",
            |game, typed, context| {
                let mut goals = vec!["find the key".to_owned(), "fight".to_owned()];
                goals.extend(game.enemies.iter().map(|e| format!("defeat {e}")));
                if let Some(level) = context.get("level").and_then(Value::as_str) {
                    goals.push(format!("finish level {level}"));
                }
                complete_from(goals, typed)
            },
        )
        .register_completion(
            CompletionRef::Resource("game://entity/{id}{?fields*}".into()),
            "id",
            |_, typed, _| complete_from((0..150).map(|i| i.to_string()), typed),
        );
    r
}

fn game() -> Game {
    Game {
        level: 3,
        enemies: vec!["goblin".into(), "orc".into()],
        cleared: false,
    }
}

const MODERN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{}}}"#;

/// A request in the era asked for (`modern`: with the 2026-07-28 `_meta`).
fn request(modern: bool, method: &str, params: Value) -> String {
    let mut params = params;
    if modern {
        params["_meta"] = serde_json::from_str(MODERN_META).unwrap();
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

fn ask(
    r: &mut Registry<Game>,
    game: &mut Game,
    modern: bool,
    method: &str,
    params: Value,
) -> Value {
    let reply = r
        .dispatch(game, &request(modern, method, params))
        .expect("a reply");
    serde_json::from_str(&reply).expect("JSON")
}

/// A template that is not RFC 6570 is refused where it is registered, with its fault and
/// place, and nothing is listed; `register_template` panics with the same message.
#[test]
fn an_invalid_template_is_refused_at_registration() {
    let mut r = registry();
    let read = |_: &mut Game, _: &str, _: Value| Ok(Vec::new());
    let err = r
        .try_register_template(TemplateDefinition::new("game://map/{x,y", "map"), read)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.at, 11, "{err}");
    assert!(err.to_string().contains("never closed"), "{err}");
    let mut g = game();
    let list = ask(&mut r, &mut g, true, "resources/templates/list", json!({}));
    let names: Vec<&Value> = list["result"]["resourceTemplates"]
        .as_array()
        .expect("templates")
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert!(!names.contains(&&json!("map")), "{list}");
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        r.register_template(TemplateDefinition::new("game://{bad name}", "bad"), read);
    }))
    .expect_err("register_template panics on a template that does not parse");
    let message = panicked
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("`bad name` is not a variable name"),
        "{message}"
    );
}

#[test]
fn prompts_are_listed_with_their_arguments_in_both_eras() {
    let (mut r, mut g) = (registry(), game());
    for modern in [false, true] {
        let list = ask(&mut r, &mut g, modern, "prompts/list", json!({}));
        assert_eq!(
            list["result"]["prompts"],
            json!([{
                "name": "briefing",
                "title": "Level briefing",
                "description": "Sets an agent up to play a level",
                "arguments": [
                    {"name": "goal", "description": "What to try first", "required": true},
                    {"name": "level", "description": "Which level (the current one when absent)", "required": false},
                ],
            }]),
            "{list}"
        );
        assert_eq!(list["result"].get("resultType").is_some(), modern, "{list}");
    }
}

#[test]
fn a_prompt_reads_typed_arguments_from_strings_and_refuses_what_does_not_fit() {
    let (mut r, mut g) = (registry(), game());
    let get = |r: &mut Registry<Game>, g: &mut Game, arguments: Value| {
        ask(
            r,
            g,
            true,
            "prompts/get",
            json!({"name": "briefing", "arguments": arguments}),
        )
    };
    let reply = get(&mut r, &mut g, json!({"goal": "find the key"}));
    assert_eq!(reply["result"]["messages"][0]["role"], "user", "{reply}");
    assert_eq!(
        reply["result"]["messages"][0]["content"]["text"],
        "Level 3: find the key"
    );
    assert_eq!(
        reply["result"]["description"],
        "Sets an agent up to play a level"
    );
    assert_eq!(reply["result"]["resultType"], "complete");
    // "7" fills the u32 field.
    let reply = get(&mut r, &mut g, json!({"goal": "fight", "level": "7"}));
    assert_eq!(
        reply["result"]["messages"][0]["content"]["text"], "Level 7: fight",
        "{reply}"
    );
    let reply = get(&mut r, &mut g, json!({"level": "7"}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"goal\""),
        "{reply}"
    );
    let reply = get(&mut r, &mut g, json!({"goal": "fight", "level": "seven"}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/level"),
        "{reply}"
    );
    let reply = get(&mut r, &mut g, json!(["goal"]));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let reply = get(&mut r, &mut g, json!({"goal": "fail"}));
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(reply["error"]["data"]["code"], "no_briefing", "{reply}");
    let reply = get(&mut r, &mut g, json!({"goal": "panic"}));
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    // Still serving.
    let reply = get(&mut r, &mut g, json!({"goal": "again"}));
    assert_eq!(
        reply["result"]["messages"][0]["content"]["text"],
        "Level 3: again"
    );
    let reply = ask(
        &mut r,
        &mut g,
        false,
        "prompts/get",
        json!({"name": "nope"}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

#[test]
fn resources_and_templates_are_listed_and_read_in_both_eras() {
    let (mut r, mut g) = (registry(), game());
    for modern in [false, true] {
        let list = ask(&mut r, &mut g, modern, "resources/list", json!({}));
        assert_eq!(
            list["result"]["resources"][0],
            json!({"uri": "game://level", "name": "level", "title": "The current level",
                   "description": "Its number, as text", "mimeType": "text/plain"}),
            "{list}"
        );
        let templates = ask(
            &mut r,
            &mut g,
            modern,
            "resources/templates/list",
            json!({}),
        );
        assert_eq!(
            templates["result"]["resourceTemplates"][0],
            json!({"uriTemplate": "game://entity/{id}{?fields*}", "name": "entity", "mimeType": "application/json"}),
            "{templates}"
        );
        assert_eq!(templates["result"].get("ttlMs").is_some(), modern);
        let read = ask(
            &mut r,
            &mut g,
            modern,
            "resources/read",
            json!({"uri": "game://level"}),
        );
        assert_eq!(
            read["result"]["contents"],
            json!([{"uri": "game://level", "mimeType": "text/plain", "text": "3"}]),
            "{read}"
        );
        assert_eq!(read["result"].get("cacheScope").is_some(), modern, "{read}");
        let entity = ask(
            &mut r,
            &mut g,
            modern,
            "resources/read",
            json!({"uri": "game://entity/1?fields=hp&fields=pos"}),
        );
        let text = entity["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!({"name": "orc", "fields": ["hp", "pos"]}),
            "{entity}"
        );
        let named = ask(
            &mut r,
            &mut g,
            modern,
            "resources/read",
            json!({"uri": "game://named/dark%20forest"}),
        );
        assert_eq!(
            named["result"]["contents"][0]["text"], "dark forest",
            "{named}"
        );
        let not_found = if modern { -32602 } else { -32002 };
        for uri in [
            "game://nothing",
            // Fits the template, but `id` is not a number.
            "game://entity/x",
            // The handler says not found.
            "game://entity/9",
            // Empty contents are never sent for a resource.
            "game://empty",
        ] {
            let read = ask(
                &mut r,
                &mut g,
                modern,
                "resources/read",
                json!({"uri": uri}),
            );
            assert_eq!(read["error"]["code"], not_found, "{uri}: {read}");
            assert_eq!(read["error"]["data"]["uri"], uri, "{read}");
        }
    }
}

#[test]
fn completion_offers_values_from_the_game() {
    let (mut r, mut g) = (registry(), game());
    let complete = |r: &mut Registry<Game>,
                    g: &mut Game,
                    reference: Value,
                    name: &str,
                    value: &str,
                    context: Value| {
        ask(
            r,
            g,
            true,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": value}, "context": context}),
        )
    };
    let prompt = json!({"type": "ref/prompt", "name": "briefing"});
    let reply = complete(&mut r, &mut g, prompt.clone(), "goal", "DEF", json!({}));
    assert_eq!(
        reply["result"]["completion"],
        json!({"values": ["defeat goblin", "defeat orc"], "total": 2, "hasMore": false}),
        "{reply}"
    );
    let reply = complete(
        &mut r,
        &mut g,
        prompt.clone(),
        "goal",
        "fin",
        json!({"arguments": {"level": "4"}}),
    );
    assert_eq!(
        reply["result"]["completion"]["values"],
        json!(["find the key", "finish level 4"]),
        "the arguments already chosen reach the completer: {reply}"
    );
    // An argument nobody completes: no values.
    let reply = complete(&mut r, &mut g, prompt, "level", "", json!({}));
    assert_eq!(
        reply["result"]["completion"]["values"],
        json!([]),
        "{reply}"
    );
    let template = json!({"type": "ref/resource", "uri": "game://entity/{id}{?fields*}"});
    let reply = complete(&mut r, &mut g, template, "id", "", json!({}));
    let completion = &reply["result"]["completion"];
    assert_eq!(
        completion["values"].as_array().map(Vec::len),
        Some(100),
        "{reply}"
    );
    assert_eq!(completion["total"], 150);
    assert_eq!(completion["hasMore"], true);
    let reply = complete(
        &mut r,
        &mut g,
        json!({"type": "ref/prompt", "name": "nope"}),
        "goal",
        "",
        json!({}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let reply = complete(
        &mut r,
        &mut g,
        json!({"type": "ref/tool"}),
        "goal",
        "",
        json!({}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let no_argument = ask(
        &mut r,
        &mut g,
        true,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "briefing"}}),
    );
    assert_eq!(no_argument["error"]["code"], -32602, "{no_argument}");
    assert!(
        no_argument["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"argument\""),
        "{no_argument}"
    );
}

#[test]
fn legacy_clients_subscribe_to_resources_that_exist() {
    let (mut r, mut g) = (registry(), game());
    let on = ask(
        &mut r,
        &mut g,
        false,
        "resources/subscribe",
        json!({"uri": "game://level"}),
    );
    assert_eq!(on["result"], json!({}), "{on}");
    let templated = ask(
        &mut r,
        &mut g,
        false,
        "resources/subscribe",
        json!({"uri": "game://entity/0"}),
    );
    assert_eq!(templated["result"], json!({}), "{templated}");
    let missing = ask(
        &mut r,
        &mut g,
        false,
        "resources/subscribe",
        json!({"uri": "game://nothing"}),
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    let no_uri = ask(
        &mut r,
        &mut g,
        false,
        "resources/subscribe",
        json!({"uri": 3}),
    );
    assert_eq!(no_uri["error"]["code"], -32602, "{no_uri}");
    let off = ask(
        &mut r,
        &mut g,
        false,
        "resources/unsubscribe",
        json!({"uri": "game://level"}),
    );
    assert_eq!(off["result"], json!({}), "{off}");
    // 2026-07-28 subscribes on subscriptions/listen instead.
    let modern = ask(
        &mut r,
        &mut g,
        true,
        "resources/subscribe",
        json!({"uri": "game://level"}),
    );
    assert_eq!(modern["error"]["code"], -32601, "{modern}");
}

#[test]
fn a_tool_asks_for_input_and_resumes_with_the_answers_and_its_sealed_state() {
    let (mut r, mut g) = (registry(), game());
    let call = |r: &mut Registry<Game>, g: &mut Game, extra: Value| {
        let mut params = json!({"name": "clear_level", "arguments": {"level": 3}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        ask(r, g, true, "tools/call", params)
    };
    let first = call(&mut r, &mut g, json!({}));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        result["inputRequests"]["confirm"]["params"]["message"],
        "Clear level 3?"
    );
    assert_eq!(
        result["inputRequests"]["advice"]["method"],
        "sampling/createMessage"
    );
    let state = result["requestState"]
        .as_str()
        .expect("a sealed state")
        .to_owned();
    assert!(
        !state.contains("level"),
        "the state is not readable in the clear: {state}"
    );
    assert!(!g.cleared);

    let yes = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let done = call(
        &mut r,
        &mut g,
        json!({"inputResponses": yes, "requestState": state}),
    );
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"result": "level 3 cleared"})
    );
    assert!(g.cleared);

    // Answers without the state: the handler asks again (it wants its state back).
    let again = call(&mut r, &mut g, json!({"inputResponses": yes}));
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    // A changed state, or one sealed for other arguments, is refused before the handler runs.
    let tampered = call(
        &mut r,
        &mut g,
        json!({"inputResponses": yes, "requestState": format!("{state}x")}),
    );
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    let elsewhere = ask(
        &mut r,
        &mut g,
        true,
        "tools/call",
        json!({"name": "clear_level", "arguments": {"level": 4}, "inputResponses": yes, "requestState": state}),
    );
    assert_eq!(elsewhere["error"]["code"], -32602, "{elsewhere}");
    assert!(
        elsewhere["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{elsewhere}"
    );
    let malformed = call(&mut r, &mut g, json!({"inputResponses": [1]}));
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    let numbered = call(
        &mut r,
        &mut g,
        json!({"inputResponses": yes, "requestState": 7}),
    );
    assert_eq!(numbered["error"]["code"], -32602, "{numbered}");
    assert!(
        numbered["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState must be a string"),
        "{numbered}"
    );
    let declined = call(
        &mut r,
        &mut g,
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": false}}}, "requestState": state}),
    );
    assert_eq!(declined["result"]["isError"], true, "{declined}");
}

#[test]
fn only_requests_the_client_can_answer_are_sent() {
    let (mut r, mut g) = (registry(), game());
    let text = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "clear_level", "arguments": {"level": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
            },
        },
    })
    .to_string();
    let reply: Value = serde_json::from_str(&r.dispatch(&mut g, &text).unwrap()).unwrap();
    let requests = reply["result"]["inputRequests"]
        .as_object()
        .expect("requests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["advice"], "{reply}");
}

#[test]
fn a_legacy_call_that_cannot_carry_requests_says_what_the_tool_needed() {
    let (mut r, mut g) = (registry(), game());
    let reply = ask(
        &mut r,
        &mut g,
        false,
        "tools/call",
        json!({"name": "clear_level", "arguments": {"level": 3}}),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("clear_level") && text.contains("confirm"),
        "{reply}"
    );
    assert!(text.contains("input_unavailable"), "{reply}");
    // A prompt that asks has no result to carry that: a JSON-RPC error.
    r.register_prompt_fn(PromptDefinition::new("asks", ""), |_, _, _| {
        Ok(InputRequired::new().list_roots("roots").into())
    });
    let reply = ask(
        &mut r,
        &mut g,
        false,
        "prompts/get",
        json!({"name": "asks"}),
    );
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
}

#[test]
fn a_prompt_built_by_hand_can_ask_for_input_too() {
    let mut r = registry();
    let mut g = game();
    r.register_prompt_fn(
        PromptDefinition::new("tone", "Picks a tone").argument("audience", "Who reads it", false),
        |_, arguments, input| {
            Ok(
                match input
                    .accepted("tone")
                    .and_then(|c| c.get("tone"))
                    .and_then(Value::as_str)
                {
                    Some(tone) => {
                        Outcome::Complete(vec![PromptMessage::assistant(Content::text(format!(
                            "{tone} for {}",
                            arguments
                                .get("audience")
                                .and_then(Value::as_str)
                                .unwrap_or("everyone")
                        )))])
                    }
                    None => InputRequired::new()
                        .elicit("tone", "Which tone?", json!({"type": "object"}))
                        .into(),
                },
            )
        },
    );
    let first = ask(
        &mut r,
        &mut g,
        true,
        "prompts/get",
        json!({"name": "tone", "arguments": {"audience": "kids"}}),
    );
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let done = ask(
        &mut r,
        &mut g,
        true,
        "prompts/get",
        json!({"name": "tone", "arguments": {"audience": "kids"},
               "inputResponses": {"tone": {"action": "accept", "content": {"tone": "playful"}}},
               "requestState": state}),
    );
    assert_eq!(done["result"]["messages"][0]["role"], "assistant", "{done}");
    assert_eq!(
        done["result"]["messages"][0]["content"]["text"],
        "playful for kids"
    );
    // A prompt's state does not open a tool call.
    let crossed = ask(
        &mut r,
        &mut g,
        true,
        "tools/call",
        json!({"name": "clear_level", "arguments": {"level": 3}, "requestState": state}),
    );
    assert_eq!(crossed["error"]["code"], -32602, "{crossed}");
    let list = ask(&mut r, &mut g, false, "prompts/list", json!({}));
    assert_eq!(
        list["result"]["prompts"][1]["arguments"],
        json!([{"name": "audience", "description": "Who reads it", "required": false}])
    );
}

/// A resource or a template read can ask for input (2026-07-28 `input_required`): the first
/// read gets the request and a sealed state, the retry with the answer gets the contents; the
/// state is bound to the URI (it opens no other read, and no tool call); a legacy read that
/// asks is an error naming what it needed.
#[test]
fn a_resource_or_template_read_can_ask_for_input_too() {
    use mcp_bindgen::server::{ResourceDefinition, TemplateDefinition};
    let mut r = registry();
    let mut g = game();
    /// Asks for a password first; reads `what` once it is `swordfish`.
    fn guarded(what: String, input: &Input) -> Result<Outcome<Vec<ResourceContents>>, ToolError> {
        let password = input
            .accepted("password")
            .and_then(|c| c.get("password"))
            .and_then(Value::as_str);
        Ok(match password {
            Some("swordfish") => Outcome::Complete(vec![ResourceContents::text(
                &what,
                "text/plain",
                format!("the secrets of {what}"),
            )]),
            Some(_) => return Err(ToolError::new("wrong password").with_code("denied")),
            None => InputRequired::new()
                .elicit("password", "The password?", json!({"type": "object"}))
                .into(),
        })
    }
    r.register_resource_fn(
        ResourceDefinition::new("game://vault", "vault"),
        |_, input| guarded("game://vault".into(), input),
    );
    r.register_template_fn(
        TemplateDefinition::new("game://vaults/{n}", "vaults"),
        |_, uri, _: Value, input| guarded(uri.to_owned(), input),
    )
    .expect("a valid template");
    for uri in ["game://vault", "game://vaults/7"] {
        let first = ask(&mut r, &mut g, true, "resources/read", json!({"uri": uri}));
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        assert_eq!(
            first["result"]["inputRequests"]["password"]["method"], "elicitation/create",
            "{first}"
        );
        assert!(
            first["result"].get("ttlMs").is_none(),
            "an interim result carries no cache hints: {first}"
        );
        let state = first["result"]["requestState"].clone();
        let answer = |password: &str| {
            json!({"uri": uri, "requestState": state,
                   "inputResponses": {"password": {"action": "accept",
                                                   "content": {"password": password}}}})
        };
        let read = ask(&mut r, &mut g, true, "resources/read", answer("swordfish"));
        assert_eq!(
            read["result"]["contents"][0]["text"],
            format!("the secrets of {uri}"),
            "{read}"
        );
        assert_eq!(read["result"]["resultType"], "complete", "{read}");
        let wrong = ask(&mut r, &mut g, true, "resources/read", answer("guess"));
        assert_eq!(wrong["error"]["code"], -32603, "{wrong}");
        assert_eq!(wrong["error"]["data"]["code"], "denied", "{wrong}");
        // The state is bound to this URI.
        let other = if uri == "game://vault" {
            "game://vaults/8"
        } else {
            "game://vault"
        };
        let mut elsewhere = answer("swordfish");
        elsewhere["uri"] = json!(other);
        let crossed = ask(&mut r, &mut g, true, "resources/read", elsewhere);
        assert_eq!(crossed["error"]["code"], -32602, "{crossed}");
        let crossed = ask(
            &mut r,
            &mut g,
            true,
            "tools/call",
            json!({"name": "clear_level", "arguments": {"level": 3}, "requestState": state}),
        );
        assert_eq!(crossed["error"]["code"], -32602, "{crossed}");
        // Legacy: no result can carry the request.
        let legacy = ask(&mut r, &mut g, false, "resources/read", json!({"uri": uri}));
        assert_eq!(legacy["error"]["code"], -32603, "{legacy}");
        let message = legacy["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(uri) && message.contains("password"),
            "{legacy}"
        );
    }
}

#[test]
fn prompt_and_resource_lists_page_like_tools() {
    let mut r = Registry::<Game>::new("paged", "1").with_page_size(1);
    for name in ["a", "b"] {
        r.register_prompt_fn(PromptDefinition::new(name, ""), |_, _, _| {
            Ok(Outcome::Complete(Vec::new()))
        });
    }
    let mut g = game();
    let first = ask(&mut r, &mut g, true, "prompts/list", json!({}));
    assert_eq!(first["result"]["prompts"][0]["name"], "a", "{first}");
    let cursor = first["result"]["nextCursor"].clone();
    let second = ask(
        &mut r,
        &mut g,
        true,
        "prompts/list",
        json!({"cursor": cursor}),
    );
    assert_eq!(second["result"]["prompts"][0]["name"], "b", "{second}");
    assert!(second["result"].get("nextCursor").is_none());
    let bad = ask(
        &mut r,
        &mut g,
        true,
        "prompts/list",
        json!({"cursor": "tools:1"}),
    );
    assert_eq!(
        bad["error"]["code"], -32602,
        "a tools cursor does not page prompts: {bad}"
    );
}
