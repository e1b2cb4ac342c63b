mcp_bindgen_include::include_tools!(module = "clock");

fn main() {}
