//! Rust names for MCP names: methods, types, enum variants.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToPascalCase, ToSnakeCase};

/// Words that are keywords in some Rust edition (2024 included) and cannot be plain idents.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot even be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Is `s` a keyword that needs `r#` (or a rename)?
pub(crate) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// The method for a tool: snake_case of its name (`get-tiny-image` → `get_tiny_image`,
/// `getUser` → `get_user`, `admin.tools.list` → `admin_tools_list`). May be a keyword; see
/// [`ident`].
pub(crate) fn method_name(tool: &str) -> String {
    let cleaned: String = tool
        .chars()
        .map(|c| {
            if unicode_ident::is_xid_continue(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = cleaned.to_snake_case();
    if name.is_empty() {
        name = "tool".into();
    }
    if !name.starts_with(|c: char| unicode_ident::is_xid_start(c) || c == '_') {
        name.insert_str(0, "tool_");
    }
    name
}

/// PascalCase type name stem for any MCP or schema name (`list_scenarios` → `ListScenarios`).
pub(crate) fn type_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if unicode_ident::is_xid_continue(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = cleaned.to_pascal_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'X');
    }
    name
}

/// An identifier token for `name`: raw (`r#type`) for keywords that allow it, `name_` for
/// those that do not (`self_`).
pub(crate) fn ident(name: &str) -> proc_macro2::Ident {
    if NOT_RAW.contains(&name) {
        proc_macro2::Ident::new(&format!("{name}_"), proc_macro2::Span::call_site())
    } else if is_keyword(name) {
        proc_macro2::Ident::new_raw(name, proc_macro2::Span::call_site())
    } else {
        proc_macro2::Ident::new(name, proc_macro2::Span::call_site())
    }
}

/// The variant name typify 0.8 gives a string enum value (`typify-impl/src/util.rs`
/// `sanitize`), to predict collisions.
fn typify_variant(value: &str) -> String {
    let out = match value {
        "+1" => "plus1".to_string(),
        "-1" => "minus1".to_string(),
        _ => value
            .replace('\'', "")
            .replace(|c| !unicode_ident::is_xid_continue(c), "-")
            .to_pascal_case(),
    };
    match out.chars().next() {
        None => "X".into(),
        Some(c) if unicode_ident::is_xid_start(c) => out,
        Some(_) => format!("X{out}"),
    }
}

/// Names for string enum values when typify's would collide (`+1`/`-1` are fine, `a-b`/`a_b`
/// or emoji are not): punctuation is spelled out, other characters named by code point, and a
/// number is appended where that is still not enough. `None` when typify's names are unique.
pub(crate) fn variant_names(values: &[&str]) -> Option<Vec<String>> {
    let typify: Vec<String> = values.iter().map(|v| typify_variant(v)).collect();
    let unique: BTreeSet<&String> = typify.iter().collect();
    // typify names `+1` / `-1` `plus1` / `minus1`, which is not UpperCamelCase.
    let lowercase = typify
        .iter()
        .any(|n| n.starts_with(|c: char| c.is_lowercase()));
    if unique.len() == typify.len() && !lowercase {
        return None;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &typify {
        *counts.entry(name).or_default() += 1;
    }
    let mut taken = BTreeSet::new();
    let mut out = Vec::with_capacity(values.len());
    for (value, typify) in values.iter().zip(&typify) {
        let base = if counts[typify.as_str()] == 1 {
            typify.to_pascal_case()
        } else {
            spelled(value)
        };
        let mut name = base.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}{n}");
            n += 1;
        }
        out.push(name);
    }
    Some(out)
}

/// `a-b` → `AMinusB`, `a b` → `ASpaceB`, `➡️` → `U27a1Ufe0f`, `` → `Empty`.
fn spelled(value: &str) -> String {
    if value.is_empty() {
        return "Empty".into();
    }
    let mut words: Vec<String> = Vec::new();
    let mut run = String::new();
    for c in value.chars() {
        if c.is_alphanumeric() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            words.push(std::mem::take(&mut run));
        }
        let word = match c {
            '+' => "plus".to_string(),
            '-' => "minus".to_string(),
            '.' => "dot".to_string(),
            '_' => "underscore".to_string(),
            ' ' => "space".to_string(),
            '/' => "slash".to_string(),
            '\\' => "backslash".to_string(),
            '*' => "star".to_string(),
            ':' => "colon".to_string(),
            ',' => "comma".to_string(),
            '#' => "hash".to_string(),
            '@' => "at".to_string(),
            '&' => "and".to_string(),
            '=' => "equals".to_string(),
            '<' => "lt".to_string(),
            '>' => "gt".to_string(),
            '!' => "bang".to_string(),
            '?' => "question".to_string(),
            '%' => "percent".to_string(),
            '$' => "dollar".to_string(),
            '\'' => "quote".to_string(),
            '"' => "dquote".to_string(),
            '(' | ')' => "paren".to_string(),
            '[' | ']' => "bracket".to_string(),
            other => format!("u{:04x}", other as u32),
        };
        words.push(word);
    }
    if !run.is_empty() {
        words.push(run);
    }
    let name = words.join("_").to_pascal_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("X{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods() {
        assert_eq!(method_name("get-tiny-image"), "get_tiny_image");
        assert_eq!(method_name("getUser"), "get_user");
        assert_eq!(method_name("admin.tools.list"), "admin_tools_list");
        assert_eq!(method_name("DATA_EXPORT_v2"), "data_export_v2");
        assert_eq!(method_name("3d-render"), "tool_3d_render");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("self").to_string(), "self_");
    }

    #[test]
    fn variants_only_when_typify_collides() {
        assert_eq!(
            variant_names(&["+1", "-1"]).unwrap_or_default(),
            ["Plus1", "Minus1"]
        );
        assert_eq!(variant_names(&["speak", "act"]), None);
        assert_eq!(
            variant_names(&["a-b", "a_b", "c"]).unwrap_or_default(),
            ["AMinusB", "AUnderscoreB", "C"]
        );
        assert_eq!(
            variant_names(&["\u{27a1}\u{fe0f}", "\u{2b06}", "\u{2b06}\u{fe0f}"])
                .unwrap_or_default(),
            ["U27a1Ufe0f", "U2b06", "U2b06Ufe0f"]
        );
    }
}
