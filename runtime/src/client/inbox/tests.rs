use super::*;
use crate::client::Settings;
use std::sync::Mutex;

fn session(settings: Settings) -> Arc<Session> {
    Arc::new(Session::new(settings))
}

fn no_reply(_: Value) -> std::future::Ready<()> {
    std::future::ready(())
}

#[test]
fn responses_go_back_to_the_transport_and_noise_is_stray() {
    let session = session(Settings::default());
    let route = |bytes: &[u8]| session.route(bytes, |_| Vec::new(), no_reply);
    assert_eq!(
        route(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
        Routed::Response(Some(7))
    );
    assert_eq!(
        route(br#"{"jsonrpc":"2.0","id":"a","error":{"code":1}}"#),
        Routed::Response(None)
    );
    assert_eq!(route(b"npm warn deprecated"), Routed::Stray);
    assert_eq!(route(b"[1, 2]"), Routed::Stray);
}

#[test]
fn a_notification_reaches_the_handlers_of_the_calls_it_concerns_or_the_clients_own() {
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let own = heard.clone();
    let settings = Settings {
        log: Some(Arc::new(move |m: LogMessage| {
            crate::client::lock(&own).push(format!("client: {}", m.data));
        })),
        ..Settings::default()
    };
    let session = session(settings);
    let on_call = heard.clone();
    let call = CallContext {
        progress: None,
        log: Some(Arc::new(move |m: LogMessage| {
            crate::client::lock(&on_call).push(format!("call: {}", m.data));
        })),
        events: None,
    };
    let log = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
    let concerned = call.clone();
    assert_eq!(
        session.route(log, move |_| vec![concerned], no_reply),
        Routed::Handled
    );
    assert_eq!(
        session.route(log, |_| Vec::new(), no_reply),
        Routed::Handled
    );
    assert_eq!(
        *crate::client::lock(&heard),
        ["call: \"hi\"", "client: \"hi\""]
    );
}

#[test]
fn a_request_of_the_servers_is_answered_through_the_transports_reply() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let session = session(Settings::default());
    let (tx, rx) = tokio::sync::oneshot::channel();
    runtime.block_on(async move {
        let routed = session.route(
            br#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#,
            |_| panic!("a request is no notification"),
            move |answer| {
                let _ = tx.send(answer);
                std::future::ready(())
            },
        );
        assert_eq!(routed, Routed::Handled);
        let answer = rx.await.expect("answered");
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    });
}

#[test]
fn a_request_no_handler_takes_is_answered_method_not_found() {
    let session = session(Settings::default());
    let answer = session.response_to(&json!({"id": 3, "method": "sampling/createMessage"}));
    assert_eq!(answer["error"]["code"], -32601);
    assert_eq!(answer["id"], 3);
}

#[test]
fn a_method_handler_declares_its_capability_and_is_asked_before_the_catch_all() {
    let mut settings = Settings {
        capabilities: json!({"experimental": {"x": {}}, "roots": {"listChanged": true}}),
        requests: Some(Arc::new(|method: &str, _: &Value| {
            Ok(json!({"by": method}))
        })),
        ..Settings::default()
    };
    settings.answers.push(crate::client::builder::Answers {
        method: "elicitation/create",
        capability: "elicitation",
        handler: Arc::new(|params: &Value| Ok(json!({"action": "accept", "asked": params}))),
    });
    settings.answers.push(crate::client::builder::Answers {
        method: "roots/list",
        capability: "roots",
        handler: Arc::new(|_: &Value| Ok(json!({"roots": []}))),
    });
    let session = session(settings);
    // Declared: the handler's capability added, an explicit one kept as it was.
    assert_eq!(
        session.settings.capabilities,
        json!({"experimental": {"x": {}}, "roots": {"listChanged": true}, "elicitation": {}})
    );
    let asked = session.response_to(&json!({"id": 1, "method": "elicitation/create",
        "params": {"message": "name?"}}));
    assert_eq!(asked["result"]["asked"]["message"], "name?");
    let other = session.response_to(&json!({"id": 2, "method": "sampling/createMessage"}));
    assert_eq!(other["result"]["by"], "sampling/createMessage");
}

#[test]
fn a_server_that_asks_faster_than_the_client_answers_is_refused_past_the_bound() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    // Every handler waits until the test lets it go.
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = Arc::new(Mutex::new(gate));
    let settings = Settings {
        requests: Some(Arc::new(move |_: &str, _: &Value| {
            let _ = crate::client::lock(&gate).recv();
            Ok(json!({}))
        })),
        ..Settings::default()
    };
    let session = session(settings);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    runtime.block_on(async move {
        for id in 0..=ANSWERING_AT_ONCE {
            let tx = tx.clone();
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"});
            let routed = session.route(
                request.to_string().as_bytes(),
                |_| Vec::new(),
                move |answer| {
                    let _ = tx.send(answer);
                    std::future::ready(())
                },
            );
            assert_eq!(routed, Routed::Handled);
        }
        // Unbounded, the last would wait for a handler too, and this would time out.
        let refused = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
            .await
            .expect("refused at once, not queued")
            .expect("an answer");
        assert_eq!(refused["id"], ANSWERING_AT_ONCE, "{refused}");
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        for _ in 0..ANSWERING_AT_ONCE {
            release.send(()).expect("a handler waits");
        }
        for _ in 0..ANSWERING_AT_ONCE {
            let answered = rx.recv().await.expect("answered once let go");
            assert_eq!(answered["result"], json!({}), "{answered}");
        }
        // Room again: the next request is answered, not refused.
        let tx2 = tx.clone();
        session.route(
            br#"{"jsonrpc":"2.0","id":"again","method":"ping"}"#,
            |_| Vec::new(),
            move |answer| {
                let _ = tx2.send(answer);
                std::future::ready(())
            },
        );
        let again = rx.recv().await.expect("answered");
        assert_eq!(again["result"], json!({}), "{again}");
    });
}
