//! Agent Skills served over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640),
//! the parts a server, a client and the comparison share: a skill's listing entry
//! ([`SkillEntry`]: the URI of its `SKILL.md`, the `SKILL.md` frontmatter as JSON, and every
//! file with its `sha256:` digest and size), the frontmatter read from a `SKILL.md` (YAML 1.2),
//! the name rules, and the checks a client makes of what it read ([`Mismatch`]).
//!
//! ```
//! use mcp_bindgen_core::skill::{SkillEntry, SkillFile, SkillFiles, frontmatter};
//!
//! let text = "---\nname: arena\ndescription: How to play the arena\n---\nSpawn first.\n";
//! let (front, body) = frontmatter(text).unwrap();
//! assert_eq!(body, "Spawn first.\n");
//! let entry = SkillEntry {
//!     uri: "skill://arena/SKILL.md".into(),
//!     frontmatter: front,
//!     files: SkillFiles::Listed(vec![SkillFile::of("skill://arena/SKILL.md", text.as_bytes())]),
//! };
//! assert!(entry.check_instructions(text.as_bytes()).is_ok());
//! assert!(entry.check_instructions(b"---\nname: arena\ndescription: x\n---\n").is_err());
//! ```

use std::fmt;

use serde_json::{Map, Number, Value};

use crate::digest::digest_bytes;

/// The extension's identifier, the key of its declaration under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The most files a skill may have, its `SKILL.md` included (the SEP's limit).
pub const MAX_FILES: usize = 512;
/// The most bytes a skill's files may hold together: 16 MiB (the SEP's limit).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";
/// The MIME type of a directory in `resources/directory/read`.
pub const DIRECTORY: &str = "inode/directory";

/// One file of a skill, as its listing gives it: what a client checks the bytes it reads
/// against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Its URI (`skill://arena/references/RULES.md`).
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits, of its raw bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillFile {
    /// The entry of `bytes` at `uri`.
    pub fn of(uri: impl Into<String>, bytes: &[u8]) -> Self {
        SkillFile {
            uri: uri.into(),
            digest: digest_bytes(bytes),
            size: bytes.len() as u64,
        }
    }

    /// Whether `bytes` are this file: its size first, then its digest.
    pub fn verify(&self, bytes: &[u8]) -> Result<(), Mismatch> {
        let read = bytes.len() as u64;
        if read != self.size {
            return Err(Mismatch::Size {
                listed: self.size,
                read,
            });
        }
        let digest = digest_bytes(bytes);
        if digest != self.digest {
            return Err(Mismatch::Digest {
                listed: self.digest.clone(),
                read: digest,
            });
        }
        Ok(())
    }

    fn to_json(&self) -> Value {
        let mut file = Map::new();
        file.insert("uri".into(), Value::String(self.uri.clone()));
        file.insert("digest".into(), Value::String(self.digest.clone()));
        file.insert("size".into(), Value::from(self.size));
        Value::Object(file)
    }
}

/// A skill's files: every one listed with its digest and size, or `"dynamic"` (generated
/// content with no stable digests, which a client may refuse to load).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillFiles {
    /// Every file of the skill, its `SKILL.md` included, each once.
    Listed(Vec<SkillFile>),
    /// No digests: the server generates the files.
    Dynamic,
}

/// One entry of `skills/list` (and the `skill` of `skills/get`).
#[derive(Debug, Clone, PartialEq)]
pub struct SkillEntry {
    /// The URI of its `SKILL.md` (`skill://arena/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md` frontmatter, as JSON; `name` and `description` are strings.
    pub frontmatter: Map<String, Value>,
    /// Its files.
    pub files: SkillFiles,
}

impl SkillEntry {
    /// The frontmatter's `name`.
    pub fn name(&self) -> &str {
        self.text("name")
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> &str {
        self.text("description")
    }

    fn text(&self, key: &str) -> &str {
        self.frontmatter
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The skill's root directory: its URI without `/SKILL.md` (`skill://arena`).
    pub fn root(&self) -> &str {
        self.uri
            .strip_suffix(SKILL_MD)
            .and_then(|root| root.strip_suffix('/'))
            .unwrap_or(&self.uri)
    }

    /// The URI of `path` in the skill: `path` itself when it is a URI in the skill, else
    /// `path` relative to the skill's root (`references/RULES.md`).
    pub fn resolve(&self, path: &str) -> String {
        if path.contains("://") {
            path.to_owned()
        } else {
            format!("{}/{}", self.root(), path.trim_start_matches('/'))
        }
    }

    /// The listed file at `uri`; `None` when the skill's files are dynamic or do not list it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match &self.files {
            SkillFiles::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillFiles::Dynamic => None,
        }
    }

    /// Whether `bytes`, read from [`SkillEntry::uri`], are the `SKILL.md` this entry lists: its
    /// size and digest (unless the files are dynamic), then its frontmatter, field by field,
    /// against [`SkillEntry::frontmatter`].
    pub fn check_instructions(&self, bytes: &[u8]) -> Result<(), Mismatch> {
        if let SkillFiles::Listed(_) = self.files {
            self.file(&self.uri)
                .ok_or(Mismatch::Unlisted)?
                .verify(bytes)?;
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Mismatch::Unreadable("it is not UTF-8 text".into()))?;
        let (read, _) = frontmatter(text).map_err(|e| Mismatch::Unreadable(e.to_string()))?;
        let mut keys: Vec<&String> = self.frontmatter.keys().chain(read.keys()).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let listed = self.frontmatter.get(key).unwrap_or(&Value::Null);
            let found = read.get(key).unwrap_or(&Value::Null);
            if !crate::value::equal(listed, found) {
                return Err(Mismatch::Frontmatter {
                    key: key.clone(),
                    listed: Box::new(listed.clone()),
                    read: Box::new(found.clone()),
                });
            }
        }
        Ok(())
    }

    /// The entry a server sent, checked as a client must before it loads anything: a `uri`
    /// ending in `/SKILL.md` after the frontmatter's `name`, a frontmatter with `name` and
    /// `description`, and `resources` that are `"dynamic"` or list the `SKILL.md` and each
    /// file once, inside the skill, with a `sha256:` digest and a size; at most
    /// [`MAX_FILES`] files of [`MAX_BYTES`] in all (the extension's limits, which a client
    /// must support and a server should not pass: a bigger skill is refused unread).
    pub fn from_json(value: &Value) -> Result<SkillEntry, String> {
        let uri = value["uri"]
            .as_str()
            .filter(|uri| !uri.is_empty())
            .ok_or("it has no \"uri\"")?;
        let frontmatter = value["frontmatter"]
            .as_object()
            .ok_or("it has no \"frontmatter\" object")?
            .clone();
        let mut entry = SkillEntry {
            uri: uri.to_owned(),
            frontmatter,
            files: SkillFiles::Dynamic,
        };
        for key in ["name", "description"] {
            if entry.text(key).is_empty() {
                return Err(format!("its frontmatter has no \"{key}\""));
            }
        }
        let folder = uri
            .strip_suffix(SKILL_MD)
            .and_then(|rest| rest.strip_suffix('/'))
            .and_then(|rest| rest.rsplit(['/', ':']).next())
            .ok_or("its \"uri\" does not end in /SKILL.md")?;
        if folder != entry.name() {
            return Err(format!(
                "its \"uri\" names the folder {folder}, its frontmatter the skill {}",
                entry.name()
            ));
        }
        entry.files = match &value["resources"] {
            Value::String(dynamic) if dynamic == "dynamic" => SkillFiles::Dynamic,
            Value::Array(files) => SkillFiles::Listed(entry.listed(files)?),
            _ => return Err("its \"resources\" are neither a list nor \"dynamic\"".into()),
        };
        Ok(entry)
    }

    fn listed(&self, files: &[Value]) -> Result<Vec<SkillFile>, String> {
        if files.len() > MAX_FILES {
            return Err(format!(
                "it lists {} files, more than the {MAX_FILES} a skill may have",
                files.len()
            ));
        }
        let inside = format!("{}/", self.root());
        let mut total: u64 = 0;
        let mut out: Vec<SkillFile> = Vec::with_capacity(files.len());
        for file in files {
            let uri = file["uri"].as_str().ok_or("a file has no \"uri\"")?;
            if uri != self.uri && !uri.starts_with(&inside) {
                return Err(format!("the file {uri} is outside the skill"));
            }
            if out.iter().any(|f| f.uri == uri) {
                return Err(format!("the file {uri} is listed twice"));
            }
            let digest = file["digest"]
                .as_str()
                .filter(|d| is_digest(d))
                .ok_or_else(|| format!("the file {uri} has no sha256: digest"))?;
            let size = file["size"]
                .as_u64()
                .ok_or_else(|| format!("the file {uri} has no size"))?;
            total = total.saturating_add(size);
            if total > MAX_BYTES {
                return Err(format!(
                    "its files hold more than the 16 MiB a skill may have (at {uri})"
                ));
            }
            out.push(SkillFile {
                uri: uri.to_owned(),
                digest: digest.to_owned(),
                size,
            });
        }
        if !out.iter().any(|f| f.uri == self.uri) {
            return Err("its files do not list its SKILL.md".into());
        }
        Ok(out)
    }

    /// The entry as `skills/list` sends it.
    pub fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("uri".into(), Value::String(self.uri.clone()));
        entry.insert(
            "frontmatter".into(),
            Value::Object(self.frontmatter.clone()),
        );
        let files = match &self.files {
            SkillFiles::Listed(files) => files.iter().map(SkillFile::to_json).collect(),
            SkillFiles::Dynamic => Value::String("dynamic".into()),
        };
        entry.insert("resources".into(), files);
        Value::Object(entry)
    }
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Why bytes a client read are not the skill file it was listed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Mismatch {
    /// Their length is not the listed size.
    Size {
        /// The listed size.
        listed: u64,
        /// The length read.
        read: u64,
    },
    /// Their digest is not the listed one.
    Digest {
        /// The listed digest.
        listed: String,
        /// The digest of what was read.
        read: String,
    },
    /// A frontmatter field of the `SKILL.md` read differs from the listing's.
    Frontmatter {
        /// The field.
        key: String,
        /// Its value in the listing (`null`: absent).
        listed: Box<Value>,
        /// Its value in the file (`null`: absent).
        read: Box<Value>,
    },
    /// The `SKILL.md` read has no frontmatter that can be read.
    Unreadable(String),
    /// The file is not one the listing names.
    Unlisted,
    /// The skill lists no digests (`"resources": "dynamic"`), so nothing read can be verified.
    Dynamic,
    /// An earlier file of the same skill did not verify, so the skill is no longer used.
    Withdrawn {
        /// The URI of the file that did not verify.
        file: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Size { listed, read } => {
                write!(f, "it is {read} bytes long, the listing says {listed}")
            }
            Mismatch::Digest { listed, read } => {
                write!(f, "its digest is {read}, the listing says {listed}")
            }
            Mismatch::Frontmatter { key, listed, read } => write!(
                f,
                "its frontmatter's {key} is {read}, the listing says {listed}"
            ),
            Mismatch::Unreadable(why) => write!(f, "its frontmatter cannot be read: {why}"),
            Mismatch::Unlisted => f.write_str("the skill's listing does not name it"),
            Mismatch::Dynamic => {
                f.write_str("the skill lists no digests (\"dynamic\"), so it cannot be verified")
            }
            Mismatch::Withdrawn { file } => {
                write!(f, "the skill was withdrawn when {file} did not verify")
            }
        }
    }
}

impl std::error::Error for Mismatch {}

/// A `SKILL.md` whose frontmatter cannot be read: the line (1-based, in the whole file) and
/// why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// The line of the file the error is on.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FrontmatterError {}

/// The YAML frontmatter of a `SKILL.md` (between a first line `---` and the next line `---`),
/// as a JSON object, and the text after it. YAML 1.2's core schema types the values
/// (`2.1` is a number, `"2.1"` and `yes` are strings).
pub fn frontmatter(text: &str) -> Result<(Map<String, Value>, &str), FrontmatterError> {
    let fail = |line: usize, message: &str| FrontmatterError {
        line,
        message: message.to_owned(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| {
            fail(
                1,
                "a SKILL.md starts with a line `---` that opens its frontmatter",
            )
        })?;
    let mut offset = 0;
    let (yaml, body) = loop {
        let Some(end) = rest[offset..].find('\n') else {
            return Err(fail(1, "the frontmatter has no closing line `---`"));
        };
        let line_start = offset + end + 1;
        let line_end = rest[line_start..]
            .find('\n')
            .map_or(rest.len(), |n| line_start + n + 1);
        let line = rest[line_start..line_end].trim_end_matches(['\n', '\r']);
        if line.starts_with("---") && line[3..].trim_matches([' ', '\t']).is_empty() {
            break (&rest[..offset + end], &rest[line_end..]);
        }
        offset = line_start;
    };
    let yaml = yaml.trim_end_matches('\r');
    let documents = yaml_rust2::YamlLoader::load_from_str(yaml)
        .map_err(|e| fail(e.marker().line() + 1, e.info()))?;
    match documents.into_iter().next().map(json) {
        Some(Ok(Value::Object(map))) => Ok((map, body)),
        Some(Err(message)) => Err(fail(2, &message)),
        _ => Err(fail(2, "the frontmatter is not a mapping of fields")),
    }
}

/// A YAML value as JSON.
fn json(yaml: yaml_rust2::Yaml) -> Result<Value, String> {
    use yaml_rust2::Yaml;
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::from(i),
        Yaml::String(s) => Value::String(s),
        Yaml::Real(text) => {
            let number = text
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .ok_or_else(|| format!("{text} is not a finite number"))?;
            Value::Number(number)
        }
        Yaml::Array(items) => Value::Array(items.into_iter().map(json).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut map = Map::new();
            for (key, value) in hash {
                let key = match json(key)? {
                    Value::String(s) => s,
                    Value::Object(_) | Value::Array(_) => {
                        return Err("a frontmatter key is a mapping or a list".into());
                    }
                    scalar => scalar.to_string(),
                };
                map.insert(key, json(value)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err("a value cannot be read".into()),
    })
}

/// Whether `name` is a skill name: 1 to 64 lowercase letters, digits and hyphens, with no
/// hyphen first, last or twice in a row.
pub fn check_name(name: &str) -> Result<(), String> {
    let fits = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if fits {
        Ok(())
    } else {
        Err(format!(
            "the name {name:?} is not a skill name: use 1 to 64 lowercase letters, digits and \
             single hyphens, with no hyphen first or last"
        ))
    }
}

/// Checks a frontmatter as a server does before it serves the skill in `folder`: a `name` that
/// follows the name rules and equals `folder`, a `description` of 1 to 1,024 characters, a
/// `compatibility` of at most 500, a `metadata` mapping with no key in the extensions'
/// reserved `io.modelcontextprotocol/` prefix.
pub fn check_frontmatter(frontmatter: &Map<String, Value>, folder: &str) -> Result<(), String> {
    let name = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .ok_or("the frontmatter has no `name`: add `name: <the folder's name>`")?;
    check_name(name)?;
    if name != folder {
        return Err(format!(
            "the frontmatter names the skill {name}, its folder is {folder}: the two must be equal"
        ));
    }
    let description = frontmatter.get("description").and_then(Value::as_str);
    match description.map(|d| d.trim().chars().count()) {
        None | Some(0) => {
            return Err("the frontmatter has no `description`: say what the skill is for".into());
        }
        Some(n) if n > 1024 => {
            return Err(format!("the description is {n} characters, at most 1,024"));
        }
        _ => {}
    }
    if let Some(compatibility) = frontmatter.get("compatibility") {
        match compatibility.as_str().map(|c| c.chars().count()) {
            Some(1..=500) => {}
            _ => return Err("`compatibility` is a text of 1 to 500 characters".into()),
        }
    }
    if let Some(metadata) = frontmatter.get("metadata") {
        let metadata = metadata.as_object().ok_or("`metadata` is a mapping")?;
        if let Some(key) = metadata
            .keys()
            .find(|k| k.starts_with("io.modelcontextprotocol/"))
        {
            return Err(format!(
                "the metadata key {key} uses the prefix io.modelcontextprotocol/, which MCP \
                 reserves for its extensions"
            ));
        }
    }
    Ok(())
}

/// The MIME type a skill file is served with, from its extension (`text/markdown` for
/// `.md`; `application/octet-stream` when the extension says nothing).
pub fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    match extension.to_ascii_lowercase().as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "rs" => "text/x-rust",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
