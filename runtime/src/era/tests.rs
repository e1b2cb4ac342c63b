use super::*;

#[test]
fn header_values_decode_plain_and_sentinel_forms() {
    assert_eq!(header_value::decode("add").as_deref(), Some("add"));
    // "héllo wörld" in standard base64, with and without padding.
    assert_eq!(
        header_value::decode("=?base64?aMOpbGxvIHfDtnJsZA==?=").as_deref(),
        Some("héllo wörld")
    );
    // Padding is required (SEP-2243's test table rejects "SGVsbG8").
    assert_eq!(header_value::decode("=?base64?aMOpbGxvIHfDtnJsZA?="), None);
    assert_eq!(header_value::decode("=?base64?SGVsbG8?="), None);
    assert_eq!(header_value::decode("=?base64?SGVs!!!bG8=?="), None);
    // Without the whole wrapper, a value is literal.
    assert_eq!(
        header_value::decode("=?base64?SGVsbG8=").as_deref(),
        Some("=?base64?SGVsbG8=")
    );
    assert_eq!(
        header_value::decode("=?base64?YQ==?=").as_deref(),
        Some("a")
    );
    assert_eq!(
        header_value::decode("=?base64?YWI=?=").as_deref(),
        Some("ab")
    );
    assert_eq!(
        header_value::decode("=?base64?YWJj?=").as_deref(),
        Some("abc")
    );
    assert_eq!(header_value::decode("=?base64?not*base64?="), None);
    assert_eq!(header_value::decode("=?base64?Y?="), None);
    // Valid base64 of bytes that are not UTF-8.
    assert_eq!(header_value::decode("=?base64?/w==?="), None);
}

#[test]
fn log_levels_order_and_round_trip() {
    assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
    for name in [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ] {
        assert_eq!(LogLevel::parse(name).map(LogLevel::as_str), Some(name));
    }
    assert_eq!(LogLevel::parse("verbose"), None);
}
