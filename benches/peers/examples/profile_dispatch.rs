//! A driver for `perf record`: one of the three dispatch paths of the `dispatch_tools_call`
//! benchmark in a loop, and decode stages of the client path.
//!
//! `cargo build --release --example profile_dispatch`, then
//! `perf record -g target-peers/release/examples/profile_dispatch MODE [N]`, MODE one of
//! ours, ours_modern, ours_trivial_schema, validate, validate_interpreted, floor (the `Value`
//! path), floor_typed, floor_typed_modern, rmcp, clone, decode, decode_owned, and the two ways to get a call's
//! arguments both checked and into the tool's struct: args_from_value, args_from_raw, and
//! args_tree (what `dispatch` does since `JsonTree`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use mcp_bindgen::server::{Handler, McpTool, Registry, ToolError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use mcp_bindgen_peer_benches::{MODERN_REQUEST, REQUEST, floors};

struct Game;

/// Add two numbers.
#[derive(McpTool, Deserialize, schemars::JsonSchema)]
#[mcp(read_only)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

impl Handler<Game> for Add {
    type Output = Sum;
    fn call(self, _: &mut Game) -> Result<Sum, ToolError> {
        Ok(Sum {
            sum: self.a + self.b,
        })
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct RmcpAdd {
    tool_router: Arc<ToolRouter<RmcpAdd>>,
}

#[tool_router]
impl RmcpAdd {
    /// Add two numbers.
    #[tool(annotations(read_only_hint = true))]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for RmcpAdd {}

const ARGUMENTS: &str = r#"{"a":1,"b":2}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ours".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let start = Instant::now();
    match mode.as_str() {
        "ours" => {
            let mut registry = Registry::new("bench", "0");
            registry.register::<Add>();
            for _ in 0..n {
                black_box(registry.dispatch(&mut Game, black_box(REQUEST)));
            }
        }
        // Argument validation alone: the compiled check `dispatch` does before the handler
        // (the registry compiles each input schema once, at `register`).
        "validate" => {
            let schema = Value::Object(mcp_bindgen::server::input_schema::<Add>());
            let compiled = mcp_bindgen::__private::CompiledSchema::new(&schema);
            let arguments = json!({"a": 1, "b": 2});
            for _ in 0..n {
                black_box(compiled.validate(black_box(&arguments))).expect("valid");
            }
        }
        // The interpreter the compiled form is tested against, for comparison.
        "validate_interpreted" => {
            let schema = Value::Object(mcp_bindgen::server::input_schema::<Add>());
            let arguments = json!({"a": 1, "b": 2});
            for _ in 0..n {
                black_box(mcp_bindgen::__private::validate_value(
                    black_box(&schema),
                    black_box(&arguments),
                ))
                .expect("valid");
            }
        }
        // `dispatch` with a trivial input schema (`{"type": "object"}`): what the call costs
        // when checking the arguments is (nearly) free; serde still checks their types.
        "ours_trivial_schema" => {
            let mut registry = Registry::new("bench", "0");
            let mut schema = serde_json::Map::new();
            schema.insert("type".into(), json!("object"));
            registry.register_fn(
                mcp_bindgen::server::ToolDefinition::new("add", schema),
                |_: &mut Game, arguments| {
                    let Add { a, b } = serde_json::from_value(Value::Object(arguments))
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    Ok(json!({ "sum": a + b }))
                },
            );
            for _ in 0..n {
                black_box(registry.dispatch(&mut Game, black_box(REQUEST)));
            }
        }
        "ours_modern" => {
            let mut registry = Registry::new("bench", "0");
            registry.register::<Add>();
            for _ in 0..n {
                black_box(registry.dispatch(&mut Game, black_box(MODERN_REQUEST)));
            }
        }
        // The compiled check reads a `Value`. Two ways to have the arguments both checked and
        // in the tool's struct: parse them into a `Value`, check it, move it into the struct
        // (what `dispatch` does) ...
        "args_from_value" => {
            let schema = Value::Object(mcp_bindgen::server::input_schema::<Add>());
            let compiled = mcp_bindgen::__private::CompiledSchema::new(&schema);
            for _ in 0..n {
                let arguments: Value = serde_json::from_str(black_box(ARGUMENTS)).expect("json");
                compiled.validate(&arguments).expect("valid");
                let add: Add = serde_json::from_value(arguments).expect("fits");
                black_box(add.a + add.b);
            }
        }
        // ... or keep the raw text (owned, as a request crossing to the game thread is), parse
        // a `Value` to check, and deserialize the struct from the text.
        "args_from_raw" => {
            let schema = Value::Object(mcp_bindgen::server::input_schema::<Add>());
            let compiled = mcp_bindgen::__private::CompiledSchema::new(&schema);
            for _ in 0..n {
                let raw: &serde_json::value::RawValue =
                    serde_json::from_str(black_box(ARGUMENTS)).expect("json");
                let raw: Box<serde_json::value::RawValue> = raw.to_owned();
                let arguments: Value = serde_json::from_str(raw.get()).expect("json");
                compiled.validate(&arguments).expect("valid");
                drop(arguments);
                let add: Add = serde_json::from_str(raw.get()).expect("fits");
                black_box(add.a + add.b);
            }
        }
        // ... or (what `dispatch` does now) parse them into a `JsonTree`, check the tree, and
        // deserialize the struct from it in place.
        "args_tree" => {
            let schema = Value::Object(mcp_bindgen::server::input_schema::<Add>());
            let compiled = mcp_bindgen::__private::CompiledSchema::new(&schema);
            for _ in 0..n {
                let arguments = mcp_bindgen::__private::JsonTree::parse(black_box(ARGUMENTS)).expect("json");
                compiled.validate_tree(&arguments).expect("valid");
                let add: Add = arguments.deserialize().expect("fits");
                black_box(add.a + add.b);
            }
        }
        "floor_typed" => {
            for _ in 0..n {
                black_box(floors::typed(black_box(REQUEST)));
            }
        }
        "floor_typed_modern" => {
            for _ in 0..n {
                black_box(floors::typed_modern(black_box(MODERN_REQUEST)));
            }
        }
        "floor" => {
            for _ in 0..n {
                black_box(floors::value(black_box(REQUEST)));
            }
        }
        "rmcp" => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async {
                let (ours, theirs) = tokio::io::duplex(64 * 1024);
                tokio::spawn(async move {
                    let handler = RmcpAdd {
                        tool_router: Arc::new(RmcpAdd::tool_router()),
                    };
                    let running = handler
                        .serve(tokio::io::split(theirs))
                        .await
                        .expect("serves");
                    let _ = running.waiting().await;
                });
                let (reader, mut writer) = tokio::io::split(ours);
                let mut reader = BufReader::new(reader);
                let mut line = String::new();
                writer
                    .write_all(format!("{INITIALIZE}\n").as_bytes())
                    .await
                    .expect("write");
                reader.read_line(&mut line).await.expect("read");
                writer
                    .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
                    .await
                    .expect("write");
                for _ in 0..n {
                    writer.write_all(REQUEST.as_bytes()).await.expect("write");
                    writer.write_all(b"\n").await.expect("write");
                    line.clear();
                    reader.read_line(&mut line).await.expect("read");
                }
                assert!(line.contains(r#""structuredContent":{"sum":3}"#), "{line}");
            });
        }
        // Stages of the generated client's decode of a large structuredContent.
        "clone" | "decode" | "decode_owned" => {
            let players: Vec<Value> = (0..200)
                .map(|i| json!({"x": i % 64, "y": i % 40, "floor": i % 2, "id": format!("p-{i}"), "name": format!("P{i}"), "text": "hi", "textRevision": i, "settled": true}))
                .collect();
            let value = json!({"players": players});
            #[derive(Deserialize)]
            #[allow(dead_code)]
            struct Player {
                x: i64,
                y: i64,
                floor: i64,
                id: String,
                name: String,
                text: String,
                #[serde(rename = "textRevision")]
                text_revision: f64,
                settled: bool,
            }
            #[derive(Deserialize)]
            #[allow(dead_code)]
            struct Obs {
                players: Vec<Player>,
            }
            for _ in 0..n {
                match mode.as_str() {
                    "clone" => drop(black_box(value.clone())),
                    "decode" => {
                        let v = black_box(&value).clone();
                        black_box(Obs::deserialize(&v).expect("decodes"));
                    }
                    _ => {
                        let v = black_box(&value).clone();
                        black_box(Obs::deserialize(v).expect("decodes"));
                    }
                }
            }
        }
        other => panic!("unknown mode {other}"),
    }
    let elapsed = start.elapsed();
    println!(
        "{mode}: {n} iterations, {:.3} µs each",
        elapsed.as_secs_f64() * 1e6 / n as f64
    );
}
