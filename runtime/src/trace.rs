//! Helpers of the `tracing` feature.

/// The spans this crate records fields on after creating them.
const OURS: &[&str] = &["mcp_request", "mcp_tool_call", "mcp_connect"];

/// Records `value` as `field` of the current span when that span is one of this crate's
/// (a span a filter turned off leaves the caller's span current: its fields are not ours to
/// write). Without a subscriber that wants DEBUG this costs one atomic load.
pub(crate) fn record(field: &str, value: impl tracing::Value) {
    if tracing::level_enabled!(tracing::Level::DEBUG) {
        let span = tracing::Span::current();
        if span.metadata().is_some_and(|m| OURS.contains(&m.name())) {
            span.record(field, value);
        }
    }
}
