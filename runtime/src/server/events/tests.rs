//! The ring buffer and its cursors, without a transport.

use serde_json::json;

use super::*;
use crate::server::Registry;

/// A unit that died.
#[derive(serde::Serialize, JsonSchema)]
struct Died {
    unit: u32,
    team: String,
}

#[derive(serde::Deserialize, JsonSchema)]
struct ByTeam {
    team: Option<String>,
}

fn arena(capacity: usize) -> (Registry<()>, Emitter<Died>) {
    let mut registry = Registry::new("arena", "1");
    let died = registry.register_event(
        EventType::<Died, ByTeam>::new("died")
            .keep(capacity, Duration::from_secs(60))
            .filter(|d, by| by.team.as_ref().is_none_or(|t| *t == d.team)),
    );
    (registry, died)
}

fn died(unit: u32, team: &str) -> Died {
    Died {
        unit,
        team: team.into(),
    }
}

fn units(read: &Read) -> Vec<u64> {
    read.found
        .iter()
        .map(|(_, members)| {
            let v: Value = serde_json::from_str(&format!("{{{members}}}")).unwrap();
            v["data"]["unit"].as_u64().unwrap()
        })
        .collect()
}

fn all() -> Shared {
    Arc::new(ByTeam { team: None })
}

#[test]
fn nothing_is_kept_until_someone_listens_and_a_lease_keeps_it() {
    let (registry, died_) = arena(8);
    let kind = registry.events.all()[0].clone();
    died_.emit(died(1, "red"));
    assert!(kind.ring().entries.is_empty(), "kept with nobody listening");
    kind.renew();
    died_.emit(died(2, "red"));
    assert_eq!(kind.ring().entries.len(), 1);
    // The lease has not run out: the sweep keeps it recording.
    registry.events.sweep();
    assert!(died_.is_heard());
    *kind.lease.lock().unwrap() = Some(Instant::now());
    registry.events.sweep();
    assert!(!died_.is_heard());
    // Without a frame's sweep: the first emit after the lease ran out stops the recording.
    kind.renew();
    *kind.lease.lock().unwrap() = Some(Instant::now());
    let kept = kind.ring().entries.len();
    died_.emit(died(3, "red"));
    assert_eq!(
        kind.ring().entries.len(),
        kept,
        "kept after the lease ran out"
    );
    assert!(!died_.is_heard());
}

#[test]
fn a_cursor_resumes_after_what_it_saw_and_a_gap_is_truncated() {
    let (registry, died_) = arena(3);
    let kind = registry.events.all()[0].clone();
    kind.renew();
    let (start, truncated) = kind.start(None);
    assert!(!truncated);
    for unit in 1..=2 {
        died_.emit(died(unit, "red"));
    }
    let read = kind.read(start, &all(), 10, None);
    assert_eq!(units(&read), [1, 2]);
    assert!(!read.truncated && !read.more);
    let cursor = kind.cursor(read.position);
    for unit in 3..=6 {
        died_.emit(died(unit, "red"));
    }
    // Kept: 4, 5, 6 (capacity 3); the cursor was after 2, so 3 was missed.
    let (at, _) = kind.start(Some(&cursor));
    let read = kind.read(at, &all(), 2, None);
    assert_eq!(units(&read), [4, 5]);
    assert!(read.truncated && read.more);
    let read = kind.read(read.position, &all(), 2, None);
    assert_eq!(units(&read), [6]);
    assert!(!read.truncated && !read.more);
}

#[test]
fn cursors_of_another_process_or_never_given_start_from_now_truncated() {
    let (registry, died_) = arena(8);
    let kind = registry.events.all()[0].clone();
    kind.renew();
    died_.emit(died(1, "red"));
    for cursor in ["0123.1", "junk", &kind.cursor(Position(99))] {
        let (at, truncated) = kind.start(Some(cursor));
        assert!(truncated, "{cursor}");
        assert!(kind.read(at, &all(), 10, None).found.is_empty(), "{cursor}");
    }
}

#[test]
fn arguments_filter_and_a_filtered_occurrence_still_moves_the_cursor() {
    let (registry, died_) = arena(8);
    let kind = registry.events.all()[0].clone();
    kind.renew();
    let (start, _) = kind.start(None);
    died_.emit(died(1, "red"));
    died_.emit(died(2, "blue"));
    let blue: Shared = Arc::new(ByTeam {
        team: Some("blue".into()),
    });
    let read = kind.read(start, &blue, 10, None);
    assert_eq!(units(&read), [2]);
    assert_eq!(read.position, Position(2));
}

#[test]
fn subscriptions_are_refused_with_the_extensions_errors() {
    let (registry, _) = arena(8);
    let params = |text: &str| -> Params {
        let message =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"events/poll","params":{text}}}"#);
        match crate::server::wire::receive(message.as_bytes(), None) {
            crate::server::wire::Received::Request(request, _) => request.params,
            _ => panic!("not a request: {text}"),
        }
    };
    let refusal = |text: &str, mode| {
        let error = registry
            .events
            .subscribe(&json!(1), &params(text), mode)
            .err()
            .expect(text);
        serde_json::from_str::<Value>(&error).unwrap()["error"].clone()
    };
    let unknown = refusal(r#"{"name":"born"}"#, Delivery::Poll);
    assert_eq!(unknown["code"], code::NOT_FOUND);
    assert_eq!(unknown["data"]["kind"], "event");
    assert_eq!(
        refusal(r#"{"name":"died","arguments":{"team":7}}"#, Delivery::Poll)["code"],
        code::INVALID_PARAMS
    );
    let webhook = refusal(r#"{"name":"died"}"#, Delivery::Webhook);
    assert_eq!(webhook["code"], code::UNSUPPORTED);
    assert_eq!(webhook["data"]["value"], "webhook");
    assert_eq!(
        refusal(r#"{}"#, Delivery::Poll)["code"],
        code::INVALID_PARAMS
    );
    assert!(
        registry
            .events
            .subscribe(
                &json!(1),
                &params(r#"{"name":"died","arguments":{"team":"red"}}"#),
                Delivery::Push
            )
            .is_ok()
    );
}
