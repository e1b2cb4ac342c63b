use super::*;

#[test]
fn scopes_unite_without_repeats() {
    assert_eq!(union(Some("a b"), Some("b c")), "a b c");
    assert_eq!(union(None, Some("x")), "x");
    assert_eq!(union(None, None), "");
}

#[test]
fn auth_methods_follow_what_the_server_supports() {
    let mut server = fallback_endpoints("https://a.example");
    assert_eq!(preferred_auth_method(&server, false), "none");
    assert_eq!(preferred_auth_method(&server, true), "client_secret_basic");
    server.token_endpoint_auth_methods = Some(vec!["client_secret_post".into()]);
    assert_eq!(preferred_auth_method(&server, true), "client_secret_post");
    server.token_endpoint_auth_methods = Some(vec!["none".into()]);
    assert_eq!(preferred_auth_method(&server, false), "none");
}

#[test]
fn debug_shows_no_secret() {
    let text = format!("{:?}", OAuth::client_credentials("id", "top-secret"));
    assert!(!text.contains("top-secret"), "{text}");
}

#[test]
fn debug_shows_no_identity_token_or_workload_token() {
    let oauth = OAuth::enterprise("https://idp.example/token", "idp-id-token-secret")
        .idp_client_id("idp-client")
        .client_id("xaa-client")
        .client_secret("xaa-secret");
    let text = format!("{oauth:?}");
    assert!(
        !text.contains("idp-id-token-secret") && !text.contains("xaa-secret"),
        "{text}"
    );
    assert!(text.contains("ID-JAG"), "{text}");
    let oauth = OAuth::workload_identity(|| Ok("workload-jwt-secret".to_owned()));
    let text = format!("{oauth:?}");
    assert!(!text.contains("workload-jwt-secret"), "{text}");
    let path = std::env::temp_dir().join(format!("no-such-wif-token-{}", std::process::id()));
    let error = Assertion::File(path.clone())
        .read()
        .err()
        .map(|e| e.to_string());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("cannot read the token file")),
        "{error:?}"
    );
    let empty = Assertion::Source(Arc::new(|| Ok("  \n".to_owned()))).read();
    assert!(
        empty.is_err(),
        "an empty token is refused before it is sent"
    );
}
