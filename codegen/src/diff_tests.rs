use super::*;

/// The tools' JSON `PROVENANCE` gives back, read from `module`'s source.
fn read(module: &str) -> Result<serde_json::Value, String> {
    let file = syn::parse_file(module).map_err(|e| e.to_string())?;
    let recorded = provenance(&file.items).ok_or("no PROVENANCE")?;
    let tools = recorded.tools()?;
    serde_json::from_str(&tools).map_err(|e| e.to_string())
}

const ECHO: &str = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;

/// A module as the generator writes it now: the definitions without their input schemas, and
/// the schemas statics they refer to, put back by name whatever the JSON's order.
#[test]
fn schemas_kept_beside_the_definitions_are_put_back_into_each_tool() {
    let module = format!(
        r##"
        mod schemas {{
            use mcp_bindgen::ToolSchema;
            pub(super) static ECHO: ToolSchema = ToolSchema::new(r#"{ECHO}"#);
            pub(super) static AB: ToolSchema = ToolSchema::new(r#"{{"type":"object"}}"#);
        }}
        pub const TOOL_NAMES: &[&str] = &["echo", "ab"];
        pub static PROVENANCE: Provenance = Provenance::with_catalog(
            Provenance::with_input_schemas(
                Provenance::new("g", "sha256:0", TOOL_NAMES, r#"[{{"name":"ab"}},{{"name":"echo"}}]"#),
                &[&schemas::ECHO, &schemas::AB],
            ),
            "sha256:1",
            r#"{{"prompts":[]}}"#,
        );
        "##
    );
    let tools = read(&module).expect("reads");
    assert_eq!(tools[0]["name"], "ab");
    assert_eq!(
        tools[0]["inputSchema"],
        serde_json::json!({"type": "object"})
    );
    assert_eq!(
        tools[1]["inputSchema"],
        serde_json::from_str::<serde_json::Value>(ECHO).expect("json")
    );
    // The method-call spelling reads the same.
    let (statics, _) = module.split_once("pub static").expect("split");
    let chained = format!(
        r##"{statics}
        pub static PROVENANCE: Provenance =
            Provenance::new("g", "sha256:0", TOOL_NAMES, r#"[{{"name":"ab"}},{{"name":"echo"}}]"#)
                .with_input_schemas(&[&schemas::ECHO, &schemas::AB])
                .with_catalog("sha256:1", r#"{{"prompts":[]}}"#);
        "##
    );
    assert_eq!(read(&chained).expect("reads"), tools);
}

/// A module written before the schemas were kept apart holds them in its definitions.
#[test]
fn a_module_whose_definitions_hold_their_schemas_still_reads() {
    let module = format!(
        r##"
        pub const TOOL_NAMES: &[&str] = &["echo"];
        pub static PROVENANCE: Provenance =
            Provenance::new("g", "sha256:0", TOOL_NAMES, r#"[{{"name":"echo","inputSchema":{ECHO}}}]"#);
        "##
    );
    let tools = read(&module).expect("reads");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["text"]["type"],
        "string"
    );
}

/// A schema list that does not fit the names, or names a static that is not there, is an
/// error that says so, not a module read without its schemas.
#[test]
fn a_schema_list_that_does_not_fit_is_refused_with_its_reason() {
    let module = r##"
        mod schemas {
            pub(super) static ECHO: ToolSchema = ToolSchema::new(r#"{}"#);
        }
        pub const TOOL_NAMES: &[&str] = &["echo"];
        pub static PROVENANCE: Provenance = Provenance::with_input_schemas(
            Provenance::new("g", "sha256:0", TOOL_NAMES, r#"[{"name":"echo"}]"#),
            &[&schemas::GONE],
        );
    "##;
    let error = read(module).expect_err("refused");
    assert!(error.contains("no static `schemas::GONE`"), "{error}");
    let two = module.replace("&[&schemas::GONE]", "&[&schemas::ECHO, &schemas::ECHO]");
    let error = read(&two).expect_err("refused");
    assert!(
        error.contains("2 input schemas for 1 tool names"),
        "{error}"
    );
}

/// `diff --against-module` on such a module: the error names the file and says what to do.
#[test]
fn read_module_names_the_file_whose_provenance_cannot_be_read_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("client.rs");
    std::fs::write(
        &path,
        r##"
        pub const TOOL_NAMES: &[&str] = &["echo"];
        pub static PROVENANCE: Provenance = Provenance::with_input_schemas(
            Provenance::new("g", "sha256:0", TOOL_NAMES, r#"[{"name":"echo"}]"#),
            &[&schemas::ECHO],
        );
        "##,
    )
    .expect("write");
    let error = read_module(&path).expect_err("refused").to_string();
    assert!(error.contains(&path.display().to_string()), "{error}");
    assert!(error.contains("cannot be read back"), "{error}");
    assert!(error.contains("no static `schemas::ECHO`"), "{error}");
    assert!(error.contains("regenerate the module"), "{error}");
}
