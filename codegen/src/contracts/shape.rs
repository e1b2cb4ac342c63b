//! The type algebra of the contracts: what TypeScript computes from declarations before
//! anything is emitted. Object shapes (`extends`, intersections and the utility types
//! flattened into members), union members through aliases, indexed access, distribution of
//! an intersection over a union, instantiation of generics, the narrowing of a member two
//! parts of an intersection both declare. No JSON Schema here: `lower.rs` emits it.

use std::collections::{HashMap, HashSet};

use super::Problem;
use super::ir::{ConstValue, Decl, DeclKind, Lit, Loc, Member, Obj, Ty};

/// How many types one declaration may lower (its members, their members, every instantiation
/// and expansion): a bound on the work of a declaration that expands beyond any real file (the
/// published files the tests generate come out the same with it). Shared by the type algebra
/// here and the emitter (`lower.rs`).
pub(crate) const BUDGET: usize = 200_000;

/// The error of a declaration that needs more than [`BUDGET`] steps.
pub(crate) fn over_budget(at: Loc) -> Problem {
    Problem::error(
        at,
        format!("this declaration expands to more than {BUDGET} types"),
        "name the types it repeats (type aliases, interfaces) instead of writing them out",
    )
}

/// An object type with its members resolved (`extends` and intersections flattened).
#[derive(Debug, Clone, Default)]
pub(crate) struct Shape {
    pub members: Vec<Member>,
    pub index: Option<Ty>,
    /// Where the index signature is written.
    pub index_at: Option<Loc>,
}

/// The declarations every type is resolved against.
pub(crate) struct Types<'a> {
    /// Every declaration of the contract files by name, in file order (interfaces of one name
    /// merge; a value may share a type's name).
    all: HashMap<&'a str, Vec<&'a Decl>>,
    /// Declared name → declaration.
    pub decls: HashMap<&'a str, &'a Decl>,
    /// Declared name → Rust definition name (members remember the declaration they come
    /// from, to name their inline types after it).
    pub rust_names: HashMap<String, String>,
    /// Located warnings, in the order found (the emitter adds its own).
    pub warnings: Vec<(Loc, String)>,
    /// Declarations left out, and why: references to them are `serde_json::Value`.
    pub degraded: HashMap<String, Problem>,
    /// The declaration being lowered: where a problem with a type that carries no location of
    /// its own (`string`, `never`, a literal) is reported.
    pub at: Loc,
    /// Computed types being resolved, outermost first: one met again inside its own
    /// resolution is computed from itself.
    resolving: Vec<String>,
    /// Shapes, members and resolutions computed for the current declaration, against the
    /// lowering's budget.
    pub steps: usize,
}

impl<'a> Types<'a> {
    pub(crate) fn new(all: &'a [Decl]) -> Self {
        let mut by_name: HashMap<&'a str, Vec<&'a Decl>> = HashMap::new();
        for decl in all {
            by_name.entry(decl.name.as_str()).or_default().push(decl);
        }
        Types {
            all: by_name,
            // Types only: a value may share a type's name (`const X = ..; type X = ..`).
            decls: all
                .iter()
                .filter(|d| !matches!(d.kind, DeclKind::Const(..)))
                .map(|d| (d.name.as_str(), d))
                .collect(),
            rust_names: HashMap::new(),
            warnings: Vec::new(),
            degraded: HashMap::new(),
            at: Loc { file: 0, offset: 0 },
            resolving: Vec::new(),
            steps: 0,
        }
    }

    /// Every declaration named `name`, in file order.
    fn named(&self, name: &str) -> &[&'a Decl] {
        self.all.get(name).map_or(&[], Vec::as_slice)
    }

    /// The `declare const` named `name`.
    pub(crate) fn constant(&self, name: &str) -> Option<&'a Decl> {
        self.named(name)
            .iter()
            .copied()
            .find(|d| matches!(d.kind, DeclKind::Const(..)))
    }

    /// The array type an interface extends (`interface List extends Array<Item> {}`, or an
    /// interface that does), as `Item[]`.
    pub(crate) fn array_base(&self, name: &str) -> Option<Ty> {
        self.array_base_depth(name, 0)
    }

    fn array_base_depth(&self, name: &str, depth: usize) -> Option<Ty> {
        if depth > 16 {
            return None;
        }
        self.named(name).iter().find_map(|d| match &d.kind {
            DeclKind::Interface { extends, .. } => extends.iter().find_map(|base| match base {
                Ty::Ref { name, args, .. }
                    if matches!(name.as_str(), "Array" | "ReadonlyArray") && args.len() == 1 =>
                {
                    Some(Ty::Array(Box::new(args[0].clone())))
                }
                Ty::Ref { name, .. } => self.array_base_depth(name, depth + 1),
                _ => None,
            }),
            _ => None,
        })
    }

    fn is_array_base(&self, base: &Ty, depth: usize) -> bool {
        match base {
            Ty::Ref { name, args, .. } => {
                (matches!(name.as_str(), "Array" | "ReadonlyArray") && args.len() == 1)
                    || self.array_base_depth(name, depth + 1).is_some()
            }
            _ => false,
        }
    }

    /// What `typeof`, `keyof`, `T[K]` and the utility types that compute a type from others
    /// (`NonNullable`, `Exclude`, `Extract`) stand for; any other type as it is.
    pub(crate) fn resolve(&mut self, ty: &Ty, depth: usize) -> Result<Ty, Problem> {
        self.step(ty)?;
        let k = key(ty);
        if depth > 32 || self.resolving.contains(&k) {
            return Err(Problem::error(
                self.loc_of(ty),
                "this type is computed from itself without end",
                "declare the type it stands for",
            ));
        }
        self.resolving.push(k);
        let resolved = self.resolve_once(ty, depth);
        self.resolving.pop();
        resolved
    }

    /// One more step of the current declaration's work; past the budget, an error.
    fn step(&mut self, ty: &Ty) -> Result<(), Problem> {
        self.steps += 1;
        if self.steps > BUDGET {
            return Err(over_budget(self.loc_of(ty)));
        }
        Ok(())
    }

    fn resolve_once(&mut self, ty: &Ty, depth: usize) -> Result<Ty, Problem> {
        match ty {
            Ty::TypeOf { path, at } => self.type_of(path, *at, depth),
            Ty::KeyOf { object, at } => self.key_of(object, *at, depth),
            Ty::Indexed { object, index, at } => self.indexed(object, index, *at, depth),
            Ty::Ref { name, args, .. } => match (name.as_str(), args.as_slice()) {
                ("NonNullable", [inner]) => {
                    let mut members = self.members(inner, depth + 1)?;
                    members.retain(|m| !matches!(m, Ty::Null | Ty::Undefined));
                    Ok(union_of(members))
                }
                ("Exclude" | "Extract", [from, by]) => {
                    let keep = name == "Extract";
                    let members = self.members(from, depth + 1)?;
                    let by = self.members(by, depth + 1)?;
                    let members = members
                        .into_iter()
                        .filter(|m| by.iter().any(|b| assignable(m, b)) == keep)
                        .collect();
                    Ok(union_of(members))
                }
                _ => Ok(ty.clone()),
            },
            other => Ok(other.clone()),
        }
    }

    /// The members of a union with what they stand for resolved, through aliases of unions and
    /// literals; object types stay as written (by name).
    pub(crate) fn members(&mut self, ty: &Ty, depth: usize) -> Result<Vec<Ty>, Problem> {
        self.step(ty)?;
        if depth > 32 {
            return Ok(vec![ty.clone()]);
        }
        match ty {
            Ty::Union(items) => {
                let mut out = Vec::new();
                let mut seen = HashSet::new();
                for item in items {
                    for m in self.members(item, depth + 1)? {
                        if seen.insert(key(&m)) {
                            out.push(m);
                        }
                    }
                }
                Ok(out)
            }
            // One being resolved already stays as it is (a union that contains itself).
            Ty::TypeOf { .. } | Ty::KeyOf { .. } | Ty::Indexed { .. }
                if self.resolving.contains(&key(ty)) =>
            {
                Ok(vec![ty.clone()])
            }
            Ty::TypeOf { .. } | Ty::KeyOf { .. } | Ty::Indexed { .. } => {
                let resolved = self.resolve(ty, depth + 1)?;
                self.members(&resolved, depth + 1)
            }
            Ty::Ref { name, args, .. } => {
                if matches!(name.as_str(), "NonNullable" | "Exclude" | "Extract") {
                    if self.resolving.contains(&key(ty)) {
                        return Ok(vec![ty.clone()]);
                    }
                    let resolved = self.resolve(ty, depth + 1)?;
                    return self.members(&resolved, depth + 1);
                }
                if self.is_object(ty) {
                    return Ok(vec![ty.clone()]);
                }
                match self.decls.get(name.as_str()).copied() {
                    Some(decl) if matches!(decl.kind, DeclKind::Alias(_)) => {
                        let DeclKind::Alias(target) = &decl.kind else {
                            return Ok(vec![ty.clone()]);
                        };
                        let args = self.arguments(decl, args, self.loc_of(ty))?;
                        let map: HashMap<String, Ty> = decl
                            .params
                            .iter()
                            .zip(args)
                            .map(|(p, a)| (p.name.clone(), a))
                            .collect();
                        let members = self.members(&substitute(target, &map), depth + 1)?;
                        // An alias of one array, tuple or object type keeps its name
                        // (`NonNullable<A | null>` is `A`, and `type A = NonNullable<A | null>[]`
                        // refers to itself by it).
                        Ok(match members.as_slice() {
                            [one] if !leaf(one) => vec![ty.clone()],
                            _ => members,
                        })
                    }
                    _ => Ok(vec![ty.clone()]),
                }
            }
            other => Ok(vec![other.clone()]),
        }
    }

    /// `typeof NAME.a.b`: the literal type of a declared constant (an object of literal
    /// members for an object), or its declared type.
    fn type_of(&mut self, path: &[String], at: Loc, depth: usize) -> Result<Ty, Problem> {
        // The longest prefix that names a constant (`typeof Severity.Error` in a namespace).
        let found = (1..=path.len()).rev().find_map(|n| {
            let name = path[..n].join(".");
            self.constant(&name).map(|decl| (decl, n))
        });
        let name = path.join(".");
        let Some((decl, used)) = found else {
            return Err(Problem::error(
                at,
                format!("`typeof {name}`: no `declare const {name}` in the contract files"),
                "declare the constant in one of the server's contract files, or write its type",
            ));
        };
        let DeclKind::Const(value, annotation) = &decl.kind else {
            unreachable!("constant() finds constants only")
        };
        let mut ty = match (value, annotation) {
            (Some(value), _) => const_type(value, decl.at),
            (None, Some(annotation)) => annotation.clone(),
            (None, None) => {
                return Err(Problem::error(
                    at,
                    format!("`{name}` declares neither a literal value nor a type"),
                    "give the constant a literal value or a type annotation",
                ));
            }
        };
        for segment in &path[used..] {
            ty = self.indexed(&ty, &Ty::Lit(Lit::Str(segment.clone())), at, depth + 1)?;
        }
        Ok(ty)
    }

    /// `keyof T`: the union of `T`'s member names (`string` when `T` has an index signature).
    fn key_of(&mut self, object: &Ty, at: Loc, depth: usize) -> Result<Ty, Problem> {
        let object = self.resolve(object, depth + 1)?;
        let shape = self.shape(&object, depth + 1).map_err(|e| {
            Problem::error(
                at,
                format!(
                    "`keyof` needs an object type with known members: {}",
                    e.message
                ),
                "apply `keyof` to a declared interface or object type alias",
            )
        })?;
        if shape.index.is_some() {
            return Ok(Ty::String);
        }
        Ok(union_of(
            shape
                .members
                .into_iter()
                .map(|m| Ty::Lit(Lit::Str(m.name)))
                .collect(),
        ))
    }

    /// `object[index]`: the type of the members `index` names (a string literal or a union
    /// of them, `keyof`, `string` for an index signature, `number` for an array's element), or
    /// the union of it over a union's members.
    pub(crate) fn indexed(
        &mut self,
        object: &Ty,
        index: &Ty,
        at: Loc,
        depth: usize,
    ) -> Result<Ty, Problem> {
        let object = self.resolve(object, depth + 1)?;
        let keys = self.members(index, depth + 1)?;
        let objects = self.union_members(&object, 0);
        let mut found: Vec<Ty> = Vec::new();
        for key in &keys {
            for member in &objects {
                match key {
                    Ty::Lit(Lit::Str(key)) => {
                        let shape = self.shape(member, depth + 1)?;
                        match shape.members.iter().find(|m| &m.name == key) {
                            Some(m) if m.optional => {
                                found.push(m.ty.clone());
                                found.push(Ty::Undefined);
                            }
                            Some(m) => found.push(m.ty.clone()),
                            None => match shape.index {
                                Some(index) => found.push(index),
                                None => {
                                    return Err(Problem::error(
                                        at,
                                        format!("this type has no member `{key}`"),
                                        "index an object type (or a union of them) by one of its members",
                                    ));
                                }
                            },
                        }
                    }
                    Ty::String => match self.shape(member, depth + 1)?.index {
                        Some(index) => found.push(index),
                        None => {
                            return Err(Problem::error(
                                at,
                                "`[string]` indexes an object type with an index signature only",
                                "index the object type by one of its members",
                            ));
                        }
                    },
                    Ty::Number | Ty::Lit(Lit::Num(_)) => match self.element(member, depth + 1) {
                        Some(element) => found.push(element),
                        None => {
                            return Err(Problem::error(
                                at,
                                "`[number]` indexes an array or a tuple only",
                                "index an array type, or an object type by one of its members",
                            ));
                        }
                    },
                    _ => {
                        return Err(Problem::error(
                            at,
                            "an index that is not a member name (a string literal, a union of them, `keyof T`) or `number`",
                            "index the object type by one of its members",
                        ));
                    }
                }
            }
        }
        // `T['x' | 'y']` with two `number` members is `number`.
        let mut unique: Vec<Ty> = Vec::new();
        let mut seen = HashSet::new();
        for ty in found {
            if seen.insert(key(&ty)) {
                unique.push(ty);
            }
        }
        Ok(union_of(unique))
    }

    /// The element type of an array or tuple type (through aliases and `extends Array<T>`).
    fn element(&mut self, ty: &Ty, depth: usize) -> Option<Ty> {
        if depth > 32 {
            return None;
        }
        match ty {
            Ty::Array(inner) => Some((**inner).clone()),
            Ty::Tuple(items) => Some(union_of(items.clone())),
            Ty::Ref { name, args, .. } => match (name.as_str(), args.as_slice()) {
                ("Array" | "ReadonlyArray" | "Readonly", [inner]) => match name.as_str() {
                    "Readonly" => self.element(inner, depth + 1),
                    _ => Some(inner.clone()),
                },
                _ => {
                    if let Some(base) = self.array_base(name) {
                        return self.element(&base, depth + 1);
                    }
                    let decl = self.decls.get(name.as_str()).copied()?;
                    let DeclKind::Alias(target) = &decl.kind else {
                        return None;
                    };
                    let args = self.arguments(decl, args, self.loc_of(ty)).ok()?;
                    let map: HashMap<String, Ty> = decl
                        .params
                        .iter()
                        .zip(args)
                        .map(|(p, a)| (p.name.clone(), a))
                        .collect();
                    self.element(&substitute(target, &map), depth + 1)
                }
            },
            Ty::TypeOf { .. } | Ty::Indexed { .. } => {
                let resolved = self.resolve(ty, depth + 1).ok()?;
                self.element(&resolved, depth + 1)
            }
            _ => None,
        }
    }

    /// The type of a member both parts of an intersection declare, as TypeScript computes it:
    /// the narrower when one contains the other, the merged object for two object types, the
    /// values both allow for unions and literals (`number & -32042` is `-32042`); `None` when
    /// they share no value (`never`).
    pub(crate) fn intersect(&mut self, a: &Ty, b: &Ty) -> Result<Option<Ty>, Problem> {
        if matches!(a, Ty::Conflict { .. }) {
            return Ok(Some(a.clone()));
        }
        if matches!(b, Ty::Conflict { .. }) {
            return Ok(Some(b.clone()));
        }
        if let Some(narrower) = narrower(a, b) {
            return Ok(Some(narrower));
        }
        if self.is_object(a) && self.is_object(b) {
            // Object members of an intersection intersect in turn.
            return Ok(Some(Ty::Intersection(vec![a.clone(), b.clone()])));
        }
        let left = self.members(a, 0)?;
        let right = self.members(b, 0)?;
        let left_keys: Vec<String> = left.iter().map(key).collect();
        let right_keys: Vec<String> = right.iter().map(key).collect();
        let mut out: Vec<Ty> = Vec::new();
        let mut seen = HashSet::new();
        for (x, x_key) in left.iter().zip(&left_keys) {
            for (y, y_key) in right.iter().zip(&right_keys) {
                let meet = if x_key == y_key {
                    Some(x.clone())
                } else {
                    match (x, y) {
                        (Ty::Any | Ty::Unknown, other) | (other, Ty::Any | Ty::Unknown) => {
                            Some(other.clone())
                        }
                        (lit @ Ty::Lit(Lit::Str(_)), Ty::String)
                        | (Ty::String, lit @ Ty::Lit(Lit::Str(_)))
                        | (lit @ Ty::Lit(Lit::Num(_)), Ty::Number)
                        | (Ty::Number, lit @ Ty::Lit(Lit::Num(_)))
                        | (lit @ Ty::Lit(Lit::Bool(_)), Ty::Boolean)
                        | (Ty::Boolean, lit @ Ty::Lit(Lit::Bool(_))) => Some(lit.clone()),
                        (Ty::ObjectKeyword, other) | (other, Ty::ObjectKeyword)
                            if self.is_object(other) =>
                        {
                            Some(other.clone())
                        }
                        _ if self.is_object(x) && self.is_object(y) => {
                            Some(Ty::Intersection(vec![x.clone(), y.clone()]))
                        }
                        // A branded primitive (`string & { __brand: 'Id' }`) is the primitive on
                        // the wire.
                        (scalar @ (Ty::String | Ty::Number | Ty::Boolean | Ty::Lit(_)), other)
                        | (other, scalar @ (Ty::String | Ty::Number | Ty::Boolean | Ty::Lit(_)))
                            if self.is_object(other) =>
                        {
                            Some(scalar.clone())
                        }
                        _ => None,
                    }
                };
                if let Some(meet) = meet
                    && seen.insert(key(&meet))
                {
                    out.push(meet);
                }
            }
        }
        Ok((!out.is_empty()).then(|| union_of(out)))
    }

    pub(crate) fn warn(&mut self, at: Loc, message: impl Into<String>) {
        self.warnings.push((at, message.into()));
    }

    /// The members of a union, through aliases; anything else is one member.
    pub(crate) fn union_members(&self, ty: &Ty, depth: usize) -> Vec<Ty> {
        if depth > 32 {
            return vec![ty.clone()];
        }
        match ty {
            Ty::Union(items) => {
                // Each distinct member once (`type U = V | V` would double the work per level).
                let mut out: Vec<Ty> = Vec::new();
                let mut seen = HashSet::new();
                let mut kept = HashSet::new();
                for item in items.iter().filter(|t| seen.insert(key(t))) {
                    for m in self.union_members(item, depth + 1) {
                        if kept.insert(key(&m)) {
                            out.push(m);
                        }
                    }
                }
                out
            }
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
                // `type P = Base & (A | B)` is `(Base & A) | (Base & B)`.
                Some(decl)
                    if decl.params.is_empty()
                        && matches!(decl.kind, DeclKind::Alias(Ty::Intersection(_))) =>
                {
                    let DeclKind::Alias(Ty::Intersection(parts)) = &decl.kind else {
                        return vec![ty.clone()];
                    };
                    let mut flat = Vec::new();
                    self.intersection_parts(parts, &mut flat, depth + 1);
                    let splits = flat.iter().any(|p| {
                        let members = self.union_members(p, depth + 1);
                        members.len() > 1 && members.iter().all(|m| self.is_object(m))
                    });
                    if splits {
                        self.union_members(&self.distribute_flat(&flat, depth + 1), depth + 1)
                    } else {
                        vec![ty.clone()]
                    }
                }
                _ => vec![ty.clone()],
            },
            other => vec![other.clone()],
        }
    }

    /// Does an intersection have a union of object types among its parts (or among those of
    /// an alias of an intersection it contains)?
    pub(crate) fn distributes(&self, parts: &[Ty]) -> bool {
        self.distributable(parts).is_some()
    }

    fn has_object_union(&self, parts: &[Ty]) -> bool {
        parts.iter().any(|p| {
            let members = self.union_members(p, 0);
            members.len() > 1 && members.iter().all(|m| self.is_object(m))
        })
    }

    /// The parts to distribute over: as written, or with aliases of intersections opened
    /// (`type P = Base & (A | B)`, `P & { in: 'query' }`) when the union is inside one.
    fn distributable(&self, parts: &[Ty]) -> Option<Vec<Ty>> {
        if self.has_object_union(parts) {
            return Some(parts.to_vec());
        }
        let mut flat = Vec::new();
        self.intersection_parts(parts, &mut flat, 0);
        (flat.len() != parts.len() && self.has_object_union(&flat)).then_some(flat)
    }

    fn intersection_parts(&self, parts: &[Ty], out: &mut Vec<Ty>, depth: usize) {
        for part in parts {
            match part {
                Ty::Intersection(inner) if depth < 32 => {
                    self.intersection_parts(inner, out, depth + 1)
                }
                Ty::Ref { name, args, .. } if depth < 32 => {
                    match self.decls.get(name.as_str()).map(|d| (d, &d.kind)) {
                        Some((decl, DeclKind::Alias(Ty::Intersection(inner))))
                            if decl.params.len() == args.len() =>
                        {
                            let map: HashMap<String, Ty> = decl
                                .params
                                .iter()
                                .zip(args)
                                .map(|(p, a)| (p.name.clone(), a.clone()))
                                .collect();
                            let inner: Vec<Ty> =
                                inner.iter().map(|t| substitute(t, &map)).collect();
                            self.intersection_parts(&inner, out, depth + 1);
                        }
                        _ => out.push(part.clone()),
                    }
                }
                other => out.push(other.clone()),
            }
        }
    }

    /// `A & (B | C)` → `(A & B) | (A & C)`, over every union part.
    pub(crate) fn distribute(&self, parts: &[Ty]) -> Ty {
        let flat = self.distributable(parts);
        self.distribute_flat(flat.as_deref().unwrap_or(parts), 0)
    }

    fn distribute_flat(&self, parts: &[Ty], depth: usize) -> Ty {
        let mut alternatives: Vec<Vec<Ty>> = vec![Vec::new()];
        for part in parts {
            let members = self.union_members(part, depth);
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

    /// Is `ty` an object type (possibly through references)?
    pub(crate) fn is_object(&self, ty: &Ty) -> bool {
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
                    Some(DeclKind::Interface { .. }) => self.array_base(name).is_none(),
                    Some(DeclKind::Alias(t)) => self.is_object_depth(t, depth + 1),
                    _ => false,
                },
            },
            _ => false,
        }
    }

    /// The members of an object type, `extends` and intersections flattened.
    pub(crate) fn shape(&mut self, ty: &Ty, depth: usize) -> Result<Shape, Problem> {
        self.step(ty)?;
        if depth > 64 {
            return Err(endless(self.loc_of(ty)));
        }
        match ty {
            Ty::Object(obj) => Ok(self.object_shape(obj, &HashMap::new())),
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
                        let keys = self.members(keys, depth + 1)?;
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
                    ("NonNullable" | "Exclude" | "Extract", _) => {
                        let resolved = self.resolve(ty, depth + 1)?;
                        return self.shape(&resolved, depth + 1);
                    }
                    _ => {}
                }
                if let Some(problem) = self.degraded.get(name) {
                    return Err(Problem::error(
                        at,
                        format!("`{name}` is left out ({})", problem.message),
                        "see the warning at its declaration",
                    ));
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
            Ty::TypeOf { .. } | Ty::KeyOf { .. } | Ty::Indexed { .. } => {
                let resolved = self.resolve(ty, depth + 1)?;
                self.shape(&resolved, depth + 1)
            }
            other => Err(Problem::error(
                self.loc_of(other),
                "only object types can be merged (`A & B`, `extends`)",
                "write the intersection as an object type, or use a union",
            )),
        }
    }

    /// `self.shape(&Ty::Object(substitute_obj(body, map)), depth)` without the copy in between.
    fn shape_of_body(
        &mut self,
        body: &Obj,
        map: &HashMap<String, Ty>,
        depth: usize,
    ) -> Result<Shape, Problem> {
        // Where `loc_of` puts an object type: its first member, or its index signature.
        let at = body
            .members
            .first()
            .map(|m| m.at)
            .or(body.index_at)
            .unwrap_or(self.at);
        self.steps += 1;
        if self.steps > BUDGET {
            return Err(over_budget(at));
        }
        if depth > 64 {
            return Err(endless(at));
        }
        Ok(self.object_shape(body, map))
    }

    /// The members of an object type literal with type parameters replaced (`map`): what
    /// `shape` makes of `Ty::Object(substitute_obj(obj, map))`, copied once.
    fn object_shape(&mut self, obj: &Obj, map: &HashMap<String, Ty>) -> Shape {
        for (at, what) in &obj.skipped {
            self.warn(
                *at,
                format!("{what} in an object type describes no JSON data; left out"),
            );
        }
        Shape {
            members: obj
                .members
                .iter()
                .map(|m| Member {
                    name: m.name.clone(),
                    optional: m.optional,
                    ty: substitute(&m.ty, map),
                    doc: m.doc.clone(),
                    at: m.at,
                    owner: m.owner.clone(),
                })
                .collect(),
            index: obj.index.as_deref().map(|t| substitute(t, map)),
            index_at: obj.index_at,
        }
    }

    /// Where `ty` is written, or (for a type that carries no location, like `string`) the
    /// declaration being lowered.
    pub(crate) fn loc_of(&self, ty: &Ty) -> Loc {
        own_loc(ty).unwrap_or(self.at)
    }

    /// The members of an interface declaration (all merged declarations of that name), with
    /// those of the interfaces it extends first (an array base has none).
    pub(crate) fn interface_shape(
        &mut self,
        decl: &Decl,
        map: &HashMap<String, Ty>,
        depth: usize,
    ) -> Result<Shape, Problem> {
        let mut shape = Shape::default();
        let same: Vec<&'a Decl> = self
            .named(&decl.name)
            .iter()
            .copied()
            .filter(|d| matches!(d.kind, DeclKind::Interface { .. }))
            .collect();
        for part in same {
            let DeclKind::Interface { extends, body } = &part.kind else {
                continue;
            };
            for base in extends {
                if self.is_array_base(base, 0) {
                    continue;
                }
                let base = substitute(base, map);
                let next = self.shape(&base, depth + 1)?;
                self.merge(&mut shape, next, true)?;
            }
            // `self.shape(&Ty::Object(substitute_obj(body, map)), depth + 1)`, one copy.
            let own = self.shape_of_body(body, map, depth + 1)?;
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
                    let contained = narrower(&existing.ty, &member.ty).is_some();
                    existing.ty = match self.intersect(&existing.ty, &member.ty)? {
                        Some(ty) => ty,
                        // `never`: an error only where an emitted type needs the member.
                        None => Ty::Conflict {
                            member: member.name.clone(),
                            at: member.at,
                            other: existing.at,
                        },
                    };
                    if !contained && !matches!(existing.ty, Ty::Intersection(_)) {
                        // A type neither part wrote (`number & -32042`): named after the part
                        // that narrowed it.
                        existing.owner.clone_from(&member.owner);
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
            shape.index_at = next.index_at;
        }
        Ok(())
    }

    /// The type arguments for a use of `decl`: those written, then defaults.
    pub(crate) fn arguments(
        &mut self,
        decl: &Decl,
        args: &[Ty],
        at: Loc,
    ) -> Result<Vec<Ty>, Problem> {
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
}

/// The error of a type that merges itself (`extends`, `&`) without end.
fn endless(at: Loc) -> Problem {
    Problem::error(
        at,
        "this type refers to itself through `extends` or `&` without end",
        "break the cycle: an interface cannot extend itself",
    )
}

/// Is `n` an integer that a JSON number (an f64) holds exactly?
pub(crate) fn is_integer(n: f64) -> bool {
    n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15
}

/// A structural key for a type (locations left out), to recognise an instantiation.
pub(crate) fn key(ty: &Ty) -> String {
    let mut out = String::new();
    write_key(ty, &mut out);
    out
}

/// [`key`], written into `out` (one buffer for the whole type).
pub(crate) fn write_key(ty: &Ty, out: &mut String) {
    use std::fmt::Write;
    fn list(items: &[Ty], separator: char, out: &mut String) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(separator);
            }
            write_key(item, out);
        }
    }
    // Writing into a `String` cannot fail.
    match ty {
        Ty::Ref { name, args, .. } => {
            out.push_str(name);
            out.push('<');
            list(args, ',', out);
            out.push('>');
        }
        Ty::Array(inner) => {
            write_key(inner, out);
            out.push_str("[]");
        }
        Ty::Tuple(items) => {
            out.push('[');
            list(items, ',', out);
            out.push(']');
        }
        // Parenthesised: `(A|B)[]` and `A|B[]` are different types.
        Ty::Union(items) => {
            out.push('(');
            list(items, '|', out);
            out.push(')');
        }
        Ty::Intersection(items) => {
            out.push('(');
            list(items, '&', out);
            out.push(')');
        }
        Ty::Object(obj) => {
            out.push('{');
            for m in &obj.members {
                let _ = write!(out, "{:?}", m.name);
                if m.optional {
                    out.push('?');
                }
                out.push(':');
                write_key(&m.ty, out);
                out.push(';');
            }
            if let Some(index) = &obj.index {
                out.push_str("[string]:");
                write_key(index, out);
            }
            out.push('}');
        }
        Ty::Lit(l) => {
            let _ = write!(out, "{l:?}");
        }
        Ty::Indexed { object, index, .. } => {
            write_key(object, out);
            out.push('[');
            write_key(index, out);
            out.push(']');
        }
        Ty::TypeOf { path, .. } => {
            out.push_str("typeof ");
            for (i, segment) in path.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                out.push_str(segment);
            }
        }
        Ty::KeyOf { object, .. } => {
            out.push_str("keyof ");
            write_key(object, out);
        }
        Ty::Conflict { member, .. } => {
            let _ = write!(out, "never({member})");
        }
        Ty::Unsupported { what, .. } => {
            let _ = write!(out, "unsupported({what})");
        }
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}

/// Replaces type parameters by their arguments.
pub(crate) fn substitute(ty: &Ty, map: &HashMap<String, Ty>) -> Ty {
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
        Ty::Indexed { object, index, at } => Ty::Indexed {
            object: Box::new(substitute(object, map)),
            index: Box::new(substitute(index, map)),
            at: *at,
        },
        Ty::KeyOf { object, at } => Ty::KeyOf {
            object: Box::new(substitute(object, map)),
            at: *at,
        },
        other => other.clone(),
    }
}

pub(crate) fn substitute_obj(obj: &Obj, map: &HashMap<String, Ty>) -> Obj {
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
        index_at: obj.index_at,
        skipped: obj.skipped.clone(),
    }
}

/// The narrower of two member types merged by an intersection (`'a' | 'b'` and `'a'` → `'a'`;
/// `string` and `'x'` → `'x'`; `T | null` and `T` → `T`), when one contains the other.
pub(crate) fn narrower(a: &Ty, b: &Ty) -> Option<Ty> {
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
pub(crate) fn discriminant(shapes: &[Shape]) -> Option<(String, Vec<Lit>)> {
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

/// One type for a list of union members: the member alone, `never` for none.
pub(crate) fn union_of(mut members: Vec<Ty>) -> Ty {
    match members.len() {
        0 => Ty::Never,
        1 => members.remove(0),
        _ => Ty::Union(members),
    }
}

/// Where `ty` (or the first of its parts that knows) is written.
fn own_loc(ty: &Ty) -> Option<Loc> {
    match ty {
        Ty::Ref { at, .. }
        | Ty::Unsupported { at, .. }
        | Ty::Indexed { at, .. }
        | Ty::TypeOf { at, .. }
        | Ty::KeyOf { at, .. }
        | Ty::Conflict { at, .. } => Some(*at),
        Ty::Object(obj) => obj.members.first().map(|m| m.at).or(obj.index_at),
        Ty::Intersection(items) | Ty::Union(items) | Ty::Tuple(items) => {
            items.iter().find_map(own_loc)
        }
        Ty::Array(inner) => own_loc(inner),
        _ => None,
    }
}

/// Is `ty` a literal or a keyword type (what a union of them is made of)?
fn leaf(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Lit(_)
            | Ty::String
            | Ty::Number
            | Ty::Boolean
            | Ty::Null
            | Ty::Undefined
            | Ty::Any
            | Ty::Unknown
            | Ty::Never
            | Ty::ObjectKeyword
            | Ty::Int(_)
            | Ty::F32
    )
}

/// Is every value of `small` a value of `big` (for `Exclude` and `Extract`)?
fn assignable(small: &Ty, big: &Ty) -> bool {
    key(small) == key(big)
        || matches!(
            (small, big),
            (Ty::Lit(Lit::Str(_)), Ty::String)
                | (Ty::Lit(Lit::Num(_)), Ty::Number)
                | (Ty::Lit(Lit::Bool(_)), Ty::Boolean)
                | (_, Ty::Any | Ty::Unknown)
        )
}

/// The type of a constant's value: its literal, or an object of literal members.
fn const_type(value: &ConstValue, at: Loc) -> Ty {
    match value {
        ConstValue::Lit(lit) => Ty::Lit(lit.clone()),
        ConstValue::Object(fields) => Ty::Object(Obj {
            members: fields
                .iter()
                .map(|(name, value, doc)| Member {
                    name: name.clone(),
                    optional: false,
                    ty: const_type(value, at),
                    doc: doc.clone(),
                    at,
                    owner: None,
                })
                .collect(),
            index: None,
            index_at: None,
            skipped: Vec::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key as it was first written (one `String` per part, joined): [`key`] must write
    /// the same text, which instantiations and expansions are matched by.
    fn joined_key(ty: &Ty) -> String {
        match ty {
            Ty::Ref { name, args, .. } => format!(
                "{name}<{}>",
                args.iter().map(joined_key).collect::<Vec<_>>().join(",")
            ),
            Ty::Array(inner) => format!("{}[]", joined_key(inner)),
            Ty::Tuple(items) => format!(
                "[{}]",
                items.iter().map(joined_key).collect::<Vec<_>>().join(",")
            ),
            Ty::Union(items) => format!(
                "({})",
                items.iter().map(joined_key).collect::<Vec<_>>().join("|")
            ),
            Ty::Intersection(items) => format!(
                "({})",
                items.iter().map(joined_key).collect::<Vec<_>>().join("&")
            ),
            Ty::Object(obj) => format!(
                "{{{}{}}}",
                obj.members
                    .iter()
                    .map(|m| format!(
                        "{:?}{}:{};",
                        m.name,
                        if m.optional { "?" } else { "" },
                        joined_key(&m.ty)
                    ))
                    .collect::<String>(),
                obj.index
                    .as_ref()
                    .map(|index| format!("[string]:{}", joined_key(index)))
                    .unwrap_or_default()
            ),
            Ty::Lit(l) => format!("{l:?}"),
            Ty::Indexed { object, index, .. } => {
                format!("{}[{}]", joined_key(object), joined_key(index))
            }
            Ty::TypeOf { path, .. } => format!("typeof {}", path.join(".")),
            Ty::KeyOf { object, .. } => format!("keyof {}", joined_key(object)),
            Ty::Conflict { member, .. } => format!("never({member})"),
            Ty::Unsupported { what, .. } => format!("unsupported({what})"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn key_is_the_joined_text() {
        let at = Loc { file: 0, offset: 3 };
        let reference = |name: &str, args: Vec<Ty>| Ty::Ref {
            name: name.into(),
            args,
            at,
        };
        let member = |name: &str, optional: bool, ty: Ty| Member {
            name: name.into(),
            optional,
            ty,
            doc: Some("ignored".into()),
            at,
            owner: None,
        };
        let object = Ty::Object(Obj {
            members: vec![
                member("a \"quoted\" name", true, Ty::String),
                member("b", false, Ty::Array(Box::new(Ty::Number))),
            ],
            index: Some(Box::new(Ty::Unknown)),
            index_at: Some(at),
            skipped: Vec::new(),
        });
        let types = [
            Ty::Any,
            Ty::Never,
            Ty::Int(super::super::ir::IntKind::U16),
            Ty::F32,
            Ty::Lit(Lit::Str("x\u{fe0f}".into())),
            Ty::Lit(Lit::Num(1.5)),
            Ty::Lit(Lit::Bool(false)),
            reference("Page", vec![]),
            reference("Page", vec![Ty::String, reference("Item", vec![Ty::Null])]),
            Ty::Tuple(vec![]),
            Ty::Tuple(vec![Ty::Boolean, Ty::Undefined]),
            Ty::Union(vec![Ty::Lit(Lit::Str("a".into())), Ty::Null]),
            Ty::Array(Box::new(Ty::Union(vec![Ty::String, Ty::Number]))),
            Ty::Intersection(vec![reference("A", vec![]), object.clone()]),
            Ty::Object(Obj::default()),
            object.clone(),
            Ty::Indexed {
                object: Box::new(object.clone()),
                index: Box::new(Ty::KeyOf {
                    object: Box::new(object),
                    at,
                }),
                at,
            },
            Ty::TypeOf {
                path: vec!["GRID".into(), "w".into()],
                at,
            },
            Ty::Conflict {
                member: "code".into(),
                at,
                other: at,
            },
            Ty::Unsupported {
                what: "a function type".into(),
                at,
            },
        ];
        for ty in &types {
            assert_eq!(key(ty), joined_key(ty), "{ty:?}");
        }
    }
}
