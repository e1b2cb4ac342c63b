//! Drives `@modelcontextprotocol/server-everything` through the client generated from its
//! capture (`snapshots/everything.rs`), typed: `everything_check stdio|http CAPTURE_OUT`.
//!
//! It starts the server (stdio, or Streamable HTTP on 127.0.0.1:3001: run it in a private
//! network namespace, since that mode listens on every interface), captures its `tools/list`
//! with the code of `mcp-bindgen capture` into CAPTURE_OUT, calls every listed tool, and prints
//! one line per tool. Exits non-zero when a call does not end as expected.

use std::time::{Duration, Instant};

use mcp_bindgen::{Error, HttpClient, StdioClient, ToolCaller};
use mcp_bindgen_cli::live::{LiveOptions, capture_http, capture_stdio};
use mcp_bindgen_tests::everything::{Client, TOOL_NAMES, prompts, types};
use serde_json::json;

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
);
const NODE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/interop/node_modules/.bin/node"
);

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: everything_check stdio|http CAPTURE_OUT");
        return std::process::ExitCode::from(2);
    };
    match run(mode, out).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(mode: &str, out: &str) -> Result<(), Box<dyn std::error::Error>> {
    match mode {
        "stdio" => {
            let node = NODE.to_owned();
            let args = [SERVER.to_owned(), "stdio".to_owned()];
            let capture = capture_stdio(&node, &args, &LiveOptions::default()).await?;
            std::fs::write(out, serde_json::to_string_pretty(&capture)? + "\n")?;
            let mut command = tokio::process::Command::new(NODE);
            command.arg(SERVER).arg("stdio");
            call_every_tool(StdioClient::spawn(command).await?).await
        }
        "http" => {
            let mut server = tokio::process::Command::new(NODE)
                .arg(SERVER)
                .arg("streamableHttp")
                .env("PORT", "3001")
                .stdout(std::process::Stdio::null())
                .kill_on_drop(true)
                .spawn()?;
            let deadline = Instant::now() + Duration::from_secs(30);
            while tokio::net::TcpStream::connect("127.0.0.1:3001")
                .await
                .is_err()
            {
                if Instant::now() > deadline {
                    return Err("server-everything did not listen within 30 s".into());
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let url = "http://127.0.0.1:3001/mcp";
            let capture = capture_http(url, &LiveOptions::default()).await?;
            std::fs::write(out, serde_json::to_string_pretty(&capture)? + "\n")?;
            let result = call_every_tool(HttpClient::connect(url).await?).await;
            let _ = server.kill().await;
            result
        }
        other => Err(format!("unknown mode {other}").into()),
    }
}

async fn call_every_tool<C: ToolCaller + Sync>(
    caller: C,
) -> Result<(), Box<dyn std::error::Error>> {
    use types::*;
    let client = Client::new(caller);
    let mut called = Vec::new();
    macro_rules! ok {
        ($name:literal, $call:expr) => {{
            let value = $call.await.map_err(|e| format!("{}: {e}", $name))?;
            println!("{}: ok {}", $name, short(&format!("{value:?}")));
            called.push($name);
            value
        }};
    }
    let echo = ok!(
        "echo",
        client.echo(&EchoArgs {
            message: "hello".into()
        })
    );
    check(echo == json!("Echo: hello"), "echo answers Echo: hello")?;
    ok!(
        "get-annotated-message",
        client.get_annotated_message(&GetAnnotatedMessageArgs {
            message_type: GetAnnotatedMessageArgsMessageType::Error,
            include_image: true,
        })
    );
    ok!("get-env", client.get_env());
    ok!(
        "get-resource-links",
        client.get_resource_links(&GetResourceLinksArgs { count: 2.0 })
    );
    ok!(
        "get-resource-reference",
        client.get_resource_reference(&GetResourceReferenceArgs {
            resource_type: GetResourceReferenceArgsResourceType::Text,
            resource_id: 1.0,
        })
    );
    let weather = ok!(
        "get-structured-content",
        client.get_structured_content(&GetStructuredContentArgs {
            location: GetStructuredContentArgsLocation::NewYork,
        })
    );
    check(!weather.conditions.is_empty(), "typed structured content")?;
    // Operands whose digits are not in the sum: only the right answer matches.
    let sum = ok!("get-sum", client.get_sum(&GetSumArgs { a: 19.0, b: 23.0 }));
    check(
        sum == json!("The sum of 19 and 23 is 42."),
        &format!("get-sum adds: 19 + 23 is 42, not {sum}"),
    )?;
    ok!("get-tiny-image", client.get_tiny_image());
    ok!(
        "gzip-file-as-resource",
        client.gzip_file_as_resource(&GzipFileAsResourceArgs {
            data: "data:text/plain;base64,aGVsbG8gd29ybGQ=".into(),
            name: "hello.txt.gz".into(),
            output_type: GzipFileAsResourceArgsOutputType::Resource,
        })
    );
    ok!(
        "toggle-simulated-logging",
        client.toggle_simulated_logging()
    );
    ok!(
        "toggle-subscriber-updates",
        client.toggle_subscriber_updates()
    );
    ok!(
        "trigger-long-running-operation",
        client.trigger_long_running_operation(&TriggerLongRunningOperationArgs {
            duration: 0.2,
            steps: 2.0,
        })
    );
    // Declared `execution.taskSupport: "required"`: the server refuses a call without task
    // augmentation (as a failed result), which the generated client reports as a typed error.
    match client
        .simulate_research_query(&SimulateResearchQueryArgs {
            topic: "rust".into(),
            ambiguous: false,
        })
        .await
    {
        Err(Error::Protocol { message, .. } | Error::Tool { message, .. })
            if message.contains("task") =>
        {
            println!("simulate-research-query: refused as expected (task required): {message}");
            called.push("simulate-research-query");
        }
        Ok(value) => {
            println!("simulate-research-query: ok {}", short(&value.to_string()));
            called.push("simulate-research-query");
        }
        Err(other) => return Err(format!("simulate-research-query: {other}").into()),
    }
    let missing: Vec<&&str> = TOOL_NAMES.iter().filter(|t| !called.contains(t)).collect();
    check(
        missing.is_empty(),
        &format!("every tool called; missing {missing:?}"),
    )?;
    prompts_and_resources(&client).await
}

/// The generated prompt, resource and completion methods: a prompt without arguments, one
/// with a required and an optional argument, a resource read through its template's typed
/// variable, and the completion of a prompt argument whose values depend on another's.
async fn prompts_and_resources<C: ToolCaller + Sync>(
    client: &Client<C>,
) -> Result<(), Box<dyn std::error::Error>> {
    use mcp_bindgen::Content;
    let text = |result: &mcp_bindgen::GetPromptResult| -> String {
        result
            .messages
            .iter()
            .filter_map(|m| match &m.content {
                Content::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect()
    };
    let simple = client.prompt_simple_prompt().await?;
    check(!simple.messages.is_empty(), "simple-prompt has messages")?;
    println!("prompt simple-prompt: ok {}", short(&text(&simple)));
    let args = client
        .prompt_args_prompt(&prompts::ArgsPromptArgs {
            city: "Lyon".into(),
            state: Some("Rhône".into()),
        })
        .await?;
    check(text(&args).contains("Lyon"), "args-prompt sees its city")?;
    println!("prompt args-prompt: ok {}", short(&text(&args)));
    let read = client.read_dynamic_text_resource("3").await?;
    let uri = &read.contents[0].uri;
    check(
        uri.ends_with("/text/3"),
        &format!("the template's URI: {uri}"),
    )?;
    println!("resource {uri}: ok");
    // Completion: the second argument's values depend on the first, sent as context.
    let departments = client
        .complete_completable_prompt_department("S", &[])
        .await?;
    check(
        departments.values == ["Sales", "Support"],
        &format!("departments starting with S: {:?}", departments.values),
    )?;
    let leads = client
        .complete_completable_prompt_name("", &[("department", "Sales")])
        .await?;
    check(
        leads.values == ["David", "Eve", "Frank"],
        &format!("the leads of Sales: {:?}", leads.values),
    )?;
    println!(
        "completion completable-prompt: ok {:?} then {:?}",
        departments.values, leads.values
    );
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    if ok {
        Ok(())
    } else {
        Err(format!("failed: {what}").into())
    }
}

fn short(s: &str) -> String {
    s.chars().take(100).collect()
}
