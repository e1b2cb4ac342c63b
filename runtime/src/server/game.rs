//! The loopback MCP server's game-thread side: [`Server`] holds the [`Registry`] and answers
//! the requests the HTTP side (`http.rs`) queued, when the game calls [`Server::poll`] or
//! [`Server::poll_for`]; then it hands what changed to the streams that listen.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::Registry;
use super::announce::Listeners;
use super::wire::{Incoming, Outbound};

/// A listening MCP endpoint on 127.0.0.1. It answers only while something polls it: call
/// [`Server::poll`] or [`Server::poll_for`] once per frame.
///
/// ```
/// use std::time::Duration;
/// use mcp_bindgen::server::{Handler, McpTool, Registry, Server, ToolError};
///
/// struct Game { frame: u64 }
///
/// /// Which frame is it?
/// #[derive(McpTool, serde::Deserialize, schemars::JsonSchema)]
/// #[mcp(read_only)]
/// struct Frame {}
///
/// impl Handler<Game> for Frame {
///     type Output = u64;
///     fn call(self, game: &mut Game) -> Result<u64, ToolError> {
///         Ok(game.frame)
///     }
/// }
///
/// let mut registry = Registry::new("my-game", "1.0.0");
/// registry.register::<Frame>();
/// let mut server = Server::listen(registry, 0)?; // 0: a free port; 127.0.0.1 only
/// println!("serving http://127.0.0.1:{}/mcp", server.port());
/// let mut game = Game { frame: 0 };
/// for _ in 0..3 {
///     game.frame += 1; // the game's own work
///     let stats = server.poll_for(&mut game, Duration::from_millis(1)); // never blocks
///     assert_eq!(stats.calls, 0); // nobody called yet
/// }
/// server.destroy(); // frees the port
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Server<Ctx> {
    registry: Registry<Ctx>,
    port: u16,
    running: Option<Running>,
}

/// What the HTTP side hands the game thread when it starts: the queue it fills, the streams it
/// serves, and the way to stop it.
pub(super) struct Running {
    pub(super) jobs: Receiver<Incoming>,
    pub(super) queued: Arc<AtomicUsize>,
    /// The streams that listen for changes (the HTTP thread opens them).
    pub(super) listeners: Arc<Listeners>,
    /// The event types (the HTTP thread serves their streams).
    pub(super) events: Arc<super::events::Hub>,
    pub(super) shutdown: watch::Sender<bool>,
    pub(super) thread: Option<JoinHandle<()>>,
}

/// What one [`Server::poll_for`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PollStats {
    /// Requests answered or started (deferred calls count once, when started).
    pub calls: usize,
    /// Time spent running them.
    pub busy: Duration,
    /// The longest single request.
    pub longest: Duration,
    /// Requests still queued afterwards (the queue depth).
    pub queued: usize,
    /// Deferred calls still waiting for the game's answer.
    pub deferred: usize,
}

impl<Ctx> std::fmt::Debug for Server<Ctx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("port", &self.port)
            .field("listening", &self.running.is_some())
            .field("registry", &self.registry)
            .finish()
    }
}

impl<Ctx> Server<Ctx> {
    /// The server of `registry`, its HTTP side `running` on `port`.
    pub(super) fn started(registry: Registry<Ctx>, port: u16, running: Running) -> Self {
        Server {
            registry,
            port,
            running: Some(running),
        }
    }

    /// The bound TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether the server still listens (`destroy` not called).
    pub fn is_listening(&self) -> bool {
        self.running.is_some()
    }

    /// Change streams open now: legacy sessions' GET streams and `subscriptions/listen`
    /// requests.
    pub fn listening(&self) -> usize {
        self.running.as_ref().map_or(0, |r| r.listeners.len())
    }

    /// Requests waiting for `poll` (the queue depth).
    pub fn queued(&self) -> usize {
        self.running
            .as_ref()
            .map_or(0, |r| r.queued.load(Ordering::Relaxed))
    }

    /// Answers at most one queued request on this thread, with `ctx`; never blocks. Returns
    /// whether a request was answered. Requests whose client has already gone are dropped
    /// unanswered rather than run. Also answers deferred calls past their deadline.
    ///
    /// One call per frame bounds the frame's cost by the slowest tool, and serves at most the
    /// frame rate in calls per second; [`Server::poll_for`] serves bursts within a time budget.
    pub fn poll(&mut self, ctx: &mut Ctx) -> bool {
        self.expire();
        self.registry.resume_asking(ctx);
        let ran = self.next().is_some_and(|job| {
            self.run(ctx, job);
            true
        });
        self.announce();
        ran
    }

    /// Answers queued requests until `budget` is spent: at least one when any is queued, then
    /// more while time remains, so a frame spends at most its budget plus one call. Never
    /// blocks on the network. Returns what it did.
    ///
    /// Choose `poll` when one call per frame is plenty (a human-paced agent) or tools are
    /// slow; choose `poll_for` with a slice of the frame (e.g. 1 ms at 60 Hz) when several
    /// agents call at once and calls are cheap: latency stays within a frame or two instead of
    /// one frame per queued call.
    pub fn poll_for(&mut self, ctx: &mut Ctx, budget: Duration) -> PollStats {
        self.expire();
        self.registry.resume_asking(ctx);
        let started = Instant::now();
        let mut stats = PollStats::default();
        let mut before = started;
        while stats.calls == 0 || before.duration_since(started) < budget {
            let Some(job) = self.next() else { break };
            self.run(ctx, job);
            let after = Instant::now();
            let took = after.duration_since(before);
            stats.calls += 1;
            stats.busy += took;
            stats.longest = stats.longest.max(took);
            before = after;
        }
        self.announce();
        stats.queued = self.queued();
        stats.deferred = self.registry.deferred_calls();
        #[cfg(feature = "tracing")]
        tracing::trace!(
            calls = stats.calls,
            busy = ?stats.busy,
            longest = ?stats.longest,
            queued = stats.queued,
            deferred = stats.deferred,
            "poll_for"
        );
        stats
    }

    fn run(&mut self, ctx: &mut Ctx, job: Incoming) {
        let outlet = job.outlet.clone();
        if let Some(reply) = self.registry.run(ctx, job)
            && let Some(outlet) = outlet
        {
            // The client may have gone meanwhile; nothing to do then.
            let _ = outlet.send(Outbound::Done(reply));
        }
        // A handler's registrations are listed to the next request.
        self.registry.apply_edits();
    }

    /// Tells the listening clients what changed since the last frame: once, however many
    /// changes there were.
    #[inline]
    fn announce(&mut self) {
        if !self.registry.changes_pending() {
            return;
        }
        let running = &self.running;
        self.registry.announce_with(|announced| {
            if let Some(running) = running {
                running.listeners.announce(announced);
            }
        });
    }

    fn expire(&mut self) {
        if self.registry.deferred_calls() > 0 || self.registry.tasks_kept() > 0 {
            self.registry.expire_deferred(Instant::now());
        }
    }

    /// The next queued request whose client still waits.
    fn next(&mut self) -> Option<Incoming> {
        let running = self.running.as_ref()?;
        loop {
            match running.jobs.try_recv() {
                Ok(job) => {
                    running.queued.fetch_sub(1, Ordering::Relaxed);
                    if job.outlet.as_ref().is_none_or(|o| o.is_closed()) {
                        continue;
                    }
                    return Some(job);
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return None,
            }
        }
    }

    /// Stops listening and frees the port. Requests still queued are answered 503 (the
    /// server is shutting down); connections get up to a second to send their answers. Safe to
    /// call more than once. The registry is left as it was:
    /// `Server::listen(server.into_registry(), port)` serves the same tools again.
    pub fn destroy(&mut self) {
        if let Some(running) = self.running.take() {
            let Running {
                jobs,
                shutdown,
                thread,
                listeners,
                events,
                ..
            } = running;
            // Listening streams and event streams end with their closing response.
            listeners.close_all();
            events.close();
            // The queued requests will not run: their clients are answered 503 while the
            // connections wind down.
            drop(jobs);
            let _ = shutdown.send(true);
            if let Some(thread) = thread {
                let _ = thread.join();
            }
            // The streams are gone with the thread; the registry may serve again.
            events.reopen();
        }
    }

    /// The tools served.
    pub fn registry(&self) -> &Registry<Ctx> {
        &self.registry
    }

    /// The tools served, to register more or set crash mode.
    pub fn registry_mut(&mut self) -> &mut Registry<Ctx> {
        &mut self.registry
    }

    /// Stops the server and gives its registry back.
    pub fn into_registry(mut self) -> Registry<Ctx> {
        self.destroy();
        let empty = Registry::new("", "");
        std::mem::replace(&mut self.registry, empty)
    }
}

impl<Ctx> Drop for Server<Ctx> {
    fn drop(&mut self) {
        self.destroy();
    }
}
