//! Serde names as a person writes them: where one of serde's case rules gives every field's
//! (or variant's) name on the wire, the type says so once, `#[serde(rename_all = "..")]`,
//! instead of a `#[serde(rename = "..")]` on each member, as typify writes them.
//!
//! A rule is used only where it gives every member's name exactly as serde would apply it (a
//! member without a rename keeps its own name, so the rule must leave it alone), and where it
//! takes away at least two renames: a type with one renamed member keeps its one attribute.

use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

/// serde's rules, most common first: the first that fits is used.
const VARIANT_RULES: &[&str] = &[
    "snake_case",
    "camelCase",
    "lowercase",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "UPPERCASE",
    "SCREAMING-KEBAB-CASE",
];

const FIELD_RULES: &[&str] = &[
    "camelCase",
    "PascalCase",
    "kebab-case",
    "SCREAMING_SNAKE_CASE",
    "SCREAMING-KEBAB-CASE",
];

/// Gathers the renames of each struct's fields and each enum's variants (in `items` and the
/// modules among them) into one `rename_all` where a rule fits.
pub(super) fn rename_all(items: &mut [syn::Item]) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                if let syn::Fields::Named(fields) = &mut s.fields {
                    let members = fields
                        .named
                        .iter_mut()
                        .filter_map(|f| Some((unraw(f.ident.as_ref()?), &mut f.attrs)));
                    gather(&mut s.attrs, members.collect(), FIELD_RULES, field);
                }
            }
            syn::Item::Enum(e) => {
                let members = e
                    .variants
                    .iter_mut()
                    .map(|v| (unraw(&v.ident), &mut v.attrs));
                gather(&mut e.attrs, members.collect(), VARIANT_RULES, variant);
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &mut m.content {
                    rename_all(items);
                }
            }
            _ => {}
        }
    }
}

/// A member's name as serde sees it (`r#type` is `type`).
fn unraw(ident: &proc_macro2::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// What a member's serde attributes say of its name.
enum Named {
    /// No rename: its own name.
    Own,
    /// `rename = ".."`.
    Renamed(String),
    /// A rename this pass does not read (`rename(serialize = ..)`, an `alias`): leave the type.
    Other,
}

/// The `serde(..)` items of `attrs`, or `None` when one does not parse.
fn serde_metas(attrs: &[Attribute]) -> Option<Vec<Meta>> {
    let mut metas = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let list = attr
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .ok()?;
        metas.extend(list);
    }
    Some(metas)
}

fn named(attrs: &[Attribute]) -> Named {
    let Some(metas) = serde_metas(attrs) else {
        return Named::Other;
    };
    let mut found = Named::Own;
    for meta in metas {
        if meta.path().is_ident("alias") {
            return Named::Other;
        }
        if !meta.path().is_ident("rename") {
            continue;
        }
        match meta {
            Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(name),
                        ..
                    }),
                ..
            }) => found = Named::Renamed(name.value()),
            _ => return Named::Other,
        }
    }
    found
}

/// The type's `rename_all` where a rule fits its `members` (name, attributes), their renames
/// taken away.
fn gather(
    container: &mut Vec<Attribute>,
    mut members: Vec<(String, &mut Vec<Attribute>)>,
    rules: &[&str],
    apply: fn(&str, &str) -> String,
) {
    let container_metas = serde_metas(container);
    let untouchable = container_metas.is_none_or(|metas| {
        metas.iter().any(|m| {
            m.path().is_ident("rename_all")
                || m.path().is_ident("untagged")
                || m.path().is_ident("transparent")
        })
    });
    if untouchable || members.is_empty() {
        return;
    }
    let mut wire = Vec::with_capacity(members.len());
    for (name, attrs) in &members {
        match named(attrs) {
            Named::Own => wire.push((name.clone(), false)),
            Named::Renamed(to) => wire.push((to, true)),
            Named::Other => return,
        }
    }
    if wire.iter().filter(|(_, renamed)| *renamed).count() < 2 {
        return;
    }
    let Some(rule) = rules.iter().find(|rule| {
        members
            .iter()
            .zip(&wire)
            .all(|((name, _), (to, _))| apply(rule, name) == *to)
    }) else {
        return;
    };
    for (_, attrs) in &mut members {
        drop_rename(attrs);
    }
    container.push(syn::parse_quote!(#[serde(rename_all = #rule)]));
}

/// Takes `rename = ".."` out of a member's serde attributes; an attribute left empty goes.
fn drop_rename(attrs: &mut Vec<Attribute>) {
    attrs.retain_mut(|attr| {
        if !attr.path().is_ident("serde") {
            return true;
        }
        let Ok(list) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            return true;
        };
        let kept: Punctuated<Meta, Token![,]> = list
            .into_iter()
            .filter(|m| !m.path().is_ident("rename"))
            .collect();
        if kept.is_empty() {
            return false;
        }
        *attr = syn::parse_quote!(#[serde(#kept)]);
        true
    });
}

/// serde's rule applied to a variant's name (serde_derive's `RenameRule::apply_to_variant`).
fn variant(rule: &str, name: &str) -> String {
    let snake = || {
        let mut snake = String::new();
        for (i, c) in name.char_indices() {
            if i > 0 && c.is_uppercase() {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        snake
    };
    match rule {
        "lowercase" => name.to_ascii_lowercase(),
        "UPPERCASE" => name.to_ascii_uppercase(),
        "camelCase" => lower_first(name),
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().to_ascii_uppercase().replace('_', "-"),
        _ => name.to_owned(),
    }
}

/// serde's rule applied to a field's name (serde_derive's `RenameRule::apply_to_field`).
fn field(rule: &str, name: &str) -> String {
    let pascal = || {
        let mut pascal = String::new();
        let mut capitalize = true;
        for c in name.chars() {
            if c == '_' {
                capitalize = true;
            } else if capitalize {
                pascal.push(c.to_ascii_uppercase());
                capitalize = false;
            } else {
                pascal.push(c);
            }
        }
        pascal
    };
    match rule {
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
        "PascalCase" => pascal(),
        "camelCase" => lower_first(&pascal()),
        "kebab-case" => name.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => name.to_ascii_uppercase().replace('_', "-"),
        _ => name.to_owned(),
    }
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    fn tidied(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).expect("parses");
        rename_all(&mut file.items);
        prettyplease::unparse(&file)
    }

    /// Each rule gives the names serde's own derive gives (a variant and a field of several
    /// words, one ending in `_` as typify escapes a keyword, one with a digit).
    #[test]
    fn the_rules_give_the_names_serde_gives() {
        macro_rules! serde_says {
            ($rule:literal) => {{
                #[derive(serde::Serialize)]
                #[serde(rename_all = $rule)]
                enum Variants {
                    VeryTasty,
                    A,
                    Http2Ok,
                }
                #[derive(serde::Serialize)]
                #[serde(rename_all = $rule)]
                struct Fields {
                    very_tasty: u8,
                    self_: u8,
                    r#type: u8,
                    http2_ok: u8,
                }
                let variants = [Variants::VeryTasty, Variants::A, Variants::Http2Ok]
                    .map(|v| serde_json::to_value(v).expect("json"));
                let fields = serde_json::to_value(Fields {
                    very_tasty: 0,
                    self_: 0,
                    r#type: 0,
                    http2_ok: 0,
                })
                .expect("json");
                let fields: Vec<String> = fields
                    .as_object()
                    .expect("object")
                    .keys()
                    .cloned()
                    .collect();
                let ours = ["VeryTasty", "A", "Http2Ok"].map(|v| variant($rule, v));
                assert_eq!(
                    variants.map(|v| v.as_str().expect("name").to_owned()),
                    ours,
                    $rule
                );
                let ours: Vec<String> = ["very_tasty", "self_", "type", "http2_ok"]
                    .iter()
                    .map(|f| field($rule, f))
                    .collect();
                assert_eq!(fields, ours, $rule);
            }};
        }
        serde_says!("lowercase");
        serde_says!("UPPERCASE");
        serde_says!("PascalCase");
        serde_says!("camelCase");
        serde_says!("snake_case");
        serde_says!("SCREAMING_SNAKE_CASE");
        serde_says!("kebab-case");
        serde_says!("SCREAMING-KEBAB-CASE");
    }

    #[test]
    fn renamed_variants_become_one_rename_all() {
        let code = tidied(
            r#"
            #[derive(Serialize, Deserialize)]
            pub enum Status {
                #[serde(rename = "timed_out")]
                TimedOut,
                #[serde(rename = "moving")]
                Moving,
            }
            "#,
        );
        assert!(
            code.contains(r#"#[serde(rename_all = "snake_case")]"#),
            "{code}"
        );
        assert!(!code.contains("rename ="), "{code}");
    }

    /// Fields keep their other serde items; one without a rename must already fit the rule.
    #[test]
    fn renamed_fields_keep_their_other_serde_items() {
        let code = tidied(
            r#"
            pub struct Observation {
                #[serde(rename = "self", deserialize_with = "Option::deserialize")]
                pub self_: Option<u8>,
                #[serde(rename = "sessionId")]
                pub session_id: String,
                pub status: String,
            }
            "#,
        );
        assert!(
            code.contains(r#"#[serde(rename_all = "camelCase")]"#),
            "{code}"
        );
        assert!(
            code.contains(r#"#[serde(deserialize_with = "Option::deserialize")]"#),
            "{code}"
        );
        assert!(!code.contains("rename ="), "{code}");
    }

    /// Where no rule gives every name, with one rename only, or beside an `alias` or an
    /// untagged enum, the attributes stay as they are.
    #[test]
    fn types_no_rule_fits_are_left_alone() {
        for code in [
            // `status_code` is not camelCase.
            r#"pub struct A {
                #[serde(rename = "sessionId")] pub session_id: String,
                #[serde(rename = "observedAt")] pub observed_at: i64,
                pub status_code: u16,
            }"#,
            r#"pub struct B { #[serde(rename = "sessionId")] pub session_id: String }"#,
            r#"pub enum C {
                #[serde(rename = "a", alias = "x")] A,
                #[serde(rename = "b")] B,
            }"#,
            r#"#[serde(untagged)] pub enum D {
                #[serde(rename = "a")] A(u8),
                #[serde(rename = "b")] B(u16),
            }"#,
            // Two spellings of one rule's input: `Upper` would be "upper", not "UPPER".
            r#"pub enum E { #[serde(rename = "UPPER")] Upper, #[serde(rename = "lower")] Lower }"#,
        ] {
            let mut file: syn::File = syn::parse_str(code).expect("parses");
            let before = file.to_token_stream().to_string();
            rename_all(&mut file.items);
            assert_eq!(file.to_token_stream().to_string(), before, "{code}");
        }
    }
}
