//! Comparing two JSON Schemas by the values they admit, in one direction: what a client sends
//! (`inputSchema`) breaks when it admits fewer values, what it receives (`outputSchema`) when
//! it admits more.
//!
//! The walk follows `$ref`s on both sides (see [`super::resolve`]), so pointers name the path a
//! value takes (`/inputSchema/properties/user/properties/id`), not where a definition sits.
//! Each pair of (old, new) schema nodes is compared once: recursive schemas terminate, and a
//! definition used in many places is reported at the first place it is reached. Work per tool
//! is bounded (depth and node count); past the bound the tool gets one `comparison-incomplete`.

use std::cell::Cell;
use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::resolve::{reference, resolve};
use super::rules::{self, Direction, Level, Outcome, Rule, Severity};

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

    /// Whether `new` admits exactly what `old` does (descriptions and defaults aside), or, with
    /// `no_breaking`, at least nothing that breaks in this direction.
    pub(crate) fn trial(
        &self,
        old: &'a Value,
        new: &'a Value,
        depth: usize,
        no_breaking: bool,
    ) -> bool {
        let mut trial = Compare::new(
            self.old_root,
            self.new_root,
            self.direction,
            false,
            self.budget,
        );
        trial.compare(old, new, "", depth);
        trial.incomplete.is_none()
            && trial.found.iter().all(|f| {
                if no_breaking {
                    f.severity != Severity::Breaking
                } else {
                    !f.semantic
                }
            })
    }

    fn compare(&mut self, old: &'a Value, new: &'a Value, pointer: &str, depth: usize) {
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

        self.annotations(om, nm, pointer);
        // A schema that gained or lost a list of alternatives is compared branch by branch
        // against the other, whole.
        for (key, name) in [
            ("anyOf", "any-of"),
            ("oneOf", "one-of"),
            ("allOf", "all-of"),
        ] {
            match (array(om, key), array(nm, key)) {
                (None, Some(branches)) => {
                    self.lift(o, branches, key, name, false, pointer, depth);
                    return;
                }
                (Some(branches), None) => {
                    self.lift(n, branches, key, name, true, pointer, depth);
                    return;
                }
                _ => {}
            }
        }
        self.types(om, nm, pointer);
        self.enums(om, nm, pointer);
        self.bounds(om, nm, pointer);
        self.counts(om, nm, pointer);
        self.strings(om, nm, pointer);
        self.objects(om, nm, pointer, depth);
        self.arrays(om, nm, pointer, depth);
        for (key, name) in [
            ("anyOf", "any-of"),
            ("oneOf", "one-of"),
            ("allOf", "all-of"),
        ] {
            if let (Some(a), Some(b)) = (array(om, key), array(nm, key)) {
                self.branches(a, b, key, name, pointer, depth);
            }
        }
    }

    fn annotations(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        for key in ["description", "title"] {
            let (a, b) = (om.get(key), nm.get(key));
            if a != b {
                self.emit(
                    rules::DESCRIPTION_CHANGED,
                    &format!("{pointer}/{key}"),
                    format!("{key} {} -> {}", short(a), short(b)),
                );
            }
        }
        if self.direction == Direction::Input {
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
        self.constraint(
            "type",
            outcome,
            &format!("{pointer}/type"),
            format!("type {} -> {}", type_names(a), type_names(b)),
        );
    }

    fn enums(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        let (a, b) = (values(om), values(nm));
        let at = |m: &Map<String, Value>| {
            if m.contains_key("enum") {
                format!("{pointer}/enum")
            } else {
                format!("{pointer}/const")
            }
        };
        match (a, b) {
            (None, None) => {}
            (None, Some(b)) => {
                self.constraint(
                    "enum",
                    Outcome::Narrowed,
                    &at(nm),
                    format!("now limited to {}", list(&b)),
                );
            }
            (Some(a), None) => {
                self.constraint(
                    "enum",
                    Outcome::Widened,
                    &at(om),
                    format!("no longer limited to {}", list(&a)),
                );
            }
            (Some(a), Some(b)) => {
                let removed: Vec<&Value> = a.iter().copied().filter(|v| !b.contains(v)).collect();
                let added: Vec<&Value> = b.iter().copied().filter(|v| !a.contains(v)).collect();
                if !removed.is_empty() {
                    self.constraint(
                        "enum",
                        Outcome::Narrowed,
                        &at(nm),
                        format!("{} removed", plural_values(&removed)),
                    );
                }
                if !added.is_empty() {
                    self.constraint(
                        "enum",
                        Outcome::Widened,
                        &at(nm),
                        format!("{} added", plural_values(&added)),
                    );
                    if self.source {
                        self.emit(
                            rules::SOURCE_VARIANT_ADDED,
                            &at(nm),
                            format!(
                                "the generated enum gains {} (exhaustive matches stop compiling)",
                                if added.len() == 1 {
                                    "a variant"
                                } else {
                                    "variants"
                                }
                            ),
                        );
                    }
                }
            }
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

    fn counts(&mut self, om: &Map<String, Value>, nm: &Map<String, Value>, pointer: &str) {
        for (key, name, is_max) in [
            ("maxLength", "max-length", true),
            ("minLength", "min-length", false),
            ("maxItems", "max-items", true),
            ("minItems", "min-items", false),
            ("maxProperties", "max-properties", true),
            ("minProperties", "min-properties", false),
        ] {
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
        if a != b {
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
        let (a, b) = (
            om.get("multipleOf").and_then(Value::as_f64),
            nm.get("multipleOf").and_then(Value::as_f64),
        );
        if a != b {
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
            self.constraint(
                name,
                outcome,
                &format!("{pointer}/{key}"),
                format!("{key} {} -> {}", quoted(a), quoted(b)),
            );
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
            if !oprops.contains_key(name) && !names.contains(&name) {
                names.push(name);
            }
        }
        let mut added: Vec<&str> = Vec::new();
        for name in nprops
            .keys()
            .map(String::as_str)
            .chain(nreq.iter().copied())
        {
            if !names.contains(&name) && !added.contains(&name) {
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
            self.compare(a, b, &at, depth + 1);
        }
        // Source level: a property that went and one that came with the same schema is the
        // same field renamed.
        let mut renamed: Vec<(&str, &str)> = Vec::new();
        if self.source {
            for old_name in removed.iter().copied() {
                let old_schema = oprops.get(old_name).unwrap_or(&TRUE);
                let candidate = added.iter().copied().find(|new_name| {
                    !renamed.iter().any(|(_, n)| n == new_name)
                        && oreq.contains(old_name) == nreq.contains(new_name)
                        && self.trial(
                            old_schema,
                            nprops.get(*new_name).unwrap_or(&TRUE),
                            depth + 1,
                            false,
                        )
                });
                if let Some(new_name) = candidate {
                    renamed.push((old_name, new_name));
                }
            }
        }
        for name in removed {
            let at = format!("{pointer}/properties/{}", escape(name));
            let (rule, what) = if input {
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

    /// Both sides have `key` (`anyOf`, `oneOf`, `allOf`): equal branches are paired, the rest
    /// are paired in order and compared, and what is left over was added or removed.
    fn branches(
        &mut self,
        a: &'a [Value],
        b: &'a [Value],
        key: &str,
        name: &str,
        pointer: &str,
        depth: usize,
    ) {
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut new_used = vec![false; b.len()];
        let mut old_left = Vec::new();
        for (i, old) in a.iter().enumerate() {
            let found =
                (0..b.len()).find(|&j| !new_used[j] && self.trial(old, &b[j], depth + 1, false));
            match found {
                Some(j) => {
                    new_used[j] = true;
                    pairs.push((i, j));
                }
                None => old_left.push(i),
            }
        }
        let mut new_left: Vec<usize> = (0..b.len()).filter(|&j| !new_used[j]).collect();
        let paired = old_left.len().min(new_left.len());
        for (&i, &j) in old_left.iter().zip(&new_left).take(paired) {
            pairs.push((i, j));
        }
        for (i, j) in pairs {
            self.compare(&a[i], &b[j], &format!("{pointer}/{key}/{j}"), depth + 1);
        }
        let extra_old: Vec<usize> = old_left.split_off(paired);
        let extra_new: Vec<usize> = new_left.split_off(paired);
        let all_of = key == "allOf";
        if !extra_new.is_empty() {
            let outcome = if all_of {
                Outcome::Narrowed
            } else {
                Outcome::Widened
            };
            let at: Vec<String> = extra_new.iter().map(|j| format!("{key}/{j}")).collect();
            self.constraint(
                name,
                outcome,
                &format!("{pointer}/{key}/{}", extra_new[0]),
                format!("new {key} branch {}", at.join(", ")),
            );
        }
        if !extra_old.is_empty() {
            let outcome = if all_of {
                Outcome::Widened
            } else {
                Outcome::Narrowed
            };
            let at: Vec<String> = extra_old.iter().map(|i| format!("{key}/{i}")).collect();
            self.constraint(
                name,
                outcome,
                &format!("{pointer}/{key}"),
                format!("{key} branch {} (old) removed", at.join(", ")),
            );
        }
    }

    /// One side has `key`, the other does not: the lone schema is looked for among the
    /// branches. `reversed`: the old side has the branches.
    #[allow(clippy::too_many_arguments)]
    fn lift(
        &mut self,
        lone: &'a Value,
        branches: &'a [Value],
        key: &str,
        name: &str,
        reversed: bool,
        pointer: &str,
        depth: usize,
    ) {
        // The lone side's alternatives keyword is absent, so comparing it with a branch only
        // looks at its own constraints.
        let matched = branches.iter().position(|branch| {
            if reversed {
                self.trial(branch, lone, depth + 1, false)
            } else {
                self.trial(lone, branch, depth + 1, false)
            }
        });
        let all_of = key == "allOf";
        match matched {
            Some(index) => {
                let others: Vec<String> = (0..branches.len())
                    .filter(|&i| i != index)
                    .map(|i| format!("{key}/{i}"))
                    .collect();
                if others.is_empty() {
                    return;
                }
                // More branches than the lone schema: more values (anyOf) or fewer (allOf).
                let more = all_of == reversed;
                let outcome = if more {
                    Outcome::Widened
                } else {
                    Outcome::Narrowed
                };
                let message = if reversed {
                    format!("the {key} alternatives {} are gone", others.join(", "))
                } else {
                    format!("new {key} alternatives {}", others.join(", "))
                };
                self.constraint(name, outcome, &format!("{pointer}/{key}"), message);
            }
            None => {
                let message = if reversed {
                    format!("{key} of {} replaced by one schema", branches.len())
                } else {
                    format!("one schema replaced by {key} of {}", branches.len())
                };
                self.constraint(name, Outcome::Changed, &format!("{pointer}/{key}"), message);
            }
        }
    }
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const INTEGER: u8 = 4;
const FRACTION: u8 = 8;
const STRING: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;
const ALL: u8 = 127;

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

/// The JSON types a schema admits (`integer` is part of `number`).
fn types(m: &Map<String, Value>) -> u8 {
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

fn type_names(bits: u8) -> String {
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
        }
    }
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(" | ")
    }
}

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

/// A lower or upper bound.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    exclusive: bool,
}

impl Bound {
    /// Whether `self` admits fewer values than `other` (both lower or both upper bounds).
    fn tighter_than(self, other: Bound, lower: bool) -> bool {
        if self.value == other.value {
            return self.exclusive && !other.exclusive;
        }
        (self.value > other.value) == lower
    }
}

/// The effective lower (or upper) bound: the tighter of the inclusive and exclusive keywords
/// (draft 4's boolean `exclusiveMinimum` included); on integers, as the inclusive integer.
fn bound(m: &Map<String, Value>, lower: bool, integer: bool) -> Option<Bound> {
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

fn quoted(s: Option<&str>) -> String {
    match s {
        Some(s) => short(Some(&Value::String(s.to_owned()))),
        None => "none".into(),
    }
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

fn plural_values(values: &[&Value]) -> String {
    list(values).replacen("the ", "", 1)
}

/// Escapes a JSON pointer token.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
