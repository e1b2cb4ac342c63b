//! The drift check as a transport runs it: before a generated method's call, and on demand.
//! The state it reads and keeps (fresh or not, the last report, what is blocked) is
//! [`super::drift`]'s; this file adds the one `tools/list` that renews it.

#[cfg(not(feature = "tracing"))]
use super::drift::RETRY_AFTER;
use super::session::{Transport, tool_list};
use crate::Error;
use crate::drift::{DriftPolicy, DriftReport, Provenance};

/// Before a generated method calls `tool`: the module's check, made first if it is not fresh.
pub(crate) async fn check_tool<T: Transport>(
    transport: &T,
    provenance: &'static Provenance,
    tool: &str,
) -> Result<(), Error> {
    let session = transport.session();
    if session.settings.drift_policy == DriftPolicy::Off {
        return Ok(());
    }
    if let Some(verdict) = session.drift.current(provenance, tool) {
        return verdict;
    }
    let _one_at_a_time = session.drift.checking.lock().await;
    // Another caller may have checked while this one waited.
    if let Some(verdict) = session.drift.current(provenance, tool) {
        return verdict;
    }
    refresh(transport, provenance).await;
    session.drift.current(provenance, tool).unwrap_or(Ok(()))
}

/// Checks now, whatever the last check: the report, `None` under [`DriftPolicy::Off`].
pub(crate) async fn check_drift<T: Transport>(
    transport: &T,
    provenance: &'static Provenance,
) -> Result<Option<DriftReport>, Error> {
    let session = transport.session();
    if session.settings.drift_policy == DriftPolicy::Off {
        return Ok(None);
    }
    let _one_at_a_time = session.drift.checking.lock().await;
    session.drift.register(provenance);
    transport.hear_changes();
    tool_list(transport).await?;
    Ok(session.drift.report(provenance))
}

/// One `tools/list` for the check (which judges every module as it comes back); a failure is
/// logged and leaves calls unchecked for a while rather than failing them.
async fn refresh<T: Transport>(transport: &T, provenance: &'static Provenance) {
    let session = transport.session();
    session.drift.register(provenance);
    transport.hear_changes();
    let epoch = session.drift.epoch();
    if let Err(error) = tool_list(transport).await {
        #[cfg(not(feature = "tracing"))]
        log::warn!(
            "could not check {}'s tools for drift (calls go on unchecked for {} s): {error}",
            transport.peer(),
            RETRY_AFTER.as_secs()
        );
        #[cfg(feature = "tracing")]
        tracing::warn!(%error, "could not check the server's tools for drift");
        session.drift.failed(provenance, epoch);
    }
}
