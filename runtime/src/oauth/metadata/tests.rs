use super::*;

#[test]
fn challenges_are_read_with_quotes_escapes_and_other_schemes() {
    let c = Challenge::parse(
            r#"Basic realm="x", Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="read write", error="insufficient_scope", error_description="needs \"write\"""#,
        )
        .expect("bearer");
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some("https://a.example/.well-known/oauth-protected-resource")
    );
    assert_eq!(c.scope.as_deref(), Some("read write"));
    assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    assert_eq!(
        Challenge::parse("Bearer error=invalid_token").and_then(|c| c.error),
        Some("invalid_token".to_owned())
    );
    assert_eq!(Challenge::parse("Bearer"), Some(Challenge::default()));
    assert_eq!(Challenge::parse(r#"Basic realm="x""#), None);
}

#[test]
fn a_dpop_challenge_is_read_and_says_so() {
    let c = Challenge::parse(
        r#"DPoP error="use_dpop_nonce", algs="ES256", resource_metadata="https://a.example/prm""#,
    )
    .expect("dpop");
    assert!(c.dpop);
    assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some("https://a.example/prm")
    );
    // Both schemes offered: one challenge, DPoP noted, the parameters of both.
    let both = Challenge::parse(r#"Bearer scope="read", DPoP algs="ES256 PS256""#).expect("both");
    assert!(both.dpop);
    assert_eq!(both.scope.as_deref(), Some("read"));
    assert!(!Challenge::parse("Bearer").expect("bearer").dpop);
}

#[test]
fn discovery_urls_come_in_the_spec_order() {
    let server = Url::parse("https://mcp.example/tenant/mcp").unwrap();
    let urls: Vec<String> = resource_metadata_urls(&server, None)
        .iter()
        .map(Url::to_string)
        .collect();
    assert_eq!(
        urls,
        [
            "https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp",
            "https://mcp.example/.well-known/oauth-protected-resource",
        ]
    );
    let issuer = Url::parse("https://auth.example/tenant1").unwrap();
    let urls: Vec<String> = authorization_server_urls(&issuer)
        .iter()
        .map(Url::to_string)
        .collect();
    assert_eq!(
        urls,
        [
            "https://auth.example/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example/.well-known/openid-configuration/tenant1",
            "https://auth.example/tenant1/.well-known/openid-configuration",
        ]
    );
    let root = Url::parse("https://auth.example").unwrap();
    assert_eq!(authorization_server_urls(&root).len(), 2);
}

#[test]
fn a_resource_covers_its_server_and_nothing_else() {
    let server = Url::parse("https://mcp.example/api/mcp").unwrap();
    assert!(resource_covers("https://mcp.example/api/mcp", &server));
    assert!(resource_covers("https://mcp.example/api", &server));
    assert!(resource_covers("https://mcp.example", &server));
    assert!(!resource_covers("https://mcp.example/other", &server));
    assert!(!resource_covers("https://mcp.example/ap", &server));
    assert!(!resource_covers("https://evil.example/api/mcp", &server));
    assert!(!resource_covers("http://mcp.example/api/mcp", &server));
}
