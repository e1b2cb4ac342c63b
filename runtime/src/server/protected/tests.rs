use super::*;

fn resource() -> ProtectedResource {
    ProtectedResource::new("http://127.0.0.1:9/", |t| {
        (t == "good").then(|| "ann".to_owned())
    })
    .scope("game")
    .scope("admin")
    .name("Demo")
}

fn with(authorization: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_str(authorization).unwrap(),
    );
    headers
}

#[test]
fn subjects_and_refusals() {
    let r = resource();
    assert_eq!(r.subject(&with("Bearer good")), Ok("ann".to_owned()));
    assert_eq!(r.subject(&with("bearer good")), Ok("ann".to_owned()));
    assert_eq!(r.subject(&with("Bearer bad")), Err(true));
    assert_eq!(r.subject(&with("Basic good")), Err(false));
    assert_eq!(r.subject(&with("Bearer ")), Err(false));
    assert_eq!(r.subject(&HeaderMap::new()), Err(false));
}

#[test]
fn metadata_names_the_resource_and_its_servers() {
    let doc: serde_json::Value =
        serde_json::from_str(&resource().metadata("http://localhost:7100", "/mcp")).unwrap();
    assert_eq!(doc["resource"], "http://localhost:7100/mcp");
    assert_eq!(doc["authorization_servers"][0], "http://127.0.0.1:9/");
    assert_eq!(
        doc["scopes_supported"],
        serde_json::json!(["game", "admin"])
    );
    assert_eq!(doc["resource_name"], "Demo");
    assert!(ProtectedResource::is_metadata_path(
        "/.well-known/oauth-protected-resource/mcp",
        "/mcp"
    ));
    assert!(ProtectedResource::is_metadata_path(
        "/.well-known/oauth-protected-resource",
        "/mcp"
    ));
    assert!(!ProtectedResource::is_metadata_path(
        "/.well-known/oauth-protected-resource/other",
        "/mcp"
    ));
}

#[test]
fn a_scope_that_is_no_scope_token_stays_out_of_the_challenge() {
    let r = ProtectedResource::new("http://127.0.0.1:9/", |_| None)
        .scope("a\u{1}b")
        .scope("say \"hi\"")
        .scope("game");
    assert_eq!(
        r.challenge("http://127.0.0.1:7100", "/mcp", false),
        "Bearer resource_metadata=\"http://127.0.0.1:7100/.well-known/oauth-protected-resource/mcp\", \
         scope=\"game\""
    );
}

#[test]
fn challenges() {
    let r = resource();
    assert_eq!(
        r.challenge("http://127.0.0.1:7100", "/mcp", false),
        "Bearer resource_metadata=\"http://127.0.0.1:7100/.well-known/\
         oauth-protected-resource/mcp\", scope=\"game admin\""
    );
    let refused = r.challenge("http://127.0.0.1:7100", "/mcp", true);
    assert!(
        refused
            .to_str()
            .unwrap()
            .ends_with("error=\"invalid_token\", error_description=\"the token is not accepted\"")
    );
}
