//! Helpers of the `tracing` feature.

/// Records `value` as `field` of the current span. Without a subscriber that wants DEBUG this
/// costs one atomic load: the current span is looked up only when it may be recorded.
pub(crate) fn record(field: &str, value: impl tracing::Value) {
    if tracing::level_enabled!(tracing::Level::DEBUG) {
        tracing::Span::current().record(field, value);
    }
}
