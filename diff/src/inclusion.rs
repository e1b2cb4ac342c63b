//! Inclusion of JSON Schemas by the values they admit: does every value schema `A` admits pass
//! schema `B`? The answer is [`Verdict::Yes`], [`Verdict::No`] or [`Verdict::Unknown`] ("cannot
//! tell"), never a guess: `Yes` is sound (no value of `A` fails `B`), `No` means a value of `A`
//! that `B` refuses was found by the keywords alone, and everything this algebra does not
//! decide is `Unknown`.
//!
//! This file depends on `serde_json` and `regress` only (and on `crate::resolve`, plain
//! `serde_json` as well), so that the run-time drift check can use the same algebra.
//!
//! How it decides (`A ⊆ B`, both resolved through `$ref`s in their own roots):
//!
//! 1. Finite schemas are value sets: `enum`, `const`, an `anyOf`/`oneOf` of finite branches, a
//!    `null` or `boolean` type, a closed object whose properties are all finite. Every value of
//!    the set that `A` admits is checked against `B` ([`admits`]).
//! 2. A union in `A` splits: `anyOf`/`oneOf` branches, each merged with `A`'s other keywords,
//!    must each be included. An `allOf` in `A` is merged into one schema (when the merge is
//!    not possible, one branch included in `B` suffices, else `Unknown`).
//! 3. `A` is then split by JSON type (null, boolean, integer, non-integer number, string,
//!    array, object), and each part is compared with `B`: `B`'s `allOf` needs every branch,
//!    its `anyOf` one branch covering that part (when several branches admit the type and none
//!    covers it alone, `Unknown`), its `oneOf` one covering branch and every other branch that
//!    admits the type provably disjoint from it.
//! 4. Per type: bounds (exclusive forms and, on integers, by the integers admitted),
//!    `multipleOf` (a multiple of the new step), lengths, counts, `pattern` and `format` (equal,
//!    or absent from `B`; two different patterns are `Unknown`), `items` recursively,
//!    `uniqueItems`, and for objects `required` (a superset in `A`), each property's schema
//!    (`A`'s property, else its `additionalProperties`, against `B`'s), and the additional
//!    properties.
//! 5. A keyword of `B` this algebra does not model (`not`, `if`, `patternProperties`, ...) is
//!    satisfied when `A` has it with the same value, else `Unknown`. Such keywords in `A` only
//!    narrow `A`: they cannot turn a `Yes` wrong, but a `No` becomes `Unknown`.
//!
//! Recursive schemas are compared coinductively (a pair met again while it is being compared
//! is assumed included; a result that leaned on an assumption later found false is dropped
//! from the cache). Work is bounded by a node budget; past it the answer is `Unknown`.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use crate::resolve::{reference, resolve};

/// The answer to "does every value the first schema admits pass the second?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every value passes.
    Yes,
    /// Some value does not.
    No,
    /// Cannot tell.
    Unknown,
}

impl Verdict {
    /// Both hold.
    pub fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::No, _) | (_, Verdict::No) => Verdict::No,
            (Verdict::Yes, Verdict::Yes) => Verdict::Yes,
            _ => Verdict::Unknown,
        }
    }

    /// One holds.
    pub fn or(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Yes, _) | (_, Verdict::Yes) => Verdict::Yes,
            (Verdict::No, Verdict::No) => Verdict::No,
            _ => Verdict::Unknown,
        }
    }

    fn from_bool(b: bool) -> Verdict {
        if b { Verdict::Yes } else { Verdict::No }
    }

    /// `No` becomes `Unknown` (the sub-schema has keywords this algebra ignored).
    fn soften(self, soft: bool) -> Verdict {
        if soft && self == Verdict::No {
            Verdict::Unknown
        } else {
            self
        }
    }
}

/// Schema nodes an inclusion question may visit before answering `Unknown`.
pub const INCLUSION_BUDGET: usize = 200_000;

/// Deeper than this (following `$ref`s), the answer is `Unknown`. Low enough for a thread's
/// default stack: callers outside `diff` (which runs on a big stack) ask on theirs.
const MAX_DEPTH: usize = 64;

/// At most this many values make a finite schema.
const MAX_VALUES: usize = 1024;

pub(crate) const NULL: u8 = 1;
pub(crate) const BOOLEAN: u8 = 2;
pub(crate) const INTEGER: u8 = 4;
pub(crate) const FRACTION: u8 = 8;
pub(crate) const STRING: u8 = 16;
pub(crate) const ARRAY: u8 = 32;
pub(crate) const OBJECT: u8 = 64;
pub(crate) const ALL: u8 = 127;

/// Keywords that do not restrict values.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "discriminator",
    "markdownDescription",
    "enumDescriptions",
    "nullable",
];

/// Keywords this algebra models (the rest are compared by equality, see the module docs).
const MODELLED: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "additionalItems",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
];

fn type_bit(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => INTEGER | FRACTION,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => ALL,
    }
}

/// The JSON types a schema's `type` admits (`integer` is part of `number`; OpenAPI's
/// `nullable: true` adds `null`).
pub(crate) fn types(m: &Map<String, Value>) -> u8 {
    let mut bits = match m.get("type") {
        Some(Value::String(name)) => type_bit(name),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .fold(0, |bits, name| bits | type_bit(name)),
        _ => ALL,
    };
    if m.get("nullable") == Some(&Value::Bool(true)) {
        bits |= NULL;
    }
    bits
}

/// `string | number | null`, `any` or `nothing`.
pub(crate) fn type_names(bits: u8) -> String {
    if bits == ALL {
        return "any".into();
    }
    let mut names = Vec::new();
    for (bit, name) in [
        (STRING, "string"),
        (INTEGER | FRACTION, "number"),
        (BOOLEAN, "boolean"),
        (OBJECT, "object"),
        (ARRAY, "array"),
        (NULL, "null"),
    ] {
        if bits & bit == bit {
            names.push(name);
        } else if bit == INTEGER | FRACTION && bits & INTEGER != 0 {
            names.push("integer");
        } else if bit == INTEGER | FRACTION && bits & FRACTION != 0 {
            names.push("non-integer number");
        }
    }
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(" | ")
    }
}

/// The JSON type bit of a value.
pub(crate) fn type_of(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(n) if is_integer(n) => INTEGER,
        Value::Number(_) => FRACTION,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

pub(crate) use mcp_bindgen_core::value::equal;

fn map(v: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    v.as_object().unwrap_or(&EMPTY)
}

fn array<'v>(m: &'v Map<String, Value>, key: &str) -> Option<&'v [Value]> {
    m.get(key).and_then(Value::as_array).map(Vec::as_slice)
}

fn required(m: &Map<String, Value>) -> Vec<&str> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn count(m: &Map<String, Value>, key: &str) -> Option<u64> {
    let v = m.get(key)?;
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f.max(0.0).ceil() as u64))
}

/// Whether a keyword restricts values but is not modelled here.
fn opaque(key: &str) -> bool {
    !MODELLED.contains(&key) && !ANNOTATIONS.contains(&key) && !key.starts_with("x-")
}

/// Whether a schema has keywords that restrict values and are not modelled.
fn has_opaque(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| opaque(k))
}

/// A lower or upper bound on numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bound {
    /// The bound.
    pub(crate) value: f64,
    /// Whether the bound itself is excluded.
    pub(crate) exclusive: bool,
}

impl Bound {
    /// Whether `self` admits fewer values than `other` (both lower or both upper bounds).
    pub(crate) fn tighter_than(self, other: Bound, lower: bool) -> bool {
        if self.value == other.value {
            return self.exclusive && !other.exclusive;
        }
        (self.value > other.value) == lower
    }
}

/// The effective lower (or upper) bound: the tighter of the inclusive and exclusive keywords
/// (draft 4's boolean `exclusiveMinimum` included); on integers, as the inclusive integer.
pub(crate) fn bound(m: &Map<String, Value>, lower: bool, integer: bool) -> Option<Bound> {
    let (inclusive, exclusive) = if lower {
        ("minimum", "exclusiveMinimum")
    } else {
        ("maximum", "exclusiveMaximum")
    };
    let draft4 = m.get(exclusive) == Some(&Value::Bool(true));
    let mut best: Option<Bound> = m.get(inclusive).and_then(Value::as_f64).map(|value| Bound {
        value,
        exclusive: draft4,
    });
    if let Some(value) = m.get(exclusive).and_then(Value::as_f64) {
        let candidate = Bound {
            value,
            exclusive: true,
        };
        if best.is_none_or(|b| candidate.tighter_than(b, lower)) {
            best = Some(candidate);
        }
    }
    let b = best?;
    if !integer || !b.value.is_finite() {
        return Some(b);
    }
    let value = match (lower, b.exclusive) {
        (true, true) => b.value.floor() + 1.0,
        (true, false) => b.value.ceil(),
        (false, true) => b.value.ceil() - 1.0,
        (false, false) => b.value.floor(),
    };
    Some(Bound {
        value,
        exclusive: false,
    })
}

/// Whether `n` is a whole multiple of `step` (exactly, for the steps real schemas use).
fn multiple(n: f64, step: f64) -> bool {
    if step <= 0.0 || !step.is_finite() || !n.is_finite() {
        return false;
    }
    let q = n / step;
    (q - q.round()).abs() < 1e-9
}

/// Whether `value` passes `schema` (resolved in `root`): `Unknown` for a keyword this module
/// does not model or a pattern that is not a valid ECMAScript regex.
pub fn admits(root: &Value, schema: &Value, value: &Value) -> Verdict {
    let mut walk = Walk {
        stack: Vec::new(),
        budget: ADMITS_BUDGET,
    };
    admits_at(root, schema, value, 0, &mut walk)
}

/// Schema nodes one [`admits`] question may visit before answering `Unknown`.
const ADMITS_BUDGET: usize = 20_000;

/// The (schema, value) pairs being checked, to cut cycles of references that consume no
/// value (`D = {"anyOf": [{"$ref": "#/$defs/D"}, ...]}`), and the work left.
struct Walk {
    stack: Vec<(usize, usize)>,
    budget: usize,
}

fn admits_at(
    root: &Value,
    schema: &Value,
    value: &Value,
    depth: usize,
    walk: &mut Walk,
) -> Verdict {
    if depth > MAX_DEPTH || walk.budget == 0 {
        return Verdict::Unknown;
    }
    walk.budget -= 1;
    let key = (
        schema as *const Value as usize,
        value as *const Value as usize,
    );
    if walk.stack.contains(&key) {
        return Verdict::Unknown;
    }
    walk.stack.push(key);
    let verdict = admits_node(root, schema, value, depth, walk);
    walk.stack.pop();
    verdict
}

fn admits_node(
    root: &Value,
    schema: &Value,
    value: &Value,
    depth: usize,
    walk: &mut Walk,
) -> Verdict {
    let m = match schema {
        Value::Bool(b) => return Verdict::from_bool(*b),
        Value::Object(m) => m,
        _ => return Verdict::Yes,
    };
    let mut verdict = Verdict::Yes;
    if reference(schema).is_some() {
        let target = resolve(root, schema);
        if std::ptr::eq(target, schema) {
            return Verdict::Unknown;
        }
        verdict = admits_at(root, target, value, depth + 1, walk);
        if verdict == Verdict::No {
            return verdict;
        }
    }
    let check = |ok: bool, verdict: &mut Verdict| *verdict = verdict.and(Verdict::from_bool(ok));
    for (key, keyword) in m {
        match key.as_str() {
            "$ref" => {}
            "type" => check(types(m) & type_of(value) != 0, &mut verdict),
            "nullable" => {}
            "enum" => check(
                keyword
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|v| equal(v, value))),
                &mut verdict,
            ),
            "const" => check(equal(keyword, value), &mut verdict),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let Some(n) = value.as_f64() {
                    let lower = key.ends_with("inimum");
                    if let Some(b) = bound(m, lower, false) {
                        let ok = if lower {
                            n > b.value || (n == b.value && !b.exclusive)
                        } else {
                            n < b.value || (n == b.value && !b.exclusive)
                        };
                        check(ok, &mut verdict);
                    }
                }
            }
            "multipleOf" => {
                if let (Some(n), Some(step)) = (value.as_f64(), keyword.as_f64()) {
                    check(multiple(n, step), &mut verdict);
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(s), Some(limit)) = (value.as_str(), keyword.as_u64()) {
                    let len = s.chars().count() as u64;
                    check(
                        if key == "minLength" {
                            len >= limit
                        } else {
                            len <= limit
                        },
                        &mut verdict,
                    );
                }
            }
            "pattern" => {
                if let (Some(s), Some(p)) = (value.as_str(), keyword.as_str()) {
                    verdict = verdict.and(match regress::Regex::new(p) {
                        Ok(re) => Verdict::from_bool(re.find(s).is_some()),
                        Err(_) => Verdict::Unknown,
                    });
                }
            }
            "format" if value.is_string() => verdict = verdict.and(Verdict::Unknown),
            "minItems" | "maxItems" => {
                if let (Some(items), Some(limit)) = (value.as_array(), keyword.as_u64()) {
                    let n = items.len() as u64;
                    check(
                        if key == "minItems" {
                            n >= limit
                        } else {
                            n <= limit
                        },
                        &mut verdict,
                    );
                }
            }
            "uniqueItems" => {
                if let (Some(items), true) = (value.as_array(), keyword == &Value::Bool(true)) {
                    let unique = items
                        .iter()
                        .enumerate()
                        .all(|(i, a)| items[..i].iter().all(|b| !equal(a, b)));
                    check(unique, &mut verdict);
                }
            }
            "items" | "prefixItems" | "additionalItems" => {
                if let Some(items) = value.as_array() {
                    let (prefix, rest): (&[Value], Option<&Value>) =
                        match (m.get("prefixItems"), m.get("items")) {
                            (Some(Value::Array(p)), rest) => (p, rest),
                            (None, Some(Value::Array(p))) => (p, m.get("additionalItems")),
                            (_, rest) => (&[], rest),
                        };
                    // Checked once, for the first of the three keywords met.
                    let first = ["items", "prefixItems", "additionalItems"]
                        .into_iter()
                        .find(|k| m.contains_key(*k));
                    if first == Some(key.as_str()) {
                        for (i, item) in items.iter().enumerate() {
                            let sub = prefix.get(i).or(rest);
                            if let Some(sub) = sub {
                                verdict = verdict.and(admits_at(root, sub, item, depth + 1, walk));
                            }
                        }
                    }
                }
            }
            "required" => {
                if let Some(members) = value.as_object() {
                    check(
                        required(m).iter().all(|r| members.contains_key(*r)),
                        &mut verdict,
                    );
                }
            }
            "minProperties" | "maxProperties" => {
                if let (Some(members), Some(limit)) = (value.as_object(), keyword.as_u64()) {
                    let n = members.len() as u64;
                    check(
                        if key == "minProperties" {
                            n >= limit
                        } else {
                            n <= limit
                        },
                        &mut verdict,
                    );
                }
            }
            "properties" | "additionalProperties" | "patternProperties" => {
                let first = ["properties", "additionalProperties", "patternProperties"]
                    .into_iter()
                    .find(|k| m.contains_key(*k));
                if let (Some(members), true) = (value.as_object(), first == Some(key.as_str())) {
                    let props = m.get("properties").and_then(Value::as_object);
                    let patterns = m.get("patternProperties").and_then(Value::as_object);
                    for (name, member) in members {
                        let mut matched = false;
                        if let Some(sub) = props.and_then(|p| p.get(name)) {
                            matched = true;
                            verdict = verdict.and(admits_at(root, sub, member, depth + 1, walk));
                        }
                        for (pattern, sub) in patterns.into_iter().flatten() {
                            match regress::Regex::new(pattern) {
                                Ok(re) if re.find(name).is_some() => {
                                    matched = true;
                                    verdict =
                                        verdict.and(admits_at(root, sub, member, depth + 1, walk));
                                }
                                Ok(_) => {}
                                Err(_) => verdict = verdict.and(Verdict::Unknown),
                            }
                        }
                        if !matched && let Some(sub) = m.get("additionalProperties") {
                            verdict = verdict.and(admits_at(root, sub, member, depth + 1, walk));
                        }
                    }
                }
            }
            "allOf" => {
                for sub in keyword.as_array().into_iter().flatten() {
                    verdict = verdict.and(admits_at(root, sub, value, depth + 1, walk));
                }
            }
            "anyOf" => {
                let any = keyword
                    .as_array()
                    .into_iter()
                    .flatten()
                    .fold(Verdict::No, |v, sub| {
                        v.or(admits_at(root, sub, value, depth + 1, walk))
                    });
                verdict = verdict.and(any);
            }
            "oneOf" => {
                let mut yes = 0;
                let mut unknown = false;
                for sub in keyword.as_array().into_iter().flatten() {
                    match admits_at(root, sub, value, depth + 1, walk) {
                        Verdict::Yes => yes += 1,
                        Verdict::Unknown => unknown = true,
                        Verdict::No => {}
                    }
                }
                verdict = verdict.and(match (yes, unknown) {
                    (1, false) => Verdict::Yes,
                    (n, _) if n > 1 => Verdict::No,
                    (_, true) => Verdict::Unknown,
                    _ => Verdict::No,
                });
            }
            "not" => {
                let inner = admits_at(root, keyword, value, depth + 1, walk);
                verdict = verdict.and(match inner {
                    Verdict::Yes => Verdict::No,
                    Verdict::No => Verdict::Yes,
                    Verdict::Unknown => Verdict::Unknown,
                });
            }
            k if opaque(k) => verdict = verdict.and(Verdict::Unknown),
            _ => {}
        }
        if verdict == Verdict::No {
            return verdict;
        }
    }
    verdict
}

/// The values a schema admits when they are few: `enum`, `const`, a union of finite branches,
/// a `null` or `boolean` type, a closed object of finite properties. Some may fail the schema's
/// other keywords: callers filter them with [`admits`].
pub fn finite(root: &Value, schema: &Value) -> Option<Vec<Value>> {
    finite_at(root, schema, 0, &mut Vec::new())
}

fn finite_at(
    root: &Value,
    schema: &Value,
    depth: usize,
    stack: &mut Vec<usize>,
) -> Option<Vec<Value>> {
    if depth > 32 {
        return None;
    }
    let schema = resolve(root, schema);
    let key = schema as *const Value as usize;
    if stack.contains(&key) {
        return None;
    }
    stack.push(key);
    let values = finite_node(root, schema, depth, stack);
    stack.pop();
    values
}

fn finite_node(
    root: &Value,
    schema: &Value,
    depth: usize,
    stack: &mut Vec<usize>,
) -> Option<Vec<Value>> {
    let m = match schema {
        Value::Bool(false) => return Some(Vec::new()),
        Value::Object(m) => m,
        _ => return None,
    };
    if let Some(c) = m.get("const") {
        return Some(vec![c.clone()]);
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        return Some(values.iter().take(MAX_VALUES).cloned().collect());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = array(m, key) {
            let mut out: Vec<Value> = Vec::new();
            let mut all = true;
            for branch in branches {
                match finite_at(root, branch, depth + 1, stack) {
                    Some(values) => {
                        for v in values {
                            if !out.iter().any(|o| equal(o, &v)) {
                                out.push(v);
                            }
                        }
                    }
                    None => {
                        all = false;
                        break;
                    }
                }
                if out.len() > MAX_VALUES {
                    return None;
                }
            }
            if all {
                return Some(out);
            }
        }
    }
    if let Some(branches) = array(m, "allOf") {
        for branch in branches {
            if let Some(values) = finite_at(root, branch, depth + 1, stack) {
                return Some(values);
            }
        }
    }
    match types(m) {
        NULL => return Some(vec![Value::Null]),
        BOOLEAN => return Some(vec![Value::Bool(false), Value::Bool(true)]),
        b if b == NULL | BOOLEAN => {
            return Some(vec![Value::Null, Value::Bool(false), Value::Bool(true)]);
        }
        OBJECT
            if m.get("additionalProperties") == Some(&Value::Bool(false))
                && !m.contains_key("patternProperties") =>
        {
            let props = m.get("properties").and_then(Value::as_object);
            let req = required(m);
            let mut objects: Vec<Map<String, Value>> = vec![Map::new()];
            for (name, sub) in props.into_iter().flatten() {
                let values = finite_at(root, sub, depth + 1, stack)?;
                let mut next = Vec::new();
                for o in &objects {
                    if !req.contains(&name.as_str()) {
                        next.push(o.clone());
                    }
                    for v in &values {
                        let mut o = o.clone();
                        o.insert(name.clone(), v.clone());
                        next.push(o);
                    }
                }
                if next.len() > MAX_VALUES {
                    return None;
                }
                objects = next;
            }
            return Some(objects.into_iter().map(Value::Object).collect());
        }
        _ => {}
    }
    None
}

/// `a` and `b` merged into one schema that admits what both admit, when their keywords do not
/// clash (annotations are taken from `a`).
fn merge(a: &Map<String, Value>, b: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut out = a.clone();
    for (key, vb) in b {
        let Some(va) = a.get(key) else {
            out.insert(key.clone(), vb.clone());
            continue;
        };
        if equal(va, vb) || ANNOTATIONS.contains(&key.as_str()) {
            continue;
        }
        match key.as_str() {
            "type" => {
                let bits = types(a) & types(b);
                let names: Vec<Value> = [
                    (NULL, "null"),
                    (BOOLEAN, "boolean"),
                    (STRING, "string"),
                    (ARRAY, "array"),
                    (OBJECT, "object"),
                ]
                .into_iter()
                .filter(|(bit, _)| bits & bit != 0)
                .map(|(_, n)| Value::String(n.into()))
                .chain(match bits & (INTEGER | FRACTION) {
                    0 => None,
                    INTEGER => Some(Value::String("integer".into())),
                    _ => Some(Value::String("number".into())),
                })
                .collect();
                if bits & FRACTION != 0 && bits & INTEGER == 0 {
                    return None;
                }
                out.insert(key.clone(), Value::Array(names));
            }
            "required" => {
                let mut names: Vec<&str> = required(a);
                for r in required(b) {
                    if !names.contains(&r) {
                        names.push(r);
                    }
                }
                out.insert(
                    key.clone(),
                    Value::Array(names.into_iter().map(|n| Value::String(n.into())).collect()),
                );
            }
            "properties" => {
                let (pa, pb) = (va.as_object()?, vb.as_object()?);
                let mut props = pa.clone();
                for (name, sb) in pb {
                    match pa.get(name) {
                        Some(sa) if !equal(sa, sb) => {
                            props.insert(
                                name.clone(),
                                serde_json::json!({"allOf": [sa.clone(), sb.clone()]}),
                            );
                        }
                        Some(_) => {}
                        None => {
                            props.insert(name.clone(), sb.clone());
                        }
                    }
                }
                out.insert(key.clone(), Value::Object(props));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Whether a schema admits every value.
fn trivial(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m
            .keys()
            .all(|k| ANNOTATIONS.contains(&k.as_str()) || k.starts_with("x-")),
        _ => true,
    }
}

static TRUE: Value = Value::Bool(true);
static FALSE: Value = Value::Bool(false);

/// `m` without the keywords this algebra does not model, and whether it had any.
fn modelled(m: &Map<String, Value>) -> (Map<String, Value>, bool) {
    let mut out = m.clone();
    out.retain(|k, _| !opaque(k));
    let dropped = out.len() != m.len();
    (out, dropped)
}

/// The assertions beside a `$ref` (nothing when there are none).
fn ref_siblings(schema: &Value) -> Option<Map<String, Value>> {
    let m = schema.as_object()?;
    m.get("$ref")?;
    let mut rest = m.clone();
    rest.retain(|k, _| k != "$ref" && !ANNOTATIONS.contains(&k.as_str()) && !k.starts_with("x-"));
    (!rest.is_empty()).then_some(rest)
}

/// Whether a schema holds a `$ref` anywhere.
fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| k == "$ref" || has_ref(v)),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// `m` without `key`.
fn without(m: &Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut out = m.clone();
    out.remove(key);
    out
}

/// Answers inclusion questions between the schemas of one tool's old and new sides.
#[derive(Debug)]
pub struct Inclusion<'a> {
    sub_root: &'a Value,
    sup_root: &'a Value,
    memo: HashMap<(usize, usize), Verdict>,
    log: Vec<(usize, usize)>,
    budget: usize,
    declared_only: bool,
    same_roots: bool,
    typed_stack: Vec<usize>,
    /// Why the last `Unknown` was answered, when known.
    pub reason: Option<String>,
}

impl<'a> Inclusion<'a> {
    /// Questions about values of schemas in `sub_root` passing schemas in `sup_root`, by
    /// JSON Schema's own rules: an object schema without `additionalProperties` admits any
    /// other property.
    pub fn new(sub_root: &'a Value, sup_root: &'a Value) -> Self {
        Inclusion {
            sub_root,
            sup_root,
            memo: HashMap::new(),
            log: Vec::new(),
            budget: INCLUSION_BUDGET,
            declared_only: false,
            same_roots: equal(sub_root, sup_root),
            typed_stack: Vec::new(),
            reason: None,
        }
    }

    /// The same questions about the values a peer built from the sub-schema sends: an object
    /// holds only the properties its schema declares, unless the schema states
    /// `additionalProperties` (a client sends the arguments it knows; a server returns the
    /// fields it declares). This is how `diff` asks: a new optional argument takes nothing
    /// from a client, though an old schema without `additionalProperties` admitted that name
    /// with any value.
    pub fn declared(sub_root: &'a Value, sup_root: &'a Value) -> Self {
        Inclusion {
            declared_only: true,
            ..Inclusion::new(sub_root, sup_root)
        }
    }

    /// Does every value `sub` admits pass `sup`?
    pub fn includes(&mut self, sub: &Value, sup: &Value) -> Verdict {
        self.incl(sub, sup, 0, true)
    }

    fn unknown(&mut self, why: impl FnOnce() -> String) -> Verdict {
        if self.reason.is_none() {
            self.reason = Some(why());
        }
        Verdict::Unknown
    }

    /// `stable`: both nodes live in the roots (not merged copies), so they may be cached by
    /// address.
    fn incl(&mut self, a: &Value, b: &Value, depth: usize, stable: bool) -> Verdict {
        if depth > MAX_DEPTH {
            return self.unknown(|| format!("nested deeper than {MAX_DEPTH} levels"));
        }
        if self.budget == 0 {
            return self.unknown(|| format!("more than {INCLUSION_BUDGET} schema nodes"));
        }
        self.budget -= 1;
        let a = resolve(self.sub_root, a);
        // A reference with other assertions beside it needs both (`resolve` keeps the target
        // only). On `a`'s side leaving them out only widens it.
        if let Some(rest) = ref_siblings(b)
            && let target = resolve(self.sup_root, b)
            && !std::ptr::eq(target, b)
        {
            let v = self.incl(a, target, depth + 1, stable);
            if v == Verdict::No {
                return v;
            }
            return v.and(self.incl(a, &Value::Object(rest), depth + 1, false));
        }
        let b = resolve(self.sup_root, b);
        if trivial(b) {
            return Verdict::Yes;
        }
        // The same schema (whose references, if any, mean the same).
        if (self.same_roots || !has_ref(a)) && equal(a, b) {
            return Verdict::Yes;
        }
        // `resolve` stops at a reference only when it does not resolve.
        match (reference(a), reference(b)) {
            (Some(x), Some(y)) if x == y => return Verdict::Yes,
            (Some(r), _) | (_, Some(r)) => {
                return self.unknown(|| format!("the $ref {r:?} does not resolve"));
            }
            _ => {}
        }
        if !stable {
            return self.decide(a, b, depth, false);
        }
        let key = (a as *const Value as usize, b as *const Value as usize);
        if let Some(v) = self.memo.get(&key) {
            return *v;
        }
        let mark = self.log.len();
        self.memo.insert(key, Verdict::Yes);
        self.log.push(key);
        let v = self.decide(a, b, depth, true);
        if v != Verdict::Yes {
            // Results that assumed this pair included are no longer trusted.
            for k in self.log.drain(mark..) {
                self.memo.remove(&k);
            }
        }
        self.memo.insert(key, v);
        self.log.push(key);
        v
    }

    fn decide(&mut self, a: &Value, b: &Value, depth: usize, stable: bool) -> Verdict {
        if a == &Value::Bool(false) {
            return Verdict::Yes;
        }
        let am = map(a);
        let soft = has_opaque(am);
        // 1. A finite schema is its values.
        if let Some(values) = finite(self.sub_root, a) {
            if values.len() > self.budget {
                return self.unknown(|| format!("more than {INCLUSION_BUDGET} schema nodes"));
            }
            self.budget -= values.len();
            let mut verdict = Verdict::Yes;
            for v in &values {
                let inside = admits(self.sub_root, a, v);
                if inside == Verdict::No {
                    continue;
                }
                let passes = admits(self.sup_root, b, v);
                verdict = verdict.and(match (inside, passes) {
                    (_, Verdict::Yes) => Verdict::Yes,
                    (Verdict::Yes, Verdict::No) => Verdict::No,
                    _ => Verdict::Unknown,
                });
                if verdict == Verdict::No {
                    return verdict;
                }
            }
            if verdict == Verdict::Unknown {
                return self.unknown(|| "a value's check is not modelled".into());
            }
            return verdict;
        }
        if b == &Value::Bool(false) {
            return Verdict::No.soften(soft);
        }
        // 2. Unions in `a` split; an `allOf` in `a` merges.
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = array(am, key) {
                let rest = without(am, key);
                let mut verdict = Verdict::Yes;
                let plain = trivial(&Value::Object(rest.clone()));
                for branch in branches {
                    if plain {
                        // Nothing to merge: the branch itself, cached (and cycles cut).
                        verdict = verdict.and(self.incl(branch, b, depth + 1, stable));
                        if verdict == Verdict::No {
                            break;
                        }
                        continue;
                    }
                    let branch = resolve(self.sub_root, branch);
                    let v = match merge(&rest, map(branch)) {
                        Some(merged) => self.incl(&Value::Object(merged), b, depth + 1, false),
                        None => {
                            let rest = Value::Object(rest.clone());
                            let one = self.incl(branch, b, depth + 1, stable);
                            let other = self.incl(&rest, b, depth + 1, false);
                            match one.or(other) {
                                Verdict::No => self.unknown(|| {
                                    format!("a {key} branch's keywords clash with its siblings'")
                                }),
                                v => v,
                            }
                        }
                    };
                    verdict = verdict.and(v);
                    if verdict == Verdict::No {
                        break;
                    }
                }
                return verdict;
            }
        }
        if let Some(branches) = array(am, "allOf") {
            // Keywords not modelled only narrow `a`: leaving them out keeps a `Yes` true.
            let (rest, mut dropped) = modelled(&without(am, "allOf"));
            let mut merged = Some(rest);
            for branch in branches {
                let (branch, d) = modelled(map(resolve(self.sub_root, branch)));
                dropped |= d;
                merged = merged.and_then(|m| merge(&m, &branch));
            }
            if let Some(m) = &merged
                && dropped
            {
                let v = self.incl(&Value::Object(m.clone()), b, depth + 1, false);
                return v.soften(true);
            }
            return match merged {
                Some(merged) => self.incl(&Value::Object(merged), b, depth + 1, false),
                None => {
                    let mut verdict = Verdict::No;
                    for branch in branches {
                        verdict = verdict.or(self.incl(branch, b, depth + 1, stable));
                    }
                    if verdict == Verdict::Yes {
                        verdict
                    } else {
                        self.unknown(|| "an allOf whose branches cannot be merged".into())
                    }
                }
            };
        }
        // 3. By type.
        let mut verdict = Verdict::Yes;
        for t in [NULL, BOOLEAN, INTEGER, FRACTION, STRING, ARRAY, OBJECT] {
            if types(am) & t == 0 {
                continue;
            }
            verdict = verdict.and(self.typed(am, b, t, depth, stable));
            if verdict == Verdict::No {
                break;
            }
        }
        verdict.soften(soft)
    }

    /// Whether the values of type `t` that `a` (with no combinators) admits pass `b`.
    fn typed(
        &mut self,
        am: &Map<String, Value>,
        b: &Value,
        t: u8,
        depth: usize,
        stable: bool,
    ) -> Verdict {
        if depth > MAX_DEPTH {
            return self.unknown(|| format!("nested deeper than {MAX_DEPTH} levels"));
        }
        if self.budget == 0 {
            return self.unknown(|| format!("more than {INCLUSION_BUDGET} schema nodes"));
        }
        self.budget -= 1;
        let b = resolve(self.sup_root, b);
        let key = b as *const Value as usize;
        if self.typed_stack.contains(&key) {
            return self.unknown(|| "a reference cycle that consumes no value".into());
        }
        self.typed_stack.push(key);
        let v = self.typed_node(am, b, t, depth, stable);
        self.typed_stack.pop();
        v
    }

    fn typed_node(
        &mut self,
        am: &Map<String, Value>,
        b: &Value,
        t: u8,
        depth: usize,
        stable: bool,
    ) -> Verdict {
        let bm = match b {
            Value::Bool(v) => return Verdict::from_bool(*v),
            Value::Object(m) => m,
            _ => return Verdict::Yes,
        };
        let mut verdict = self.base(am, b, bm, t, depth, stable);
        if verdict == Verdict::No {
            return verdict;
        }
        if let Some(branches) = array(bm, "allOf") {
            for branch in branches {
                verdict = verdict.and(self.typed(am, branch, t, depth + 1, stable));
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(branches) = array(bm, key) else {
                continue;
            };
            let admitting: Vec<&Value> = branches
                .iter()
                .filter(|br| admits_type(self.sup_root, br, t))
                .collect();
            let mut covering: Vec<(usize, Verdict)> = Vec::new();
            for (i, branch) in admitting.iter().enumerate() {
                covering.push((i, self.typed(am, branch, t, depth + 1, stable)));
            }
            let found = covering
                .iter()
                .find(|(_, v)| *v == Verdict::Yes)
                .map(|(i, _)| *i);
            let v = match found {
                Some(i) if key == "oneOf" => {
                    let mut exclusive = Verdict::Yes;
                    for (j, other) in admitting.iter().enumerate() {
                        if j != i && !disjoint(self.sup_root, admitting[i], other, 0) {
                            exclusive = self.unknown(|| "oneOf branches that may overlap".into());
                        }
                    }
                    exclusive
                }
                Some(_) => Verdict::Yes,
                None => match covering.as_slice() {
                    [] => Verdict::No,
                    [(_, v)] => *v,
                    _ if covering.iter().all(|(_, v)| *v == Verdict::No) => self.unknown(|| {
                        format!(
                            "no single {key} branch covers the old values, several together may"
                        )
                    }),
                    _ => Verdict::Unknown,
                },
            };
            verdict = verdict.and(v);
        }
        verdict
    }

    /// The keywords of `b` other than its combinators, for the values of type `t` of `a`.
    fn base(
        &mut self,
        am: &Map<String, Value>,
        b: &Value,
        bm: &Map<String, Value>,
        t: u8,
        depth: usize,
        stable: bool,
    ) -> Verdict {
        if types(bm) & t == 0 {
            return Verdict::No;
        }
        let mut verdict = Verdict::Yes;
        // Keywords not modelled: equal in `a`, else unknown.
        for (key, vb) in bm {
            if opaque(key) && !am.get(key).is_some_and(|va| equal(va, vb)) {
                let key = key.clone();
                verdict =
                    verdict.and(self.unknown(|| format!("the keyword `{key}` is not compared")));
            }
        }
        if bm.contains_key("enum") || bm.contains_key("const") {
            // `a` is not finite here: it admits more values than any list.
            return match t {
                NULL => admits(self.sup_root, b, &Value::Null),
                BOOLEAN => admits(self.sup_root, b, &Value::Bool(false)).and(admits(
                    self.sup_root,
                    b,
                    &Value::Bool(true),
                )),
                _ => Verdict::No,
            };
        }
        match t {
            INTEGER | FRACTION => {
                let integer = t == INTEGER;
                for lower in [true, false] {
                    if let Some(nb) = bound(bm, lower, integer) {
                        let ok = match bound(am, lower, integer) {
                            None => false,
                            Some(na) => !nb.tighter_than(na, lower),
                        };
                        verdict = verdict.and(Verdict::from_bool(ok));
                    }
                }
                if let Some(step) = bm.get("multipleOf").and_then(Value::as_f64) {
                    let ok = match am.get("multipleOf").and_then(Value::as_f64) {
                        Some(a) => multiple(a, step),
                        None => integer && step == 1.0,
                    };
                    verdict = verdict.and(Verdict::from_bool(ok));
                }
            }
            STRING => {
                verdict = verdict.and(counts(am, bm, "minLength", "maxLength"));
                for key in ["pattern", "format"] {
                    if let Some(pb) = bm.get(key) {
                        verdict = verdict.and(match am.get(key) {
                            None => Verdict::No,
                            Some(pa) if pa == pb => Verdict::Yes,
                            Some(_) => self.unknown(|| format!("two different {key}s")),
                        });
                    }
                }
            }
            ARRAY => {
                verdict = verdict.and(counts(am, bm, "minItems", "maxItems"));
                if bm.get("uniqueItems") == Some(&Value::Bool(true))
                    && am.get("uniqueItems") != Some(&Value::Bool(true))
                    && count(am, "maxItems").is_none_or(|m| m > 1)
                {
                    verdict = verdict.and(Verdict::No);
                }
                let tuple = |m: &Map<String, Value>| {
                    m.contains_key("prefixItems") || m.get("items").is_some_and(Value::is_array)
                };
                if tuple(am) || tuple(bm) {
                    let same = ["prefixItems", "items", "additionalItems"]
                        .iter()
                        .all(|k| am.get(*k) == bm.get(*k));
                    if !same {
                        verdict = verdict.and(self.unknown(|| "tuple arrays".into()));
                    }
                } else if let Some(ib) = bm.get("items") {
                    let ia = am.get("items").unwrap_or(&TRUE);
                    if count(am, "maxItems") != Some(0) {
                        verdict = verdict.and(self.incl(ia, ib, depth + 1, stable));
                    }
                }
            }
            OBJECT => verdict = verdict.and(self.object(am, bm, depth, stable)),
            _ => {}
        }
        verdict
    }

    fn object(
        &mut self,
        am: &Map<String, Value>,
        bm: &Map<String, Value>,
        depth: usize,
        stable: bool,
    ) -> Verdict {
        let mut verdict = counts(am, bm, "minProperties", "maxProperties");
        let (ra, rb) = (required(am), required(bm));
        if rb.iter().any(|r| !ra.contains(r)) {
            return Verdict::No;
        }
        let t = &TRUE;
        let pa = am.get("properties").and_then(Value::as_object);
        let pb = bm.get("properties").and_then(Value::as_object);
        let addl_a = am
            .get("additionalProperties")
            .unwrap_or(if self.declared_only { &FALSE } else { t });
        let addl_b = bm.get("additionalProperties").unwrap_or(t);
        if am.get("patternProperties") != bm.get("patternProperties") {
            return self.unknown(|| "patternProperties".into());
        }
        // Properties `b` names: what `a` allows there must pass.
        for (name, sb) in pb.into_iter().flatten() {
            let sa = pa.and_then(|p| p.get(name)).unwrap_or(addl_a);
            verdict = verdict.and(self.incl(sa, sb, depth + 1, stable));
            if verdict == Verdict::No {
                return verdict;
            }
        }
        // Properties only `a` names meet `b`'s additionalProperties.
        for (name, sa) in pa.into_iter().flatten() {
            if pb.is_some_and(|p| p.contains_key(name)) {
                continue;
            }
            verdict = verdict.and(self.incl(sa, addl_b, depth + 1, stable));
            if verdict == Verdict::No {
                return verdict;
            }
        }
        // Every other name.
        verdict.and(self.incl(addl_a, addl_b, depth + 1, stable))
    }
}

/// Lower and upper counts (`minLength`/`maxLength` and the like): `b`'s may not be tighter.
fn counts(am: &Map<String, Value>, bm: &Map<String, Value>, min: &str, max: &str) -> Verdict {
    let mut ok = true;
    if let Some(nb) = count(bm, min)
        && nb > 0
    {
        ok &= count(am, min).is_some_and(|na| na >= nb);
    }
    if let Some(nb) = count(bm, max) {
        ok &= count(am, max).is_some_and(|na| na <= nb);
    }
    Verdict::from_bool(ok)
}

/// Whether a schema may admit values of type `t` (by its `type` keyword).
fn admits_type(root: &Value, schema: &Value, t: u8) -> bool {
    match resolve(root, schema) {
        Value::Bool(b) => *b,
        Value::Object(m) => {
            if let Some(values) = finite(root, schema) {
                return values.iter().any(|v| type_of(v) == t);
            }
            types(m) & t != 0
        }
        _ => true,
    }
}

/// Whether no value passes both `a` and `b`, by their types, their value sets, or a required
/// property whose values differ (a discriminator).
fn disjoint(root: &Value, a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let (a, b) = (resolve(root, a), resolve(root, b));
    let (am, bm) = (map(a), map(b));
    if types(am) & types(bm) == 0 {
        return true;
    }
    if let Some(values) = finite(root, a) {
        return values
            .iter()
            .all(|v| admits(root, a, v) == Verdict::No || admits(root, b, v) == Verdict::No);
    }
    if let Some(values) = finite(root, b) {
        return values
            .iter()
            .all(|v| admits(root, b, v) == Verdict::No || admits(root, a, v) == Verdict::No);
    }
    let (pa, pb) = (
        am.get("properties").and_then(Value::as_object),
        bm.get("properties").and_then(Value::as_object),
    );
    if let (Some(pa), Some(pb)) = (pa, pb) {
        let (ra, rb) = (required(am), required(bm));
        for (name, sa) in pa {
            if let Some(sb) = pb.get(name)
                && ra.contains(&name.as_str())
                && rb.contains(&name.as_str())
                && disjoint(root, sa, sb, depth + 1)
            {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn incl(a: Value, b: Value) -> Verdict {
        Inclusion::new(&a, &b).includes(&a, &b)
    }

    #[test]
    fn value_sets_compare_as_sets() {
        let e = json!({"enum": ["a", "b"]});
        let any = json!({"anyOf": [{"const": "a"}, {"const": "b"}]});
        assert_eq!(incl(e.clone(), any.clone()), Verdict::Yes);
        assert_eq!(incl(any, e.clone()), Verdict::Yes);
        assert_eq!(incl(e, json!({"enum": ["a", "c"]})), Verdict::No);
        assert_eq!(
            incl(json!({"type": "string"}), json!({"enum": ["a"]})),
            Verdict::No
        );
    }

    #[test]
    fn unions_split_by_branch_and_type() {
        let closed = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": false});
        let open = json!({"type": "object", "additionalProperties": true});
        assert_eq!(incl(closed.clone(), open.clone()), Verdict::Yes);
        assert_eq!(incl(open, closed.clone()), Verdict::No);
        let either = json!({"anyOf": [closed.clone(), {"type": "string"}]});
        assert_eq!(incl(closed.clone(), either.clone()), Verdict::Yes);
        assert_eq!(incl(either, closed), Verdict::No);
        assert_eq!(
            incl(
                json!({"type": ["string", "integer"]}),
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
            ),
            Verdict::Yes
        );
    }

    #[test]
    fn bounds_patterns_and_unknowns() {
        assert_eq!(
            incl(
                json!({"type": "integer", "exclusiveMinimum": 0}),
                json!({"type": "integer", "minimum": 1})
            ),
            Verdict::Yes
        );
        assert_eq!(
            incl(
                json!({"type": "number", "exclusiveMinimum": 0}),
                json!({"type": "number", "minimum": 1})
            ),
            Verdict::No
        );
        assert_eq!(
            incl(
                json!({"type": "string", "pattern": "^a"}),
                json!({"type": "string", "pattern": "^b"})
            ),
            Verdict::Unknown
        );
        assert_eq!(
            incl(json!({"type": "string"}), json!({"not": {"const": "x"}})),
            Verdict::Unknown
        );
    }

    #[test]
    fn recursion_terminates() {
        let tree = json!({"$ref": "#/$defs/N", "$defs": {"N": {"type": "object",
            "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}}});
        assert_eq!(incl(tree.clone(), tree), Verdict::Yes);
    }
}
