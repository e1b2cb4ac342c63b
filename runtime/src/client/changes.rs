//! The application's tool-change handlers (`on_tools_changed`): one task per client waits for
//! the session's announcement signal, fetches the new list once, and hands it to every handler.
//! How announcements reach the session is the transport's affair (the legacy GET stream, a
//! `subscriptions/listen` stream, stdio lines); this file only answers them.

use std::sync::Arc;

use tokio::sync::Notify;

use super::session::{Transport, tool_list};

/// Answers each announcement until `client` can no longer be had (the client was dropped).
/// Announcements that come while a list is fetched are one more fetch (`Notify` keeps one
/// permit), never a queue.
pub(crate) async fn watch<T, F>(signal: Arc<Notify>, client: F)
where
    T: Transport,
    F: Fn() -> Option<T>,
{
    loop {
        signal.notified().await;
        let Some(transport) = client() else { return };
        let handlers = transport.session().settings.on_tools_changed.clone();
        let fetched = tool_list(&transport).await;
        let peer = transport.peer();
        drop(transport);
        match fetched {
            Ok(list) => {
                // Application code: off the I/O thread, so that a slow handler delays no
                // request.
                let _ = tokio::task::spawn_blocking(move || {
                    for handler in &handlers {
                        handler(&list);
                    }
                })
                .await;
            }
            Err(error) => {
                #[cfg(not(feature = "tracing"))]
                log::warn!("{peer} announced new tools, but listing them failed: {error}");
                #[cfg(feature = "tracing")]
                tracing::warn!(%peer, %error, "the server announced new tools; listing them failed");
            }
        }
    }
}

/// Starts [`watch`] on the I/O runtime when the settings have handlers.
pub(crate) fn start<T, F>(transport: &T, client: F) -> Option<tokio::task::AbortHandle>
where
    T: Transport + Send + 'static,
    F: Fn() -> Option<T> + Send + Sync + 'static,
{
    let session = transport.session();
    if session.settings.on_tools_changed.is_empty() {
        return None;
    }
    let runtime = super::io::handle().ok()?;
    let signal = session.tools_changed.clone();
    Some(runtime.spawn(watch(signal, client)).abort_handle())
}
