//! What the manifest writes over the declarations: `[overrides]` (a declaration's type, or
//! one member's, replaced by a TypeScript type that may use Rust's number names) and the
//! types of `[results]`, each parsed as a source of its own so that messages locate them.

use std::path::PathBuf;

use super::ir::{DeclKind, IntKind, Obj, Ty};
use super::{Contracts, Source, parse};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::locate::line_col;
use crate::error::Error;

impl Contracts {
    /// Parses a type written in the manifest, as a source of its own for messages.
    pub(super) fn setting_type(&mut self, label: &str, text: &str) -> Result<Ty, Error> {
        let file = self.sources.len();
        self.sources.push(Source {
            path: PathBuf::from(label),
            text: text.to_owned(),
        });
        let ty = parse::parse_type(file, text).map_err(|e| {
            Error::from(
                Diagnostic::new(label, format!("not a TypeScript type: {}", e.message))
                    .at(text, line_col(text, e.offset as usize))
                    .help("write a TypeScript type: a declared name, `string`, `integer`, `u32`, `AgentPosition[]`, `'a' | 'b'`, ..."),
            )
        })?;
        Ok(builtin_numbers(ty))
    }

    /// Replaces the type of a declaration (`"Type"`) or of one of its members (`"Type.a.b"`,
    /// through inline object types).
    pub(super) fn apply_override(&mut self, key: &str, ty: Ty) -> Result<(), Error> {
        let label = format!("[overrides] \"{key}\"");
        let mut path = key.split('.');
        let name = path.next().unwrap_or_default();
        let path: Vec<&str> = path.collect();
        let known: Vec<String> = self.decls.iter().map(|d| d.name.clone()).collect();
        let Some(decl) = self.decls.iter_mut().find(|d| d.name == name) else {
            return Err(Diagnostic::new(
                &label,
                format!("the override names `{name}`, which no contract file declares"),
            )
            .help(format!(
                "override a declared type or one of its members, e.g. \"{}.field\"",
                known.first().map_or("Type", String::as_str)
            ))
            .into());
        };
        if path.is_empty() {
            decl.kind = DeclKind::Alias(ty);
            decl.params.clear();
            return Ok(());
        }
        let decl_name = decl.name.clone();
        let mut obj: &mut Obj = match &mut decl.kind {
            DeclKind::Interface { body, .. } => body,
            DeclKind::Alias(alias) => match find_object(alias, path[0]) {
                Some(obj) => obj,
                None => return Err(no_member(&label, &decl_name, path[0])),
            },
            _ => {
                return Err(Diagnostic::new(
                    &label,
                    format!(
                        "`{name}` is not an object type, so it has no member `{}`",
                        path[0]
                    ),
                )
                .help(format!("override the whole type with \"{name}\""))
                .into());
            }
        };
        for (i, segment) in path.iter().enumerate() {
            let Some(member) = obj.members.iter_mut().find(|m| m.name == *segment) else {
                let owner = if i == 0 {
                    decl_name.clone()
                } else {
                    format!("{decl_name}.{}", path[..i].join("."))
                };
                return Err(no_member(&label, &owner, segment));
            };
            if i + 1 == path.len() {
                member.ty = ty;
                return Ok(());
            }
            let next = path[i + 1];
            obj = match find_object(&mut member.ty, next) {
                Some(obj) => obj,
                None => {
                    return Err(no_member(
                        &label,
                        &format!("{decl_name}.{}", path[..=i].join(".")),
                        next,
                    ));
                }
            };
        }
        Ok(())
    }
}

fn no_member(label: &str, owner: &str, member: &str) -> Error {
    Diagnostic::new(
        label,
        format!("`{owner}` has no member `{member}` written in its own object type"),
    )
    .help("members that come from another type (`extends`, `A & { .. }`) are overridden on that type, e.g. \"AgentPosition.x\"")
    .into()
}

/// The inline object type with member `member` in `ty`, through arrays (`Array<..>` too),
/// unions, intersections and other type arguments.
fn find_object<'t>(ty: &'t mut Ty, member: &str) -> Option<&'t mut Obj> {
    match ty {
        Ty::Object(obj) => obj.members.iter().any(|m| m.name == member).then_some(obj),
        Ty::Array(inner) => find_object(inner, member),
        Ty::Union(items)
        | Ty::Intersection(items)
        | Ty::Tuple(items)
        | Ty::Ref { args: items, .. } => items.iter_mut().find_map(|t| find_object(t, member)),
        _ => None,
    }
}

/// `integer`, `i8` .. `u64`, `f32`, `f64` in a manifest type are Rust's numbers.
fn builtin_numbers(ty: Ty) -> Ty {
    match ty {
        Ty::Ref { name, args, at } if args.is_empty() => match name.as_str() {
            "integer" | "i64" => Ty::Int(IntKind::I64),
            "i8" => Ty::Int(IntKind::I8),
            "i16" => Ty::Int(IntKind::I16),
            "i32" => Ty::Int(IntKind::I32),
            "u8" => Ty::Int(IntKind::U8),
            "u16" => Ty::Int(IntKind::U16),
            "u32" => Ty::Int(IntKind::U32),
            "u64" => Ty::Int(IntKind::U64),
            "f32" => Ty::F32,
            "f64" => Ty::Number,
            _ => Ty::Ref { name, args, at },
        },
        Ty::Ref { name, args, at } => Ty::Ref {
            name,
            args: args.into_iter().map(builtin_numbers).collect(),
            at,
        },
        Ty::Array(inner) => Ty::Array(Box::new(builtin_numbers(*inner))),
        Ty::Tuple(items) => Ty::Tuple(items.into_iter().map(builtin_numbers).collect()),
        Ty::Union(items) => Ty::Union(items.into_iter().map(builtin_numbers).collect()),
        Ty::Intersection(items) => {
            Ty::Intersection(items.into_iter().map(builtin_numbers).collect())
        }
        Ty::Indexed { object, index, at } => Ty::Indexed {
            object: Box::new(builtin_numbers(*object)),
            index,
            at,
        },
        Ty::Object(mut obj) => {
            for m in &mut obj.members {
                m.ty = builtin_numbers(std::mem::replace(&mut m.ty, Ty::Any));
            }
            obj.index = obj.index.map(|t| Box::new(builtin_numbers(*t)));
            Ty::Object(obj)
        }
        other => other,
    }
}
