//! The Rust snippets of README.md and the guide (`book/src/`), compiled (and run where they can: a `fn() run` marker), as
//! `readme.rs` extracts them into `readme/snippets.rs`; see there.

// Written by `readme.rs` with the README's own layout: not reformatted.
#[rustfmt::skip]
#[path = "readme/snippets.rs"]
mod snippets;

/// What the fragments of the README and the guide assume exists: the game of the server
/// snippets, and the identity provider's token of the enterprise sign-in.
#[allow(dead_code)]
mod support {
    /// A game, as the server snippets use it.
    pub(crate) struct Game {
        pub(crate) level: u32,
    }

    impl Game {
        pub(crate) fn goals(&self) -> Vec<String> {
            vec!["find the key".into(), "free the prisoner".into()]
        }

        pub(crate) fn entity_json(&self, id: u32) -> String {
            format!("{{\"id\": {id}}}")
        }
    }

    impl Default for Game {
        fn default() -> Self {
            Game { level: 1 }
        }
    }

    /// The user's ID token from the company's identity provider (enterprise-managed OAuth).
    pub(crate) fn id_token() -> String {
        "an ID token".into()
    }
}
