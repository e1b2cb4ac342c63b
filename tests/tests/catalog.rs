//! The generated prompt and resource methods (`snapshots/catalog.rs`), through a caller that
//! records what they ask: required and optional prompt arguments by their wire names (a
//! keyword and a dashed name included), template URIs expanded and percent-encoded, static
//! resources by their constants, and names a tool already had moved aside. The same methods
//! against a real server: `interop.rs` (server-everything, both transports).

use std::sync::Mutex;

use mcp_bindgen::{
    CallToolResult, Completion, CompletionRef, Content, Error, GetPromptResult, PromptMessage,
    ReadResourceResult, ResourceContents, ToolCaller,
};
use mcp_bindgen_tests::catalog::{Client, prompts, resources};
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
            .prompt_briefing_(&prompts::BriefingArgs {
                goal: "find the key".into(),
                r#type: Some("stealth".into()),
                level_id: None,
            })
            .await
            .expect("briefing");
        assert_eq!(got.messages.len(), 1);
        client.prompt_briefing__().await.expect("Briefing");
        client.prompt_no_arguments().await.expect("no-arguments");
        client
            .read_resource_(resources::LEVEL)
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
    assert_eq!(resources::LEVEL_, "game://log");
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
            .read_resource_(resources::LEVEL)
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
    let read = pollster::block_on(client.read_resource_(resources::LEVEL)).expect_err("no reads");
    assert!(read.to_string().contains("game://level"), "{read}");
}
