//! The server author's check: the game's tools now, against the capture of its last release
//! (`releases/0.2.0.tools.json`), with `mcp-bindgen diff`'s rules. A breaking change fails the
//! test; the report says what broke and where. The same from the command line:
//!
//! ```text
//! cargo run -p mcp-bindgen-example-tecs -- --capture target/tecs.tools.json
//! mcp-bindgen diff examples/tecs-game/releases/0.2.0.tools.json target/tecs.tools.json
//! ```
//!
//! On a release, copy the new capture to `releases/VERSION.tools.json` and point this test at
//! it. A breaking change is released on purpose, with its report pinned below
//! (`the_0_2_0_release_broke_what_it_says`).

use std::path::Path;

use mcp_bindgen_codegen::capture;
use mcp_bindgen_codegen::diff::{self, Format, Options, Report, Severity};
use mcp_bindgen_example_tecs::capture as current_tools;
use serde_json::Value;

const PREVIOUS_RELEASE: &str = "releases/0.2.0.tools.json";

fn release(name: &str) -> mcp_bindgen_codegen::model::Capture {
    capture::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .expect("the release capture reads")
}

fn against_previous_release(now: &Value) -> (Report, String) {
    let old = release(PREVIOUS_RELEASE);
    let text = serde_json::to_string_pretty(now).expect("json");
    let new = capture::parse(Path::new("tecs (this build)"), text).expect("the capture reads");
    let report = diff::diff(&old, &new, &Options::default());
    let text = Format::Text.render(&report, PREVIOUS_RELEASE, "this build");
    (report, text)
}

/// 0.2.0 broke two things on paper, and this pins exactly what: the derive's schemas now state
/// a `u32` argument's upper bound (`maximum: 4294967295`), which `query` and `get_logs` always
/// enforced (serde refused a larger `limit`), so no call that worked stops working. The other
/// changes are a new tool and output bounds, which clients read and do not send.
#[test]
fn the_0_2_0_release_broke_what_it_says() {
    let report = diff::diff(
        &release("releases/0.1.0.tools.json"),
        &release("releases/0.2.0.tools.json"),
        &Options::default(),
    );
    let text = Format::Text.render(
        &report,
        "releases/0.1.0.tools.json",
        "releases/0.2.0.tools.json",
    );
    for tool in ["query", "get_logs"] {
        assert!(
            text.contains(&format!(
                "{tool}\n  breaking  /inputSchema/properties/limit/maximum: maximum none -> <= 4294967295  [input-maximum-narrowed]"
            )),
            "{text}"
        );
    }
    assert!(
        text.contains("run_frames\n  info      new tool  [tool-added]"),
        "{text}"
    );
    assert!(text.contains(": 2 breaking, 0 warnings,"), "{text}");
}

#[test]
fn nothing_breaks_since_the_previous_release() {
    let (report, text) = against_previous_release(&current_tools());
    assert!(!report.breaks(Severity::Breaking), "{text}");
}

/// The check fails on what would break a client: here `query` made to require its optional
/// `limit` argument.
#[test]
fn the_check_catches_a_breaking_change() {
    let mut now = current_tools();
    let tools = now["tools"].as_array_mut().expect("tools");
    let query = tools
        .iter_mut()
        .find(|t| t["name"] == "query")
        .expect("the game has a query tool");
    let schema = &mut query["inputSchema"];
    assert!(
        schema["properties"].get("limit").is_some(),
        "query takes `limit`: {schema}"
    );
    let mut required = schema["required"].as_array().cloned().unwrap_or_default();
    required.push("limit".into());
    schema["required"] = Value::Array(required);
    let (report, text) = against_previous_release(&now);
    assert!(report.breaks(Severity::Breaking), "{text}");
    assert!(
        text.contains(
            "query\n  breaking  /inputSchema/properties/limit: argument `limit` became required"
        ),
        "{text}"
    );
}
