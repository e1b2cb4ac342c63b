//! The seed scheme every property test of this workspace follows, so that each commit explores
//! new cases and any failure can be replayed:
//!
//! - the seed comes from the commit being tested (the first 16 hex digits of
//!   `git rev-parse HEAD`); outside a git checkout (a source package) it is a fresh random seed,
//!   printed like any other, so that such runs explore new cases too rather than the same
//!   ones every time;
//! - `FUZZ_SEED=0x...` (or decimal) replays a run, `FUZZ_SEED=random` picks a fresh seed;
//! - every runner prints the seed and the line that replays it, which the test harness shows
//!   when the test fails;
//! - `FUZZ_CASES` sets the number of cases of every property that asks [`cases`].
//!
//! A malformed `FUZZ_SEED` fails every property rather than running some other seed.

use std::process::Command;
use std::sync::OnceLock;

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// The number of cases per property: `FUZZ_CASES` when set, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `FUZZ_SEED`'s value: a u64 in decimal or `0x` hex.
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A fresh seed (`RandomState`'s keys are random per instance).
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// The commit being tested, when this is a git checkout with git installed.
fn commit() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let id = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()))
        .then_some(id)
}

/// The seed of every property in this run, and where it came from (`"commit <id>"`,
/// `"FUZZ_SEED"`, ...).
///
/// # Panics
///
/// When `FUZZ_SEED` is set to something that is not a seed: a property must not quietly run
/// another seed than the one asked for.
pub fn seed() -> (u64, &'static str) {
    static SEED: OnceLock<(u64, String)> = OnceLock::new();
    let (seed, from) = SEED.get_or_init(|| match std::env::var("FUZZ_SEED") {
        Ok(text) if text.trim() == "random" => (random(), "FUZZ_SEED=random".to_owned()),
        Ok(text) => match parse_seed(&text) {
            Some(seed) => (seed, "FUZZ_SEED".to_owned()),
            None => panic!(
                "FUZZ_SEED={text:?} is not a seed: give a u64 in decimal or 0x hex (as printed \
                 by a failing run), or `random`"
            ),
        },
        Err(std::env::VarError::NotUnicode(text)) => {
            panic!("FUZZ_SEED={text:?} is not a seed: give a u64 in decimal or 0x hex")
        }
        Err(std::env::VarError::NotPresent) => match commit() {
            Some(id) => (
                u64::from_str_radix(&id[..16], 16).expect("16 hex digits"),
                format!("commit {id}"),
            ),
            None => (random(), "not a git checkout: a random seed".to_owned()),
        },
    });
    (*seed, from.as_str())
}

/// A proptest configuration of `cases` cases from the run's seed, after printing the seed.
///
/// With `source_file` (an absolute path, `concat!(env!("CARGO_MANIFEST_DIR"), "/tests/x.rs")`),
/// a failing case is saved in a `proptest-regressions` file beside it and every saved case is
/// replayed first; without, nothing is saved (unit tests inside `src/`, whose regressions would
/// land in the source tree, replay through the printed seed instead).
pub fn config(cases: u32, source_file: Option<&'static str>) -> Config {
    let (seed, from) = seed();
    println!("fuzz seed {seed:#x} ({from}); replay with FUZZ_SEED={seed:#x}");
    Config {
        cases,
        failure_persistence: source_file.map(|_| {
            Box::new(FileFailurePersistence::WithSource("proptest-regressions")) as Box<_>
        }),
        rng_seed: RngSeed::Fixed(seed),
        source_file,
        ..Config::default()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_seed;

    #[test]
    fn seeds_are_read_in_hex_and_decimal() {
        assert_eq!(parse_seed("0x1F"), Some(31));
        assert_eq!(parse_seed(" 0X1f "), Some(31));
        assert_eq!(parse_seed("31"), Some(31));
        assert_eq!(parse_seed("0x"), None);
        assert_eq!(parse_seed("thirty"), None);
        assert_eq!(parse_seed("-1"), None);
    }
}
