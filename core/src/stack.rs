//! A big stack for deep recursion, shared by the comparison and the generator (one home). The
//! comparison recurses as deep as the schemas nest (up to `schema::MAX_DEPTH` levels, each
//! `$ref` adding one), and so do the generator's stages: they run on a thread of their own
//! with a stack that cannot run out, whatever stack the caller has (test threads and async
//! tasks have 2 MiB).

use std::sync::Mutex;

/// Reserved, not committed: only the pages a comparison touches are.
const STACK: usize = 256 * 1024 * 1024;

thread_local! {
    /// Whether this thread was started by [`with_big_stack`].
    static ON_BIG_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is one [`with_big_stack`] started.
pub fn on_big_stack() -> bool {
    ON_BIG_STACK.get()
}

/// Runs `f` on a scoped thread named `name` with a 256 MiB stack (reserved; only the pages
/// touched are committed), or right here when this thread is one already, or when no thread
/// can be started (then within the caller's stack), and returns what it returns; a panic in
/// `f` is resumed here.
pub fn with_big_stack<T: Send>(name: &str, f: impl FnOnce() -> T + Send) -> T {
    if ON_BIG_STACK.get() {
        return f();
    }
    // The closure is handed over through a slot, so that it is still here to run if the
    // thread cannot be started.
    let slot = Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    let spawned = std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name(name.to_owned())
            .stack_size(STACK)
            .spawn_scoped(scope, || {
                ON_BIG_STACK.set(true);
                take().map(|f| f())
            });
        match handle {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        }
    });
    match spawned {
        Some(value) => value,
        // No thread (resource limits): run on this stack.
        None => match take() {
            Some(f) => f(),
            None => unreachable!("f ran on its thread and returned"),
        },
    }
}
