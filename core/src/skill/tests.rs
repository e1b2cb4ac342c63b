use serde_json::json;

use super::*;

const SKILL: &str = "---\nname: arena\ndescription: How to play the arena\nmetadata:\n  \
                     version: 2.1\n  tag: \"2.1\"\n  flags: [yes, true]\n---\n# Arena\n";

fn entry(text: &str) -> SkillEntry {
    let (frontmatter, _) = frontmatter(text).unwrap();
    SkillEntry {
        uri: "skill://arena/SKILL.md".into(),
        frontmatter,
        files: SkillFiles::Listed(vec![
            SkillFile::of("skill://arena/SKILL.md", text.as_bytes()),
            SkillFile::of("skill://arena/references/RULES.md", b"rules"),
        ]),
    }
}

#[test]
fn frontmatter_is_yaml_1_2_typed_as_json() {
    let (front, body) = frontmatter(SKILL).unwrap();
    assert_eq!(body, "# Arena\n");
    assert_eq!(
        Value::Object(front),
        json!({"name": "arena", "description": "How to play the arena",
               "metadata": {"version": 2.1, "tag": "2.1", "flags": ["yes", true]}})
    );
    // CRLF lines, a byte-order mark, spaces after the closing line, no body.
    let (front, body) = frontmatter("\u{feff}---\r\nname: a\r\ndescription: b\r\n--- \t").unwrap();
    assert_eq!(front["description"], "b");
    assert_eq!(body, "");
}

#[test]
fn frontmatter_errors_name_the_line() {
    let e = frontmatter("# no frontmatter\n").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("---"), "{e}");
    let e = frontmatter("---\nname: a\n").unwrap_err();
    assert!(e.message.contains("closing"), "{e}");
    let e = frontmatter("---\nname: a\ndescription: b: c\nlicense: x\n---\n").unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let e = frontmatter("---\n- a list\n---\n").unwrap_err();
    assert!(e.message.contains("mapping"), "{e}");
    let e = frontmatter("---\nname: a\nlimit: .inf\n---\n").unwrap_err();
    assert!(e.message.contains("finite"), "{e}");
}

#[test]
fn names_follow_the_rules() {
    for good in ["a", "pdf-processing", "x9", &"a".repeat(64)] {
        assert!(check_name(good).is_ok(), "{good}");
    }
    for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_server_checks_the_frontmatter_against_its_folder() {
    let (front, _) = frontmatter(SKILL).unwrap();
    assert!(check_frontmatter(&front, "arena").is_ok());
    let e = check_frontmatter(&front, "other").unwrap_err();
    assert!(e.contains("other") && e.contains("arena"), "{e}");
    for (text, says) in [
        ("---\ndescription: d\n---\n", "no `name`"),
        ("---\nname: arena\n---\n", "no `description`"),
        (
            "---\nname: arena\ndescription: \" \"\n---\n",
            "no `description`",
        ),
        (
            "---\nname: Arena\ndescription: d\n---\n",
            "not a skill name",
        ),
        (
            "---\nname: arena\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n",
            "reserves",
        ),
        (
            "---\nname: arena\ndescription: d\ncompatibility: \"\"\n---\n",
            "compatibility",
        ),
    ] {
        let (front, _) = frontmatter(text).unwrap();
        let e = check_frontmatter(&front, "arena").unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn a_client_verifies_size_digest_and_frontmatter() {
    let entry = entry(SKILL);
    assert_eq!(entry.root(), "skill://arena");
    assert_eq!(entry.name(), "arena");
    assert_eq!(
        entry.resolve("references/RULES.md"),
        "skill://arena/references/RULES.md"
    );
    entry.check_instructions(SKILL.as_bytes()).unwrap();
    let longer = format!("{SKILL}more");
    assert!(matches!(
        entry.check_instructions(longer.as_bytes()),
        Err(Mismatch::Size { .. })
    ));
    let changed = SKILL.replace("# Arena", "# Arenb");
    assert!(matches!(
        entry.check_instructions(changed.as_bytes()),
        Err(Mismatch::Digest { .. })
    ));
    // A listing made from the changed file: digest and size fit, the frontmatter does not.
    let tampered = SKILL.replace("How to play", "How to win");
    let mut listed = entry.clone();
    listed.files = SkillFiles::Listed(vec![SkillFile::of(&entry.uri, tampered.as_bytes())]);
    match listed.check_instructions(tampered.as_bytes()) {
        Err(Mismatch::Frontmatter { key, .. }) => assert_eq!(key, "description"),
        other => panic!("{other:?}"),
    }
    // Dynamic files: no digest to check, the frontmatter still is.
    listed.files = SkillFiles::Dynamic;
    assert!(listed.check_instructions(tampered.as_bytes()).is_err());
    assert!(listed.check_instructions(SKILL.as_bytes()).is_ok());
    let file = entry.file("skill://arena/references/RULES.md").unwrap();
    assert!(file.verify(b"rules").is_ok());
    assert!(file.verify(b"rulez").is_err());
}

#[test]
fn entries_round_trip_and_bad_ones_are_refused_with_a_reason() {
    let entry = entry(SKILL);
    let wire = entry.to_json();
    assert_eq!(SkillEntry::from_json(&wire).unwrap(), entry);
    let digest = wire["resources"][0]["digest"].clone();
    assert!(digest.as_str().unwrap().len() == 71);
    let bad = |edit: &dyn Fn(&mut Value), says: &str| {
        let mut wire = wire.clone();
        edit(&mut wire);
        let e = SkillEntry::from_json(&wire).unwrap_err();
        assert!(e.contains(says), "{says}: {e}");
    };
    bad(
        &|w| w["uri"] = json!("skill://other/SKILL.md"),
        "folder other",
    );
    bad(
        &|w| w["uri"] = json!("skill://arena/README.md"),
        "/SKILL.md",
    );
    bad(&|w| w["resources"] = json!({}), "neither");
    bad(
        &|w| drop(w["resources"].as_array_mut().unwrap().remove(0)),
        "SKILL.md",
    );
    bad(
        &|w| w["resources"][1]["uri"] = json!("skill://elsewhere/x"),
        "outside",
    );
    bad(&|w| w["resources"][1] = w["resources"][0].clone(), "twice");
    bad(
        &|w| w["resources"][1]["digest"] = json!("sha256:ABC"),
        "digest",
    );
    bad(&|w| w["resources"][1]["size"] = json!(-1), "size");
    bad(
        &|w| w["frontmatter"] = json!({"name": "arena"}),
        "description",
    );
    // Past the extension's limits: refused before anything of the skill is read.
    bad(&|w| w["resources"][1]["size"] = json!(MAX_BYTES), "16 MiB");
    bad(
        &|w| {
            let file = w["resources"][1].clone();
            let files = w["resources"].as_array_mut().unwrap();
            for i in 0..MAX_FILES {
                let mut more = file.clone();
                more["uri"] = json!(format!("skill://arena/f{i}"));
                files.push(more);
            }
        },
        "more than the 512",
    );
    let mut dynamic = wire.clone();
    dynamic["resources"] = json!("dynamic");
    assert_eq!(
        SkillEntry::from_json(&dynamic).unwrap().files,
        SkillFiles::Dynamic
    );
    // A nested skill path: the folder before SKILL.md is the name.
    let mut nested = wire;
    nested["uri"] = json!("skill://acme/games/arena/SKILL.md");
    nested["resources"] = json!([{"uri": "skill://acme/games/arena/SKILL.md",
                                  "digest": digest, "size": 1}]);
    assert_eq!(
        SkillEntry::from_json(&nested).unwrap().root(),
        "skill://acme/games/arena"
    );
}

#[test]
fn mime_types_come_from_the_extension() {
    assert_eq!(mime_type("SKILL.md"), "text/markdown");
    assert_eq!(mime_type("scripts/run.PY"), "text/x-python");
    assert_eq!(mime_type("LICENSE"), "application/octet-stream");
}
