//! Reading a server's Agent Skills (`io.modelcontextprotocol/skills`): list them, then load one
//! when it is needed, each file checked against the listing before it is used. Nothing is read
//! before it is asked for: listing reads no file, loading reads the `SKILL.md`, and a
//! supporting file is read when [`LoadedSkill::read`] asks for it.

use std::sync::Mutex;

use base64::Engine as _;
use mcp_bindgen_core::skill::{Mismatch, SkillEntry, SkillFiles, frontmatter};
use serde_json::{Value, json};

use super::session;
use super::{McpClient, Transport};
use crate::Error;

/// `skills/list`, every page: the entries a client may load, and those it may not.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SkillList {
    /// The entries that are well formed, in the server's order.
    pub skills: Vec<SkillEntry>,
    /// The entries a client must not load (no `resources`, a file outside the skill, a
    /// name its URI does not end with, ...), each as sent with the reason.
    pub refused: Vec<(Value, String)>,
}

impl<T: Transport> McpClient<T> {
    /// `skills/list`, every page. Reads no skill file.
    pub async fn list_skills(&self) -> Result<SkillList, Error> {
        let entries = session::pages(&self.conn, "skills/list", "skills")
            .await?
            .items;
        let mut list = SkillList::default();
        for entry in entries {
            match SkillEntry::from_json(&entry) {
                Ok(skill) => list.skills.push(skill),
                Err(reason) => list.refused.push((entry, reason)),
            }
        }
        Ok(list)
    }

    /// `skills/get`: the current entry of the skill whose `SKILL.md` is at `uri` (a skill a
    /// partial listing left out, or a fresh entry after a file did not verify).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, Error> {
        let result = self.request("skills/get", json!({"uri": uri})).await?;
        SkillEntry::from_json(&result["skill"]).map_err(|reason| Error::Protocol {
            code: -32603,
            message: format!("skills/get {uri}: the server's entry cannot be loaded: {reason}"),
            data: None,
        })
    }

    /// Loads a skill a generated module names ([`SkillRef`](crate::SkillRef)): its current
    /// entry (`skills/get`), which must still be the skill of that name (a skill renamed or
    /// gone is an error naming it), then [`McpClient::load_skill`].
    pub async fn load(&self, skill: &crate::SkillRef) -> Result<LoadedSkill<T>, Error> {
        let entry = self.get_skill(skill.uri()).await?;
        if entry.name() != skill.name() {
            return Err(Error::Skill {
                skill: skill.uri().to_owned(),
                file: skill.uri().to_owned(),
                mismatch: Mismatch::Frontmatter {
                    key: "name".to_owned(),
                    listed: Box::new(skill.name().into()),
                    read: Box::new(entry.name().into()),
                },
            });
        }
        self.load_skill(&entry).await
    }

    /// Loads the skill of `entry`: reads its `SKILL.md` and checks it against the entry (size,
    /// digest, then the frontmatter field by field). A skill whose `SKILL.md` does not verify
    /// is [`Error::Skill`]; one with `"dynamic"` files is refused, as nothing of it could be
    /// verified. Its other files are read only when [`LoadedSkill::read`] asks.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill<T>, Error> {
        let refused = |mismatch| Error::Skill {
            skill: entry.uri.clone(),
            file: entry.uri.clone(),
            mismatch,
        };
        if entry.files == SkillFiles::Dynamic {
            return Err(refused(Mismatch::Dynamic));
        }
        let bytes = self.resource_bytes(&entry.uri).await?;
        entry.check_instructions(&bytes).map_err(refused)?;
        // Verified: the bytes are UTF-8 with a frontmatter.
        let instructions = String::from_utf8(bytes).unwrap_or_default();
        Ok(LoadedSkill {
            client: self.clone(),
            entry: entry.clone(),
            instructions,
            withdrawn: Mutex::new(None),
        })
    }

    /// The raw bytes `resources/read` gives for `uri`: a text's UTF-8, a blob's decoded
    /// base64.
    async fn resource_bytes(&self, uri: &str) -> Result<Vec<u8>, Error> {
        let read = self.read_resource(uri).await?;
        let contents = read
            .contents
            .iter()
            .find(|c| c.uri == uri)
            .or(read.contents.first());
        match contents {
            Some(c) if c.text.is_some() => Ok(c.text.clone().unwrap_or_default().into_bytes()),
            Some(c) => base64::engine::general_purpose::STANDARD
                .decode(c.blob.as_deref().unwrap_or_default())
                .map_err(|e| Error::transport_source(format!("{uri}: the blob is not base64"), e)),
            None => Err(Error::transport(format!(
                "resources/read {uri}: no contents"
            ))),
        }
    }
}

/// A skill whose `SKILL.md` was read and verified. Its other files are read on demand, each
/// verified against the entry it was loaded from; once one does not verify, the skill is
/// withdrawn and every later read fails too.
pub struct LoadedSkill<T> {
    client: McpClient<T>,
    entry: SkillEntry,
    instructions: String,
    /// The file that did not verify, and how.
    withdrawn: Mutex<Option<(String, Mismatch)>>,
}

impl<T> std::fmt::Debug for LoadedSkill<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedSkill")
            .field("uri", &self.entry.uri)
            .field("withdrawn", &self.withdrawn.lock().map(|w| w.is_some()))
            .finish()
    }
}

impl<T: Transport> LoadedSkill<T> {
    /// The entry it was loaded from.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// The whole `SKILL.md`, frontmatter included.
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The `SKILL.md` after its frontmatter: the instructions an agent reads.
    pub fn body(&self) -> &str {
        frontmatter(&self.instructions).map_or("", |(_, body)| body)
    }

    /// Reads the skill's file at `path` (relative to the skill's root, as the `SKILL.md`
    /// refers to it: `references/RULES.md`; or its URI) and checks it against the entry. A
    /// file the entry does not list is not read.
    pub async fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        let uri = self.entry.resolve(path);
        let refused = |mismatch| Error::Skill {
            skill: self.entry.uri.clone(),
            file: uri.clone(),
            mismatch,
        };
        if let Some((file, _)) = self.withdrawn.lock().map_err(|_| poisoned())?.as_ref() {
            return Err(refused(Mismatch::Withdrawn { file: file.clone() }));
        }
        let listed = self
            .entry
            .file(&uri)
            .ok_or_else(|| refused(Mismatch::Unlisted))?;
        let bytes = self.client.resource_bytes(&uri).await?;
        if let Err(mismatch) = listed.verify(&bytes) {
            *self.withdrawn.lock().map_err(|_| poisoned())? = Some((uri.clone(), mismatch.clone()));
            return Err(refused(mismatch));
        }
        Ok(bytes)
    }

    /// [`LoadedSkill::read`] of a text file.
    pub async fn read_text(&self, path: &str) -> Result<String, Error> {
        let bytes = self.read(path).await?;
        String::from_utf8(bytes)
            .map_err(|e| Error::transport_source(format!("{path} is not UTF-8 text"), e))
    }
}

fn poisoned() -> Error {
    Error::transport("a skill's state was left by a panicking thread")
}
