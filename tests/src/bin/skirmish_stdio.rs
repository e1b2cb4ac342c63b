//! The skirmish game (`mcp_bindgen_tests::skirmish`) served over stdio with `serve_stdio`: the
//! stdio side of the Events tests (`tests/events.rs`).

fn main() -> std::io::Result<()> {
    let (mut registry, mut game) = mcp_bindgen_tests::skirmish::registry();
    mcp_bindgen::server::serve_stdio(
        &mut registry,
        &mut game,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )
}
