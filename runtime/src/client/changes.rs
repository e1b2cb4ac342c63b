//! The application's tool-change handlers (`on_tools_changed`): one task per client waits for
//! the session's announcement signal, fetches the new list once, and hands it to every handler.
//! How announcements reach the session is the transport's affair (the legacy GET stream, a
//! `subscriptions/listen` stream, stdio lines); this file only answers them.

use std::sync::{Arc, Weak};

use tokio::sync::Notify;

use super::lock;
use super::session::{Connection, tool_list};
use super::transport::Transport;

/// Answers each announcement until the connection is gone (the client was dropped).
/// Announcements that come while a list is fetched are one more fetch (`Notify` keeps one
/// permit), never a queue.
async fn watch<T: Transport>(signal: Arc<Notify>, conn: Weak<Connection<T>>) {
    loop {
        signal.notified().await;
        let Some(conn) = conn.upgrade() else { return };
        let handlers = conn.session.settings.on_tools_changed.clone();
        let fetched = tool_list(&conn).await;
        let peer = conn.transport.peer();
        drop(conn);
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

/// When the application has handlers: starts [`watch`] on the I/O runtime, for the life of
/// `conn`, and has the transport listen for announcements where that takes a stream of its own.
pub(crate) fn start<T: Transport>(conn: &Arc<Connection<T>>) {
    let session = &conn.session;
    if session.settings.on_tools_changed.is_empty() {
        return;
    }
    let Ok(runtime) = super::io::handle() else {
        return;
    };
    let signal = session.tools_changed.clone();
    let task = runtime.spawn(watch(signal, Arc::downgrade(conn)));
    lock(&conn.tasks).push(task.abort_handle());
    conn.transport.hear_changes();
}
