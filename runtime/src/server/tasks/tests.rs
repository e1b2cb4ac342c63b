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

/// 128 random bits: 32 hex digits, none alike, and no id telling the next (a counter's
/// neighbours differ in a bit or two; random ones in about half of their 128).
#[test]
fn task_ids_are_not_predictable_from_one_another() {
    let ids: Vec<String> = (0..256).map(|_| task_id()).collect();
    for id in &ids {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    }
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    let bits = |id: &str| u128::from_str_radix(id, 16).expect("hex");
    let differing: Vec<u32> = ids
        .windows(2)
        .map(|pair| (bits(&pair[0]) ^ bits(&pair[1])).count_ones())
        .collect();
    let mean = f64::from(differing.iter().sum::<u32>()) / differing.len() as f64;
    assert!(
        (54.0..=74.0).contains(&mean),
        "neighbouring ids differ in {mean} bits on average, not about 64"
    );
    assert!(
        differing.iter().all(|&d| d >= 24),
        "some neighbours are too alike: {differing:?}"
    );
    // Nor do they step by a constant.
    let steps: std::collections::BTreeSet<u128> = ids
        .windows(2)
        .map(|pair| bits(&pair[1]).wrapping_sub(bits(&pair[0])))
        .collect();
    assert!(steps.len() > 250);
}

/// The store keeps at most `kept` tasks: finished ones are forgotten oldest first; when every
/// one kept is running, there is no room.
#[test]
fn the_store_is_bounded_in_all() {
    let mut tasks = Tasks::new();
    tasks.limits.kept = 4;
    let done = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    for _ in 0..5_000 {
        assert_eq!(tasks.has_room(&None), Ok(()));
        tasks.create(answered(done), true);
        assert!(tasks.len() <= 4, "{}", tasks.len());
    }
    assert!(
        tasks.expiry.len() <= 2 * 4 + 1,
        "expiry times of forgotten tasks are dropped too: {}",
        tasks.expiry.len()
    );
    let mut senders = Vec::new();
    for i in 0..4 {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        senders.push(tx);
        let owner = crate::server::owner::owner(Some(format!("Bearer {i}").as_bytes()));
        assert_eq!(tasks.has_room(&owner), Ok(()));
        tasks.create(
            NewTask {
                answer: Some(rx),
                answered: None,
                owner,
                ..answered("")
            },
            true,
        );
    }
    assert_eq!(tasks.len(), 4);
    assert_eq!(tasks.has_room(&None), Err(Full::Store(4)));
}
