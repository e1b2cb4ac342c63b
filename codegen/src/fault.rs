//! Fail points, for tests: a failure forced on one tool at one stage of the generator, to prove
//! that the tool alone degrades there (and the module still compiles).
//!
//! They exist with the `fault-injection` feature (and in the crate's own unit tests) only. A
//! test installs its faults through `Generator::with_fault`; they hold on the generator's
//! thread for that one generation ([`install`]). The stages ask [`forced`] at each point where
//! a failure can be forced; without the feature that is a constant `false` the compiler
//! removes, so the stages' signatures and data carry production values only.

/// A stage of the generator a tool's schemas go through. (Without the feature only the fail
/// points name it.)
#[doc(hidden)]
#[cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// The normaliser, on the tool's input schema (made to panic).
    Normalise,
    /// typify, adding the tool's argument types (made to refuse them).
    Typify,
    /// typify, writing the Rust of a type space that holds the tool's argument types (made to
    /// panic when they are written after other tools' types, not alone).
    Render,
    /// The post-pass over typify's output (made to leave the tool's argument type naming a
    /// type that does not exist).
    PostPass,
    /// typify, adding the tool's result type from its `outputSchema` (made to refuse it).
    Output,
}

#[cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub, dead_code))]
impl Stage {
    /// Every stage, in the order a schema goes through them.
    pub const ALL: [Stage; 5] = [
        Stage::Normalise,
        Stage::Typify,
        Stage::Render,
        Stage::PostPass,
        Stage::Output,
    ];
}

/// The message of a forced failure.
pub(crate) const INJECTED: &str = "failure forced by a test";

#[cfg(any(test, feature = "fault-injection"))]
#[cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub))]
pub use points::Fault;
#[cfg(any(test, feature = "fault-injection"))]
pub(crate) use points::install;

#[cfg(any(test, feature = "fault-injection"))]
mod points {
    use std::cell::RefCell;

    use super::Stage;

    /// A failure forced on `tool` at `stage`.
    #[doc(hidden)]
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub))]
    pub struct Fault {
        /// The tool's name, as captured.
        pub tool: String,
        /// Where it fails.
        pub stage: Stage,
    }

    thread_local! {
        /// The faults of the generation running on this thread.
        static FAULTS: RefCell<Vec<Fault>> = const { RefCell::new(Vec::new()) };
    }

    /// Faults in force on this thread until it is dropped, when the ones before are back.
    #[must_use = "the faults hold only while this lives"]
    pub(crate) struct Installed {
        previous: Vec<Fault>,
    }

    /// Puts `faults` in force on this thread (the generator's) until the guard drops.
    pub(crate) fn install(faults: &[Fault]) -> Installed {
        let previous = FAULTS.with(|f| std::mem::replace(&mut *f.borrow_mut(), faults.to_vec()));
        Installed { previous }
    }

    impl Drop for Installed {
        fn drop(&mut self) {
            let previous = std::mem::take(&mut self.previous);
            FAULTS.with(|f| *f.borrow_mut() = previous);
        }
    }

    pub(super) fn forced(tool: &str, stage: Stage) -> bool {
        FAULTS.with(|f| {
            f.borrow()
                .iter()
                .any(|f| f.tool == tool && f.stage == stage)
        })
    }
}

/// Whether a failure is forced on `tool` at `stage`.
#[inline]
pub(crate) fn forced(tool: &str, stage: Stage) -> bool {
    #[cfg(any(test, feature = "fault-injection"))]
    return points::forced(tool, stage);
    #[cfg(not(any(test, feature = "fault-injection")))]
    {
        let _ = (tool, stage);
        false
    }
}
