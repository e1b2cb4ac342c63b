//! [`ir`](super::ir) → JSON Schema definitions (2020-12), for the one type emitter.
//!
//! Every named construct becomes a definition: declarations under their own (PascalCase)
//! name, inline object types, literal unions and object unions under `{Parent}{Field}`
//! (`{Parent}{Field}Item` for array elements), identical inline object shapes once.
//! Intersections are merged here into one object (typify never sees an `allOf`).

use std::collections::{BTreeMap, HashMap};

use heck::ToPascalCase;
use serde_json::{Map, Value, json};

use super::ir::{ConstValue, Decl, DeclKind, IntKind, Lit, Loc, Member, Obj, Ty};
use super::{Const, Contracts, Problem};
use crate::naming;

/// Result of lowering: definitions in declaration order and what else was found.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub defs: Vec<(String, Value)>,
    pub consts: Vec<Const>,
    /// Definition name → where it was declared (or written inline).
    pub locations: BTreeMap<String, Loc>,
    /// Enum definition → wire value → variant name (from TypeScript `enum` member names).
    pub variant_names: BTreeMap<String, BTreeMap<String, String>>,
    pub warnings: Vec<(Loc, String)>,
}

/// An object type with its members resolved (`extends` and intersections flattened).
#[derive(Debug, Clone, Default)]
struct Shape {
    members: Vec<Member>,
    index: Option<Ty>,
}

pub(crate) struct Lowerer<'a> {
    contracts: &'a Contracts,
    /// Declared name → declaration.
    decls: HashMap<&'a str, &'a Decl>,
    /// Rust names reserved so far (shared with the rest of the server).
    taken: &'a mut dyn FnMut(&str) -> String,
    /// Declared name → Rust definition name.
    rust_names: HashMap<String, String>,
    /// Canonical shape of a hoisted inline object → its definition name.
    shapes: HashMap<String, String>,
    /// (name wanted, canonical shape) of any hoisted construct → its definition name.
    hoisted: HashMap<(String, String), String>,
    /// Generic instantiation key → definition name.
    instances: HashMap<String, String>,
    /// Keys of the inline object types and intersections being lowered, outermost first: one
    /// that contains itself (`interface A { x: A & { y: string } }`) would expand without end.
    expanding: Vec<String>,
    pub out: Output,
}

type Lowered = Result<Value, Problem>;

static BOOLEAN: Ty = Ty::Boolean;

/// Where a type is being lowered: a declaration's own type, or inside one (a field, an array
/// element, ...). Unsupported constructs are errors at the top and `Value` + warning inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    Root,
    Inner,
}

fn is_integer(n: f64) -> bool {
    n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15
}

fn number(n: f64) -> Value {
    if is_integer(n) {
        json!(n as i64)
    } else {
        json!(n)
    }
}

fn lit_value(lit: &Lit) -> Value {
    match lit {
        Lit::Str(s) => json!(s),
        Lit::Num(n) => number(*n),
        Lit::Bool(b) => json!(b),
    }
}

fn lit_schema(lit: &Lit) -> Value {
    match lit {
        Lit::Str(s) => json!({"type": "string", "enum": [s]}),
        Lit::Num(n) if is_integer(*n) => json!({"type": "integer", "enum": [number(*n)]}),
        Lit::Num(n) => json!({"type": "number", "enum": [n]}),
        Lit::Bool(b) => json!({"type": "boolean", "enum": [b]}),
    }
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn nullable(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// The schema without descriptions, as a key for merging identical shapes.
fn canonical(schema: &Value) -> String {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(o) => Value::Object(
                o.iter()
                    .filter(|(k, _)| k.as_str() != "description")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(schema).to_string()
}

fn with_description(mut schema: Value, doc: Option<&str>) -> Value {
    if let (Some(doc), Value::Object(o)) = (doc, &mut schema) {
        o.insert("description".into(), json!(doc));
    }
    schema
}

/// A name for a type argument, to name an instantiation (`Page<Scenario>` → `PageScenario`).
fn arg_name(ty: &Ty) -> String {
    match ty {
        Ty::Ref { name, args, .. } => {
            let mut s = naming::type_name(name);
            for a in args {
                s.push_str(&arg_name(a));
            }
            s
        }
        Ty::String => "String".into(),
        Ty::Number => "Number".into(),
        Ty::Boolean => "Boolean".into(),
        Ty::Null => "Null".into(),
        Ty::Any | Ty::Unknown => "Value".into(),
        Ty::Array(inner) => format!("{}Array", arg_name(inner)),
        Ty::Union(items) => items.iter().map(arg_name).collect::<Vec<_>>().join("Or"),
        Ty::Lit(Lit::Str(s)) => naming::type_name(s),
        _ => "T".into(),
    }
}

/// A structural key for a type (locations left out), to recognise an instantiation.
fn key(ty: &Ty) -> String {
    match ty {
        Ty::Ref { name, args, .. } => format!(
            "{name}<{}>",
            args.iter().map(key).collect::<Vec<_>>().join(",")
        ),
        Ty::Array(inner) => format!("{}[]", key(inner)),
        Ty::Tuple(items) => format!("[{}]", items.iter().map(key).collect::<Vec<_>>().join(",")),
        Ty::Union(items) => items.iter().map(key).collect::<Vec<_>>().join("|"),
        Ty::Intersection(items) => items.iter().map(key).collect::<Vec<_>>().join("&"),
        Ty::Object(obj) => format!(
            "{{{}}}",
            obj.members
                .iter()
                .map(|m| format!(
                    "{}{}:{}",
                    m.name,
                    if m.optional { "?" } else { "" },
                    key(&m.ty)
                ))
                .collect::<Vec<_>>()
                .join(";")
        ),
        Ty::Lit(l) => format!("{l:?}"),
        Ty::Indexed { object, key: k, .. } => format!("{}[{k:?}]", key(object)),
        Ty::Unsupported { what, .. } => format!("unsupported({what})"),
        other => format!("{other:?}"),
    }
}

/// Replaces type parameters by their arguments.
fn substitute(ty: &Ty, map: &HashMap<String, Ty>) -> Ty {
    if map.is_empty() {
        return ty.clone();
    }
    match ty {
        Ty::Ref { name, args, at } => {
            if args.is_empty()
                && let Some(arg) = map.get(name)
            {
                return arg.clone();
            }
            Ty::Ref {
                name: name.clone(),
                args: args.iter().map(|a| substitute(a, map)).collect(),
                at: *at,
            }
        }
        Ty::Array(inner) => Ty::Array(Box::new(substitute(inner, map))),
        Ty::Tuple(items) => Ty::Tuple(items.iter().map(|t| substitute(t, map)).collect()),
        Ty::Union(items) => Ty::Union(items.iter().map(|t| substitute(t, map)).collect()),
        Ty::Intersection(items) => {
            Ty::Intersection(items.iter().map(|t| substitute(t, map)).collect())
        }
        Ty::Object(obj) => Ty::Object(substitute_obj(obj, map)),
        Ty::Indexed { object, key, at } => Ty::Indexed {
            object: Box::new(substitute(object, map)),
            key: key.clone(),
            at: *at,
        },
        other => other.clone(),
    }
}

fn substitute_obj(obj: &Obj, map: &HashMap<String, Ty>) -> Obj {
    Obj {
        members: obj
            .members
            .iter()
            .map(|m| Member {
                ty: substitute(&m.ty, map),
                ..m.clone()
            })
            .collect(),
        index: obj.index.as_ref().map(|t| Box::new(substitute(t, map))),
        skipped: obj.skipped.clone(),
    }
}

impl<'a> Lowerer<'a> {
    pub(crate) fn new(
        contracts: &'a Contracts,
        decls: &'a [Decl],
        taken: &'a mut dyn FnMut(&str) -> String,
    ) -> Self {
        Lowerer {
            contracts,
            decls: decls.iter().map(|d| (d.name.as_str(), d)).collect(),
            taken,
            rust_names: HashMap::new(),
            shapes: HashMap::new(),
            hoisted: HashMap::new(),
            instances: HashMap::new(),
            expanding: Vec::new(),
            out: Output::default(),
        }
    }

    fn warn(&mut self, at: Loc, message: impl Into<String>) {
        self.out.warnings.push((at, message.into()));
    }

    /// Reserves Rust names for every declaration that becomes a type; a clash with a tool's
    /// type is an error at the declaration.
    pub(crate) fn reserve(&mut self, decls: &'a [Decl]) -> Result<(), Problem> {
        for decl in decls {
            if matches!(decl.kind, DeclKind::Const(_)) {
                continue;
            }
            if self.rust_names.contains_key(&decl.name) {
                continue;
            }
            let wanted = naming::type_name(&decl.name);
            let got = (self.taken)(&wanted);
            if got != wanted {
                return Err(Problem::error(
                    decl.at,
                    format!(
                        "the declaration `{}` would be the Rust type `{wanted}`, which another declaration or a tool's argument type already is",
                        decl.name
                    ),
                    "rename the declaration (Rust type names are the PascalCase of the TypeScript name)",
                ));
            }
            self.rust_names.insert(decl.name.clone(), got);
        }
        Ok(())
    }

    /// Lowers every declaration that stands alone (generic ones only when every parameter
    /// has a default).
    pub(crate) fn declarations(&mut self, decls: &'a [Decl]) -> Result<(), Problem> {
        for decl in decls {
            match &decl.kind {
                DeclKind::Const(value) => self.constant(decl, value.as_ref()),
                DeclKind::Enum(members) => self.enumeration(decl, members)?,
                DeclKind::Interface { .. } | DeclKind::Alias(_) => {
                    if decl.params.iter().any(|p| p.default.is_none()) {
                        continue; // a template: lowered where it is used with arguments
                    }
                    let name = self.rust_names[&decl.name].clone();
                    if self.out.locations.contains_key(&name) {
                        continue; // merged interface declarations, already done
                    }
                    let args: Vec<Ty> = decl
                        .params
                        .iter()
                        .filter_map(|p| p.default.clone())
                        .collect();
                    self.instances
                        .insert(Self::instance_key(&decl.name, &args), name.clone());
                    self.instance(decl, &name, &args)?;
                }
            }
        }
        Ok(())
    }

    fn instance_key(name: &str, args: &[Ty]) -> String {
        format!(
            "{name}<{}>",
            args.iter().map(key).collect::<Vec<_>>().join(",")
        )
    }

    /// Lowers `decl` with `args` for its parameters as the definition `name`.
    fn instance(&mut self, decl: &Decl, name: &str, args: &[Ty]) -> Result<(), Problem> {
        self.out.locations.insert(name.to_owned(), decl.at);
        let map: HashMap<String, Ty> = decl
            .params
            .iter()
            .zip(args)
            .map(|(p, a)| (p.name.clone(), a.clone()))
            .collect();
        let schema = match &decl.kind {
            DeclKind::Interface { .. } => {
                let shape = self.interface_shape(decl, &map, 0)?;
                self.object(&shape, name)?
            }
            DeclKind::Alias(ty) => {
                let ty = substitute(ty, &map);
                self.lower(&ty, name, Site::Root, decl.at)?
            }
            _ => return Ok(()),
        };
        let schema = with_description(schema, decl.doc.as_deref());
        self.out.defs.push((name.to_owned(), schema));
        Ok(())
    }

    fn constant(&mut self, decl: &Decl, value: Option<&ConstValue>) {
        match value {
            Some(value) => self.out.consts.push(Const {
                name: decl.name.clone(),
                doc: decl.doc.clone(),
                value: value.clone(),
            }),
            None => self.warn(
                decl.at,
                format!(
                    "`{}` declares no literal value (only a type); no Rust constant is generated",
                    decl.name
                ),
            ),
        }
    }

    fn enumeration(
        &mut self,
        decl: &Decl,
        members: &[super::ir::EnumMember],
    ) -> Result<(), Problem> {
        let name = self.rust_names[&decl.name].clone();
        let mut values = Vec::new();
        let mut names = BTreeMap::new();
        let mut next = 0.0;
        for m in members {
            let value = match &m.value {
                Some(lit) => lit.clone(),
                None => Lit::Num(next),
            };
            if let Lit::Num(n) = value {
                next = n + 1.0;
            }
            if let Lit::Str(s) = &value {
                names.insert(s.clone(), naming::type_name(&m.name));
            }
            values.push(value);
        }
        let all_strings = values.iter().all(|v| matches!(v, Lit::Str(_)));
        let all_ints = values
            .iter()
            .all(|v| matches!(v, Lit::Num(n) if is_integer(*n)));
        let schema = if all_strings && !values.is_empty() {
            self.out.variant_names.insert(name.clone(), names);
            json!({"type": "string", "enum": values.iter().map(lit_value).collect::<Vec<_>>()})
        } else if all_ints && !values.is_empty() {
            json!({"type": "integer", "enum": values.iter().map(lit_value).collect::<Vec<_>>()})
        } else {
            return Err(Problem::error(
                decl.at,
                format!(
                    "the enum `{}` mixes string and number members, or has computed ones",
                    decl.name
                ),
                "give every member a string value, or every member a number value",
            ));
        };
        self.out.locations.insert(name.clone(), decl.at);
        self.out
            .defs
            .push((name, with_description(schema, decl.doc.as_deref())));
        Ok(())
    }

    /// A definition for an inline construct, named `hint` (made unique); identical object
    /// shapes share one definition.
    fn hoist(&mut self, hint: &str, schema: Value, at: Loc, merge: bool) -> Value {
        let shape = canonical(&schema);
        let key = (hint.to_owned(), shape.clone());
        if let Some(name) = self.hoisted.get(&key) {
            return reference(name);
        }
        if merge && let Some(name) = self.shapes.get(&shape) {
            return reference(name);
        }
        let name = (self.taken)(hint);
        if merge {
            self.shapes.insert(shape, name.clone());
        }
        self.hoisted.insert(key, name.clone());
        self.out.locations.insert(name.clone(), at);
        self.out.defs.push((name.clone(), schema));
        reference(&name)
    }

    /// Lowers a type found at `at`; `hint` names what it hoists.
    fn lower(&mut self, ty: &Ty, hint: &str, site: Site, at: Loc) -> Lowered {
        Ok(match ty {
            Ty::Any | Ty::Unknown => json!({}),
            Ty::String => json!({"type": "string"}),
            Ty::Number => json!({"type": "number"}),
            Ty::Boolean => json!({"type": "boolean"}),
            Ty::Null => json!({"type": "null"}),
            Ty::ObjectKeyword => json!({"type": "object"}),
            Ty::Int(kind) => {
                let format = match kind {
                    IntKind::I8 => "int8",
                    IntKind::I16 => "int16",
                    IntKind::I32 => "int32",
                    IntKind::I64 => "int64",
                    IntKind::U8 => "uint8",
                    IntKind::U16 => "uint16",
                    IntKind::U32 => "uint32",
                    IntKind::U64 => "uint64",
                };
                if *kind == IntKind::I64 {
                    json!({"type": "integer"})
                } else {
                    json!({"type": "integer", "format": format})
                }
            }
            Ty::F32 => json!({"type": "number", "format": "float"}),
            Ty::Never => return self.unsupported("`never`", at, site),
            Ty::Undefined => return self.unsupported("`undefined` alone", at, site),
            Ty::Unsupported { what, at } => return self.unsupported(what, *at, site),
            Ty::Lit(lit) => {
                let schema = lit_schema(lit);
                match site {
                    Site::Root => schema,
                    Site::Inner => self.hoist(hint, schema, at, false),
                }
            }
            Ty::Array(inner) => {
                let items = self.lower(inner, &format!("{hint}Item"), Site::Inner, at)?;
                json!({"type": "array", "items": items})
            }
            Ty::Tuple(items) if items.is_empty() => {
                json!({"type": "array", "items": {}, "maxItems": 0})
            }
            Ty::Tuple(items) if items.len() == 1 => {
                // typify writes wrong conversions for one-element tuples in enums (`(T,)`).
                self.warn(
                    at,
                    "a one-element tuple is typed as a Vec; its length is not checked when decoding",
                );
                let item = self.lower(&items[0], &format!("{hint}Item"), Site::Inner, at)?;
                json!({"type": "array", "items": item, "minItems": 1, "maxItems": 1})
            }
            Ty::Tuple(items) => {
                let mut prefix = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    prefix.push(self.lower(item, &format!("{hint}{i}"), Site::Inner, at)?);
                }
                let n = prefix.len();
                json!({"type": "array", "prefixItems": prefix, "items": false, "minItems": n, "maxItems": n})
            }
            Ty::Indexed { object, key, at } => {
                let member = self.indexed(object, key, *at)?;
                return self.lower(&member, hint, site, *at);
            }
            Ty::Intersection(parts) if self.distributes(parts) => {
                // `A & (B | C)` is `(A & B) | (A & C)`.
                let distributed = self.distribute(parts);
                return self.lower(&distributed, hint, site, at);
            }
            Ty::Object(_) | Ty::Intersection(_) => {
                let k = key(ty);
                if self.expanding.contains(&k) {
                    self.warn(
                        at,
                        "this inline type contains itself (through an intersection with an enclosing type); typed as serde_json::Value: give it a name with a type alias to type it",
                    );
                    return Ok(json!({}));
                }
                self.expanding.push(k);
                let lowered = self
                    .shape(ty, 0)
                    .and_then(|shape| self.object(&shape, hint));
                self.expanding.pop();
                let schema = lowered?;
                match site {
                    Site::Root => schema,
                    Site::Inner => self.hoist(hint, schema, at, true),
                }
            }
            Ty::Union(_) => return self.union(ty, hint, site, at),
            Ty::Ref { name, args, at } => return self.reference(name, args, hint, site, *at),
        })
    }

    /// `object[key]`: the member's type, or the union of it over a union's members.
    fn indexed(&mut self, object: &Ty, key: &str, at: Loc) -> Result<Ty, Problem> {
        let members = self.union_members(object, 0);
        let mut found = Vec::new();
        for member in &members {
            let shape = self.shape(member, 0)?;
            match shape.members.iter().find(|m| m.name == key) {
                Some(m) if m.optional => {
                    found.push(m.ty.clone());
                    found.push(Ty::Undefined);
                }
                Some(m) => found.push(m.ty.clone()),
                None => {
                    return Err(Problem::error(
                        at,
                        format!("this type has no member `{key}`"),
                        "index an object type (or a union of them) by one of its members",
                    ));
                }
            }
        }
        Ok(if found.len() == 1 {
            found.remove(0)
        } else {
            Ty::Union(found)
        })
    }

    /// The members of a union, through aliases; anything else is one member.
    fn union_members(&self, ty: &Ty, depth: usize) -> Vec<Ty> {
        if depth > 32 {
            return vec![ty.clone()];
        }
        match ty {
            Ty::Union(items) => items
                .iter()
                .flat_map(|t| self.union_members(t, depth + 1))
                .collect(),
            Ty::Ref { name, args, .. } => match self.decls.get(name.as_str()) {
                Some(decl) if matches!(decl.kind, DeclKind::Alias(Ty::Union(_))) => {
                    let DeclKind::Alias(target) = &decl.kind else {
                        return vec![ty.clone()];
                    };
                    // Arguments as written, then defaults; without them it stays whole.
                    let mut map = HashMap::new();
                    for (i, param) in decl.params.iter().enumerate() {
                        match args.get(i).or(param.default.as_ref()) {
                            Some(arg) => map.insert(param.name.clone(), arg.clone()),
                            None => return vec![ty.clone()],
                        };
                    }
                    self.union_members(&substitute(target, &map), depth + 1)
                }
                _ => vec![ty.clone()],
            },
            other => vec![other.clone()],
        }
    }

    /// Does an intersection have a union of object types among its parts?
    fn distributes(&self, parts: &[Ty]) -> bool {
        parts.iter().any(|p| {
            let members = self.union_members(p, 0);
            members.len() > 1 && members.iter().all(|m| self.is_object(m))
        })
    }

    /// `A & (B | C)` → `(A & B) | (A & C)`, over every union part.
    fn distribute(&self, parts: &[Ty]) -> Ty {
        let mut alternatives: Vec<Vec<Ty>> = vec![Vec::new()];
        for part in parts {
            let members = self.union_members(part, 0);
            if members.len() > 1 && members.iter().all(|m| self.is_object(m)) {
                alternatives = alternatives
                    .into_iter()
                    .flat_map(|prefix| {
                        members.iter().map(move |m| {
                            let mut next = prefix.clone();
                            next.push(m.clone());
                            next
                        })
                    })
                    .collect();
            } else {
                for alternative in &mut alternatives {
                    alternative.push(part.clone());
                }
            }
        }
        Ty::Union(alternatives.into_iter().map(Ty::Intersection).collect())
    }

    fn unsupported(&mut self, what: &str, at: Loc, site: Site) -> Lowered {
        match site {
            Site::Root => Err(Problem::error(
                at,
                format!("{what} has no JSON form that mcp-bindgen maps"),
                "declare the data as interfaces, type aliases and literal unions; or override this type in the manifest ([servers.NAME.overrides] \"Type\" = \"unknown\") or with ServerConfig::with_override",
            )),
            Site::Inner => {
                self.warn(
                    at,
                    format!("{what} has no JSON form that mcp-bindgen maps; typed as serde_json::Value (override it to choose a type)"),
                );
                Ok(json!({}))
            }
        }
    }

    fn union(&mut self, ty: &Ty, hint: &str, site: Site, at: Loc) -> Lowered {
        let (direct, null, _undefined) = ty.strip_null();
        // Members that are aliases of unions are flattened (`G | Feature`, `type G = A | B`);
        // the owned copies live in `flat`.
        let flat: Vec<Ty> = direct
            .iter()
            .flat_map(|t| self.union_members(t, 0))
            .collect();
        let flattened = flat.len() != direct.len();
        let mut rest: Vec<&Ty> = if flattened && flat.iter().all(|t| self.is_object(t)) {
            flat.iter().collect()
        } else {
            direct
        };
        if rest.iter().any(|t| matches!(t, Ty::Any | Ty::Unknown)) {
            return Ok(json!({}));
        }
        // `'a' | string` is `string`, and so on.
        let has = |rest: &[&Ty], f: fn(&Ty) -> bool| rest.iter().any(|t| f(t));
        if has(&rest, |t| matches!(t, Ty::String)) {
            rest.retain(|t| !matches!(t, Ty::Lit(Lit::Str(_))));
        }
        if has(&rest, |t| matches!(t, Ty::Number)) {
            rest.retain(|t| !matches!(t, Ty::Lit(Lit::Num(_))));
        }
        if has(&rest, |t| matches!(t, Ty::Boolean)) {
            rest.retain(|t| !matches!(t, Ty::Lit(Lit::Bool(_))));
        }
        let bools: Vec<bool> = rest
            .iter()
            .filter_map(|t| match t {
                Ty::Lit(Lit::Bool(b)) => Some(*b),
                _ => None,
            })
            .collect();
        if bools.contains(&true) && bools.contains(&false) {
            rest.retain(|t| !matches!(t, Ty::Lit(Lit::Bool(_))));
            rest.push(&BOOLEAN);
        }
        let inner_site = if null { Site::Inner } else { site };
        // `type X = A | null` is `X(Option<XValue>)`: the non-null part needs its own name.
        let value_hint = format!("{hint}Value");
        let hint = if null && site == Site::Root {
            value_hint.as_str()
        } else {
            hint
        };
        let schema = if rest.is_empty() {
            return if null {
                Ok(json!({"type": "null"}))
            } else {
                self.unsupported("an empty union", at, site)
            };
        } else if rest.len() == 1 {
            self.lower(rest[0], hint, inner_site, at)?
        } else if rest.iter().all(|t| matches!(t, Ty::Lit(Lit::Str(_)))) {
            let values: Vec<Value> = rest
                .iter()
                .filter_map(|t| match t {
                    Ty::Lit(l) => Some(lit_value(l)),
                    _ => None,
                })
                .collect();
            let schema = json!({"type": "string", "enum": values});
            match inner_site {
                Site::Root => schema,
                Site::Inner => self.hoist(hint, schema, at, false),
            }
        } else if rest.iter().all(|t| matches!(t, Ty::Lit(Lit::Num(_)))) {
            let numbers: Vec<f64> = rest
                .iter()
                .filter_map(|t| match t {
                    Ty::Lit(Lit::Num(n)) => Some(*n),
                    _ => None,
                })
                .collect();
            let integers = numbers.iter().all(|n| is_integer(*n));
            let values: Vec<Value> = numbers.iter().map(|n| number(*n)).collect();
            let schema =
                json!({"type": if integers { "integer" } else { "number" }, "enum": values});
            match inner_site {
                Site::Root => schema,
                Site::Inner => self.hoist(hint, schema, at, false),
            }
        } else if rest.iter().all(|t| self.is_object(t)) {
            let schema = self.object_union(&rest, hint, at)?;
            match inner_site {
                Site::Root => schema,
                Site::Inner => self.hoist(hint, schema, at, false),
            }
        } else {
            let mut branches = Vec::new();
            for (i, t) in rest.iter().enumerate() {
                branches.push(self.lower(t, &format!("{hint}Variant{i}"), Site::Inner, at)?);
            }
            if null {
                // typify gives the enum a `Null` variant.
                branches.push(json!({"type": "null"}));
                return Ok(json!({ "oneOf": branches }));
            }
            // `oneOf`, not `anyOf`: typify makes an untagged enum of it (of an `anyOf` with
            // arrays it makes a struct of flattened options, which decodes nothing right).
            json!({ "oneOf": branches })
        };
        Ok(if null { nullable(schema) } else { schema })
    }

    /// Is `ty` an object type (possibly through references)?
    fn is_object(&self, ty: &Ty) -> bool {
        self.is_object_depth(ty, 0)
    }

    fn is_object_depth(&self, ty: &Ty, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        match ty {
            Ty::Object(_) | Ty::Intersection(_) => true,
            Ty::Ref { name, .. } => match name.as_str() {
                "Partial" | "Required" | "Readonly" | "Pick" | "Omit" => true,
                _ => match self.decls.get(name.as_str()).map(|d| &d.kind) {
                    Some(DeclKind::Interface { .. }) => true,
                    Some(DeclKind::Alias(t)) => self.is_object_depth(t, depth + 1),
                    _ => false,
                },
            },
            _ => false,
        }
    }

    /// An object union: tagged by a literal property when every member has one with distinct
    /// values (string tags become typify's `#[serde(tag)]` enums; boolean and number tags are
    /// split by the normaliser into our own enum), else untagged.
    fn object_union(&mut self, members: &[&Ty], hint: &str, at: Loc) -> Lowered {
        let mut shapes = Vec::new();
        for m in members {
            shapes.push(self.shape(m, 0)?);
        }
        if let Some((tag, values)) = discriminant(&shapes) {
            let mut branches = Vec::new();
            for (shape, value) in shapes.iter().zip(&values) {
                let variant = match value {
                    Lit::Str(s) => naming::type_name(s),
                    Lit::Bool(true) => tag.to_pascal_case(),
                    Lit::Bool(false) => format!("Not{}", tag.to_pascal_case()),
                    Lit::Num(n) => format!("{}{}", tag.to_pascal_case(), n.abs()),
                };
                // The tag stays inline (typify and the normaliser recognise it there).
                let mut rest = shape.clone();
                rest.members.retain(|m| m.name != tag);
                let mut branch = self.object(&rest, &format!("{hint}{variant}"))?;
                if let Value::Object(o) = &mut branch {
                    let mut properties = Map::new();
                    properties.insert(tag.clone(), lit_schema(value));
                    if let Some(Value::Object(others)) = o.remove("properties") {
                        properties.extend(others);
                    }
                    o.insert("properties".into(), Value::Object(properties));
                    let mut required = vec![json!(tag)];
                    if let Some(Value::Array(others)) = o.remove("required") {
                        required.extend(others);
                    }
                    o.insert("required".into(), Value::Array(required));
                }
                branches.push(branch);
            }
            return Ok(json!({ "oneOf": branches }));
        }
        self.warn(
            at,
            "a union of object types with no literal property that tells them apart: decoded by trying each member in order (the first that fits wins)",
        );
        let mut branches = Vec::new();
        for (i, m) in members.iter().enumerate() {
            branches.push(self.lower(m, &format!("{hint}Variant{i}"), Site::Inner, at)?);
        }
        Ok(json!({ "oneOf": branches }))
    }

    /// The members of an object type, `extends` and intersections flattened.
    fn shape(&mut self, ty: &Ty, depth: usize) -> Result<Shape, Problem> {
        if depth > 64 {
            return Err(Problem::error(
                self.loc_of(ty),
                "this type refers to itself through `extends` or `&` without end",
                "break the cycle: an interface cannot extend itself",
            ));
        }
        match ty {
            Ty::Object(obj) => {
                for (at, what) in &obj.skipped {
                    self.warn(
                        *at,
                        format!("{what} in an object type describes no JSON data; left out"),
                    );
                }
                Ok(Shape {
                    members: obj.members.clone(),
                    index: obj.index.as_deref().cloned(),
                })
            }
            Ty::Intersection(parts) => {
                let mut shape = Shape::default();
                for part in parts {
                    let next = self.shape(part, depth + 1)?;
                    self.merge(&mut shape, next, false)?;
                }
                Ok(shape)
            }
            Ty::Ref { name, args, at } => {
                let at = *at;
                match (name.as_str(), args.as_slice()) {
                    ("Partial" | "Required" | "Readonly", [inner]) => {
                        let mut shape = self.shape(inner, depth + 1)?;
                        for m in &mut shape.members {
                            match name.as_str() {
                                "Partial" => m.optional = true,
                                "Required" => m.optional = false,
                                _ => {}
                            }
                        }
                        return Ok(shape);
                    }
                    ("Pick" | "Omit", [inner, keys]) => {
                        let mut shape = self.shape(inner, depth + 1)?;
                        let (keys, _, _) = keys.strip_null();
                        let keys: Vec<&str> = keys
                            .iter()
                            .filter_map(|k| match k {
                                Ty::Lit(Lit::Str(s)) => Some(s.as_str()),
                                _ => None,
                            })
                            .collect();
                        let pick = name == "Pick";
                        shape
                            .members
                            .retain(|m| keys.contains(&m.name.as_str()) == pick);
                        return Ok(shape);
                    }
                    _ => {}
                }
                let Some(decl) = self.decls.get(name.as_str()).copied() else {
                    return Err(Problem::error(
                        at,
                        format!("`{name}` is not declared in the contract files"),
                        "declare it in one of the server's contract files (imports are not followed)",
                    ));
                };
                let args = self.arguments(decl, args, at)?;
                let map: HashMap<String, Ty> = decl
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| (p.name.clone(), a))
                    .collect();
                let owner = self.rust_names.get(name).cloned();
                let mut shape = match &decl.kind {
                    DeclKind::Interface { .. } => self.interface_shape(decl, &map, depth + 1)?,
                    DeclKind::Alias(ty) => {
                        let ty = substitute(ty, &map);
                        self.shape(&ty, depth + 1)?
                    }
                    _ => {
                        return Err(Problem::error(
                            at,
                            format!(
                                "`{name}` is not an object type, so it cannot be merged into one"
                            ),
                            "intersections (`A & B`) and `extends` merge object types only",
                        ));
                    }
                };
                for m in &mut shape.members {
                    if m.owner.is_none() {
                        m.owner.clone_from(&owner);
                    }
                }
                Ok(shape)
            }
            other => Err(Problem::error(
                self.loc_of(other),
                "only object types can be merged (`A & B`, `extends`)",
                "write the intersection as an object type, or use a union",
            )),
        }
    }

    fn loc_of(&self, ty: &Ty) -> Loc {
        match ty {
            Ty::Ref { at, .. } | Ty::Unsupported { at, .. } | Ty::Indexed { at, .. } => *at,
            Ty::Object(obj) => obj
                .members
                .first()
                .map_or(Loc { file: 0, offset: 0 }, |m| m.at),
            Ty::Intersection(items) | Ty::Union(items) | Ty::Tuple(items) => items
                .first()
                .map_or(Loc { file: 0, offset: 0 }, |t| self.loc_of(t)),
            Ty::Array(inner) => self.loc_of(inner),
            _ => Loc { file: 0, offset: 0 },
        }
    }

    /// The members of an interface declaration (all merged declarations of that name), with
    /// those of the interfaces it extends first.
    fn interface_shape(
        &mut self,
        decl: &Decl,
        map: &HashMap<String, Ty>,
        depth: usize,
    ) -> Result<Shape, Problem> {
        let mut shape = Shape::default();
        let same: Vec<&Decl> = self
            .contracts
            .decls
            .iter()
            .filter(|d| d.name == decl.name && matches!(d.kind, DeclKind::Interface { .. }))
            .collect();
        for part in same {
            let DeclKind::Interface { extends, body } = &part.kind else {
                continue;
            };
            for base in extends {
                let base = substitute(base, map);
                let next = self.shape(&base, depth + 1)?;
                self.merge(&mut shape, next, true)?;
            }
            let own = self.shape(&Ty::Object(substitute_obj(body, map)), depth + 1)?;
            self.merge(&mut shape, own, true)?;
        }
        Ok(shape)
    }

    /// Adds `next`'s members to `shape`. With `replace` (an interface redeclaring an inherited
    /// member) the later one wins; in an intersection, two different types for one member are
    /// an error.
    fn merge(&mut self, shape: &mut Shape, next: Shape, replace: bool) -> Result<(), Problem> {
        for member in next.members {
            match shape.members.iter_mut().find(|m| m.name == member.name) {
                Some(existing) if replace => *existing = member,
                Some(existing) => {
                    if let Some(narrower) = narrower(&existing.ty, &member.ty) {
                        existing.ty = narrower;
                    } else if self.is_object(&existing.ty) && self.is_object(&member.ty) {
                        // Object members of an intersection intersect in turn.
                        existing.ty =
                            Ty::Intersection(vec![existing.ty.clone(), member.ty.clone()]);
                    } else {
                        return Err(Problem::error(
                            member.at,
                            format!(
                                "`{}` is in both parts of an intersection, with different types",
                                member.name
                            ),
                            "give the member one type in both parts, or declare the merged object type yourself",
                        ));
                    }
                    existing.optional &= member.optional;
                    if existing.doc.is_none() {
                        existing.doc = member.doc;
                    }
                }
                None => shape.members.push(member),
            }
        }
        if next.index.is_some() {
            shape.index = next.index;
        }
        Ok(())
    }

    /// An object schema for `shape`; nested constructs are named `{name}{Field}`.
    fn object(&mut self, shape: &Shape, name: &str) -> Lowered {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for m in &shape.members {
            let (_, _, undefined) = m.ty.strip_null();
            let parent = m.owner.as_deref().unwrap_or(name);
            let hint = format!("{parent}{}", naming::type_name(&m.name));
            let schema = self.lower(&m.ty, &hint, Site::Inner, m.at)?;
            let schema = with_description(schema, m.doc.as_deref());
            if !m.optional && !undefined {
                required.push(json!(m.name));
            }
            properties.insert(m.name.clone(), schema);
        }
        let mut out = Map::new();
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        if let Some(index) = &shape.index {
            let at = self.loc_of(index);
            let items = self.lower(index, &format!("{name}Value"), Site::Inner, at)?;
            out.insert("additionalProperties".into(), items);
        }
        Ok(Value::Object(out))
    }

    /// The type arguments for a use of `decl`: those written, then defaults.
    fn arguments(&mut self, decl: &Decl, args: &[Ty], at: Loc) -> Result<Vec<Ty>, Problem> {
        if args.len() > decl.params.len() {
            return Err(Problem::error(
                at,
                format!(
                    "`{}` takes {} type argument(s), {} given",
                    decl.name,
                    decl.params.len(),
                    args.len()
                ),
                "remove the extra type arguments",
            ));
        }
        let mut out = args.to_vec();
        for param in &decl.params[args.len()..] {
            match &param.default {
                Some(default) => out.push(default.clone()),
                None => {
                    return Err(Problem::error(
                        at,
                        format!(
                            "`{}` needs a type argument for `{}`, which has no default",
                            decl.name, param.name
                        ),
                        &format!(
                            "write `{}<..>` with every argument, or give `{}` a default (`{} = unknown`)",
                            decl.name, param.name, param.name
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn reference(&mut self, name: &str, args: &[Ty], hint: &str, site: Site, at: Loc) -> Lowered {
        match (name, args) {
            ("Array" | "ReadonlyArray", [inner]) => {
                let items = self.lower(inner, &format!("{hint}Item"), Site::Inner, at)?;
                return Ok(json!({"type": "array", "items": items}));
            }
            ("Record", [key_ty, value]) => {
                let (keys, _, _) = key_ty.strip_null();
                if keys.iter().all(|k| matches!(k, Ty::String | Ty::Number)) {
                    let value = self.lower(value, &format!("{hint}Value"), Site::Inner, at)?;
                    return Ok(json!({"type": "object", "additionalProperties": value}));
                }
                if keys.iter().all(|k| matches!(k, Ty::Lit(Lit::Str(_)))) {
                    let members = keys
                        .iter()
                        .filter_map(|k| match k {
                            Ty::Lit(Lit::Str(s)) => Some(Member {
                                name: s.clone(),
                                optional: false,
                                ty: value.clone(),
                                doc: None,
                                at,
                                owner: None,
                            }),
                            _ => None,
                        })
                        .collect();
                    let ty = Ty::Object(Obj {
                        members,
                        index: None,
                        skipped: Vec::new(),
                    });
                    return self.lower(&ty, hint, site, at);
                }
                return self.unsupported("a `Record` whose keys are not strings", at, site);
            }
            ("Partial" | "Required" | "Readonly" | "Pick" | "Omit", _) => {
                let shape = self.shape(
                    &Ty::Ref {
                        name: name.to_owned(),
                        args: args.to_vec(),
                        at,
                    },
                    0,
                )?;
                let schema = self.object(&shape, hint)?;
                return Ok(match site {
                    Site::Root => schema,
                    Site::Inner => self.hoist(hint, schema, at, true),
                });
            }
            ("NonNullable", [inner]) => {
                let (rest, _, _) = inner.strip_null();
                let ty = Ty::Union(rest.into_iter().cloned().collect());
                return self.lower(&ty, hint, site, at);
            }
            _ => {}
        }
        let Some(decl) = self.decls.get(name).copied() else {
            let what = format!(
                "`{name}`, which is not declared in the contract files (imports are not followed),"
            );
            return match site {
                Site::Root => Err(Problem::error(
                    at,
                    format!("`{name}` is not declared in the contract files"),
                    "declare it in one of the server's contract files (imports are not followed), or override this type in the manifest",
                )),
                Site::Inner => {
                    self.warn(at, format!("{what} typed as serde_json::Value"));
                    Ok(json!({}))
                }
            };
        };
        if matches!(decl.kind, DeclKind::Const(_)) {
            return self.unsupported(&format!("`{name}` (a value, not a type)"), at, site);
        }
        if let DeclKind::Alias(
            target @ (Ty::String
            | Ty::Number
            | Ty::Boolean
            | Ty::Int(_)
            | Ty::F32
            | Ty::Any
            | Ty::Unknown),
        ) = &decl.kind
            && decl.params.is_empty()
        {
            // `type ObjectId = string` names a string: fields stay `String`.
            return self.lower(target, hint, site, at);
        }
        if decl.params.is_empty() {
            if !args.is_empty() {
                return Err(Problem::error(
                    at,
                    format!("`{name}` takes no type arguments"),
                    "remove the type arguments",
                ));
            }
            return Ok(reference(&self.rust_names[name]));
        }
        let args = self.arguments(decl, args, at)?;
        let instance_key = Self::instance_key(name, &args);
        if let Some(existing) = self.instances.get(&instance_key) {
            return Ok(reference(existing));
        }
        let wanted = format!(
            "{}{}",
            naming::type_name(name),
            args.iter().map(arg_name).collect::<String>()
        );
        let def = (self.taken)(&wanted);
        self.instances.insert(instance_key, def.clone());
        self.instance(decl, &def, &args)?;
        Ok(reference(&def))
    }

    /// A type written in the manifest (a result type): a declared type by name, or a new
    /// definition `name` for anything else.
    pub(crate) fn setting(&mut self, ty: &Ty, name: &str, at: Loc) -> Result<String, Problem> {
        if let Ty::Ref {
            name: declared,
            args,
            ..
        } = ty
            && args.is_empty()
            && let Some(rust) = self.rust_names.get(declared)
            && self
                .decls
                .get(declared.as_str())
                .is_some_and(|d| d.params.iter().all(|p| p.default.is_some()))
        {
            return Ok(rust.clone());
        }
        let def = (self.taken)(name);
        let schema = self.lower(ty, &def, Site::Root, at)?;
        self.out.locations.insert(def.clone(), at);
        self.out.defs.push((def.clone(), schema));
        Ok(def)
    }
}

/// The narrower of two member types merged by an intersection (`'a' | 'b'` and `'a'` → `'a'`;
/// `string` and `'x'` → `'x'`; `T | null` and `T` → `T`), when one contains the other.
fn narrower(a: &Ty, b: &Ty) -> Option<Ty> {
    if key(a) == key(b) {
        return Some(a.clone());
    }
    let within = |small: &Ty, big: &Ty| {
        let flat = |t: &Ty| -> Vec<Ty> {
            match t {
                Ty::Union(_) => {
                    let (rest, null, undefined) = t.strip_null();
                    let mut out: Vec<Ty> = rest.into_iter().cloned().collect();
                    if null {
                        out.push(Ty::Null);
                    }
                    if undefined {
                        out.push(Ty::Undefined);
                    }
                    out
                }
                other => vec![other.clone()],
            }
        };
        let big = flat(big);
        flat(small).iter().all(|s| {
            big.iter().any(|b| {
                key(s) == key(b)
                    || matches!(
                        (s, b),
                        (Ty::Lit(Lit::Str(_)), Ty::String)
                            | (Ty::Lit(Lit::Num(_)), Ty::Number)
                            | (Ty::Lit(Lit::Bool(_)), Ty::Boolean)
                            | (_, Ty::Any | Ty::Unknown)
                    )
            })
        })
    };
    if within(b, a) {
        Some(b.clone())
    } else if within(a, b) {
        Some(a.clone())
    } else {
        None
    }
}

/// A property every shape has, required, with a literal type of one kind and a different
/// value in each: the union's tag.
fn discriminant(shapes: &[Shape]) -> Option<(String, Vec<Lit>)> {
    let first = shapes.first()?;
    'candidates: for candidate in &first.members {
        let mut values: Vec<Lit> = Vec::new();
        for shape in shapes {
            let Some(member) = shape.members.iter().find(|m| m.name == candidate.name) else {
                continue 'candidates;
            };
            let Ty::Lit(lit) = &member.ty else {
                continue 'candidates;
            };
            if member.optional
                || values.contains(lit)
                || values
                    .first()
                    .is_some_and(|v| std::mem::discriminant(v) != std::mem::discriminant(lit))
            {
                continue 'candidates;
            }
            if let Lit::Num(n) = lit
                && !is_integer(*n)
            {
                continue 'candidates;
            }
            values.push(lit.clone());
        }
        return Some((candidate.name.clone(), values));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_ignores_descriptions() {
        assert_eq!(
            canonical(&json!({"type": "object", "description": "a"})),
            canonical(&json!({"type": "object", "description": "b"}))
        );
    }
}
