//! Bad input gets a located, clear error and never a panic. The messages are snapshots.

use std::path::Path;

use expect_test::{Expect, expect};
use mcp_bindgen_codegen::{Error, Generator, ServerConfig, capture};

fn read(text: &str) -> Result<mcp_bindgen_codegen::model::Capture, Error> {
    capture::parse(Path::new("captures/x.tools.json"), text.to_owned())
}

fn check_error(text: &str, expected: Expect) {
    let err = read(text).expect_err("must fail");
    expected.assert_eq(&err.to_string());
}

#[test]
fn not_json() {
    check_error(
        "{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}\n",
        expect![[r#"
            captures/x.tools.json:3:18: not valid JSON: trailing comma
              |
            3 |     {"name": "a",}
              |                  ^
              = help: a capture is the JSON of a tools/list result ({"tools": [...]}), a JSON-RPC response holding one, or an array of such pages; `mcp-bindgen capture` writes one"#]],
    );
}

#[test]
fn wrong_shape_names_the_pointer_and_line() {
    check_error(
        "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {}},\n    {\"name\": \"b\", \"inputSchema\": \"none\"}\n  ]\n}\n",
        expect![[r#"
            captures/x.tools.json:4:19 (at /tools/1/inputSchema): inputSchema of tool `b` must be a JSON Schema object, found a string
              |
            4 |     {"name": "b", "inputSchema": "none"}
              |                   ^
              = help: a tool without arguments has {"type": "object"}"#]],
    );
    check_error(
        r#"{"tools": {"name": "a"}}"#,
        expect![[r#"
            captures/x.tools.json:1:2 (at /tools): expected an array of tools, found an object
              |
            1 | {"tools": {"name": "a"}}
              |  ^
              = help: a capture is the JSON of a tools/list result ({"tools": [...]}), a JSON-RPC response holding one, or an array of such pages; `mcp-bindgen capture` writes one"#]],
    );
    check_error(
        r#"{"tools": [{"inputSchema": {}}]}"#,
        expect![[r#"
            captures/x.tools.json:1:12 (at /tools/0): missing "name"
              |
            1 | {"tools": [{"inputSchema": {}}]}
              |            ^
              = help: every tool needs a name"#]],
    );
    check_error(
        r#"{"resources": []}"#,
        expect![[r#"
            captures/x.tools.json:1:1 (at /): no tools/list result found in the capture
              |
            1 | {"resources": []}
              | ^
              = help: a capture is the JSON of a tools/list result ({"tools": [...]}), a JSON-RPC response holding one, or an array of such pages; `mcp-bindgen capture` writes one"#]],
    );
}

#[test]
fn prompts_and_resources_are_checked_with_their_pointers() {
    check_error(
        r#"{"tools": [], "prompts": [{"description": "no name"}]}"#,
        expect![[r#"
            captures/x.tools.json:1:27 (at /prompts/0): missing "name"
              |
            1 | {"tools": [], "prompts": [{"description": "no name"}]}
              |                           ^
              = help: every entry needs a name"#]],
    );
    check_error(
        r#"{"tools": [], "resources": [{"name": "level"}]}"#,
        expect![[r#"
            captures/x.tools.json:1:29 (at /resources/0): missing "uri"
              |
            1 | {"tools": [], "resources": [{"name": "level"}]}
              |                             ^
              = help: a resource needs its uri"#]],
    );
    check_error(
        r#"{"tools": [], "resourceTemplates": [{"name": "entity", "uriTemplate": 7}]}"#,
        expect![[r#"
            captures/x.tools.json:1:56 (at /resourceTemplates/0/uriTemplate): expected "uriTemplate" to be a string, found a number
              |
            1 | {"tools": [], "resourceTemplates": [{"name": "entity", "uriTemplate": 7}]}
              |                                                        ^
              = help: a resource template needs its uriTemplate (RFC 6570)"#]],
    );
    check_error(
        r#"{"tools": [], "prompts": [{"name": "p", "arguments": [{"name": "a", "required": "yes"}]}]}"#,
        expect![[r#"
            captures/x.tools.json:1:69 (at /prompts/0/arguments/0/required): expected "required" to be true or false, found a string
              |
            1 | {"tools": [], "prompts": [{"name": "p", "arguments": [{"name": "a", "required": "yes"}]}]}
              |                                                                     ^
              = help: an argument's "required" is a boolean (absent: optional)"#]],
    );
}

#[test]
fn json_rpc_error_response() {
    check_error(
        r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}"#,
        expect![[r#"
            captures/x.tools.json:1:29 (at /error): the capture holds a JSON-RPC error response: Method not found
              |
            1 | {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
              |                             ^
              = help: capture the server again; this response has no tools"#]],
    );
}

#[test]
fn duplicate_tool_names() {
    check_error(
        "{\"tools\": [\n {\"name\": \"a\", \"inputSchema\": {}},\n {\"name\": \"a\", \"inputSchema\": {}}\n]}",
        expect![[r#"
            captures/x.tools.json:3:2 (at /tools/1): two tools are named `a`: /tools/0 and /tools/1
              |
            3 |  {"name": "a", "inputSchema": {}}
              |  ^
              = help: tool names are unique within a server (MCP spec); fix the capture, or capture the server again"#]],
    );
}

#[test]
fn method_name_collision_names_both_and_the_rename() {
    let capture = read(
        "{\"tools\": [\n {\"name\": \"getUser\", \"inputSchema\": {}},\n {\"name\": \"get_user\", \"inputSchema\": {}}\n]}",
    )
    .expect("a valid capture");
    let config = ServerConfig::new("users", "captures/x.tools.json");
    let err = Generator::new()
        .generate_capture(&config, &capture)
        .expect_err("collision");
    expect![[r#"
        captures/x.tools.json:3:2 (at /tools/1): tools `getUser` (/tools/0) and `get_user` (/tools/1) both become the method `get_user`
          |
        3 |  {"name": "get_user", "inputSchema": {}}
          |  ^
          = help: rename one: in bindings.toml, [servers.users.rename] "get_user" = "another_name"; in build.rs, ServerConfig::with_rename"#]]
    .assert_eq(&err.to_string());
    // ... and the rename resolves it.
    let config = config.with_rename("getUser", "get_user_by_id");
    let module = Generator::new()
        .generate_capture(&config, &capture)
        .expect("renamed");
    let text = module.code();
    assert!(text.contains("pub async fn get_user_by_id("), "{text}");
    assert!(text.contains("pub async fn get_user("), "{text}");
}

#[test]
fn raw_variant_collision() {
    let capture = read(r#"{"tools": [{"name": "fetch", "inputSchema": {}}, {"name": "fetch_raw", "inputSchema": {}}]}"#)
        .expect("valid");
    let err = Generator::new()
        .generate_capture(&ServerConfig::new("m", "captures/x.tools.json"), &capture)
        .expect_err("fetch_raw collides with the raw variant of fetch");
    assert!(
        err.to_string()
            .contains("both become the method `fetch_raw`"),
        "{err}"
    );
}

#[test]
fn task_variant_collision_only_for_a_tool_that_runs_as_a_task() {
    let tools = |support: &str| {
        format!(
            r#"{{"tools": [{{"name": "bake", "inputSchema": {{}}, "execution": {{"taskSupport": "{support}"}}}}, {{"name": "bake_task", "inputSchema": {{}}}}]}}"#
        )
    };
    let config = ServerConfig::new("m", "captures/x.tools.json");
    for support in ["optional", "required"] {
        let capture = read(&tools(support)).expect("valid");
        let err = Generator::new()
            .generate_capture(&config, &capture)
            .expect_err("bake_task collides with the task method of bake");
        assert!(
            err.to_string()
                .contains("both become the method `bake_task`"),
            "{support}: {err}"
        );
    }
    // A tool that does not run as a task has no `_task` method to collide with.
    let capture = read(&tools("forbidden")).expect("valid");
    let module = Generator::new()
        .generate_capture(&config, &capture)
        .expect("no collision");
    let text = module.code();
    assert!(text.contains("pub async fn bake_task("), "{text}");
    assert!(!text.contains("TaskHandle"), "{text}");
}

#[test]
fn unknown_dialect_is_an_error() {
    let capture = read(
        "{\"tools\": [{\"name\": \"a\", \"inputSchema\": {\n  \"$schema\": \"https://example.com/my-dialect\", \"type\": \"object\"}}]}",
    )
    .expect("valid capture");
    let err = Generator::new()
        .generate_capture(&ServerConfig::new("m", "captures/x.tools.json"), &capture)
        .expect_err("unknown dialect");
    expect![[r#"
        captures/x.tools.json:2:3 (at /tools/0/inputSchema/$schema): unsupported JSON Schema dialect "https://example.com/my-dialect"
          |
        2 |   "$schema": "https://example.com/my-dialect", "type": "object"}}]}
          |   ^
          = help: MCP schemas are JSON Schema 2020-12 unless they say otherwise; draft-04, -06, -07 and 2019-09 are also read. Remove "$schema" or name one of those"#]]
    .assert_eq(&err.to_string());
}

/// A `type` that names no JSON Schema type is an error at the typo, with the likely name.
#[test]
fn an_unknown_type_name_is_an_error_at_the_typo() {
    let capture = read(
        "{\"tools\": [{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\",\n  \"properties\": {\"items\": {\"type\": \"array\", \"items\": {\"type\": \"integr\"}}}}}]}",
    )
    .expect("valid capture");
    let err = Generator::new()
        .generate_capture(&ServerConfig::new("m", "captures/x.tools.json"), &capture)
        .expect_err("unknown type");
    expect![[r#"
        captures/x.tools.json:2:55 (at /tools/0/inputSchema/properties/items/items/type): unknown type "integr"
          |
        2 |   "properties": {"items": {"type": "array", "items": {"type": "integr"}}}}}]}
          |                                                       ^
          = help: JSON Schema's types are null, boolean, object, array, number, string and integer: did you mean "integer"?"#]].assert_eq(&err.to_string());
    // A name far from every type (draft-03's "any", Gemini's "STRING") is what some servers
    // send: not an error at all; that tool's argument degrades with a warning.
    for name in ["any", "STRING"] {
        let capture = read(&format!(
            r#"{{"tools": [{{"name": "a", "inputSchema": {{"type": "object", "properties": {{"n": {{"type": ["string", "{name}"]}}}}}}}}]}}"#
        ))
        .expect("valid capture");
        let module = Generator::new()
            .generate_capture(&ServerConfig::new("m", "captures/x.tools.json"), &capture);
        assert!(module.is_ok(), "{name}: {:?}", module.err());
    }
}

#[test]
fn rename_of_an_unknown_tool() {
    let capture = read(r#"{"tools": [{"name": "a", "inputSchema": {}}]}"#).expect("valid");
    let config = ServerConfig::new("m", "captures/x.tools.json").with_rename("b", "bee");
    let err = Generator::new()
        .generate_capture(&config, &capture)
        .expect_err("no tool b");
    assert!(
        err.to_string()
            .contains("a rename is configured for tool `b`"),
        "{err}"
    );
}

/// Every accepted capture shape: a result, a JSON-RPC response, pages with an initialize
/// response, from 2024-11-05 (no annotations) to 2026-07-28 (extra result fields).
#[test]
fn accepted_shapes() {
    let result = read(
        r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": null}"#,
    )
    .expect("a result");
    assert_eq!(result.tools.len(), 1);
    let response = read(r#"{"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": true}}]}}"#)
        .expect("a response");
    assert_eq!(response.tools[0].annotations.read_only, Some(true));
    let pages = read(
        r#"[
        {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2026-07-28", "serverInfo": {"name": "s", "version": "1.2"}, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a", "inputSchema": {}}], "nextCursor": "p2", "ttlMs": 1000, "cacheScope": "public", "resultType": "complete"}},
        {"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b", "title": "Bee", "inputSchema": {}, "outputSchema": {"type": "object"}, "icons": [], "_meta": {"k": 1}}]}}
    ]"#,
    )
    .expect("pages");
    assert_eq!(pages.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(pages.server.as_ref().map(|s| s.name.as_str()), Some("s"));
    let names: Vec<&str> = pages.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let b = &pages.tools[1];
    assert_eq!(b.title.as_deref(), Some("Bee"));
    assert!(b.output_schema.is_some());
    assert_eq!(b.meta, Some(serde_json::json!({"k": 1})));
    assert_eq!(
        b.raw["icons"],
        serde_json::json!([]),
        "unknown fields are kept"
    );
}

/// No input makes the generator panic: a sweep of odd schemas at every position.
#[test]
fn odd_schemas_never_panic() {
    let odd = [
        r#"true"#,
        r#"false"#,
        r#"{"type": "string"}"#,
        r#"{"type": "object", "properties": {"a": 3}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "wat"}}}"#,
        r#"{"type": "object", "properties": {"a": {"enum": []}}}"#,
        r#"{"type": "object", "properties": {"a": {"$ref": 5}}}"#,
        r##"{"type": "object", "properties": {"a": {"$ref": "#anchor"}}}"##,
        r#"{"type": "object", "required": ["missing"], "properties": {}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}"#,
        r#"{"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}"#,
        r#"{"type": "object", "properties": {"a": {"anyOf": []}}}"#,
        r#"{"type": "object", "properties": {"a": {"items": [true, false]}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "integer", "minimum": 1e300, "maximum": 18446744073709551616}}}"#,
    ];
    let mut generated = 0;
    for schema in odd {
        let text = format!(
            r#"{{"tools": [{{"name": "a", "inputSchema": {schema}, "outputSchema": {{"type": "object", "properties": {{"r": {schema}}}}}}}]}}"#
        );
        let Ok(capture) = read(&text) else { continue };
        let outcome =
            Generator::new().generate_capture(&ServerConfig::new("m", "x.json"), &capture);
        if let Ok(module) = outcome {
            // Whatever came out must be valid Rust: the text written to disk parses back as a
            // Rust file, and it still has the tool's method.
            let code = module.to_module_file("test");
            if let Err(e) = syn::parse_file(&code) {
                panic!("{schema}: not valid Rust: {e}\n{code}");
            }
            assert!(
                code.contains("pub async fn a("),
                "{schema}: no method\n{code}"
            );
            generated += 1;
        }
    }
    // Most odd schemas degrade to a module (a `Value` and a warning) rather than an error.
    assert!(generated >= odd.len() / 2, "only {generated} generated");
}

/// A capture that is not there is an `Error::Io` naming the path as given, with the OS error
/// as its source; so is a missing contract.
#[test]
fn a_missing_input_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let generator = Generator::new().with_base(dir.path());
    let err = generator
        .generate(&ServerConfig::new("m", "captures/absent.tools.json"))
        .expect_err("no capture");
    let Error::Io { path, source } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(path, Path::new("captures/absent.tools.json"));
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(
        err.to_string().starts_with("captures/absent.tools.json: "),
        "{err}"
    );
    // Where it looked (relative to the base: the crate's directory in build.rs), and what to
    // do.
    let looked = dir.path().join("captures/absent.tools.json");
    assert!(
        err.to_string()
            .contains(&format!("looked for {}", looked.display()))
            && err
                .to_string()
                .contains(&format!("(relative to {})", dir.path().display()))
            && err
                .to_string()
                .contains("help: capture the server's tools there"),
        "{err}"
    );
    assert!(err.diagnostic().is_none());
    let err = generator
        .generate(&ServerConfig::contracts_only("c").with_contract("absent.d.ts"))
        .expect_err("no contract");
    assert!(
        matches!(&err, Error::Io { path, .. } if path == Path::new("absent.d.ts")),
        "{err:?}"
    );
}

/// An output that cannot be written is an `Error::Io` naming the file it tried to write.
#[test]
fn an_unwritable_output_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture = dir.path().join("a.tools.json");
    std::fs::write(
        &capture,
        r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#,
    )
    .expect("write");
    // The output directory is a file: nothing can be written under it.
    let blocker = dir.path().join("out");
    std::fs::write(&blocker, "a file, not a directory").expect("write");
    let err = mcp_bindgen_codegen::Builder::new()
        .server(ServerConfig::new("m", &capture))
        .out_dir(&blocker)
        .emit_cargo_directives(false)
        .generate()
        .expect_err("cannot write under a file");
    let Error::Io { path, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(path, &blocker.join("m.rs"));
    assert!(
        err.to_string()
            .starts_with(&format!("{}: ", blocker.join("m.rs").display())),
        "{err}"
    );
    // The same module to a writable directory works: it was the output that failed.
    let written = mcp_bindgen_codegen::Builder::new()
        .server(ServerConfig::new("m", &capture))
        .out_dir(dir.path())
        .emit_cargo_directives(false)
        .generate()
        .expect("writes");
    assert_eq!(written, [dir.path().join("m.rs")]);
}
