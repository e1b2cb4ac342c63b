//! The Rust snippets of README.md and the guide (`book/src/`), compiled (and run where they can: a `fn() run` marker), as
//! `readme.rs` extracts them into `readme/snippets.rs`; see there.

// Written by `readme.rs` with the README's own layout: not reformatted.
#[rustfmt::skip]
#[path = "readme/snippets.rs"]
mod snippets;

/// What the README's fragments assume exists: the game of the server snippets and the
/// application whose tests the fake and cassette snippets show.
#[allow(dead_code)]
mod support {
    use mcp_bindings::saving_throw::{Client, types};

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

    /// The application under test in the fake and cassette snippets.
    pub(crate) struct MyAgent<C>(Client<C>);

    impl<C: mcp_bindgen::ToolCaller> MyAgent<C> {
        pub(crate) fn new(client: Client<C>) -> Self {
            MyAgent(client)
        }

        pub(crate) async fn finish_a_run(&self) -> Result<types::RunStatus, mcp_bindgen::Error> {
            self.0
                .get_status(&types::GetStatusArgs {
                    run_id: "run-1".into(),
                })
                .await
        }
    }

    /// The user's ID token from the company's identity provider (enterprise-managed OAuth).
    pub(crate) fn id_token() -> String {
        "an ID token".into()
    }

    pub(crate) const URL: &str = "https://saving-throw.example/mcp";
    pub(crate) const KEY: &str = "a key";
}
