//! Matching a removed tool to the added tool it was probably renamed to: how close two names
//! are. A name is close when its words, compared without case, separators or inflection, are
//! the same; closer still when only case and separators differ (`web-search`, `web_search`,
//! `webSearch`). Which candidates accept the old calls is decided by the inclusion algebra
//! (see `renames` in the module above).

use std::collections::BTreeSet;

/// The words of a tool name, lower-case and uninflected: `getTinyImages`, `get-tiny-image`
/// and `get_tiny_image` all give {get, tiny, image}.
pub(crate) fn words(name: &str) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            push(&mut words, &mut word);
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            push(&mut words, &mut word);
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    push(&mut words, &mut word);
    words
}

fn push(words: &mut BTreeSet<String>, word: &mut String) {
    if !word.is_empty() {
        words.insert(stem(word));
        word.clear();
    }
}

/// Strips common English inflections: `images` -> `image`, `listing` -> `list`,
/// `updated` -> `update`.
fn stem(word: &str) -> String {
    for (suffix, keep) in [
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", "e"),
        ("s", ""),
    ] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.chars().count() >= 3
            && !(suffix == "s" && root.ends_with('s'))
        {
            let mut root = format!("{root}{keep}");
            // `updated` -> `updat`, `update` -> `update`: drop a final `e` so both agree.
            if root.ends_with('e') && root.chars().count() > 3 {
                root.pop();
            }
            return root;
        }
    }
    let mut root = word.to_owned();
    if root.ends_with('e') && root.chars().count() > 3 {
        root.pop();
    }
    root
}

/// How close two close names are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Closeness {
    /// The same words after inflection is stripped (`listIssues`, `list-issue`).
    Words,
    /// The same name but for case and separators (`web-search`, `web_search`).
    Spelling,
}

/// The name without case and separators: `web-search` and `webSearch` give `websearch`.
fn spelling(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How close two names are: `None` when their words differ.
pub(crate) fn closeness(old: &str, new: &str) -> Option<Closeness> {
    let (a, b) = (words(old), words(new));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    if spelling(old) == spelling(new) {
        Some(Closeness::Spelling)
    } else if a == b {
        Some(Closeness::Words)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_ignore_case_separators_and_inflection() {
        assert_eq!(words("getTinyImages"), words("get-tiny-image"));
        assert_eq!(words("get_file_contents"), words("getFileContent"));
        assert_eq!(words("listIssues"), words("list-issue"));
        assert_eq!(words("update_issue"), words("updated-issues"));
        assert_ne!(words("add"), words("get-sum"));
    }

    /// The same words, not one's words inside the other's; spelling beats inflection.
    #[test]
    fn closeness_is_the_same_words() {
        assert_eq!(closeness("printEnv", "get-env"), None);
        assert_eq!(
            closeness("longRunningOperation", "trigger-long-running-operation"),
            None
        );
        assert_eq!(closeness("getTinyImage", "get-tiny-image-fast"), None);
        assert_eq!(
            closeness("getTinyImage", "get-tiny-image"),
            Some(Closeness::Spelling)
        );
        assert_eq!(
            closeness("getTinyImages", "get-tiny-image"),
            Some(Closeness::Words)
        );
        assert!(Closeness::Spelling > Closeness::Words);
        assert_eq!(closeness("echo", "sum"), None);
        // Many extra words: no score arithmetic to overflow.
        // (The old score, `shared * 10 - symmetric difference` in a usize, overflowed here.)
        let long: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        assert_eq!(closeness("b", &format!("{}-b", long.join("-"))), None);
    }
}
