//! The last pass over a generated module: paths as a person writes them.
//!
//! The stages before write every path in full (`::std::option::Option`, `::serde_json::Value`),
//! which means the same thing wherever it lands. This pass writes what a person would: prelude
//! names bare (`Option`, `String`), the names a module uses from elsewhere imported once at its
//! top (`use serde_json::{Map, Value};`), and other paths into the crates generated code
//! depends on without the leading `::` (`serde::de::Error`).
//!
//! Nothing the server names can collide with what it imports: a name a module defines itself
//! (a server's type called `Value`, `Error` or `String`) keeps the full path in that module,
//! and each module (the client's, `types`, `schemas`, `tools`, typify's `defaults`) is judged by its own
//! names, since a `use` reaches no further than its module.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit_mut::VisitMut;

/// A path prefix and what it becomes.
struct Rule {
    /// The full path, without the leading `::`.
    full: &'static [&'static str],
    /// Whether its last segment is imported (`use full;`) rather than already in scope (the
    /// prelude) or a crate name.
    import: bool,
}

/// The rules, the longest prefix first within each crate; a path takes the first rule whose
/// prefix it starts with and whose short name the module leaves free. The crate names last:
/// anything else in those crates keeps its path, without the leading `::`.
const RULES: &[Rule] = &[
    // The prelude of every edition.
    rule(&["std", "string", "String"], false),
    rule(&["std", "option", "Option"], false),
    rule(&["std", "result", "Result"], false),
    rule(&["std", "vec", "Vec"], false),
    rule(&["std", "boxed", "Box"], false),
    rule(&["std", "default", "Default"], false),
    rule(&["std", "convert", "From"], false),
    rule(&["std", "format_args"], false),
    rule(&["std", "marker", "Send"], false),
    rule(&["std", "marker", "Sync"], false),
    // In the prelude since edition 2021 only: imported, so that any edition compiles it.
    rule(&["std", "convert", "TryFrom"], true),
    rule(&["std", "str", "FromStr"], true),
    rule(&["std", "ops", "Deref"], true),
    rule(&["std", "fmt"], true),
    rule(&["std", "sync", "LazyLock"], true),
    // In the prelude since edition 2024 only.
    rule(&["std", "future", "Future"], true),
    rule(&["serde", "Deserialize"], true),
    rule(&["serde", "Serialize"], true),
    rule(&["serde", "Deserializer"], true),
    rule(&["serde", "Serializer"], true),
    rule(&["serde_json", "Map"], true),
    rule(&["serde_json", "Value"], true),
    rule(&["mcp_bindgen", "CallToolResult"], true),
    rule(&["mcp_bindgen", "DriftReport"], true),
    rule(&["mcp_bindgen", "Error"], true),
    rule(&["mcp_bindgen", "Provenance"], true),
    rule(&["mcp_bindgen", "TaskHandle"], true),
    rule(&["mcp_bindgen", "ToolCaller"], true),
    rule(&["mcp_bindgen", "ToolDescriptor"], true),
    rule(&["mcp_bindgen", "ToolSchema"], true),
    rule(&["mcp_bindgen", "ToolError"], true),
    rule(&["mcp_bindgen", "NoArguments"], true),
    rule(&["mcp_bindgen", "__private", "ConversionError"], true),
    // The events extension's types and calls, by their module (`events::EventStream<..>`,
    // `events::poll(..)`): a bare `poll` or `stream` would say little.
    rule(&["mcp_bindgen", "events"], true),
    rule(&["std"], false),
    rule(&["serde"], false),
    rule(&["serde_json"], false),
    rule(&["mcp_bindgen"], false),
];

const fn rule(full: &'static [&'static str], import: bool) -> Rule {
    Rule { full, import }
}

impl Rule {
    /// The name the path is written with from now on: the prefix's last segment.
    fn short(&self) -> &'static str {
        self.full[self.full.len() - 1]
    }
}

/// Shortens the paths of `items` (a module's items, and those of the modules within) and
/// puts the imports they need at the top of each module.
pub(crate) fn shorten(items: &mut Vec<syn::Item>) {
    let defined = defined(items);
    let mut pass = Shorten {
        defined: &defined,
        imports: BTreeMap::new(),
    };
    for item in items.iter_mut() {
        pass.visit_item_mut(item);
    }
    let imports = pass.imports;
    for item in items.iter_mut() {
        if let syn::Item::Mod(m) = item
            && let Some((_, inner)) = &mut m.content
        {
            shorten(inner);
        }
    }
    let uses = use_items(&imports);
    items.splice(0..0, uses);
}

/// The names `items` define (or import) in their module: a path starting with one of these
/// means the module's own item, so a short name equal to it is never introduced.
fn defined(items: &[syn::Item]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for item in items {
        let ident = match item {
            syn::Item::Const(i) => Some(&i.ident),
            syn::Item::Enum(i) => Some(&i.ident),
            syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |(_, r)| r)),
            syn::Item::Fn(i) => Some(&i.sig.ident),
            syn::Item::Macro(i) => i.ident.as_ref(),
            syn::Item::Mod(i) => Some(&i.ident),
            syn::Item::Static(i) => Some(&i.ident),
            syn::Item::Struct(i) => Some(&i.ident),
            syn::Item::Trait(i) => Some(&i.ident),
            syn::Item::TraitAlias(i) => Some(&i.ident),
            syn::Item::Type(i) => Some(&i.ident),
            syn::Item::Union(i) => Some(&i.ident),
            syn::Item::Use(i) => {
                use_names(&i.tree, &mut names);
                None
            }
            _ => None,
        };
        if let Some(ident) = ident {
            names.insert(ident.to_string());
        }
    }
    names
}

fn use_names(tree: &syn::UseTree, names: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, names),
        syn::UseTree::Name(n) => {
            names.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            names.insert(r.rename.to_string());
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, names)),
    }
}

/// The `use` items for `imports` (short name to its full path): `std` first, then the other
/// crates, one item per crate with its names in order.
fn use_items(imports: &BTreeMap<&'static str, &'static [&'static str]>) -> Vec<syn::Item> {
    let mut by_parent: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for full in imports.values() {
        let (last, parent) = full.split_last().unwrap_or((&"", &[]));
        by_parent.entry(parent.join("::")).or_default().push(last);
    }
    // In the order rustfmt sorts them, `std` first: by the first path each line imports.
    let mut lines: Vec<(String, Vec<&str>)> = by_parent.into_iter().collect();
    lines.sort_by_cached_key(|(parent, names)| {
        (
            !(parent == "std" || parent.starts_with("std::")),
            format!("{parent}::{}", names[0]),
        )
    });
    lines
        .into_iter()
        .map(|(parent, names)| {
            let text = match names.as_slice() {
                [one] => format!("use {parent}::{one};"),
                many => format!("use {parent}::{{{}}};", many.join(", ")),
            };
            syn::parse_str(&text).unwrap_or_else(|e| unreachable!("`{text}` parses: {e}"))
        })
        .collect()
}

struct Shorten<'a> {
    defined: &'a BTreeSet<String>,
    /// Short name to full path, for the `use` lines.
    imports: BTreeMap<&'static str, &'static [&'static str]>,
}

impl Shorten<'_> {
    /// The rule for a path of `segments` (after the leading `::`), if one applies here.
    fn rule_for(&self, segments: &[String]) -> Option<&'static Rule> {
        RULES.iter().find(|rule| {
            rule.full.len() <= segments.len()
                && rule.full.iter().zip(segments).all(|(a, b)| a == b)
                && !self.defined.contains(rule.short())
                && self
                    .imports
                    .get(rule.short())
                    .is_none_or(|taken| *taken == rule.full)
        })
    }

    /// Takes `rule` for a path: remembers the import it needs.
    fn take(&mut self, rule: &'static Rule) {
        if rule.import {
            self.imports.insert(rule.short(), rule.full);
        }
    }

    /// A path written in a string (serde's `default = "..."`, `skip_serializing_if`), shortened
    /// the same way: `"::std::option::Option::is_none"` becomes `"Option::is_none"`.
    fn shorten_text(&mut self, text: &str) -> Option<String> {
        let rest = text.strip_prefix("::")?;
        let end = rest.find('<').unwrap_or(rest.len());
        let (path, generics) = rest.split_at(end);
        let generics_sep = path.ends_with("::");
        let segments: Vec<String> = path
            .trim_end_matches("::")
            .split("::")
            .map(str::to_owned)
            .collect();
        let rule = self.rule_for(&segments)?;
        self.take(rule);
        let mut short = vec![rule.short().to_owned()];
        short.extend(segments[rule.full.len()..].iter().cloned());
        let mut text = short.join("::");
        if generics_sep {
            text.push_str("::");
        }
        text.push_str(generics);
        Some(text)
    }
}

impl VisitMut for Shorten<'_> {
    fn visit_item_mod_mut(&mut self, _: &mut syn::ItemMod) {
        // A module within is judged by its own names (see `shorten`).
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_some() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(rule) = self.rule_for(&segments) {
                self.take(rule);
                let kept: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> = path
                    .segments
                    .iter()
                    .skip(rule.full.len() - 1)
                    .cloned()
                    .collect();
                path.leading_colon = None;
                path.segments = kept;
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        let before = ty.path.segments.len();
        syn::visit_mut::visit_type_path_mut(self, ty);
        keep_qself(ty.qself.as_mut(), before, ty.path.segments.len());
    }

    fn visit_expr_path_mut(&mut self, expr: &mut syn::ExprPath) {
        let before = expr.path.segments.len();
        syn::visit_mut::visit_expr_path_mut(self, expr);
        keep_qself(expr.qself.as_mut(), before, expr.path.segments.len());
    }

    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        if attr.path().is_ident("derive") {
            // `#[derive(::serde::Deserialize, Clone)]`: the derives are tokens to syn.
            let parser = syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
            if let Ok(mut paths) = attr.parse_args_with(parser)
                && let syn::Meta::List(list) = &mut attr.meta
            {
                paths.iter_mut().for_each(|path| self.visit_path_mut(path));
                list.tokens = quote::quote!(#paths);
            }
            return;
        }
        if !attr.path().is_ident("serde") {
            syn::visit_mut::visit_attribute_mut(self, attr);
            return;
        }
        let syn::Meta::List(list) = &mut attr.meta else {
            return;
        };
        let tokens = std::mem::take(&mut list.tokens);
        list.tokens = tokens
            .into_iter()
            .map(|tree| match tree {
                proc_macro2::TokenTree::Literal(lit) => {
                    let parsed = syn::parse_str::<syn::LitStr>(&lit.to_string()).ok();
                    match parsed.and_then(|s| self.shorten_text(&s.value())) {
                        Some(short) => {
                            let mut new = proc_macro2::Literal::string(&short);
                            new.set_span(lit.span());
                            proc_macro2::TokenTree::Literal(new)
                        }
                        None => proc_macro2::TokenTree::Literal(lit),
                    }
                }
                other => other,
            })
            .collect();
    }
}

/// `<T as path::Trait>::item` counts the trait's segments in `position`: a shortened trait
/// path has fewer.
fn keep_qself(qself: Option<&mut syn::QSelf>, before: usize, after: usize) {
    if let Some(qself) = qself {
        qself.position -= before - after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortened(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).expect("test code parses");
        shorten(&mut file.items);
        prettyplease::unparse(&file)
    }

    #[test]
    fn prelude_names_are_bare_and_others_imported_once() {
        let out = shortened(
            r#"
            pub struct A {
                pub name: ::std::option::Option<::std::string::String>,
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub extra: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            }
            impl ::std::fmt::Display for A {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { Ok(()) }
            }
            fn f() -> ::serde_json::Value { ::serde_json::to_value(1).unwrap() }
            "#,
        );
        assert_eq!(
            out,
            r#"use std::fmt;
use serde_json::{Map, Value};
pub struct A {
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Map<String, Value>,
}
impl fmt::Display for A {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}
fn f() -> Value {
    serde_json::to_value(1).unwrap()
}
"#
        );
    }

    #[test]
    fn a_name_the_module_defines_keeps_the_full_path() {
        let out = shortened(
            r#"
            pub struct Value { pub inner: ::serde_json::Value }
            pub enum String { A }
            pub struct B { pub s: ::std::string::String, pub v: ::std::vec::Vec<Value> }
            "#,
        );
        assert!(out.contains("pub inner: serde_json::Value"), "{out}");
        assert!(out.contains("pub s: std::string::String"), "{out}");
        assert!(out.contains("pub v: Vec<Value>"), "{out}");
        assert!(!out.contains("use serde_json"), "{out}");
    }

    #[test]
    fn each_module_imports_what_it_uses() {
        let out = shortened(
            r#"
            pub mod types {
                pub struct A(pub ::serde_json::Value);
                mod defaults {
                    pub(super) fn a() -> ::serde_json::Value { ::serde_json::Value::Null }
                }
            }
            pub fn g() -> ::std::result::Result<(), ::mcp_bindgen::Error> { Ok(()) }
            "#,
        );
        assert_eq!(out.matches("use serde_json::Value;").count(), 2, "{out}");
        assert!(out.starts_with("use mcp_bindgen::Error;\n"), "{out}");
        assert!(out.contains("pub fn g() -> Result<(), Error>"), "{out}");
    }

    #[test]
    fn derives_and_qualified_paths_are_shortened_too() {
        let out = shortened(
            r#"
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone)]
            pub struct A(u8);
            fn f<D: ::serde::Deserializer<'static>>(e: D::Error) -> ::std::string::String {
                <A as ::std::fmt::Display>::to_string(&A(0))
            }
            "#,
        );
        assert!(
            out.contains("#[derive(Deserialize, Serialize, Clone)]"),
            "{out}"
        );
        assert!(
            out.contains("use serde::{Deserialize, Deserializer, Serialize};"),
            "{out}"
        );
        assert!(
            out.contains("<A as fmt::Display>::to_string(&A(0))"),
            "{out}"
        );
    }

    #[test]
    fn the_generated_shape_of_generic_helpers_survives() {
        let out = shortened(
            r#"
            pub struct A {
                #[serde(default = "::mcp_bindgen::__private::default_u64::<u64, 5>")]
                pub n: u64,
            }
            "#,
        );
        assert!(
            out.contains(r#"default = "mcp_bindgen::__private::default_u64::<u64, 5>""#),
            "{out}"
        );
    }
}
