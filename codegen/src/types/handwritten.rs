//! Types the type layer writes itself where typify 0.8 would accept values the schema forbids
//! ([`Handwritten`]): one-value boolean and integer enums (typify gives `bool`, or an `i64` newtype),
//! and unions tagged by a boolean or integer property (typify gives an untagged enum that never
//! looks at the tag). Also the contracts' constants.

use heck::{ToShoutySnakeCase, ToSnakeCase};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::contracts::{Const, ConstValue, Lit};
use crate::handoff::{Handwritten, HandwrittenVariant};

fn doc(text: &str) -> TokenStream {
    let lines: Vec<String> = text
        .trim()
        .lines()
        .map(|l| format!(" {}", l.trim_end()))
        .collect();
    quote! { #(#[doc = #lines])* }
}

/// The Rust literal and type of an integer or boolean tag value.
fn value_tokens(value: &Value) -> (TokenStream, TokenStream) {
    match value {
        Value::Bool(b) => (quote!(#b), quote!(bool)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => {
                let lit = Literal::i64_suffixed(i);
                (quote!(#lit), quote!(i64))
            }
            (None, Some(u)) => {
                let lit = Literal::u64_suffixed(u);
                (quote!(#lit), quote!(u64))
            }
            _ => (quote!(0_i64), quote!(i64)),
        },
        _ => (quote!(false), quote!(bool)),
    }
}

/// Items for one [`Handwritten`] type.
pub(crate) fn emit(own: &Handwritten) -> TokenStream {
    match own {
        Handwritten::Const {
            name,
            value,
            description,
        } => unit_const(name, value, description.as_deref()),
        Handwritten::Tagged {
            name,
            tag,
            variants,
            description,
        } => tagged(name, tag, variants, description.as_deref()),
    }
}

/// [`Handwritten::Const`]: a unit struct whose serde impls write `value` and read nothing else.
fn unit_const(name: &str, value: &Value, description: Option<&str>) -> TokenStream {
    let ident = format_ident!("{name}");
    let (lit, ty) = value_tokens(value);
    let wire = value.to_string();
    let docs = doc(&match description {
        Some(d) => {
            format!("{d}\n\nAlways `{wire}` on the wire: any other value does not decode.")
        }
        None => format!("Always `{wire}` on the wire: any other value does not decode."),
    });
    let value_doc = format!(" The value, `{wire}`.");
    quote! {
        #docs
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #ident;

        impl #ident {
            #[doc = #value_doc]
            pub const VALUE: #ty = #lit;
        }

        impl ::serde::Serialize for #ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                <#ty as ::serde::Serialize>::serialize(&Self::VALUE, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <#ty as ::serde::Deserialize>::deserialize(deserializer)?;
                if value == Self::VALUE {
                    Ok(Self)
                } else {
                    Err(<D::Error as ::serde::de::Error>::custom(::std::format_args!(
                        "invalid value {}, expected {}", value, Self::VALUE
                    )))
                }
            }
        }
    }
}

/// [`Handwritten::Tagged`]: an enum whose serde impls write `tag` before each variant's
/// payload and read a variant by it.
fn tagged(
    name: &str,
    tag: &str,
    variants: &[HandwrittenVariant],
    description: Option<&str>,
) -> TokenStream {
    let ident = format_ident!("{name}");
    let docs = doc(&match description {
        Some(d) => format!("{d}\n\nTold apart by `{tag}`."),
        None => format!("`{name}`, told apart by `{tag}`."),
    });
    let mut defs = Vec::new();
    let mut ser_arms = Vec::new();
    let mut de_arms = Vec::new();
    let mut froms = Vec::new();
    let mut expected = Vec::new();
    for v in variants {
        let variant = format_ident!("{}", v.name);
        let payload = format_ident!("{}", v.payload);
        let (lit, _) = value_tokens(&v.value);
        let wire = v.value.to_string();
        expected.push(wire.clone());
        let vdoc = doc(&match &v.description {
            Some(d) => format!("{d}\n\n`\"{tag}\": {wire}`."),
            None => format!("`\"{tag}\": {wire}`."),
        });
        defs.push(quote! { #vdoc #variant(#payload) });
        ser_arms.push(quote! {
            Self::#variant(payload) => ::serde::Serialize::serialize(&Tagged { tag: #lit, payload }, serializer)
        });
        de_arms.push(quote! {
            tag if tag == #lit => ::mcp_bindgen::__private::from_value(rest)
                .map(Self::#variant)
                .map_err(<D::Error as ::serde::de::Error>::custom)
        });
        froms.push(quote! {
            impl ::std::convert::From<#payload> for #ident {
                fn from(value: #payload) -> Self {
                    Self::#variant(value)
                }
            }
        });
    }
    let expected = expected.join(" or ");
    quote! {
        #docs
        #[derive(Clone, Debug, PartialEq)]
        pub enum #ident {
            #(#defs,)*
        }

        impl ::serde::Serialize for #ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                /// A variant on the wire: its tag, then its payload's fields.
                #[derive(::serde::Serialize)]
                struct Tagged<'a, G, T> {
                    #[serde(rename = #tag)]
                    tag: G,
                    #[serde(flatten)]
                    payload: &'a T,
                }
                match self {
                    #(#ser_arms,)*
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let mut fields = <::serde_json::Map<::std::string::String, ::serde_json::Value> as ::serde::Deserialize>::deserialize(deserializer)?;
                let Some(tag) = fields.remove(#tag) else {
                    return Err(<D::Error as ::serde::de::Error>::missing_field(#tag));
                };
                let rest = ::serde_json::Value::Object(fields);
                match tag {
                    #(#de_arms,)*
                    other => Err(<D::Error as ::serde::de::Error>::custom(::std::format_args!(
                        "invalid value {} for `{}`, expected {}", other, #tag, #expected
                    ))),
                }
            }
        }

        #(#froms)*
    }
}

/// Rust constants for the contracts' `declare const`s: numbers as `u32` (`u64`, `i64`) or
/// `f64`, strings as `&str`; an object of literals becomes a module of constants.
pub(crate) fn constants<'a>(consts: impl IntoIterator<Item = &'a Const>) -> Vec<TokenStream> {
    consts
        .into_iter()
        .map(|c| {
            let text = c
                .doc
                .clone()
                .unwrap_or_else(|| format!("`{}` from the agent contracts.", c.name));
            constant(&c.name, &text, &c.value)
        })
        .collect()
}

fn constant(name: &str, text: &str, value: &ConstValue) -> TokenStream {
    let docs = doc(text);
    match value {
        ConstValue::Object(fields) => {
            let module = format_ident!("{}", safe(&name.to_snake_case()));
            let items: Vec<TokenStream> = fields
                .iter()
                .map(|(field, value, field_doc)| {
                    let text = field_doc
                        .clone()
                        .unwrap_or_else(|| format!("`{name}.{field}`."));
                    constant(field, &text, value)
                })
                .collect();
            quote! {
                #docs
                pub mod #module {
                    #(#items)*
                }
            }
        }
        ConstValue::Lit(lit) => {
            let ident = format_ident!("{}", safe(&name.to_shouty_snake_case()));
            let (ty, lit) = match lit {
                Lit::Str(s) => (quote!(&str), quote!(#s)),
                Lit::Bool(b) => (quote!(bool), quote!(#b)),
                Lit::Num(n) if n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX) => {
                    let lit = Literal::u32_unsuffixed(*n as u32);
                    (quote!(u32), quote!(#lit))
                }
                Lit::Num(n) if n.fract() == 0.0 && *n > 0.0 && *n < 1.8e19 => {
                    let lit = Literal::u64_unsuffixed(*n as u64);
                    (quote!(u64), quote!(#lit))
                }
                Lit::Num(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => {
                    let lit = Literal::i64_unsuffixed(*n as i64);
                    (quote!(i64), quote!(#lit))
                }
                Lit::Num(n) => {
                    let lit = Literal::f64_unsuffixed(*n);
                    (quote!(f64), quote!(#lit))
                }
            };
            quote! {
                #docs
                pub const #ident: #ty = #lit;
            }
        }
    }
}

/// A name usable as an identifier (`type` → `type_`).
fn safe(name: &str) -> String {
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) || name.is_empty() {
        format!("_{name}")
    } else {
        name.to_owned()
    };
    if crate::naming::is_keyword(&name) || name == "_" {
        format!("{name}_")
    } else {
        name
    }
}
