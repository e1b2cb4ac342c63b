//! The skills a registry serves (the `io.modelcontextprotocol/skills` extension): registering
//! them, and the handlers of `skills/list`, `skills/get` and `resources/directory/read`. Their
//! files are read with `resources/read` and their `SKILL.md`s listed by `resources/list`
//! (`catalog.rs`).

use std::path::Path;

use serde_json::{Map, Value};

use super::Registry;
use crate::ResourceContents;
use crate::server::announce::Changes;
use crate::server::resources::ResourceDefinition;
use crate::server::skills::{Skill, SkillError};
use crate::server::wire::{Params, error, respond};

impl<Ctx> Registry<Ctx> {
    /// Serves `skill`: listed by `skills/list`, its `SKILL.md` in `resources/list`, its files
    /// read by `resources/read`, and the `io.modelcontextprotocol/skills` extension declared.
    /// Registering a skill at the same URI again replaces it (its digests are the new files');
    /// either way clients that listen hear that the resources changed.
    pub fn register_skill(&mut self, skill: Skill) -> &mut Self {
        match self
            .skills
            .iter()
            .position(|s| s.entry.uri == skill.entry.uri)
        {
            Some(i) if self.skills[i].entry == skill.entry => self.skills[i] = skill,
            Some(i) => {
                self.skills[i] = skill;
                self.changes.insert(Changes::RESOURCES);
            }
            None => {
                self.skills.push(skill);
                self.changes.insert(Changes::RESOURCES);
            }
        }
        self
    }

    /// Serves every skill in `dir`: each folder in it is one skill ([`Skill::from_dir`]).
    /// Returns how many; refuses them all, naming the folder or file at fault, when one
    /// cannot be served (a folder without a `SKILL.md` included).
    pub fn register_skills_dir(&mut self, dir: impl AsRef<Path>) -> Result<usize, SkillError> {
        let dir = dir.as_ref();
        let unreadable = |e: std::io::Error| SkillError::io(dir, e);
        let mut folders = Vec::new();
        for item in std::fs::read_dir(dir).map_err(unreadable)? {
            let path = item.map_err(unreadable)?.path();
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if path.is_dir() && !hidden {
                folders.push(path);
            }
        }
        folders.sort();
        let skills = folders
            .iter()
            .map(Skill::from_dir)
            .collect::<Result<Vec<_>, _>>()?;
        let count = skills.len();
        for skill in skills {
            self.register_skill(skill);
        }
        Ok(count)
    }

    /// Stops serving the skill named `name` (or whose `SKILL.md` is at the URI `name`).
    /// Returns whether there was one.
    pub fn unregister_skill(&mut self, name: &str) -> bool {
        let before = self.skills.len();
        self.skills
            .retain(|s| s.entry.uri != name && s.entry.name() != name);
        let removed = self.skills.len() != before;
        if removed {
            self.changes.insert(Changes::RESOURCES);
        }
        removed
    }

    /// The skills served, in registration order.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter()
    }

    pub(super) fn list_skills(&self, id: &Value, params: &Params, modern: bool) -> String {
        let items: Vec<&Skill> = self.skills.iter().collect();
        self.paged(id, "skills", &items, params, modern, |s| s.entry.to_json())
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `params.uri`.
    pub(super) fn get_skill(&self, id: &Value, params: &Params, modern: bool) -> String {
        let uri = params.uri.as_deref().and_then(Value::as_str);
        let Some(skill) = uri.and_then(|uri| self.skills.iter().find(|s| s.entry.uri == uri))
        else {
            return unknown(id, uri, "a skill's SKILL.md");
        };
        let mut result = Map::new();
        result.insert("skill".into(), skill.entry.to_json());
        if modern {
            self.complete_hints(&mut result);
        }
        respond(id, &result)
    }

    /// `resources/directory/read`: the direct children of a skill's directory, paged.
    pub(super) fn read_directory(&self, id: &Value, params: &Params, modern: bool) -> String {
        let uri = params.uri.as_deref().and_then(Value::as_str);
        let Some(children) = uri.and_then(|uri| self.skills.iter().find_map(|s| s.children(uri)))
        else {
            return unknown(id, uri, "a directory of a skill");
        };
        let items: Vec<&ResourceDefinition> = children.iter().collect();
        self.paged(
            id,
            "resources",
            &items,
            params,
            modern,
            ResourceDefinition::to_json,
        )
    }

    /// The contents of a skill's file at `uri`.
    pub(super) fn skill_file(&self, uri: &str) -> Option<ResourceContents> {
        self.skills.iter().find_map(|s| s.read(uri))
    }

    /// The `SKILL.md` of each skill, as `resources/list` shows them.
    pub(super) fn skill_resources(&self) -> impl Iterator<Item = &ResourceDefinition> {
        self.skills.iter().map(|s| &s.listed)
    }
}

/// `-32602` for a URI that is not what the method reads.
fn unknown(id: &Value, uri: Option<&str>, what: &str) -> String {
    match uri {
        Some(uri) => error(id, -32602, &format!("Invalid params: {uri} is not {what}")),
        None => error(
            id,
            -32602,
            "Invalid params: the request needs a \"uri\" string",
        ),
    }
}
