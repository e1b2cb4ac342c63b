//! The client's skills against the crate's own server over HTTP, in both eras: list without
//! reading, load with the `SKILL.md` verified, supporting files read on demand and verified,
//! an unlisted file refused unread, and a skill withdrawn once one of its files does not
//! verify (a file the server changed behind its listing: a static resource registered at the
//! same URI, which the server reads before skill files).
#![cfg(all(feature = "server", feature = "client"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcp_bindgen::client::Protocol;
use mcp_bindgen::server::{Registry, ResourceDefinition, ServerBuilder, Skill};
use mcp_bindgen::skill::Mismatch;
use mcp_bindgen::{Error, HttpClient, ResourceContents};

const SKILL_MD: &str = "---\nname: arena\ndescription: How to play the arena\n---\n# Arena\n\
                        Read references/RULES.md, then call spawn.\n";

struct Polled {
    url: String,
    stop: Arc<AtomicBool>,
    reads: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A server with the skill `arena`, and a changed `references/MAP.md` served behind its
/// listing. Counts the reads of the shadowing resource.
fn serve() -> Polled {
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let (flag, counted) = (stop.clone(), reads.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let mut registry = Registry::<()>::new("game", "1");
        let skill = Skill::from_files(
            "arena",
            [
                ("SKILL.md", SKILL_MD.as_bytes()),
                ("references/RULES.md", b"# Rules\nNo camping.\n"),
                ("references/MAP.md", b"# Map\n8 by 8\n"),
                ("icon.png", &[0x89, b'P', b'N', b'G', 0xff]),
            ],
        )
        .expect("a skill");
        registry.register_skill(skill);
        let uri = "skill://arena/references/MAP.md";
        registry.register_resource(ResourceDefinition::new(uri, "map"), move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
            Ok(vec![ResourceContents::text(
                uri,
                "text/markdown",
                "# Map\n9 by 9\n",
            )])
        });
        let mut server = ServerBuilder::new()
            .port(0)
            .listen(registry)
            .expect("listens");
        tx.send(server.port()).expect("port");
        while !flag.load(Ordering::Relaxed) {
            if !server.poll(&mut ()) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    });
    let port = rx.recv().expect("port");
    Polled {
        url: format!("http://127.0.0.1:{port}/mcp"),
        stop,
        reads,
        thread: Some(thread),
    }
}

impl Drop for Polled {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_lists_loads_and_verifies_skills_in_both_eras() {
    let server = serve();
    for protocol in [Protocol::Modern, Protocol::Legacy] {
        let client = HttpClient::builder(&server.url)
            .protocol(protocol)
            .connect()
            .await
            .expect("connects");
        let list = client.list_skills().await.expect("skills/list");
        assert!(list.refused.is_empty(), "{:?}", list.refused);
        let entry = &list.skills[0];
        assert_eq!(entry.uri, "skill://arena/SKILL.md");
        assert_eq!(entry.description(), "How to play the arena");
        assert_eq!(
            client.get_skill(&entry.uri).await.expect("skills/get"),
            *entry
        );
        let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
        assert!(
            matches!(unknown, Error::Protocol { code: -32602, .. }),
            "{unknown}"
        );

        let skill = client.load_skill(entry).await.expect("loads");
        assert_eq!(skill.instructions(), SKILL_MD);
        assert!(skill.body().starts_with("# Arena\n"));
        let rules = skill.read_text("references/RULES.md").await.expect("rules");
        assert_eq!(rules, "# Rules\nNo camping.\n");
        let icon = skill.read("skill://arena/icon.png").await.expect("icon");
        assert_eq!(icon, [0x89, b'P', b'N', b'G', 0xff]);

        // Not in the listing: refused before anything is read.
        let reads = server.reads.load(Ordering::Relaxed);
        let unlisted = skill.read("references/SECRET.md").await.unwrap_err();
        assert!(
            matches!(&unlisted, Error::Skill { mismatch: Mismatch::Unlisted, file, .. }
                     if file == "skill://arena/references/SECRET.md"),
            "{unlisted}"
        );
        // Changed behind the listing: refused, and the skill withdrawn.
        let changed = skill.read("references/MAP.md").await.unwrap_err();
        assert_eq!(server.reads.load(Ordering::Relaxed), reads + 1);
        let text = changed.to_string();
        assert!(
            text.contains("skill://arena/references/MAP.md") && text.contains("digest"),
            "{text}"
        );
        let after = skill.read("references/RULES.md").await.unwrap_err();
        assert!(
            matches!(&after, Error::Skill { mismatch: Mismatch::Withdrawn { file }, .. }
                     if file.ends_with("MAP.md")),
            "{after}"
        );
        assert_eq!(server.reads.load(Ordering::Relaxed), reads + 1);

        // A listing whose SKILL.md was changed: the load itself is refused.
        let mut stale = entry.clone();
        stale.frontmatter["description"] = "How to win the arena".into();
        let refused = client.load_skill(&stale).await.unwrap_err();
        assert!(
            matches!(&refused, Error::Skill { mismatch: Mismatch::Frontmatter { key, .. }, .. }
                     if key == "description"),
            "{refused}"
        );
    }
}
