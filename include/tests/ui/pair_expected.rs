mcp_bindgen_include::include_tools!("tools/time.tools.json", rename = "now");

fn main() {}
