//! The I/O runtime the clients own: one background thread running a current-thread tokio
//! runtime, started on first use and kept for the life of the process. Work is spawned onto
//! it and awaited through [`IoTask`], a future any executor can poll; dropping an unfinished
//! `IoTask` aborts the work and runs its cancellation.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::Error;

static RUNTIME: OnceLock<Result<Handle, String>> = OnceLock::new();

/// The handle of the I/O runtime, starting it on first use.
pub(crate) fn handle() -> Result<&'static Handle, Error> {
    RUNTIME
        .get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            let spawned = std::thread::Builder::new()
                .name("mcp-bindgen-io".into())
                .spawn(move || {
                    match tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    {
                        Ok(runtime) => {
                            let _ = tx.send(Ok(runtime.handle().clone()));
                            // Runs the spawned I/O for the life of the process.
                            runtime.block_on(std::future::pending::<()>());
                        }
                        Err(e) => {
                            let _ = tx.send(Err(format!("could not start the I/O runtime: {e}")));
                        }
                    }
                });
            match spawned {
                Ok(_) => rx
                    .recv()
                    .unwrap_or_else(|_| Err("the I/O thread ended while starting".to_owned())),
                Err(e) => Err(format!("could not start the I/O thread: {e}")),
            }
        })
        .as_ref()
        .map_err(|message| Error::transport(message.clone()))
}

/// Waits `duration` on the I/O runtime's clock, from any executor.
pub(crate) async fn sleep(duration: std::time::Duration) -> Result<(), Error> {
    IoTask::spawn(
        async move {
            tokio::time::sleep(duration).await;
            Ok(())
        },
        None,
    )
    .await
}

/// Work running on the I/O runtime, awaited from anywhere.
pub(crate) struct IoTask<T> {
    state: State<T>,
    on_cancel: Option<Box<dyn FnOnce() + Send>>,
}

enum State<T> {
    Running(JoinHandle<Result<T, Error>>),
    /// The runtime could not start: the error, once.
    Failed(Option<Error>),
    Done,
}

impl<T> std::fmt::Debug for IoTask<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IoTask").finish_non_exhaustive()
    }
}

impl<T: Send + 'static> IoTask<T> {
    /// Spawns `work`; `on_cancel` runs if the task is dropped before it finishes.
    pub(crate) fn spawn(
        work: impl Future<Output = Result<T, Error>> + Send + 'static,
        on_cancel: Option<Box<dyn FnOnce() + Send>>,
    ) -> Self {
        match handle() {
            Ok(runtime) => IoTask {
                state: State::Running(runtime.spawn(work)),
                on_cancel,
            },
            Err(e) => IoTask {
                state: State::Failed(Some(e)),
                on_cancel: None,
            },
        }
    }
}

impl<T> Future for IoTask<T> {
    type Output = Result<T, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let output = match &mut self.state {
            State::Running(handle) => match Pin::new(handle).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(result)) => result,
                Poll::Ready(Err(e)) => Err(Error::transport_source("the I/O task failed", e)),
            },
            State::Failed(error) => Err(error
                .take()
                .unwrap_or_else(|| Error::transport("the I/O runtime is not running"))),
            State::Done => Err(Error::transport("the request was already answered")),
        };
        self.state = State::Done;
        self.on_cancel = None;
        Poll::Ready(output)
    }
}

impl<T> Drop for IoTask<T> {
    fn drop(&mut self) {
        if let State::Running(handle) = &self.state {
            handle.abort();
            if let Some(cancel) = self.on_cancel.take() {
                cancel();
            }
        }
    }
}
