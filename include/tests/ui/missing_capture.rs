mcp_bindgen_include::include_tools!("tools/nowhere.tools.json");

fn main() {}
