//! `#[mcp(name = "..", title = "..", description = "..", read_only, destructive, idempotent,
//! open_world, when_crashed, task = "optional" | "required")]` (a prompt takes the first three).

use proc_macro2::Span;
use syn::LitStr;

/// A boolean hint with the span that set it.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub value: bool,
    pub span: Span,
}

#[derive(Default)]
pub(crate) struct Attrs {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    pub when_crashed: Option<Flag>,
    /// `task = "optional"` or `"required"`: whether calls may (or must) run as tasks.
    pub task: Option<LitStr>,
}

const KNOWN: &str = "name, title, description, read_only, destructive, idempotent, open_world, \
                     when_crashed, task";

/// The attributes `#[derive(McpPrompt)]` takes (a prompt has no behaviour hints).
const PROMPT_KNOWN: &str = "name, title, description";

pub(crate) fn parse(attrs: &[syn::Attribute], derive: Derive) -> syn::Result<Attrs> {
    let known = match derive {
        Derive::Tool => KNOWN,
        Derive::Prompt => PROMPT_KNOWN,
    };
    let mut out = Attrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("mcp")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if derive == Derive::Prompt && !matches!(key.as_str(), "name" | "title" | "description")
            {
                return Err(meta.error(format!(
                    "unknown mcp attribute for a prompt; expected one of: {known}"
                )));
            }
            match key.as_str() {
                "name" => set_str(&mut out.name, &meta, &key),
                "title" => set_str(&mut out.title, &meta, &key),
                "description" => set_str(&mut out.description, &meta, &key),
                "read_only" => set_flag(&mut out.read_only, &meta, &key),
                "destructive" => set_flag(&mut out.destructive, &meta, &key),
                "idempotent" => set_flag(&mut out.idempotent, &meta, &key),
                "open_world" => set_flag(&mut out.open_world, &meta, &key),
                "when_crashed" => set_flag(&mut out.when_crashed, &meta, &key),
                "task" => {
                    set_str(&mut out.task, &meta, &key)?;
                    match out.task.as_ref().map(LitStr::value).as_deref() {
                        Some("optional" | "required") => Ok(()),
                        _ => Err(syn::Error::new(
                            out.task.as_ref().map_or_else(Span::call_site, LitStr::span),
                            "`task` is \"optional\" (a client may run a call as a task) or \
                             \"required\" (every call runs as one)",
                        )),
                    }
                }
                _ => Err(meta.error(format!("unknown mcp attribute; expected one of: {known}"))),
            }
        })?;
    }
    Ok(out)
}

fn set_str(
    slot: &mut Option<LitStr>,
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate mcp attribute `{key}`")));
    }
    let value = meta.value()?;
    let expr: syn::Expr = value.parse()?;
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => {
            *slot = Some(s);
            Ok(())
        }
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal, e.g. {key} = \"...\""),
        )),
    }
}

fn set_flag(
    slot: &mut Option<Flag>,
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate mcp attribute `{key}`")));
    }
    let span = meta
        .path
        .get_ident()
        .map_or_else(Span::call_site, syn::Ident::span);
    let value = if meta.input.peek(syn::Token![=]) {
        let expr: syn::Expr = meta.value()?.parse()?;
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) => b.value,
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!("`{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`"),
                ));
            }
        }
    } else {
        true
    };
    *slot = Some(Flag { value, span });
    Ok(())
}

/// Which derive is running.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derive {
    /// `#[derive(McpTool)]`.
    Tool,
    /// `#[derive(McpPrompt)]`.
    Prompt,
}
