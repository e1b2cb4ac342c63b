use super::*;

#[test]
fn a_sealed_state_opens_only_unchanged_and_for_its_request() {
    let sealer = Sealer::new().unwrap();
    let here = binding("tools/call", "delete_all", &json!({"level": 3}));
    let sealed = sealer.seal(Some(&json!({"step": 2})), &here);
    assert_eq!(sealer.open(&sealed, &here), Ok(Some(json!({"step": 2}))));
    assert_eq!(
        sealer.open(&format!("{sealed}-TAMPERED"), &here),
        Err(Unsealed::Forged)
    );
    let elsewhere = binding("tools/call", "delete_all", &json!({"level": 4}));
    assert_eq!(sealer.open(&sealed, &elsewhere), Err(Unsealed::Elsewhere));
    // Another registry's key.
    let other = Sealer::new().unwrap();
    assert_eq!(other.open(&sealed, &here), Err(Unsealed::Forged));
    // Another state under the old tag: refused.
    let (payload, tag) = sealed["v1.".len()..].split_once('.').unwrap();
    let mut opened: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    opened["s"] = json!({"step": 3});
    let forged = format!("v1.{}.{tag}", URL_SAFE_NO_PAD.encode(opened.to_string()));
    assert_eq!(sealer.open(&forged, &here), Err(Unsealed::Forged));
    assert_eq!(sealer.open("not a state", &here), Err(Unsealed::Forged));
    assert_eq!(sealer.open(&sealer.seal(None, &here), &here), Ok(None));
}

#[test]
fn an_expired_state_is_refused() {
    let sealer = Sealer::new().unwrap();
    let here = binding("prompts/get", "p", &json!({}));
    let payload =
        URL_SAFE_NO_PAD.encode(json!({"s": null, "b": digest(&here), "e": now() - 1}).to_string());
    let tag = ring::hmac::sign(&sealer.key, payload.as_bytes());
    let old = format!("v1.{payload}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()));
    assert_eq!(sealer.open(&old, &here), Err(Unsealed::Expired));
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
