//! [`JsonTree`] against `serde_json::Value`: the same texts accepted and refused (with the same
//! errors), the same `Value` back, and the same results from deserializing a type from the
//! tree in place as from `serde_json::from_value` on the `Value`.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

use super::JsonTree;

/// Texts a client might send as `arguments`, odd ones included.
fn odd_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        r#"{"a":1,"b":2}"#,
        r#"{"b":2,"a":1}"#,
        r#"{"a":1,"a":"x"}"#,
        r#"{"b":1,"a":2,"b":3}"#,
        r#"{"a":{"x":1,"x":2},"b":[{"k":1,"k":null}]}"#,
        r#"{"s":"\u00e9\n\t\"\\\/","t":"\ud83d\ude00","u":"plain"}"#,
        r#"{"\u0061":1,"a":2}"#,
        r#"{"s":"\ud800"}"#,
        r#"{"s":"\udc00x"}"#,
        r#"{"s":"\ud800\u0041"}"#,
        "{\"s\":\"a\u{1}b\"}",
        r#"{"s":"\x"}"#,
        r#"{"n":-0,"m":-0.0,"o":0e5,"p":1E2,"q":1.0}"#,
        r#"{"n":18446744073709551615,"m":18446744073709551616,"o":-9223372036854775808,"p":-9223372036854775809}"#,
        r#"{"n":9007199254740993,"m":-9007199254740993,"f":9007199254740993.0}"#,
        r#"{"n":1e400}"#,
        r#"{"n":-1e400}"#,
        r#"{"n":1e-400}"#,
        r#"{"n":01}"#,
        r#"{"n":1.}"#,
        r#"{"n":.5}"#,
        r#"{"n":+1}"#,
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{a:1}"#,
        r#"{"a":1} x"#,
        r#"{"a":1}   "#,
        r#"[1,2,[3,[4,{}]],{"a":[]}]"#,
        r#"null"#,
        r#"true"#,
        r#""text""#,
        r#"{"$serde_json::private::RawValue":"[1,{\"a\":2,\"b\":3}]"}"#,
        r#"{"$serde_json::private::RawValue":"[1,"}"#,
        r#"{"$serde_json::private::RawValue":5}"#,
        r#"{"$serde_json::private::RawValue":"1","b":2}"#,
        r#"{"b":0,"$serde_json::private::RawValue":"1"}"#,
        r#"{"$serde_json::private::Number":"12"}"#,
        r#"{"$serde_json::private::Number":"x"}"#,
        r#"{}"#,
        r#""#,
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    // The nesting limit (128 levels), at and around it.
    for depth in [127, 128, 129] {
        texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        texts.push(format!(
            "{}1{}",
            r#"{"a":"#.repeat(depth),
            "}".repeat(depth)
        ));
    }
    texts
}

#[test]
fn parses_exactly_what_a_value_parse_does() {
    let (mut accepted, mut refused) = (0, 0);
    for text in odd_texts() {
        let value = serde_json::from_str::<Value>(&text).map_err(|e| e.to_string());
        let tree = JsonTree::parse(&text).map_err(|e| e.to_string());
        assert_eq!(
            tree.as_ref().map(JsonTree::to_value).map_err(String::clone),
            value,
            "the tree and the Value of {text}"
        );
        if let Ok(tree) = &tree {
            let duplicates = text.contains(r#""a":1,"a""#)
                || text.contains(r#""b":1,"a":2,"b""#)
                || text.contains(r#""x":1,"x""#)
                || text.contains(r#""\u0061":1,"a""#);
            assert_eq!(tree.has_duplicate_keys(), duplicates, "{text}");
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert!(accepted >= 15 && refused >= 15, "{accepted} / {refused}");
}

/// `T` from the tree in place and from the `Value`: both `Ok` and equal, or both `Err`; and
/// `JsonTree::deserialize` gives exactly `from_value`'s result, error message included.
/// Returns whether the tree read it in place.
fn assert_same<T: DeserializeOwned + PartialEq + Debug>(text: &str) -> bool {
    assert_same_ok::<T>(text).0
}

/// [`assert_same`], and whether `T` came out (not an error).
fn assert_same_ok<T: DeserializeOwned + PartialEq + Debug>(text: &str) -> (bool, bool) {
    let tree = JsonTree::parse(text).unwrap();
    let value: Value = serde_json::from_str(text).unwrap();
    let expected = serde_json::from_value::<T>(value.clone());
    let in_place = tree.deserialize_in_place::<T>();
    if let Some(in_place) = &in_place {
        match (in_place, &expected) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("in place {a:?}, from the Value {b:?}, for {text}"),
        }
    }
    let public = tree.deserialize::<T>().map_err(|e| e.to_string());
    let ok = expected.is_ok();
    assert_eq!(public, expected.map_err(|e| e.to_string()), "{text}");
    (in_place.is_some(), ok)
}

#[derive(Debug, PartialEq, Deserialize)]
enum Choice {
    Unit,
    New(i32),
    Tuple(i32, i32),
    Empty(),
    Struct { x: i32 },
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum Either {
    Int(u64),
    Neg(i64),
    Float(f64),
    Text(String),
    List(Vec<Either>),
    Map(BTreeMap<String, Either>),
    Nothing(()),
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Tagged {
    Add { n: i32 },
    Remove,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Args {
    a: i64,
    b: Option<u8>,
    #[serde(default)]
    c: Vec<String>,
    d: Option<Choice>,
    e: Option<(i32, bool)>,
    f: Option<char>,
    g: Option<f32>,
    h: Option<i128>,
    u: Option<()>,
    v: Option<Value>,
    w: Option<Tagged>,
    x: Option<Either>,
    y: Option<BTreeMap<String, Vec<u16>>>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: i32,
    #[serde(default)]
    b: bool,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Flat {
    a: i32,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct NumericKeys {
    m: HashMap<u32, i32>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct BoolKeys {
    m: HashMap<bool, i32>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Pair(i32, i32);

/// The order an object's members are visited in.
#[derive(Debug, PartialEq)]
struct Order(Vec<String>);

impl<'de> Deserialize<'de> for Order {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Order;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Order, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(Order(keys))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// Reads only the first item of an array (the rest must make it an error, as with a `Value`).
#[derive(Debug, PartialEq)]
struct FirstOnly(i32);

impl<'de> Deserialize<'de> for FirstOnly {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = FirstOnly;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<FirstOnly, A::Error> {
                Ok(FirstOnly(seq.next_element()?.unwrap_or(0)))
            }
        }
        deserializer.deserialize_seq(Visitor)
    }
}

#[test]
fn deserializes_what_from_value_gives() {
    let args = [
        r#"{"a":1}"#,
        r#"{"a":1,"b":255,"c":["x","\u00e9"],"d":"Unit","e":[1,true],"f":"z","g":0.1}"#,
        r#"{"a":1,"b":256}"#,
        r#"{"a":1.0}"#,
        r#"{"a":"1"}"#,
        r#"{"a":9223372036854775808}"#,
        r#"{"a":-9223372036854775808}"#,
        r#"{"a":1,"h":170141183460469231731687303715884105727}"#,
        r#"{"a":1,"h":18446744073709551616}"#,
        r#"{"a":1,"h":-9223372036854775808}"#,
        r#"{"a":1,"d":{"New":5}}"#,
        r#"{"a":1,"d":{"Tuple":[1,2]}}"#,
        r#"{"a":1,"d":{"Tuple":[1,2,3]}}"#,
        r#"{"a":1,"d":{"Empty":[]}}"#,
        r#"{"a":1,"d":{"Struct":{"x":1}}}"#,
        r#"{"a":1,"d":{"Struct":[1]}}"#,
        r#"{"a":1,"d":{"Unit":null}}"#,
        r#"{"a":1,"d":{"Unit":1}}"#,
        r#"{"a":1,"d":{"New":5,"Unit":null}}"#,
        r#"{"a":1,"d":{}}"#,
        r#"{"a":1,"d":"New"}"#,
        r#"{"a":1,"d":"Nope"}"#,
        r#"{"a":1,"d":3}"#,
        r#"{"a":1,"e":[1]}"#,
        r#"{"a":1,"e":[1,true,3]}"#,
        r#"{"a":1,"e":{"0":1,"1":true}}"#,
        r#"{"a":1,"f":"zz"}"#,
        r#"{"a":1,"g":1e300}"#,
        r#"{"a":1,"u":null}"#,
        r#"{"a":1,"u":0}"#,
        r#"{"a":1,"v":{"z":1,"y":[null,{"b":1,"a":2}]}}"#,
        r#"{"a":1,"w":{"op":"add","n":2}}"#,
        r#"{"a":1,"w":{"n":2,"op":"add"}}"#,
        r#"{"a":1,"w":{"op":"remove"}}"#,
        r#"{"a":1,"w":{"op":"other"}}"#,
        r#"{"a":1,"x":[1,-1,1.5,"s",null,{"k":[2]}]}"#,
        r#"{"a":1,"y":{"b":[1,2],"a":[65535]}}"#,
        r#"{"a":1,"y":{"b":[65536]}}"#,
        r#"{"a":1,"unknown":1}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"b":1}"#,
        r#"[1]"#,
        r#"[1,2,3,4,5,6,7,8,9,10,11,12,13,14]"#,
        r#"null"#,
        r#""a""#,
    ];
    let mut in_place = 0;
    for text in args {
        in_place += usize::from(assert_same::<Args>(text));
        assert_same::<Value>(text);
        assert_same::<Either>(text);
        assert_same::<Strict>(text);
        assert_same::<Flat>(text);
        assert_same::<Option<Strict>>(text);
        assert_same::<Pair>(text);
        assert_same::<FirstOnly>(text);
    }
    assert!(in_place >= args.len() - 2, "{in_place} of {}", args.len());
    for text in [
        r#"{"a":1,"b":true}"#,
        r#"{"b":true,"a":1}"#,
        r#"{"a":1,"c":2}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":1,"x":[1,2]}"#,
    ] {
        assert_same::<Strict>(text);
        assert_same::<Flat>(text);
    }
    for text in [
        r#"[1,2]"#,
        r#"[1]"#,
        r#"[1,2,3]"#,
        r#"{"0":1,"1":2}"#,
        r#"[]"#,
    ] {
        assert_same::<Pair>(text);
        assert_same::<FirstOnly>(text);
        assert_same::<(i32, i32)>(text);
        assert_same::<Vec<i32>>(text);
    }
    // Keys read as numbers are left to a `Value` (and give its answer).
    for text in [
        r#"{"m":{"1":2,"30":4}}"#,
        r#"{"m":{"x":2}}"#,
        r#"{"m":{" 1":2}}"#,
        r#"{"m":{"1 ":2}}"#,
    ] {
        assert!(!assert_same::<NumericKeys>(text), "{text}");
    }
    for text in [r#"{"m":{"true":2,"false":4}}"#, r#"{"m":{"yes":2}}"#] {
        assert!(assert_same::<BoolKeys>(text), "{text}");
    }
    // A `Value` object is read in its map's order.
    for text in [
        r#"{"b":1,"c":2,"a":3}"#,
        r#"{"a":1,"b":2}"#,
        r#"{}"#,
        r#"{"a":{"z":1,"y":2}}"#,
    ] {
        assert!(assert_same::<Order>(text), "{text}");
        assert_same::<BTreeMap<String, Order>>(text);
    }
}

#[test]
fn raw_values_are_read_through_a_value() {
    #[derive(Debug, Deserialize)]
    struct WithRaw {
        raw: Box<serde_json::value::RawValue>,
    }
    let text = r#"{"raw":{"b": 1, "a": [2]}}"#;
    let tree = JsonTree::parse(text).unwrap();
    assert!(tree.deserialize_in_place::<WithRaw>().is_none());
    let expected: WithRaw = serde_json::from_value(serde_json::from_str(text).unwrap()).unwrap();
    assert_eq!(
        tree.deserialize::<WithRaw>().unwrap().raw.get(),
        expected.raw.get()
    );
}

// --- Property: generated values, as text in either member order. ---

fn leaves() -> impl Strategy<Value = Value> + Clone {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![
            json!(0),
            json!(-1),
            json!(255),
            json!(256),
            json!(65536),
            json!(1.5),
            json!(-0.0),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(1e300),
        ]),
        prop::sample::select(vec!["", "a", "é\n", "Unit", "New", "add", "remove", "😀"])
            .prop_map(|s| json!(s)),
    ]
}

fn keys() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a", "b", "c", "d", "e", "f", "op", "n", "x", "y", "New", "Tuple", "Struct", "Unit", "k~/",
    ])
    .prop_map(str::to_owned)
}

fn trees() -> impl Strategy<Value = Value> {
    leaves().prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(keys(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn deserializing_in_place_agrees_with_from_value_on_generated_values() {
    // The run's seed (printed; `FUZZ_SEED` replays it), new with every commit.
    let cases = mcp_bindgen_fuzz_seed::cases(2000);
    let mut runner = TestRunner::new(mcp_bindgen_fuzz_seed::config(cases, None));
    let valid_args = std::cell::Cell::new(0usize);
    runner
        .run(&(trees(), any::<bool>()), |(value, reverse)| {
            let text = super::tests::text_of(&value, reverse);
            let tree = JsonTree::parse(&text).unwrap();
            prop_assert_eq!(tree.to_value(), value.clone());
            assert_same::<Value>(&text);
            assert_same::<Either>(&text);
            assert_same::<Order>(&text);
            // Types a generated value fits now and then: count the values one of them took.
            let fits = [
                assert_same_ok::<Option<Choice>>(&text).1,
                assert_same_ok::<Vec<Tagged>>(&text).1,
                assert_same_ok::<Strict>(&text).1,
                assert_same_ok::<Flat>(&text).1,
                assert_same_ok::<BTreeMap<String, Option<Choice>>>(&text).1,
                assert_same_ok::<(Option<u8>, Value)>(&text).1,
                assert_same_ok::<Args>(&text).1,
            ];
            if fits.contains(&true) {
                valid_args.set(valid_args.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    // Enough values get past the type checks for the fields to be read.
    println!("{} of {cases} values fit a typed struct", valid_args.get());
    assert!(
        valid_args.get() * 20 >= cases as usize * 3,
        "only {} of {cases} values fit",
        valid_args.get()
    );
}
