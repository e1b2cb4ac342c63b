//! The client the MCP conformance suite's client scenarios run: `conformance_client URL`, with
//! the scenario in `MCP_CONFORMANCE_SCENARIO` and its context (tool calls to make) in
//! `MCP_CONFORMANCE_CONTEXT`. Built on `mcp_bindgen::HttpClient` with the default protocol
//! negotiation (modern first, legacy fallback), driven by `pollster`: no tokio runtime here.
//!
//! It lists the tools and calls each with arguments made from its input schema (or those the
//! context gives), answering elicitation requests with the requested schema's defaults; for
//! `http-standard-headers` it also reads every resource and gets every prompt.
//!
//! For the `sep-2640-client-*` scenarios (Agent Skills) it lists the skills, and but for
//! `-no-prefetch` (which checks that listing reads nothing) loads each one and reads the files
//! it lists: the suite's server tampers with a `SKILL.md`, and the client must refuse the skill
//! before it reads any other file of it.
//!
//! For the `auth/*` scenarios it signs in with OAuth (`mcp_bindgen::oauth`): the client
//! credentials grant for `auth/client-credentials-basic` (a secret) and `-jwt` (a key), workload
//! identity for `auth/wif-jwt-bearer` (the context's token written to a file the client reads),
//! enterprise-managed authorization for `auth/enterprise-managed-authorization` (the context's
//! ID token exchanged at its identity provider), the pre-registered client of the
//! context for `auth/pre-registration`, and otherwise the authorization code grant with this
//! client's metadata document URL (used where the server supports it, else dynamic
//! registration); in `auth/dpop` and `auth/dpop-nonce` that grant binds its tokens to a key
//! (DPoP) because the suite's authorization server advertises ES256 proofs: nothing here asks
//! for it. The suite's authorization endpoint approves at once and redirects: the
//! authorization step here fetches its URL without following the redirect and hands back the
//! `Location`, as a browser would land there.

use mcp_bindgen::oauth::{AuthorizationRequest, OAuth};
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
    let outcome = pollster::block_on(run(&url, &scenario, &context));
    // The workload token file `oauth` wrote, if any: a token is not left behind.
    let _ = std::fs::remove_file(wif_token_file());
    match outcome {
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

/// The client metadata document URL the suite expects of a client that has one.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth settings of an `auth/*` scenario.
fn oauth(scenario: &str, context: &Value) -> Option<OAuth> {
    let text = |key: &str| context[key].as_str().unwrap_or_default().to_owned();
    match scenario {
        s if !s.starts_with("auth/") => None,
        "auth/client-credentials-basic" => Some(OAuth::client_credentials(
            text("client_id"),
            text("client_secret"),
        )),
        "auth/client-credentials-jwt" => Some(OAuth::client_credentials_jwt(
            text("client_id"),
            text("private_key_pem"),
            text("signing_algorithm"),
        )),
        // Workload identity: the platform's token in a file, as a platform hands it over (the
        // client reads it at each token request).
        "auth/wif-jwt-bearer" => {
            let path = wif_token_file();
            std::fs::write(&path, text("valid_jwt")).ok()?;
            Some(OAuth::workload_identity_file(path).client_id(text("client_id")))
        }
        "auth/enterprise-managed-authorization" => Some(
            OAuth::enterprise(text("idp_token_endpoint"), text("idp_id_token"))
                .idp_client_id(text("idp_client_id"))
                .client_id(text("client_id"))
                .client_secret(text("client_secret")),
        ),
        "auth/pre-registration" => Some(
            OAuth::new()
                .client_id(text("client_id"))
                .client_secret(text("client_secret"))
                .redirect_uri("http://localhost:3000/callback")
                .on_authorize(authorize),
        ),
        _ => Some(
            OAuth::new()
                .client_metadata_url(CLIENT_METADATA_URL)
                .client_name("mcp-bindgen-conformance-client")
                .redirect_uri("http://localhost:3000/callback")
                .on_authorize(authorize),
        ),
    }
}

/// Where the workload identity scenario's token is written for the client to read.
fn wif_token_file() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wif-token-{}", std::process::id()))
}

/// The authorization step: GET the authorization URL and return where it redirects.
async fn authorize(request: AuthorizationRequest) -> Result<String, mcp_bindgen::Error> {
    tokio::task::spawn_blocking(move || redirect_of(&request.url))
        .await
        .map_err(|e| mcp_bindgen::Error::transport_source("the authorization step failed", e))?
}

/// One plain HTTP GET of `url` (the suite's authorization endpoint, on this machine): the
/// `Location` of its redirect.
fn redirect_of(url: &str) -> Result<String, mcp_bindgen::Error> {
    use std::io::{Read, Write};
    let fail = |what: String| mcp_bindgen::Error::transport(format!("authorization step: {what}"));
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| fail(format!("not an http:// URL: {url}")))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = std::net::TcpStream::connect(authority)
        .map_err(|e| fail(format!("could not reach {authority}: {e}")))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| fail(e.to_string()))?;
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .map_err(|e| fail(e.to_string()))?;
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.trim().to_owned())
        .ok_or_else(|| {
            fail(format!(
                "no redirect from {url}: {}",
                head.lines().next().unwrap_or("")
            ))
        })
}

async fn run(url: &str, scenario: &str, context: &Value) -> Result<(), mcp_bindgen::Error> {
    let mut builder = HttpClient::builder(url)
        .client_info("mcp-bindgen-conformance-client", env!("CARGO_PKG_VERSION"))
        .capabilities(json!({"elicitation": {}}))
        .on_request(elicit);
    if let Some(oauth) = oauth(scenario, context) {
        builder = builder.oauth(oauth);
    }
    let client = builder.connect().await?;
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
    if scenario.starts_with("sep-2640-client-") {
        skills(&client, scenario).await?;
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

/// Lists the server's skills; unless the scenario checks that listing alone reads nothing,
/// loads each (its `SKILL.md`, verified) and reads every file it lists, as an agent acting on
/// the skill would.
async fn skills(client: &HttpClient, scenario: &str) -> Result<(), mcp_bindgen::Error> {
    let list = client.list_skills().await?;
    for (entry, reason) in &list.refused {
        eprintln!("refused skill {}: {reason}", entry["uri"]);
    }
    if scenario == "sep-2640-client-no-prefetch" {
        return Ok(());
    }
    for entry in &list.skills {
        let skill = client.load_skill(entry).await?;
        println!(
            "{}: {}",
            entry.name(),
            skill.body().lines().next().unwrap_or("")
        );
        if let mcp_bindgen::skill::SkillFiles::Listed(files) = &entry.files {
            for file in files.iter().filter(|f| f.uri != entry.uri) {
                skill.read(&file.uri).await?;
            }
        }
    }
    Ok(())
}
