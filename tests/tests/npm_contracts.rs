//! Published declaration files from npm (`fixtures/contracts/npm/`, one over 5,000 lines) go
//! through the contracts generator; the output is a snapshot compiled into this crate
//! (`snapshots/npm/`), and some of it decodes real-looking JSON. Refresh on purpose with
//! `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test npm_contracts`.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_bindgen_codegen::{Generator, ServerConfig};
use serde_json::json;

const COMMAND: &str = "UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test npm_contracts";

/// One published file.
struct Published {
    module: &'static str,
    file: &'static str,
    package: &'static str,
    /// Lines of the file as published.
    lines: usize,
    /// Overrides (path, type) for what has no JSON form.
    overrides: &'static [(&'static str, &'static str)],
}

const FILES: &[Published] = &[
    Published {
        module: "geojson",
        file: "geojson.d.ts",
        package: "@types/geojson@7946.0.16",
        lines: 202,
        overrides: &[],
    },
    Published {
        module: "har_format",
        file: "har-format.d.ts",
        package: "@types/har-format@1.2.16",
        lines: 938,
        overrides: &[],
    },
    Published {
        module: "webhooks_types",
        file: "webhooks-types.d.ts",
        package: "@octokit/webhooks-types@7.6.1",
        lines: 8625,
        // `WebhookEventName = keyof EventPayloadMap` is the enum of the map's keys.
        overrides: &[],
    },
    Published {
        module: "estree",
        file: "estree.d.ts",
        package: "@types/estree@1.0.8",
        lines: 694,
        overrides: &[],
    },
    Published {
        module: "unist",
        file: "unist.d.ts",
        package: "@types/unist@3.0.3",
        lines: 119,
        overrides: &[],
    },
    Published {
        module: "json_schema",
        file: "json-schema.d.ts",
        package: "@types/json-schema@7.0.15",
        lines: 749,
        overrides: &[],
    },
    Published {
        module: "sarif",
        file: "sarif.d.ts",
        package: "@types/sarif@2.1.7",
        lines: 2558,
        overrides: &[],
    },
    Published {
        module: "swagger_schema_official",
        file: "swagger-schema-official.d.ts",
        package: "@types/swagger-schema-official@2.0.25",
        lines: 275,
        overrides: &[],
    },
    Published {
        module: "vscode_languageserver_types",
        file: "vscode-languageserver-types.d.ts",
        package: "vscode-languageserver-types@3.17.5",
        lines: 3139,
        overrides: &[],
    },
    Published {
        module: "open_rpc_meta_schema",
        file: "open-rpc-meta-schema.d.ts",
        package: "@open-rpc/meta-schema@1.14.9",
        lines: 381,
        overrides: &[],
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The server configuration that generates `published`.
fn config(published: &Published) -> ServerConfig {
    let path = format!("fixtures/contracts/npm/{}", published.file);
    let mut config = ServerConfig::contracts_only(published.module).with_contract(&path);
    for (at, ty) in published.overrides {
        config = config.with_override(*at, *ty);
    }
    config
}

#[test]
fn published_declarations_generate_and_match_their_snapshots() {
    let generator = Generator::new().with_base(root());
    let mut biggest = 0;
    for published in FILES {
        let Published {
            module,
            file,
            package,
            lines,
            ..
        } = published;
        let path = format!("fixtures/contracts/npm/{file}");
        let text = std::fs::read_to_string(root().join(&path)).expect("fixture");
        // The published file, after the license comment we put on top.
        let body = text
            .split_once(" */\n")
            .map_or(text.as_str(), |(_, rest)| rest);
        assert_eq!(body.lines().count(), *lines, "{package}: {path}");
        biggest = biggest.max(*lines);
        let generated = generator
            .generate(&config(published))
            .unwrap_or_else(|e| panic!("{package}: {e}"));
        assert!(generated.types > 0, "{package}");
        let snapshot = root().join(format!("snapshots/npm/{module}.rs"));
        expect_test::expect_file![snapshot].assert_eq(&generated.to_module_file(COMMAND));
    }
    assert!(biggest > 5000, "one of the files is over 5,000 lines");
}

#[test]
fn geojson_decodes_a_feature_collection() {
    use mcp_bindgen_tests::npm::geojson::types::*;
    let collection: GeoJson = serde_json::from_value(json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [102.0, 0.5]},
            "properties": {"prop0": "value0"}
        }]
    }))
    .expect("decodes");
    let again = serde_json::to_value(&collection).expect("encodes");
    assert_eq!(
        again["features"][0]["geometry"]["coordinates"],
        json!([102.0, 0.5])
    );
    assert_eq!(again["type"], json!("FeatureCollection"));
}

/// A recursive optional and nullable member (`superClass?: Expression | null`, boxed by typify)
/// keeps absent apart from `null`, both ways.
#[test]
fn estree_keeps_an_absent_recursive_member_apart_from_null() {
    use mcp_bindgen_tests::npm::estree::types::*;
    let absent = json!({"type": "ClassExpression", "body": {"type": "ClassBody", "body": []}});
    let null = json!({
        "type": "ClassExpression",
        "superClass": null,
        "body": {"type": "ClassBody", "body": []}
    });
    let a: ClassExpression = serde_json::from_value(absent.clone()).expect("decodes");
    let n: ClassExpression = serde_json::from_value(null.clone()).expect("decodes");
    assert_eq!(a.super_class, None);
    assert_eq!(n.super_class, Some(Box::new(None)));
    assert_eq!(serde_json::to_value(&a).expect("encodes"), absent);
    assert_eq!(serde_json::to_value(&n).expect("encodes"), null);
}

#[test]
fn har_decodes_a_log() {
    use mcp_bindgen_tests::npm::har_format::types::*;
    let har: Har = serde_json::from_value(json!({"log": {
        "version": "1.2",
        "creator": {"name": "mcp-bindgen", "version": "0.1"},
        "entries": []
    }}))
    .expect("decodes");
    assert_eq!(har.log.version, "1.2");
    assert_eq!(har.log.creator.name, "mcp-bindgen");
}

#[test]
fn webhooks_decode_a_ping() {
    use mcp_bindgen_tests::npm::webhooks_types::types::*;
    let event = json!({
        "zen": "Keep it logically awesome.",
        "hook_id": 1,
        "hook": {
            "type": "App", "id": 1, "name": "web", "active": true, "events": ["*"],
            "config": {"content_type": "json", "insecure_ssl": "0", "url": "https://example.com"},
            "updated_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z",
            "url": "https://api.github.com/app/hook", "ping_url": "https://api.github.com/app/hook/pings",
            "deliveries_url": "https://api.github.com/app/hook/deliveries",
            "app_id": 2,
            "last_response": {"code": null, "status": "unused", "message": null}
        }
    });
    let ping: PingEvent = serde_json::from_value(event.clone()).expect("decodes");
    assert_eq!(ping.zen, "Keep it logically awesome.");
    // `events: WebhookEvents` is a list of event names or `["*"]`.
    assert_eq!(
        serde_json::to_value(&ping.hook.events).expect("encodes"),
        json!(["*"])
    );
    // `WebhookEventName = keyof EventPayloadMap`: the map's keys, generated without an override.
    let name: WebhookEventName = serde_json::from_value(json!("ping")).expect("an event name");
    assert_eq!(name, WebhookEventName::Ping);
    assert!(serde_json::from_value::<WebhookEventName>(json!("pong")).is_err());
    let mut wrong = event;
    wrong["hook"]["config"]["insecure_ssl"] = json!("2");
    assert!(
        serde_json::from_value::<PingEvent>(wrong).is_err(),
        "insecure_ssl is \"0\" or \"1\""
    );
}

/// What the TypeScript compiler makes of one declaration (`interop/contracts_check.mjs`).
#[derive(Debug, serde::Deserialize)]
struct TsDeclaration {
    kind: String,
    #[serde(default)]
    properties: Vec<TsProperty>,
    #[serde(default)]
    index: bool,
    #[serde(default)]
    nullable: bool,
}

#[derive(Debug, serde::Deserialize)]
struct TsProperty {
    name: String,
    optional: bool,
    nullable: bool,
}

/// A field of a generated struct: what its `Option` layers and serde attributes say.
#[derive(Debug)]
struct RustField {
    /// Absent on the wire when `None` (`skip_serializing_if`, or a default).
    optional: bool,
    /// Written as `null` (an `Option` layer that is not skipped, or two layers).
    nullable: bool,
    /// The type inside the options (`Box` taken off), by normalised name: a type that holds
    /// `null` itself (`serde_json::Value`, `()`, an enum with a `Null` variant) makes the
    /// field nullable too.
    inner: String,
}

#[derive(Debug)]
enum RustType {
    Struct {
        fields: BTreeMap<String, RustField>,
        flatten: bool,
    },
    /// `struct X(pub Inner)`.
    Newtype(String),
    Enum {
        null: bool,
    },
    Other,
}

/// Does the Rust type named `inner` hold `null` itself?
fn holds_null(rust: &BTreeMap<String, RustType>, inner: &str, depth: usize) -> bool {
    if inner == "value" || inner == "()" {
        return true;
    }
    match rust.get(inner) {
        Some(RustType::Enum { null }) => *null,
        Some(RustType::Newtype(next)) if depth < 8 => holds_null(rust, next, depth + 1),
        _ => false,
    }
}

/// Follows newtypes (`type DeploymentEvent = DeploymentCreatedEvent` is a newtype) to the type
/// they wrap.
fn through_newtypes<'r>(
    rust: &'r BTreeMap<String, RustType>,
    mut ty: &'r RustType,
) -> &'r RustType {
    for _ in 0..8 {
        match ty {
            RustType::Newtype(inner) => match rust.get(inner) {
                Some(next) => ty = next,
                None => break,
            },
            _ => break,
        }
    }
    ty
}

/// Type names compared without case and separators (`GeoJSON` is `GeoJson`).
fn normal(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn rust_types(items: &[syn::Item], out: &mut BTreeMap<String, RustType>) {
    for item in items {
        match item {
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    rust_types(items, out);
                }
            }
            syn::Item::Struct(s) => {
                let rename_all = rename_all(&s.attrs);
                let ty = match &s.fields {
                    syn::Fields::Named(named) => {
                        let mut fields = BTreeMap::new();
                        let mut flatten = false;
                        for field in &named.named {
                            let serde = serde_attributes(&field.attrs);
                            if serde.flatten {
                                flatten = true;
                                continue;
                            }
                            let ident = field.ident.as_ref().expect("named").to_string();
                            let wire = serde.rename.unwrap_or_else(|| {
                                let own = ident.trim_start_matches("r#");
                                match &rename_all {
                                    Some(rule) => serde_field_rule(rule, own),
                                    None => own.to_owned(),
                                }
                            });
                            let (layers, inner) = option_layers(&field.ty);
                            let (optional, nullable) = match layers {
                                0 => (serde.skip || serde.default, false),
                                1 => (serde.skip, !serde.skip),
                                _ => (true, true),
                            };
                            fields.insert(
                                wire,
                                RustField {
                                    optional,
                                    nullable,
                                    inner,
                                },
                            );
                        }
                        RustType::Struct { fields, flatten }
                    }
                    syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                        RustType::Newtype(option_layers(&unnamed.unnamed[0].ty).1)
                    }
                    _ => RustType::Other,
                };
                out.insert(normal(&s.ident.to_string()), ty);
            }
            syn::Item::Enum(e) => {
                let null = e
                    .variants
                    .iter()
                    .any(|v| v.ident == "Null" && matches!(v.fields, syn::Fields::Unit));
                out.insert(normal(&e.ident.to_string()), RustType::Enum { null });
            }
            syn::Item::Type(t) => {
                out.insert(normal(&t.ident.to_string()), RustType::Other);
            }
            _ => {}
        }
    }
}

/// A type's `#[serde(rename_all = "..")]`.
fn rename_all(attrs: &[syn::Attribute]) -> Option<String> {
    let mut rule = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                let value: syn::LitStr = meta.value()?.parse()?;
                rule = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        })
        .expect("serde attributes parse");
    }
    rule
}

/// A field's name on the wire under a type's `rename_all` rule, as serde's documentation
/// describes each rule (written here from the rules, not taken from the generator).
fn serde_field_rule(rule: &str, field: &str) -> String {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalized = |w: &str| {
        let mut chars = w.chars();
        chars
            .next()
            .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
            .unwrap_or_default()
    };
    match rule {
        "camelCase" => words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    (*w).to_owned()
                } else {
                    capitalized(w)
                }
            })
            .collect(),
        "PascalCase" => words.iter().map(|w| capitalized(w)).collect(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING_SNAKE_CASE" | "UPPERCASE" => field.to_ascii_uppercase(),
        "SCREAMING-KEBAB-CASE" => field.to_ascii_uppercase().replace('_', "-"),
        "lowercase" | "snake_case" => field.to_owned(),
        other => panic!("a rename_all rule this test does not know: {other}"),
    }
}

#[derive(Default)]
struct SerdeField {
    rename: Option<String>,
    flatten: bool,
    skip: bool,
    default: bool,
}

fn serde_attributes(attrs: &[syn::Attribute]) -> SerdeField {
    let mut out = SerdeField::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                out.rename = Some(value.value());
            } else if meta.path.is_ident("flatten") {
                out.flatten = true;
            } else if meta.path.is_ident("default") && !meta.input.peek(syn::Token![=]) {
                out.default = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                out.skip = true;
                let _: syn::LitStr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        })
        .expect("serde attributes parse");
    }
    out
}

/// How many `Option<..>` wrap a type, and the normalised name of the type inside them (`Box`
/// taken off; `()` for the unit type).
fn option_layers(ty: &syn::Type) -> (usize, String) {
    let mut layers = 0;
    let mut ty = ty;
    loop {
        let syn::Type::Path(path) = ty else {
            let unit = matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty());
            return (layers, if unit { "()".into() } else { String::new() });
        };
        let Some(last) = path.path.segments.last() else {
            return (layers, String::new());
        };
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments
            && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
            && (last.ident == "Option" || last.ident == "Box")
        {
            if last.ident == "Option" {
                layers += 1;
            }
            ty = inner;
            continue;
        }
        return (layers, normal(&last.ident.to_string()));
    }
}

/// Compares the compiler's listing of one file with the generated module: every property of
/// every object type the module emits, with its wire name, `?:` and `| null` told apart.
/// Returns (types compared, properties compared, declarations left out, problems).
fn compare(
    listing: &BTreeMap<String, TsDeclaration>,
    module: &mcp_bindgen_codegen::Module,
) -> (usize, usize, Vec<String>, Vec<String>) {
    let mut rust = BTreeMap::new();
    let file = syn::parse_file(&module.code()).expect("the code parses");
    rust_types(&file.items, &mut rust);
    let warnings: Vec<String> = module.warnings.iter().map(ToString::to_string).collect();
    let (mut types, mut properties) = (0, 0);
    let mut left_out = Vec::new();
    let mut problems = Vec::new();
    for (name, declaration) in listing {
        // Unions (Rust enums), arrays, scalars and generic templates have no properties of
        // their own to compare: their object members are declarations of their own.
        if declaration.kind != "object" || declaration.nullable {
            continue;
        }
        let Some(ty) = rust.get(&normal(name)) else {
            if warnings
                .iter()
                .any(|w| w.contains(&format!("`{name}` is left out")))
            {
                left_out.push(name.clone());
            } else {
                problems.push(format!("`{name}`: no Rust type, and no warning says why"));
            }
            continue;
        };
        let RustType::Struct { fields, flatten } = through_newtypes(&rust, ty) else {
            if !declaration.properties.is_empty() {
                problems.push(format!(
                    "`{name}`: an object type, but its Rust type is not a struct"
                ));
            }
            continue;
        };
        types += 1;
        for p in &declaration.properties {
            properties += 1;
            match fields.get(&p.name) {
                None => problems.push(format!("`{name}.{}`: no Rust field", p.name)),
                Some(f) => {
                    // A `null` layer TypeScript does not have is wrong; a null TypeScript has must
                    // fit somewhere (an `Option` layer, or a type that holds null itself).
                    let nullable = f.nullable || holds_null(&rust, &f.inner, 0);
                    let null_ok = if p.nullable { nullable } else { !f.nullable };
                    if f.optional != p.optional || !null_ok {
                        problems.push(format!(
                            "`{name}.{}`: TypeScript says optional {}, nullable {}; the Rust field says optional {}, nullable {nullable}",
                            p.name, p.optional, p.nullable, f.optional
                        ));
                    }
                }
            }
        }
        for (wire, field) in fields {
            if field.inner != "value" && !declaration.properties.iter().any(|p| &p.name == wire) {
                problems.push(format!(
                    "`{name}.{wire}`: a Rust field TypeScript does not list"
                ));
            }
        }
        if declaration.index && !flatten && !declaration.properties.is_empty() {
            problems.push(format!("`{name}`: its index signature has no Rust field"));
        }
    }
    (types, properties, left_out, problems)
}

/// Differences the check finds that are known and not yet fixed. The test fails when one of
/// these is fixed (shrink the list) or a new one appears. (typify's `Box<Option<T>>` for a
/// recursive `f?: T | null`, once three entries here, is `Option<Box<Option<T>>>` now.)
const KNOWN: &[&str] = &[];

/// Nothing is lost. The TypeScript compiler (node and the
/// `typescript` package of `interop/`, installed by `scripts/test.sh`) lists every property of
/// every interface and alias of each published file; every one must be in the generated Rust,
/// with its optionality and nullability.
#[test]
#[ignore = "needs node and the typescript npm package (tests/interop, installed by scripts/test.sh)"]
fn the_typescript_compiler_finds_every_property_in_the_rust() {
    let interop = root().join("interop");
    let files: Vec<std::path::PathBuf> = FILES
        .iter()
        .map(|f| root().join("fixtures/contracts/npm").join(f.file))
        .collect();
    let output = std::process::Command::new(interop.join("node_modules/.bin/node"))
        .arg(interop.join("contracts_check.mjs"))
        .args(&files)
        .output()
        .expect("node runs (cd tests/interop && npm ci)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing: BTreeMap<String, BTreeMap<String, TsDeclaration>> =
        serde_json::from_slice(&output.stdout).expect("the checker prints JSON");
    let generator = Generator::new().with_base(root());
    let mut all_problems = Vec::new();
    for (published, path) in FILES.iter().zip(&files) {
        let declarations = &listing[&path.display().to_string()];
        let module = generator
            .generate(&config(published))
            .unwrap_or_else(|e| panic!("{}: {e}", published.package));
        let (types, properties, left_out, problems) = compare(declarations, &module);
        eprintln!(
            "{}: {} declarations; {types} object types and {properties} properties compared; left out: {left_out:?}",
            published.package,
            declarations.len()
        );
        assert!(types > 0, "{}: nothing compared", published.package);
        all_problems.extend(
            problems
                .into_iter()
                .map(|p| format!("{}: {p}", published.package)),
        );
    }
    let known: Vec<&str> = KNOWN.to_vec();
    let found: Vec<&str> = all_problems.iter().map(String::as_str).collect();
    assert_eq!(found, known, "found:\n{}", all_problems.join("\n"));
}

/// Declaration files the TypeScript compiler refuses, and some it accepts, beside the held
/// contracts: the generator accepts exactly what `tsc` accepts (syntax only). oxc's parser
/// recovers from a missing member separator without an error; the generator must not.
const SNIPPETS: &[(&str, &str)] = &[
    (
        "missing_separator_line",
        "export interface P {\n  x: number; y: number\n  z number;\n}\n",
    ),
    (
        "missing_separator_inline",
        "export interface Q { a: string b: number }\n",
    ),
    (
        "comment_is_no_separator",
        "export interface W { a: string /* note */ b: number }\n",
    ),
    (
        "literal_missing_separator",
        "export type T = { a: string; b: { c: number d: string } };\n",
    ),
    ("unterminated", "export type U = { a: string;\n"),
    (
        "separators_of_every_kind",
        "export type S = { a: string, b: number; c: boolean\n  d: null };\n",
    ),
    (
        "last_member_bare",
        "export interface R { a: string; b?: number }\n",
    ),
];

#[test]
#[ignore = "needs node and the typescript npm package (tests/interop, installed by scripts/test.sh)"]
fn the_generator_refuses_what_the_typescript_compiler_refuses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cases: Vec<(String, std::path::PathBuf, ServerConfig)> = Vec::new();
    for (name, text) in SNIPPETS {
        let path = dir.path().join(format!("{name}.d.ts"));
        std::fs::write(&path, text).expect("write");
        let config = ServerConfig::contracts_only(*name).with_contract(&path);
        cases.push(((*name).to_owned(), path, config));
    }
    for published in FILES {
        let path = root().join("fixtures/contracts/npm").join(published.file);
        cases.push((published.module.to_owned(), path, config(published)));
    }
    let held = root().join("../generated/contracts");
    for entry in std::fs::read_dir(&held)
        .expect("generated/contracts")
        .flatten()
    {
        let path = entry.path();
        let name = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .replace(".d", "");
        let config = ServerConfig::contracts_only(name.as_str()).with_contract(&path);
        cases.push((name, path, config));
    }
    let interop = root().join("interop");
    let output = std::process::Command::new(interop.join("node_modules/.bin/node"))
        .arg(interop.join("dts_syntax.mjs"))
        .args(cases.iter().map(|(_, path, _)| path))
        .output()
        .expect("node runs (cd tests/interop && npm ci)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verdicts: BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&output.stdout).expect("the checker prints JSON");
    let generator = Generator::new().with_base(root());
    let mut refused = 0;
    for (name, path, config) in &cases {
        let tsc = &verdicts[&path.display().to_string()];
        let ours = generator.generate(config);
        match (tsc.first(), &ours) {
            (None, Ok(_)) => {}
            (Some(_), Err(e)) => {
                refused += 1;
                let ours = e.to_string();
                assert!(ours.contains("not valid TypeScript"), "{name}: {ours}");
                // Both point at the same line.
                let line = tsc[0].split(':').next().expect("a line");
                assert!(
                    ours.contains(&format!(".d.ts:{line}:")),
                    "{name}: tsc says {tsc:?}, we say {ours}"
                );
            }
            (None, Err(e)) => panic!("{name}: tsc accepts it, the generator refuses it: {e}"),
            (Some(_), Ok(_)) => {
                panic!("{name}: tsc refuses it ({tsc:?}), the generator accepts it")
            }
        }
    }
    assert_eq!(
        refused, 5,
        "the broken snippets, and only those, are refused"
    );
}
