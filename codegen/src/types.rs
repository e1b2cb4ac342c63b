//! The one place that touches typify: normalised schemas in, Rust types out.
//!
//! typify 0.8 panics on some inputs (ARCHITECTURE.md); every call is made under `catch_unwind`, and a
//! tool whose schema typify cannot handle gets `serde_json` types and a warning instead of
//! losing the whole server. A space that failed is thrown away, never added to further: when
//! all tools together fail, each is tried alone in a scratch `TypeSpace` and the ones that
//! pass are put together in a fresh one.

mod dangling;
mod defaults;
mod handwritten;
mod serde_names;
mod tidy;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::quote;
use serde_json::Value;
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use typify::{TypeSpace, TypeSpaceSettings};

use crate::contracts::Const;
use crate::fault::{self, Stage};
use crate::handoff::{Handwritten, Substitution};

/// A set of definitions to add as one unit (one tool's arguments, or its output, or a
/// server's contracts), with what the stages before typify learnt of them.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    /// The definition every caller refers to (`ListScenariosArgs`); for contracts, a label
    /// that is not a definition.
    pub root: String,
    /// Definitions, the root among them.
    pub defs: Vec<(String, Value)>,
    /// Where the definitions come from.
    pub origin: Origin,
    /// Definitions written here instead of by typify (their entry in `defs` is `{}`).
    pub handwritten: Vec<Handwritten>,
    /// Placeholder enum values and field names in `defs`, to rewrite in the Rust.
    pub substitutions: Vec<Substitution>,
    /// Constants declared beside the definitions (contracts).
    pub consts: Vec<Const>,
    /// The root's doc comment, when its schema does not describe it (`The arguments of ..`).
    pub doc: Option<String>,
}

impl Unit {
    /// A unit of `defs`, with nothing more learnt of them.
    pub(crate) fn new(root: impl Into<String>, origin: Origin, defs: Vec<(String, Value)>) -> Unit {
        Unit {
            root: root.into(),
            defs,
            origin,
            handwritten: Vec::new(),
            substitutions: Vec::new(),
            consts: Vec::new(),
            doc: None,
        }
    }
}

/// Where a unit's definitions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A tool's arguments, from its input schema (the tool's name).
    Arguments(String),
    /// A tool's result, from its output schema (the tool's name).
    Result(String),
    /// The agent contracts' TypeScript declarations. When typify fails on such a unit, only the
    /// failing definitions (and those that need them) become `serde_json::Value`, not the
    /// whole unit; a field that may be absent and may be `null` (`f?: T | null`) keeps the two
    /// apart (`Option<Option<T>>`); an `f64` is a TypeScript `number`, written as JavaScript
    /// writes it (`15000`, not `15000.0`).
    Contracts,
}

/// What typify made of the units.
pub(crate) struct Types {
    /// Items for the `types` module.
    pub items: Vec<syn::Item>,
    /// Units typify refused or panicked on, with the reason, by root name.
    pub failed: BTreeMap<String, String>,
    /// How many named types were generated.
    pub count: usize,
}

// By hand: syn's syntax trees implement `Debug` only with its `extra-traits` feature, which
// the generator does without (it is most of syn's compile time beyond `full`).
impl std::fmt::Debug for Types {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Types")
            .field("items", &self.items.len())
            .field("failed", &self.failed)
            .field("count", &self.count)
            .finish()
    }
}

fn settings(own: &[&Handwritten]) -> TypeSpaceSettings {
    let mut settings = TypeSpaceSettings::default();
    settings
        .with_derive("PartialEq".to_string())
        .with_map_type("::std::collections::BTreeMap".to_string());
    for own in own {
        // typify refers to the definition by name and leaves writing it to us.
        settings.with_replacement(own.name(), own.name(), std::iter::empty());
    }
    settings
}

/// Adds every unit to one type space; units that fail are left out and reported (for split
/// units, the failing definitions, which become `serde_json::Value`).
///
/// All units are first tried together; if that fails, each unit is checked alone, through
/// typify and the writing of its Rust, in a scratch space, then all that pass together
/// ([`one_by_one`]). Whatever fails, the failure is one unit's: the module that comes out is
/// self-consistent (every type an item names is in it), which [`dangling`] checks last.
pub(crate) fn generate(units: &[Unit]) -> Types {
    let own: Vec<&Handwritten> = units.iter().flat_map(|u| &u.handwritten).collect();
    let settings = || settings(&own);
    let (space, file, failed) = match together(units, &settings) {
        Some((space, file)) => (space, file, BTreeMap::new()),
        None => one_by_one(units, &settings),
    };
    finish(units, &own, &space, file, failed)
}

/// Every unit in one space, written, when that works and cannot differ from
/// [`one_by_one`]'s result: each unit refers only to its own definitions, so one that
/// typify refuses or cannot write alone fails beside the others too, and if none fails
/// together, none would have failed alone. Most inputs take this path, which adds and
/// writes every unit once instead of twice.
fn together(
    units: &[Unit],
    settings: &dyn Fn() -> TypeSpaceSettings,
) -> Option<(TypeSpace, syn::File)> {
    if !units.iter().all(self_contained) {
        return None;
    }
    let all: Vec<&Unit> = units.iter().collect();
    let space = space_of(&all, settings).ok()?;
    let file = render(&space, &all).ok()?;
    Some((space, file))
}

/// Whether every `#/definitions/..` reference in `unit` names one of its own definitions.
fn self_contained(unit: &Unit) -> bool {
    fn refs_ok(value: &Value, own: &BTreeSet<&str>) -> bool {
        match value {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref")
                    && !r
                        .strip_prefix("#/definitions/")
                        .is_some_and(|name| own.contains(name))
                {
                    return false;
                }
                o.values().all(|v| refs_ok(v, own))
            }
            Value::Array(a) => a.iter().all(|v| refs_ok(v, own)),
            _ => true,
        }
    }
    let own: BTreeSet<&str> = unit.defs.iter().map(|(name, _)| name.as_str()).collect();
    unit.defs.iter().all(|(_, schema)| refs_ok(schema, &own))
}

/// Each unit checked alone, through typify and the writing of its Rust, in a scratch
/// space; then all that passed together, leaving out (and starting again without) any that
/// fails there.
fn one_by_one(
    units: &[Unit],
    settings: &dyn Fn() -> TypeSpaceSettings,
) -> (TypeSpace, syn::File, BTreeMap<String, String>) {
    let check = |unit: &Unit| -> Result<(), String> {
        let mut scratch = TypeSpace::new(&settings());
        add(&mut scratch, unit)?;
        render(&scratch, &[unit]).map(drop)
    };
    let mut failed = BTreeMap::new();
    let mut owned: Vec<Unit> = Vec::new();
    for unit in units {
        match check(unit) {
            Ok(()) => owned.push(unit.clone()),
            Err(_) if unit.origin == Origin::Contracts => {
                let (fixed, failures) = split(unit, &check);
                failed.extend(failures);
                owned.push(fixed);
            }
            Err(reason) => {
                failed.insert(unit.root.clone(), reason);
            }
        }
    }
    let mut ok: Vec<&Unit> = owned.iter().collect();
    // Each unit worked alone; together they should too (names are unique by construction).
    // If one does not, leave it out and start again, so the result never depends on a space
    // typify left half-built.
    let (space, file) = loop {
        let space = match space_of(&ok, settings) {
            Ok(space) => space,
            Err((i, reason)) => {
                let unit = ok.remove(i);
                failed.insert(unit.root.clone(), reason);
                continue;
            }
        };
        match render(&space, &ok) {
            Ok(file) => break (space, file),
            Err(reason) => {
                let i = first_unwritable(&ok, settings);
                let unit = ok.remove(i);
                failed.insert(
                    unit.root.clone(),
                    format!("{reason} (beside the other tools' types)"),
                );
            }
        }
    };
    (space, file, failed)
}

/// The types module from the space typify filled and the Rust it wrote: our own types and
/// constants added, the post-passes run, and whatever names a missing type dropped.
fn finish(
    units: &[Unit],
    handwritten: &[&Handwritten],
    space: &TypeSpace,
    mut file: syn::File,
    mut failed: BTreeMap<String, String>,
) -> Types {
    let count = space.iter_types().filter(|t| !t.name().is_empty()).count();
    let mut extra_items = TokenStream::new();
    for own in handwritten {
        extra_items.extend(handwritten::emit(own));
    }
    for constant in handwritten::constants(units.iter().flat_map(|u| &u.consts)) {
        extra_items.extend(constant);
    }
    match syn::parse2::<syn::File>(extra_items) {
        Ok(more) => file.items.extend(more.items),
        Err(e) => {
            for own in handwritten {
                failed.insert(
                    own.name().to_owned(),
                    format!("post-pass: internal error: generated Rust does not parse: {e}"),
                );
            }
        }
    }
    let substitutions = units.iter().flat_map(|u| &u.substitutions);
    let typescript = units.iter().filter(|u| u.origin == Origin::Contracts);
    let mut rewrites = Rewrites {
        literals: substitutions
            .clone()
            .map(|s| (s.placeholder.clone(), s.value.clone()))
            .collect(),
        idents: substitutions
            .map(|s| (s.ident_from.clone(), s.ident_to.clone()))
            .collect(),
        three_state: typescript
            .clone()
            .flat_map(|u| three_state_fields(&u.defs))
            .collect(),
        js_numbers: typescript
            .flat_map(|u| u.defs.iter().map(|(name, _)| name.clone()))
            .collect(),
    };
    rewrites.visit_file_mut(&mut file);
    let roots: BTreeSet<&str> = units.iter().map(|u| u.root.as_str()).collect();
    let root_docs: BTreeMap<String, String> = units
        .iter()
        .filter_map(|u| Some((u.root.clone(), u.doc.clone()?)))
        .collect();
    let merged = tidy::tidy(&mut file.items, &roots, &root_docs);
    prune_defaults(&mut file);
    break_post_pass(&mut file.items, units);
    for (name, missing) in dangling::retain_consistent(&mut file.items) {
        failed.entry(name.clone()).or_insert_with(|| {
            format!(
                "self-consistency check: the generated `{name}` names `{missing}`, which is not in the module"
            )
        });
    }
    Types {
        items: file.items,
        failed,
        count: count + handwritten.len() - merged,
    }
}

/// Fields that may be absent and may be `null` (`f?: T | null`), by definition and wire name.
fn three_state_fields(defs: &[(String, Value)]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (name, schema) in defs {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (field, property) in properties {
            let nullable = property
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|any| {
                    any.iter()
                        .any(|s| s.get("type") == Some(&Value::from("null")))
                });
            if nullable && !required.contains(&field.as_str()) {
                out.insert((name.clone(), field.clone()));
            }
        }
    }
    out
}

/// One space with every unit of `units`, or the index of the first that typify refuses
/// beside the others, and why.
fn space_of(
    units: &[&Unit],
    settings: &dyn Fn() -> TypeSpaceSettings,
) -> Result<TypeSpace, (usize, String)> {
    let mut space = TypeSpace::new(&settings());
    for (i, unit) in units.iter().enumerate() {
        add(&mut space, unit).map_err(|reason| (i, reason))?;
    }
    Ok(space)
}

/// The unit whose types typify cannot write beside the ones before it: the last of the
/// shortest prefix of `units` that does not render (bisected; the whole list does not).
fn first_unwritable(units: &[&Unit], settings: &dyn Fn() -> TypeSpaceSettings) -> usize {
    let (mut lo, mut hi) = (1, units.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let renders = space_of(&units[..mid], settings)
            .is_ok_and(|space| render(&space, &units[..mid]).is_ok());
        if renders {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo.saturating_sub(1)
}

/// typify's Rust for `space` (holding `units`), parsed.
fn render(space: &TypeSpace, units: &[&Unit]) -> Result<syn::File, String> {
    // A forced failure shows only after other units, so that it passes the check of its unit
    // alone and has to be found among the others.
    let forced = units.iter().skip(1).any(|u| forced_on(u, Stage::Render));
    let tokens = guarded(|| {
        if forced {
            panic!("{}", fault::INJECTED);
        }
        space.to_stream()
    })
    .map_err(|message| format!("typify panicked writing the types: {message}"))?;
    syn::parse2(tokens).map_err(|e| format!("typify wrote Rust that does not parse: {e}"))
}

/// Whether a failure is forced on typing `unit` at `stage`: a tool's arguments fail at
/// [`Stage::Typify`], [`Stage::Render`] or [`Stage::PostPass`], its result at typify when
/// [`Stage::Output`] is forced; the contracts never do.
fn forced_on(unit: &Unit, stage: Stage) -> bool {
    match (&unit.origin, stage) {
        (Origin::Arguments(tool), Stage::Typify | Stage::Render | Stage::PostPass) => {
            fault::forced(tool, stage)
        }
        (Origin::Result(tool), Stage::Typify) => fault::forced(tool, Stage::Output),
        _ => false,
    }
}

/// The post-pass fail point ([`Stage::PostPass`]): a unit's root type is made to name a type
/// that does not exist, as a post-pass bug would.
fn break_post_pass(items: &mut [syn::Item], units: &[Unit]) {
    for unit in units {
        if !forced_on(unit, Stage::PostPass) {
            continue;
        }
        let ident = quote::format_ident!("{}", unit.root);
        for item in items.iter_mut() {
            let named = match item {
                syn::Item::Struct(s) => s.ident == ident,
                syn::Item::Enum(e) => e.ident == ident,
                syn::Item::Type(t) => t.ident == ident,
                _ => false,
            };
            if named {
                *item = syn::parse_quote!(pub type #ident = McpBindgenForcedFailure;);
            }
        }
    }
}

pub(crate) use dangling::defined_names;

/// The definitions `name` refers to, itself included, transitively.
fn closure<'a>(defs: &'a BTreeMap<&'a str, &'a Value>, name: &'a str) -> BTreeSet<&'a str> {
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref")
                    && let Some(name) = r.strip_prefix("#/definitions/")
                {
                    out.push(name);
                }
                o.values().for_each(|v| refs(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    let mut stack = vec![name];
    while let Some(next) = stack.pop() {
        if !seen.insert(next) {
            continue;
        }
        if let Some(value) = defs.get(next) {
            refs(value, &mut stack);
        }
    }
    seen
}

/// A unit typify failed on, with each definition it fails on (tried with what it refers to,
/// smallest first) replaced by `{}`; and those failures.
fn split(
    unit: &Unit,
    check: &dyn Fn(&Unit) -> Result<(), String>,
) -> (Unit, Vec<(String, String)>) {
    let mut defs: BTreeMap<String, Value> = unit.defs.iter().cloned().collect();
    let mut order: Vec<(usize, String)> = {
        let view: BTreeMap<&str, &Value> = defs.iter().map(|(k, v)| (k.as_str(), v)).collect();
        unit.defs
            .iter()
            .map(|(name, _)| (closure(&view, name).len(), name.clone()))
            .collect()
    };
    order.sort();
    let mut failures = Vec::new();
    for (_, name) in order {
        let trial = {
            let view: BTreeMap<&str, &Value> = defs.iter().map(|(k, v)| (k.as_str(), v)).collect();
            let members = closure(&view, &name);
            let defs = members
                .iter()
                .filter_map(|m| view.get(m).map(|v| ((*m).to_owned(), (*v).clone())))
                .collect();
            Unit::new(name.clone(), unit.origin.clone(), defs)
        };
        if let Err(reason) = check(&trial) {
            let description = defs.get(&name).and_then(|v| v.get("description")).cloned();
            let mut replacement = serde_json::Map::new();
            if let Some(d) = description {
                replacement.insert("description".into(), d);
            }
            defs.insert(name.clone(), Value::Object(replacement));
            failures.push((name, reason));
        }
    }
    let fixed = Unit::new(
        unit.root.clone(),
        unit.origin.clone(),
        unit.defs
            .iter()
            .map(|(name, _)| (name.clone(), defs[name].clone()))
            .collect(),
    );
    (fixed, failures)
}

/// typify registers helpers in `mod defaults` that its types do not always end up using
/// (dead code under `-D warnings`); drop the unused ones, and the module if it empties.
fn prune_defaults(file: &mut syn::File) {
    let Some(index) = file.items.iter().position(
        |item| matches!(item, syn::Item::Mod(m) if m.ident == "defaults" && m.content.is_some()),
    ) else {
        return;
    };
    let mut used = BTreeSet::new();
    for (i, item) in file.items.iter().enumerate() {
        if i != index {
            defaults_named(quote!(#item), &mut used);
        }
    }
    let syn::Item::Mod(module) = &mut file.items[index] else {
        return;
    };
    if let Some((_, items)) = &mut module.content {
        items.retain(|item| match item {
            syn::Item::Fn(f) => {
                let name = f.sig.ident.to_string();
                // A name, or a longer one it starts: a substring match on the other items'
                // text, as `defaults :: name` or `defaults::name`.
                used.range(name.clone()..)
                    .next()
                    .is_some_and(|u| u.starts_with(&name))
            }
            _ => true,
        });
        if items.is_empty() {
            file.items.remove(index);
        }
    }
}

/// Every run of identifier characters that follows `defaults :: ` or `defaults::` in the text
/// of `tokens` (a path through `defaults`, or one in a string such as serde's
/// `default = "defaults::name"`), found in one walk instead of a search of the whole text per
/// helper.
fn defaults_named(tokens: TokenStream, used: &mut BTreeSet<String>) {
    fn run(text: &str) -> &str {
        let end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len());
        &text[..end]
    }
    fn colon(tree: Option<&TokenTree>, joint: bool) -> bool {
        matches!(tree, Some(TokenTree::Punct(p))
            if p.as_char() == ':' && (!joint || p.spacing() == proc_macro2::Spacing::Joint))
    }
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => defaults_named(g.stream(), used),
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                for pattern in ["defaults :: ", "defaults::"] {
                    for (at, _) in text.match_indices(pattern) {
                        used.insert(run(&text[at + pattern.len()..]).to_owned());
                    }
                }
            }
            TokenTree::Ident(ident) => {
                if colon(trees.get(i + 1), true)
                    && colon(trees.get(i + 2), false)
                    && ident.to_string().ends_with("defaults")
                    && let Some(next) = trees.get(i + 3)
                {
                    used.insert(run(&next.to_string()).to_owned());
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

fn add(space: &mut TypeSpace, unit: &Unit) -> Result<(), String> {
    if forced_on(unit, Stage::Typify) {
        return Err(format!("typify: {}", fault::INJECTED));
    }
    let mut defs = Vec::with_capacity(unit.defs.len());
    for (name, schema) in &unit.defs {
        let schema: schemars08::schema::Schema =
            serde_json::from_value(schema.clone()).map_err(|e| {
                format!("typify: the schema of {name} is not a JSON Schema it reads: {e}")
            })?;
        defs.push((name.clone(), schema));
    }
    guarded(|| space.add_ref_types(defs))
        .map_err(|m| format!("typify panicked: {m}"))?
        .map_err(|e| format!("typify: {e}"))?;
    if !unit.defs.iter().any(|(name, _)| *name == unit.root) {
        return Ok(()); // every definition is a root (contracts)
    }
    let reference: schemars08::schema::Schema = serde_json::from_value(
        serde_json::json!({ "$ref": format!("#/definitions/{}", unit.root) }),
    )
    .map_err(|e| e.to_string())?;
    guarded(|| space.add_type(&reference))
        .map_err(|m| format!("typify panicked: {m}"))?
        .map_err(|e| format!("typify: {e}"))?;
    Ok(())
}

thread_local! {
    static GUARDED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into `Err(message)` (its first line) without printing it.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = GUARDED.with(|g| {
                let mut g = g.borrow_mut();
                if let Some(slot) = g.as_mut() {
                    *slot = info.to_string();
                    true
                } else {
                    false
                }
            });
            if !ours {
                previous(info);
            }
        }));
    });
    GUARDED.with(|g| *g.borrow_mut() = Some(String::new()));
    let result = catch_unwind(AssertUnwindSafe(f));
    let message = GUARDED.with(|g| g.borrow_mut().take()).unwrap_or_default();
    result.map_err(|_| {
        // "panicked at file:line:col:\nmessage"; keep the message's first line.
        message
            .split_once('\n')
            .map_or(message.as_str(), |(_, rest)| rest)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .trim_end_matches(':')
            .to_owned()
    })
}

/// Rewrites typify's output: crate paths go through the runtime's re-exports, placeholder enum
/// values and variant names become the real ones, `f?: T | null` fields keep `null` apart
/// from absent, TypeScript numbers are written as JavaScript writes them.
struct Rewrites {
    literals: BTreeMap<String, String>,
    idents: BTreeMap<String, String>,
    /// (struct, wire field) of `f?: T | null` fields: `Option<Option<T>>`.
    three_state: BTreeSet<(String, String)>,
    /// Definitions whose `f64`s are TypeScript `number`s.
    js_numbers: BTreeSet<String>,
}

const REEXPORTED: &[&str] = &["chrono", "regress", "uuid"];

impl VisitMut for Rewrites {
    fn visit_item_struct_mut(&mut self, item: &mut syn::ItemStruct) {
        let name = item.ident.to_string();
        if let syn::Fields::Named(fields) = &mut item.fields {
            for field in &mut fields.named {
                let Some(ident) = &field.ident else { continue };
                let wire = serde_rename(&field.attrs).unwrap_or_else(|| ident.unraw().to_string());
                let key = (name.clone(), wire);
                if self.three_state.contains(&key) {
                    three_state(field);
                }
                if self.js_numbers.contains(&name) {
                    js_number(field);
                }
            }
        }
        syn::visit_mut::visit_item_struct_mut(self, item);
    }

    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        // Struct variants of typify's tagged enums hold TypeScript numbers too.
        if self.js_numbers.contains(&item.ident.to_string()) {
            for variant in &mut item.variants {
                if let syn::Fields::Named(fields) = &mut variant.fields {
                    fields.named.iter_mut().for_each(js_number);
                }
            }
        }
        syn::visit_mut::visit_item_enum_mut(self, item);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_some()
            && path
                .segments
                .first()
                .is_some_and(|s| REEXPORTED.iter().any(|r| s.ident == r))
        {
            let prefix: syn::Path = syn::parse_quote!(::mcp_bindgen::__private);
            let rest = std::mem::take(&mut path.segments);
            path.segments = prefix.segments;
            path.segments.extend(rest);
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_ident_mut(&mut self, ident: &mut proc_macro2::Ident) {
        if let Some(name) = self.idents.get(&ident.to_string()) {
            *ident = proc_macro2::Ident::new(name, ident.span());
        }
    }

    fn visit_lit_str_mut(&mut self, lit: &mut syn::LitStr) {
        if let Some(value) = self.literals.get(&lit.value()) {
            *lit = syn::LitStr::new(value, lit.span());
        }
    }

    fn visit_field_mut(&mut self, field: &mut syn::Field) {
        syn::visit_mut::visit_field_mut(self, field);
        optional_collection(field);
    }

    fn visit_variant_mut(&mut self, variant: &mut syn::Variant) {
        // A placeholder variant needed no rename in typify's eyes; the real value does.
        if let Some(value) = self.literals.get(&variant.ident.to_string())
            && serde_rename(&variant.attrs).is_none()
        {
            variant
                .attrs
                .push(syn::parse_quote!(#[serde(rename = #value)]));
        }
        syn::visit_mut::visit_variant_mut(self, variant);
    }

    /// `#[serde(rename = "..")]` keeps its arguments as tokens, which the other visits do not
    /// reach.
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

/// typify writes an optional array or object as a `Vec`/map skipped when empty, so an
/// explicit `[]` or `{}` is never sent, and absent and empty become one value (for a tool
/// where "no list" means "all", `[]` would mean everything). Such fields become `Option<..>`
/// skipped when `None`: absent stays absent, empty stays empty.
fn optional_collection(field: &mut syn::Field) {
    const EMPTY_CHECKS: &[&str] = &[
        "::std::vec::Vec::is_empty",
        "::serde_json::Map::is_empty",
        "::std::collections::BTreeMap::is_empty",
        "::std::collections::HashMap::is_empty",
    ];
    // serde names the check in a string: only an attribute with one that mentions
    // `is_empty` is written out and searched.
    fn mentions_is_empty(tokens: &TokenStream) -> bool {
        tokens.clone().into_iter().any(|tree| match tree {
            TokenTree::Literal(lit) => lit.to_string().contains("is_empty"),
            TokenTree::Group(g) => mentions_is_empty(&g.stream()),
            _ => false,
        })
    }
    let Some(index) = field.attrs.iter().position(|a| {
        a.path().is_ident("serde")
            && matches!(&a.meta, syn::Meta::List(list) if mentions_is_empty(&list.tokens))
            && EMPTY_CHECKS
                .iter()
                .any(|check| quote!(#a).to_string().replace(' ', "").contains(check))
    }) else {
        return;
    };
    // Keep every other serde argument (`rename`, ...); replace `default` and the skip.
    let Ok(args) = field.attrs[index].parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    ) else {
        return;
    };
    let mut kept: Vec<syn::Meta> = args
        .into_iter()
        .filter(|m| !m.path().is_ident("default") && !m.path().is_ident("skip_serializing_if"))
        .collect();
    kept.push(syn::parse_quote!(default));
    kept.push(syn::parse_quote!(
        skip_serializing_if = "::std::option::Option::is_none"
    ));
    field.attrs[index] = syn::parse_quote!(#[serde(#(#kept),*)]);
    let ty = &field.ty;
    field.ty = syn::parse_quote!(::std::option::Option<#ty>);
}

/// The value of `#[serde(rename = "..")]`, the name on the wire.
fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                found = Some(lit.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// An `f64` or `Option<f64>` field is written through the runtime's `number` /
/// `optional_number`.
fn js_number(field: &mut syn::Field) {
    fn last_ident(ty: &syn::Type) -> Option<&proc_macro2::Ident> {
        match ty {
            syn::Type::Path(path) => path.path.segments.last().map(|s| &s.ident),
            syn::Type::Group(group) => last_ident(&group.elem),
            _ => None,
        }
    }
    // Either text below ends in the path segment `f64` or `Option`: skip writing out the
    // types of all other fields.
    if !last_ident(&field.ty).is_some_and(|i| i == "f64" || i == "Option") {
        return;
    }
    let ty = &field.ty;
    let text = quote!(#ty).to_string().replace(' ', "");
    let helper = match text.as_str() {
        "f64" => "number",
        "::std::option::Option<f64>" => "optional_number",
        _ => return,
    };
    let path = format!("::mcp_bindgen::__private::{helper}");
    field
        .attrs
        .push(syn::parse_quote!(#[serde(serialize_with = #path)]));
}

/// `Option<T>` + `skip_serializing_if` → `Option<Option<T>>` read through the runtime's
/// `present`: absent is `None`, `null` is `Some(None)`. typify writes a member of a recursive
/// type as `Box<Option<T>>` (absent and `null` both `None`): it becomes `Option<Box<Option<T>>>`
/// the same way.
fn three_state(field: &mut syn::Field) -> bool {
    fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
        match ty {
            syn::Type::Path(path) => path.path.segments.last(),
            _ => None,
        }
    }
    let Some(last) = last_segment(&field.ty) else {
        return false;
    };
    let boxed_option = || match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if last.ident == "Box" => {
            matches!(args.args.first(), Some(syn::GenericArgument::Type(inner))
                if last_segment(inner).is_some_and(|s| s.ident == "Option"))
        }
        _ => false,
    };
    if last.ident != "Option" && !boxed_option() {
        return false;
    }
    let inner = field.ty.clone();
    field.ty = syn::parse_quote!(::std::option::Option<#inner>);
    let rename = serde_rename(&field.attrs);
    field.attrs.retain(|a| !a.path().is_ident("serde"));
    let attr: syn::Attribute = match rename {
        Some(rename) => syn::parse_quote!(#[serde(
            rename = #rename,
            default,
            skip_serializing_if = "::std::option::Option::is_none",
            deserialize_with = "::mcp_bindgen::__private::present"
        )]),
        None => syn::parse_quote!(#[serde(
            default,
            skip_serializing_if = "::std::option::Option::is_none",
            deserialize_with = "::mcp_bindgen::__private::present"
        )]),
    };
    field.attrs.push(attr);
    true
}

impl Rewrites {
    fn tokens(&mut self, tokens: TokenStream) -> TokenStream {
        map_leaves(tokens, &mut |tree| match tree {
            TokenTree::Ident(mut ident) => {
                self.visit_ident_mut(&mut ident);
                TokenTree::Ident(ident)
            }
            TokenTree::Literal(lit) => {
                let as_str: Result<syn::LitStr, _> = syn::parse2(quote!(#lit));
                match as_str {
                    Ok(mut s) => {
                        self.visit_lit_str_mut(&mut s);
                        TokenTree::Literal(s.token())
                    }
                    Err(_) => TokenTree::Literal(lit),
                }
            }
            other => other,
        })
    }
}

/// `tokens` with every token that is not a group passed through `leaf`, groups rebuilt around
/// their rewritten contents (delimiters and spans kept): the walk the post-passes share for
/// attribute and macro tokens, which syn's visitors do not enter.
pub(super) fn map_leaves(
    tokens: TokenStream,
    leaf: &mut impl FnMut(TokenTree) -> TokenTree,
) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), map_leaves(g.stream(), leaf));
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            other => leaf(other),
        })
        .collect()
}

#[cfg(test)]
mod tests;
