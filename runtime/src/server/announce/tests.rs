//! Unit tests of `announce.rs` (a file of their own, left out of the published package).

use super::*;

/// The stall limit of the tests that do not test it.
const STALL: Duration = Duration::from_secs(3600);

fn tools_only() -> Wants {
    Wants {
        changes: Changes::TOOLS,
        uris: Some(Vec::new()),
        ..Wants::default()
    }
}

fn only(changes: Changes) -> Announcement<'static> {
    static NONE: BTreeSet<String> = BTreeSet::new();
    Announcement {
        changes,
        updated: &[],
        subscribed: &NONE,
        tasks: &[],
    }
}

#[test]
fn the_filter_is_honoured_for_what_the_server_announces() {
    let (wants, ack) = honoured(
        Some(&json!({"toolsListChanged": true})),
        Listening::default(),
    )
    .unwrap();
    assert_eq!(wants, tools_only());
    assert_eq!(ack, json!({"toolsListChanged": true}));
    let (wants, ack) = honoured(
        Some(&json!({
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["file:///a"],
            "toolsListChanged": false,
            "somethingElse": true,
        })),
        Listening::default(),
    )
    .unwrap();
    let mut expected = Changes::PROMPTS;
    expected.insert(Changes::RESOURCES);
    expected.insert(Changes::RESOURCE_UPDATED);
    assert_eq!(wants.changes, expected);
    assert_eq!(wants.uris, Some(vec!["file:///a".to_owned()]));
    assert_eq!(
        ack,
        json!({
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["file:///a"],
        }),
        "what the server does not announce is left out"
    );
    assert!(honoured(None, Listening::default()).is_err());
    assert!(honoured(Some(&json!([])), Listening::default()).is_err());
    assert!(
        honoured(
            Some(&json!({"resourceSubscriptions": "file:///a"})),
            Listening::default()
        )
        .is_err()
    );
    assert!(
        honoured(
            Some(&json!({"resourceSubscriptions": [1]})),
            Listening::default()
        )
        .is_err()
    );
}

#[test]
fn events_are_tagged_with_the_listen_id() {
    let tagged = events(Changes::TOOLS, Some(&json!("listen-1")), &[], Vec::new());
    let message: Value = serde_json::from_str(&tagged[0]).unwrap();
    assert_eq!(message["method"], "notifications/tools/list_changed");
    assert_eq!(
        message["params"]["_meta"][meta::SUBSCRIPTION_ID],
        "listen-1"
    );
    let plain = events(Changes::TOOLS, None, &[], Vec::new());
    assert_eq!(
        plain,
        vec![r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
    );
    assert!(events(Changes::NONE, None, &[], Vec::new()).is_empty());
    let mut both = Changes::PROMPTS;
    both.insert(Changes::RESOURCES);
    let updated = events(both, Some(&json!(9)), &["test://a".to_owned()], Vec::new());
    let methods: Vec<Value> = updated
        .iter()
        .map(|e| serde_json::from_str::<Value>(e).unwrap())
        .collect();
    assert_eq!(methods[0]["method"], "notifications/prompts/list_changed");
    assert_eq!(methods[1]["method"], "notifications/resources/list_changed");
    assert_eq!(methods[2]["method"], "notifications/resources/updated");
    assert_eq!(methods[2]["params"]["uri"], "test://a");
    assert_eq!(methods[2]["params"]["_meta"][meta::SUBSCRIPTION_ID], 9);
}

#[test]
fn task_ids_need_the_tasks_extension_and_are_acknowledged() {
    let filter = json!({"taskIds": ["t1", "t2"], "toolsListChanged": true});
    let refused = honoured(Some(&filter), Listening::default()).unwrap_err();
    assert!(matches!(refused, Refused::NeedsTasks), "{refused:?}");
    let owner = super::super::owner::owner(Some(b"Bearer a"));
    let by = Listening {
        declares_tasks: true,
        owner,
    };
    let (wants, ack) = honoured(Some(&filter), by).unwrap();
    assert!(wants.changes.contains(Changes::TASKS));
    assert_eq!(wants.task_ids, ["t1", "t2"]);
    assert_eq!(wants.owner, owner);
    assert_eq!(
        ack,
        json!({"taskIds": ["t1", "t2"], "toolsListChanged": true})
    );
    // An empty list asks for nothing, and needs nothing.
    let (wants, ack) = honoured(Some(&json!({"taskIds": []})), Listening::default()).unwrap();
    assert!(!wants.changes.contains(Changes::TASKS));
    assert_eq!(ack, json!({}));
    assert!(matches!(
        honoured(Some(&json!({"taskIds": "t1"})), by),
        Err(Refused::Invalid(_))
    ));
    assert!(matches!(
        honoured(Some(&json!({"taskIds": [7]})), by),
        Err(Refused::Invalid(_))
    ));
    // The error a transport sends: -32021 naming the extension, HTTP 400.
    let reply = open(&json!(3), Some(&filter), Listening::default()).unwrap_err();
    assert_eq!(
        reply.rejected,
        Some(crate::server::wire::Rejected::BadRequest)
    );
    let error: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(error["error"]["code"], -32021, "{error}");
    assert!(
        error["error"]["data"]["requiredCapabilities"]["extensions"]
            .get(crate::era::TASKS_EXTENSION)
            .is_some(),
        "{error}"
    );
}

#[test]
fn a_task_status_reaches_only_the_streams_of_its_owner_that_named_it() {
    let (listeners, _kicked) = Listeners::with_announcer(STALL);
    let alice = super::super::owner::owner(Some(b"Bearer alice"));
    let mallory = super::super::owner::owner(Some(b"Bearer mallory"));
    let wants = |ids: &[&str], owner| Wants {
        changes: Changes::TASKS,
        task_ids: ids.iter().map(|id| (*id).to_owned()).collect(),
        owner,
        ..Wants::default()
    };
    let mut named = listeners.subscribe(wants(&["t1"], alice), Some(json!("l-1")), None);
    let mut other_task = listeners.subscribe(wants(&["t2"], alice), Some(json!("l-2")), None);
    let mut other_owner = listeners.subscribe(wants(&["t1"], mallory), Some(json!("l-3")), None);
    let mut legacy = listeners.subscribe(Wants::legacy(), None, None);
    let notes = [TaskNote {
        id: "t1".into(),
        owner: alice,
        task: json!({"taskId": "t1", "status": "completed", "result": {"content": []}}),
    }];
    listeners.announce(&Announcement {
        changes: Changes::TASKS,
        updated: &[],
        subscribed: &BTreeSet::new(),
        tasks: &notes,
    });
    Listeners::wake_pending(&listeners.streams());
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let std::task::Poll::Ready(Next::Events(events)) = named.poll_next(&mut cx) else {
        panic!("the stream that named t1 heard nothing");
    };
    let message: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(message["method"], "notifications/tasks");
    assert_eq!(message["params"]["taskId"], "t1");
    assert_eq!(message["params"]["status"], "completed");
    assert_eq!(message["params"]["result"], json!({"content": []}));
    assert_eq!(message["params"]["_meta"][meta::SUBSCRIPTION_ID], "l-1");
    assert!(other_task.poll_next(&mut cx).is_pending());
    assert!(
        other_owner.poll_next(&mut cx).is_pending(),
        "another credential's listen never hears of the task"
    );
    assert!(legacy.poll_next(&mut cx).is_pending());
}

#[test]
fn resource_updates_reach_only_their_subscribers() {
    let (listeners, _kicked) = Listeners::with_announcer(STALL);
    let mut modern = listeners.subscribe(
        Wants {
            changes: Changes::RESOURCE_UPDATED,
            uris: Some(vec!["test://a".into()]),
            ..Wants::default()
        },
        Some(json!(1)),
        None,
    );
    let mut legacy = listeners.subscribe(Wants::legacy(), None, None);
    let mut tools = listeners.subscribe(tools_only(), Some(json!(2)), None);
    let subscribed: BTreeSet<String> = ["test://b".to_owned()].into();
    let updated = [
        "test://a".to_owned(),
        "test://b".to_owned(),
        "test://c".to_owned(),
    ];
    listeners.announce(&Announcement {
        changes: Changes::RESOURCE_UPDATED,
        updated: &updated,
        subscribed: &subscribed,
        tasks: &[],
    });
    Listeners::wake_pending(&listeners.streams());
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let uris = |next: std::task::Poll<Next>| match next {
        std::task::Poll::Ready(Next::Events(events)) => events
            .iter()
            .map(|e| serde_json::from_str::<Value>(e).unwrap()["params"]["uri"].clone())
            .collect::<Vec<_>>(),
        _ => Vec::new(),
    };
    assert_eq!(uris(modern.poll_next(&mut cx)), [json!("test://a")]);
    assert_eq!(
        uris(legacy.poll_next(&mut cx)),
        [json!("test://b")],
        "a legacy stream hears the URIs legacy clients subscribed to"
    );
    assert!(tools.poll_next(&mut cx).is_pending());
}

#[test]
fn announcements_coalesce_and_skip_streams_that_did_not_ask() {
    let (listeners, _kicked) = Listeners::with_announcer(STALL);
    let mut tools = listeners.subscribe(tools_only(), Some(json!(7)), None);
    let mut nothing = listeners.subscribe(Wants::default(), Some(json!(8)), None);
    listeners.announce(&only(Changes::TOOLS));
    listeners.announce(&only(Changes::TOOLS));
    // The announcer's part.
    Listeners::wake_pending(&listeners.streams());
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    match tools.poll_next(&mut cx) {
        std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
        _ => panic!("the tools stream heard nothing"),
    }
    assert!(
        tools.poll_next(&mut cx).is_pending(),
        "two announcements, one event"
    );
    assert!(nothing.poll_next(&mut cx).is_pending());
    drop(nothing);
    assert_eq!(
        listeners.streams().open.len(),
        1,
        "a stream whose client went is forgotten at once, with no change announced"
    );
    listeners.announce(&only(Changes::TOOLS));
    listeners.close_all();
    match tools.poll_next(&mut cx) {
        std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
        _ => panic!("what was pending is written before the stream closes"),
    }
    assert!(matches!(
        tools.poll_next(&mut cx),
        std::task::Poll::Ready(Next::Closed)
    ));
}

#[test]
fn an_announcer_wakes_the_streams_once_kicked() {
    let (listeners, mut kicked) = Listeners::with_announcer(STALL);
    let mut tools = listeners.subscribe(tools_only(), None, None);
    listeners.announce(&only(Changes::TOOLS));
    listeners.announce(&only(Changes::TOOLS));
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(matches!(
        kicked.poll_recv(&mut cx),
        std::task::Poll::Ready(Some(()))
    ));
    assert!(
        kicked.poll_recv(&mut cx).is_pending(),
        "one kick for two announcements"
    );
    // The announcer's part: wake what is pending.
    Listeners::wake_pending(&listeners.streams());
    match tools.poll_next(&mut cx) {
        std::task::Poll::Ready(Next::Events(events)) => assert_eq!(events.len(), 1),
        _ => panic!("the stream was not woken"),
    }
}

#[test]
fn stdio_listeners_hear_in_band() {
    let mut in_band = InBand {
        legacy: true,
        subscriptions: vec![(json!(3), tools_only()), (json!(4), Wants::default())],
        ..InBand::default()
    };
    assert_eq!(in_band.events(&only(Changes::TOOLS)).len(), 2);
    in_band.cancelled(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    );
    in_band.legacy = false;
    assert!(in_band.events(&only(Changes::TOOLS)).is_empty());
    assert_eq!(in_band.subscriptions.len(), 1);
}

#[test]
fn closed_streams_are_freed_without_any_change() {
    let (listeners, _kicked) = Listeners::with_announcer(STALL);
    let big = Wants {
        changes: Changes::RESOURCE_UPDATED,
        uris: Some((0..10_000).map(|i| format!("test://r/{i}")).collect()),
        ..Wants::default()
    };
    let streams: Vec<Subscription> = (0..100)
        .map(|i| listeners.subscribe(big.clone(), Some(json!(i)), None))
        .collect();
    assert_eq!(listeners.streams().open.len(), 100);
    drop(streams);
    assert_eq!(
        listeners.streams().open.len(),
        0,
        "what is stored, not what is counted: every closed stream is gone"
    );
    assert_eq!(listeners.len(), 0);
}

#[test]
fn a_stalled_reader_queues_each_uri_and_task_once() {
    let (listeners, _kicked) = Listeners::with_announcer(STALL);
    let owner = super::super::owner::owner(Some(b"Bearer a"));
    let wants = Wants {
        changes: {
            let mut c = Changes::RESOURCE_UPDATED;
            c.insert(Changes::TASKS);
            c
        },
        uris: Some(vec!["test://hot".into()]),
        task_ids: vec!["t1".into()],
        owner,
    };
    let mut stalled = listeners.subscribe(wants, Some(json!(1)), None);
    let updated = ["test://hot".to_owned()];
    for step in 0..100_000 {
        let notes = [TaskNote {
            id: "t1".into(),
            owner,
            task: json!({"taskId": "t1", "status": "working", "step": step}),
        }];
        listeners.announce(&Announcement {
            changes: {
                let mut c = Changes::RESOURCE_UPDATED;
                c.insert(Changes::TASKS);
                c
            },
            updated: &updated,
            subscribed: &BTreeSet::new(),
            tasks: &notes,
        });
    }
    assert_eq!(lock(&stalled.queue.updated).len(), 1, "one URI, once");
    assert_eq!(
        lock(&stalled.queue.tasks).len(),
        1,
        "one task, its latest status"
    );
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let std::task::Poll::Ready(Next::Events(events)) = stalled.poll_next(&mut cx) else {
        panic!("the stream heard nothing");
    };
    assert_eq!(events.len(), 2, "{events:?}");
    let task: Value = serde_json::from_str(&events[1]).unwrap();
    assert_eq!(
        task["params"]["step"], 99_999,
        "the latest status is the one written"
    );
}

#[test]
fn a_stream_behind_past_its_stall_limit_is_closed_with_its_connection() {
    let (listeners, _kicked) = Listeners::with_announcer(Duration::from_millis(20));
    let close = Arc::new(Notify::new());
    let mut stalled = listeners.subscribe(tools_only(), Some(json!(1)), Some(close.clone()));
    let mut reading = listeners.subscribe(tools_only(), Some(json!(2)), None);
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    listeners.announce(&only(Changes::TOOLS));
    assert!(matches!(
        reading.poll_next(&mut cx),
        std::task::Poll::Ready(Next::Events(_))
    ));
    std::thread::sleep(Duration::from_millis(40));
    // The reading stream took its events: it is not behind, and stays.
    listeners.announce(&only(Changes::TOOLS));
    assert_eq!(
        listeners.len(),
        1,
        "the stalled stream is closed, the other kept"
    );
    let notified = close.notified();
    let mut notified = std::pin::pin!(notified);
    assert!(
        std::future::Future::poll(notified.as_mut(), &mut cx).is_ready(),
        "its connection is told to close"
    );
    // What it had is still its to write, then it ends.
    assert!(matches!(
        stalled.poll_next(&mut cx),
        std::task::Poll::Ready(Next::Events(_))
    ));
    assert!(matches!(
        stalled.poll_next(&mut cx),
        std::task::Poll::Ready(Next::Closed)
    ));
    assert!(matches!(
        reading.poll_next(&mut cx),
        std::task::Poll::Ready(Next::Events(_))
    ));
}
