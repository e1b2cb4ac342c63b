mcp_bindgen_include::include_tools!("tools/time.tools.json", modul = "clock");

fn main() {}
