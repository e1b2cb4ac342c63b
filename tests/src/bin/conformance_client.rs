//! The client the MCP conformance suite's client scenarios run: `conformance_client URL`, with
//! the scenario in `MCP_CONFORMANCE_SCENARIO`. Built on `mcp_bindgen::HttpClient`.

use mcp_bindgen::{HttpClient, ToolCaller};
use serde_json::{Map, json};

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client URL");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url, &scenario).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), mcp_bindgen::Error> {
    let client = HttpClient::connect(url).await?;
    let tools = client.list_tools().await?;
    if scenario == "tools_call" {
        let tool = tools
            .iter()
            .filter_map(|t| t["name"].as_str())
            .find(|name| *name == "add_numbers")
            .unwrap_or("add_numbers");
        let mut arguments = Map::new();
        arguments.insert("a".into(), json!(5));
        arguments.insert("b".into(), json!(3));
        let result = client.call_tool(tool, arguments).await?;
        println!("{}", result.texts().collect::<Vec<_>>().join("\n"));
    }
    Ok(())
}
