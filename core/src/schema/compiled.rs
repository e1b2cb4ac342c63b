//! The compiled form of the argument checker: a schema is turned once into a graph of nodes,
//! each holding only the checks for the keywords its schema has, in the order the checks run.
//! Checking a value walks that graph; nothing is looked up by keyword name, patterns are
//! compiled regexes, and bounds are pre-converted. JSON pointers and messages are built only
//! when a check fails.
//!
//! Its verdicts (and the first violation, pointer and message) are those of the reference
//! interpreter, [`super::validate_value`]; the tests in `super::tests` hold the two equal.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use crate::pointer::escape;
use serde_json::{Map, Number, Value};

use super::tree::{Json, JsonTree, Kind};
use super::{At, MAX_DEPTH, Refs, Violation, compare, is_integer, short};

/// A JSON Schema compiled once into a checker for many values.
///
/// Same keywords and verdicts as [`validate_value`](super::validate_value), which interprets the
/// schema on every call; a `CompiledSchema` looks nothing up by name when it checks a value,
/// compiles each `pattern` once, and builds the JSON pointer of a violation only when there is
/// one. `ToolSchema` compiles its schema on first use; hold one of these wherever the same
/// schema checks many values.
pub struct CompiledSchema {
    nodes: Vec<Node>,
    root: usize,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("nodes", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

/// Node ids every compiled schema has.
const ANY: usize = 0;
const NEVER: usize = 1;

enum Node {
    /// `true`, `{}`, or anything that is not a schema: every value passes.
    Any,
    /// `false`: no value passes.
    Never,
    /// A `$ref` target whose checks are still being compiled (never left in a finished graph).
    Pending,
    /// An object schema's checks, in the order the interpreter runs them.
    Checks(Box<[Check]>),
}

enum Check {
    Ref(usize),
    /// Bit set of the allowed JSON types; `expected` is the `type` keyword, for the message.
    Type {
        kinds: u8,
        expected: Value,
    },
    Const(Value),
    Enum(Box<[Value]>),
    Number(Box<[NumberCheck]>),
    String(Box<[StringCheck]>),
    Array(Box<[ArrayCheck]>),
    Object(Box<[ObjectCheck]>),
    AllOf(Box<[usize]>),
    AnyOf(Box<[usize]>),
    OneOf(Box<[usize]>),
    Not(usize),
    If {
        condition: usize,
        then: Option<usize>,
        otherwise: Option<usize>,
    },
}

const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const OBJECT: u8 = 4;
const ARRAY: u8 = 8;
const STRING: u8 = 16;
const NUMBER: u8 = 32;
const INTEGER: u8 = 64;

fn kind_bit(kind: &str) -> Option<u8> {
    Some(match kind {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "object" => OBJECT,
        "array" => ARRAY,
        "string" => STRING,
        "number" => NUMBER,
        "integer" => INTEGER,
        _ => return None,
    })
}

fn type_ok<'v>(kinds: u8, value: impl Json<'v>) -> bool {
    match value.kind() {
        Kind::Null => kinds & NULL != 0,
        Kind::Bool(_) => kinds & BOOLEAN != 0,
        Kind::Object => kinds & OBJECT != 0,
        Kind::Array => kinds & ARRAY != 0,
        Kind::String(_) => kinds & STRING != 0,
        Kind::Number(n) => kinds & NUMBER != 0 || (kinds & INTEGER != 0 && is_integer(n)),
    }
}

/// JSON equality with `1` equal to `1.0` (as `crate::value::equal`), between any
/// two trees ([`Json`]: a `Value` or the bytes' tree).
fn equal<'a, 'b>(a: impl Json<'a>, b: impl Json<'b>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Number(x), Kind::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Kind::Array, Kind::Array) => {
            a.len() == b.len() && a.items().zip(b.items()).all(|(a, b)| equal(a, b))
        }
        (Kind::Object, Kind::Object) => {
            a.len() == b.len()
                && a.members()
                    .all(|(k, v)| b.get(k).is_some_and(|w| equal(v, w)))
        }
        (Kind::Null, Kind::Null) => true,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::String(x), Kind::String(y)) => x == y,
        _ => false,
    }
}

/// A numeric bound, pre-converted for [`super::compare`]'s two cases.
struct Bound {
    number: Number,
    int: Option<i128>,
    float: Option<f64>,
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or(n.as_u64().map(i128::from))
}

impl Bound {
    fn new(number: &Number) -> Self {
        Bound {
            int: as_int(number),
            float: number.as_f64(),
            number: number.clone(),
        }
    }

    /// `n` compared with the bound, exactly for integers (as [`super::compare`]).
    fn compare(&self, n: &Number) -> Option<Ordering> {
        match (as_int(n), self.int) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => n.as_f64()?.partial_cmp(&self.float?),
        }
    }
}

enum NumberCheck {
    Minimum { bound: Bound, exclusive: bool },
    Maximum { bound: Bound, exclusive: bool },
    ExclusiveMinimum(Bound),
    ExclusiveMaximum(Bound),
    MultipleOf(f64),
}

enum StringCheck {
    MinLength(u64),
    MaxLength(u64),
    Pattern {
        regex: regress::Regex,
        source: Box<str>,
    },
}

enum ArrayCheck {
    MinItems(u64),
    MaxItems(u64),
    Unique,
    /// `prefix[i]` checks item `i`; `rest` the items after the prefix.
    Items {
        prefix: Box<[usize]>,
        rest: Option<usize>,
    },
    Contains(usize),
}

/// Property names, as `required` and `dependentRequired` list them.
type Names = Box<[Box<str>]>;

enum ObjectCheck {
    Required(Names),
    MinProperties(u64),
    MaxProperties(u64),
    DependentRequired(Box<[(Box<str>, Names)]>),
    Members(Box<Members>),
}

/// The per-member keywords of an object schema.
struct Members {
    names: Option<usize>,
    properties: Properties,
    /// `None` is a pattern that is not an ECMAScript regex: it matches every name.
    patterns: Box<[(Option<regress::Regex>, usize)]>,
    additional: Additional,
}

enum Additional {
    Unchecked,
    /// `additionalProperties: false`; the hint names the known properties.
    Forbidden(Box<str>),
    Schema(usize),
}

/// `properties`, by name: a short list is scanned, a long one hashed.
enum Properties {
    List(Box<[(Box<str>, usize)]>),
    Map(HashMap<Box<str>, usize>),
}

impl Properties {
    fn get(&self, name: &str) -> Option<usize> {
        match self {
            Properties::List(list) => list.iter().find(|(n, _)| &**n == name).map(|(_, id)| *id),
            Properties::Map(map) => map.get(name).copied(),
        }
    }
}

/// Compilation: one node per object schema reached from the root, `$ref` targets shared (and
/// compiled from a work list, so long reference chains do not recurse).
struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    targets: HashMap<*const Value, usize>,
    work: Vec<(usize, &'a Map<String, Value>)>,
}

impl<'a> Compiler<'a> {
    /// The node of a `$ref` target (or the root), compiled once.
    fn target(&mut self, schema: &'a Value) -> usize {
        let Value::Object(object) = schema else {
            return self.node(schema, 0);
        };
        if let Some(&id) = self.targets.get(&std::ptr::from_ref(schema)) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Pending);
        self.targets.insert(std::ptr::from_ref(schema), id);
        self.work.push((id, object));
        id
    }

    /// The node of a subschema `level` steps below its root or `$ref` target.
    fn node(&mut self, schema: &'a Value, level: usize) -> usize {
        match schema {
            Value::Bool(false) => NEVER,
            // The interpreter passes every object schema deeper than MAX_DEPTH (and so never
            // reaches the subschemas below it); `false` still refuses there.
            Value::Object(object) if level <= MAX_DEPTH => {
                let checks = self.checks(object, level);
                if checks.is_empty() {
                    return ANY;
                }
                self.nodes.push(Node::Checks(checks));
                self.nodes.len() - 1
            }
            _ => ANY,
        }
    }

    /// A local `$ref`'s target (percent-decoded, as the generator reads it).
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        crate::pointer::resolve(self.root, reference)
    }

    fn list(&mut self, schemas: &'a [Value], level: usize) -> Box<[usize]> {
        schemas.iter().map(|s| self.node(s, level + 1)).collect()
    }

    /// The checks of one object schema, in the interpreter's order: `$ref`, `type`, `const`,
    /// `enum`, the keywords of each value kind, the combinators.
    fn checks(&mut self, schema: &'a Map<String, Value>, level: usize) -> Box<[Check]> {
        let mut checks = Vec::new();
        if let Some(Value::String(reference)) = schema.get("$ref")
            && let Some(target) = self.resolve(reference)
        {
            checks.push(Check::Ref(self.target(target)));
        }
        if let Some(kinds) = match schema.get("type") {
            Some(Value::String(kind)) => kind_bit(kind),
            // An unknown type name in the list allows every value.
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .try_fold(0, |bits, kind| Some(bits | kind_bit(kind)?)),
            _ => None,
        } {
            checks.push(Check::Type {
                kinds,
                expected: schema["type"].clone(),
            });
        }
        if let Some(constant) = schema.get("const") {
            checks.push(Check::Const(constant.clone()));
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            checks.push(Check::Enum(allowed.clone().into_boxed_slice()));
        }
        let number = number_checks(schema);
        if !number.is_empty() {
            checks.push(Check::Number(number));
        }
        let string = string_checks(schema);
        if !string.is_empty() {
            checks.push(Check::String(string));
        }
        let array = self.array_checks(schema, level);
        if !array.is_empty() {
            checks.push(Check::Array(array));
        }
        let object = self.object_checks(schema, level);
        if !object.is_empty() {
            checks.push(Check::Object(object));
        }
        if let Some(Value::Array(all)) = schema.get("allOf")
            && !all.is_empty()
        {
            checks.push(Check::AllOf(self.list(all, level)));
        }
        // An empty `anyOf` refuses nothing (as in the interpreter).
        if let Some(Value::Array(any)) = schema.get("anyOf")
            && !any.is_empty()
        {
            checks.push(Check::AnyOf(self.list(any, level)));
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            checks.push(Check::OneOf(self.list(one, level)));
        }
        if let Some(not) = schema.get("not") {
            checks.push(Check::Not(self.node(not, level + 1)));
        }
        if let Some(condition) = schema.get("if") {
            let condition = self.node(condition, level + 1);
            let then = schema.get("then").map(|s| self.node(s, level + 1));
            let otherwise = schema.get("else").map(|s| self.node(s, level + 1));
            checks.push(Check::If {
                condition,
                then,
                otherwise,
            });
        }
        checks.into_boxed_slice()
    }

    fn array_checks(&mut self, schema: &'a Map<String, Value>, level: usize) -> Box<[ArrayCheck]> {
        let mut checks = Vec::new();
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            checks.push(ArrayCheck::MinItems(min));
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            checks.push(ArrayCheck::MaxItems(max));
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            checks.push(ArrayCheck::Unique);
        }
        // Tuple forms: 2020-12 prefixItems + items, draft-07 items array + additionalItems.
        let (prefix, rest): (&[Value], Option<&Value>) =
            match (schema.get("prefixItems"), schema.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix, rest),
                (None, Some(Value::Array(prefix))) => (prefix, schema.get("additionalItems")),
                (None, rest) => (&[], rest),
                (Some(_), rest) => (&[], rest),
            };
        let prefix = self.list(prefix, level);
        let rest = rest
            .map(|s| self.node(s, level + 1))
            .filter(|&id| id != ANY);
        if !prefix.is_empty() || rest.is_some() {
            checks.push(ArrayCheck::Items { prefix, rest });
        }
        if let Some(contains) = schema.get("contains") {
            checks.push(ArrayCheck::Contains(self.node(contains, level + 1)));
        }
        checks.into_boxed_slice()
    }

    fn object_checks(
        &mut self,
        schema: &'a Map<String, Value>,
        level: usize,
    ) -> Box<[ObjectCheck]> {
        let strings = |list: &Value| -> Names {
            list.as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(Box::from)
                .collect()
        };
        let mut checks = Vec::new();
        if let Some(required @ Value::Array(_)) = schema.get("required") {
            checks.push(ObjectCheck::Required(strings(required)));
        }
        if let Some(min) = schema.get("minProperties").and_then(Value::as_u64) {
            checks.push(ObjectCheck::MinProperties(min));
        }
        if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64) {
            checks.push(ObjectCheck::MaxProperties(max));
        }
        if let Some(Value::Object(dependent)) = schema.get("dependentRequired") {
            let list = dependent
                .iter()
                .map(|(name, needs)| (Box::from(name.as_str()), strings(needs)))
                .collect();
            checks.push(ObjectCheck::DependentRequired(list));
        }
        let names = schema.get("propertyNames").map(|s| self.node(s, level + 1));
        let known = schema.get("properties").and_then(Value::as_object);
        let list: Vec<(Box<str>, usize)> = known
            .into_iter()
            .flatten()
            .map(|(name, sub)| (Box::from(name.as_str()), self.node(sub, level + 1)))
            .collect();
        let patterns: Box<[(Option<regress::Regex>, usize)]> = schema
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(pattern, sub)| (regress::Regex::new(pattern).ok(), self.node(sub, level + 1)))
            .collect();
        let additional = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => {
                let known: Vec<&str> = known
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                let hint = if known.is_empty() {
                    String::new()
                } else {
                    format!(" (known: {})", known.join(", "))
                };
                Additional::Forbidden(hint.into())
            }
            Some(sub) => match self.node(sub, level + 1) {
                ANY => Additional::Unchecked,
                id => Additional::Schema(id),
            },
            None => Additional::Unchecked,
        };
        let checks_members = names.is_some()
            || !patterns.is_empty()
            || !matches!(additional, Additional::Unchecked)
            || list.iter().any(|&(_, id)| id != ANY);
        if checks_members {
            let properties = if list.len() > 12 {
                Properties::Map(list.into_iter().collect())
            } else {
                Properties::List(list.into_boxed_slice())
            };
            checks.push(ObjectCheck::Members(Box::new(Members {
                names,
                properties,
                patterns,
                additional,
            })));
        }
        checks.into_boxed_slice()
    }
}

fn number_checks(schema: &Map<String, Value>) -> Box<[NumberCheck]> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_number).map(Bound::new);
    // draft-04 spells exclusive bounds as booleans beside minimum/maximum.
    let draft4_exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    let mut checks = Vec::new();
    if let Some(bound) = bound("minimum") {
        let exclusive = draft4_exclusive("exclusiveMinimum");
        checks.push(NumberCheck::Minimum { bound, exclusive });
    }
    if let Some(bound) = bound("maximum") {
        let exclusive = draft4_exclusive("exclusiveMaximum");
        checks.push(NumberCheck::Maximum { bound, exclusive });
    }
    if let Some(bound) = bound("exclusiveMinimum") {
        checks.push(NumberCheck::ExclusiveMinimum(bound));
    }
    if let Some(bound) = bound("exclusiveMaximum") {
        checks.push(NumberCheck::ExclusiveMaximum(bound));
    }
    if let Some(step) = schema
        .get("multipleOf")
        .and_then(Value::as_number)
        .and_then(Number::as_f64)
        && step > 0.0
    {
        checks.push(NumberCheck::MultipleOf(step));
    }
    checks.into_boxed_slice()
}

fn string_checks(schema: &Map<String, Value>) -> Box<[StringCheck]> {
    let mut checks = Vec::new();
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
        checks.push(StringCheck::MinLength(min));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        checks.push(StringCheck::MaxLength(max));
    }
    // A pattern that is not an ECMAScript regex refuses nothing.
    if let Some(Value::String(pattern)) = schema.get("pattern")
        && let Ok(regex) = regress::Regex::new(pattern)
    {
        checks.push(StringCheck::Pattern {
            regex,
            source: pattern.as_str().into(),
        });
    }
    checks.into_boxed_slice()
}

/// How a check reports failure: [`Verdict`] only says no (for `anyOf` branches, `not`, `if`,
/// `contains`, which need a yes or no), [`Detail`] builds the violation.
trait Mode {
    type Err;
    const DETAIL: bool;
    fn fail(message: impl FnOnce() -> Message) -> Self::Err;
    /// The failure `err`, found below the current value at `step`.
    fn below(err: Self::Err, step: impl FnOnce() -> Step) -> Self::Err;
}

struct Verdict;

impl Mode for Verdict {
    type Err = ();
    const DETAIL: bool = false;
    fn fail(_: impl FnOnce() -> Message) {}
    fn below(err: (), _: impl FnOnce() -> Step) {
        err
    }
}

struct Detail;

impl Mode for Detail {
    type Err = Box<Failure>;
    const DETAIL: bool = true;
    fn fail(message: impl FnOnce() -> Message) -> Box<Failure> {
        Box::new(Failure {
            steps: Vec::new(),
            message: message(),
        })
    }
    fn below(mut err: Box<Failure>, step: impl FnOnce() -> Step) -> Box<Failure> {
        err.steps.push(step());
        err
    }
}

/// A violation before its pointer is rendered: the steps from the checked value down to the
/// refused one, innermost first.
struct Failure {
    steps: Vec<Step>,
    message: Message,
}

enum Step {
    Index(usize),
    Key(String),
}

enum Message {
    Text(String),
    /// No `anyOf` form matched; `first` is the first form's violation, which the message
    /// quotes with its full pointer (known only when the failure is rendered).
    AnyOf {
        value: String,
        first: Option<Box<Failure>>,
    },
    /// A property name refused by `propertyNames`.
    PropertyName {
        name: String,
        inner: Option<Box<Failure>>,
    },
}

impl Failure {
    /// The violation, for a failure found at `prefix`.
    fn render(self, prefix: &str) -> Violation {
        let mut pointer = prefix.to_owned();
        for step in self.steps.iter().rev() {
            pointer.push('/');
            match step {
                Step::Index(i) => pointer.push_str(&i.to_string()),
                Step::Key(key) => pointer.push_str(&escape(key)),
            }
        }
        let message = match self.message {
            Message::Text(text) => text,
            Message::AnyOf { value, first } => match first {
                Some(first) => format!(
                    "{value} matches none of the allowed forms (first: {})",
                    first.render(&pointer)
                ),
                None => format!("{value} matches none of the allowed forms"),
            },
            Message::PropertyName { name, inner } => {
                let why = inner.map_or_else(String::new, |inner| inner.render(&pointer).message);
                format!("property name {name:?} is not allowed: {why}")
            }
        };
        Violation { pointer, message }
    }
}

fn text(message: String) -> Message {
    Message::Text(message)
}

fn short_str(s: &str) -> String {
    short(&Value::String(s.to_owned()))
}

impl CompiledSchema {
    /// Compiles `schema`. Every value is a schema here: what is not an object or a boolean
    /// refuses nothing, like unknown keywords, `format`, references outside the schema and
    /// patterns that are not ECMAScript regexes.
    pub fn new(schema: &Value) -> Self {
        let mut compiler = Compiler {
            root: schema,
            nodes: vec![Node::Any, Node::Never],
            targets: HashMap::new(),
            work: Vec::new(),
        };
        let root = compiler.target(schema);
        while let Some((id, object)) = compiler.work.pop() {
            let checks = compiler.checks(object, 0);
            compiler.nodes[id] = if checks.is_empty() {
                Node::Any
            } else {
                Node::Checks(checks)
            };
        }
        CompiledSchema {
            nodes: compiler.nodes,
            root,
        }
    }

    /// Checks `value`; the first violation found is returned.
    pub fn validate(&self, value: &Value) -> Result<(), Violation> {
        self.check::<Detail>(self.root, value, At::ROOT)
            .map_err(|failure| failure.render(""))
    }

    /// Whether `value` satisfies the schema (the verdict of [`CompiledSchema::validate`],
    /// without building the violation).
    pub fn is_valid(&self, value: &Value) -> bool {
        self.check::<Verdict>(self.root, value, At::ROOT).is_ok()
    }

    /// Checks a parsed tree, with the verdict and violation [`CompiledSchema::validate`] gives
    /// for the `Value` of the same text. A value that passes is checked in the tree, without a
    /// `Value`; the violation of one that fails is found in its `Value` (so that the first one
    /// is found in the same member order).
    pub fn validate_tree(&self, tree: &JsonTree) -> Result<(), Violation> {
        if self.is_valid_in_tree(tree) == Some(true) {
            return Ok(());
        }
        self.validate(&tree.to_value())
    }

    /// Whether a parsed tree satisfies the schema (the verdict of
    /// [`CompiledSchema::validate_tree`]).
    pub fn is_valid_tree(&self, tree: &JsonTree) -> bool {
        self.is_valid_in_tree(tree)
            .unwrap_or_else(|| self.is_valid(&tree.to_value()))
    }

    /// The verdict read in the tree itself; `None` when it has a key twice (a `Value` keeps
    /// the last).
    pub(crate) fn is_valid_in_tree(&self, tree: &JsonTree) -> Option<bool> {
        if tree.has_duplicate_keys() {
            return None;
        }
        Some(
            self.check::<Verdict>(self.root, tree.root(), At::ROOT)
                .is_ok(),
        )
    }

    fn ok<'v>(&self, node: usize, value: impl Json<'v>, at: At<'_>) -> bool {
        self.check::<Verdict>(node, value, at).is_ok()
    }

    fn check<'v, M: Mode>(
        &self,
        node: usize,
        value: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        let checks = match &self.nodes[node] {
            Node::Any | Node::Pending => return Ok(()),
            Node::Never => return Err(M::fail(|| text("no value is allowed here".into()))),
            Node::Checks(checks) => checks,
        };
        // Recursion bound for deep values and long reference chains.
        if at.depth > MAX_DEPTH {
            return Ok(());
        }
        for check in checks {
            self.run::<M>(check, value, at)?;
        }
        Ok(())
    }

    fn run<'v, M: Mode>(
        &self,
        check: &Check,
        value: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        match check {
            Check::Ref(target) => {
                if at.applying(*target) {
                    return Ok(());
                }
                let refs = Refs {
                    target: *target,
                    outer: at.refs,
                };
                self.check::<M>(*target, value, at.following(&refs))
            }
            Check::Type { kinds, expected } => {
                if type_ok(*kinds, value) {
                    return Ok(());
                }
                Err(M::fail(|| {
                    let expected = match expected {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    text(format!("expected {expected}, found {}", value.short()))
                }))
            }
            Check::Const(constant) => {
                if equal(constant, value) {
                    return Ok(());
                }
                Err(M::fail(|| {
                    text(format!(
                        "expected {}, found {}",
                        short(constant),
                        value.short()
                    ))
                }))
            }
            Check::Enum(allowed) => {
                if allowed.iter().any(|a| equal(a, value)) {
                    return Ok(());
                }
                Err(M::fail(|| {
                    let list: Vec<String> = allowed.iter().take(12).map(short).collect();
                    let more = if allowed.len() > 12 { ", ..." } else { "" };
                    text(format!(
                        "{} is not one of {}{more}",
                        value.short(),
                        list.join(", ")
                    ))
                }))
            }
            Check::Number(checks) => match value.kind() {
                Kind::Number(n) => checks.iter().try_for_each(|c| number::<M>(c, n)),
                _ => Ok(()),
            },
            Check::String(checks) => match value.kind() {
                Kind::String(s) => string::<M>(checks, s),
                _ => Ok(()),
            },
            Check::Array(checks) => match value.kind() {
                Kind::Array => checks
                    .iter()
                    .try_for_each(|c| self.array::<M>(c, value, at)),
                _ => Ok(()),
            },
            Check::Object(checks) => match value.kind() {
                Kind::Object => checks
                    .iter()
                    .try_for_each(|c| self.object::<M>(c, value, at)),
                _ => Ok(()),
            },
            Check::AllOf(all) => all
                .iter()
                .try_for_each(|&sub| self.check::<M>(sub, value, at.inside())),
            Check::AnyOf(any) => self.any_of::<M>(any, value, at),
            Check::OneOf(one) => self.one_of::<M>(one, value, at),
            Check::Not(not) => {
                if !self.ok(*not, value, at.inside()) {
                    return Ok(());
                }
                Err(M::fail(|| {
                    text(format!(
                        "{} matches a schema it must not match",
                        value.short()
                    ))
                }))
            }
            Check::If {
                condition,
                then,
                otherwise,
            } => {
                let branch = if self.ok(*condition, value, at.inside()) {
                    then
                } else {
                    otherwise
                };
                match branch {
                    Some(branch) => self.check::<M>(*branch, value, at.inside()),
                    None => Ok(()),
                }
            }
        }
    }

    /// `anyOf`: one of `any` at least; the message tells why the first one failed.
    fn any_of<'v, M: Mode>(
        &self,
        any: &[usize],
        value: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        if any.iter().any(|&sub| self.ok(sub, value, at.inside())) {
            return Ok(());
        }
        Err(M::fail(|| Message::AnyOf {
            value: value.short(),
            first: self.check::<Detail>(any[0], value, at.inside()).err(),
        }))
    }

    /// `oneOf`: exactly one of `one`.
    fn one_of<'v, M: Mode>(
        &self,
        one: &[usize],
        value: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        let matching = one.iter().filter(|&&sub| self.ok(sub, value, at.inside()));
        // The verdict needs to count to two; the message says how many matched.
        let matching = if M::DETAIL {
            matching.count()
        } else {
            matching.take(2).count()
        };
        if matching == 1 {
            return Ok(());
        }
        Err(M::fail(|| {
            text(format!(
                "{} matches {matching} of the oneOf forms; exactly one must match",
                value.short()
            ))
        }))
    }

    /// One check of an array (`array` is one).
    fn array<'v, M: Mode>(
        &self,
        check: &ArrayCheck,
        array: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        let n = array.len() as u64;
        match check {
            ArrayCheck::MinItems(min) if n < *min => Err(M::fail(|| {
                text(format!("{n} items, fewer than the minimum {min}"))
            })),
            ArrayCheck::MaxItems(max) if n > *max => Err(M::fail(|| {
                text(format!("{n} items, more than the maximum {max}"))
            })),
            ArrayCheck::Unique => {
                for (i, a) in array.items().enumerate() {
                    if let Some(j) = array.items().take(i).position(|b| equal(a, b)) {
                        return Err(M::fail(|| {
                            text(format!(
                                "items {j} and {i} are equal, but items must be unique"
                            ))
                        }));
                    }
                }
                Ok(())
            }
            ArrayCheck::Items { prefix, rest } => {
                let checked = if rest.is_some() {
                    array.len()
                } else {
                    array.len().min(prefix.len())
                };
                for (i, item) in array.items().take(checked).enumerate() {
                    if let Some(sub) = prefix.get(i).copied().or(*rest) {
                        self.check::<M>(sub, item, at.below())
                            .map_err(|e| M::below(e, || Step::Index(i)))?;
                    }
                }
                Ok(())
            }
            ArrayCheck::Contains(sub) => {
                if array.items().any(|item| self.ok(*sub, item, at.below())) {
                    return Ok(());
                }
                Err(M::fail(|| {
                    text("no item matches the `contains` schema".into())
                }))
            }
            ArrayCheck::MinItems(_) | ArrayCheck::MaxItems(_) => Ok(()),
        }
    }

    /// One check of an object (`object` is one).
    fn object<'v, M: Mode>(
        &self,
        check: &ObjectCheck,
        object: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        let n = object.len() as u64;
        match check {
            ObjectCheck::Required(names) => {
                for name in names {
                    if object.get(name).is_none() {
                        return Err(M::fail(|| {
                            text(format!("missing the required property {name:?}"))
                        }));
                    }
                }
                Ok(())
            }
            ObjectCheck::MinProperties(min) if n < *min => Err(M::fail(|| {
                text(format!("{n} properties, fewer than the minimum {min}"))
            })),
            ObjectCheck::MaxProperties(max) if n > *max => Err(M::fail(|| {
                text(format!("{n} properties, more than the maximum {max}"))
            })),
            ObjectCheck::MinProperties(_) | ObjectCheck::MaxProperties(_) => Ok(()),
            ObjectCheck::DependentRequired(dependent) => {
                for (name, needs) in dependent {
                    if object.get(name).is_some() {
                        for need in needs {
                            if object.get(need).is_none() {
                                return Err(M::fail(|| {
                                    text(format!("{name:?} requires {need:?}"))
                                }));
                            }
                        }
                    }
                }
                Ok(())
            }
            ObjectCheck::Members(m) => {
                for (name, member) in object.members() {
                    self.member::<M>(m, name, member, at)
                        .map_err(|e| M::below(e, || Step::Key(name.to_owned())))?;
                }
                Ok(())
            }
        }
    }

    fn member<'v, M: Mode>(
        &self,
        m: &Members,
        name: &str,
        member: impl Json<'v>,
        at: At<'_>,
    ) -> Result<(), M::Err> {
        if let Some(names) = m.names {
            let as_value = Value::String(name.to_owned());
            if !self.ok(names, &as_value, at.below()) {
                return Err(M::fail(|| Message::PropertyName {
                    name: name.to_owned(),
                    inner: self.check::<Detail>(names, &as_value, at.below()).err(),
                }));
            }
        }
        let mut matched = false;
        if let Some(sub) = m.properties.get(name) {
            matched = true;
            self.check::<M>(sub, member, at.below())?;
        }
        for (regex, sub) in &m.patterns {
            if regex.as_ref().is_none_or(|r| r.find(name).is_some()) {
                matched = true;
                self.check::<M>(*sub, member, at.below())?;
            }
        }
        if !matched {
            match &m.additional {
                Additional::Forbidden(hint) => {
                    return Err(M::fail(|| text(format!("unknown property {name:?}{hint}"))));
                }
                Additional::Schema(sub) => self.check::<M>(*sub, member, at.below())?,
                Additional::Unchecked => {}
            }
        }
        Ok(())
    }
}

fn number<M: Mode>(check: &NumberCheck, n: &Number) -> Result<(), M::Err> {
    use Ordering::{Greater, Less};
    match check {
        NumberCheck::Minimum { bound, exclusive } => {
            let ord = bound.compare(n);
            if ord == Some(Less) || (*exclusive && ord != Some(Greater)) {
                let min = &bound.number;
                return Err(M::fail(|| {
                    text(format!("{n} is less than the minimum {min}"))
                }));
            }
        }
        NumberCheck::Maximum { bound, exclusive } => {
            let ord = bound.compare(n);
            if ord == Some(Greater) || (*exclusive && ord != Some(Less)) {
                let max = &bound.number;
                return Err(M::fail(|| {
                    text(format!("{n} is greater than the maximum {max}"))
                }));
            }
        }
        NumberCheck::ExclusiveMinimum(bound) => {
            if bound.compare(n) != Some(Greater) {
                let min = &bound.number;
                return Err(M::fail(|| text(format!("{n} is not greater than {min}"))));
            }
        }
        NumberCheck::ExclusiveMaximum(bound) => {
            if bound.compare(n) != Some(Less) {
                let max = &bound.number;
                return Err(M::fail(|| text(format!("{n} is not less than {max}"))));
            }
        }
        NumberCheck::MultipleOf(step) => {
            if let Some(x) = n.as_f64() {
                let q = x / step;
                if (q - q.round()).abs() > 1e-9 {
                    return Err(M::fail(|| text(format!("{n} is not a multiple of {step}"))));
                }
            }
        }
    }
    Ok(())
}

fn string<M: Mode>(checks: &[StringCheck], s: &str) -> Result<(), M::Err> {
    // Lengths count code points; the byte length bounds them from above.
    let mut chars = None;
    let mut count = || *chars.get_or_insert_with(|| s.chars().count() as u64);
    for check in checks {
        match check {
            StringCheck::MinLength(min) => {
                let len = count();
                if len < *min {
                    return Err(M::fail(|| {
                        text(format!(
                            "{} has {len} characters, fewer than the minimum {min}",
                            short_str(s)
                        ))
                    }));
                }
            }
            StringCheck::MaxLength(max) => {
                if s.len() as u64 <= *max {
                    continue;
                }
                let len = count();
                if len > *max {
                    return Err(M::fail(|| {
                        text(format!(
                            "{} has {len} characters, more than the maximum {max}",
                            short_str(s)
                        ))
                    }));
                }
            }
            StringCheck::Pattern { regex, source } => {
                if regex.find(s).is_none() {
                    return Err(M::fail(|| {
                        text(format!(
                            "{} does not match the pattern {source:?}",
                            short_str(s)
                        ))
                    }));
                }
            }
        }
    }
    Ok(())
}
