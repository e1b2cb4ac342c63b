//! [`Registrar`]: changes to a registry's tools from where the registry cannot be reached (a
//! tool handler, which runs while the registry is borrowed; another thread; a Bevy system).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};

use super::{CallHandler, Handler, Registry, ToolDefinition, ToolError, ToolResult};

type Edit<Ctx> = Box<dyn FnOnce(&mut Registry<Ctx>) + Send>;

/// The queue a registry and its registrars share.
pub(crate) struct Edits<Ctx> {
    /// Whether the queue may hold edits: the one load a frame pays when nothing is queued.
    pending: AtomicBool,
    queue: Mutex<Vec<Edit<Ctx>>>,
}

impl<Ctx> Default for Edits<Ctx> {
    fn default() -> Self {
        Edits {
            pending: AtomicBool::new(false),
            queue: Mutex::new(Vec::new()),
        }
    }
}

impl<Ctx> Edits<Ctx> {
    fn push(&self, edit: Edit<Ctx>) {
        self.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(edit);
        self.pending.store(true, Ordering::Release);
    }

    /// Whether edits wait to be applied.
    #[inline]
    pub(crate) fn pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// The queued edits, in the order they were made.
    pub(crate) fn take(&self) -> Vec<Edit<Ctx>> {
        self.pending.store(false, Ordering::Release);
        std::mem::take(&mut *self.queue.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Registers and removes a [`Registry`]'s tools from anywhere: from inside a tool handler (a
/// handler gets the game, not the registry), from another thread, from a Bevy system. Get one
/// with [`Registry::registrar`] and keep it in the game; it is cheap to clone.
///
/// Changes are queued and applied in order by the registry's owner: after each request
/// [`Server::poll`](super::Server::poll) runs (so a tool registered by a handler is listed to
/// the very next request), at the end of every `poll` / `poll_for`, and after each message of
/// [`serve_stdio`](super::serve_stdio) and [`Registry::dispatch`]. Each change is announced to
/// the clients that listen, as a change made on the registry itself is.
///
/// ```
/// use mcp_bindgen::server::{Handler, McpTool, Registrar, Registry, ToolError};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// struct Game { tools: Registrar<Game>, level: u32 }
///
/// /// Load the next level; its boss tool appears.
/// #[derive(McpTool, Deserialize, JsonSchema)]
/// struct NextLevel {}
///
/// /// Fight the level's boss.
/// #[derive(McpTool, Deserialize, JsonSchema)]
/// struct FightBoss {}
///
/// impl Handler<Game> for NextLevel {
///     type Output = u32;
///     fn call(self, game: &mut Game) -> Result<u32, ToolError> {
///         game.level += 1;
///         game.tools.register::<FightBoss>();
///         Ok(game.level)
///     }
/// }
///
/// impl Handler<Game> for FightBoss {
///     type Output = ();
///     fn call(self, game: &mut Game) -> Result<(), ToolError> {
///         game.tools.unregister("fight_boss");
///         Ok(())
///     }
/// }
///
/// let mut registry = Registry::new("my-game", "1.0.0");
/// registry.register::<NextLevel>();
/// let mut game = Game { tools: registry.registrar(), level: 0 };
/// let call = |tool: &str| {
///     format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}"}}}}"#)
/// };
/// registry.dispatch(&mut game, &call("next_level"));
/// assert_eq!(registry.tools().count(), 2);
/// registry.dispatch(&mut game, &call("fight_boss"));
/// assert_eq!(registry.tools().count(), 1);
/// ```
pub struct Registrar<Ctx> {
    edits: Arc<Edits<Ctx>>,
    events: Arc<super::events::Hub>,
}

impl<Ctx> Clone for Registrar<Ctx> {
    fn clone(&self) -> Self {
        Registrar {
            edits: self.edits.clone(),
            events: self.events.clone(),
        }
    }
}

impl<Ctx> fmt::Debug for Registrar<Ctx> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registrar")
            .field("pending", &self.edits.pending())
            .finish()
    }
}

impl<Ctx: 'static> Registrar<Ctx> {
    pub(crate) fn new(edits: Arc<Edits<Ctx>>, events: Arc<super::events::Hub>) -> Self {
        Registrar { edits, events }
    }

    /// [`Registry::register_event`], at once (event types are shared with the server's
    /// threads, not queued): the emitter works from now on, and the list's change is announced
    /// at the end of the frame.
    pub fn register_event<P, A>(&self, event: super::EventType<P, A>) -> super::Emitter<P>
    where
        P: serde::Serialize + schemars::JsonSchema + Send + Sync + 'static,
        A: serde::de::DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static,
    {
        super::Emitter::new(self.events.insert(event.into_kind(&self.events.boot)))
    }

    /// [`Registry::unregister_event`], at once. Returns whether there was one.
    pub fn unregister_event(&self, name: &str) -> bool {
        self.events.remove(name)
    }

    /// Queues [`Registry::register`].
    pub fn register<T: Handler<Ctx>>(&self) {
        self.edits.push(Box::new(|registry| {
            registry.register::<T>();
        }));
    }

    /// Queues [`Registry::register_call`].
    pub fn register_call<T: CallHandler<Ctx>>(&self, deadline: Duration) {
        self.edits.push(Box::new(move |registry| {
            registry.register_call::<T>(deadline);
        }));
    }

    /// Queues [`Registry::register_fn`].
    pub fn register_fn<R: Into<ToolResult>>(
        &self,
        def: ToolDefinition,
        handler: impl FnMut(&mut Ctx, Map<String, Value>) -> Result<R, ToolError> + Send + 'static,
    ) {
        self.edits.push(Box::new(move |registry| {
            registry.register_fn(def, handler);
        }));
    }

    /// Queues any change to the registry: a prompt, a resource or a template registered or
    /// removed, [`Registry::resource_updated`], ... Applied in order with the other edits.
    pub fn edit(&self, edit: impl FnOnce(&mut Registry<Ctx>) + Send + 'static) {
        self.edits.push(Box::new(edit));
    }

    /// Queues [`Registry::unregister`] (a name not registered by then is no change).
    pub fn unregister(&self, name: impl Into<String>) {
        let name = name.into();
        self.edits.push(Box::new(move |registry| {
            registry.unregister(&name);
        }));
    }
}
