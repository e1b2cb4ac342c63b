//! The generated prompt and resource methods (`snapshots/catalog.rs`), through a caller that
//! records what they ask: required and optional prompt arguments by their wire names (a
//! keyword and a dashed name included), template URIs expanded and percent-encoded, static
//! resources by their constants, and names a tool already had moved aside. The same methods
//! against a real server: `interop.rs` (server-everything, both transports).

use std::sync::Mutex;

use mcp_bindgen::drift::Kind;
use mcp_bindgen::{
    CallToolResult, Completion, CompletionRef, Content, Error, GetPromptResult, PromptMessage,
    Provenance, ReadResourceResult, ResourceContents, ToolCaller,
};
use mcp_bindgen_tests::catalog::{self, Client, prompts, resources};
use serde_json::{Map, Value, json};

/// Answers prompts and reads with what it was asked, and remembers it.
#[derive(Default)]
struct Asked(Mutex<Vec<Value>>);

impl ToolCaller for Asked {
    async fn call_tool(&self, name: &str, _: Map<String, Value>) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(format!("tool {name}")))
    }

    async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, Error> {
        self.0
            .lock()
            .unwrap()
            .push(json!({"prompt": name, "arguments": arguments}));
        Ok(GetPromptResult {
            messages: vec![PromptMessage::user(Content::text(name))],
            ..Default::default()
        })
    }

    async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.0.lock().unwrap().push(json!({"read": uri}));
        Ok(ReadResourceResult {
            contents: vec![ResourceContents::text(uri, "text/plain", "x")],
            ..Default::default()
        })
    }

    async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<Completion, Error> {
        let chosen: Map<String, Value> = context
            .iter()
            .map(|(name, value)| ((*name).to_owned(), json!(value)))
            .collect();
        self.0.lock().unwrap().push(json!({
            "complete": reference, "argument": argument, "value": value, "context": chosen,
        }));
        Ok(Completion {
            values: vec![format!("{value}!")],
            ..Default::default()
        })
    }
}

/// Each prompt argument and template variable has a `complete_*` method (the capture
/// declares `completions`), which names its prompt or template, its argument by its wire
/// name, and the arguments chosen already.
#[test]
fn completion_methods_name_their_reference_and_argument() {
    let client = Client::new(Asked::default());
    pollster::block_on(async {
        let got = client
            .complete_briefing_goal("fi", &[("levelId", "4")])
            .await
            .expect("completes");
        assert_eq!(got.values, ["fi!"]);
        client
            .complete_briefing_level_id("", &[])
            .await
            .expect("levelId");
        client.complete_tile_y("1", &[("x", "3")]).await.expect("y");
    });
    let asked = client.caller().0.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            json!({"complete": {"type": "ref/prompt", "name": "briefing"}, "argument": "goal", "value": "fi", "context": {"levelId": "4"}}),
            json!({"complete": {"type": "ref/prompt", "name": "briefing"}, "argument": "level-id", "value": "", "context": {}}),
            json!({"complete": {"type": "ref/resource", "uri": "map://{x},{y}/{uri}"}, "argument": "y", "value": "1", "context": {"x": "3"}}),
        ]
    );
}

#[test]
fn generated_methods_send_what_the_server_listed() {
    let client = Client::new(Asked::default());
    pollster::block_on(async {
        let got = client
            .prompt_briefing_2(&prompts::BriefingArgs {
                goal: "find the key".into(),
                r#type: Some("stealth".into()),
                level_id: None,
            })
            .await
            .expect("briefing");
        assert_eq!(got.messages.len(), 1);
        client.prompt_briefing_3().await.expect("Briefing");
        client.prompt_no_arguments().await.expect("no-arguments");
        client
            .read_resource_2(resources::LEVEL)
            .await
            .expect("level");
        client.read_entity("4 2", "hp,pos").await.expect("entity");
        client.read_file("maps/a b.json").await.expect("file");
        client.read_tile("3", "4", "x/y").await.expect("tile");
        // The tools keep their names.
        client.prompt_briefing().await.expect("the tool");
        client.read_resource().await.expect("the tool");
    });
    let asked = client.caller().0.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            json!({"prompt": "briefing", "arguments": {"goal": "find the key", "type": "stealth"}}),
            json!({"prompt": "Briefing", "arguments": {}}),
            json!({"prompt": "no-arguments", "arguments": {}}),
            json!({"read": "game://level"}),
            json!({"read": "game://entity/4%202?fields=hp%2Cpos"}),
            json!({"read": "file:///maps/a%20b.json"}),
            json!({"read": "map://3,4/x%2Fy"}),
        ]
    );
    assert_eq!(resources::LEVEL_2, "game://log");
}

/// A caller behind a reference, a `Box` or an `Arc` is the caller: prompts and reads reach
/// it (they once fell back to the tools-only default).
#[test]
fn a_borrowed_or_shared_caller_forwards_prompts_and_reads() {
    let asked = std::sync::Arc::new(Asked::default());
    pollster::block_on(async {
        Client::new(&*asked)
            .prompt_no_arguments()
            .await
            .expect("through &T");
        Client::new(asked.clone())
            .read_resource_2(resources::LEVEL)
            .await
            .expect("through Arc<T>");
        Client::new(Box::new(Asked::default()))
            .prompt_no_arguments()
            .await
            .expect("through Box<T>");
    });
    assert_eq!(
        *asked.0.lock().unwrap(),
        [
            json!({"prompt": "no-arguments", "arguments": {}}),
            json!({"read": "game://level"}),
        ]
    );
}

/// A caller that serves tools only says so, naming what was asked.
#[test]
fn a_tools_only_caller_refuses_prompts_and_resources() {
    struct ToolsOnly;
    impl ToolCaller for ToolsOnly {
        async fn call_tool(&self, _: &str, _: Map<String, Value>) -> Result<CallToolResult, Error> {
            Ok(CallToolResult::text("ok"))
        }
    }
    let client = Client::new(ToolsOnly);
    let prompt = pollster::block_on(client.prompt_no_arguments()).expect_err("no prompts");
    assert!(prompt.to_string().contains("no-arguments"), "{prompt}");
    let read = pollster::block_on(client.read_resource_2(resources::LEVEL)).expect_err("no reads");
    assert!(read.to_string().contains("game://level"), "{read}");
}

/// Records each drift check of the catalog and refuses those of `refused`, as a client whose
/// check found them broken; answers the requests that get through.
#[derive(Default)]
struct Checked {
    refused: Vec<(Kind, &'static str)>,
    asked: Mutex<Vec<Value>>,
}

impl ToolCaller for Checked {
    async fn call_tool(&self, name: &str, _: Map<String, Value>) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(format!("tool {name}")))
    }

    async fn check_catalog(
        &self,
        provenance: &'static Provenance,
        kind: Kind,
        name: &str,
    ) -> Result<(), Error> {
        assert!(std::ptr::eq(provenance, &catalog::PROVENANCE));
        self.asked
            .lock()
            .unwrap()
            .push(json!({"check": kind.as_str(), "name": name}));
        if self.refused.contains(&(kind, name)) {
            return Err(Error::Drift {
                tool: name.to_owned(),
                changes: Vec::new(),
            });
        }
        Ok(())
    }

    async fn get_prompt(
        &self,
        name: &str,
        _: Map<String, Value>,
    ) -> Result<GetPromptResult, Error> {
        self.asked.lock().unwrap().push(json!({"prompt": name}));
        Ok(GetPromptResult::default())
    }

    async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.asked.lock().unwrap().push(json!({"read": uri}));
        Ok(ReadResourceResult::default())
    }

    async fn complete(
        &self,
        _: &CompletionRef,
        argument: &str,
        _: &str,
        _: &[(&str, &str)],
    ) -> Result<Completion, Error> {
        self.asked
            .lock()
            .unwrap()
            .push(json!({"complete": argument}));
        Ok(Completion::default())
    }
}

/// Every prompt, resource, template and completion method asks the drift check of its
/// prompt or template (by name) or resource (by URI) first, and sends nothing when the check
/// refuses; the module records what it uses in `PROVENANCE`.
#[test]
fn catalog_methods_ask_the_drift_check_first_and_stop_when_it_refuses() {
    let client = Client::new(Checked {
        refused: vec![
            (Kind::Prompt, "briefing"),
            (Kind::Resource, "game://log"),
            (Kind::ResourceTemplate, "tile"),
        ],
        ..Checked::default()
    });
    pollster::block_on(async {
        let args = prompts::BriefingArgs {
            goal: "g".into(),
            ..Default::default()
        };
        assert!(client.prompt_briefing_2(&args).await.is_err());
        client.prompt_no_arguments().await.expect("not refused");
        assert!(client.read_resource_2(resources::LEVEL_2).await.is_err());
        client
            .read_resource_2(resources::LEVEL)
            .await
            .expect("not refused");
        assert!(client.read_tile("1", "2", "u").await.is_err());
        client.read_entity("4", "hp").await.expect("not refused");
        assert!(client.complete_briefing_goal("f", &[]).await.is_err());
        assert!(client.complete_tile_x("1", &[]).await.is_err());
        client
            .complete_entity_id("", &[])
            .await
            .expect("not refused");
    });
    let asked = client.caller().asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            json!({"check": "prompt", "name": "briefing"}),
            json!({"check": "prompt", "name": "no-arguments"}),
            json!({"prompt": "no-arguments"}),
            json!({"check": "resource", "name": "game://log"}),
            json!({"check": "resource", "name": "game://level"}),
            json!({"read": "game://level"}),
            json!({"check": "resource template", "name": "tile"}),
            json!({"check": "resource template", "name": "entity"}),
            json!({"read": "game://entity/4?fields=hp"}),
            json!({"check": "prompt", "name": "briefing"}),
            json!({"check": "resource template", "name": "tile"}),
            json!({"check": "resource template", "name": "entity"}),
            json!({"complete": "id"}),
        ]
    );
    assert!(!catalog::PROVENANCE.catalog_digest().is_empty());
    assert!(
        catalog::PROVENANCE
            .catalog()
            .contains(r#"{"name":"tile","uriTemplate":"map://{x},{y}/{uri}"}"#)
    );
}
