//! [`ir`](super::ir) → JSON Schema definitions (2020-12), for the one type emitter.
//!
//! Every named construct becomes a definition: declarations under their own (PascalCase)
//! name, inline object types, literal unions and object unions under `{Parent}{Field}`
//! (`{Parent}{Field}Item` for array elements), identical inline object shapes once.
//! Intersections are merged here into one object (typify never sees an `allOf`).

use std::collections::{BTreeMap, HashMap, HashSet};

use heck::ToPascalCase;
use serde_json::{Map, Value, json};

use super::ir::{ConstValue, Decl, DeclKind, IntKind, Lit, Loc, Member, Obj, Ty};
use super::shape::{BUDGET, Shape, Types, discriminant, is_integer, key, over_budget, substitute};
use super::{Const, Problem};
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
    /// Declarations left out (no JSON form), each a warning located where the problem is.
    pub left_out: Vec<Problem>,
}

pub(crate) struct Lowerer<'a> {
    /// The declarations and the type algebra over them.
    types: Types<'a>,
    /// Rust names reserved so far (shared with the rest of the server).
    taken: &'a mut dyn FnMut(&str) -> String,
    /// Canonical shape of a hoisted inline object → its definition name.
    shapes: HashMap<String, String>,
    /// (name wanted, canonical shape) of any hoisted construct → its definition name.
    hoisted: HashMap<(String, String), String>,
    /// Generic instantiation key → definition name.
    instances: HashMap<String, String>,
    /// Keys of the unions being lowered, outermost first: a union whose member contains it
    /// again keeps its aliases by name the second time.
    expanding: Vec<String>,
    /// The types being lowered by what they stand for rather than by a name (computed types,
    /// `Partial<..>` and the like, inline objects and intersections), outermost first. One that
    /// contains itself (`A { x: A & { y: string } }`, `type A = NonNullable<A | null>[]`,
    /// `A { z?: A[keyof A][] }`) becomes a named recursive definition.
    open: Vec<Open>,
    /// Key of a type that contains itself → the definition that names it, so that every later
    /// use is a reference (each use expanded anew is exponential in the nesting).
    recursive: HashMap<String, String>,
    /// Types lowered for the current declaration, against [`BUDGET`].
    steps: usize,
    /// Member name → its PascalCase, for the names of hoisted member types (`{Parent}{Field}`;
    /// the same member names recur across declarations).
    field_names: HashMap<String, String>,
    out: Output,
}

/// A type being expanded (see [`Lowerer::open`]).
struct Open {
    key: String,
    /// The name its expansion gets (made unique) when a use inside it needs one.
    hint: String,
    site: Site,
    /// The definition name, once a use inside its own expansion asked for one.
    name: Option<String>,
}

/// How many expansions may nest (types whose keys grow, `type B<T> = { x: B<T[]>['x'] }`).
const MAX_OPEN: usize = 64;

type Lowered = Result<Value, Problem>;

static BOOLEAN: Ty = Ty::Boolean;

/// Does `ty` stand for a type computed from others (`typeof`, `keyof`, `T[K]`, `Exclude`, ..)?
fn computed(ty: &Ty) -> bool {
    match ty {
        Ty::TypeOf { .. } | Ty::KeyOf { .. } | Ty::Indexed { .. } => true,
        Ty::Ref { name, .. } => matches!(name.as_str(), "NonNullable" | "Exclude" | "Extract"),
        _ => false,
    }
}

/// Where a type is being lowered: a declaration's own type, or inside one (a field, an array
/// element, ...). Unsupported constructs are errors at the top and `Value` + warning inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    Root,
    Inner,
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

/// The schema without descriptions, as a key for merging identical shapes: its JSON text,
/// written without copying the schema.
fn canonical(schema: &Value) -> String {
    serde_json::to_string(&NoDescriptions(schema)).unwrap_or_default()
}

/// A schema that serialises without its `description` keywords (those of objects at any
/// depth, as `canonical` has always left them out).
struct NoDescriptions<'a>(&'a Value);

impl serde::Serialize for NoDescriptions<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Object(o) => {
                let len = o.len() - usize::from(o.contains_key("description"));
                let mut map = serializer.serialize_map(Some(len))?;
                for (k, v) in o {
                    if k != "description" {
                        map.serialize_entry(k, &NoDescriptions(v))?;
                    }
                }
                map.end()
            }
            Value::Array(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&NoDescriptions(v))?;
                }
                seq.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Is `undefined` a member of `ty` (a nested union)? What `ty.strip_null().2` says, without
/// collecting the other members.
fn has_undefined(ty: &Ty) -> bool {
    match ty {
        Ty::Undefined => true,
        Ty::Union(members) => members.iter().any(has_undefined),
        _ => false,
    }
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

impl<'a> Lowerer<'a> {
    pub(crate) fn new(decls: &'a [Decl], taken: &'a mut dyn FnMut(&str) -> String) -> Self {
        Lowerer {
            types: Types::new(decls),
            taken,
            shapes: HashMap::new(),
            hoisted: HashMap::new(),
            instances: HashMap::new(),
            expanding: Vec::new(),
            open: Vec::new(),
            recursive: HashMap::new(),
            steps: 0,
            field_names: HashMap::new(),
            out: Output::default(),
        }
    }

    fn warn(&mut self, at: Loc, message: impl Into<String>) {
        self.types.warn(at, message);
    }

    /// The definitions, and every warning (the type algebra's and the emitter's) in the order
    /// found.
    pub(crate) fn finish(mut self) -> Output {
        self.out.warnings = std::mem::take(&mut self.types.warnings);
        self.out
    }

    /// Reserves Rust names for every declaration that becomes a type; a clash with a tool's
    /// type is an error at the declaration.
    pub(crate) fn reserve(&mut self, decls: &'a [Decl]) -> Result<(), Problem> {
        for decl in decls {
            if matches!(decl.kind, DeclKind::Const(..)) {
                continue;
            }
            if self.types.rust_names.contains_key(&decl.name) {
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
            self.types.rust_names.insert(decl.name.clone(), got);
        }
        Ok(())
    }

    /// Lowers every declaration that stands alone (generic ones only when every parameter
    /// has a default). A declaration with no JSON form is left out alone, with a located
    /// warning: references to it become `serde_json::Value`.
    pub(crate) fn declarations(&mut self, decls: &'a [Decl]) -> Result<(), Problem> {
        // Which ones to leave out is found on trial runs (no names reserved), each with those
        // found so far left out, until a run finds none (leaving one out can fail another
        // that extends it or merges it).
        let mut degraded: HashMap<String, Problem> = HashMap::new();
        loop {
            let mut scratch = |wanted: &str| wanted.to_owned();
            let mut trial = Lowerer::new(decls, &mut scratch);
            trial.types.rust_names = self.types.rust_names.clone();
            trial.types.degraded = degraded.clone();
            let failed = trial.each_declaration(decls);
            if failed.is_empty() {
                break;
            }
            degraded.extend(failed);
        }
        let mut warned = HashSet::new();
        for decl in decls {
            if let Some(problem) = degraded.get(&decl.name)
                && warned.insert(decl.name.as_str())
            {
                let mut problem = problem.clone();
                problem.message = format!("`{}` is left out: {}", decl.name, problem.message);
                self.out.left_out.push(problem);
            }
        }
        self.types.degraded = degraded;
        match self.each_declaration(decls).into_iter().next() {
            Some((_, problem)) => Err(problem),
            None => Ok(()),
        }
    }

    /// Lowers every declaration not left out; those that fail, and why.
    fn each_declaration(&mut self, decls: &'a [Decl]) -> Vec<(String, Problem)> {
        let mut failed = Vec::new();
        let mut done = HashSet::new();
        for decl in decls {
            if self.types.degraded.contains_key(&decl.name) {
                continue;
            }
            self.steps = 0;
            self.types.steps = 0;
            self.types.at = decl.at;
            let result = match &decl.kind {
                DeclKind::Const(value, _) => {
                    self.constant(decl, value.as_ref());
                    Ok(())
                }
                DeclKind::Enum(members) => self.enumeration(decl, members),
                DeclKind::Interface { .. } | DeclKind::Alias(_) => {
                    if decl.params.iter().any(|p| p.default.is_none()) {
                        continue; // a template: lowered where it is used with arguments
                    }
                    if !done.insert(decl.name.as_str()) {
                        continue; // merged interface declarations, already done
                    }
                    let name = self.types.rust_names[&decl.name].clone();
                    let args: Vec<Ty> = decl
                        .params
                        .iter()
                        .filter_map(|p| p.default.clone())
                        .collect();
                    self.instances
                        .insert(Self::instance_key(&decl.name, &args), name.clone());
                    self.instance(decl, &name, &args)
                }
            };
            if let Err(problem) = result {
                failed.push((decl.name.clone(), problem));
            }
        }
        failed
    }

    fn instance_key(name: &str, args: &[Ty]) -> String {
        format!(
            "{name}<{}>",
            args.iter().map(key).collect::<Vec<_>>().join(",")
        )
    }

    /// Lowers `decl` with `args` for its parameters as the definition `name`.
    fn instance(&mut self, decl: &Decl, name: &str, args: &[Ty]) -> Result<(), Problem> {
        // Problems without a location of their own are the instantiated declaration's.
        let outer = std::mem::replace(&mut self.types.at, decl.at);
        let made = self.instance_of(decl, name, args);
        self.types.at = outer;
        made
    }

    fn instance_of(&mut self, decl: &Decl, name: &str, args: &[Ty]) -> Result<(), Problem> {
        self.out.locations.insert(name.to_owned(), decl.at);
        let map: HashMap<String, Ty> = decl
            .params
            .iter()
            .zip(args)
            .map(|(p, a)| (p.name.clone(), a.clone()))
            .collect();
        let schema = match &decl.kind {
            DeclKind::Interface { .. } => match self.types.array_base(&decl.name) {
                // `interface List extends Array<Item> {}` names an array type.
                Some(array) => {
                    let shape = self.types.interface_shape(decl, &map, 0)?;
                    if !shape.members.is_empty() || shape.index.is_some() {
                        self.warn(
                            decl.at,
                            format!(
                                "`{}` extends an array type and declares members besides: a JSON array has no members, so only the array is typed",
                                decl.name
                            ),
                        );
                    }
                    let array = substitute(&array, &map);
                    self.lower(&array, name, Site::Root, decl.at)?
                }
                None => {
                    let shape = self.types.interface_shape(decl, &map, 0)?;
                    self.object(&shape, name)?
                }
            },
            DeclKind::Alias(ty) => {
                let ty = substitute(ty, &map);
                let schema = self.lower(&ty, name, Site::Root, decl.at)?;
                if schema == reference(name) {
                    // `type U = U | U`: TypeScript refuses it too.
                    return Err(Problem::error(
                        decl.at,
                        format!("`{}` stands for nothing but itself", decl.name),
                        "declare what the type is made of",
                    ));
                }
                schema
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
        let name = self.types.rust_names[&decl.name].clone();
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
        self.steps += 1;
        if self.steps > BUDGET {
            return Err(over_budget(at));
        }
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
            Ty::Indexed { at, .. } | Ty::TypeOf { at, .. } | Ty::KeyOf { at, .. } => {
                return self.computed(ty, hint, site, *at);
            }
            Ty::Conflict { member, at, other } => {
                return Err(Problem::error(
                    *at,
                    format!(
                        "`{member}` is in both parts of an intersection, with types that share no value (TypeScript makes it `never`)"
                    ),
                    "give the member types that overlap in both parts, or make it optional where it must be absent",
                )
                .also(*other));
            }
            Ty::Intersection(parts)
                if parts.len() > 1 && !parts.iter().all(|p| self.types.is_object(p)) =>
            {
                // Scalars, literals and unions of them intersect as TypeScript computes it
                // (`string & ('a' | 'b')` is `'a' | 'b'`; a branded `string & {..}` is a string).
                let mut acc = parts[0].clone();
                for part in &parts[1..] {
                    acc = match self.types.intersect(&acc, part)? {
                        Some(ty) => ty,
                        None => {
                            return self.unsupported(
                                "an intersection of types that share no value (`never`)",
                                at,
                                site,
                            );
                        }
                    };
                }
                return self.lower(&acc, hint, site, at);
            }
            Ty::Intersection(parts) if self.types.distributes(parts) => {
                // `A & (B | C)` is `(A & B) | (A & C)`.
                let distributed = self.types.distribute(parts);
                return self.lower(&distributed, hint, site, at);
            }
            // `{}` is any value but `null` and `undefined` (TypeScript's meaning), not an object.
            Ty::Object(obj)
                if obj.members.is_empty() && obj.index.is_none() && obj.skipped.is_empty() =>
            {
                json!({})
            }
            Ty::Object(_) | Ty::Intersection(_) => return self.object_type(ty, hint, site, at),
            Ty::Union(_) => return self.union(ty, hint, site, at),
            Ty::Ref { name, args, at } => return self.reference(name, args, hint, site, *at),
        })
    }

    /// A computed type (`T[K]`, `typeof`, `keyof`, `NonNullable<..>`, ..): what it stands for,
    /// lowered; a reference to a named definition where it contains itself.
    fn computed(&mut self, ty: &Ty, hint: &str, site: Site, at: Loc) -> Lowered {
        self.expand(key(ty), hint, site, at, |this| {
            let resolved = this.types.resolve(ty, 0)?;
            this.lower(&resolved, hint, site, at)
        })
    }

    /// An object type lowered by its members (an inline object, an intersection, `Partial<..>`
    /// and the like): hoisted as `hint` inside another type, a reference to a named definition
    /// where it contains itself.
    fn object_type(&mut self, ty: &Ty, hint: &str, site: Site, at: Loc) -> Lowered {
        let schema = self.expand(key(ty), hint, site, at, |this| {
            let shape = this.types.shape(ty, 0)?;
            this.object(&shape, hint)
        })?;
        // A recursive one is a reference to its definition already.
        let named = schema.get("$ref").is_some();
        Ok(match site {
            Site::Inner if !named => self.hoist(hint, schema, at, true),
            _ => schema,
        })
    }

    /// Is `ty` being expanded (so that lowering it again is a reference)?
    fn is_open(&self, ty: &Ty) -> bool {
        let k = key(ty);
        self.recursive.contains_key(&k) || self.open.iter().any(|o| o.key == k)
    }

    /// Lowers a type by what it stands for with `lower`, `k` its structural key. A use of the
    /// same type inside that expansion is a reference to a definition named after the outer
    /// use (at the root, the declaration's own); the expansion is that definition.
    fn expand(
        &mut self,
        k: String,
        hint: &str,
        site: Site,
        at: Loc,
        lower: impl FnOnce(&mut Self) -> Lowered,
    ) -> Lowered {
        if let Some(name) = self.recursive.get(&k) {
            return Ok(reference(name));
        }
        if let Some(i) = self.open.iter().position(|o| o.key == k) {
            let name = match &self.open[i].name {
                Some(name) => name.clone(),
                None => {
                    let name = match self.open[i].site {
                        // The root's hint is the name of the definition being made.
                        Site::Root => self.open[i].hint.clone(),
                        Site::Inner => (self.taken)(&self.open[i].hint),
                    };
                    self.open[i].name = Some(name.clone());
                    name
                }
            };
            return Ok(reference(&name));
        }
        if self.open.len() >= MAX_OPEN {
            return self.unsupported("a type that expands without end", at, site);
        }
        self.open.push(Open {
            key: k.clone(),
            hint: hint.to_owned(),
            site,
            name: None,
        });
        let lowered = lower(self);
        let open = self.open.pop().expect("pushed above");
        let schema = lowered?;
        let Some(name) = open.name else {
            return Ok(schema);
        };
        if schema == reference(&name) {
            // `A { x: A['x'] }`: a type that is nothing but itself (TypeScript refuses it too).
            if site == Site::Root {
                return self.unsupported("a type computed from itself", at, site);
            }
            self.warn(
                at,
                "a type computed from itself (it stands for nothing but itself); typed as serde_json::Value",
            );
            self.out.locations.insert(name.clone(), at);
            self.out.defs.push((name.clone(), json!({})));
            return Ok(reference(&name));
        }
        self.recursive.insert(k, name.clone());
        Ok(match site {
            Site::Root => schema,
            Site::Inner => {
                self.out.locations.insert(name.clone(), at);
                self.out.defs.push((name.clone(), schema));
                reference(&name)
            }
        })
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
        // A union that flattens aliases of unions lowers its members inline; one whose member
        // contains the same union again (`type P = A | B`, `A { p: P | C }` in `P | C`) keeps
        // the aliases by name the second time, or it would expand without end.
        let k = format!("|{}", key(ty));
        let flatten = !self.expanding.contains(&k);
        self.expanding.push(k);
        let lowered = self.union_inner(ty, hint, site, at, flatten);
        self.expanding.pop();
        lowered
    }

    fn union_inner(&mut self, ty: &Ty, hint: &str, site: Site, at: Loc, flatten: bool) -> Lowered {
        let (direct, null, _undefined) = ty.strip_null();
        if direct.iter().any(|t| computed(t) && !self.is_open(t)) {
            // `typeof A | typeof B`, `keyof T | 'x'`: what they stand for, then the union (a
            // member being expanded already stays, to become a reference to its definition).
            let mut members = Vec::new();
            for t in direct {
                if computed(t) && !self.is_open(t) {
                    members.extend(self.types.members(t, 0)?);
                } else {
                    members.push(t.clone());
                }
            }
            if null {
                members.push(Ty::Null);
            }
            let computed_union = Ty::Union(members);
            return self.expand(format!("|{}", key(ty)), hint, site, at, |this| {
                this.union(&computed_union, hint, site, at)
            });
        }
        let direct: Vec<&Ty> = direct
            .into_iter()
            .filter(|t| !matches!(t, Ty::Never | Ty::Conflict { .. }))
            .collect();
        // Members that are aliases of unions are flattened (`G | Feature`, `type G = A | B`);
        // the owned copies live in `flat`.
        let flat: Vec<Ty> = direct
            .iter()
            .flat_map(|t| self.types.union_members(t, 0))
            .collect();
        let flattened = flat.len() != direct.len();
        let mut rest: Vec<&Ty> =
            if flatten && flattened && flat.iter().all(|t| self.types.is_object(t)) {
                flat.iter().collect()
            } else {
                direct
            };
        // `'body' | 'query' | 'body'` (as published) is two values.
        let mut seen = HashSet::new();
        rest.retain(|t| seen.insert(key(t)));
        if rest.iter().any(|t| matches!(t, Ty::Any | Ty::Unknown)) {
            return Ok(json!({}));
        }
        widen_literals(&mut rest);
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
        } else if let Some(schema) = literal_enum(&rest) {
            match inner_site {
                Site::Root => schema,
                Site::Inner => self.hoist(hint, schema, at, false),
            }
        } else if rest.iter().all(|t| self.types.is_object(t)) {
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

    /// An object union: tagged by a literal property when every member has one with distinct
    /// values (string tags become typify's `#[serde(tag)]` enums; boolean and number tags are
    /// split by the normaliser into our own enum), else untagged.
    fn object_union(&mut self, members: &[&Ty], hint: &str, at: Loc) -> Lowered {
        let mut shapes = Vec::new();
        for m in members {
            shapes.push(self.types.shape(m, 0)?);
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

    /// An object schema for `shape`; nested constructs are named `{name}{Field}`.
    fn object(&mut self, shape: &Shape, name: &str) -> Lowered {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for m in &shape.members {
            if m.optional && matches!(m.ty, Ty::Never | Ty::Conflict { .. }) {
                continue; // `f?: never`: never present, so no field
            }
            let undefined = has_undefined(&m.ty);
            let parent = m.owner.as_deref().unwrap_or(name);
            let field = match self.field_names.get(&m.name) {
                Some(field) => field,
                None => self
                    .field_names
                    .entry(m.name.clone())
                    .or_insert_with(|| naming::type_name(&m.name)),
            };
            let mut hint = String::with_capacity(parent.len() + field.len());
            hint.push_str(parent);
            hint.push_str(field);
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
            let at = shape.index_at.unwrap_or_else(|| self.types.loc_of(index));
            let items = self.lower(index, &format!("{name}Value"), Site::Inner, at)?;
            out.insert("additionalProperties".into(), items);
        }
        Ok(Value::Object(out))
    }

    fn reference(&mut self, name: &str, args: &[Ty], hint: &str, site: Site, at: Loc) -> Lowered {
        match (name, args) {
            ("Array" | "ReadonlyArray", [inner]) => {
                let items = self.lower(inner, &format!("{hint}Item"), Site::Inner, at)?;
                return Ok(json!({"type": "array", "items": items}));
            }
            ("Readonly", [inner]) if !self.types.is_object(inner) => {
                // `Readonly<T[]>` is the array.
                return self.lower(inner, hint, site, at);
            }
            ("Record", [key_ty, value]) => return self.record(key_ty, value, hint, site, at),
            ("Partial" | "Required" | "Readonly" | "Pick" | "Omit", _) => {
                // `interface C { x: Partial<C> }`: the `Partial<C>` inside the first is a
                // reference to it.
                let ty = Ty::Ref {
                    name: name.to_owned(),
                    args: args.to_vec(),
                    at,
                };
                return self.object_type(&ty, hint, site, at);
            }
            ("NonNullable", [_]) | ("Exclude" | "Extract", [_, _]) => {
                let ty = Ty::Ref {
                    name: name.to_owned(),
                    args: args.to_vec(),
                    at,
                };
                return self.computed(&ty, hint, site, at);
            }
            _ => {}
        }
        if self.types.degraded.contains_key(name) {
            return match site {
                Site::Root => Err(Problem::error(
                    at,
                    format!("`{name}` is left out (see the warning at its declaration)"),
                    "give that declaration a JSON form, or override it in the manifest",
                )),
                Site::Inner => {
                    self.warn(
                        at,
                        format!("`{name}` is left out (see the warning at its declaration); typed as serde_json::Value"),
                    );
                    Ok(json!({}))
                }
            };
        }
        if !self.types.decls.contains_key(name) && self.types.constant(name).is_some() {
            return self.unsupported(&format!("`{name}` (a value, not a type)"), at, site);
        }
        let Some(decl) = self.types.decls.get(name).copied() else {
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
            return Ok(reference(&self.types.rust_names[name]));
        }
        let args = self.types.arguments(decl, args, at)?;
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

    /// `Record<K, V>`: a map when the keys are any string or number, an object of those
    /// members when they are string literals.
    fn record(&mut self, key_ty: &Ty, value: &Ty, hint: &str, site: Site, at: Loc) -> Lowered {
        let mut keys = self.types.members(key_ty, 0)?;
        keys.retain(|k| !matches!(k, Ty::Null | Ty::Undefined));
        let keys: Vec<Ty> = keys
            .into_iter()
            .map(|k| match k {
                // Object keys are strings: `Record<1 | 2, T>` has members "1" and "2".
                Ty::Lit(Lit::Num(n)) => Ty::Lit(Lit::Str(number(n).to_string())),
                other => other,
            })
            .collect();
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
                index_at: None,
                skipped: Vec::new(),
            });
            return self.lower(&ty, hint, site, at);
        }
        self.unsupported("a `Record` whose keys are not strings", at, site)
    }

    /// A type written in the manifest (a result type): a declared type by name, or a new
    /// definition `name` for anything else.
    pub(crate) fn setting(&mut self, ty: &Ty, name: &str, at: Loc) -> Result<String, Problem> {
        if let Ty::Ref { name: declared, .. } = ty
            && let Some(problem) = self.types.degraded.get(declared)
        {
            // A result type must be typed: what left it out is the error, where it is.
            let mut problem = problem.clone();
            problem.message = format!(
                "the result type `{declared}` has no Rust type: {}",
                problem.message
            );
            return Err(problem);
        }
        if let Ty::Ref {
            name: declared,
            args,
            ..
        } = ty
            && args.is_empty()
            && let Some(rust) = self.types.rust_names.get(declared)
            && self
                .types
                .decls
                .get(declared.as_str())
                .is_some_and(|d| d.params.iter().all(|p| p.default.is_some()))
        {
            return Ok(rust.clone());
        }
        let def = (self.taken)(name);
        self.steps = 0;
        self.types.steps = 0;
        self.types.at = at;
        let schema = self.lower(ty, &def, Site::Root, at)?;
        self.out.locations.insert(def.clone(), at);
        self.out.defs.push((def.clone(), schema));
        Ok(def)
    }
}

/// `'a' | string` is `string` (and so for numbers and booleans), and `true | false` is
/// `boolean`.
fn widen_literals(rest: &mut Vec<&Ty>) {
    // `'a' | string` is `string`, and so on.
    let has = |rest: &[&Ty], f: fn(&Ty) -> bool| rest.iter().any(|t| f(t));
    if has(rest, |t| matches!(t, Ty::String)) {
        rest.retain(|t| !matches!(t, Ty::Lit(Lit::Str(_))));
    }
    if has(rest, |t| matches!(t, Ty::Number)) {
        rest.retain(|t| !matches!(t, Ty::Lit(Lit::Num(_))));
    }
    if has(rest, |t| matches!(t, Ty::Boolean)) {
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
}

/// A union of string literals, or of number literals, as an `enum` schema (`integer` when
/// every number is one); `None` for any other union.
fn literal_enum(rest: &[&Ty]) -> Option<Value> {
    if rest.iter().all(|t| matches!(t, Ty::Lit(Lit::Str(_)))) {
        let values: Vec<Value> = rest
            .iter()
            .filter_map(|t| match t {
                Ty::Lit(l) => Some(lit_value(l)),
                _ => None,
            })
            .collect();
        return Some(json!({"type": "string", "enum": values}));
    }
    if rest.iter().all(|t| matches!(t, Ty::Lit(Lit::Num(_)))) {
        let numbers: Vec<f64> = rest
            .iter()
            .filter_map(|t| match t {
                Ty::Lit(Lit::Num(n)) => Some(*n),
                _ => None,
            })
            .collect();
        let integers = numbers.iter().all(|n| is_integer(*n));
        let values: Vec<Value> = numbers.iter().map(|n| number(*n)).collect();
        return Some(json!({"type": if integers { "integer" } else { "number" }, "enum": values}));
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
