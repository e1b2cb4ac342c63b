//! The derive's input, parsed: a struct with named fields and its `#[mcp]` attributes.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::attr::{self, Attrs};

pub(crate) struct Input<'a> {
    pub ident: &'a syn::Ident,
    pub generics: &'a syn::Generics,
    pub attrs: Attrs,
    /// The doc comment, lines joined with `\n`.
    pub docs: Option<String>,
}

impl<'a> Input<'a> {
    pub(crate) fn from_syn(input: &'a DeriveInput) -> syn::Result<Self> {
        match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(_) => {}
                Fields::Unnamed(fields) => {
                    return Err(syn::Error::new(
                        fields.span(),
                        "McpTool needs named fields: tool arguments are a JSON object, so write `struct Name { field: Type, .. }`",
                    ));
                }
                Fields::Unit => {
                    return Err(syn::Error::new(
                        input.ident.span(),
                        "McpTool needs braces: a tool without arguments is `struct Name {}`, which reads the empty arguments object `{}`",
                    ));
                }
            },
            Data::Enum(data) => {
                return Err(syn::Error::new(
                    data.enum_token.span,
                    "McpTool derives on structs only: tool arguments are one JSON object; put the alternatives in a field",
                ));
            }
            Data::Union(data) => {
                return Err(syn::Error::new(
                    data.union_token.span,
                    "McpTool derives on structs only",
                ));
            }
        }
        Ok(Input {
            ident: &input.ident,
            generics: &input.generics,
            attrs: attr::parse(&input.attrs)?,
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
