use super::*;

#[test]
fn timestamps_are_iso_8601_in_utc() {
    assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    let leap = UNIX_EPOCH + Duration::from_millis(951_782_400_123);
    assert_eq!(iso8601(leap), "2000-02-29T00:00:00.123Z");
    let later = UNIX_EPOCH + Duration::from_secs(1_796_519_045);
    assert_eq!(iso8601(later), "2026-12-06T01:04:05.000Z");
}

fn answered(text: &str) -> NewTask {
    NewTask {
        tool: "job".into(),
        owner: None,
        requested_ttl: None,
        answer: None,
        inputs: None,
        answered: Some(text.into()),
    }
}

#[test]
fn a_failed_task_says_why_and_its_change_is_noted_once() {
    let mut tasks = Tasks::new();
    let failed = tasks.create(
        answered(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}"#),
        true,
    );
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["statusMessage"], "boom");
    let tool_error = tasks.create(
        answered(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#),
        true,
    );
    assert_eq!(tool_error["status"], "completed");
    assert_eq!(tool_error["statusMessage"], "job reported an error");
    let fine = tasks.create(
        answered(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#),
        true,
    );
    assert!(fine.get("statusMessage").is_none(), "{fine:?}");
    // Made finished: the creating response told the client, so nothing to announce.
    assert!(!tasks.has_notes());
    assert!(tasks.take_notes().is_empty());
}

#[test]
fn owners_differ_by_credential() {
    assert_eq!(owner(None), None);
    assert_ne!(owner(Some(b"Bearer a")), owner(Some(b"Bearer b")));
    assert_eq!(owner(Some(b"Bearer a")), owner(Some(b"Bearer a")));
}
