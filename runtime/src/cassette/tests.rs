use super::*;

#[test]
fn errors_survive_the_round_trip_through_the_file() {
    for error in [
        Error::Protocol {
            code: -32602,
            message: "Unknown tool: x".into(),
            data: Some(json!({"tool": "x"})),
        },
        Error::Timeout {
            message: "tools/call slow".into(),
            after: Duration::from_millis(2000),
        },
        Error::Auth {
            status: Some(401),
            message: "no".into(),
            www_authenticate: Some("Bearer".into()),
        },
    ] {
        let back = error_from_json(&error_to_json(&error));
        assert_eq!(back.to_string(), error.to_string());
    }
}
