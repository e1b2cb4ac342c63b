fn main() {
    let server = mcp_bindgen_codegen::ServerConfig::new("everything", "everything.tools.json");
    if let Err(e) = mcp_bindgen_codegen::Builder::new()
        .server(server)
        .generate()
    {
        eprintln!("error: {e}"); // file:line:column, the offending line, and what to do
        std::process::exit(1);
    }
}
