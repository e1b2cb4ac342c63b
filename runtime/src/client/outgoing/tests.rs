use serde_json::json;

use super::*;

fn keys(modern: bool, progress_token: Option<u64>) -> MetaKeys<'static> {
    static CAPABILITIES: Value = Value::Null;
    MetaKeys {
        modern: modern.then_some(ModernKeys {
            version: "2026-07-28",
            capabilities: &CAPABILITIES,
            client_name: "c",
            client_version: "1",
        }),
        progress_token,
    }
}

fn sent(params: &Value, keys: MetaKeys<'_>) -> Value {
    let outgoing = Outgoing::new(3, "tools/call", params, keys).unwrap();
    serde_json::from_str(&outgoing.text).unwrap()
}

#[test]
fn the_session_keys_win_over_the_callers_and_the_rest_stays() {
    let params = json!({"name": "x", "arguments": {"a": 1},
            "_meta": {"mine": 1, "progressToken": "theirs", (meta::PROTOCOL_VERSION): "1999"}});
    let message = sent(&params, keys(true, Some(3)));
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "x", "arguments": {"a": 1},
                "_meta": {"mine": 1, "progressToken": 3,
                    (meta::PROTOCOL_VERSION): "2026-07-28",
                    (meta::CLIENT_CAPABILITIES): null,
                    (meta::CLIENT_INFO): {"name": "c", "version": "1"}}}})
    );
    // Each key once, in the text itself (a `Value` would hide a duplicate).
    let outgoing = Outgoing::new(3, "tools/call", &params, keys(true, Some(3))).unwrap();
    assert_eq!(outgoing.text.matches("progressToken").count(), 1);
    assert_eq!(outgoing.text.matches(meta::PROTOCOL_VERSION).count(), 1);
}

#[test]
fn params_without_meta_get_one_only_when_there_are_keys() {
    let params = json!({"name": "x"});
    assert_eq!(sent(&params, keys(false, None))["params"], params);
    assert_eq!(
        sent(&params, keys(false, Some(9)))["params"],
        json!({"name": "x", "_meta": {"progressToken": 9}})
    );
    assert_eq!(
        sent(&Value::Null, keys(false, Some(9)))["params"],
        json!({"_meta": {"progressToken": 9}})
    );
    assert_eq!(sent(&Value::Null, keys(false, None))["params"], json!({}));
}

#[test]
fn params_that_are_not_an_object_are_sent_as_they_are() {
    assert_eq!(
        sent(&json!([1, 2]), keys(true, Some(1)))["params"],
        json!([1, 2])
    );
    let odd = json!({"_meta": 5});
    assert_eq!(sent(&odd, keys(true, None))["params"], odd);
}
