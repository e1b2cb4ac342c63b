//! Rewrites a tool's JSON Schema into the subset typify 0.8 handles correctly, before typify
//! sees it (ARCHITECTURE.md, "The generator").
//!
//! - Every internal `$ref` (`#`, `#/$defs/..`, `#/definitions/..`, `#/properties/..`) is
//!   hoisted into a definition named `{Tool}{Key}`, unique across the server, so tools that
//!   share `$defs` keys cannot collide and typify never sees a `$ref` it cannot resolve.
//! - A bare `const` becomes a one-value `enum` with its `type`; an `enum` without `type` gets
//!   one; `null` in an enum becomes an optional enum; enum values whose Rust names would
//!   collide get names chosen here.
//! - `prefixItems` becomes a tuple when it can, nested `title`s are made unique, patterns that
//!   do not compile are dropped.
//! - What cannot be rewritten (mixed-type enums, external or dangling `$ref`s, `$anchor`
//!   refs) becomes `{}` (a `serde_json::Value`) with a warning naming the tool and the JSON
//!   pointer. The tool's original schema is still checked at run time before a call is sent.

use std::collections::{BTreeMap, BTreeSet};

use heck::ToPascalCase;
use mcp_bindgen_core::pointer::{self as json_pointer, escape};
use serde_json::{Map, Value, json};

use crate::handoff::{Handwritten, HandwrittenVariant, Normalised, Substitution};
use crate::naming::{self, Names};

/// Keywords that only annotate; they may stand beside a `$ref` without changing its meaning.
const ANNOTATIONS: &[&str] = &[
    "$ref",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Deeper than this, a schema is cut to `{}` (with a warning) to bound recursion.
const MAX_DEPTH: usize = 128;

/// Normalises `schema` (found at `base` in `file`) as the type `root_name`; nested names start
/// with `prefix`. Its `$schema` dialect was checked once, before (`dialect::check`, with the
/// tool's other schema).
pub(crate) fn normalise(
    schema: &Value,
    root_name: &str,
    prefix: &str,
    names: &mut Names,
) -> Normalised {
    let mut walker = Walker {
        doc: schema,
        prefix,
        names,
        root: None,
        hoisted: BTreeMap::new(),
        queue: Vec::new(),
        out: Normalised::default(),
    };
    walker.hoisted.insert(String::new(), root_name.to_owned());
    walker.queue.push((String::new(), root_name.to_owned()));
    walker.run();
    walker.out.defs.sort_by(|a, b| a.0.cmp(&b.0));
    walker.out
}

/// Normalises definitions that are already named (lowered contracts): references are
/// `#/$defs/Name` between them, and every name is kept.
pub(crate) fn normalise_definitions(defs: &[(String, Value)], names: &mut Names) -> Normalised {
    let document = json!({
        "$defs": defs.iter().cloned().collect::<Map<String, Value>>(),
    });
    let mut walker = Walker {
        doc: &document,
        prefix: "",
        names,
        root: None,
        hoisted: BTreeMap::new(),
        queue: Vec::new(),
        out: Normalised::default(),
    };
    for (name, _) in defs.iter().rev() {
        let pointer = format!("/$defs/{}", escape(name));
        walker.hoisted.insert(pointer.clone(), name.clone());
        walker.queue.push((pointer, name.clone()));
    }
    walker.run();
    walker.out
}

struct Walker<'a> {
    doc: &'a Value,
    prefix: &'a str,
    names: &'a mut Names,
    /// The definition being normalised, while its root schema is.
    root: Option<String>,
    /// Pointer of a hoisted schema → its definition name.
    hoisted: BTreeMap<String, String>,
    queue: Vec<(String, String)>,
    out: Normalised,
}

impl Walker<'_> {
    /// Normalises every queued definition (and those its references hoist).
    fn run(&mut self) {
        while let Some((pointer, name)) = self.queue.pop() {
            let Some(target) = self.doc.pointer(&pointer) else {
                continue;
            };
            let mut titles = BTreeSet::new();
            self.root = Some(name.clone());
            let mut value = self.schema(target, &pointer, 0, &mut titles);
            self.root = None;
            if let Value::Object(object) = &mut value {
                // The definition is named by its key; a title would rename it.
                object.remove("title");
            }
            let value = self.own_type(&name, value);
            self.out.defs.push((name, value));
        }
    }

    /// Takes out a definition typify would type wrongly ([`Handwritten`]): its entry becomes `{}`.
    fn own_type(&mut self, name: &str, value: Value) -> Value {
        let Value::Object(object) = value.clone() else {
            return value;
        };
        let description = object
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let placeholder = || {
            let mut out = Map::new();
            if let Some(d) = object.get("description") {
                out.insert("description".into(), d.clone());
            }
            Value::Object(out)
        };
        // A one-value boolean or integer enum.
        if let (Some(Value::Array(values)), Some(Value::String(kind))) =
            (object.get("enum"), object.get("type"))
            && values.len() == 1
            && matches!(kind.as_str(), "boolean" | "integer")
            && (values[0].is_boolean() || values[0].is_i64() || values[0].is_u64())
        {
            self.out.handwritten.push(Handwritten::Const {
                name: name.to_owned(),
                value: values[0].clone(),
                description,
            });
            return placeholder();
        }
        let Some(Value::Array(branches)) = object.get("oneOf").or_else(|| object.get("anyOf"))
        else {
            return value;
        };
        let Some(tag) = own_tag(branches) else {
            return value;
        };
        let overrides = self.names.variant_overrides(name);
        let mut variants = Vec::new();
        let mut taken = BTreeSet::new();
        for branch in branches {
            let Value::Object(branch) = branch else {
                return value;
            };
            let tag_value = branch
                .get("properties")
                .and_then(|p| p.get(&tag))
                .and_then(|t| t.get("enum"))
                .and_then(|e| e.get(0))
                .cloned()
                .unwrap_or(Value::Null);
            let wire = tag_value.to_string();
            let default = match &tag_value {
                Value::Bool(true) => tag.to_pascal_case(),
                Value::Bool(false) => format!("Not{}", tag.to_pascal_case()),
                Value::Number(n) => {
                    let n = n.to_string();
                    match n.strip_prefix('-') {
                        Some(abs) => format!("{}Minus{abs}", tag.to_pascal_case()),
                        None => format!("{}{n}", tag.to_pascal_case()),
                    }
                }
                _ => return value,
            };
            let mut variant = overrides
                .as_ref()
                .and_then(|o| o.get(&wire))
                .cloned()
                .unwrap_or(default);
            let base = variant.clone();
            let mut n = 2;
            while !taken.insert(variant.clone()) {
                variant = format!("{base}{n}");
                n += 1;
            }
            let mut payload = branch.clone();
            if let Some(Value::Object(props)) = payload.get_mut("properties") {
                props.shift_remove(&tag);
            }
            if let Some(Value::Array(required)) = payload.get_mut("required") {
                required.retain(|r| r.as_str() != Some(tag.as_str()));
            }
            let variant_description = payload
                .remove("description")
                .and_then(|d| d.as_str().map(str::to_owned));
            payload.remove("title");
            let payload_name = self.names.reserve(&format!("{name}{variant}"));
            self.out
                .defs
                .push((payload_name.clone(), Value::Object(payload)));
            variants.push(HandwrittenVariant {
                name: variant,
                value: tag_value,
                payload: payload_name,
                description: variant_description,
            });
        }
        self.out.handwritten.push(Handwritten::Tagged {
            name: name.to_owned(),
            tag,
            variants,
            description,
        });
        placeholder()
    }

    fn warn(&mut self, pointer: &str, message: impl Into<String>) {
        self.out.warnings.push((pointer.to_owned(), message.into()));
    }

    /// `{}` keeping the description: the `serde_json::Value` fallback.
    fn degrade(&mut self, schema: &Map<String, Value>, pointer: &str, why: String) -> Value {
        self.warn(pointer, format!("{why}; typed as serde_json::Value"));
        let mut out = Map::new();
        if let Some(d) = schema.get("description") {
            out.insert("description".into(), d.clone());
        }
        Value::Object(out)
    }

    fn schema(
        &mut self,
        schema: &Value,
        pointer: &str,
        depth: usize,
        titles: &mut BTreeSet<String>,
    ) -> Value {
        let object = match schema {
            Value::Bool(true) => return json!({}),
            Value::Bool(false) => return Value::Bool(false),
            Value::Object(o) => o,
            other => {
                self.warn(
                    pointer,
                    format!(
                        "expected a schema object, found {}; typed as serde_json::Value",
                        crate::capture::kind(other)
                    ),
                );
                return json!({});
            }
        };
        if depth > MAX_DEPTH {
            return self.degrade(
                object,
                pointer,
                format!("schema nested deeper than {MAX_DEPTH}"),
            );
        }
        if let Some(reference) = object.get("$ref") {
            return self.reference(object, reference, pointer);
        }
        let collapsed = const_union(object);
        let object = collapsed.as_ref().unwrap_or(object);
        let mut out = Map::new();
        // Properties whose field names collided: (wire name, placeholder).
        let mut renamed: Vec<(String, String)> = Vec::new();
        for (key, value) in object {
            let here = format!("{pointer}/{}", escape(key));
            if let Some(new) = self.keyword(key, value, &here, depth, titles, &mut renamed) {
                out.insert(key.clone(), new);
            }
        }
        if !renamed.is_empty()
            && let Some(Value::Array(required)) = out.get_mut("required")
        {
            for entry in required.iter_mut() {
                if let Some((_, placeholder)) = renamed.iter().find(|(wire, _)| entry == wire) {
                    *entry = Value::String(placeholder.clone());
                }
            }
        }
        if let Some(kind) = out.get("type").and_then(Value::as_str)
            && kind == "integer"
            && ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
                .iter()
                .any(|k| out.get(*k).is_some_and(|b| b.is_f64()))
        {
            self.warn(
                pointer,
                "integer bounds beyond 64 bits: the field is a 64-bit integer, so values outside i64/u64 cannot be sent",
            );
        }
        if let Some(Value::Array(all)) = out.get_mut("allOf") {
            // Entries left empty by the removals above constrain nothing.
            all.retain(|s| s.as_object().is_none_or(|o| !o.is_empty()));
            if all.is_empty() {
                out.remove("allOf");
            }
        }
        self.check_default(&mut out, pointer);
        let root = if depth == 0 { self.root.clone() } else { None };
        self.consts_and_enums(&mut out, object, root.as_deref());
        self.prefix_items(&mut out, pointer);
        if let Some(Value::Object(pp)) = out.get("patternProperties") {
            // typify panics on root-level patternProperties and ignores them elsewhere: a map
            // of the (single) value schema is the same Rust type, and the key patterns are
            // still checked at run time.
            if pp.len() == 1 && !out.contains_key("additionalProperties") {
                let value_schema = pp.values().next().cloned().unwrap_or(json!({}));
                out.insert("additionalProperties".into(), value_schema);
            }
            out.remove("patternProperties");
        }
        if out.remove("nullable") == Some(Value::Bool(true)) {
            // OpenAPI 3.0's `nullable: true`: JSON Schema's `type: [T, "null"]`.
            match out.get("type").cloned() {
                Some(Value::String(t)) if t != "null" => {
                    out.insert("type".into(), json!([t, "null"]));
                }
                Some(Value::Array(mut types)) if !types.contains(&json!("null")) => {
                    types.push(json!("null"));
                    out.insert("type".into(), Value::Array(types));
                }
                _ => {}
            }
            if let Some(Value::Array(values)) = out.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
        }
        if let Some(Value::Array(types)) = out.get("type") {
            if types.is_empty() {
                out.remove("type");
            } else if types.len() == 1 {
                let t = types[0].clone();
                out.insert("type".into(), t);
            }
        }
        if let Some(Value::Array(variants)) = out.get("enum")
            && variants.is_empty()
        {
            return self.degrade(object, pointer, "enum with no values".into());
        }
        if out.get("enum").is_some_and(|e| e.get(0).is_some()) && self.mixed_enum(&out) {
            return self.degrade(object, pointer, "enum mixes value types".into());
        }
        Value::Object(out)
    }

    /// One keyword of a schema object, normalised (its subschemas through [`Self::schema`]);
    /// `None` drops it. `renamed` collects the properties whose field names collided.
    fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        here: &str,
        depth: usize,
        titles: &mut BTreeSet<String>,
        renamed: &mut Vec<(String, String)>,
    ) -> Option<Value> {
        let new = match key {
            // Definitions are hoisted when referenced; the rest is dropped.
            "$defs" | "definitions" | "$schema" | "$id" | "$anchor" | "$dynamicAnchor"
            | "$comment" | "x-rust-type" => return None,
            // Constraints that shape no Rust type (typify panics on if/then/else); the
            // runtime check of the original schema still enforces them.
            "if" | "then" | "else" | "dependentRequired" | "dependentSchemas" | "dependencies" => {
                return None;
            }
            "properties" | "patternProperties" => {
                let Value::Object(map) = value else {
                    self.warn(here, format!("\"{key}\" is not an object; ignored"));
                    return None;
                };
                let mut new = Map::new();
                let mut fields = BTreeSet::new();
                for (name, sub) in map {
                    let p = format!("{here}/{}", escape(name));
                    let sub = self.schema(sub, &p, depth + 1, titles);
                    let key = if key == "properties" {
                        self.unique_field(name, &mut fields, renamed, &p)
                    } else {
                        name.clone()
                    };
                    new.insert(key, sub);
                }
                Value::Object(new)
            }
            "items" if value.is_array() => Value::Array(self.schemas(value, here, depth, titles)),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if !value.is_array() {
                    self.warn(here, format!("\"{key}\" is not an array; ignored"));
                    return None;
                }
                Value::Array(self.schemas(value, here, depth, titles))
            }
            "additionalProperties"
            | "items"
            | "additionalItems"
            | "contains"
            | "not"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems" => self.schema(value, here, depth + 1, titles),
            "title" => Value::String(self.title(value.as_str()?, titles)),
            "pattern" => {
                let pattern = value.as_str()?;
                if let Err(e) = regress::Regex::new(pattern) {
                    self.warn(
                        here,
                        format!("pattern {pattern:?} is not an ECMAScript regular expression ({e}); not checked by the generated type"),
                    );
                    return None;
                }
                value.clone()
            }
            _ => value.clone(),
        };
        Some(new)
    }

    /// A nested title as a type's name: prefixed, so that tools cannot collide, and unique
    /// within the tool.
    fn title(&self, title: &str, titles: &mut BTreeSet<String>) -> String {
        let base = format!("{}{}", self.prefix, title.to_pascal_case());
        let mut candidate = base.clone();
        let mut n = 2;
        while titles.contains(&candidate) || self.names.is_taken(&candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        titles.insert(candidate.clone());
        candidate
    }

    /// The property key typify should see for `name`: itself, or a placeholder when its field
    /// name collides with an earlier property's (`userId` and `user_id`); the generated field
    /// is then `user_id_2`, still (de)serialised as `user_id`.
    fn unique_field(
        &mut self,
        name: &str,
        fields: &mut BTreeSet<String>,
        renamed: &mut Vec<(String, String)>,
        pointer: &str,
    ) -> String {
        let field = naming::field_name(name);
        if fields.insert(field.clone()) {
            return name.to_owned();
        }
        let mut n = 2;
        let mut ident = format!("{field}_{n}");
        while !fields.insert(ident.clone()) {
            n += 1;
            ident = format!("{field}_{n}");
        }
        let placeholder = self.names.placeholder("Field");
        self.out.substitutions.push(Substitution {
            placeholder: placeholder.clone(),
            value: name.to_owned(),
            ident_from: naming::field_name(&placeholder),
            ident_to: ident.clone(),
        });
        self.warn(
            pointer,
            format!("property {name:?} has the same Rust name as another property; its field is `{ident}`"),
        );
        renamed.push((name.to_owned(), placeholder.clone()));
        placeholder
    }

    fn schemas(
        &mut self,
        value: &Value,
        pointer: &str,
        depth: usize,
        titles: &mut BTreeSet<String>,
    ) -> Vec<Value> {
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .enumerate()
                    .map(|(i, s)| self.schema(s, &format!("{pointer}/{i}"), depth + 1, titles))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn reference(
        &mut self,
        object: &Map<String, Value>,
        reference: &Value,
        pointer: &str,
    ) -> Value {
        let Some(reference) = reference.as_str() else {
            return self.degrade(object, pointer, "$ref is not a string".into());
        };
        let dropped: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|k| !ANNOTATIONS.contains(k))
            .collect();
        if !dropped.is_empty() {
            self.warn(
                pointer,
                format!(
                    "keywords beside $ref ({}) are not part of the generated type; they are still checked at run time",
                    dropped.join(", ")
                ),
            );
        }
        let Some(fragment) = reference.strip_prefix('#') else {
            return self.degrade(
                object,
                pointer,
                format!("$ref {reference:?} points outside this schema (never fetched)"),
            );
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return self.degrade(
                object,
                pointer,
                format!("$ref {reference:?} names an anchor, which is not supported"),
            );
        }
        let Some(target) = json_pointer::percent_decode(fragment).map(String::from) else {
            return self.degrade(
                object,
                pointer,
                format!(
                    "$ref {reference:?} is not valid percent-encoding (a % must be followed by \
                     two hex digits of UTF-8)"
                ),
            );
        };
        if self.doc.pointer(&target).is_none() {
            return self.degrade(
                object,
                pointer,
                format!("$ref {reference:?} points nowhere in this schema"),
            );
        }
        let name = match self.hoisted.get(&target) {
            Some(name) => name.clone(),
            None => {
                let last = target.rsplit('/').next().unwrap_or_default();
                let last = json_pointer::unescape(last);
                let mut stem = naming::type_name(&last);
                if stem.is_empty() {
                    stem = "Def".into();
                }
                let name = self.names.reserve(&format!("{}{stem}", self.prefix));
                self.hoisted.insert(target.clone(), name.clone());
                self.queue.push((target, name.clone()));
                name
            }
        };
        let mut out = Map::new();
        out.insert(
            "$ref".into(),
            Value::String(format!("#/definitions/{name}")),
        );
        if let Some(d) = object.get("description") {
            out.insert("description".into(), d.clone());
        }
        Value::Object(out)
    }

    /// A `default` that does not fit its schema is dropped: typify refuses the whole type
    /// otherwise. `default: null` on a type that is not nullable (pydantic's `x: str | None =
    /// None` as some servers pass it on) means "optional, no default": dropped silently, since
    /// leaving the field out sends what the server expects; any other misfit with a warning.
    fn check_default(&mut self, out: &mut Map<String, Value>, pointer: &str) {
        let Some(default) = out.get("default") else {
            return;
        };
        let mut schema = out.clone();
        schema.remove("default");
        if fits(default, &Value::Object(schema)) {
            return;
        }
        let default = out.remove("default").unwrap_or_default();
        if !default.is_null() {
            self.warn(
                pointer,
                format!("the default {default} does not fit the schema; dropped"),
            );
        }
    }

    /// `const` → one-value `enum`; infer `type` from enum values; split `null` out of an enum;
    /// name string variants that typify would collide on.
    fn consts_and_enums(
        &mut self,
        out: &mut Map<String, Value>,
        original: &Map<String, Value>,
        def: Option<&str>,
    ) {
        if let Some(value) = out.remove("const") {
            match out.get("enum") {
                Some(_) => {}
                None => {
                    out.insert("enum".into(), Value::Array(vec![value]));
                }
            }
        }
        let Some(Value::Array(values)) = out.get("enum").cloned() else {
            return;
        };
        let has_null = values.iter().any(Value::is_null);
        let non_null: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        let kinds = enum_kinds(&non_null);
        if kinds.len() != 1 {
            return; // Empty or mixed: the caller degrades it.
        }
        let kind = *kinds.iter().next().unwrap_or(&"string");
        let declared_type = out.get("type").cloned();
        if declared_type.is_none() {
            out.insert("type".into(), Value::String(kind.to_owned()));
        }
        if has_null {
            // typify panics on `null` among other values: make it an optional enum.
            let mut inner = out.clone();
            inner.insert("enum".into(), Value::Array(non_null.clone()));
            inner.insert("type".into(), Value::String(kind.to_owned()));
            inner.remove("description");
            inner.remove("default");
            let mut wrapper = Map::new();
            if let Some(d) = original.get("description") {
                wrapper.insert("description".into(), d.clone());
            }
            wrapper.insert(
                "anyOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            *out = wrapper;
            if let Some(Value::Array(any)) = out.get_mut("anyOf")
                && let Some(Value::Object(inner)) = any.get_mut(0)
            {
                self.name_variants(inner, None);
            }
            return;
        }
        if kind == "string" {
            self.name_variants(out, def);
        }
    }

    fn name_variants(&mut self, out: &mut Map<String, Value>, def: Option<&str>) {
        let Some(Value::Array(values)) = out.get("enum") else {
            return;
        };
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let overrides = def.and_then(|d| self.names.variant_overrides(d));
        let names = match &overrides {
            Some(chosen) => naming::variant_names_chosen(&strings, chosen),
            None => match naming::variant_names(&strings) {
                Some(names) => names,
                None => return, // typify's own names are unique
            },
        };
        let mut placeholders = Vec::with_capacity(strings.len());
        for (value, variant) in strings.iter().zip(names) {
            let placeholder = self.names.placeholder("Variant");
            self.out.substitutions.push(Substitution {
                placeholder: placeholder.clone(),
                value: (*value).to_owned(),
                ident_from: placeholder.clone(),
                ident_to: variant,
            });
            placeholders.push(Value::String(placeholder));
        }
        out.insert("enum".into(), Value::Array(placeholders));
        out.remove("default");
    }

    fn mixed_enum(&self, out: &Map<String, Value>) -> bool {
        let Some(Value::Array(values)) = out.get("enum") else {
            return false;
        };
        enum_kinds(values).len() > 1
    }

    /// 2020-12 `prefixItems` → a draft-07 tuple (`items: [..]`) when the array is exactly the
    /// prefix; otherwise an array of values.
    fn prefix_items(&mut self, out: &mut Map<String, Value>, pointer: &str) {
        let Some(Value::Array(prefix)) = out.remove("prefixItems") else {
            return;
        };
        let closed = out.get("items") == Some(&Value::Bool(false));
        let n = prefix.len() as u64;
        let min_ok = out.get("minItems").and_then(Value::as_u64) == Some(n);
        if closed && min_ok {
            out.insert("items".into(), Value::Array(prefix));
            out.insert("maxItems".into(), json!(n));
        } else {
            self.warn(
                pointer,
                "prefixItems that is not a closed tuple (items: false, minItems = its length); items typed as serde_json::Value",
            );
            out.insert("items".into(), json!({}));
        }
    }
}

/// An `anyOf` / `oneOf` whose branches are each one value (`const`, or a one-value `enum`,
/// with or without `type`, `title`, `description`), or `{"type": "null"}`: how zod writes a
/// union of literals and pydantic a `Literal[..]`. It is the `enum` of those values (typify
/// would otherwise see an untagged union of unit types, and refuse a `default`).
fn const_union(object: &Map<String, Value>) -> Option<Map<String, Value>> {
    const ONLY: &[&str] = &[
        "const",
        "enum",
        "type",
        "title",
        "description",
        "$comment",
        "examples",
        "deprecated",
    ];
    if object.contains_key("enum") || object.contains_key("const") {
        return None;
    }
    let key = ["anyOf", "oneOf"]
        .into_iter()
        .find(|k| object.contains_key(*k))?;
    let branches = object.get(key)?.as_array()?;
    let mut values = Vec::new();
    let mut types = BTreeSet::new();
    for branch in branches {
        let branch = branch.as_object()?;
        if branch.keys().any(|k| !ONLY.contains(&k.as_str())) {
            return None;
        }
        let value = match (branch.get("const"), branch.get("enum")) {
            (Some(value), None) => value.clone(),
            (None, Some(Value::Array(one))) if one.len() == 1 => one[0].clone(),
            (None, None) if branch.get("type") == Some(&json!("null")) => Value::Null,
            _ => return None,
        };
        if let Some(t) = branch.get("type") {
            let t = t.as_str()?;
            if t != "null" {
                types.insert(t.to_owned());
            }
        }
        if !values.contains(&value) {
            values.push(value);
        }
    }
    if values.iter().all(Value::is_null) || types.len() > 1 {
        return None;
    }
    let mut out = object.clone();
    out.remove(key);
    if !out.contains_key("type")
        && let Some(t) = types.into_iter().next()
    {
        out.insert("type".into(), Value::String(t));
    }
    out.insert("enum".into(), Value::Array(values));
    Some(out)
}

/// Whether `value` could be valid against `schema`: its type, `enum` / `const`, bounds,
/// lengths, and (recursively) properties, items and `anyOf` / `oneOf` branches. What this does
/// not look at (`$ref`, patterns, formats) counts as fitting.
fn fits(value: &Value, schema: &Value) -> bool {
    let Value::Object(schema) = schema else {
        return schema != &Value::Bool(false);
    };
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.contains(value)
    {
        return false;
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return false;
    }
    let kind = json_type(value);
    let type_ok = |t: &Value| match t.as_str() {
        Some("number") => kind == "number" || kind == "integer",
        Some(t) => t == kind,
        None => true,
    };
    match schema.get("type") {
        Some(Value::Array(types)) if !types.iter().any(type_ok) => return false,
        Some(t @ Value::String(_)) if !type_ok(t) => return false,
        _ => {}
    }
    if let Some(n) = value.as_f64() {
        let bound = |k: &str| schema.get(k).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|m| n < m)
            || bound("maximum").is_some_and(|m| n > m)
            || bound("exclusiveMinimum").is_some_and(|m| n <= m)
            || bound("exclusiveMaximum").is_some_and(|m| n >= m)
        {
            return false;
        }
    }
    let length = |k: &str| schema.get(k).and_then(Value::as_u64);
    if let Some(s) = value.as_str() {
        let n = s.chars().count() as u64;
        if length("minLength").is_some_and(|m| n < m) || length("maxLength").is_some_and(|m| n > m)
        {
            return false;
        }
    }
    if let Some(items) = value.as_array() {
        let n = items.len() as u64;
        if length("minItems").is_some_and(|m| n < m) || length("maxItems").is_some_and(|m| n > m) {
            return false;
        }
        if let Some(item) = schema.get("items").filter(|i| i.is_object())
            && !items.iter().all(|v| fits(v, item))
        {
            return false;
        }
    }
    if let Some(fields) = value.as_object() {
        if let Some(Value::Array(required)) = schema.get("required")
            && required
                .iter()
                .any(|r| r.as_str().is_some_and(|r| !fields.contains_key(r)))
        {
            return false;
        }
        if let Some(Value::Object(properties)) = schema.get("properties")
            && fields
                .iter()
                .any(|(k, v)| properties.get(k).is_some_and(|p| !fits(v, p)))
        {
            return false;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key)
            && !branches.iter().any(|b| fits(value, b))
        {
            return false;
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf")
        && !all.iter().all(|b| fits(value, b))
    {
        return false;
    }
    true
}

/// The property that tells `branches` apart when it is a boolean or integer: required in
/// every branch, a one-value enum of one kind, a different value in each.
fn own_tag(branches: &[Value]) -> Option<String> {
    let first = branches.first()?.get("properties")?.as_object()?;
    'candidates: for candidate in first.keys() {
        let mut seen: Vec<&Value> = Vec::new();
        for branch in branches {
            let Some(value) = branch
                .get("properties")
                .and_then(|p| p.get(candidate))
                .and_then(|s| s.get("enum"))
                .and_then(Value::as_array)
                .filter(|values| values.len() == 1)
                .map(|values| &values[0])
            else {
                continue 'candidates;
            };
            let required = branch
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|r| r.as_str() == Some(candidate)));
            let same_kind = seen
                .first()
                .is_none_or(|v| json_type(v) == json_type(value));
            if !required
                || !same_kind
                || seen.contains(&value)
                || !(value.is_boolean() || value.is_i64() || value.is_u64())
            {
                continue 'candidates;
            }
            seen.push(value);
        }
        return Some(candidate.clone());
    }
    None
}

/// The JSON types of enum values, integers counted as numbers when both occur.
fn enum_kinds(values: &[Value]) -> BTreeSet<&'static str> {
    let mut kinds: BTreeSet<&str> = values.iter().map(json_type).collect();
    if kinds.contains("number") {
        kinds.remove("integer");
    }
    kinds
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
