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
