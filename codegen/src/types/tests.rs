use super::*;

fn unit(origin: Origin, root: &str, defs: Value) -> Unit {
    let Value::Object(defs) = defs else {
        panic!("definitions are an object")
    };
    Unit::new(root, origin, defs.into_iter().collect())
}

fn units() -> Vec<Unit> {
    vec![
        unit(
            Origin::Arguments("list".into()),
            "ListArgs",
            serde_json::json!({
                "ListArgs": {
                    "type": "object",
                    "properties": {
                        "kind": { "$ref": "#/definitions/ListArgsKind" },
                        "limit": { "type": "integer", "minimum": 0 }
                    },
                    "required": ["kind"]
                },
                "ListArgsKind": { "type": "string", "enum": ["all", "open"] }
            }),
        ),
        unit(
            Origin::Arguments("get".into()),
            "GetArgs",
            serde_json::json!({
                "GetArgs": {
                    "type": "object",
                    "properties": { "id": { "type": "string" }, "tags": { "type": "array", "items": { "type": "string" } } },
                    "required": ["id"]
                }
            }),
        ),
        unit(
            Origin::Result("get".into()),
            "GetOutput",
            serde_json::json!({
                "GetOutput": {
                    "type": "object",
                    "properties": { "found": { "type": "boolean" } }
                }
            }),
        ),
    ]
}

fn text(file: &syn::File) -> String {
    prettyplease::unparse(file)
}

#[test]
fn together_writes_what_one_by_one_writes() {
    let units = units();
    let settings = || settings(&[]);
    let (_, file) = together(&units, &settings).expect("the units go together");
    let (_, slow, failed) = one_by_one(&units, &settings);
    assert!(failed.is_empty(), "{failed:?}");
    let fast = text(&file);
    assert_eq!(fast, text(&slow));
    for root in ["ListArgs", "ListArgsKind", "GetArgs", "GetOutput"] {
        assert!(
            fast.contains(&format!("pub struct {root}"))
                || fast.contains(&format!("pub enum {root}")),
            "{root} in\n{fast}"
        );
    }
}

#[test]
fn a_unit_that_fails_sends_every_unit_through_one_by_one() {
    let settings = || settings(&[]);
    for stage in [Stage::Typify, Stage::Render] {
        // A forced render failure shows only after another unit: fault the second.
        let units = units();
        assert_eq!(units[1].origin, Origin::Arguments("get".into()));
        let _faults = fault::install(&[fault::Fault {
            tool: "get".into(),
            stage,
        }]);
        assert!(together(&units, &settings).is_none(), "{stage:?}");
        let (_, file, failed) = one_by_one(&units, &settings);
        assert_eq!(failed.keys().collect::<Vec<_>>(), ["GetArgs"], "{stage:?}");
        let written = text(&file);
        assert!(!written.contains("pub struct GetArgs"), "{written}");
        assert!(written.contains("pub struct GetOutput"), "{written}");
    }
}

#[test]
fn a_unit_naming_another_units_definition_is_not_put_together() {
    let mut units = units();
    assert!(units.iter().all(self_contained));
    units.push(unit(
        Origin::Arguments("find".into()),
        "FindArgs",
        serde_json::json!({
            "FindArgs": {
                "type": "object",
                "properties": { "kind": { "$ref": "#/definitions/ListArgsKind" } }
            }
        }),
    ));
    assert!(!self_contained(&units[3]));
    let settings = || settings(&[]);
    assert!(together(&units, &settings).is_none());
}

#[test]
fn unused_default_helpers_are_dropped_and_used_ones_kept() {
    let mut file: syn::File = syn::parse_quote! {
        pub struct A {
            #[serde(default = "defaults::a_limit")]
            pub limit: u64,
            pub kind: Kind,
        }
        impl Default for Kind {
            fn default() -> Self {
                defaults::kind_default()
            }
        }
        pub(crate) mod defaults {
            pub(super) fn a_limit() -> u64 { 10 }
            pub(super) fn kind_default() -> super::Kind { super::Kind::All }
            pub(super) fn unused() -> u64 { 3 }
        }
    };
    prune_defaults(&mut file);
    let written = text(&file);
    assert!(written.contains("fn a_limit()"), "{written}");
    assert!(written.contains("fn kind_default()"), "{written}");
    assert!(!written.contains("fn unused()"), "{written}");

    let mut file: syn::File = syn::parse_quote! {
        pub struct B { pub limit: u64 }
        pub(crate) mod defaults {
            pub(super) fn unused() -> u64 { 3 }
        }
    };
    prune_defaults(&mut file);
    assert_eq!(file.items.len(), 1, "{}", text(&file));
}
