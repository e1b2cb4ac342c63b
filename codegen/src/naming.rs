//! Rust names for MCP names: methods, types, enum variants; and [`Names`], the names a server's
//! module has taken so far.

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

/// The snake_case field name typify 0.8 gives a property (`typify-impl/src/util.rs`
/// `sanitize`), to predict collisions (`userId` and `user_id`).
pub(crate) fn field_name(property: &str) -> String {
    let name = property
        .replace('\'', "")
        .replace(|c| !unicode_ident::is_xid_continue(c), "-")
        .to_snake_case();
    match name.chars().next() {
        None => "x".into(),
        Some(c) if unicode_ident::is_xid_start(c) => name,
        Some(_) => format!("x_{name}"),
    }
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

/// Names for string enum values when typify's would collide or be unreadable (`+1`/`-1`,
/// `a-b`/`a_b`, emoji): punctuation is spelled out, other characters are named by their Unicode
/// names (`➡️` → `BlackRightwardsArrow`), and a number is appended where that is still not
/// enough. `None` when typify's names are fine.
pub(crate) fn variant_names(values: &[&str]) -> Option<Vec<String>> {
    let typify: Vec<String> = values.iter().map(|v| typify_variant(v)).collect();
    let unique: BTreeSet<&String> = typify.iter().collect();
    // typify names `+1` / `-1` `plus1` / `minus1`, which is not UpperCamelCase, and a value
    // without letters or digits `X`.
    let unreadable = typify
        .iter()
        .any(|n| n.starts_with(|c: char| c.is_lowercase()))
        || values
            .iter()
            .any(|v| !v.is_empty() && !v.chars().any(char::is_alphanumeric));
    if unique.len() == typify.len() && !unreadable {
        return None;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &typify {
        *counts.entry(name).or_default() += 1;
    }
    let bases: Vec<String> = values
        .iter()
        .zip(&typify)
        .map(|(value, typify)| {
            if counts[typify.as_str()] == 1 && value.chars().any(char::is_alphanumeric) {
                typify.to_pascal_case()
            } else {
                spelled(value, false)
            }
        })
        .collect();
    // Values that differ only in variation selectors (`⬆` and `⬆️`) are told apart by them.
    let mut base_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for base in &bases {
        *base_counts.entry(base).or_default() += 1;
    }
    let chosen: Vec<String> = values
        .iter()
        .zip(&bases)
        .map(|(value, base)| {
            if base_counts[base.as_str()] > 1 {
                spelled(value, true)
            } else {
                base.clone()
            }
        })
        .collect();
    Some(unique_names(chosen))
}

/// Names for string enum values where some are chosen (wire value → name, from the manifest or
/// TypeScript `enum` members); the others get [`variant_names`]' or typify's names.
pub(crate) fn variant_names_chosen(
    values: &[&str],
    chosen: &BTreeMap<String, String>,
) -> Vec<String> {
    let defaults = variant_names(values).unwrap_or_else(|| {
        values
            .iter()
            .map(|v| typify_variant(v).to_pascal_case())
            .collect()
    });
    let names = values
        .iter()
        .zip(defaults)
        .map(|(value, default)| chosen.get(*value).cloned().unwrap_or(default))
        .collect();
    unique_names(names)
}

fn unique_names(names: Vec<String>) -> Vec<String> {
    let mut taken = BTreeSet::new();
    names
        .into_iter()
        .map(|base| {
            let mut name = base.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{base}{n}");
                n += 1;
            }
            name
        })
        .collect()
}

/// Unicode names of characters that show up in enum values (arrows, common emoji), for
/// readable variant names; others are named by code point (`U1f9ff`).
const CHARACTER_NAMES: &[(char, &str)] = &[
    ('\u{2190}', "leftwards arrow"),
    ('\u{2191}', "upwards arrow"),
    ('\u{2192}', "rightwards arrow"),
    ('\u{2193}', "downwards arrow"),
    ('\u{2194}', "left right arrow"),
    ('\u{2195}', "up down arrow"),
    ('\u{2196}', "north west arrow"),
    ('\u{2197}', "north east arrow"),
    ('\u{2198}', "south east arrow"),
    ('\u{2199}', "south west arrow"),
    ('\u{21a9}', "leftwards arrow with hook"),
    ('\u{21aa}', "rightwards arrow with hook"),
    ('\u{21ba}', "anticlockwise open circle arrow"),
    ('\u{21bb}', "clockwise open circle arrow"),
    ('\u{2934}', "arrow pointing rightwards then curving upwards"),
    (
        '\u{2935}',
        "arrow pointing rightwards then curving downwards",
    ),
    ('\u{27a1}', "black rightwards arrow"),
    ('\u{2b05}', "leftwards black arrow"),
    ('\u{2b06}', "upwards black arrow"),
    ('\u{2b07}', "downwards black arrow"),
    ('\u{25b6}', "black right pointing triangle"),
    ('\u{25c0}', "black left pointing triangle"),
    ('\u{23eb}', "black up pointing double triangle"),
    ('\u{23ec}', "black down pointing double triangle"),
    ('\u{1f53c}', "up pointing small red triangle"),
    ('\u{1f53d}', "down pointing small red triangle"),
    (
        '\u{1f504}',
        "anticlockwise downwards and upwards open circle arrows",
    ),
    (
        '\u{1f501}',
        "clockwise rightwards and leftwards open circle arrows",
    ),
    ('\u{2b50}', "white medium star"),
    ('\u{1f31f}', "glowing star"),
    ('\u{2728}', "sparkles"),
    ('\u{2764}', "heavy black heart"),
    ('\u{2705}', "white heavy check mark"),
    ('\u{2714}', "heavy check mark"),
    ('\u{2716}', "heavy multiplication x"),
    ('\u{274c}', "cross mark"),
    ('\u{2753}', "black question mark ornament"),
    ('\u{2757}', "heavy exclamation mark symbol"),
    ('\u{2795}', "heavy plus sign"),
    ('\u{2796}', "heavy minus sign"),
    ('\u{26a0}', "warning sign"),
    ('\u{26a1}', "high voltage sign"),
    ('\u{2600}', "black sun with rays"),
    ('\u{2601}', "cloud"),
    ('\u{2602}', "umbrella"),
    ('\u{2603}', "snowman"),
    ('\u{2744}', "snowflake"),
    ('\u{2615}', "hot beverage"),
    ('\u{2693}', "anchor"),
    ('\u{26f5}', "sailboat"),
    ('\u{2708}', "airplane"),
    ('\u{2709}', "envelope"),
    ('\u{270f}', "pencil"),
    ('\u{2702}', "black scissors"),
    ('\u{270b}', "raised hand"),
    ('\u{270c}', "victory hand"),
    ('\u{231a}', "watch"),
    ('\u{231b}', "hourglass"),
    ('\u{23f0}', "alarm clock"),
    ('\u{2660}', "black spade suit"),
    ('\u{2663}', "black club suit"),
    ('\u{2665}', "black heart suit"),
    ('\u{2666}', "black diamond suit"),
    ('\u{26aa}', "medium white circle"),
    ('\u{26ab}', "medium black circle"),
    ('\u{2b1b}', "black large square"),
    ('\u{2b1c}', "white large square"),
    ('\u{2b55}', "heavy large circle"),
    ('\u{20e3}', "keycap"),
    ('\u{200d}', "zero width joiner"),
    ('\u{1f300}', "cyclone"),
    ('\u{1f308}', "rainbow"),
    ('\u{1f30a}', "water wave"),
    ('\u{1f319}', "crescent moon"),
    ('\u{1f331}', "seedling"),
    ('\u{1f332}', "evergreen tree"),
    ('\u{1f333}', "deciduous tree"),
    ('\u{1f334}', "palm tree"),
    ('\u{1f335}', "cactus"),
    ('\u{1f338}', "cherry blossom"),
    ('\u{1f33b}', "sunflower"),
    ('\u{1f340}', "four leaf clover"),
    ('\u{1f344}', "mushroom"),
    ('\u{1f34e}', "red apple"),
    ('\u{1f381}', "wrapped present"),
    ('\u{1f3ae}', "video game"),
    ('\u{1f3b2}', "game die"),
    ('\u{1f3b5}', "musical note"),
    ('\u{1f3b6}', "multiple musical notes"),
    ('\u{1f3b9}', "musical keyboard"),
    ('\u{1f3c1}', "chequered flag"),
    ('\u{1f3c6}', "trophy"),
    ('\u{1f3e0}', "house building"),
    ('\u{1f40d}', "snake"),
    ('\u{1f41f}', "fish"),
    ('\u{1f426}', "bird"),
    ('\u{1f431}', "cat face"),
    ('\u{1f436}', "dog face"),
    ('\u{1f44b}', "waving hand sign"),
    ('\u{1f44d}', "thumbs up sign"),
    ('\u{1f44e}', "thumbs down sign"),
    ('\u{1f464}', "bust in silhouette"),
    ('\u{1f465}', "busts in silhouette"),
    ('\u{1f47b}', "ghost"),
    ('\u{1f480}', "skull"),
    ('\u{1f48e}', "gem stone"),
    ('\u{1f4a1}', "electric light bulb"),
    ('\u{1f4a7}', "droplet"),
    ('\u{1f4ac}', "speech balloon"),
    ('\u{1f4b0}', "money bag"),
    ('\u{1f4d6}', "open book"),
    ('\u{1f4da}', "books"),
    ('\u{1f4dd}', "memo"),
    ('\u{1f4e6}', "package"),
    ('\u{1f4fb}', "radio"),
    ('\u{1f511}', "key"),
    ('\u{1f512}', "lock"),
    ('\u{1f513}', "open lock"),
    ('\u{1f525}', "fire"),
    ('\u{1f534}', "large red circle"),
    ('\u{1f535}', "large blue circle"),
    ('\u{1f600}', "grinning face"),
    ('\u{1f621}', "pouting face"),
    ('\u{1f622}', "crying face"),
    ('\u{1f642}', "slightly smiling face"),
    ('\u{1f680}', "rocket"),
    ('\u{1f697}', "automobile"),
    ('\u{1f6a7}', "construction sign"),
    ('\u{1f6a9}', "triangular flag on post"),
    ('\u{1f6aa}', "door"),
    ('\u{1f6b2}', "bicycle"),
    ('\u{1f6d1}', "octagonal sign"),
    ('\u{1f7e1}', "large yellow circle"),
    ('\u{1f7e2}', "large green circle"),
    ('\u{1f7e5}', "large red square"),
    ('\u{1f7e6}', "large blue square"),
    ('\u{1f7e9}', "large green square"),
    ('\u{1f916}', "robot face"),
    ('\u{1f9f1}', "brick"),
    ('\u{1faa8}', "rock"),
];

/// `a-b` → `AMinusB`, `a b` → `ASpaceB`, `➡️` → `BlackRightwardsArrow` (with `selectors`,
/// `BlackRightwardsArrowEmoji`: U+FE0F asks for emoji presentation, U+FE0E for text),
/// `` → `Empty`.
fn spelled(value: &str, selectors: bool) -> String {
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
            '\u{fe0f}' if selectors => "emoji".to_string(),
            '\u{fe0e}' if selectors => "text".to_string(),
            '\u{fe0f}' | '\u{fe0e}' => continue,
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
            other => match CHARACTER_NAMES.iter().find(|(k, _)| *k == other) {
                Some((_, name)) => (*name).to_string(),
                None => format!("u{:04x}", other as u32),
            },
        };
        words.push(word);
    }
    if !run.is_empty() {
        words.push(run);
    }
    if words.is_empty() {
        // Only variation selectors.
        return value
            .chars()
            .map(|c| format!("U{:04x}", c as u32))
            .collect();
    }
    let name = words.join("_").to_pascal_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("X{name}")
    } else {
        name
    }
}

/// Server-wide state: names already taken, the placeholder counter, and chosen variant names.
#[derive(Debug, Default)]
pub(crate) struct Names {
    taken: BTreeSet<String>,
    /// The last placeholder number handed out ([`Names::placeholder`]).
    placeholders: usize,
    /// Enum definition → wire value (`"true"`, `"1"` for tags) → variant name.
    variants: BTreeMap<String, BTreeMap<String, String>>,
    /// Definitions whose variants were named from `variants`.
    variants_used: BTreeSet<String>,
}

impl Names {
    /// Reserves `name`, or `name2`, `name3`, ... when it is taken, and returns what it got.
    pub(crate) fn reserve(&mut self, name: &str) -> String {
        let mut candidate = name.to_owned();
        let mut n = 2;
        while !self.taken.insert(candidate.clone()) {
            candidate = format!("{name}{n}");
            n += 1;
        }
        candidate
    }

    /// A fresh placeholder, `McpBindgen{kind}{n}`: a name typify sees in place of a value it
    /// would name badly, numbered across the server so that no two are alike.
    pub(crate) fn placeholder(&mut self, kind: &str) -> String {
        self.placeholders += 1;
        format!("McpBindgen{kind}{}", self.placeholders)
    }

    pub(crate) fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// Variant names for the enum definition `def` (wire value → name); earlier calls win.
    pub(crate) fn name_variants_of(&mut self, def: &str, names: &BTreeMap<String, String>) {
        let entry = self.variants.entry(def.to_owned()).or_default();
        for (value, name) in names {
            entry.entry(value.clone()).or_insert_with(|| name.clone());
        }
    }

    /// Was the variant naming for `def` used (does `def` exist as an enum)?
    pub(crate) fn variants_used(&self, def: &str) -> bool {
        self.variants_used.contains(def)
    }

    /// The variant names chosen for `def`, marking them used.
    pub(crate) fn variant_overrides(&mut self, def: &str) -> Option<BTreeMap<String, String>> {
        let found = self.variants.get(def).cloned();
        if found.is_some() {
            self.variants_used.insert(def.to_owned());
        }
        found
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
            [
                "BlackRightwardsArrow",
                "UpwardsBlackArrow",
                "UpwardsBlackArrowEmoji"
            ]
        );
        // The seed's conveyor directions.
        assert_eq!(
            variant_names(&[
                "\u{27a1}\u{fe0f}",
                "\u{2b07}\u{fe0f}",
                "\u{2b05}\u{fe0f}",
                "\u{2b06}\u{fe0f}"
            ])
            .unwrap_or_default(),
            [
                "BlackRightwardsArrow",
                "DownwardsBlackArrow",
                "LeftwardsBlackArrow",
                "UpwardsBlackArrow"
            ]
        );
        // Unknown characters by code point; a lone emoji is named too.
        assert_eq!(
            variant_names(&["\u{1f9ff}"]).unwrap_or_default(),
            ["U1f9ff"]
        );
    }

    #[test]
    fn chosen_variant_names_win() {
        let chosen: BTreeMap<String, String> =
            [("\u{27a1}\u{fe0f}".to_owned(), "Right".to_owned())]
                .into_iter()
                .collect();
        assert_eq!(
            variant_names_chosen(&["\u{27a1}\u{fe0f}", "\u{2b06}\u{fe0f}"], &chosen),
            ["Right", "UpwardsBlackArrow"]
        );
        assert_eq!(
            variant_names_chosen(&["open", "closed"], &BTreeMap::new()),
            ["Open", "Closed"]
        );
    }
}
