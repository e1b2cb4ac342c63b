//! Agent Skills served by the registry (`io.modelcontextprotocol/skills`), through `dispatch`
//! in both eras: registration from a folder and from memory (and every refusal, with its path),
//! `skills/list`, `skills/get`, `resources/list`, `resources/read` and
//! `resources/directory/read`, the declared extension, and re-registration.
#![cfg(feature = "server")]

use std::path::Path;

use mcp_bindgen::server::{Registry, Skill};
use serde_json::{Value, json};

const SKILL_MD: &str = "---\nname: arena\ndescription: How to play the arena\nmetadata:\n  \
                        version: 2.1\n---\n# Arena\n\nSpawn first, then read \
                        [the rules](references/RULES.md).\n";

fn request(modern: bool, id: u64, method: &str, mut params: Value) -> String {
    if modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        });
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn ask(registry: &mut Registry<()>, modern: bool, method: &str, params: Value) -> Value {
    let text = registry
        .dispatch(&mut (), &request(modern, 1, method, params))
        .expect("an answer");
    serde_json::from_str(&text).expect("JSON")
}

fn write(dir: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn arena(root: &Path) -> std::path::PathBuf {
    let dir = root.join("arena");
    write(
        &dir,
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("references/RULES.md", b"# Rules\n"),
            ("references/maps/small.json", b"{\"w\":8}"),
            ("icon.png", &[0x89, b'P', b'N', b'G', 0xff, 0x00]),
            (".DS_Store", b"ignored"),
        ],
    );
    dir
}

fn sha256(bytes: &[u8]) -> String {
    mcp_bindgen_core::digest::digest_bytes(bytes)
}

#[test]
fn a_skill_folder_is_listed_read_and_browsed_in_both_eras() {
    let root = tempfile::tempdir().unwrap();
    let mut registry = Registry::<()>::new("game", "1");
    assert_eq!(registry.register_skills_dir(root.path()).unwrap(), 0);
    arena(root.path());
    assert_eq!(registry.register_skills_dir(root.path()).unwrap(), 1);

    for modern in [true, false] {
        let list = ask(&mut registry, modern, "skills/list", json!({}));
        let result = &list["result"];
        assert_eq!(result["ttlMs"].is_u64(), modern, "{list}");
        assert_eq!(result["cacheScope"].is_string(), modern);
        let entry = &result["skills"][0];
        assert_eq!(entry["uri"], "skill://arena/SKILL.md");
        assert_eq!(
            entry["frontmatter"],
            json!({"name": "arena", "description": "How to play the arena",
                   "metadata": {"version": 2.1}})
        );
        let files: Vec<&str> = entry["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            [
                "skill://arena/SKILL.md",
                "skill://arena/icon.png",
                "skill://arena/references/RULES.md",
                "skill://arena/references/maps/small.json",
            ]
        );
        assert_eq!(entry["resources"][0]["digest"], sha256(SKILL_MD.as_bytes()));
        assert_eq!(entry["resources"][0]["size"], SKILL_MD.len());

        let got = ask(
            &mut registry,
            modern,
            "skills/get",
            json!({"uri": "skill://arena/SKILL.md"}),
        );
        assert_eq!(&got["result"]["skill"], entry);
        assert!(got["result"].get("nextCursor").is_none());
        assert_eq!(got["result"]["cacheScope"].is_string(), modern);
        let unknown = ask(
            &mut registry,
            modern,
            "skills/get",
            json!({"uri": "skill://nope/SKILL.md"}),
        );
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

        // SKILL.md in resources/list, described by its frontmatter.
        let resources = ask(&mut registry, modern, "resources/list", json!({}));
        assert_eq!(
            resources["result"]["resources"],
            json!([{"uri": "skill://arena/SKILL.md", "name": "arena",
                    "description": "How to play the arena", "mimeType": "text/markdown"}])
        );
        // Every file reads back as the bytes its digest names: text, or base64.
        let read = ask(
            &mut registry,
            modern,
            "resources/read",
            json!({"uri": "skill://arena/SKILL.md"}),
        );
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["text"], SKILL_MD);
        assert_eq!(contents["mimeType"], "text/markdown");
        let icon = ask(
            &mut registry,
            modern,
            "resources/read",
            json!({"uri": "skill://arena/icon.png"}),
        );
        assert_eq!(icon["result"]["contents"][0]["blob"], "iVBOR/8A");
        assert_eq!(icon["result"]["contents"][0]["mimeType"], "image/png");
        let missing = ask(
            &mut registry,
            modern,
            "resources/read",
            json!({"uri": "skill://arena/references/NOPE.md"}),
        );
        assert!(missing["error"]["code"].is_i64(), "{missing}");

        // Directories: direct children, folders typed inode/directory.
        let root_dir = ask(
            &mut registry,
            modern,
            "resources/directory/read",
            json!({"uri": "skill://arena"}),
        );
        assert_eq!(
            root_dir["result"]["resources"],
            json!([
                {"uri": "skill://arena/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
                {"uri": "skill://arena/icon.png", "name": "icon.png", "mimeType": "image/png"},
                {"uri": "skill://arena/references", "name": "references",
                 "mimeType": "inode/directory"},
            ]),
            "{root_dir}"
        );
        let sub = ask(
            &mut registry,
            modern,
            "resources/directory/read",
            json!({"uri": "skill://arena/references"}),
        );
        assert_eq!(sub["result"]["resources"][1]["mimeType"], "inode/directory");
        for not_a_directory in [
            "skill://arena/SKILL.md",
            "skill://arena/references/",
            "skill://other",
        ] {
            let e = ask(
                &mut registry,
                modern,
                "resources/directory/read",
                json!({"uri": not_a_directory}),
            );
            assert_eq!(e["error"]["code"], -32602, "{not_a_directory}: {e}");
        }
    }
}

#[test]
fn the_extension_is_declared_in_both_eras_once_a_skill_is_served() {
    let mut registry = Registry::<()>::new("game", "1");
    let discover = ask(&mut registry, true, "server/discover", json!({}));
    assert!(
        discover["result"]["capabilities"]["extensions"]
            .get("io.modelcontextprotocol/skills")
            .is_none()
    );
    registry.register_skill(Skill::from_files("arena", [("SKILL.md", SKILL_MD)]).unwrap());
    let discover = ask(&mut registry, true, "server/discover", json!({}));
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(capabilities["resources"].is_object());
    let init = ask(
        &mut registry,
        false,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
}

#[test]
fn skills_page_and_reregistration_recomputes_digests_and_announces() {
    let mut registry = Registry::<()>::new("game", "1").with_page_size(2);
    for name in ["a", "b", "c"] {
        let text = format!("---\nname: {name}\ndescription: skill {name}\n---\n");
        registry.register_skill(Skill::from_files(name, [("SKILL.md", text)]).unwrap());
    }
    let first = ask(&mut registry, true, "skills/list", json!({}));
    assert_eq!(first["result"]["skills"].as_array().unwrap().len(), 2);
    let cursor = first["result"]["nextCursor"].clone();
    let second = ask(
        &mut registry,
        true,
        "skills/list",
        json!({"cursor": cursor}),
    );
    assert_eq!(second["result"]["skills"][0]["uri"], "skill://c/SKILL.md");
    assert!(second["result"].get("nextCursor").is_none());

    assert!(registry.changes_pending());
    let _ = ask(&mut registry, true, "server/discover", json!({}));
    let before = registry.skills().next().unwrap().entry().clone();
    let text = "---\nname: a\ndescription: skill a, revised\n---\nNew rules.\n";
    registry.register_skill(Skill::from_files("a", [("SKILL.md", text)]).unwrap());
    let after = registry.skills().next().unwrap().entry().clone();
    assert_ne!(before, after);
    assert_eq!(
        after.file("skill://a/SKILL.md").unwrap().digest,
        sha256(text.as_bytes())
    );
    assert_eq!(registry.skills().count(), 3, "replaced in place");
    assert!(registry.unregister_skill("b"));
    assert!(!registry.unregister_skill("b"));
    assert!(registry.unregister_skill("skill://c/SKILL.md"));
    assert_eq!(registry.skills().count(), 1);
}

#[test]
fn a_skill_can_be_served_under_a_prefix() {
    let skill = Skill::from_files(
        "arena",
        [
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("references/RULES.md", b"r"),
        ],
    )
    .unwrap()
    .under("acme/games");
    assert_eq!(skill.entry().uri, "skill://acme/games/arena/SKILL.md");
    assert!(
        skill
            .entry()
            .file("skill://acme/games/arena/references/RULES.md")
            .is_some()
    );
    let mut registry = Registry::<()>::new("game", "1");
    registry.register_skill(skill);
    let read = ask(
        &mut registry,
        true,
        "resources/read",
        json!({"uri": "skill://acme/games/arena/references/RULES.md"}),
    );
    assert_eq!(read["result"]["contents"][0]["text"], "r");
}

/// Each bad skill is refused when it is made, with the path at fault and what to do.
#[test]
fn bad_skills_are_refused_at_registration_with_their_path() {
    let root = tempfile::tempdir().unwrap();
    let refused = |dir: &Path, path_ends: &str, says: &str| {
        let e = Skill::from_dir(dir).unwrap_err();
        let text = e.to_string();
        assert!(e.path.ends_with(path_ends), "{path_ends}: {text}");
        assert!(text.contains(says), "{says}: {text}");
    };
    let bad = root.path().join("bad");
    write(
        &bad,
        &[("SKILL.md", b"---\nname: bad\ndescription: [x\n---\n")],
    );
    refused(&bad, "bad/SKILL.md", "flow sequence");
    let other = root.path().join("other");
    write(
        &other,
        &[("SKILL.md", b"---\nname: arena\ndescription: d\n---\n")],
    );
    refused(&other, "other/SKILL.md", "its folder is other");
    let empty = root.path().join("empty");
    write(&empty, &[("notes.md", b"no skill here")]);
    refused(&empty, "empty/SKILL.md", "is missing");
    let upper = root.path().join("Upper");
    write(
        &upper,
        &[("SKILL.md", b"---\nname: Upper\ndescription: d\n---\n")],
    );
    refused(&upper, "Upper/SKILL.md", "not a skill name");

    let big = root.path().join("big");
    write(
        &big,
        &[("SKILL.md", b"---\nname: big\ndescription: d\n---\n")],
    );
    std::fs::write(big.join("data.bin"), vec![0u8; 16 * 1024 * 1024 + 1]).unwrap();
    refused(&big, "big/data.bin", "16 MiB");

    #[cfg(unix)]
    {
        let outside = root.path().join("secret.txt");
        std::fs::write(&outside, "not the skill's").unwrap();
        let leaks = root.path().join("leaks");
        write(
            &leaks,
            &[("SKILL.md", b"---\nname: leaks\ndescription: d\n---\n")],
        );
        std::os::unix::fs::symlink(&outside, leaks.join("secret.txt")).unwrap();
        refused(&leaks, "leaks/secret.txt", "outside the skill's folder");
        // A link that stays inside is followed.
        let inside = root.path().join("inside");
        write(
            &inside,
            &[
                ("SKILL.md", b"---\nname: inside\ndescription: d\n---\n"),
                ("a.md", b"A"),
            ],
        );
        std::os::unix::fs::symlink(inside.join("a.md"), inside.join("b.md")).unwrap();
        let skill = Skill::from_dir(&inside).unwrap();
        assert_eq!(skill.entry().file("skill://inside/b.md").unwrap().size, 1);
    }

    // A folder of skills is refused whole when one is bad, naming that one.
    let mut registry = Registry::<()>::new("game", "1");
    let e = registry.register_skills_dir(root.path()).unwrap_err();
    assert!(e.to_string().contains("skill "), "{e}");
    assert_eq!(registry.skills().count(), 0);

    // In memory: paths that leave the skill, and too many files.
    let e = Skill::from_files("m", [("SKILL.md", "x"), ("../x", "y")]).unwrap_err();
    assert!(e.to_string().contains("not a plain path"), "{e}");
    let many = (0..513).map(|i| (format!("f{i}"), "x"));
    let e = Skill::from_files("m", many).unwrap_err();
    assert!(e.to_string().contains("at most 512"), "{e}");
}
