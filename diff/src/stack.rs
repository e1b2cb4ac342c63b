//! The comparison recurses as deep as the schemas nest (up to [`crate::schema::MAX_DEPTH`]
//! levels, each `$ref` adding one): it runs on a thread of its own with a stack that cannot run
//! out, whatever stack its caller has (test threads and async tasks have 2 MiB).

use std::sync::Mutex;

/// Reserved, not committed: only the pages a comparison touches are.
const STACK: usize = 256 * 1024 * 1024;

thread_local! {
    /// Whether this thread was started by [`with_big_stack`].
    static ON_BIG_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` on a scoped thread with [`STACK`] (or right here when this thread is one already,
/// or when no thread can be started) and returns what it returns; a panic in `f` is resumed
/// here.
pub(crate) fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if ON_BIG_STACK.get() {
        return f();
    }
    // The closure is handed over through a slot, so that it is still here to run if the
    // thread cannot be started.
    let slot = Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    let spawned = std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("mcp-bindgen-diff".into())
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
        // No thread (resource limits): compare on this stack, within the depth limits.
        None => match take() {
            Some(f) => f(),
            None => unreachable!("the comparison ran on its thread and returned"),
        },
    }
}
