//! Reaches an MCP server the way a user's program does, with the proxy and certificate settings
//! of its environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, `SSL_CERT_FILE`),
//! for the tests' proxy and trust checks (environment variables are per process, so each check
//! runs its own):
//! `proxy_call URL [--cacert FILE] [--bearer TOKEN] [--proxy URL | --no-proxy]
//! [--allow-insecure-http]`.
//!
//! Connects (the protocol negotiation is the first request), lists the tools and prints their
//! names as one JSON array.

use mcp_bindgen::HttpClient;

fn main() -> std::process::ExitCode {
    match pollster::block_on(run(std::env::args().skip(1).collect())) {
        Ok(names) => {
            println!("{}", serde_json::Value::from(names));
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Vec<String>) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut args = args.into_iter();
    let url = args.next().ok_or(
        "usage: proxy_call URL [--cacert FILE] [--bearer TOKEN] [--proxy URL | --no-proxy] \
         [--allow-insecure-http]",
    )?;
    let mut builder = HttpClient::builder(url);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} takes a value"));
        builder = match flag.as_str() {
            "--cacert" => builder.add_root_certificate(std::fs::read(value()?)?),
            "--bearer" => builder.bearer_token(value()?),
            "--proxy" => builder.proxy(value()?),
            "--no-proxy" => builder.no_proxy(),
            "--allow-insecure-http" => builder.allow_insecure_http(),
            other => return Err(format!("unknown flag {other}").into()),
        };
    }
    let client = builder.connect().await?;
    let tools = client.list_tools().await?;
    Ok(tools
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect())
}
