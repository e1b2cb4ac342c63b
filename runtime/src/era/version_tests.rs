use super::*;

#[test]
fn versions_are_listed_newest_first_and_each_era_has_its_latest() {
    let all: Vec<&str> = all_versions().collect();
    let mut sorted = all.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(all, sorted, "VERSIONS must be newest first");
    assert_eq!(versions(Era::Stateless).next(), Some(LATEST_MODERN));
    assert_eq!(versions(Era::Session).next(), Some(LATEST_LEGACY));
    assert_eq!(LATEST_MODERN, "2026-07-28");
    assert_eq!(LATEST_LEGACY, "2025-11-25");
    assert_eq!(era_of("2025-03-26"), Some(Era::Session));
    assert_eq!(era_of("2026-07-28"), Some(Era::Stateless));
    assert_eq!(era_of("2099-01-01"), None);
}
