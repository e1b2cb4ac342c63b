use super::*;

fn alice() -> crate::server::owner::Owner {
    crate::server::owner::owner(Some(b"alice-token"))
}

#[test]
fn a_sealed_state_opens_only_unchanged_and_for_its_request() {
    let sealer = Sealer::new().unwrap();
    let here = Binding::new("tools/call", "delete_all", &json!({"level": 3}), &alice());
    let sealed = sealer.seal(Some(&json!({"step": 2})), &here).unwrap();
    assert!(sealed.starts_with("v2."), "{sealed}");
    assert_eq!(sealer.open(&sealed, &here), Ok(Some(json!({"step": 2}))));
    // Any byte changed: refused.
    let bytes = URL_SAFE_NO_PAD.decode(&sealed[3..]).unwrap();
    for at in [0, 12, bytes.len() / 2, bytes.len() - 1] {
        let mut changed = bytes.clone();
        changed[at] ^= 1;
        let forged = format!("v2.{}", URL_SAFE_NO_PAD.encode(changed));
        assert_eq!(
            sealer.open(&forged, &here),
            Err(Unsealed::Forged),
            "byte {at}"
        );
    }
    assert_eq!(
        sealer.open(&format!("{sealed}AA"), &here),
        Err(Unsealed::Forged)
    );
    let elsewhere = Binding::new("tools/call", "delete_all", &json!({"level": 4}), &alice());
    assert_eq!(sealer.open(&sealed, &elsewhere), Err(Unsealed::Elsewhere));
    let mallory = crate::server::owner::owner(Some(b"mallory-token"));
    let as_mallory = Binding::new("tools/call", "delete_all", &json!({"level": 3}), &mallory);
    assert_eq!(
        sealer.open(&sealed, &as_mallory),
        Err(Unsealed::Elsewhere),
        "another credential cannot resume it"
    );
    let no_owner = Binding::new("tools/call", "delete_all", &json!({"level": 3}), &None);
    assert_eq!(sealer.open(&sealed, &no_owner), Err(Unsealed::Elsewhere));
    // Another registry's key.
    let other = Sealer::new().unwrap();
    assert_eq!(other.open(&sealed, &here), Err(Unsealed::Forged));
    assert_eq!(sealer.open("not a state", &here), Err(Unsealed::Forged));
    assert_eq!(sealer.open("v2.", &here), Err(Unsealed::Forged));
    assert_eq!(
        sealer.open(&sealer.seal(None, &here).unwrap(), &here),
        Ok(None)
    );
    // Two seals of one state differ (a fresh nonce each time).
    assert_ne!(sealer.seal(None, &here), sealer.seal(None, &here));
}

#[test]
fn a_sealed_state_cannot_be_read() {
    let sealer = Sealer::new().unwrap();
    let here = Binding::new("tools/call", "t", &json!({}), &None);
    let secret = json!({"internal_secret": "hunter2", "level": 3});
    let sealed = sealer.seal(Some(&secret), &here).unwrap();
    let decoded = URL_SAFE_NO_PAD
        .decode(sealed.strip_prefix("v2.").unwrap())
        .unwrap();
    let text = String::from_utf8_lossy(&decoded);
    for word in ["hunter2", "internal_secret", "level", "\"s\"", "\"e\""] {
        assert!(!text.contains(word), "{word} readable in {text:?}");
    }
    assert!(
        !decoded.windows(7).any(|w| w == b"hunter2"),
        "the handler's state is encrypted"
    );
    assert_eq!(sealer.open(&sealed, &here), Ok(Some(secret)));
}

#[test]
fn a_sealed_state_expires_ten_minutes_after_it_is_sealed() {
    let sealer = Sealer::new().unwrap();
    let here = Binding::new("prompts/get", "p", &json!({}), &None);
    let before = now();
    let sealed = sealer.seal(None, &here).unwrap();
    let payload = sealer.payload(&sealed).unwrap();
    let expires = payload["e"].as_u64().unwrap();
    assert!(
        (before + 600..=now() + 600).contains(&expires),
        "expires at {expires}, sealed at {before}"
    );
    let old = sealer.seal_until(None, &here, now() - 1).unwrap();
    assert_eq!(sealer.open(&old, &here), Err(Unsealed::Expired));
}

#[test]
fn a_binding_reads_the_arguments_canonically() {
    let a = Binding::new(
        "tools/call",
        "t",
        &json!({"b": [1, {"y": 2, "x": 1}], "a": "s"}),
        &None,
    );
    let b = Binding::new(
        "tools/call",
        "t",
        &json!({"a": "s", "b": [1, {"x": 1, "y": 2}]}),
        &None,
    );
    assert_eq!(a, b);
    // The parts cannot run into each other.
    assert_ne!(
        Binding::new("tools/call", "a\nb", &json!({}), &None),
        Binding::new("tools/call\na", "b", &json!({}), &None)
    );
}

#[test]
fn requests_the_client_cannot_answer_are_dropped() {
    let mut ask = InputRequired::new()
        .elicit("name", "Your name?", json!({"type": "object"}))
        .sample("capital", json!({"messages": [], "maxTokens": 10}))
        .list_roots("roots");
    let input = Input::new(Map::new(), None, Some(vec!["sampling".into()]));
    ask.keep_answerable(&input);
    assert_eq!(ask.keys().collect::<Vec<_>>(), ["capital"]);
    let legacy = Input::default();
    assert!(legacy.client_can("elicitation"));
}

#[test]
fn accepted_reads_only_an_accepted_elicitation() {
    let mut responses = Map::new();
    responses.insert(
        "a".into(),
        json!({"action": "accept", "content": {"ok": true}}),
    );
    responses.insert("d".into(), json!({"action": "decline"}));
    let input = Input::new(responses, None, None);
    assert_eq!(input.accepted("a").unwrap()["ok"], true);
    assert!(input.accepted("d").is_none());
    assert!(input.accepted("missing").is_none());
    assert!(input.response("d").is_some());
}
