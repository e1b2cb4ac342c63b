//! How a generated module records the tools it was made from: their definitions without the
//! input schemas, which the module keeps once beside them (its `schemas` statics, checked
//! before each call), and put back wherever the definitions are read whole (the client's drift
//! check, typed fakes, `diff --against-module`).
//!
//! ```
//! use mcp_bindgen_core::recorded;
//! use serde_json::json;
//!
//! let tools = [json!({"name": "echo", "inputSchema": {"type": "object"}})];
//! let mut kept = recorded::without_input_schemas(&tools);
//! assert_eq!(kept, [json!({"name": "echo"})]);
//! recorded::put_back_input_schemas(&mut kept, |name| {
//!     Ok::<_, ()>((name == "echo").then(|| json!({"type": "object"})))
//! })
//! .unwrap();
//! assert_eq!(kept, tools);
//! ```

use serde_json::Value;

/// `tools` without their `inputSchema`s.
pub fn without_input_schemas<'a>(tools: impl IntoIterator<Item = &'a Value>) -> Vec<Value> {
    tools
        .into_iter()
        .map(|tool| {
            let mut tool = tool.clone();
            if let Some(object) = tool.as_object_mut() {
                object.remove("inputSchema");
            }
            tool
        })
        .collect()
}

/// Puts each tool's input schema back: `schema_of(name)` gives it, or `None` to leave the tool
/// as it is; its first error ends the walk. Tools that are not objects with a string `name`
/// are left as they are.
pub fn put_back_input_schemas<E>(
    tools: &mut [Value],
    mut schema_of: impl FnMut(&str) -> Result<Option<Value>, E>,
) -> Result<(), E> {
    for tool in tools {
        let Some(object) = tool.as_object_mut() else {
            continue;
        };
        let Some(name) = object.get("name").and_then(Value::as_str) else {
            continue;
        };
        if let Some(schema) = schema_of(name)? {
            object.insert("inputSchema".to_owned(), schema);
        }
    }
    Ok(())
}
