//! A small JSON Schema validator for tool arguments (draft-04 to 2020-12 keywords that
//! constrain values). typify's types accept values a schema forbids (an integer over its
//! `maximum`, an array under `minItems`, a wrong `const` in an `anyOf` branch); generated
//! methods run this check before anything is sent, so the server never sees them.
//!
//! Integers compare exactly at any size serde_json keeps (beyond 2^53), lengths count code
//! points, and `pattern` is an ECMAScript regex (regress). Unknown keywords, `format` and
//! references outside the schema are not checked (they never refuse a value).
//!
//! Two implementations with the same verdicts: [`CompiledSchema`] (compiled once, what
//! [`ToolSchema`] and the server's registry use) and [`validate_value`], which interprets the
//! schema on each call and is the reference the compiled form is tested against. The compiled
//! form reads a `Value` or a [`JsonTree`] (arguments parsed without a `Value`, as the server's
//! registry parses them).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::pointer::escape;
use crate::value::{compare, equal};
use serde_json::{Map, Number, Value};

mod compiled;
#[cfg(test)]
mod tests;
mod tree;
#[cfg(test)]
mod tree_tests;

pub use compiled::CompiledSchema;
pub use tree::JsonTree;

/// A tool's input schema, kept as the JSON text the server sent, parsed and compiled on first
/// use.
pub struct ToolSchema {
    json: &'static str,
    parsed: OnceLock<Option<Value>>,
    compiled: OnceLock<Option<CompiledSchema>>,
}

impl fmt::Debug for ToolSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSchema")
            .field("json", &self.json)
            .finish()
    }
}

/// Why a value does not satisfy a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer of the refused value (`""` is the whole value).
    pub pointer: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

impl std::error::Error for Violation {}

/// Recursion bound for `$ref` cycles that never consume input.
const MAX_DEPTH: usize = 256;

impl ToolSchema {
    /// A schema from its JSON text (usually a literal in generated code).
    pub const fn new(json: &'static str) -> Self {
        ToolSchema {
            json,
            parsed: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// The schema's JSON text.
    pub fn json(&self) -> &'static str {
        self.json
    }

    /// The parsed schema; `None` when the text is not JSON (then nothing is checked).
    pub fn schema(&self) -> Option<&Value> {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.json).ok())
            .as_ref()
    }

    /// The compiled schema (compiled on the first call); `None` when the text is not JSON.
    pub fn compiled(&self) -> Option<&CompiledSchema> {
        self.compiled
            .get_or_init(|| self.schema().map(CompiledSchema::new))
            .as_ref()
    }

    /// Checks `value` against the schema; the first violation found is returned.
    pub fn validate(&self, value: &Value) -> Result<(), Violation> {
        match self.compiled() {
            Some(compiled) => compiled.validate(value),
            None => Ok(()),
        }
    }
}

/// Checks `value` against the JSON Schema `schema`, interpreting the schema keyword by keyword
/// (patterns are cached); the first violation found is returned.
///
/// For one-off checks. To check many values against one schema, compile it once with
/// [`CompiledSchema::new`]: same verdicts and violations, without the lookups.
pub fn validate_value(schema: &Value, value: &Value) -> Result<(), Violation> {
    static PATTERNS: Mutex<BTreeMap<String, Option<regress::Regex>>> = Mutex::new(BTreeMap::new());
    let checker = Checker {
        root: schema,
        patterns: &PATTERNS,
    };
    let mut pointer = String::new();
    checker.check(schema, value, &mut pointer, At::ROOT)
}

fn pattern_matches(
    patterns: &Mutex<BTreeMap<String, Option<regress::Regex>>>,
    pattern: &str,
    text: &str,
) -> bool {
    let mut cache = match patterns.lock() {
        Ok(cache) => cache,
        Err(poisoned) => poisoned.into_inner(),
    };
    let regex = cache
        .entry(pattern.to_owned())
        .or_insert_with(|| regress::Regex::new(pattern).ok());
    // A pattern that is not an ECMAScript regex refuses nothing.
    regex.as_ref().is_none_or(|r| r.find(text).is_some())
}

/// Where a check stands: its depth, and the `$ref` targets being applied to the value it
/// checks (innermost first; emptied when the check goes down into a part of the value). Both
/// checkers keep it: the compiled one names a target by its node, the interpreter by the
/// address of its schema.
#[derive(Clone, Copy)]
struct At<'a> {
    depth: usize,
    refs: Option<&'a Refs<'a>>,
}

/// A `$ref` target being applied to the current value, and those outside it.
struct Refs<'a> {
    target: usize,
    outer: Option<&'a Refs<'a>>,
}

impl<'a> At<'a> {
    const ROOT: At<'static> = At {
        depth: 0,
        refs: None,
    };

    /// Whether `target` is already being applied to this value: a reference back to it (a
    /// schema that refers to itself without descending into the value) adds nothing to what
    /// is being checked, and passes. Without this, `{"allOf": [{"$ref": "#"}, {"$ref": "#"}]}`
    /// doubled its work at every level down to the depth bound.
    fn applying(self, target: usize) -> bool {
        let mut refs = self.refs;
        while let Some(r) = refs {
            if r.target == target {
                return true;
            }
            refs = r.outer;
        }
        false
    }

    /// A subschema applied to the same value.
    fn inside(self) -> At<'a> {
        At {
            depth: self.depth + 1,
            refs: self.refs,
        }
    }

    /// The target of a `$ref`, applied to the same value.
    fn following<'b>(self, refs: &'b Refs<'b>) -> At<'b>
    where
        'a: 'b,
    {
        At {
            depth: self.depth + 1,
            refs: Some(refs),
        }
    }

    /// A subschema applied to a part of the value (an item, a member, a property name).
    fn below(self) -> At<'static> {
        At {
            depth: self.depth + 1,
            refs: None,
        }
    }
}

struct Checker<'a> {
    root: &'a Value,
    patterns: &'a Mutex<BTreeMap<String, Option<regress::Regex>>>,
}

fn fail(pointer: &str, message: impl Into<String>) -> Result<(), Violation> {
    Err(Violation {
        pointer: pointer.to_owned(),
        message: message.into(),
    })
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn type_matches(kind: &str, value: &Value) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_number().is_some_and(is_integer),
        _ => true,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

impl<'a> Checker<'a> {
    /// A local `$ref`'s target (percent-decoded, as the generator reads it).
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        crate::pointer::resolve(self.root, reference)
    }

    fn check(
        &self,
        schema: &Value,
        value: &Value,
        pointer: &mut String,
        at: At<'_>,
    ) -> Result<(), Violation> {
        let object = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return fail(pointer, "no value is allowed here"),
            Value::Object(o) => o,
            _ => return Ok(()),
        };
        if at.depth > MAX_DEPTH {
            return Ok(());
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = self.resolve(reference)
            && !at.applying(std::ptr::from_ref(target) as usize)
        {
            let refs = Refs {
                target: std::ptr::from_ref(target) as usize,
                outer: at.refs,
            };
            self.check(target, value, pointer, at.following(&refs))?;
        }
        self.check_type(object, value, pointer)?;
        self.check_enum(object, value, pointer)?;
        match value {
            Value::Number(n) => self.check_number(object, n, pointer)?,
            Value::String(s) => self.check_string(object, s, pointer)?,
            Value::Array(items) => self.check_array(object, items, pointer, at)?,
            Value::Object(members) => self.check_object(object, members, pointer, at)?,
            _ => {}
        }
        self.check_combinators(object, value, pointer, at)
    }

    fn check_type(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        pointer: &str,
    ) -> Result<(), Violation> {
        let ok = match schema.get("type") {
            Some(Value::String(kind)) => type_matches(kind, value),
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .any(|k| type_matches(k, value)),
            _ => true,
        };
        if ok {
            return Ok(());
        }
        let expected = match &schema["type"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        fail(
            pointer,
            format!("expected {expected}, found {}", short(value)),
        )
    }

    fn check_enum(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        pointer: &str,
    ) -> Result<(), Violation> {
        if let Some(constant) = schema.get("const")
            && !equal(constant, value)
        {
            return fail(
                pointer,
                format!("expected {}, found {}", short(constant), short(value)),
            );
        }
        if let Some(Value::Array(allowed)) = schema.get("enum")
            && !allowed.iter().any(|a| equal(a, value))
        {
            let list: Vec<String> = allowed.iter().take(12).map(short).collect();
            let more = if allowed.len() > 12 { ", ..." } else { "" };
            return fail(
                pointer,
                format!("{} is not one of {}{more}", short(value), list.join(", ")),
            );
        }
        Ok(())
    }

    fn check_number(
        &self,
        schema: &Map<String, Value>,
        n: &Number,
        pointer: &str,
    ) -> Result<(), Violation> {
        use std::cmp::Ordering::{Greater, Less};
        let bound = |key: &str| schema.get(key).and_then(Value::as_number);
        // draft-04 spells exclusive bounds as booleans beside minimum/maximum.
        let draft4_exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
        if let Some(min) = bound("minimum") {
            let ord = compare(n, min);
            if ord == Some(Less) || (draft4_exclusive("exclusiveMinimum") && ord != Some(Greater)) {
                return fail(pointer, format!("{n} is less than the minimum {min}"));
            }
        }
        if let Some(max) = bound("maximum") {
            let ord = compare(n, max);
            if ord == Some(Greater) || (draft4_exclusive("exclusiveMaximum") && ord != Some(Less)) {
                return fail(pointer, format!("{n} is greater than the maximum {max}"));
            }
        }
        if let Some(min) = bound("exclusiveMinimum")
            && compare(n, min) != Some(Greater)
        {
            return fail(pointer, format!("{n} is not greater than {min}"));
        }
        if let Some(max) = bound("exclusiveMaximum")
            && compare(n, max) != Some(Less)
        {
            return fail(pointer, format!("{n} is not less than {max}"));
        }
        if let (Some(step), Some(x)) = (bound("multipleOf").and_then(Number::as_f64), n.as_f64())
            && step > 0.0
        {
            let q = x / step;
            if (q - q.round()).abs() > 1e-9 {
                return fail(pointer, format!("{n} is not a multiple of {step}"));
            }
        }
        Ok(())
    }

    fn check_string(
        &self,
        schema: &Map<String, Value>,
        s: &str,
        pointer: &str,
    ) -> Result<(), Violation> {
        let len = s.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            return fail(
                pointer,
                format!(
                    "{} has {len} characters, fewer than the minimum {min}",
                    short(&Value::String(s.into()))
                ),
            );
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            return fail(
                pointer,
                format!(
                    "{} has {len} characters, more than the maximum {max}",
                    short(&Value::String(s.into()))
                ),
            );
        }
        if let Some(Value::String(pattern)) = schema.get("pattern")
            && !pattern_matches(self.patterns, pattern, s)
        {
            return fail(
                pointer,
                format!(
                    "{} does not match the pattern {pattern:?}",
                    short(&Value::String(s.into()))
                ),
            );
        }
        Ok(())
    }

    fn check_array(
        &self,
        schema: &Map<String, Value>,
        items: &[Value],
        pointer: &mut String,
        at: At<'_>,
    ) -> Result<(), Violation> {
        let n = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && n < min
        {
            return fail(pointer, format!("{n} items, fewer than the minimum {min}"));
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && n > max
        {
            return fail(pointer, format!("{n} items, more than the maximum {max}"));
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in items.iter().enumerate() {
                if let Some(j) = items[..i].iter().position(|b| equal(a, b)) {
                    return fail(
                        pointer,
                        format!("items {j} and {i} are equal, but items must be unique"),
                    );
                }
            }
        }
        // Tuple forms: 2020-12 prefixItems + items, draft-07 items array + additionalItems.
        let (prefix, rest): (&[Value], Option<&Value>) =
            match (schema.get("prefixItems"), schema.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix, rest),
                (None, Some(Value::Array(prefix))) => (prefix, schema.get("additionalItems")),
                (None, rest) => (&[], rest),
                (Some(_), rest) => (&[], rest),
            };
        for (i, item) in items.iter().enumerate() {
            let sub = match prefix.get(i) {
                Some(s) => Some(s),
                None => rest,
            };
            if let Some(sub) = sub {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                self.check(sub, item, pointer, at.below())?;
                pointer.truncate(len);
            }
        }
        if let Some(contains) = schema.get("contains") {
            let found = items.iter().any(|item| {
                let mut p = pointer.clone();
                self.check(contains, item, &mut p, at.below()).is_ok()
            });
            if !found {
                return fail(pointer, "no item matches the `contains` schema");
            }
        }
        Ok(())
    }

    fn check_object(
        &self,
        schema: &Map<String, Value>,
        members: &Map<String, Value>,
        pointer: &mut String,
        at: At<'_>,
    ) -> Result<(), Violation> {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !members.contains_key(name) {
                    return fail(pointer, format!("missing the required property {name:?}"));
                }
            }
        }
        let n = members.len() as u64;
        if let Some(min) = schema.get("minProperties").and_then(Value::as_u64)
            && n < min
        {
            return fail(
                pointer,
                format!("{n} properties, fewer than the minimum {min}"),
            );
        }
        if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
            && n > max
        {
            return fail(
                pointer,
                format!("{n} properties, more than the maximum {max}"),
            );
        }
        if let Some(Value::Object(dependent)) = schema.get("dependentRequired") {
            for (name, needs) in dependent {
                if members.contains_key(name) {
                    for need in needs
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        if !members.contains_key(need) {
                            return fail(pointer, format!("{name:?} requires {need:?}"));
                        }
                    }
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        for (name, member) in members {
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&escape(name));
            if let Some(names) = schema.get("propertyNames") {
                let mut p = pointer.clone();
                if let Err(v) = self.check(names, &Value::String(name.clone()), &mut p, at.below())
                {
                    return fail(
                        pointer,
                        format!("property name {name:?} is not allowed: {}", v.message),
                    );
                }
            }
            let mut matched = false;
            if let Some(sub) = properties.and_then(|p| p.get(name)) {
                matched = true;
                self.check(sub, member, pointer, at.below())?;
            }
            for (pattern, sub) in patterns.into_iter().flatten() {
                if pattern_matches(self.patterns, pattern, name) {
                    matched = true;
                    self.check(sub, member, pointer, at.below())?;
                }
            }
            if !matched {
                match additional {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&str> = properties
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let hint = if known.is_empty() {
                            String::new()
                        } else {
                            format!(" (known: {})", known.join(", "))
                        };
                        return fail(pointer, format!("unknown property {name:?}{hint}"));
                    }
                    Some(sub) => self.check(sub, member, pointer, at.below())?,
                    None => {}
                }
            }
            pointer.truncate(len);
        }
        Ok(())
    }

    fn check_combinators(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        pointer: &mut String,
        at: At<'_>,
    ) -> Result<(), Violation> {
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for sub in all {
                self.check(sub, value, pointer, at.inside())?;
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf") {
            let mut first = None;
            for sub in any {
                let mut p = pointer.clone();
                match self.check(sub, value, &mut p, at.inside()) {
                    Ok(()) => {
                        first = None;
                        break;
                    }
                    Err(v) => {
                        first.get_or_insert(v);
                    }
                }
            }
            if let Some(v) = first {
                return fail(
                    pointer,
                    format!(
                        "{} matches none of the allowed forms (first: {v})",
                        short(value)
                    ),
                );
            }
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let matching = one
                .iter()
                .filter(|sub| {
                    let mut p = pointer.clone();
                    self.check(sub, value, &mut p, at.inside()).is_ok()
                })
                .count();
            if matching != 1 {
                return fail(
                    pointer,
                    format!(
                        "{} matches {matching} of the oneOf forms; exactly one must match",
                        short(value)
                    ),
                );
            }
        }
        if let Some(not) = schema.get("not") {
            let mut p = pointer.clone();
            if self.check(not, value, &mut p, at.inside()).is_ok() {
                return fail(
                    pointer,
                    format!("{} matches a schema it must not match", short(value)),
                );
            }
        }
        if let Some(condition) = schema.get("if") {
            let mut p = pointer.clone();
            let branch = if self.check(condition, value, &mut p, at.inside()).is_ok() {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                self.check(branch, value, pointer, at.inside())?;
            }
        }
        Ok(())
    }
}
