//! A property of the inclusion algebra `diff` judges by: when it answers that every value of
//! schema A passes schema B, every sampled value the runtime's checker accepts against A, it
//! accepts against B. Schemas are random over the keywords the algebra models (and a few it
//! does not), B often derived from A (widened, narrowed, wrapped in a union) so that both
//! answers come up.
//!
//! The seed is the fuzz tests' scheme: `FUZZ_SEED=0x...` replays a run (`FUZZ_SEED=random`
//! picks a fresh one), else it comes from the commit being tested; every run prints it.
//! `FUZZ_CASES` sets the cases (default 2,000).

use mcp_bindgen::__private::validate_value;
use mcp_bindgen_codegen::diff::inclusion::{Inclusion, Verdict};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};

fn cases() -> u32 {
    mcp_bindgen_fuzz_seed::cases(2_000)
}

/// A runner of [`cases`] cases from the run's seed (printed); a failing case is saved beside
/// this file and replayed first by every later run.
fn runner() -> TestRunner {
    TestRunner::new(mcp_bindgen_fuzz_seed::config(
        cases(),
        Some(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/diff_inclusion.rs"
        )),
    ))
}

const NAMES: [&str; 3] = ["a", "b", "c"];
const PATTERNS: [&str; 4] = ["^a", "b", "^[a-c]*$", "^.{0,2}$"];
const FORMATS: [&str; 2] = ["uri", "email"];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..8).prop_map(|n| json!(n)),
        prop_oneof![Just(json!(0.5)), Just(json!(2.5)), Just(json!(4.0))],
        prop_oneof![
            Just(json!("")),
            Just(json!("a")),
            Just(json!("ab")),
            Just(json!("abc")),
            Just(json!("b")),
            Just(json!("xyz")),
        ],
    ]
}

/// A JSON value from a small universe, so that values often meet the schemas' bounds.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![Just("a"), Just("b"), Just("c"), Just("d")].prop_map(str::to_owned),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn type_name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("null"),
        Just("boolean"),
        Just("integer"),
        Just("number"),
        Just("string"),
        Just("array"),
        Just("object"),
    ]
}

/// One keyword that takes no subschema.
fn keyword() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        type_name().prop_map(|t| ("type", json!(t))),
        prop::collection::vec(type_name(), 1..3).prop_map(|t| ("type", json!(t))),
        prop::collection::vec(scalar(), 1..4).prop_map(|v| ("enum", Value::Array(v))),
        scalar().prop_map(|v| ("const", v)),
        (-3i64..8).prop_map(|n| ("minimum", json!(n))),
        (-3i64..8).prop_map(|n| ("maximum", json!(n))),
        (-3i64..8).prop_map(|n| ("exclusiveMinimum", json!(n))),
        prop_oneof![Just(json!(2.5)), Just(json!(0.5))].prop_map(|n| ("exclusiveMaximum", n)),
        (1i64..4).prop_map(|n| ("multipleOf", json!(n))),
        (0u64..4).prop_map(|n| ("minLength", json!(n))),
        (0u64..4).prop_map(|n| ("maxLength", json!(n))),
        prop::sample::select(&PATTERNS[..]).prop_map(|p| ("pattern", json!(p))),
        prop::sample::select(&FORMATS[..]).prop_map(|f| ("format", json!(f))),
        (0u64..3).prop_map(|n| ("minItems", json!(n))),
        (0u64..3).prop_map(|n| ("maxItems", json!(n))),
        any::<bool>().prop_map(|b| ("uniqueItems", json!(b))),
        (0u64..3).prop_map(|n| ("minProperties", json!(n))),
        (0u64..3).prop_map(|n| ("maxProperties", json!(n))),
        prop::sample::subsequence(&NAMES[..], 1..3).prop_map(|r| ("required", json!(r))),
        // Not modelled: the algebra must say Unknown where it matters.
        scalar().prop_map(|v| ("not", json!({ "const": v }))),
        Just(("description", json!("d"))),
    ]
}

/// Keywords on one schema node (no subschemas).
fn leaf() -> impl Strategy<Value = Value> {
    prop::collection::vec(keyword(), 0..4).prop_map(|kws| {
        let mut m = Map::new();
        for (k, v) in kws {
            m.insert(k.to_owned(), v);
        }
        Value::Object(m)
    })
}

/// A schema; with `refs`, some leaves are `{"$ref": "#/$defs/D"}`. The definition itself is
/// drawn without references: a definition that refers to itself without consuming the value
/// (`D = {"allOf": [{"$ref": "#/$defs/D"}, ...]}`) sends the runtime's checker down every
/// path to its depth limit, exponentially; the algebra cuts such cycles (`Unknown`), which
/// `no_and_unknown_where_they_belong` checks.
fn schema_with(refs: bool) -> impl Strategy<Value = Value> {
    let base = prop_oneof![
        8 => leaf(),
        1 => any::<bool>().prop_map(Value::Bool),
        if refs { 1 } else { 0 } => Just(json!({"$ref": "#/$defs/D"})),
    ];
    base.prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            (leaf(), inner.clone()).prop_map(|(mut l, s)| {
                l["items"] = s;
                l
            }),
            (
                leaf(),
                prop::collection::btree_map(
                    prop::sample::select(&NAMES[..]).prop_map(str::to_owned),
                    inner.clone(),
                    0..3
                ),
                prop_oneof![
                    Just(None),
                    any::<bool>().prop_map(|b| Some(Value::Bool(b))),
                    inner.clone().prop_map(Some)
                ],
            )
                .prop_map(|(mut l, props, additional)| {
                    l["properties"] = Value::Object(props.into_iter().collect());
                    if let Some(a) = additional {
                        l["additionalProperties"] = a;
                    }
                    l
                }),
            (
                leaf(),
                prop_oneof![Just("anyOf"), Just("oneOf"), Just("allOf")],
                prop::collection::vec(inner.clone(), 1..4)
            )
                .prop_map(|(mut l, key, branches)| {
                    l[key] = Value::Array(branches);
                    l
                }),
        ]
    })
}

fn schema() -> impl Strategy<Value = Value> {
    schema_with(true)
}

fn definition() -> impl Strategy<Value = Value> {
    schema_with(false)
}

/// A root: a schema with a definition `D` that `{"$ref": "#/$defs/D"}` inside it resolves to.
fn root(schema: Value, definition: Value) -> Value {
    let mut root = match schema {
        Value::Object(m) => Value::Object(m),
        other => json!({ "allOf": [other] }),
    };
    root["$defs"] = json!({ "D": definition });
    root
}

/// `b` from `a`: itself, `a` in a union, `a` with one keyword dropped or changed, or random.
fn derived(a: Value) -> impl Strategy<Value = Value> {
    let keys: Vec<String> = a
        .as_object()
        .map(|m| m.keys().filter(|k| *k != "$defs").cloned().collect())
        .unwrap_or_default();
    let a1 = a.clone();
    let a2 = a.clone();
    let a3 = a.clone();
    let a4 = a.clone();
    let drop = if keys.is_empty() {
        Just(a.clone()).boxed()
    } else {
        prop::sample::select(keys)
            .prop_map(move |k| {
                let mut b = a1.clone();
                if let Some(m) = b.as_object_mut() {
                    m.remove(&k);
                }
                b
            })
            .boxed()
    };
    prop_oneof![
        1 => Just(a2),
        2 => drop,
        1 => schema().prop_map(move |s| root(json!({"anyOf": [a3.clone(), s]}), json!(true))),
        // One keyword set or replaced: the smallest change, the likeliest to be misjudged.
        3 => keyword().prop_map(move |(k, v)| {
            let mut b = a4.clone();
            if let Some(m) = b.as_object_mut() {
                m.insert(k.to_owned(), v);
            }
            b
        }),
        1 => (schema(), definition()).prop_map(|(s, d)| root(s, d)),
    ]
}

#[test]
fn included_means_every_value_passes() {
    let yes = std::cell::Cell::new(0u32);
    // Yes for two different schemas: an algebra that answers Unknown unless the schemas are
    // identical (an eighth of the pairs) would get none.
    let yes_changed = std::cell::Cell::new(0u32);
    let checked = std::cell::Cell::new(0u32);
    let strategy = (schema(), definition())
        .prop_map(|(s, d)| root(s, d))
        .prop_flat_map(|a| (Just(a.clone()), derived(a)))
        .prop_flat_map(|(a, b)| (Just(a), Just(b), prop::collection::vec(value(), 64)));
    let result = runner().run(&strategy, |(a, b, values)| {
        let verdict = Inclusion::new(&a, &b).includes(&a, &b);
        if verdict != Verdict::Yes {
            return Ok(());
        }
        yes.set(yes.get() + 1);
        if a != b {
            yes_changed.set(yes_changed.get() + 1);
        }
        for v in &values {
            if validate_value(&a, v).is_ok() {
                checked.set(checked.get() + 1);
                if let Err(why) = validate_value(&b, v) {
                    return Err(TestCaseError::fail(format!(
                        "A admits {v} and B refuses it ({} at {:?}), yet A ⊆ B was answered\n\
                         A = {a}\nB = {b}",
                        why.message, why.pointer
                    )));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // The property is not vacuous: inclusion was answered, and values were checked.
    let (yes, yes_changed, checked) = (yes.get(), yes_changed.get(), checked.get());
    println!(
        "{yes} inclusions answered Yes ({yes_changed} of different schemas), {checked} values \
         checked against both"
    );
    assert!(
        yes_changed >= cases() / 10,
        "only {yes_changed} inclusions of different schemas of {}",
        cases()
    );
    assert!(checked >= cases(), "only {checked} values checked");
}

/// A few answers the property cannot see (it only checks `Yes`): what was lost is `No`, what
/// the algebra does not model is `Unknown`.
#[test]
fn no_and_unknown_where_they_belong() {
    let ask = |a: Value, b: Value| Inclusion::new(&a, &b).includes(&a, &b);
    assert_eq!(
        ask(json!({"type": "string"}), json!({"type": "integer"})),
        Verdict::No
    );
    assert_eq!(
        ask(
            json!({"enum": [1, 2]}),
            json!({"type": "integer", "maximum": 1})
        ),
        Verdict::No
    );
    assert_eq!(
        ask(
            json!({"type": "string"}),
            json!({"type": "string", "not": {"const": ""}})
        ),
        Verdict::Unknown
    );
    // A definition that refers to itself without consuming the value: cut, not followed.
    let cycle = json!({"$defs": {"D": {"anyOf": [{"$ref": "#/$defs/D"}, {"$ref": "#/$defs/D"},
        {"type": "string"}]}}, "$ref": "#/$defs/D"});
    assert_ne!(ask(cycle.clone(), json!({"type": "string"})), Verdict::No);
    assert_ne!(ask(json!({"type": "string"}), cycle), Verdict::No);
    // A `$ref` with a constraint beside it needs both.
    let b = json!({"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S", "maxLength": 2});
    assert_eq!(ask(json!({"type": "string"}), b), Verdict::No);
}
