//! Agent Skills a game serves (the `io.modelcontextprotocol/skills` extension, SEP-2640): a
//! folder with a `SKILL.md` (YAML frontmatter, then instructions) and the files it refers to,
//! which an agent reads to learn how to play the game with its tools. A [`Skill`] is read and
//! checked once, when it is made; the registry lists it (`skills/list`, `skills/get`, its
//! `SKILL.md` in `resources/list`), serves its files (`resources/read`) and its directories
//! (`resources/directory/read`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_bindgen_core::skill::{
    MAX_BYTES, MAX_FILES, SKILL_MD, SkillEntry, SkillFile, SkillFiles, check_frontmatter,
    frontmatter, mime_type,
};

use super::resources::ResourceDefinition;
use crate::ResourceContents;

/// A skill ready to serve: its files in memory, each with its digest and size, and its
/// `SKILL.md` frontmatter checked. Served at `skill://<name>/...` (or under a prefix:
/// [`Skill::under`]). At most 512 files and 16 MiB in all (the extension's limits).
#[derive(Clone)]
pub struct Skill {
    pub(crate) entry: SkillEntry,
    /// Its `SKILL.md` as `resources/list` shows it.
    pub(crate) listed: ResourceDefinition,
    /// Its files by path from its root (`SKILL.md`, `references/RULES.md`), sorted.
    files: Vec<(String, Arc<[u8]>)>,
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("uri", &self.entry.uri)
            .field("files", &self.files.len())
            .finish()
    }
}

/// A skill that cannot be served: where (the folder or file) and what to do.
#[derive(Debug)]
pub struct SkillError {
    /// The folder, file or in-memory path at fault.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub message: String,
    source: Option<std::io::Error>,
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skill {}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for SkillError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

impl SkillError {
    pub(crate) fn io(path: &Path, e: std::io::Error) -> SkillError {
        SkillError {
            path: path.to_owned(),
            message: format!("cannot be read: {e}"),
            source: Some(e),
        }
    }
}

fn refuse(path: impl Into<PathBuf>, message: impl Into<String>) -> SkillError {
    SkillError {
        path: path.into(),
        message: message.into(),
        source: None,
    }
}

impl Skill {
    /// The skill in the folder `dir`, whose name is the skill's: its `SKILL.md` and every file
    /// under it, subfolders included (names starting with `.` are left out: `.git`,
    /// `.DS_Store`). A symbolic link is followed when it points inside the folder and refused
    /// when it leaves it.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Skill, SkillError> {
        let dir = dir.as_ref();
        let io = SkillError::io;
        let root = dir.canonicalize().map_err(|e| io(dir, e))?;
        let name = root
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| refuse(dir, "the folder's name is not UTF-8"))?
            .to_owned();
        let mut files = Vec::new();
        let mut total = 0;
        let mut folders = vec![(dir.to_owned(), String::new())];
        while let Some((folder, prefix)) = folders.pop() {
            for item in std::fs::read_dir(&folder).map_err(|e| io(&folder, e))? {
                let item = item.map_err(|e| io(&folder, e))?;
                let path = item.path();
                let Some(file) = item.file_name().to_str().map(str::to_owned) else {
                    return Err(refuse(path, "the file's name is not UTF-8: rename it"));
                };
                if file.starts_with('.') {
                    continue;
                }
                let real = path.canonicalize().map_err(|e| io(&path, e))?;
                if !real.starts_with(&root) {
                    return Err(refuse(
                        path,
                        format!(
                            "is a link to {}, outside the skill's folder: copy the file in",
                            real.display()
                        ),
                    ));
                }
                let relative = format!("{prefix}{file}");
                if real.is_dir() {
                    if item.file_type().map_err(|e| io(&path, e))?.is_symlink() {
                        return Err(refuse(path, "is a link to a folder: copy the folder in"));
                    }
                    folders.push((path, format!("{relative}/")));
                    continue;
                }
                let size = real.metadata().map_err(|e| io(&path, e))?.len();
                total += size;
                if total > MAX_BYTES {
                    return Err(over_size(&path, size));
                }
                let bytes = std::fs::read(&real).map_err(|e| io(&path, e))?;
                files.push((relative, bytes));
            }
        }
        Skill::build(&name, files, dir)
    }

    /// The skill `name` from files in memory, each a path from the skill's root (`SKILL.md`,
    /// `references/RULES.md`) and its bytes.
    pub fn from_files<P, B>(
        name: &str,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Skill, SkillError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let files = files
            .into_iter()
            .map(|(p, b)| (p.into(), b.into()))
            .collect();
        Skill::build(name, files, Path::new(name))
    }

    fn build(name: &str, files: Vec<(String, Vec<u8>)>, at: &Path) -> Result<Skill, SkillError> {
        let mut files: Vec<(String, Arc<[u8]>)> = files
            .into_iter()
            .map(|(path, bytes)| (path.trim_start_matches('/').to_owned(), bytes.into()))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        if files.len() > MAX_FILES {
            return Err(refuse(
                at,
                format!("has {} files, at most {MAX_FILES}", files.len()),
            ));
        }
        let mut total = 0;
        for (path, bytes) in &files {
            total += bytes.len() as u64;
            if total > MAX_BYTES {
                return Err(over_size(&at.join(path), bytes.len() as u64));
            }
            if path
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..")
            {
                return Err(refuse(
                    at.join(path),
                    "is not a plain path inside the skill",
                ));
            }
        }
        if files.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(refuse(at, "names a file twice"));
        }
        let skill_md = at.join(SKILL_MD);
        let Some((_, instructions)) = files.iter().find(|(p, _)| p == SKILL_MD) else {
            return Err(refuse(
                skill_md,
                "is missing: a skill's folder has a SKILL.md with a frontmatter (name, \
                 description) and its instructions",
            ));
        };
        let text = std::str::from_utf8(instructions)
            .map_err(|_| refuse(&skill_md, "is not UTF-8 text"))?;
        let (front, _) = frontmatter(text)
            .map_err(|e| refuse(&skill_md, format!("{e}: write the frontmatter as YAML")))?;
        check_frontmatter(&front, name).map_err(|e| refuse(&skill_md, e))?;
        let mut skill = Skill {
            entry: SkillEntry {
                uri: String::new(),
                frontmatter: front,
                files: SkillFiles::Dynamic,
            },
            listed: ResourceDefinition::new("", name),
            files,
        };
        skill.serve_at(&format!("skill://{name}"));
        Ok(skill)
    }

    /// Serves the skill under `prefix` (`acme/games` serves `skill://acme/games/<name>/...`),
    /// to group a game's skills; the last segment is always the skill's name.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Skill {
        let prefix = prefix.trim_matches('/');
        if !prefix.is_empty() {
            let root = format!("skill://{prefix}/{}", self.entry.name());
            self.serve_at(&root);
        }
        self
    }

    fn serve_at(&mut self, root: &str) {
        self.entry.uri = format!("{root}/{SKILL_MD}");
        self.entry.files = SkillFiles::Listed(
            self.files
                .iter()
                .map(|(path, bytes)| SkillFile::of(format!("{root}/{path}"), bytes))
                .collect(),
        );
        self.listed = ResourceDefinition::new(self.entry.uri.clone(), self.entry.name())
            .description(self.entry.description())
            .mime_type("text/markdown");
    }

    /// Its listing entry: the URI of its `SKILL.md`, the frontmatter, its files' digests and
    /// sizes.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// Its name.
    pub fn name(&self) -> &str {
        self.entry.name()
    }

    /// The contents of the file at `uri`, when it is one of this skill's: text when it is
    /// UTF-8, else base64.
    pub(crate) fn read(&self, uri: &str) -> Option<ResourceContents> {
        let path = uri.strip_prefix(self.entry.root())?.strip_prefix('/')?;
        let i = self
            .files
            .binary_search_by(|f| f.0.as_str().cmp(path))
            .ok()?;
        let bytes = &self.files[i].1;
        let mime = mime_type(path);
        Some(match std::str::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(uri, mime, text),
            Err(_) => {
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
                ResourceContents::blob(uri, mime, encoded)
            }
        })
    }

    /// The direct children of the directory `uri` in this skill (files, then folders with
    /// [`DIRECTORY`](mcp_bindgen_core::skill::DIRECTORY) as their type); `None` when `uri` is
    /// not one of its directories.
    pub(crate) fn children(&self, uri: &str) -> Option<Vec<ResourceDefinition>> {
        let rest = uri.strip_prefix(self.entry.root())?;
        let prefix = match rest.strip_prefix('/') {
            None if rest.is_empty() => String::new(),
            Some(folder) if !folder.is_empty() && !folder.ends_with('/') => format!("{folder}/"),
            _ => return None,
        };
        let mut children: Vec<ResourceDefinition> = Vec::new();
        for (path, _) in &self.files {
            let Some(below) = path.strip_prefix(&prefix) else {
                continue;
            };
            let (child, folder) = match below.split_once('/') {
                Some((folder, _)) => (folder, true),
                None => (below, false),
            };
            let child_uri = format!("{uri}/{child}");
            if children.last().is_some_and(|c| c.uri == child_uri) {
                continue;
            }
            let mime = if folder {
                mcp_bindgen_core::skill::DIRECTORY
            } else {
                mime_type(child)
            };
            children.push(ResourceDefinition::new(child_uri, child).mime_type(mime));
        }
        (!children.is_empty()).then_some(children)
    }
}

fn over_size(path: &Path, size: u64) -> SkillError {
    refuse(
        path,
        format!(
            "({size} bytes) takes the skill's files past 16 MiB, the most a skill may hold: \
             leave large data out of the skill or serve it as a resource"
        ),
    )
}
