//! The last pass over the `types` module: what a person would have written instead of what
//! typify writes.
//!
//! - Identical constrained newtypes (four tools that each take a 24-hex id) become one type,
//!   named from their shared description (`ObjectId`), or the words their names end with.
//! - typify's per-module helpers (`error::ConversionError`, the stock generic `defaults`) are
//!   the runtime's (`mcp_bindgen::__private`), written once there; a stock default of a `bool`
//!   or integer field then becomes a named function of the module's `defaults`
//!   (`defaults.rs`).
//! - Bounded integers are plain integers (`u64`, not `NonZeroU64`): the tool's input schema is
//!   checked against both bounds before each call, so `limit: 50` is all a caller writes.
//!   For the same reason a checked string or array that one field alone uses is plain
//!   (`String`, not a newtype whose check repeats the schema's).
//! - Conversion errors name the type and the value (`invalid ObjectId "abc": shorter than 24
//!   characters`).
//! - Defaults: a field's own type's as `#[serde(default)]`, any other as a function of
//!   `defaults` named for its field (`defaults.rs`).
//! - Serde names: one `rename_all` where a case rule gives every member's name
//!   (`serde_names.rs`).
//! - Doc comments are one `///` line per line of text, with no filler (`The x field.`):
//!   what a schema does not describe stays undescribed (the `types` module allows
//!   `missing_docs`), and markdown list and quote continuations are indented so that clippy's
//!   `doc_lazy_continuation` holds.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::quote;

use crate::docs::{dedent, doc_lines, wrap};
use syn::visit_mut::VisitMut;

/// The runtime's module for generated code.
const SUPPORT: &str = "::mcp_bindgen::__private";

/// typify's stock default functions, which generated code takes from the runtime instead of
/// defining them in every module; `default_nzu64` becomes `default_u64`, since bounded
/// integers are plain integers.
const STOCK_DEFAULTS: &[(&str, &str)] = &[
    ("default_bool", "default_bool"),
    ("default_i64", "default_i64"),
    ("default_u64", "default_u64"),
    ("default_nzu64", "default_u64"),
];

/// Tidies `items` (see the module doc); returns how many types were merged away.
pub(crate) fn tidy(
    items: &mut Vec<syn::Item>,
    roots: &BTreeSet<&str>,
    root_docs: &BTreeMap<String, String>,
) -> usize {
    shared_helpers(items);
    super::defaults::named_defaults(items);
    let merged = merge_identical(items, roots) + plain_once(items, roots);
    ConversionErrors::default().visit_items(items);
    for item in items.iter_mut() {
        Docs {
            root_docs,
            depth: Docs::TYPES_DEPTH,
        }
        .visit_item_mut(item);
    }
    super::serde_names::rename_all(items);
    merged
}

/// Drops `mod error` and the stock defaults, and points their users at the runtime; bounded
/// integers become plain.
fn shared_helpers(items: &mut Vec<syn::Item>) {
    items.retain(|item| !matches!(item, syn::Item::Mod(m) if m.ident == "error"));
    for item in items.iter_mut() {
        if let syn::Item::Mod(m) = item
            && m.ident == "defaults"
            && let Some((_, inner)) = &mut m.content
        {
            inner.retain(|item| {
                !matches!(item, syn::Item::Fn(f)
                    if STOCK_DEFAULTS.iter().any(|(stock, _)| f.sig.ident == stock))
            });
        }
    }
    for item in items.iter_mut() {
        Helpers.visit_item_mut(item);
        // Helpers of this module's own types, not for its users.
        if let syn::Item::Mod(m) = item
            && m.ident == "defaults"
        {
            m.vis = syn::Visibility::Inherited;
        }
    }
}

struct Helpers;

/// `::std::num::NonZeroU64` → `u64`, ...
fn plain_integer(path: &syn::Path) -> Option<&'static str> {
    let segments = &path.segments;
    if segments.len() != 3 || segments[0].ident != "std" || segments[1].ident != "num" {
        return None;
    }
    let ty = &segments[2];
    [
        ("NonZeroU8", "u8"),
        ("NonZeroU16", "u16"),
        ("NonZeroU32", "u32"),
        ("NonZeroU64", "u64"),
    ]
    .into_iter()
    .find(|(nonzero, _)| ty.ident == nonzero)
    .map(|(_, plain)| plain)
}

/// `::mcp_bindgen::__private::{name}` (the path [`SUPPORT`] names), built directly.
fn support_path(name: Ident) -> syn::Path {
    let span = proc_macro2::Span::call_site();
    let mut segments = syn::punctuated::Punctuated::new();
    segments.push(syn::PathSegment::from(Ident::new("mcp_bindgen", span)));
    segments.push(syn::PathSegment::from(Ident::new("__private", span)));
    segments.push(syn::PathSegment::from(name));
    syn::Path {
        leading_colon: Some(Default::default()),
        segments,
    }
}

/// The same rewrites in the text of a `#[serde(default = "..")]` path.
fn helpers_in_text(text: &str) -> String {
    // Every pattern below contains one of these.
    if !text.contains("::std::num::NonZeroU") && !text.contains("defaults::") {
        return text.to_owned();
    }
    let mut text = text.to_owned();
    for (nonzero, plain) in [
        ("NonZeroU8", "u8"),
        ("NonZeroU16", "u16"),
        ("NonZeroU32", "u32"),
        ("NonZeroU64", "u64"),
    ] {
        text = text.replace(&format!("::std::num::{nonzero}"), plain);
    }
    for (stock, ours) in STOCK_DEFAULTS {
        text = text.replace(
            &format!("defaults::{stock}::<"),
            &format!("{SUPPORT}::{ours}::<"),
        );
    }
    text
}

impl VisitMut for Helpers {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty
            && p.qself.is_none()
            && let Some(plain) = plain_integer(&p.path)
        {
            let plain = Ident::new(plain, proc_macro2::Span::call_site());
            *ty = syn::parse_quote!(#plain);
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if !matches!(path.segments.len(), 2 | 3) {
            syn::visit_mut::visit_path_mut(self, path);
            return;
        }
        let segments = &path.segments;
        let replacement = match segments.len() {
            3 if (segments[0].ident == "self" || segments[0].ident == "super")
                && segments[1].ident == "error" =>
            {
                Some(segments[2].ident.clone())
            }
            2 if segments[0].ident == "defaults" => STOCK_DEFAULTS
                .iter()
                .find(|(stock, _)| segments[1].ident == stock)
                .map(|(_, ours)| Ident::new(ours, proc_macro2::Span::call_site())),
            _ => None,
        };
        if let Some(replacement) = replacement {
            let mut new = support_path(replacement);
            let arguments = path
                .segments
                .last()
                .map(|s| s.arguments.clone())
                .unwrap_or_default();
            if let Some(last) = new.segments.last_mut() {
                last.arguments = arguments;
            }
            *path = new;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    /// `default_u64::<u64, 50>()` in a `Default` impl is `50`.
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::Call(call) = expr
            && call.args.is_empty()
            && let syn::Expr::Path(func) = &*call.func
            && let Some((_, value)) = super::defaults::stock(&func.path)
        {
            *expr = value;
        }
    }

    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        if attr.path().is_ident("serde")
            && let syn::Meta::List(list) = &mut attr.meta
        {
            list.tokens = map_strings(std::mem::take(&mut list.tokens), &helpers_in_text);
        }
    }
}

/// `tokens` with every string literal passed through `f` (the shared token walk,
/// [`map_leaves`](super::map_leaves)).
fn map_strings(tokens: TokenStream, f: &dyn Fn(&str) -> String) -> TokenStream {
    super::map_leaves(tokens, &mut |tree| match tree {
        TokenTree::Literal(lit) => {
            match syn::parse2::<syn::LitStr>(TokenTree::Literal(lit.clone()).into()) {
                Ok(s) => {
                    let value = s.value();
                    let new = f(&value);
                    if new == value {
                        // Unchanged: the literal as it was (it is what `LitStr::new` writes).
                        TokenTree::Literal(lit)
                    } else {
                        TokenTree::Literal(syn::LitStr::new(&new, s.span()).token())
                    }
                }
                Err(_) => TokenTree::Literal(lit),
            }
        }
        other => other,
    })
}

/// Renames identifiers everywhere, attribute and macro tokens included.
struct Rename<'a>(&'a BTreeMap<String, String>);

impl Rename<'_> {
    fn tokens(&mut self, tokens: TokenStream) -> TokenStream {
        super::map_leaves(tokens, &mut |tree| match tree {
            TokenTree::Ident(mut ident) => {
                self.visit_ident_mut(&mut ident);
                TokenTree::Ident(ident)
            }
            other => other,
        })
    }
}

impl VisitMut for Rename<'_> {
    fn visit_ident_mut(&mut self, ident: &mut Ident) {
        if let Some(to) = self.0.get(&ident.to_string()) {
            *ident = Ident::new(to, ident.span());
        }
    }

    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        if let syn::Meta::List(list) = &mut attr.meta {
            list.tokens = self.tokens(std::mem::take(&mut list.tokens));
        }
        syn::visit_mut::visit_attribute_mut(self, attr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        mac.tokens = self.tokens(std::mem::take(&mut mac.tokens));
        syn::visit_mut::visit_macro_mut(self, mac);
    }
}

/// A module's local types and the items that belong to each.
struct Bundles {
    /// The local type names.
    local: BTreeSet<String>,
    /// Each item's subject: the local type it defines or implements something for.
    subjects: Vec<Option<String>>,
    /// Each local type's items, by index: its bundle.
    by_name: BTreeMap<String, Vec<usize>>,
}

fn bundles(items: &[syn::Item]) -> Bundles {
    let local: BTreeSet<String> = items.iter().filter_map(defined).collect();
    let subjects: Vec<Option<String>> = items.iter().map(|i| subject(i, &local)).collect();
    let mut bundles: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, subject) in subjects.iter().enumerate() {
        if let Some(name) = subject {
            bundles.entry(name.clone()).or_default().push(i);
        }
    }
    Bundles {
        local,
        subjects,
        by_name: bundles,
    }
}

/// The name of the type an item defines.
fn defined(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Enum(e) => Some(e.ident.to_string()),
        syn::Item::Type(t) => Some(t.ident.to_string()),
        _ => None,
    }
}

/// The one identifier of a path type (`Foo`), if it is one.
fn single_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

/// The local type an impl belongs to: its self type, or for `impl From<T> for String`, `T`.
fn subject(item: &syn::Item, local: &BTreeSet<String>) -> Option<String> {
    let syn::Item::Impl(imp) = item else {
        return defined(item);
    };
    if let Some(own) = single_ident(&imp.self_ty).filter(|n| local.contains(n)) {
        return Some(own);
    }
    let (trait_path, _) = imp.trait_.as_ref()?;
    let last = trait_path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        syn::GenericArgument::Type(ty) => single_ident(ty).filter(|n| local.contains(n)),
        _ => None,
    })
}

/// The text of an item's doc attributes, joined by newlines.
fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    (!lines.is_empty()).then(|| {
        lines
            .iter()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// typify's doc for a type the schema does not describe: its name in backticks (its name
/// before a merge renamed it, too).
fn is_filler(text: &str, name: &str) -> bool {
    let text = text.trim();
    text == format!("`{name}`")
        || text
            .strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .is_some_and(|t| {
                !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
}

fn strip_docs(item: &mut syn::Item) {
    let no_docs = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| !a.path().is_ident("doc"));
    match item {
        syn::Item::Struct(s) => {
            no_docs(&mut s.attrs);
            s.fields.iter_mut().for_each(|f| no_docs(&mut f.attrs));
        }
        syn::Item::Impl(i) => no_docs(&mut i.attrs),
        _ => {}
    }
}

/// A newtype whose conversions check something (a pattern, a length, a range).
fn is_constrained(bundle: &[&syn::Item]) -> bool {
    let is_newtype = bundle.iter().any(|item| {
        matches!(item, syn::Item::Struct(s) if matches!(&s.fields, syn::Fields::Unnamed(f) if f.unnamed.len() == 1))
    });
    // Only a newtype's items are written out as text (most types are not newtypes).
    is_newtype
        && bundle.iter().any(|item| {
            let text = quote!(#item).to_string();
            text.contains("ConversionError")
                && (text.contains("return Err") || text.contains("Err ("))
        })
}

/// A contract's `type X = string`: a public `String` newtype that converts from any string.
fn is_plain_string(bundle: &[&syn::Item]) -> bool {
    let string_newtype = bundle.iter().any(|item| {
        matches!(item, syn::Item::Struct(s) if matches!(&s.fields, syn::Fields::Unnamed(f)
            if f.unnamed.len() == 1 && { let ty = &f.unnamed[0].ty; quote!(#ty).to_string().replace(' ', "") == "::std::string::String" }))
    });
    string_newtype
        && !bundle
            .iter()
            .any(|item| quote!(#item).to_string().contains("ConversionError"))
}

/// PascalCase words of a type name (`CopyScenarioArgsScenarioId` → `Copy`, `Scenario`, ..).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() || out.is_empty() {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// A word of prose that names a type (`ObjectId`, not `Id` or `hex`).
fn type_word(word: &str) -> Option<String> {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    let humps = word.chars().filter(char::is_ascii_uppercase).count();
    let valid = word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_alphanumeric())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && humps >= 2;
    valid.then(|| word.to_owned())
}

/// The longest run of words every description starts with.
fn common_prefix(descriptions: &[String]) -> Vec<String> {
    let split: Vec<Vec<&str>> = descriptions
        .iter()
        .map(|d| d.split_whitespace().collect())
        .collect();
    let Some(first) = split.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, word) in first.iter().enumerate() {
        if split.iter().all(|s| s.get(i) == Some(word)) {
            out.push((*word).to_owned());
        } else {
            break;
        }
    }
    out
}

/// The shared start of several descriptions as a sentence, without a dangling `from`.
fn sentence(words: &[String]) -> String {
    const DANGLING: &[&str] = &[
        "a", "an", "and", "as", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with",
    ];
    let mut words = words.to_vec();
    while words
        .last()
        .is_some_and(|w| DANGLING.contains(&w.to_lowercase().as_str()))
    {
        words.pop();
    }
    let text = words.join(" ");
    let text = text.trim_end_matches([',', ';', ':', ' ']);
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// Merges identical constrained newtypes into one type; returns how many types went.
fn merge_identical(items: &mut Vec<syn::Item>, roots: &BTreeSet<&str>) -> usize {
    let Bundles {
        local,
        by_name: bundles,
        ..
    } = bundles(items);
    let bundle = |name: &str| -> Vec<usize> { bundles.get(name).cloned().unwrap_or_default() };
    let groups = identical_groups(items, &local, roots, &bundle);
    let mut taken = local.clone();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut remove: BTreeSet<usize> = BTreeSet::new();
    let mut docs: BTreeMap<String, String> = BTreeMap::new();
    let mut merged = 0;
    for members in groups.values().filter(|m| m.len() > 1) {
        let described: Vec<String> = members
            .iter()
            .filter_map(|name| {
                let item = items.iter().find(|i| defined(i).as_deref() == Some(name))?;
                let syn::Item::Struct(s) = item else {
                    return None;
                };
                doc_text(&s.attrs).filter(|d| !is_filler(d, name))
            })
            .collect();
        let prefix = common_prefix(&described);
        let from_description = prefix.iter().find_map(|w| type_word(w));
        let from_names = name_from_shared_words(members);
        let first = members[0].clone();
        let mut chosen = first.clone();
        let mut doc = None;
        for candidate in [from_description, from_names].into_iter().flatten() {
            if roots.contains(candidate.as_str()) {
                continue;
            }
            if members.contains(&candidate) || !taken.contains(&candidate) {
                chosen = candidate;
                break;
            }
            // A contract's `type ObjectId = string` is the same id, unchecked: the checked
            // type takes its place and its doc.
            let existing = bundle(&candidate);
            let existing_items: Vec<&syn::Item> = existing.iter().map(|&i| &items[i]).collect();
            if is_plain_string(&existing_items) && !renames.values().any(|v| v == &candidate) {
                doc = existing_items.iter().find_map(|item| match item {
                    syn::Item::Struct(s) => doc_text(&s.attrs),
                    _ => None,
                });
                remove.extend(existing);
                merged += 1;
                chosen = candidate;
                break;
            }
        }
        // A description only some members have is theirs (a field's "Target floor"), not the
        // shared type's: the type then goes undescribed, and the fields keep their docs.
        let all_described = described.len() == members.len();
        let doc = doc.or_else(|| match described.as_slice() {
            _ if !all_described => None,
            [] => None,
            [one, rest @ ..] if rest.iter().all(|d| d == one) => Some(one.clone()),
            [one, ..] if sentence(&prefix).split_whitespace().count() < 2 => Some(one.clone()),
            _ => Some(sentence(&prefix)),
        });
        taken.insert(chosen.clone());
        for member in members {
            if member != &first {
                remove.extend(bundle(member));
                merged += 1;
            }
            if member != &chosen {
                renames.insert(member.clone(), chosen.clone());
            }
        }
        if let Some(doc) = doc {
            docs.insert(first.clone(), doc);
        }
    }
    if remove.is_empty() && renames.is_empty() {
        return 0;
    }
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        !remove.contains(&(index - 1))
    });
    for item in items.iter_mut() {
        if let syn::Item::Struct(s) = item
            && let Some(doc) = docs.get(&s.ident.to_string())
        {
            s.attrs.retain(|a| !a.path().is_ident("doc"));
            s.attrs.insert(0, doc_attr(doc));
        }
        Rename(&renames).visit_item_mut(item);
    }
    merged
}

/// The constrained bundles of `local` (the roots aside) that are identical, docs aside and the
/// name made neutral: by their text, each with its members' names.
fn identical_groups(
    items: &[syn::Item],
    local: &BTreeSet<String>,
    roots: &BTreeSet<&str>,
    bundle: &impl Fn(&str) -> Vec<usize>,
) -> BTreeMap<String, Vec<String>> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in local {
        if roots.contains(name.as_str()) {
            continue;
        }
        let indices = bundle(name);
        let members: Vec<&syn::Item> = indices.iter().map(|&i| &items[i]).collect();
        if !is_constrained(&members) {
            continue;
        }
        let renames = BTreeMap::from([(name.clone(), "McpBindgenShared".to_owned())]);
        let key: String = members
            .iter()
            .map(|item| {
                let mut item = (*item).clone();
                strip_docs(&mut item);
                Rename(&renames).visit_item_mut(&mut item);
                quote!(#item).to_string()
            })
            .collect();
        groups.entry(key).or_default().push(name.clone());
    }
    groups
}

/// The name the members' names end with in common, when those words say what the type is:
/// `Floor` from `MoveToFloor` and `StepFloor`; not one vague word (`Item`, `Value`).
fn name_from_shared_words(members: &[String]) -> Option<String> {
    let split: Vec<Vec<String>> = members.iter().map(|m| words(m)).collect();
    let mut suffix: Vec<String> = Vec::new();
    'outer: for i in 1.. {
        let mut word = None;
        for w in &split {
            let Some(this) = w.len().checked_sub(i).and_then(|at| w.get(at)) else {
                break 'outer;
            };
            match &word {
                None => word = Some(this.clone()),
                Some(other) if other == this => {}
                Some(_) => break 'outer,
            }
        }
        suffix.insert(0, word.unwrap_or_default());
    }
    // One word names a type when it says what it is (`Floor`), not where (`Item`).
    const VAGUE: &[&str] = &[
        "Args", "Data", "Inner", "Item", "Kind", "Output", "Type", "Value", "Variant",
    ];
    let specific = match suffix.as_slice() {
        [] => false,
        [one] => one.len() >= 4 && !VAGUE.contains(&one.as_str()),
        _ => true,
    };
    specific.then(|| suffix.concat())
}

/// A checked string or array newtype that one field alone uses (`CopyScenarioArgsName` for
/// "at most 120 characters") becomes that field's plain type (`String`): the tool's input
/// schema is checked before each call, so the newtype's own check only repeated it and made a
/// caller write `"x".try_into()?` for a plain string. A newtype that is shared (merged above,
/// `ObjectId`) or named (a root: a tool's arguments or result, a contract's type) stays.
/// Returns how many types went.
fn plain_once(items: &mut Vec<syn::Item>, roots: &BTreeSet<&str>) -> usize {
    let Bundles {
        local,
        subjects,
        by_name: bundles,
    } = bundles(items);
    let mut plain: BTreeMap<String, syn::Type> = BTreeMap::new();
    for name in local.iter().filter(|n| !roots.contains(n.as_str())) {
        let members: Vec<&syn::Item> = bundles
            .get(name)
            .map(|indices| indices.iter().map(|&i| &items[i]).collect())
            .unwrap_or_default();
        let inner = members.iter().find_map(|item| match item {
            syn::Item::Struct(s) => match &s.fields {
                syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => Some(f.unnamed[0].ty.clone()),
                _ => None,
            },
            _ => None,
        });
        let Some(inner) = inner else { continue };
        let text = quote!(#inner).to_string().replace(' ', "");
        let string_or_array =
            text == "::std::string::String" || text.starts_with("::std::vec::Vec<");
        if string_or_array && is_constrained(&members) {
            plain.insert(name.clone(), inner);
        }
    }
    if plain.is_empty() {
        return 0;
    }
    let mut uses = Uses {
        names: &plain,
        count: BTreeMap::new(),
    };
    // Counted with the mutable visitor (syn's read-only one is not compiled in); it changes
    // nothing.
    for (item, subject) in items.iter_mut().zip(&subjects) {
        if subject.as_ref().is_none_or(|s| !plain.contains_key(s)) {
            uses.visit_item_mut(item);
        }
    }
    let count = uses.count;
    plain.retain(|name, _| count.get(name) == Some(&1));
    if plain.is_empty() {
        return 0;
    }
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        subjects[index - 1]
            .as_ref()
            .is_none_or(|s| !plain.contains_key(s))
    });
    let mut plainer = Plainer(&plain);
    for item in items.iter_mut() {
        plainer.visit_item_mut(item);
    }
    plain.len()
}

/// Counts the paths naming each of `names` (`X`, `super::X`).
struct Uses<'a> {
    names: &'a BTreeMap<String, syn::Type>,
    count: BTreeMap<String, usize>,
}

impl VisitMut for Uses<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(last) = path.segments.last() {
            let name = last.ident.to_string();
            if self.names.contains_key(&name) {
                *self.count.entry(name).or_default() += 1;
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}

/// Puts each newtype's plain type where the newtype was named.
struct Plainer<'a>(&'a BTreeMap<String, syn::Type>);

impl VisitMut for Plainer<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let Some(plain) = single_ident(ty).and_then(|name| self.0.get(&name)) {
            *ty = plain.clone();
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `Err("shorter than 24 characters".into())` in a conversion → an error that names the type
/// and the value.
#[derive(Default)]
struct ConversionErrors {
    /// The type being converted to, inside a `FromStr` / `TryFrom` impl.
    ty: Option<String>,
    /// Whether the function being visited has a `value` parameter.
    has_value: bool,
}

impl ConversionErrors {
    fn visit_items(&mut self, items: &mut [syn::Item]) {
        for item in items {
            self.visit_item_mut(item);
        }
    }
}

impl VisitMut for ConversionErrors {
    /// Only impls (and the modules that hold them) can hold a conversion: the rest of the
    /// module (structs, enums, free functions, whose bodies hold no items in what typify and
    /// `own` write) is not walked.
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if matches!(item, syn::Item::Impl(_) | syn::Item::Mod(_)) {
            syn::visit_mut::visit_item_mut(self, item);
        }
    }

    fn visit_item_impl_mut(&mut self, imp: &mut syn::ItemImpl) {
        let conversion = imp.trait_.as_ref().is_some_and(|(path, _)| {
            path.segments
                .last()
                .is_some_and(|s| s.ident == "FromStr" || s.ident == "TryFrom")
        });
        if !conversion {
            // Nothing to rewrite outside a conversion (see `visit_item_mut`).
            return;
        }
        self.ty = single_ident(&imp.self_ty);
        syn::visit_mut::visit_item_impl_mut(self, imp);
        self.ty = None;
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        self.has_value = f.sig.inputs.iter().any(|arg| {
            matches!(arg, syn::FnArg::Typed(t) if matches!(&*t.pat, syn::Pat::Ident(p) if p.ident == "value"))
        });
        syn::visit_mut::visit_impl_item_fn_mut(self, f);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let (Some(ty), true) = (&self.ty, self.has_value)
            && let syn::Expr::Call(call) = expr
            && matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("Err"))
            && call.args.len() == 1
            && let Some(syn::Expr::MethodCall(into)) = call.args.first()
            && into.method == "into"
            && into.args.is_empty()
        {
            let reason = match &*into.receiver {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) if s.value() == "invalid value" => quote!("not one of its values"),
                other => quote!(#other),
            };
            *expr = syn::parse_quote!(Err(::mcp_bindgen::__private::ConversionError::new(
                #ty, &value, #reason
            )));
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}

/// Doc comments: no filler, one line per attribute, continuations indented, long lines
/// broken so that none passes 100 columns where it is printed.
struct Docs<'a> {
    root_docs: &'a BTreeMap<String, String>,
    /// How many indents deep the item being walked is printed: an item of the `types` module
    /// is two deep when the module is wrapped in a `pub mod` of its own.
    depth: usize,
}

impl Docs<'_> {
    /// The depth of the items of the `types` module.
    const TYPES_DEPTH: usize = 2;

    /// The width of a doc's text at the current depth, less `/// `.
    fn width(&self) -> usize {
        (100 - 4usize).saturating_sub(4 * self.depth).max(40)
    }

    /// Walks what is inside an item one indent deeper.
    fn deeper(&mut self, walk: impl FnOnce(&mut Self)) {
        self.depth += 1;
        walk(self);
        self.depth -= 1;
    }

    fn fix(&self, attrs: &mut Vec<syn::Attribute>, name: Option<&str>) {
        let text = doc_text(attrs);
        let Some(at) = attrs.iter().position(|a| a.path().is_ident("doc")) else {
            if let Some(doc) = name.and_then(|n| self.root_docs.get(n)) {
                attrs.splice(0..0, doc_attrs(&wrap(doc, self.width())));
            }
            return;
        };
        attrs.retain(|a| !a.path().is_ident("doc"));
        let text = match (text, name) {
            (Some(text), Some(name)) if is_filler(&text, name) => match self.root_docs.get(name) {
                Some(doc) => doc.clone(),
                None => return,
            },
            (Some(text), _) => text,
            (None, _) => return,
        };
        let at = at.min(attrs.len());
        attrs.splice(at..at, doc_attrs(&wrap(&dedent(&text), self.width())));
    }
}

impl VisitMut for Docs<'_> {
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        let name = defined(item);
        match item {
            syn::Item::Struct(s) => self.fix(&mut s.attrs, name.as_deref()),
            syn::Item::Enum(e) => self.fix(&mut e.attrs, name.as_deref()),
            syn::Item::Type(t) => self.fix(&mut t.attrs, name.as_deref()),
            syn::Item::Mod(m) => self.fix(&mut m.attrs, None),
            syn::Item::Const(c) => self.fix(&mut c.attrs, None),
            syn::Item::Fn(f) => self.fix(&mut f.attrs, None),
            _ => {}
        }
        self.deeper(|docs| syn::visit_mut::visit_item_mut(docs, item));
    }

    fn visit_field_mut(&mut self, field: &mut syn::Field) {
        self.fix(&mut field.attrs, None);
        syn::visit_mut::visit_field_mut(self, field);
    }

    fn visit_variant_mut(&mut self, variant: &mut syn::Variant) {
        self.fix(&mut variant.attrs, None);
        self.deeper(|docs| syn::visit_mut::visit_variant_mut(docs, variant));
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        self.fix(&mut f.attrs, None);
        syn::visit_mut::visit_impl_item_fn_mut(self, f);
    }

    fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
        self.fix(&mut c.attrs, None);
        syn::visit_mut::visit_impl_item_const_mut(self, c);
    }

    /// Function bodies carry no doc comments in what typify and `own` write: not walked.
    fn visit_block_mut(&mut self, _: &mut syn::Block) {}
}

/// `#[doc = " line"]` attributes for `text`, one per line (see [`doc_lines`]).
fn doc_attrs(text: &str) -> Vec<syn::Attribute> {
    doc_lines(text).iter().map(|line| doc_attr(line)).collect()
}

/// `#[doc = "line"]`, built directly (what `parse_quote!(#[doc = #line])` makes, without
/// writing and parsing tokens).
fn doc_attr(line: &str) -> syn::Attribute {
    let span = proc_macro2::Span::call_site();
    syn::Attribute {
        pound_token: Default::default(),
        style: syn::AttrStyle::Outer,
        bracket_token: Default::default(),
        meta: syn::Meta::NameValue(syn::MetaNameValue {
            path: Ident::new("doc", span).into(),
            eq_token: Default::default(),
            value: syn::Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: syn::Lit::Str(syn::LitStr::new(line, span)),
            }),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(code: &str, roots: &[&str]) -> String {
        let mut items = syn::parse_file(code).expect("parses").items;
        let roots: BTreeSet<&str> = roots.iter().copied().collect();
        tidy(&mut items, &roots, &BTreeMap::new());
        let mut file = syn::parse_file("").expect("an empty file parses");
        file.items = items;
        prettyplease::unparse(&file)
    }

    const ID: &str = r#"
        #[doc = "24-char hex ObjectId from NAME"]
        pub struct NAME(::std::string::String);
        impl ::std::str::FromStr for NAME {
            type Err = self::error::ConversionError;
            fn from_str(value: &str) -> ::std::result::Result<Self, self::error::ConversionError> {
                if value.len() != 24 { return Err("not 24 characters".into()); }
                Ok(Self(value.to_string()))
            }
        }
        impl ::std::convert::From<NAME> for ::std::string::String {
            fn from(value: NAME) -> Self { value.0 }
        }
    "#;

    #[test]
    fn a_checked_string_one_field_uses_is_a_plain_string_and_a_shared_one_stays() {
        let newtype = |name: &str| {
            format!(
                r#"
                pub struct {name}(::std::string::String);
                impl ::std::str::FromStr for {name} {{
                    type Err = self::error::ConversionError;
                    fn from_str(value: &str) -> ::std::result::Result<Self, self::error::ConversionError> {{
                        if value.chars().count() > 120usize {{ return Err("longer than 120 characters".into()); }}
                        Ok(Self(value.to_string()))
                    }}
                }}
                impl ::std::convert::From<{name}> for ::std::string::String {{
                    fn from(value: {name}) -> Self {{ value.0 }}
                }}
                "#
            )
        };
        let code = format!(
            "{}{}
            pub struct CopyArgs {{ pub name: ::std::option::Option<CopyArgsName>, pub tag: Tag }}
            pub struct OtherArgs {{ pub tag: Tag }}",
            newtype("CopyArgsName"),
            newtype("Tag"),
        );
        let mut file: syn::File = syn::parse_str(&code).expect("parses");
        let roots = BTreeSet::from(["CopyArgs", "OtherArgs"]);
        assert_eq!(plain_once(&mut file.items, &roots), 1);
        let out = prettyplease::unparse(&file);
        assert!(
            out.contains("pub name: ::std::option::Option<::std::string::String>"),
            "{out}"
        );
        assert!(!out.contains("CopyArgsName"), "{out}");
        assert!(
            out.contains("pub struct Tag(") && out.contains("pub tag: Tag"),
            "{out}"
        );
        // A root (a tool's own type, or a contract's) stays whatever uses it.
        let mut file: syn::File = syn::parse_str(&code).expect("parses");
        let roots = BTreeSet::from(["CopyArgs", "OtherArgs", "CopyArgsName"]);
        assert_eq!(plain_once(&mut file.items, &roots), 0);
    }

    #[test]
    fn identical_constrained_newtypes_become_one_named_from_their_description() {
        let code = format!(
            "{}{}pub struct AArgs {{ pub id: AArgsId }} pub struct BArgs {{ pub ids: Vec<BArgsIdsItem> }}",
            ID.replace("NAME", "AArgsId"),
            ID.replace("NAME", "BArgsIdsItem")
        );
        let out = merged(&code, &["AArgs", "BArgs"]);
        assert_eq!(out.matches("pub struct ObjectId(").count(), 1, "{out}");
        assert!(out.contains("pub id: ObjectId"), "{out}");
        assert!(out.contains("pub ids: Vec<ObjectId>"), "{out}");
        assert!(
            !out.contains("AArgsId") && !out.contains("BArgsIdsItem"),
            "{out}"
        );
        let flat: String = out.split_whitespace().collect();
        assert!(
            flat.contains(r#"ConversionError::new("ObjectId",&value,"not24characters",)"#),
            "{out}"
        );
        assert!(out.contains("/// 24-char hex ObjectId.\n"), "{out}");
    }

    #[test]
    fn different_constraints_stay_apart() {
        let other = ID.replace("NAME", "BArgsId").replace("!= 24", "!= 12");
        let code = format!("{}{other}", ID.replace("NAME", "AArgsId"));
        let out = merged(&code, &[]);
        assert!(
            out.contains("struct AArgsId(") && out.contains("struct BArgsId("),
            "{out}"
        );
    }

    #[test]
    fn a_contract_alias_of_the_same_name_gives_way_and_its_doc() {
        let code = format!(
            "{}{}{}",
            ID.replace("NAME", "AArgsId"),
            ID.replace("NAME", "BArgsId"),
            r#"#[doc = "An id, as the tools take it."] pub struct ObjectId(pub ::std::string::String);
            impl ::std::str::FromStr for ObjectId {
                type Err = ::std::convert::Infallible;
                fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> { Ok(Self(value.to_string())) }
            }"#
        );
        let out = merged(&code, &[]);
        assert_eq!(out.matches("pub struct ObjectId").count(), 1, "{out}");
        assert!(out.contains("/// An id, as the tools take it."), "{out}");
        assert!(
            out.contains("struct ObjectId(::std::string::String)"),
            "{out}"
        );
    }

    #[test]
    fn bounded_integers_are_plain_and_stock_defaults_are_named_functions() {
        let out = merged(
            r#"pub struct A {
                #[serde(default = "defaults::default_nzu64::<::std::num::NonZeroU64, 50>")]
                pub limit: ::std::num::NonZeroU64,
            }
            pub mod defaults {
                pub(super) fn default_nzu64<T, const V: u64>() -> T { todo!() }
            }
            pub mod error { pub struct ConversionError; }"#,
            &["A"],
        );
        assert!(out.contains("pub limit: u64"), "{out}");
        assert!(out.contains(r#"default = "defaults::a_limit""#), "{out}");
        assert!(
            out.contains("pub(super) fn a_limit() -> u64 {\n        50\n    }"),
            "{out}"
        );
        assert!(
            !out.contains("mod error") && !out.contains("fn default_nzu64"),
            "{out}"
        );
    }
}
