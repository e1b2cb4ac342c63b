use super::*;

fn tokens() -> Tokens {
    Tokens {
        issuer: "https://auth.example".into(),
        access_token: Secret::new("at-123"),
        refresh_token: Some(Secret::new("rt-456")),
        expires_at: Some(1_900_000_000),
        scope: Some("read".into()),
        dpop_key: Some(Secret::new("key-789")),
    }
}

#[test]
fn secrets_never_show_in_debug() {
    let text = format!("{:?}", tokens());
    assert!(
        !text.contains("at-123") && !text.contains("rt-456") && !text.contains("key-789"),
        "{text}"
    );
    assert!(text.contains("<secret>"), "{text}");
}

#[test]
fn the_file_store_keeps_owner_only_files_across_instances() {
    let dir = std::env::temp_dir().join(format!(
        "mcp-bindgen-store-{}-{}",
        std::process::id(),
        super::super::pkce::random_token(6).unwrap()
    ));
    let store = FileTokenStore::new(&dir);
    let resource = "https://mcp.example/mcp";
    assert_eq!(store.tokens(resource).unwrap(), None);
    store.save_tokens(resource, &tokens()).unwrap();
    let client = ClientRegistration {
        client_id: "c".into(),
        client_secret: Some(Secret::new("s")),
        token_endpoint_auth_method: None,
    };
    store.save_client("https://auth.example", &client).unwrap();
    let again = FileTokenStore::new(&dir);
    assert_eq!(again.tokens(resource).unwrap(), Some(tokens()));
    // A store written before DPoP (no key) still reads.
    let bearer = Tokens {
        dpop_key: None,
        ..tokens()
    };
    store
        .save_tokens("https://bearer.example/mcp", &bearer)
        .unwrap();
    let written = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|text| text.contains("https://auth.example") && !text.contains("key-789"))
        .expect("the bearer tokens' file");
    assert!(!written.contains("dpop_key"), "{written}");
    assert_eq!(
        again.tokens("https://bearer.example/mcp").unwrap(),
        Some(bearer)
    );
    assert_eq!(again.client("https://auth.example").unwrap(), Some(client));
    assert_eq!(again.tokens("https://other.example/mcp").unwrap(), None);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let mode = entry.unwrap().metadata().unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "a file others can read: {mode:o}");
        }
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "a directory others can read: {mode:o}");
    }
    again.remove_tokens(resource).unwrap();
    assert_eq!(store.tokens(resource).unwrap(), None);
    let _ = std::fs::remove_dir_all(&dir);
}
