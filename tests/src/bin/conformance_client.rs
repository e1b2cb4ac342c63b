//! The client the MCP conformance suite's client scenarios run: `conformance_client URL`, with
//! the scenario in `MCP_CONFORMANCE_SCENARIO` and its context (tool calls to make) in
//! `MCP_CONFORMANCE_CONTEXT`. Built on `mcp_bindgen::HttpClient` with the default protocol
//! negotiation (modern first, legacy fallback), driven by `pollster`: no tokio runtime here.
//!
//! It lists the tools and calls each with arguments made from its input schema (or those the
//! context gives), answering elicitation requests with the requested schema's defaults; for
//! `http-standard-headers` it also reads every resource and gets every prompt.

use mcp_bindgen::{CallOptions, HttpClient};
use serde_json::{Map, Value, json};

fn main() -> std::process::ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client URL");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    match pollster::block_on(run(&url, &scenario, &context)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// An elicitation answer: accept, with each field's default (booleans without one: `true`).
fn elicit(method: &str, params: &Value) -> Result<Value, mcp_bindgen::Error> {
    if method != "elicitation/create" {
        return Err(mcp_bindgen::Error::Protocol {
            code: -32601,
            message: format!("Method not found: {method}"),
            data: None,
        });
    }
    let mut content = Map::new();
    if let Some(properties) = params["requestedSchema"]["properties"].as_object() {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            } else if schema["type"] == "boolean" {
                content.insert(name.clone(), json!(true));
            }
        }
    }
    Ok(json!({"action": "accept", "content": content}))
}

/// Arguments for a tool from its input schema: a sample value for every required property.
fn sample_arguments(tool: &Value) -> Map<String, Value> {
    let schema = &tool["inputSchema"];
    let mut arguments = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let value = match schema["properties"][name]["type"].as_str() {
            Some("number" | "integer") => json!(5),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("us-west1"),
        };
        arguments.insert(name.to_owned(), value);
    }
    arguments
}

async fn run(url: &str, scenario: &str, context: &Value) -> Result<(), mcp_bindgen::Error> {
    let client = HttpClient::builder(url)
        .client_info("mcp-bindgen-conformance-client", env!("CARGO_PKG_VERSION"))
        .capabilities(json!({"elicitation": {}}))
        .on_request(elicit)
        .connect()
        .await?;
    eprintln!(
        "{scenario}: protocol {}",
        client.protocol_version().unwrap_or_default()
    );
    let list = client.tool_list().await?;
    for (tool, reason) in &list.rejected {
        eprintln!("left out {tool}: {reason}");
    }
    let focal = list
        .tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool");
    let calls: Vec<(String, Map<String, Value>)> = match context["toolCalls"].as_array() {
        // json-schema-2020-12-preservation: the focal tool's schema, as received, echoed back.
        _ if focal.is_some() => {
            let mut arguments = Map::new();
            arguments.insert(
                "schema".into(),
                focal.map_or(Value::Null, |t| t["inputSchema"].clone()),
            );
            vec![("json_schema_echo".to_owned(), arguments)]
        }
        Some(calls) => calls
            .iter()
            .map(|c| {
                let name = c["name"].as_str().unwrap_or_default().to_owned();
                (
                    name,
                    c["arguments"].as_object().cloned().unwrap_or_default(),
                )
            })
            .collect(),
        None => list
            .tools
            .iter()
            .map(|t| {
                let name = t["name"].as_str().unwrap_or_default().to_owned();
                (name, sample_arguments(t))
            })
            .collect(),
    };
    for (name, arguments) in calls {
        let result = client
            .call_tool_with(&name, arguments, &CallOptions::new())
            .await?;
        println!("{name}: {}", result.texts().collect::<Vec<_>>().join("\n"));
    }
    if scenario == "http-standard-headers" {
        let resources = client.request("resources/list", json!({})).await?;
        for resource in resources["resources"].as_array().into_iter().flatten() {
            client
                .request("resources/read", json!({"uri": resource["uri"]}))
                .await?;
        }
        let prompts = client.request("prompts/list", json!({})).await?;
        for prompt in prompts["prompts"].as_array().into_iter().flatten() {
            client
                .request("prompts/get", json!({"name": prompt["name"]}))
                .await?;
        }
    }
    Ok(())
}
