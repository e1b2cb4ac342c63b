//! One way to write a default: a field whose default is its type's own has
//! `#[serde(default)]` (typify writes that already), and any other default is a function of the
//! module's `defaults`, named for its type and field, as typify names those it writes for
//! strings and enums: `#[serde(default = "defaults::list_scenarios_args_limit")]` and
//! `fn list_scenarios_args_limit() -> u64 { 50 }`, not typify's generic stock helpers
//! (`default_u64::<u64, 50>`) beside the named functions.

use std::collections::BTreeSet;

use heck::ToSnakeCase;
use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Meta, Token};

/// The module's `defaults`, when it has none yet: as typify writes it.
const DOC: &str = " Generation of default values for serde.";

/// Turns each stock default of a primitive field (`bool`, an integer) into a named function of
/// `defaults`. A default of another type (a newtype over an integer) keeps its stock helper.
pub(super) fn named_defaults(items: &mut Vec<syn::Item>) {
    // The names typify's own functions took, and ours as they are made: one function each.
    let mut taken: BTreeSet<String> = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "defaults" => m.content.as_ref(),
            _ => None,
        })
        .flat_map(|(_, inner)| inner.iter())
        .filter_map(|item| match item {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut made: Vec<syn::Item> = Vec::new();
    let mut name_fields = |owner: String, fields: &mut syn::FieldsNamed| {
        for field in &mut fields.named {
            let Some(ident) = &field.ident else {
                continue;
            };
            let name = syn::ext::IdentExt::unraw(ident);
            let base = format!("{owner}_{name}");
            let mut function = base.clone();
            let mut n = 2;
            while taken.contains(&function) {
                function = format!("{base}_{n}");
                n += 1;
            }
            let function = syn::Ident::new(&function, Span::call_site());
            for attr in &mut field.attrs {
                if let Some(made_here) = rewrite(attr, &function) {
                    taken.insert(function.to_string());
                    made.push(made_here);
                }
            }
        }
    };
    for item in items.iter_mut() {
        match item {
            syn::Item::Struct(s) => {
                if let syn::Fields::Named(fields) = &mut s.fields {
                    name_fields(s.ident.to_string().to_snake_case(), fields);
                }
            }
            // A variant with fields: `{enum}_{variant}_{field}`.
            syn::Item::Enum(e) => {
                let owner = e.ident.to_string().to_snake_case();
                for variant in &mut e.variants {
                    if let syn::Fields::Named(fields) = &mut variant.fields {
                        let variant = variant.ident.to_string().to_snake_case();
                        name_fields(format!("{owner}_{variant}"), fields);
                    }
                }
            }
            _ => {}
        }
    }
    if made.is_empty() {
        return;
    }
    let existing = items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == "defaults" => m.content.as_mut(),
        _ => None,
    });
    match existing {
        Some((_, inner)) => inner.extend(made),
        None => items.push(syn::parse_quote! {
            #[doc = #DOC]
            mod defaults {
                #(#made)*
            }
        }),
    }
}

/// `attr` with its stock `default = ".."` pointing at `defaults::{function}`, and the function
/// to add; `None` when it has no stock default of a primitive type.
fn rewrite(attr: &mut syn::Attribute, function: &syn::Ident) -> Option<syn::Item> {
    if !attr.path().is_ident("serde") {
        return None;
    }
    let metas = attr
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .ok()?;
    let mut made = None;
    let metas: Punctuated<Meta, Token![,]> = metas
        .into_iter()
        .map(|meta| {
            if made.is_none()
                && let Meta::NameValue(nv) = &meta
                && nv.path.is_ident("default")
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) = &nv.value
                && let Some((ty, value)) = stock_text(&text.value())
            {
                made = Some(syn::parse_quote! {
                    pub(super) fn #function() -> #ty {
                        #value
                    }
                });
                let path = format!("defaults::{function}");
                return syn::parse_quote!(default = #path);
            }
            meta
        })
        .collect();
    let made = made?;
    *attr = syn::parse_quote!(#[serde(#metas)]);
    Some(made)
}

/// A stock helper's type and value, from its default text: `..::default_u64::<u64, 50>` is
/// `(u64, 50)`. See [`stock`].
fn stock_text(text: &str) -> Option<(syn::Type, syn::Expr)> {
    let path: syn::ExprPath = syn::parse_str(text).ok()?;
    stock(&path.path)
}

/// A path to one of the runtime's stock default helpers, read: its type and its value
/// (`::mcp_bindgen::__private::default_u64::<u64, 50>` is `(u64, 50)`,
/// `..::default_bool::<true>` is `(bool, true)`). `None` for any other path, or a type that is
/// not a primitive, or a value that is not a literal. A `Default` impl's call of one becomes
/// its value, and a field's `default = ".."` a named function returning it.
pub(super) fn stock(path: &syn::Path) -> Option<(syn::Type, syn::Expr)> {
    let last = path.segments.last()?;
    let helper = last.ident.to_string();
    let runtime = path.segments.iter().any(|s| s.ident == "__private");
    if !runtime
        || !matches!(
            helper.as_str(),
            "default_bool" | "default_i64" | "default_u64"
        )
    {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let args: Vec<&syn::GenericArgument> = args.args.iter().collect();
    let (ty, value): (syn::Type, &syn::Expr) = match args.as_slice() {
        [syn::GenericArgument::Const(value)] if helper == "default_bool" => {
            (syn::parse_quote!(bool), value)
        }
        [
            syn::GenericArgument::Type(ty),
            syn::GenericArgument::Const(value),
        ] => (ty.clone(), value),
        _ => return None,
    };
    let primitive = match &ty {
        syn::Type::Path(p) => p.path.get_ident().is_some_and(|t| {
            matches!(
                t.to_string().as_str(),
                "bool" | "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64"
            )
        }),
        _ => false,
    };
    let literal = matches!(value, syn::Expr::Lit(_) | syn::Expr::Unary(_));
    (primitive && literal).then(|| (ty, value.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tidied(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).expect("parses");
        named_defaults(&mut file.items);
        prettyplease::unparse(&file)
    }

    #[test]
    fn stock_defaults_become_functions_named_for_their_fields() {
        let code = tidied(
            r#"
            pub struct ListArgs {
                #[serde(default = "::mcp_bindgen::__private::default_u64::<u64, 50>")]
                pub limit: u64,
                #[serde(default = "::mcp_bindgen::__private::default_i64::<i32, -1>", skip_serializing_if = "x")]
                pub r#type: i32,
                #[serde(default = "::mcp_bindgen::__private::default_bool::<true>")]
                pub publish: bool,
                #[serde(default)]
                pub offset: u64,
            }
            mod defaults {
                pub(super) fn list_args_kind() -> super::Kind {
                    super::Kind::A
                }
            }
            "#,
        );
        for expected in [
            r#"#[serde(default = "defaults::list_args_limit")]"#,
            r#"#[serde(default = "defaults::list_args_type", skip_serializing_if = "x")]"#,
            r#"#[serde(default = "defaults::list_args_publish")]"#,
            "pub(super) fn list_args_limit() -> u64 {\n        50\n    }",
            "pub(super) fn list_args_type() -> i32 {\n        -1\n    }",
            "pub(super) fn list_args_publish() -> bool {\n        true\n    }",
            // The type's own default stays as it is, and typify's functions stay first.
            "#[serde(default)]",
            "fn list_args_kind",
        ] {
            assert!(code.contains(expected), "{expected} in {code}");
        }
        assert!(!code.contains("__private"), "{code}");
        assert_eq!(code.matches("mod defaults").count(), 1, "{code}");
    }

    /// A variant's fields are named for the enum and the variant; a name taken already (by
    /// typify, or by another type whose words run together the same way) gets a number.
    #[test]
    fn variants_fields_have_defaults_too_and_no_two_functions_share_a_name() {
        let code = tidied(
            r#"
            pub enum Search {
                Near {
                    #[serde(default = "::mcp_bindgen::__private::default_u64::<u64, 10>")]
                    limit: u64,
                },
            }
            pub struct SearchNear {
                #[serde(default = "::mcp_bindgen::__private::default_u64::<u64, 20>")]
                pub limit: u64,
            }
            mod defaults {}
            "#,
        );
        assert!(
            code.contains(r#"default = "defaults::search_near_limit""#),
            "{code}"
        );
        assert!(
            code.contains(r#"default = "defaults::search_near_limit_2""#),
            "{code}"
        );
        assert!(
            code.contains("fn search_near_limit() -> u64 {\n        10"),
            "{code}"
        );
        assert!(
            code.contains("fn search_near_limit_2() -> u64 {\n        20"),
            "{code}"
        );
    }

    #[test]
    fn a_module_without_defaults_gets_one_and_other_types_keep_their_helper() {
        let code = tidied(
            r#"
            pub struct A {
                #[serde(default = "::mcp_bindgen::__private::default_u64::<Count, 5>")]
                pub count: Count,
                #[serde(default = "::mcp_bindgen::__private::default_bool::<false>")]
                pub quiet: bool,
            }
            "#,
        );
        assert!(code.contains("default_u64::<Count, 5>"), "{code}");
        assert!(code.contains(r#"default = "defaults::a_quiet""#), "{code}");
        assert!(
            code.contains("/// Generation of default values for serde.\nmod defaults {"),
            "{code}"
        );
    }
}
