//! Every Rust snippet in README.md and in the guide's chapters (`book/src/*.md`) compiles, and
//! those that can run do; every TOML block that declares dependencies resolves.
//!
//! Each ```` ```rust ```` block has a marker on the line before it, an HTML comment that GitHub
//! does not show, saying how it is checked:
//!
//! - `<!-- readme: items -->`: the block is a file's items (a whole program, a build.rs), compiled
//!   as a module of its own;
//! - `<!-- readme: fn(PARAMS) [run] [use ...;]... -->`: the block is statements, compiled as the
//!   body of `async fn snippet(PARAMS) -> Result<(), Box<dyn Error>>` in a module with those
//!   `use` lines (the `client` or `url` the statements assume); `run` runs it (only for
//!   `fn()`);
//! - `<!-- readme: same-as PATH -->`: the block is that file of the workspace, byte for byte
//!   but for a first line `// NAME` naming it, or from the file's first `use` (a file other
//!   tests build and run);
//! - `<!-- readme: skip: REASON -->`: not compiled, for the reason given.
//!
//! The snippets are written into `readme/snippets.rs`, which the test target `readme_snippets`
//! compiles (and runs what can run): a snippet that no longer compiles fails that build. When
//! README.md or a chapter changes, this test fails until `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests
//! --test readme` writes the file again. What a fragment assumes (a `Game`, the application's
//! agent) is in `readme_snippets.rs`'s `support`.

/// A block of a page and how it is checked.
struct Block {
    /// The page, from the workspace's root (`README.md`, `book/src/events.md`).
    file: String,
    line: usize,
    marker: String,
    code: String,
}

/// The pages whose snippets are checked: the README, then the guide's chapters by name.
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_owned()];
    let mut chapters: Vec<String> = std::fs::read_dir(root().join("book/src"))
        .expect("book/src")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && n != "SUMMARY.md")
        .map(|n| format!("book/src/{n}"))
        .collect();
    chapters.sort();
    names.extend(chapters);
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root().join(&name))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect()
}

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every ```` ```rust ```` block of the page `file`, with the marker on the line before it.
fn blocks(file: &str, readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("```rust") {
            let start = i;
            let end = (start + 1..lines.len())
                .find(|&j| lines[j].starts_with("```"))
                .unwrap_or_else(|| panic!("{file}:{}: the block never ends", start + 1));
            let marker = start
                .checked_sub(1)
                .map(|p| lines[p].trim())
                .and_then(|l| l.strip_prefix("<!-- readme:"))
                .and_then(|l| l.strip_suffix("-->"))
                .map(|m| m.trim().to_owned())
                .unwrap_or_else(|| {
                    panic!(
                        "{file}:{}: a Rust block without a `<!-- readme: ... -->` marker on the \
                         line before it (see tests/tests/readme.rs for the kinds)",
                        start + 1
                    )
                });
            let mut code = lines[start + 1..end].join("\n");
            code.push('\n');
            blocks.push(Block {
                file: file.to_owned(),
                line: start + 1,
                marker,
                code,
            });
            i = end;
        }
        i += 1;
    }
    blocks
}

fn indent(code: &str, by: &str) -> String {
    code.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{by}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module that compiles `block`, and a test that runs it when its marker says `run`.
fn module(block: &Block) -> String {
    let stem = std::path::Path::new(&block.file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("page")
        .to_lowercase()
        .replace('-', "_");
    let name = format!("{stem}_line_{}", block.line);
    let allow = "#[allow(unused, unreachable_code, unnameable_test_items, clippy::all)]";
    let header = format!(
        "/// {} line {}: `{}`.\n{allow}\nmod {name} {{\n",
        block.file, block.line, block.marker
    );
    if block.marker == "items" {
        return format!(
            "{header}    use super::support::*;\n\n{}\n}}\n",
            indent(&block.code, "    ")
        );
    }
    let rest = block.marker.strip_prefix("fn(").unwrap_or_else(|| {
        panic!(
            "{}:{}: unknown marker {:?}",
            block.file, block.line, block.marker
        )
    });
    let (params, rest) = rest
        .split_once(')')
        .unwrap_or_else(|| panic!("{}:{}: `fn(` without `)`", block.file, block.line));
    let run = rest.trim_start().starts_with("run");
    let uses: Vec<String> = rest
        .split(';')
        .filter_map(|part| {
            part.trim()
                .trim_start_matches("run")
                .trim()
                .strip_prefix("use ")
        })
        .map(|path| format!("    use {};\n", path.trim()))
        .collect();
    let mut out = format!(
        "{header}    use super::support::*;\n{}\n    pub(super) async fn snippet({params}) -> Result<(), Box<dyn std::error::Error>> {{\n{}\n        Ok(())\n    }}\n}}\n",
        uses.concat(),
        indent(&block.code, "        ")
    );
    if run {
        assert!(
            params.trim().is_empty(),
            "{}:{}: only a snippet without parameters can run",
            block.file,
            block.line
        );
        out.push_str(&format!(
            "\n#[test]\nfn {name}_runs() {{\n    pollster::block_on({name}::snippet()).expect(\"the snippet runs\");\n}}\n"
        ));
    }
    out
}

#[test]
fn every_rust_snippet_in_the_readme_and_the_guide_is_compiled_or_the_file_it_shows() {
    let mut generated = String::from(
        "// @generated by tests/tests/readme.rs from the Rust blocks of README.md and book/src/:\n\
         // do not edit; run `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test readme` after\n\
         // changing them.\n\n\
         use super::support;\n",
    );
    let mut skipped = Vec::new();
    let pages = pages();
    for block in pages.iter().flat_map(|(file, text)| blocks(file, text)) {
        if let Some(path) = block.marker.strip_prefix("same-as ") {
            let path = path.trim();
            let file = std::fs::read_to_string(root().join(path))
                .unwrap_or_else(|e| panic!("{}:{}: {path}: {e}", block.file, block.line));
            // A first line `// build.rs` names the file for the reader.
            let code = match block.code.split_once('\n') {
                Some((first, rest))
                    if first
                        .strip_prefix("// ")
                        .is_some_and(|name| path.ends_with(name.trim())) =>
                {
                    rest
                }
                _ => &block.code,
            };
            // A file whose header comment the README leaves out is compared from its first `use`.
            let from_use = file.find("\nuse ").map_or("", |at| &file[at + 1..]);
            assert!(
                file.trim_end() == code.trim_end() || from_use.trim_end() == code.trim_end(),
                "{}:{}: the block is no longer {path} as it is: paste the file again",
                block.file,
                block.line
            );
        } else if let Some(reason) = block.marker.strip_prefix("skip:") {
            assert!(
                !reason.trim().is_empty(),
                "{}:{}: skip says why",
                block.file,
                block.line
            );
            skipped.push(format!("{}:{}", block.file, block.line));
        } else {
            generated.push('\n');
            generated.push_str(&module(&block));
        }
    }
    assert!(skipped.len() <= 1, "skipped: {skipped:?}");
    expect_test::expect_file!["readme/snippets.rs"].assert_eq(&generated);
}

/// Every TOML block of the README and the guide that declares dependencies resolves as pasted
/// into a new crate beside a clone of this repository (`../mcp-bindgen/...` made to point at
/// this checkout): a crate named but not published, or a path that moved, fails here with the
/// page and line, as it would fail for a reader (`no matching package named ...`).
#[test]
fn every_dependency_block_in_the_readme_and_the_guide_resolves_against_this_checkout() {
    let root = root();
    let mut checked = 0;
    for (file, text) in pages() {
        checked += dependency_blocks(&root, &file, &text);
    }
    assert!(
        checked >= 2,
        "Getting started's and the Bevy chapter's blocks: {checked}"
    );
}

/// Checks the page's TOML blocks that declare dependencies; how many it checked.
fn dependency_blocks(root: &std::path::Path, file: &str, text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut checked = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```toml" {
            i += 1;
            continue;
        }
        let start = i + 1;
        let end = (start..lines.len())
            .find(|&j| lines[j].trim() == "```")
            .unwrap_or_else(|| panic!("{file}:{start}: the block never ends"));
        let block = lines[start..end].join("\n");
        i = end + 1;
        if !block.contains("dependencies]") {
            continue; // a bindings manifest, not a crate's
        }
        let dir = tempfile::tempdir().expect("a scratch directory");
        let checkout = root.display().to_string();
        let manifest = format!(
            "[package]\nname = \"readme-block-{start}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n{}\n\n[workspace]\n",
            block.replace("../mcp-bindgen/", &format!("{checkout}/"))
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("Cargo.toml");
        std::fs::create_dir(dir.path().join("src")).expect("src");
        std::fs::write(dir.path().join("src/lib.rs"), "").expect("lib.rs");
        let output = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1"])
            .current_dir(dir.path())
            .output()
            .expect("runs cargo metadata");
        assert!(
            output.status.success(),
            "{file}:{start}: the dependencies of this block do not resolve against this \
             checkout:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        checked += 1;
    }
    checked
}

/// The guide's `SUMMARY.md` lists every chapter once and nothing else, and the README stays a
/// front page (the topics are the guide's): at most 300 lines.
#[test]
fn the_guide_lists_every_chapter_and_the_readme_stays_short() {
    let summary = std::fs::read_to_string(root().join("book/src/SUMMARY.md")).expect("SUMMARY.md");
    let mut listed: Vec<String> = summary
        .lines()
        .filter_map(|l| l.split_once("](")?.1.strip_suffix(')').map(str::to_owned))
        .collect();
    listed.sort();
    let mut chapters: Vec<String> = pages()
        .into_iter()
        .filter_map(|(name, _)| name.strip_prefix("book/src/").map(str::to_owned))
        .collect();
    chapters.sort();
    assert_eq!(
        listed, chapters,
        "book/src/SUMMARY.md and the chapters in book/src/"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md is {lines} lines: move the topic to a chapter of book/src/"
    );
}
