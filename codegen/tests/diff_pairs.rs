//! `diff` on real releases of published servers (`tests/fixtures/diff/`), judged against
//! expectations written by hand from the two captures (`expected.toml` in each pair's
//! directory), not against the engine's own output.
//!
//! A pair's report must hold exactly the expected changes, compared as a set of
//! `(tool, rule, pointer, severity)`: every expected change present, nothing else. An expected
//! `tool-removed` with `renamed_to` must say "probably renamed to `X`"; one without must guess
//! no rename.
//!
//! Where the engine is wrong, the entry says so in `known_engine_defect` (why, and what is
//! right): an entry with `expected = false` is a change the engine reports and should not, one
//! without is a right change the engine misses. The test prints each such case and does not
//! fail on it; it fails when the engine stops making the mistake, so the marker goes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::capture;
use mcp_bindgen_codegen::diff::{self, Level, Options, Report};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expectation {
    /// `wire` (default) or `source`.
    #[serde(default)]
    level: Option<String>,
    #[serde(default, rename = "change")]
    changes: Vec<Expected>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    tool: String,
    rule: String,
    /// JSON pointer into the tool; `""` for the tool itself.
    pointer: String,
    severity: String,
    /// Why, in a few words.
    note: String,
    /// For `tool-removed`: the successor the message must name.
    #[serde(default)]
    renamed_to: Option<String>,
    /// The engine disagrees here; what is right and why.
    #[serde(default)]
    known_engine_defect: Option<String>,
    /// `false`: the engine reports this change, wrongly (with `known_engine_defect`).
    #[serde(default = "yes")]
    expected: bool,
}

fn yes() -> bool {
    true
}

type Key = (String, String, String, String);

impl Expected {
    fn key(&self) -> Key {
        (
            self.tool.clone(),
            self.rule.clone(),
            self.pointer.clone(),
            self.severity.clone(),
        )
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

fn pairs_dir() -> PathBuf {
    workspace().join("tests/fixtures/diff")
}

fn show(key: &Key) -> String {
    let (tool, rule, pointer, severity) = key;
    let pointer = if pointer.is_empty() { "-" } else { pointer };
    format!("{severity} {rule} {tool} {pointer}")
}

/// Compares one pair's report with its expectation; returns the failures (empty: it holds).
fn check_pair(name: &str) -> Result<Vec<String>, String> {
    let dir = pairs_dir().join(name);
    let text = std::fs::read_to_string(dir.join("expected.toml"))
        .map_err(|e| format!("{name}/expected.toml: {e}"))?;
    let expectation: Expectation =
        toml::from_str(&text).map_err(|e| format!("{name}/expected.toml: {e}"))?;
    let level = match expectation.level.as_deref() {
        None | Some("wire") => Level::Wire,
        Some("source") => Level::Source,
        Some(other) => return Err(format!("{name}: unknown level {other:?}")),
    };
    let old = capture::read(&dir.join("old.tools.json")).map_err(|e| e.to_string())?;
    let new = capture::read(&dir.join("new.tools.json")).map_err(|e| e.to_string())?;
    let report = diff::diff(&old, &new, &Options { level });
    Ok(compare(name, &expectation, &report))
}

fn compare(name: &str, expectation: &Expectation, report: &Report) -> Vec<String> {
    let mut failures = Vec::new();
    let mut expected: BTreeMap<Key, &Expected> = BTreeMap::new();
    for e in &expectation.changes {
        if !e.expected && e.known_engine_defect.is_none() {
            failures.push(format!(
                "{name}: `expected = false` without `known_engine_defect`: {}",
                show(&e.key())
            ));
        }
        if diff::rules::lookup(&e.rule).is_none() {
            failures.push(format!("{name}: no rule {:?}", e.rule));
        }
        if e.note.trim().is_empty() {
            failures.push(format!("{name}: no note on {}", show(&e.key())));
        }
        if expected.insert(e.key(), e).is_some() {
            failures.push(format!("{name}: listed twice: {}", show(&e.key())));
        }
    }
    let mut reported: BTreeMap<Key, &diff::Change> = BTreeMap::new();
    for c in &report.changes {
        let key = (
            c.tool.clone(),
            c.rule.clone(),
            c.pointer.clone(),
            c.severity.as_str().to_owned(),
        );
        if reported.insert(key.clone(), c).is_some() {
            failures.push(format!("{name}: the engine reports twice: {}", show(&key)));
        }
    }
    let keys: BTreeSet<&Key> = expected.keys().chain(reported.keys()).collect();
    for key in keys {
        let (e, r) = (expected.get(key), reported.get(key));
        match (e, r) {
            (None, Some(r)) => {
                failures.push(format!("{name}: unexpected: {}: {}", show(key), r.message))
            }
            (Some(e), None) if e.expected => match &e.known_engine_defect {
                Some(why) => {
                    eprintln!("{name}: known engine defect (missed): {}: {why}", show(key))
                }
                None => failures.push(format!("{name}: missing: {} ({})", show(key), e.note)),
            },
            (Some(e), Some(_)) if !e.expected => eprintln!(
                "{name}: known engine defect (wrongly reported): {}: {}",
                show(key),
                e.known_engine_defect.as_deref().unwrap_or_default()
            ),
            (Some(e), Some(_)) if e.known_engine_defect.is_some() => failures.push(format!(
                "{name}: the engine now reports {} as it should: remove known_engine_defect",
                show(key)
            )),
            (Some(_), None) => failures.push(format!(
                "{name}: the engine no longer reports {}: remove the entry and its \
                 known_engine_defect",
                show(key)
            )),
            _ => {}
        }
        if let (Some(e), Some(r)) = (e, r)
            && e.rule == "tool-removed"
        {
            let guessed = r.message.contains("probably renamed to");
            match &e.renamed_to {
                Some(to) if !r.message.contains(&format!("probably renamed to `{to}`")) => failures
                    .push(format!(
                        "{name}: {} should be probably renamed to `{to}`: {}",
                        e.tool, r.message
                    )),
                None if guessed => failures.push(format!(
                    "{name}: {} guesses a rename the expectation does not: {}",
                    e.tool, r.message
                )),
                _ => {}
            }
        }
    }
    failures
}

/// Every pair has its hand-written expectation, and the engine's report matches each.
#[test]
fn release_pairs_match_their_hand_written_expectations() {
    let mut names: Vec<String> = std::fs::read_dir(pairs_dir())
        .expect("tests/fixtures/diff")
        .map(|e| e.expect("entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    let mut out = String::new();
    for name in &names {
        match check_pair(name) {
            Ok(failures) => {
                for f in failures {
                    writeln!(out, "{f}").expect("string");
                }
            }
            Err(e) => writeln!(out, "{e}").expect("string"),
        }
    }
    assert!(out.is_empty(), "{out}");
}

/// The comparison can fail: a missing change, an unexpected one and a wrong rename are caught.
#[test]
fn a_wrong_expectation_fails() {
    let dir = pairs_dir().join("mcp-server-git");
    let old = capture::read(&dir.join("old.tools.json")).expect("old");
    let new = capture::read(&dir.join("new.tools.json")).expect("new");
    let report = diff::diff(&old, &new, &Options::default());
    let expectation: Expectation = toml::from_str(
        r#"
        [[change]]
        tool = "git_diff"
        rule = "tool-added"
        pointer = ""
        severity = "info"
        note = "new tool"

        [[change]]
        tool = "git_log"
        rule = "input-property-added"
        pointer = "/inputSchema/properties/nonsense"
        severity = "info"
        note = "not in the capture"
        "#,
    )
    .expect("toml");
    let failures = compare("mcp-server-git", &expectation, &report).join("\n");
    assert!(
        failures.contains(
            "missing: info input-property-added git_log /inputSchema/properties/nonsense"
        ),
        "{failures}"
    );
    assert!(
        failures.contains("unexpected: info tool-added git_show -"),
        "{failures}"
    );
    assert!(
        !failures.contains("git_diff -"),
        "git_diff was expected: {failures}"
    );
}

/// A `known_engine_defect` is printed, not failed on, while the engine makes the mistake, and
/// fails once it stops: a missed change, a wrong one, and one the engine now gets right.
#[test]
fn known_engine_defects_hold_until_fixed() {
    let dir = pairs_dir().join("mcp-server-git");
    let old = capture::read(&dir.join("old.tools.json")).expect("old");
    let new = capture::read(&dir.join("new.tools.json")).expect("new");
    let report = diff::diff(&old, &new, &Options::default());
    let mut expectation: Expectation =
        toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).expect("expected.toml"))
            .expect("toml");
    assert!(compare("mcp-server-git", &expectation, &report).is_empty());
    let extra: Expectation = toml::from_str(
        r#"
        [[change]]
        tool = "git_log"
        rule = "input-property-added"
        pointer = "/inputSchema/properties/nonsense"
        severity = "info"
        note = "missed by the engine"
        known_engine_defect = "test: a change the engine misses"
        "#,
    )
    .expect("toml");
    expectation.changes.extend(extra.changes);
    // The engine's right `git_show` is declared wrong.
    let show = expectation
        .changes
        .iter_mut()
        .find(|e| e.tool == "git_show")
        .expect("git_show");
    show.expected = false;
    show.known_engine_defect = Some("test: a change the engine reports wrongly".into());
    assert!(compare("mcp-server-git", &expectation, &report).is_empty());
    // A marker on a change the engine reports as expected is stale.
    let branch = expectation
        .changes
        .iter_mut()
        .find(|e| e.tool == "git_branch")
        .expect("git_branch");
    branch.known_engine_defect = Some("test: stale".into());
    let failures = compare("mcp-server-git", &expectation, &report).join("\n");
    assert!(
        failures.contains("now reports info tool-added git_branch - as it should"),
        "{failures}"
    );
    // A wrong change without its reason is refused.
    let show = expectation
        .changes
        .iter_mut()
        .find(|e| e.tool == "git_show")
        .expect("git_show");
    show.known_engine_defect = None;
    let failures = compare("mcp-server-git", &expectation, &report).join("\n");
    assert!(
        failures.contains("`expected = false` without `known_engine_defect`"),
        "{failures}"
    );
}

/// A rename the expectation names must be the one the report guesses, and none where it names
/// none.
#[test]
fn a_wrong_rename_fails() {
    let dir = pairs_dir().join("server-everything");
    let old = capture::read(&dir.join("old.tools.json")).expect("old");
    let new = capture::read(&dir.join("new.tools.json")).expect("new");
    let report = diff::diff(&old, &new, &Options::default());
    let mut expectation: Expectation =
        toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).expect("expected.toml"))
            .expect("toml");
    for e in &mut expectation.changes {
        match e.tool.as_str() {
            "printEnv" => e.renamed_to = Some("get-env".into()),
            "add" => e.renamed_to = None,
            _ => {}
        }
    }
    let failures = compare("server-everything", &expectation, &report).join("\n");
    assert!(
        failures.contains("printEnv should be probably renamed to `get-env`"),
        "{failures}"
    );
    assert!(
        failures.contains("add guesses a rename the expectation does not"),
        "{failures}"
    );
}
