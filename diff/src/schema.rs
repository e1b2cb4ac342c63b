//! Comparing two JSON Schemas by the values they admit, in one direction: what a client sends
//! (`inputSchema`) breaks when it admits fewer values, what it receives (`outputSchema`) when
//! it admits more.
//!
//! The walk follows `$ref`s on both sides (see [`crate::resolve`]), so pointers name the path a
//! value takes (`/inputSchema/properties/user/properties/id`), not where a definition sits.
//! Each pair of (old, new) schema nodes is compared once: recursive schemas terminate, and a
//! definition used in many places is reported at the first place it is reached. Work per tool
//! is bounded (depth and node count); past the bound the tool gets one `comparison-incomplete`.
//!
//! The walk finds where a change happens and names it; [`crate::inclusion`] decides whether it
//! takes values away. At every node the walk asks the algebra whether every value that matters
//! still passes (for arguments: every old value passes the new schema; for results: every new
//! value passed the old one). When it does, the walk's breaking findings under that node were
//! shape, not values, and are dropped; when it does not and the walk found nothing breaking,
//! the node gets one finding that says so; when the algebra cannot tell and nothing breaking
//! was found, the node gets a `comparison-incomplete` warning with the reason.

use std::cell::Cell;
use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use crate::inclusion::{
    self, ARRAY, Bound, FRACTION, INTEGER, Inclusion, OBJECT, STRING, Verdict, bound, type_names,
    types,
};
use crate::resolve::{reference, resolve};
use crate::rules::{self, Direction, Level, Outcome, Rule, Severity};
use mcp_bindgen_core::pointer::escape;

/// Schemas nested deeper than this (following `$ref`s) are not compared further.
pub(crate) const MAX_DEPTH: usize = 256;

/// Schema nodes compared per tool, at most.
pub(crate) const NODE_BUDGET: usize = 200_000;

static TRUE: Value = Value::Bool(true);

/// One change found in a schema, before it is given its tool.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub rule: String,
    pub severity: Severity,
    pub pointer: String,
    pub message: String,
    /// Whether the change alters the values admitted (descriptions and defaults do not).
    pub semantic: bool,
}

/// A comparison of two schemas of one tool in one direction.
pub(crate) struct Compare<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    direction: Direction,
    source: bool,
    seen: HashSet<(usize, usize)>,
    budget: &'a Cell<usize>,
    /// Old values passing the new schema.
    forward: Inclusion<'a>,
    /// New values passing the old schema.
    backward: Inclusion<'a>,
    /// Pointers of arguments the old schema required: their `default` never applied.
    moot_defaults: HashSet<String>,
    /// The next node is a lone schema walked against a branch: its annotations were compared.
    quiet: bool,
    pub found: Vec<Found>,
    /// Where the comparison stopped, when it hit a bound.
    pub incomplete: Option<String>,
}

impl<'a> Compare<'a> {
    /// A comparison of `old_root` against `new_root` (each the root `$ref`s resolve in).
    pub(crate) fn new(
        old_root: &'a Value,
        new_root: &'a Value,
        direction: Direction,
        source: bool,
        budget: &'a Cell<usize>,
    ) -> Self {
        Compare {
            old_root,
            new_root,
            direction,
            source,
            seen: HashSet::new(),
            budget,
            forward: Inclusion::declared(old_root, new_root),
            backward: Inclusion::declared(new_root, old_root),
            moot_defaults: HashSet::new(),
            quiet: false,
            found: Vec::new(),
            incomplete: None,
        }
    }

    /// Compares the two roots, reporting under `pointer` (`/inputSchema`).
    pub(crate) fn run(mut self, pointer: &str) -> Self {
        self.compare(self.old_root, self.new_root, pointer, 0);
        self
    }

    fn emit(&mut self, rule: Rule, pointer: &str, message: String) {
        let semantic = !matches!(rule.id, "description-changed" | "input-default-changed")
            && rule.level == Level::Wire;
        self.found.push(Found {
            rule: rule.id.to_owned(),
            severity: rule.severity,
            pointer: pointer.to_owned(),
            message,
            semantic,
        });
    }

    fn constraint(&mut self, name: &str, outcome: Outcome, pointer: &str, message: String) {
        let (rule, severity) = rules::constraint(self.direction, name, outcome);
        self.found.push(Found {
            rule,
            severity,
            pointer: pointer.to_owned(),
            message,
            semantic: true,
        });
    }

    /// Whether every value `old` admits passes `new`.
    pub(crate) fn old_in_new(&mut self, old: &Value, new: &Value) -> Verdict {
        self.forward.reason = None;
        self.forward.includes(old, new)
    }

    /// Whether every value `new` admits passed `old`.
    pub(crate) fn new_in_old(&mut self, old: &Value, new: &Value) -> Verdict {
        self.backward.reason = None;
        self.backward.includes(new, old)
    }

    /// Whether `old` and `new` admit the same values.
    fn same_values(&mut self, old: &Value, new: &Value) -> bool {
        self.old_in_new(old, new) == Verdict::Yes && self.new_in_old(old, new) == Verdict::Yes
    }

    /// The inclusion that matters in this direction: nothing lost from what the client sends,
    /// nothing new in what it receives. With the reason when it cannot tell.
    fn safe(&mut self, old: &Value, new: &Value) -> (Verdict, Option<String>) {
        match self.direction {
            Direction::Input => {
                let v = self.old_in_new(old, new);
                (v, self.forward.reason.take())
            }
            Direction::Output => {
                let v = self.new_in_old(old, new);
                (v, self.backward.reason.take())
            }
        }
    }

    fn compare(&mut self, old: &'a Value, new: &'a Value, pointer: &str, depth: usize) {
        let quiet = std::mem::take(&mut self.quiet);
        if self.incomplete.is_some() {
            return;
        }
        if depth > MAX_DEPTH || self.budget.get() == 0 {
            self.incomplete = Some(pointer.to_owned());
            return;
        }
        self.budget.set(self.budget.get() - 1);
        let o = resolve(self.old_root, old);
        let n = resolve(self.new_root, new);
        if let (Some(a), Some(b)) = (reference(o), reference(n)) {
            if a != b {
                self.emit(
                    rules::UNRESOLVED_REF_CHANGED,
                    pointer,
                    format!("unresolved $ref {a:?} -> {b:?}"),
                );
            }
            return;
        }
        if !self
            .seen
            .insert((o as *const Value as usize, n as *const Value as usize))
        {
            return;
        }
        let start = self.found.len();
        self.node(o, n, pointer, depth, quiet);
        if self.incomplete.is_some() {
            return;
        }
        let (verdict, reason) = self.safe(o, n);
        let breaking = |f: &Found| f.severity == Severity::Breaking && f.semantic;
        match verdict {
            Verdict::Yes => {
                // What the walk called breaking here is shape: the values that matter pass.
                // A result property that is gone stays: a client that read it loses it, even
                // when it was optional.
                let tail = self.found.split_off(start);
                self.found.extend(
                    tail.into_iter()
                        .filter(|f| !breaking(f) || f.rule == rules::OUTPUT_PROPERTY_REMOVED.id),
                );
            }
            Verdict::No => {
                // Said already, by a finding of its own (breaking or not)?
                if !self.found[start..].iter().any(|f| f.semantic) {
                    let message = match self.direction {
                        Direction::Input => format!(
                            "{} no longer accepts every value it accepted",
                            subject(pointer)
                        ),
                        Direction::Output => format!(
                            "{} may now hold values the old schema did not admit",
                            subject(pointer)
                        ),
                    };
                    let outcome = match self.direction {
                        Direction::Input => Outcome::Narrowed,
                        Direction::Output => Outcome::Widened,
                    };
                    self.constraint("schema", outcome, pointer, message);
                }
            }
            Verdict::Unknown => {
                let settled = self.found[start..]
                    .iter()
                    .any(|f| breaking(f) || f.rule == rules::COMPARISON_INCOMPLETE.id);
                if !settled {
                    let why = reason.unwrap_or_else(|| "a keyword that is not compared".into());
                    let what = match self.direction {
                        Direction::Input => "every old value is still accepted",
                        Direction::Output => "every new value was admitted before",
                    };
                    self.emit(
                        rules::COMPARISON_INCOMPLETE,
                        pointer,
                        format!("cannot tell whether {what}: {why}"),
                    );
                }
            }
        }
    }

    /// The walk of one (old, new) pair of resolved schemas.
    fn node(&mut self, o: &'a Value, n: &'a Value, pointer: &str, depth: usize, quiet: bool) {
        match (o, n) {
            (Value::Bool(a), Value::Bool(b)) if a == b => return,
            (Value::Bool(false), _) => {
                self.constraint(
                    "schema",
                    Outcome::Widened,
                    pointer,
                    "admitted nothing (false), now admits values".into(),
                );
                return;
            }
            (_, Value::Bool(false)) => {
                self.constraint(
                    "schema",
                    Outcome::Narrowed,
                    pointer,
                    "now admits nothing (false)".into(),
                );
                return;
            }
            _ => {}
        }
        let om: &'a Map<String, Value> = o.as_object().unwrap_or(&EMPTY);
        let nm: &'a Map<String, Value> = n.as_object().unwrap_or(&EMPTY);

        if !quiet {
            self.annotations(om, nm, pointer);
        }
        // Lists of values (`enum`, `const`, unions of them, closed objects of them) compare
        // as sets, whatever their spelling.
        if let (Some(a), Some(b)) = (
            inclusion::finite(self.old_root, o),
            inclusion::finite(self.new_root, n),
        ) {
            self.value_sets(o, n, a, b, om, nm, pointer);
            return;
        }
        // Alternatives on either side are matched branch by branch by inclusion; a lone
        // schema is one branch.
        for key in ["anyOf", "oneOf"] {
            let (a, b) = (array(om, key), array(nm, key));
            if a.is_none() && b.is_none() {
                continue;
            }
            let old: Vec<&'a Value> = match a {
                Some(a) => a.iter().collect(),
                None => vec![o],
            };
            let new: Vec<&'a Value> = match b {
                Some(b) => b.iter().collect(),
                None => vec![n],
            };
            self.alternatives(&old, &new, key, pointer, depth, a.is_some() && b.is_some());
            if a.is_none() || b.is_none() {
                return;
            }
        }
        if array(om, "allOf").is_some() || array(nm, "allOf").is_some() {
            self.conjunctions(o, n, om, nm, pointer, depth);
            if array(om, "allOf").is_none() || array(nm, "allOf").is_none() {
                return;
            }
        }
        let (ta, tb) = (types(om), types(nm));
        self.types(om, nm, pointer);
        let both = |bits: u8| ta & bits != 0 && tb & bits != 0;
        self.enums(om, nm, pointer);
        if both(INTEGER | FRACTION) {
            self.bounds(om, nm, pointer);
        }
        self.counts(om, nm, pointer, both(STRING), both(ARRAY), both(OBJECT));
        if both(STRING) {
            self.strings(om, nm, pointer);
        }
        if both(OBJECT) {
            self.objects(om, nm, pointer, depth);
        }
        if both(ARRAY) {
            self.arrays(om, nm, pointer, depth);
        }
    }

    fn annotations(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        for key in ["description", "title"] {
            let (a, b) = (om.get(key), nm.get(key));
            if a != b {
                let (a, b) = texts(a, b);
                self.emit(
                    rules::DESCRIPTION_CHANGED,
                    &format!("{pointer}/{key}"),
                    format!("{key} {a} -> {b}"),
                );
            }
        }
        if self.direction == Direction::Input && !self.moot_defaults.contains(pointer) {
            let (a, b) = (om.get("default"), nm.get("default"));
            if a != b {
                self.emit(
                    rules::INPUT_DEFAULT_CHANGED,
                    &format!("{pointer}/default"),
                    format!(
                        "default {} -> {}: calls that omit it behave differently",
                        short(a),
                        short(b)
                    ),
                );
            }
        }
    }

    fn types(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        let (a, b) = (types(om), types(nm));
        if a == b {
            return;
        }
        let (lost, gained) = (a & !b, b & !a);
        let outcome = match (lost != 0, gained != 0) {
            (true, true) => Outcome::Changed,
            (true, false) => Outcome::Narrowed,
            _ => Outcome::Widened,
        };
        let what = subject(pointer);
        let lost_text = type_names;
        let consequence = match self.direction {
            Direction::Input if lost != 0 => format!(
                ": {} values of {what} are no longer accepted",
                lost_text(lost)
            ),
            Direction::Output if gained != 0 => {
                format!(": {what} may now be {}", lost_text(gained))
            }
            _ => String::new(),
        };
        self.constraint(
            "type",
            outcome,
            &format!("{pointer}/type"),
            format!("type {} -> {}{consequence}", type_names(a), type_names(b)),
        );
    }

    /// One side lists values, the other does not (two lists are [`Self::value_sets`]).
    fn enums(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        let at = |m: &Map<String, Value>| {
            if m.contains_key("enum") {
                format!("{pointer}/enum")
            } else {
                format!("{pointer}/const")
            }
        };
        let input = self.direction == Direction::Input;
        match (values(om), values(nm)) {
            (None, Some(b)) => {
                let message = if input {
                    format!(
                        "now limited to {}: other values are no longer accepted",
                        list(&b)
                    )
                } else {
                    format!("now limited to {}", list(&b))
                };
                self.constraint("enum", Outcome::Narrowed, &at(nm), message);
            }
            (Some(a), None) => {
                let message = if input {
                    format!("no longer limited to {}", list(&a))
                } else {
                    format!(
                        "no longer limited to {}: results may hold other values",
                        list(&a)
                    )
                };
                self.constraint("enum", Outcome::Widened, &at(om), message);
            }
            _ => {}
        }
    }

    fn bounds(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        let integer = is_integer(om) && is_integer(nm);
        for lower in [true, false] {
            let (a, b) = (bound(om, lower, integer), bound(nm, lower, integer));
            if a == b {
                continue;
            }
            let (name, key) = if lower {
                ("minimum", "minimum")
            } else {
                ("maximum", "maximum")
            };
            let outcome = match (a, b) {
                (None, _) => Outcome::Narrowed,
                (_, None) => Outcome::Widened,
                (Some(a), Some(b)) => {
                    if b.tighter_than(a, lower) {
                        Outcome::Narrowed
                    } else {
                        Outcome::Widened
                    }
                }
            };
            let where_ = if nm.contains_key(key) || b.is_none() && om.contains_key(key) {
                key
            } else if lower {
                "exclusiveMinimum"
            } else {
                "exclusiveMaximum"
            };
            self.constraint(
                name,
                outcome,
                &format!("{pointer}/{where_}"),
                format!(
                    "{name} {} -> {}",
                    render_bound(a, lower),
                    render_bound(b, lower)
                ),
            );
        }
    }

    fn counts(
        &mut self,
        om: &Map<String, Value>,
        nm: &Map<String, Value>,
        pointer: &str,
        strings: bool,
        arrays: bool,
        objects: bool,
    ) {
        for (key, name, is_max, applies) in [
            ("maxLength", "max-length", true, strings),
            ("minLength", "min-length", false, strings),
            ("maxItems", "max-items", true, arrays),
            ("minItems", "min-items", false, arrays),
            ("maxProperties", "max-properties", true, objects),
            ("minProperties", "min-properties", false, objects),
        ] {
            if !applies {
                continue;
            }
            let (a, b) = (count(om, key), count(nm, key));
            let outcome = match (a, b) {
                (a, b) if a == b => continue,
                (None, Some(0)) | (Some(0), None) if !is_max => continue,
                (None, _) => Outcome::Narrowed,
                (_, None) => Outcome::Widened,
                (Some(a), Some(b)) => {
                    if (b < a) == is_max {
                        Outcome::Narrowed
                    } else {
                        Outcome::Widened
                    }
                }
            };
            self.constraint(
                name,
                outcome,
                &format!("{pointer}/{key}"),
                format!("{key} {} -> {}", render_count(a), render_count(b)),
            );
        }
        let (a, b) = (unique(om), unique(nm));
        if a != b && arrays {
            self.constraint(
                "unique-items",
                if b {
                    Outcome::Narrowed
                } else {
                    Outcome::Widened
                },
                &format!("{pointer}/uniqueItems"),
                format!("uniqueItems {a} -> {b}"),
            );
        }
        let numbers = types(om) & types(nm) & (INTEGER | FRACTION) != 0;
        let (a, b) = (
            om.get("multipleOf").and_then(Value::as_f64),
            nm.get("multipleOf").and_then(Value::as_f64),
        );
        if a != b && numbers {
            let outcome = match (a, b) {
                (None, _) => Outcome::Narrowed,
                (_, None) => Outcome::Widened,
                (Some(a), Some(b)) if a != 0.0 && (b / a).fract() == 0.0 => Outcome::Narrowed,
                (Some(a), Some(b)) if b != 0.0 && (a / b).fract() == 0.0 => Outcome::Widened,
                _ => Outcome::Changed,
            };
            self.constraint(
                "multiple-of",
                outcome,
                &format!("{pointer}/multipleOf"),
                format!(
                    "multipleOf {} -> {}",
                    a.map_or("none".into(), |v| v.to_string()),
                    b.map_or("none".into(), |v| v.to_string())
                ),
            );
        }
    }

    fn strings(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        for (key, name) in [("pattern", "pattern"), ("format", "format")] {
            let (a, b) = (
                om.get(key).and_then(Value::as_str),
                nm.get(key).and_then(Value::as_str),
            );
            let outcome = match (a, b) {
                (a, b) if a == b => continue,
                (None, _) => Outcome::Narrowed,
                (_, None) => Outcome::Widened,
                _ => Outcome::Changed,
            };
            self.constraint(name, outcome, &format!("{pointer}/{key}"), {
                let (a, b) = quoted_pair(a, b);
                format!("{key} {a} -> {b}")
            });
        }
    }

    fn objects(
        &mut self,
        om: &'a Map<String, Value>,
        nm: &'a Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) {
        let empty_props: &'a Map<String, Value> = &EMPTY;
        let oprops = om
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_props);
        let nprops = nm
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_props);
        let oreq = required(om);
        let nreq = required(nm);
        let mut names: Vec<&str> = oprops.keys().map(String::as_str).collect();
        for name in oreq.iter().copied() {
            if !oprops.contains_key(name) {
                names.push(name);
            }
        }
        let known: HashSet<&str> = names.iter().copied().collect();
        let mut added: Vec<&str> = Vec::new();
        let mut seen_added: HashSet<&str> = HashSet::new();
        for name in nprops
            .keys()
            .map(String::as_str)
            .chain(nreq.iter().copied())
        {
            if !known.contains(name) && seen_added.insert(name) {
                added.push(name);
            }
        }
        let mut removed: Vec<&str> = Vec::new();
        let input = self.direction == Direction::Input;
        for name in names.iter().copied() {
            let at = format!("{pointer}/properties/{}", escape(name));
            let in_new = nprops.contains_key(name) || nreq.contains(name);
            if !in_new {
                removed.push(name);
                continue;
            }
            let (was, is) = (oreq.contains(name), nreq.contains(name));
            match (input, was, is) {
                (true, false, true) => self.emit(
                    rules::INPUT_PROPERTY_BECAME_REQUIRED,
                    &at,
                    format!("argument `{name}` became required"),
                ),
                (true, true, false) => self.emit(
                    rules::INPUT_PROPERTY_BECAME_OPTIONAL,
                    &at,
                    format!("argument `{name}` became optional"),
                ),
                (false, true, false) => self.emit(
                    rules::OUTPUT_PROPERTY_BECAME_OPTIONAL,
                    &at,
                    format!("result property `{name}` is no longer required: it may be absent"),
                ),
                (false, false, true) => self.emit(
                    rules::OUTPUT_PROPERTY_BECAME_REQUIRED,
                    &at,
                    format!("result property `{name}` became required"),
                ),
                _ => {}
            }
            let a = oprops.get(name).unwrap_or(&TRUE);
            let b = nprops.get(name).unwrap_or(&TRUE);
            if input && was {
                self.moot_defaults.insert(at.clone());
            }
            self.compare(a, b, &at, depth + 1);
        }
        // Source level: a property that went and one that came with the same schema is the
        // same field renamed.
        let mut renamed: Vec<(&str, &str)> = Vec::new();
        if self.source {
            for old_name in removed.iter().copied() {
                let old_schema = oprops.get(old_name).unwrap_or(&TRUE);
                let candidate = added.iter().copied().find(|&new_name| {
                    !renamed.iter().any(|(_, n)| *n == new_name)
                        && oreq.contains(old_name) == nreq.contains(new_name)
                        && self.same_values(old_schema, nprops.get(new_name).unwrap_or(&TRUE))
                });
                if let Some(new_name) = candidate {
                    renamed.push((old_name, new_name));
                }
            }
        }
        let closed = nm.get("additionalProperties") == Some(&Value::Bool(false));
        for name in removed {
            let at = format!("{pointer}/properties/{}", escape(name));
            let (rule, what) = if input && closed {
                let who = if oreq.contains(name) {
                    "every old call sent it"
                } else {
                    "calls that send it"
                };
                (
                    rules::INPUT_PROPERTY_REFUSED,
                    format!(
                        "argument `{name}` removed and the arguments are closed \
                         (additionalProperties: false): {who}, and the server refuses them"
                    ),
                )
            } else if input {
                (
                    rules::INPUT_PROPERTY_REMOVED,
                    format!("argument `{name}` removed (a client still sending it may be refused)"),
                )
            } else {
                (
                    rules::OUTPUT_PROPERTY_REMOVED,
                    format!("result property `{name}` removed"),
                )
            };
            self.emit(rule, &at, what);
        }
        for name in added {
            let at = format!("{pointer}/properties/{}", escape(name));
            let schema = nprops.get(name).unwrap_or(&TRUE);
            let required = nreq.contains(name);
            if input && required {
                let default = match resolve(self.new_root, schema).get("default") {
                    Some(_) => {
                        " (it has a default, but a validating server refuses calls without it)"
                    }
                    None => "",
                };
                self.emit(
                    rules::INPUT_REQUIRED_PROPERTY_ADDED,
                    &at,
                    format!("new required argument `{name}`{default}"),
                );
            } else if input {
                self.emit(
                    rules::INPUT_PROPERTY_ADDED,
                    &at,
                    format!("new optional argument `{name}`"),
                );
            } else {
                self.emit(
                    rules::OUTPUT_PROPERTY_ADDED,
                    &at,
                    format!(
                        "new {} result property `{name}`",
                        if required { "required" } else { "optional" }
                    ),
                );
            }
            if self.source {
                if let Some((old_name, _)) = renamed.iter().find(|(_, n)| *n == name) {
                    self.emit(
                        rules::SOURCE_FIELD_RENAMED,
                        &at,
                        format!("`{old_name}` renamed to `{name}`: its field is renamed"),
                    );
                } else if input {
                    self.emit(
                        rules::SOURCE_FIELD_ADDED,
                        &at,
                        format!(
                            "the arguments struct gains field `{name}` (struct literals stop compiling)"
                        ),
                    );
                }
            }
        }
        let (a, b) = (
            om.get("additionalProperties"),
            nm.get("additionalProperties"),
        );
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let at = format!("{pointer}/additionalProperties");
        match (closed(a), closed(b)) {
            (false, true) => {
                let (rule, what) = if input {
                    (
                        rules::INPUT_ADDITIONAL_CLOSED,
                        "additionalProperties: false appeared: arguments not in the schema are refused",
                    )
                } else {
                    (
                        rules::OUTPUT_ADDITIONAL_CLOSED,
                        "additionalProperties: false appeared in the result",
                    )
                };
                self.emit(rule, &at, what.into());
            }
            (true, false) => {
                let rule = if input {
                    rules::INPUT_ADDITIONAL_OPENED
                } else {
                    rules::OUTPUT_ADDITIONAL_OPENED
                };
                self.emit(rule, &at, "additionalProperties: false is gone".into());
            }
            (true, true) => {}
            (false, false) => {
                if a.is_some() || b.is_some() {
                    self.compare(a.unwrap_or(&TRUE), b.unwrap_or(&TRUE), &at, depth + 1);
                }
            }
        }
    }

    fn arrays(
        &mut self,
        om: &'a Map<String, Value>,
        nm: &'a Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) {
        match (om.get("items"), nm.get("items")) {
            (None, None) => {}
            (Some(Value::Array(a)), Some(Value::Array(b))) => {
                for (i, (a, b)) in a.iter().zip(b).enumerate() {
                    self.compare(a, b, &format!("{pointer}/items/{i}"), depth + 1);
                }
            }
            (Some(Value::Array(_)), _) | (_, Some(Value::Array(_))) => {}
            (a, b) => {
                self.compare(
                    a.unwrap_or(&TRUE),
                    b.unwrap_or(&TRUE),
                    &format!("{pointer}/items"),
                    depth + 1,
                );
            }
        }
        if let (Some(a), Some(b)) = (array(om, "prefixItems"), array(nm, "prefixItems")) {
            for (i, (a, b)) in a.iter().zip(b).enumerate() {
                self.compare(a, b, &format!("{pointer}/prefixItems/{i}"), depth + 1);
            }
        }
    }

    /// Two lists of values (`enum`, `const`, unions of them): what each admits, compared as
    /// sets; one finding says which values are gone and which are new.
    #[allow(clippy::too_many_arguments)]
    fn value_sets(
        &mut self,
        o: &Value,
        n: &Value,
        a: Vec<Value>,
        b: Vec<Value>,
        om: &Map<String, Value>,
        nm: &Map<String, Value>,
        pointer: &str,
    ) {
        let keep = |root: &Value, schema: &Value, values: Vec<Value>| -> Vec<Value> {
            values
                .into_iter()
                .filter(|v| inclusion::admits(root, schema, v) != Verdict::No)
                .collect()
        };
        let a = keep(self.old_root, o, a);
        let b = keep(self.new_root, n, b);
        let gone: Vec<&Value> = a
            .iter()
            .filter(|v| inclusion::admits(self.new_root, n, v) == Verdict::No)
            .collect();
        let new: Vec<&Value> = b
            .iter()
            .filter(|v| inclusion::admits(self.old_root, o, v) == Verdict::No)
            .collect();
        let at = if nm.contains_key("enum") {
            format!("{pointer}/enum")
        } else if nm.contains_key("const") {
            format!("{pointer}/const")
        } else if om.contains_key("enum") && !nm.contains_key("anyOf") && !nm.contains_key("oneOf")
        {
            format!("{pointer}/enum")
        } else {
            pointer.to_owned()
        };
        let outcome = match (gone.is_empty(), new.is_empty()) {
            (true, true) => return,
            (false, true) => Outcome::Narrowed,
            (true, false) => Outcome::Widened,
            (false, false) => Outcome::Changed,
        };
        let input = self.direction == Direction::Input;
        let mut parts = Vec::new();
        if !gone.is_empty() {
            parts.push(if input {
                format!("{} no longer accepted", is_are(&gone))
            } else {
                format!("{} no longer returned", is_are(&gone))
            });
        }
        if !new.is_empty() {
            parts.push(if input {
                format!("{} now accepted", is_are(&new))
            } else {
                format!("results may now hold {}", list(&new))
            });
        }
        self.constraint("enum", outcome, &at, parts.join("; "));
        if self.source && !new.is_empty() {
            self.emit(
                rules::SOURCE_VARIANT_ADDED,
                &at,
                format!(
                    "the generated enum gains {} (exhaustive matches stop compiling)",
                    if new.len() == 1 {
                        "a variant"
                    } else {
                        "variants"
                    }
                ),
            );
        }
    }

    /// `anyOf` / `oneOf` on one side or both (a lone schema is one branch): each old branch is
    /// paired with the new branch that covers it (by inclusion), else with one that admits the
    /// same types, and the pair is walked; a branch with no partner is reported by the values
    /// it stood for. `both`: both sides list branches (else nothing is said of the keyword
    /// itself appearing).
    fn alternatives(
        &mut self,
        old: &[&'a Value],
        new: &[&'a Value],
        key: &str,
        pointer: &str,
        depth: usize,
        both: bool,
    ) {
        let name = if key == "anyOf" { "any-of" } else { "one-of" };
        let lone_old = old.len() == 1 && !both && array(map(old[0]), key).is_none();
        let lone_new = new.len() == 1 && !both && array(map(new[0]), key).is_none();
        // rank: 3 same values, 2 old in new, 1 new in old, 0 shared types.
        let mut partner: Vec<Option<(usize, u8)>> = vec![None; old.len()];
        let mut covered_new = vec![false; new.len()];
        let mut covered_old = vec![false; old.len()];
        for (i, ob) in old.iter().enumerate() {
            let ob = resolve(self.old_root, ob);
            for (j, nb) in new.iter().enumerate() {
                let nb = resolve(self.new_root, nb);
                let fwd = self.old_in_new(ob, nb) == Verdict::Yes;
                let bwd = self.new_in_old(ob, nb) == Verdict::Yes;
                if fwd {
                    covered_old[i] = true;
                }
                if bwd {
                    covered_new[j] = true;
                }
                let shared = types(map(ob)) & types(map(nb)) != 0;
                let rank = match (fwd, bwd) {
                    (true, true) => 3,
                    (true, false) => 2,
                    (false, true) => 1,
                    _ if shared => 0,
                    _ => continue,
                };
                if partner[i].is_none_or(|(_, r)| rank > r) {
                    partner[i] = Some((j, rank));
                }
            }
        }
        let mut walked_new = vec![false; new.len()];
        for (i, p) in partner.iter().enumerate() {
            if let Some((j, _)) = *p {
                walked_new[j] = true;
                self.quiet = lone_old || lone_new;
                let at = if lone_new {
                    pointer.to_owned()
                } else {
                    format!("{pointer}/{key}/{j}")
                };
                self.compare(old[i], new[j], &at, depth + 1);
            }
        }
        let input = self.direction == Direction::Input;
        let what = subject(pointer);
        // Old branches neither covered nor walked: their values are gone.
        let gone: Vec<usize> = (0..old.len())
            .filter(|&i| partner[i].is_none() && !covered_old[i])
            .collect();
        if !gone.is_empty() {
            let forms: Vec<String> = gone
                .iter()
                .map(|&i| describe(resolve(self.old_root, old[i])))
                .collect();
            let message = if input {
                format!("{} no longer accepted", of(&forms, &what))
            } else {
                format!("{} no longer returned", of(&forms, &what))
            };
            let at = if lone_old {
                pointer.to_owned()
            } else {
                format!("{pointer}/{key}")
            };
            self.constraint(name, Outcome::Narrowed, &at, message);
        }
        // New branches no old branch was walked against and that add values.
        let added: Vec<usize> = (0..new.len())
            .filter(|&j| !walked_new[j] && !covered_new[j])
            .collect();
        if !added.is_empty() {
            let forms: Vec<String> = added
                .iter()
                .map(|&j| describe(resolve(self.new_root, new[j])))
                .collect();
            let message = if input {
                format!("{} now also accepted", of(&forms, &what))
            } else {
                format!("{what} may now be returned as {}", forms.join(" or "))
            };
            let at = if lone_new {
                pointer.to_owned()
            } else {
                format!("{pointer}/{key}/{}", added[0])
            };
            self.constraint(name, Outcome::Widened, &at, message);
        }
    }

    /// `allOf` on one side or both: branches (a lone schema's own keywords are one) are paired
    /// by equal values and walked; an unpaired new branch narrows unless every old value
    /// passes it, an unpaired old branch widens unless every new value passes it.
    fn conjunctions(
        &mut self,
        o: &'a Value,
        n: &'a Value,
        om: &'a Map<String, Value>,
        nm: &'a Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) {
        let old: Vec<&'a Value> = match array(om, "allOf") {
            Some(a) => a.iter().collect(),
            None => vec![o],
        };
        let new: Vec<&'a Value> = match array(nm, "allOf") {
            Some(b) => b.iter().collect(),
            None => vec![n],
        };
        let mut used = vec![false; new.len()];
        let mut old_left = Vec::new();
        for (i, ob) in old.iter().enumerate() {
            let found = (0..new.len()).find(|&j| !used[j] && self.same_values(ob, new[j]));
            match found {
                Some(j) => {
                    used[j] = true;
                    if !std::ptr::eq(old[i], o) && !std::ptr::eq(new[j], n) {
                        self.compare(ob, new[j], &format!("{pointer}/allOf/{j}"), depth + 1);
                    }
                }
                None => old_left.push(i),
            }
        }
        let what = subject(pointer);
        let input = self.direction == Direction::Input;
        let narrowing: Vec<usize> = (0..new.len())
            .filter(|&j| !used[j] && !std::ptr::eq(new[j], n))
            .filter(|&j| self.old_in_new(o, new[j]) != Verdict::Yes)
            .collect();
        if !narrowing.is_empty() {
            let at: Vec<String> = narrowing.iter().map(|j| format!("allOf/{j}")).collect();
            let message = if input {
                format!(
                    "new constraint {} on {what}: values it refuses are no longer accepted",
                    at.join(", ")
                )
            } else {
                format!("new constraint {} on {what}", at.join(", "))
            };
            self.constraint(
                "all-of",
                Outcome::Narrowed,
                &format!("{pointer}/allOf/{}", narrowing[0]),
                message,
            );
        }
        let widening: Vec<usize> = old_left
            .into_iter()
            .filter(|&i| !std::ptr::eq(old[i], o))
            .filter(|&i| self.new_in_old(old[i], n) != Verdict::Yes)
            .collect();
        if !widening.is_empty() {
            let at: Vec<String> = widening.iter().map(|i| format!("allOf/{i}")).collect();
            let message = if input {
                format!("constraint {} (old) on {what} is gone", at.join(", "))
            } else {
                format!(
                    "constraint {} (old) on {what} is gone: results may hold values it refused",
                    at.join(", ")
                )
            };
            self.constraint(
                "all-of",
                Outcome::Widened,
                &format!("{pointer}/allOf"),
                message,
            );
        }
    }
}

fn map(v: &Value) -> &Map<String, Value> {
    v.as_object().unwrap_or(&EMPTY)
}

/// What a pointer names, for messages: "`cmd`" for a property, "the value" elsewhere.
fn subject(pointer: &str) -> String {
    let mut tokens = pointer.rsplit('/');
    let last = tokens.next().unwrap_or("");
    match tokens.next() {
        Some("properties") => format!("`{}`", mcp_bindgen_core::pointer::unescape(last)),
        _ if pointer.ends_with("/items") => "the items".into(),
        _ if pointer == "/inputSchema" => "the arguments".into(),
        _ if pointer == "/outputSchema" => "the result".into(),
        _ => "the value".into(),
    }
}

/// A branch in a few words: `the value "pdf"`, `the string form`, `the object form`.
fn describe(schema: &Value) -> String {
    if let Some(values) = inclusion::finite(&Value::Null, schema)
        && !values.is_empty()
        && values.len() <= 3
    {
        let refs: Vec<&Value> = values.iter().collect();
        return list(&refs);
    }
    match schema {
        Value::Bool(true) => "any value".into(),
        Value::Bool(false) => "no value".into(),
        _ => format!("the {} form", type_names(types(map(schema)))),
    }
}

/// `the string form of `cmd` is`, `the value "pdf" for `format` is`.
fn of(forms: &[String], what: &str) -> String {
    let verb = if forms.len() == 1 { "is" } else { "are" };
    let joined = forms.join(", ");
    if forms.iter().all(|f| f.ends_with(" form")) {
        format!("{joined} of {what} {verb}")
    } else {
        format!("{joined} for {what} {verb}")
    }
}

fn is_are(values: &[&Value]) -> String {
    let text = list(values);
    if values.len() == 1 {
        format!("{text} is")
    } else {
        format!("{text} are")
    }
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn is_integer(m: &Map<String, Value>) -> bool {
    let bits = types(m);
    bits & INTEGER != 0 && bits & FRACTION == 0
}

/// `enum` values, or the `const` as one value.
fn values(m: &Map<String, Value>) -> Option<Vec<&Value>> {
    if let Some(Value::Array(values)) = m.get("enum") {
        return Some(values.iter().collect());
    }
    m.get("const").map(|c| vec![c])
}

fn array<'v>(m: &'v Map<String, Value>, key: &str) -> Option<&'v [Value]> {
    m.get(key).and_then(Value::as_array).map(Vec::as_slice)
}

fn required(m: &Map<String, Value>) -> BTreeSet<&str> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn count(m: &Map<String, Value>, key: &str) -> Option<u64> {
    let v = m.get(key)?;
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f.max(0.0).floor() as u64))
}

fn unique(m: &Map<String, Value>) -> bool {
    m.get("uniqueItems") == Some(&Value::Bool(true))
}

fn render_bound(b: Option<Bound>, lower: bool) -> String {
    match b {
        None => "none".into(),
        Some(b) => {
            let op = match (lower, b.exclusive) {
                (true, false) => ">=",
                (true, true) => ">",
                (false, false) => "<=",
                (false, true) => "<",
            };
            format!("{op} {}", b.value)
        }
    }
}

fn render_count(c: Option<u64>) -> String {
    c.map_or("none".into(), |c| c.to_string())
}

/// Two versions of a string keyword (a `pattern`, a `format`) for a message, as [`texts`].
pub(crate) fn quoted_pair(a: Option<&str>, b: Option<&str>) -> (String, String) {
    let value = |s: Option<&str>| s.map(|s| Value::String(s.to_owned()));
    texts(value(a).as_ref(), value(b).as_ref())
}

/// Two versions of a text for a one-line message: each as [`short`] when both are short;
/// otherwise the part where they differ, with a little context on each side, so that a change
/// past the first 60 characters is seen (`"...Use 'UTC' as local..." -> "...Use 'Etc/UTC' as
/// local..."`), not cut away from both.
pub(crate) fn texts(a: Option<&Value>, b: Option<&Value>) -> (String, String) {
    let (Some(Value::String(x)), Some(Value::String(y))) = (a, b) else {
        return (short(a), short(b));
    };
    let (old, new) = (short(a), short(b));
    if !old.ends_with("...") && !new.ends_with("...") {
        return (old, new);
    }
    let (x, y): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
    let prefix = x.iter().zip(&y).take_while(|(a, b)| a == b).count();
    let room = x.len().min(y.len()) - prefix;
    let suffix = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    const CONTEXT: usize = 16;
    const MOST: usize = 60;
    let start = prefix.saturating_sub(CONTEXT);
    let window = |text: &[char], whole: String| {
        if !whole.ends_with("...") {
            return whole;
        }
        let end = (text.len() - suffix + CONTEXT).min(text.len());
        let mut part: String = text[start..end].iter().collect();
        let mut cut_end = end < text.len();
        if part.chars().count() > MOST {
            part = part.chars().take(MOST).collect();
            cut_end = true;
        }
        let json = Value::String(part).to_string();
        let inner = &json[1..json.len() - 1];
        format!(
            "\"{}{inner}{}\"",
            if start > 0 { "..." } else { "" },
            if cut_end { "..." } else { "" }
        )
    };
    (window(&x, old), window(&y, new))
}

/// A value for a one-line message: compact JSON, at most 60 characters.
pub(crate) fn short(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return "none".into();
    };
    let text = v.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    }
}

fn list(values: &[&Value]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(|v| short(Some(v))).collect();
    let more = if values.len() > 8 {
        format!(" and {} more", values.len() - 8)
    } else {
        String::new()
    };
    if values.len() == 1 {
        format!("the value {}", shown[0])
    } else {
        format!("the values {}{more}", shown.join(", "))
    }
}
