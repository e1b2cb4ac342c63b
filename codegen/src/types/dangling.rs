//! The `types` module is self-consistent: every type an item names is defined in the module
//! (or is Rust's own). An item that names a type defined nowhere is removed, and so,
//! transitively, is every item that names it; the caller degrades the tools whose types went.
//!
//! Nothing in a correct run is removed: this is the net under every earlier stage (typify, its
//! rendering, the post-pass), so that a bug in one of them costs the tools it touched, never a
//! module that does not compile.

use std::collections::BTreeSet;

use syn::visit_mut::VisitMut;

/// Names a generated item may use without defining them: Rust's primitives and the prelude
/// types typify and the type layer write unqualified.
const BUILTIN: &[&str] = &[
    "Self", "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
    "i64", "i128", "isize", "f32", "f64", "String", "Vec", "Option", "Box", "Result",
];

/// Removes the items that name an undefined type, until none does; returns the names the
/// removed items defined, with the first missing name each one used.
pub(crate) fn retain_consistent(items: &mut Vec<syn::Item>) -> Vec<(String, String)> {
    let mut removed = Vec::new();
    loop {
        let defined = defined_names(items);
        let mut broken = None;
        for (i, item) in items.iter().enumerate() {
            if let Some(missing) = first_undefined(item, &defined) {
                broken = Some((i, missing));
                break;
            }
        }
        let Some((i, missing)) = broken else {
            return removed;
        };
        let item = items.remove(i);
        if let Some(name) = item_name(&item) {
            removed.push((name, missing));
        }
    }
}

/// The names defined by `items` (top-level items and those of nested modules).
pub(crate) fn defined_names(items: &[syn::Item]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in items {
        if let Some(name) = item_name(item) {
            out.insert(name);
        }
        if let syn::Item::Mod(m) = item
            && let Some((_, inner)) = &m.content
        {
            out.extend(defined_names(inner));
        }
    }
    out
}

/// The name an item defines (impls define none).
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Mod(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Const(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The first type `item` names (unqualified, or through `self::` / `super::`) that is neither
/// defined, nor built in, nor one of its generic parameters.
fn first_undefined(item: &syn::Item, defined: &BTreeSet<String>) -> Option<String> {
    let mut refs = References::default();
    refs.visit_item_mut(&mut item.clone());
    refs.names
        .into_iter()
        .find(|name| !defined.contains(name) && !refs.generics.contains(name))
}

#[derive(Default)]
struct References {
    names: BTreeSet<String>,
    /// Generic parameters, and items defined inside function bodies.
    generics: BTreeSet<String>,
}

impl VisitMut for References {
    fn visit_generic_param_mut(&mut self, param: &mut syn::GenericParam) {
        if let syn::GenericParam::Type(t) = param {
            self.generics.insert(t.ident.to_string());
        }
        syn::visit_mut::visit_generic_param_mut(self, param);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        // Items inside function bodies are defined there.
        if let syn::Stmt::Item(item) = stmt
            && let Some(name) = item_name(item)
        {
            self.generics.insert(name);
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        if ty.qself.is_none() && ty.path.leading_colon.is_none() {
            let segments: Vec<String> = ty
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let name = match segments.as_slice() {
                [one] => Some(one),
                [first, name] if first == "self" || first == "super" => Some(name),
                _ => None,
            };
            if let Some(name) = name
                && !BUILTIN.contains(&name.as_str())
            {
                self.names.insert(name.clone());
            }
        }
        syn::visit_mut::visit_type_path_mut(self, ty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(code: &str) -> Vec<syn::Item> {
        syn::parse_file(code).expect("parses").items
    }

    #[test]
    fn a_consistent_module_is_kept_whole() {
        let mut items = items(
            "pub struct A { b: B, c: Vec<Option<String>>, d: super::D } pub enum B { X(i64) } \
             pub type D = Box<A>; impl<T: Clone> From<T> for B { fn from(_: T) -> Self { todo!() } } \
             mod helpers { fn f() { struct Local; impl Clone for Local { fn clone(&self) -> Local { Local } } } }",
        );
        assert_eq!(retain_consistent(&mut items), Vec::new());
        assert_eq!(items.len(), 5);
    }

    #[test]
    fn items_naming_a_missing_type_go_with_everything_that_names_them() {
        let mut items = items(
            "pub struct A { b: B } pub struct B { gone: Missing } pub struct C { n: i64 } \
             impl From<C> for A { fn from(_: C) -> Self { todo!() } }",
        );
        let removed = retain_consistent(&mut items);
        assert_eq!(
            removed,
            vec![
                ("A".to_owned(), "B".to_owned()),
                ("B".to_owned(), "Missing".to_owned())
            ]
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
        );
        assert_eq!(defined_names(&items), BTreeSet::from(["C".to_owned()]));
        assert_eq!(items.len(), 1, "the impl naming A went too");
    }
}
