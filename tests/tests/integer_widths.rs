//! A derived tool's integer widths survive the round trip: the registry's `tools/list` (the
//! portable schema profile, which drops schemars' non-standard `int32` / `uint8` formats) keeps
//! each width as its bounds, and a client generated from that capture gets the same Rust
//! integer types back. A field with a range of its own keeps the range, not the width.

use mcp_bindgen::server::{Handler, McpTool, Registry, ToolError};
use mcp_bindgen_codegen::{Generator, ServerConfig, capture};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Moves a unit.
#[derive(McpTool, Deserialize, JsonSchema)]
struct Step {
    dx: i32,
    dy: i16,
    floor: u8,
    budget: u32,
    /// At most 10 steps.
    #[schemars(range(min = 1, max = 10))]
    steps: u32,
    tick: i64,
}

#[derive(Serialize, JsonSchema)]
struct Stepped {
    hp: i32,
    frame: u64,
}

impl Handler<()> for Step {
    type Output = Stepped;
    fn call(self, _: &mut ()) -> Result<Stepped, ToolError> {
        let moved = i64::from(self.dx) + i64::from(self.dy) + i64::from(self.floor);
        let spent = i64::from(self.budget) + i64::from(self.steps) + self.tick;
        Ok(Stepped {
            hp: i32::from(moved > spent),
            frame: 0,
        })
    }
}

#[test]
fn integer_widths_come_back_from_a_capture() {
    let mut registry = Registry::<()>::new("widths", "0.0.0");
    registry.register::<Step>();
    let reply = registry
        .dispatch(&mut (), r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .expect("a reply");
    let capture = capture::parse(std::path::Path::new("widths.tools.json"), reply)
        .expect("the reply is a capture");
    let module = Generator::new()
        .generate_capture(&ServerConfig::new("widths", "widths.tools.json"), &capture)
        .expect("generates");
    let code = module.to_module_file("test");
    let flat: String = code.split_whitespace().collect();
    for field in [
        "pubdx:i32",
        "pubdy:i16",
        "pubfloor:u8",
        "pubbudget:u32",
        // A range of its own is what the capture says instead of the width: a plain integer,
        // checked against 1..=10 before each call.
        "pubsteps:u64",
        "pubtick:i64",
        "pubhp:i32",
        "pubframe:u64",
    ] {
        assert!(
            flat.contains(field),
            "`{field}` is not in the client:\n{code}"
        );
    }
}
