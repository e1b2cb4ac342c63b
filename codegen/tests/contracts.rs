//! Agent contracts that cannot be mapped are located errors (file:line:column, the line, what
//! to do), never a panic; members that cannot be mapped are `serde_json::Value` with a located
//! warning. The messages are snapshots.

use std::path::Path;

use expect_test::{Expect, expect};
use mcp_bindgen_codegen::{Generator, Module, ServerConfig};

/// Generates module `m` from `files` (name, text) written to a temporary directory.
fn generate(files: &[(&str, &str)], config: ServerConfig) -> Result<Module, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = config;
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
        config = config.with_contract(name);
    }
    let capture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/captures/scape.tools.json");
    if config.capture.is_some() {
        std::fs::copy(capture, dir.path().join("scape.tools.json")).expect("copy capture");
    }
    Generator::new()
        .with_base(dir.path())
        .generate(&config)
        .map_err(|e| e.to_string())
}

fn check_error(text: &str, expected: Expect) {
    let err =
        generate(&[("x.d.ts", text)], ServerConfig::contracts_only("x")).expect_err("must fail");
    expected.assert_eq(&err);
}

/// A declaration with no JSON form is left out alone: the file generates, with a located
/// warning (`warning`); naming the declaration as a result type is the error (`error`).
fn check_left_out(text: &str, name: &str, warning: Expect, error: Expect) {
    let module = generate(&[("x.d.ts", text)], ServerConfig::contracts_only("x"))
        .expect("the rest of the file generates");
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    warning.assert_eq(&warnings.join("\n"));
    let err = generate(
        &[("x.d.ts", text)],
        ServerConfig::new("scape", "scape.tools.json").with_result("scape_observe", name),
    )
    .expect_err("a result type must be typed");
    error.assert_eq(&err);
}

#[test]
fn syntax_error() {
    check_error(
        "export interface A {\n    x: ;\n}\n",
        expect![[r#"
            x.d.ts:2:8: not valid TypeScript: Unexpected token
              |
            2 |     x: ;
              |        ^
              = help: a contract file holds TypeScript declarations (.d.ts): interfaces, type aliases, `declare const`"#]],
    );
}

#[test]
fn keyof_without_known_keys() {
    check_left_out(
        "export interface A {\n    x: number;\n}\nexport type Keys = keyof Window;\n",
        "Keys",
        expect![
            "x.d.ts:4:20: `Keys` is left out: `keyof` needs an object type with known members: `Window` is not declared in the contract files; apply `keyof` to a declared interface or object type alias. Members that refer to it are serde_json::Value"
        ],
        expect![[r#"
            x.d.ts:4:20: the result type `Keys` has no Rust type: `keyof` needs an object type with known members: `Window` is not declared in the contract files
              |
            4 | export type Keys = keyof Window;
              |                    ^
              = help: apply `keyof` to a declared interface or object type alias"#]],
    );
}

#[test]
fn conditional_mapped_and_function_declarations() {
    check_left_out(
        "export interface A { x: number }\nexport type C = string extends number ? 1 : 2;\nexport interface B { c: C; a: A }\n",
        "C",
        expect![[r#"
            x.d.ts:2:17: `C` is left out: a conditional type has no JSON form that mcp-bindgen maps; declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override. Members that refer to it are serde_json::Value
            x.d.ts:3:25: `C` is left out (see the warning at its declaration); typed as serde_json::Value"#]],
        expect![[r#"
            x.d.ts:2:17: the result type `C` has no Rust type: a conditional type has no JSON form that mcp-bindgen maps
              |
            2 | export type C = string extends number ? 1 : 2;
              |                 ^
              = help: declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override"#]],
    );
    check_left_out(
        "export type M = { [K in 'a' | 'b']: number };\n",
        "M",
        expect![[
            r#"x.d.ts:1:17: `M` is left out: a mapped type has no JSON form that mcp-bindgen maps; declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override. Members that refer to it are serde_json::Value"#
        ]],
        expect![[r#"
            x.d.ts:1:17: the result type `M` has no Rust type: a mapped type has no JSON form that mcp-bindgen maps
              |
            1 | export type M = { [K in 'a' | 'b']: number };
              |                 ^
              = help: declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override"#]],
    );
    check_left_out(
        "/** A callback. */\nexport type Fn = (a: string) => void;\n",
        "Fn",
        expect![[
            r#"x.d.ts:2:18: `Fn` is left out: a function type has no JSON form that mcp-bindgen maps; declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override. Members that refer to it are serde_json::Value"#
        ]],
        expect![[r#"
            x.d.ts:2:18: the result type `Fn` has no Rust type: a function type has no JSON form that mcp-bindgen maps
              |
            2 | export type Fn = (a: string) => void;
              |                  ^
              = help: declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override"#]],
    );
}

#[test]
fn generic_without_default_needs_arguments() {
    check_left_out(
        "export interface Page<T> { items: T[] }\nexport interface Uses { page: Page }\n",
        "Uses",
        expect![
            "x.d.ts:2:31: `Uses` is left out: `Page` needs a type argument for `T`, which has no default; write `Page<..>` with every argument, or give `T` a default (`T = unknown`). Members that refer to it are serde_json::Value"
        ],
        expect![[r#"
            x.d.ts:2:31: the result type `Uses` has no Rust type: `Page` needs a type argument for `T`, which has no default
              |
            2 | export interface Uses { page: Page }
              |                               ^
              = help: write `Page<..>` with every argument, or give `T` a default (`T = unknown`)"#]],
    );
}

#[test]
fn duplicate_declarations() {
    check_error(
        "export type A = string;\nexport interface B { x: number }\nexport type A = number;\n",
        expect![[r#"
            x.d.ts:3:13: `A` is declared twice (first at x.d.ts:1:13)
              |
            3 | export type A = number;
              |             ^
              = help: rename one of the declarations"#]],
    );
}

/// Members two parts of an intersection declare with disjoint types are `never`: the
/// declaration is left out, and naming it is an error located at both parts.
#[test]
fn disjoint_intersection_members() {
    check_left_out(
        "export interface P { x: number }\nexport type Q = P & { x: string };\nexport interface R { q: Q[] }\n",
        "Q",
        expect![[r#"
            x.d.ts:2:23: `Q` is left out: `x` is in both parts of an intersection, with types that share no value (TypeScript makes it `never`) (the other part: x.d.ts:1:22); give the member types that overlap in both parts, or make it optional where it must be absent. Members that refer to it are serde_json::Value
            x.d.ts:3:25: `Q` is left out (see the warning at its declaration); typed as serde_json::Value"#]],
        expect![[r#"
            x.d.ts:2:23: the result type `Q` has no Rust type: `x` is in both parts of an intersection, with types that share no value (TypeScript makes it `never`) (the other part: x.d.ts:1:22)
              |
            2 | export type Q = P & { x: string };
              |                       ^
              = help: give the member types that overlap in both parts, or make it optional where it must be absent"#]],
    );
}

#[test]
fn an_override_rescues_an_unmappable_declaration() {
    let module = generate(
        &[(
            "x.d.ts",
            "export interface A { x: number }\nexport type Keys = keyof A;\n",
        )],
        ServerConfig::contracts_only("x").with_override("Keys", "'x'"),
    )
    .expect("generates");
    assert_eq!(module.warnings, []);
    assert!(module.types >= 2, "{module:?}");
}

#[test]
fn bad_settings_are_errors() {
    let contract = [(
        "x.d.ts",
        "export interface A { x: number; inner: { y: number } }\n",
    )];
    let err = |config: ServerConfig| generate(&contract, config).expect_err("must fail");
    expect![[r#"
        [overrides] "A.z": `A` has no member `z` written in its own object type
          = help: members that come from another type (`extends`, `A & { .. }`) are overridden on that type, e.g. "AgentPosition.x""#]]
    .assert_eq(&err(ServerConfig::contracts_only("x").with_override("A.z", "integer")));
    expect![[r#"
        [overrides] "A.inner.z": `A.inner` has no member `z` written in its own object type
          = help: members that come from another type (`extends`, `A & { .. }`) are overridden on that type, e.g. "AgentPosition.x""#]]
    .assert_eq(&err(ServerConfig::contracts_only("x").with_override("A.inner.z", "integer")));
    expect![[r#"
        [overrides] "B": the override names `B`, which no contract file declares
          = help: override a declared type or one of its members, e.g. "A.field""#]]
    .assert_eq(&err(
        ServerConfig::contracts_only("x").with_override("B", "integer")
    ));
    expect![[r#"
        [overrides] "A.x":1:5: not a TypeScript type: Unexpected token
          |
        1 | Foo<
          |     ^
          = help: write a TypeScript type: a declared name, `string`, `integer`, `u32`, `AgentPosition[]`, `'a' | 'b'`, ..."#]]
    .assert_eq(&err(ServerConfig::contracts_only("x").with_override("A.x", "Foo<")));
    let scape = || ServerConfig::new("scape", "scape.tools.json");
    expect![[r#"
        [results] scape_observe:1:1: `Missing` is not declared in the contract files
          |
        1 | Missing
          | ^
          = help: declare it in one of the server's contract files (imports are not followed), or override this type in the manifest"#]]
    .assert_eq(&err(scape().with_result("scape_observe", "Missing")));
    expect![[r#"
        scape.tools.json: a result type is configured for tool `nope`, which this capture does not list
          = help: remove `nope` from the `scape` server's results, or fix its name"#]]
    .assert_eq(&err(scape().with_result("nope", "A")));
    expect![[r#"
        scape.tools.json: variant names are configured for `Nope`, which is not a generated enum
          = help: name an enum type of the `scape` server (a contract enum or a union tagged by a boolean or number), as it appears in the generated `types` module"#]]
    .assert_eq(&err(scape().with_variant_name("Nope", "a", "A")));
    expect![[r#"
        [servers.empty]: nothing to generate: no capture and no contracts
          = help: give the server a capture (`capture = ".."`, --tools) or contract files (`contracts = [..]`, --contracts)"#]]
    .assert_eq(&generate(&[], ServerConfig::contracts_only("empty")).expect_err("empty"));
}

#[test]
fn a_contract_type_may_not_take_a_tool_type_name() {
    let err = generate(
        &[(
            "x.d.ts",
            "export interface ScapeObserveArgs { x: number }\n",
        )],
        ServerConfig::new("scape", "scape.tools.json"),
    )
    .expect_err("clash");
    expect![[r#"
        x.d.ts:1:18: the declaration `ScapeObserveArgs` would be the Rust type `ScapeObserveArgs`, which another declaration or a tool's argument type already is
          |
        1 | export interface ScapeObserveArgs { x: number }
          |                  ^
          = help: rename the declaration (Rust type names are the PascalCase of the TypeScript name)"#]]
    .assert_eq(&err);
}

/// Members that cannot be mapped degrade alone, with warnings that say where; nothing panics
/// on deep, odd or hostile input.
#[test]
fn members_degrade_with_located_warnings() {
    let module = generate(
        &[(
            "x.d.ts",
            "export interface A {\n    ok: string;\n    f: () => void;\n    t: `id-${string}`;\n    big: bigint;\n}\nexport class C { x: number }\n",
        )],
        ServerConfig::contracts_only("x"),
    )
    .expect("generates");
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    expect![[r#"
        x.d.ts:3:8: a function type has no JSON form that mcp-bindgen maps; typed as serde_json::Value (override it to choose a type)
        x.d.ts:4:8: a template literal type has no JSON form that mcp-bindgen maps; typed as serde_json::Value (override it to choose a type)
        x.d.ts:5:10: `bigint` (JSON has no bigint) has no JSON form that mcp-bindgen maps; typed as serde_json::Value (override it to choose a type)
        x.d.ts:7:8: a class declaration (declare its data as an interface to use it) describes no JSON data; no type is generated for it"#]]
    .assert_eq(&warnings.join("\n"));
    let deep = format!(
        "export type D = {}string{};\n",
        "Array<".repeat(100),
        ">".repeat(100)
    );
    let _ = generate(&[("x.d.ts", &deep)], ServerConfig::contracts_only("x"));
    let cyclic = "export interface A extends B {}\nexport interface B extends A {}\nexport type U = A & B;\nexport interface Ok { x: number }\n";
    let module =
        generate(&[("x.d.ts", cyclic)], ServerConfig::contracts_only("x")).expect("generates");
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings.iter().any(|w| w.contains("refers to itself")),
        "{warnings:?}"
    );
    assert!(
        module.to_module_file("test").contains("pub struct Ok"),
        "the declarations outside the cycle are generated"
    );
}

/// Variant names chosen in the manifest win, for string enums and for boolean tags alike.
#[test]
fn chosen_variant_names() {
    let module = generate(
        &[(
            "x.d.ts",
            "export type Enter = { entered: true; id: string } | { entered: false; at: number };\nexport type Arrow = '\u{27a1}\u{fe0f}' | '\u{2b05}\u{fe0f}';\n",
        )],
        ServerConfig::contracts_only("x")
            .with_variant_name("Enter", "false", "Pending")
            .with_variant_name("Arrow", "\u{27a1}\u{fe0f}", "Right"),
    )
    .expect("generates");
    let text = module.to_module_file("test");
    assert!(text.contains("Entered(EnterEntered)"), "{text}");
    assert!(text.contains("Pending(EnterPending)"), "{text}");
    assert!(text.contains("Right,"), "{text}");
    assert!(
        text.contains("LeftwardsBlackArrow,"),
        "the other keeps its Unicode name: {text}"
    );
    assert!(
        text.contains(r#"#[serde(rename = "➡\u{fe0f}")]"#),
        "the wire value keeps U+FE0F: {text}"
    );
}

/// A result type from the manifest wins over the tool's `outputSchema`; without one, the
/// `outputSchema` types the result.
#[test]
fn manifest_results_win_over_output_schemas() {
    let dir = tempfile::tempdir().expect("tempdir");
    let capture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/captures/tecs.tools.json");
    std::fs::copy(capture, dir.path().join("tecs.tools.json")).expect("copy capture");
    std::fs::write(
        dir.path().join("c.d.ts"),
        "export interface Ping { pong: boolean }\n",
    )
    .expect("write");
    let generate = |config: ServerConfig| {
        Generator::new()
            .with_base(dir.path())
            .generate(&config)
            .expect("generates")
            .to_module_file("test")
    };
    let plain = generate(ServerConfig::new("tecs", "tecs.tools.json"));
    assert!(
        plain.contains("Result<types::PingOutput, Error>"),
        "{plain}"
    );
    let typed = generate(
        ServerConfig::new("tecs", "tecs.tools.json")
            .with_contract("c.d.ts")
            .with_result("ping", "Ping"),
    );
    assert!(typed.contains("Result<types::Ping, Error>"), "{typed}");
    assert!(
        !typed.contains("pub struct PingOutput"),
        "the outputSchema type is not generated"
    );
    // Doc comments are wrapped: read the prose with the line breaks taken out.
    let prose = typed.replace("\n    ///", "");
    assert!(
        prose.contains("The result type comes from the agent contracts."),
        "{typed}"
    );
}

/// The structs and enums a module declares, without docs, attributes, impls and typify's error
/// module.
fn declared_types(module: &Module) -> String {
    fn walk(items: &[syn::Item], out: &mut Vec<syn::Item>) {
        for item in items {
            match item {
                syn::Item::Mod(m) if m.ident != "error" => {
                    if let Some((_, inner)) = &m.content {
                        walk(inner, out);
                    }
                }
                syn::Item::Struct(s) => {
                    let mut s = s.clone();
                    s.attrs.clear();
                    for field in s.fields.iter_mut() {
                        field.attrs.clear();
                    }
                    out.push(syn::Item::Struct(s));
                }
                syn::Item::Enum(e) => {
                    let mut e = e.clone();
                    e.attrs.clear();
                    for variant in &mut e.variants {
                        variant.attrs.clear();
                    }
                    out.push(syn::Item::Enum(e));
                }
                _ => {}
            }
        }
    }
    let mut items = Vec::new();
    let module_file = syn::parse_file(&module.code()).expect("the code parses");
    walk(&module_file.items, &mut items);
    let mut file: syn::File = syn::parse_quote!();
    file.items = items;
    prettyplease::unparse(&file)
}

/// Inputs the contracts fuzzing found (`tests/fixtures/contracts/fuzz/`), each of which once
/// overflowed the stack (an abort) or expanded without end (a hang): types that contain
/// themselves through `NonNullable`, `T[K]`, `Partial`, an intersection or a union. Each is
/// now a named recursive type as TypeScript means it, or a located warning. Generation runs on
/// a thread with a generous bound, so a regression to a hang fails instead of waiting.
#[test]
fn fuzz_found_self_references_generate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/contracts/fuzz");
    let check = |file: &str, expected: Expect| {
        let text = std::fs::read_to_string(dir.join(file)).expect("fixture");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let out =
                generate(&[("c.d.ts", &text)], ServerConfig::contracts_only("c")).map(|module| {
                    let warnings: Vec<String> =
                        module.warnings.iter().map(ToString::to_string).collect();
                    format!("{}\n--\n{}", warnings.join("\n"), declared_types(&module))
                });
            let _ = tx.send(out);
        });
        let outcome = rx
            .recv_timeout(std::time::Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("{file}: generation did not finish"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        expected.assert_eq(&outcome);
    };
    check(
        "nonnullable_self_array.d.ts",
        expect![[r#"

            --
            pub struct A(pub Vec<A>);
        "#]],
    );
    check(
        "nonnullable_self_array_with_namespace.d.ts",
        expect![[r#"

            --
            pub struct A(pub Vec<A>);
            pub struct Nc {
                pub t: String,
            }
            pub struct Nt(pub String);
        "#]],
    );
    check(
        "indexed_self_tuples.d.ts",
        expect![[r#"
            c.d.ts:1:63: `D` is left out: `x` is in both parts of an intersection, with types that share no value (TypeScript makes it `never`) (the other part: c.d.ts:1:19); give the member types that overlap in both parts, or make it optional where it must be absent. Members that refer to it are serde_json::Value
            c.d.ts:3:22: a union of object types with no literal property that tells them apart: decoded by trying each member in order (the first that fits wins)
            c.d.ts:3:22: a union of object types with no literal property that tells them apart: decoded by trying each member in order (the first that fits wins)
            c.d.ts:3:87: `B`, which is not declared in the contract files (imports are not followed), typed as serde_json::Value
            c.d.ts:3:87: `B`, which is not declared in the contract files (imports are not followed), typed as serde_json::Value
            c.d.ts:3:98: a union of object types with no literal property that tells them apart: decoded by trying each member in order (the first that fits wins)
            --
            pub struct A {
                pub z: Option<Vec<((AzItem00, Vec<AzItem00Variant1>), AzItem1)>>,
            }
            pub enum AzItem00 {
                A(A),
                AzItem00Variant1(AzItem00Variant1),
            }
            pub struct AzItem00Variant1(pub Map<String, Value>);
            pub enum AzItem1 {
                Variant0(C),
                Variant1(Vec<((AzItem1Variant1Item00, Vec<AzItem00Variant1>), AzItem1)>),
                Variant2(Value, AzItem1Variant21),
            }
            pub enum AzItem1Variant1Item00 {
                A(A),
                AzItem00Variant1(AzItem00Variant1),
            }
            pub struct AzItem1Variant21(
                pub Vec<((AzItem1Variant21Item00, Vec<AzItem00Variant1>), AzItem1Variant21ItemItem1)>,
            );
            pub enum AzItem1Variant21Item00 {
                A(A),
                AzItem00Variant1(AzItem00Variant1),
            }
            pub enum AzItem1Variant21ItemItem1 {
                C(C),
                AzItem1Variant21(AzItem1Variant21),
                Array(Value, AzItem1Variant21),
            }
            pub struct C(pub Vec<A>);
        "#]],
    );
    check(
        "indexed_self_array.d.ts",
        expect![[r#"

            --
            pub struct A {
                pub z: Option<Vec<AzItem>>,
            }
            pub struct AzItem(pub Vec<AzItem>);
        "#]],
    );
    check(
        "indexed_self_only.d.ts",
        expect![[r#"
            c.d.ts:1:26: a type computed from itself (it stands for nothing but itself); typed as serde_json::Value
            --
            pub struct A {
                pub z: Option<Az>,
            }
            pub struct Az(pub Value);
        "#]],
    );
    check(
        "partial_self.d.ts",
        expect![[r#"

            --
            pub struct C {
                pub x: Cx,
            }
            pub struct Cx {
                pub x: Option<Box<Cx>>,
            }
        "#]],
    );
    check(
        "intersection_self.d.ts",
        expect![[r#"

            --
            pub struct A {
                pub x: Ax,
            }
            pub struct Ax {
                pub x: Box<Ax>,
                pub y: String,
            }
        "#]],
    );
    check(
        "union_self.d.ts",
        expect![[r#"
            c.d.ts:1:13: `U` is left out: `U` stands for nothing but itself; declare what the type is made of. Members that refer to it are serde_json::Value
            c.d.ts:2:25: `U` is left out (see the warning at its declaration); typed as serde_json::Value
            --
            pub struct K {
                pub u: Value,
            }
        "#]],
    );
}

/// A problem with a type that carries no location of its own (`never`, `string`) is located at
/// what encloses it, in its own file: an index signature at the signature, an impossible
/// `Partial<string>` at its declaration, a manifest result type at its own text (they once
/// fell back to the first file's 1:1, or to the last result's text).
#[test]
fn problems_without_a_location_of_their_own_are_located_at_what_encloses_them() {
    let module = generate(
        &[
            ("a.d.ts", "export interface Z { a: number }\n"),
            (
                "b.d.ts",
                "export interface A {\n  x: string;\n  [k: string]: never;\n}\nexport type P = Partial<string>;\nexport type I = string['x'];\n",
            ),
        ],
        ServerConfig::contracts_only("x"),
    )
    .expect("generates");
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    expect![[r#"
        b.d.ts:3:3: `never` has no JSON form that mcp-bindgen maps; typed as serde_json::Value (override it to choose a type)
        b.d.ts:5:13: `P` is left out: only object types can be merged (`A & B`, `extends`); write the intersection as an object type, or use a union. Members that refer to it are serde_json::Value
        b.d.ts:6:13: `I` is left out: only object types can be merged (`A & B`, `extends`); write the intersection as an object type, or use a union. Members that refer to it are serde_json::Value"#]].assert_eq(&warnings.join("\n"));
    let err = generate(
        &[("x.d.ts", "export interface A { x: number }\n")],
        ServerConfig::new("scape", "scape.tools.json")
            .with_result("scape_enter", "never")
            .with_result("scape_observe", "A"),
    )
    .expect_err("`never` has no Rust type");
    expect![[r#"
        [results] scape_enter:1:1: `never` has no JSON form that mcp-bindgen maps
          |
        1 | never
          | ^
          = help: declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] "Type" = "unknown") or with ServerConfig::with_override"#]].assert_eq(&err);
}

/// Generating inside `on_generator_stack` renders the module where it is made (no hand-over
/// between threads, so no render and parse in between), and renders exactly what a module
/// generated outside renders; `to_wrapped` is the same items inside `pub mod NAME { .. }`,
/// file attributes (`//!` docs) included, as quoting and parsing them again would give.
#[test]
fn generator_stack_renders_what_generate_renders() {
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated");
    let config = ServerConfig::new("scape", generated.join("captures/scape.tools.json"))
        .with_contract(generated.join("contracts/agent_contracts.d.ts"))
        .with_result("scape_observe", "AgentObservation");
    let outside = Generator::new().generate(&config).expect("generates");
    let (file, wrapped) = mcp_bindgen_codegen::on_generator_stack(|| {
        let module = Generator::new().generate(&config)?;
        Ok::<_, mcp_bindgen_codegen::Error>((
            module.to_module_file("test"),
            module.to_wrapped("test"),
        ))
    })
    .expect("generates");
    same(
        &file,
        &outside.to_module_file("test"),
        "to_module_file inside and outside",
    );
    same(
        &wrapped,
        &outside.to_wrapped("test"),
        "to_wrapped inside and outside",
    );

    let outside_file = syn::parse_file(&outside.code()).expect("the code parses");
    let attrs = &outside_file.attrs;
    assert!(!attrs.is_empty(), "the module has `//!` docs");
    let items = &outside_file.items;
    let tokens = quote::quote! {
        pub mod scape {
            #(#attrs)*
            #(#items)*
        }
    };
    let reference: syn::File = syn::parse2(tokens).expect("parses");
    // The `@generated` header ends at the first blank line.
    let header = &file[..file.find("\n\n").expect("a header") + 2];
    // The layout pass only adds blank lines between items: compare without them.
    let unblank = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        wrapped.contains("}\n\n"),
        "items are separated by blank lines"
    );
    same(
        &unblank(&wrapped),
        &unblank(&format!("{header}{}", prettyplease::unparse(&reference))),
        "to_wrapped and the quoted module",
    );
}

/// Fails naming the first line where two renderings differ (they are thousands of lines).
fn same(left: &str, right: &str, what: &str) {
    if left != right {
        let line = left
            .lines()
            .zip(right.lines())
            .position(|(l, r)| l != r)
            .unwrap_or(left.lines().count().min(right.lines().count()));
        panic!(
            "{what} differ at line {}:\n  {:?}\n  {:?}",
            line + 1,
            left.lines().nth(line),
            right.lines().nth(line)
        );
    }
}
