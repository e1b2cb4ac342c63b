//! The derive's input, parsed: a struct with named fields and its `#[mcp]` attributes.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

pub(crate) use crate::attr::Derive;
use crate::attr::{self, Attrs};

impl Derive {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Derive::Tool => "McpTool",
            Derive::Prompt => "McpPrompt",
        }
    }

    /// What it declares: "tool" or "prompt".
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Derive::Tool => "tool",
            Derive::Prompt => "prompt",
        }
    }
}

pub(crate) struct Input<'a> {
    pub derive: Derive,
    pub ident: &'a syn::Ident,
    pub generics: &'a syn::Generics,
    pub attrs: Attrs,
    /// The doc comment, lines joined with `\n`.
    pub docs: Option<String>,
}

impl<'a> Input<'a> {
    pub(crate) fn from_syn(input: &'a DeriveInput, derive: Derive) -> syn::Result<Self> {
        let (what, noun) = (derive.name(), derive.noun());
        match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(_) => {}
                Fields::Unnamed(fields) => {
                    return Err(syn::Error::new(
                        fields.span(),
                        format!(
                            "{what} needs named fields: {noun} arguments are a JSON object, so write `struct Name {{ field: Type, .. }}`"
                        ),
                    ));
                }
                Fields::Unit => {
                    return Err(syn::Error::new(
                        input.ident.span(),
                        format!(
                            "{what} needs braces: a {noun} without arguments is `struct Name {{}}`, which reads the empty arguments object `{{}}`"
                        ),
                    ));
                }
            },
            Data::Enum(data) => {
                return Err(syn::Error::new(
                    data.enum_token.span,
                    format!(
                        "{what} derives on structs only: {noun} arguments are one JSON object; put the alternatives in a field"
                    ),
                ));
            }
            Data::Union(data) => {
                return Err(syn::Error::new(
                    data.union_token.span,
                    format!("{what} derives on structs only"),
                ));
            }
        }
        Ok(Input {
            derive,
            ident: &input.ident,
            generics: &input.generics,
            attrs: attr::parse(&input.attrs, derive)?,
            docs: docs(&input.attrs),
        })
    }

    pub(crate) fn span(&self) -> Span {
        self.ident.span()
    }
}

fn docs(attrs: &[syn::Attribute]) -> Option<String> {
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
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
