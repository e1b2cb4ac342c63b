//! The type algebra of the contracts: what TypeScript computes from declarations before
//! anything is emitted. Object shapes (`extends`, intersections and the utility types
//! flattened into members), union members through aliases, indexed access, distribution of
//! an intersection over a union, instantiation of generics, the narrowing of a member two
//! parts of an intersection both declare. No JSON Schema here: `lower.rs` emits it.

use std::collections::HashMap;

use super::Problem;
use super::ir::{Decl, DeclKind, Lit, Loc, Member, Obj, Ty};

/// An object type with its members resolved (`extends` and intersections flattened).
#[derive(Debug, Clone, Default)]
pub(crate) struct Shape {
    pub members: Vec<Member>,
    pub index: Option<Ty>,
}

/// The declarations every type is resolved against.
pub(crate) struct Types<'a> {
    /// Every declaration of the contract files (interfaces of one name merge).
    all: &'a [Decl],
    /// Declared name → declaration.
    pub decls: HashMap<&'a str, &'a Decl>,
    /// Declared name → Rust definition name (members remember the declaration they come
    /// from, to name their inline types after it).
    pub rust_names: HashMap<String, String>,
    /// Located warnings, in the order found (the emitter adds its own).
    pub warnings: Vec<(Loc, String)>,
}

impl<'a> Types<'a> {
    pub(crate) fn new(all: &'a [Decl]) -> Self {
        Types {
            all,
            decls: all.iter().map(|d| (d.name.as_str(), d)).collect(),
            rust_names: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn warn(&mut self, at: Loc, message: impl Into<String>) {
        self.warnings.push((at, message.into()));
    }

    /// `object[key]`: the member's type, or the union of it over a union's members.
    pub(crate) fn indexed(&mut self, object: &Ty, key: &str, at: Loc) -> Result<Ty, Problem> {
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
    pub(crate) fn union_members(&self, ty: &Ty, depth: usize) -> Vec<Ty> {
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
    pub(crate) fn distributes(&self, parts: &[Ty]) -> bool {
        parts.iter().any(|p| {
            let members = self.union_members(p, 0);
            members.len() > 1 && members.iter().all(|m| self.is_object(m))
        })
    }

    /// `A & (B | C)` → `(A & B) | (A & C)`, over every union part.
    pub(crate) fn distribute(&self, parts: &[Ty]) -> Ty {
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
                    Some(DeclKind::Interface { .. }) => true,
                    Some(DeclKind::Alias(t)) => self.is_object_depth(t, depth + 1),
                    _ => false,
                },
            },
            _ => false,
        }
    }

    /// The members of an object type, `extends` and intersections flattened.
    pub(crate) fn shape(&mut self, ty: &Ty, depth: usize) -> Result<Shape, Problem> {
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

    pub(crate) fn loc_of(&self, ty: &Ty) -> Loc {
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
    pub(crate) fn interface_shape(
        &mut self,
        decl: &Decl,
        map: &HashMap<String, Ty>,
        depth: usize,
    ) -> Result<Shape, Problem> {
        let mut shape = Shape::default();
        let same: Vec<&Decl> = self
            .all
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

/// Is `n` an integer that a JSON number (an f64) holds exactly?
pub(crate) fn is_integer(n: f64) -> bool {
    n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15
}

/// A structural key for a type (locations left out), to recognise an instantiation.
pub(crate) fn key(ty: &Ty) -> String {
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
        Ty::Indexed { object, key, at } => Ty::Indexed {
            object: Box::new(substitute(object, map)),
            key: key.clone(),
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
