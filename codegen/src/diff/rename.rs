//! Matching a removed tool to the added tool it was probably renamed to.
//!
//! A candidate accepts every call the removed tool accepted: its `inputSchema` compared with
//! the old one as a request has no breaking change (descriptions, titles and a dropped
//! `additionalProperties: false` do not matter). Among the candidates, a tool whose name is
//! close wins (the names' words, compared without case, separators or inflection, are the same
//! or one's words include the other's); else the only candidate, when there is exactly one.

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

/// How close two names are: `None` when not close, else a score (higher is closer).
pub(crate) fn closeness(old: &str, new: &str) -> Option<usize> {
    let (a, b) = (words(old), words(new));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let shared = a.intersection(&b).count();
    if a == b {
        Some(1000)
    } else if a.is_subset(&b) || b.is_subset(&a) {
        Some(shared * 10 - a.symmetric_difference(&b).count())
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

    #[test]
    fn closeness_prefers_equal_words_then_inclusion() {
        assert_eq!(closeness("printEnv", "get-env"), None);
        assert!(closeness("longRunningOperation", "trigger-long-running-operation").is_some());
        assert!(
            closeness("getTinyImage", "get-tiny-image")
                > closeness("getTinyImage", "get-tiny-image-fast")
        );
        assert_eq!(closeness("echo", "sum"), None);
    }
}
