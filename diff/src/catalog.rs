//! Prompts, resources, resource templates and Agent Skills: what a generated client's
//! `prompt_*`, `read_*` and `complete_*` methods and its `resources` and `skills` constants rely
//! on. A prompt, template or skill is matched by its name, a resource by its name too (its URI
//! may move); what breaks a client is what makes one of those calls fail: a prompt, resource,
//! template or skill gone (a skill renamed is one gone), a prompt argument the client does not
//! send now required, a template, resource or skill URI changed. A skill whose files changed
//! (its instructions, as their digests say) is a warning: an agent acting on it reads new
//! instructions.

use std::collections::BTreeMap;

use serde_json::Value;

pub use crate::events::EventType;
use crate::rules::{self, Rule};
use crate::{Change, Kind};

/// A server's prompts, resources and resource templates, as the rules read them.
#[derive(Debug, Clone, Default)]
pub struct Catalog<'a> {
    /// The prompts.
    pub prompts: Vec<Prompt<'a>>,
    /// The resources at fixed URIs.
    pub resources: Vec<Resource<'a>>,
    /// The resource templates.
    pub templates: Vec<Template<'a>>,
    /// The Agent Skills.
    pub skills: Vec<Skill<'a>>,
    /// The event types (the `io.modelcontextprotocol/events` extension).
    pub events: Vec<EventType<'a>>,
}

/// An Agent Skill: its name, the URI of its `SKILL.md` and its files' digests.
#[derive(Debug, Clone)]
pub struct Skill<'a> {
    /// The skill's name (its frontmatter's).
    pub name: &'a str,
    /// The URI of its `SKILL.md`.
    pub uri: &'a str,
    /// Each file's URI and `sha256:` digest, sorted by URI; empty when its files are dynamic.
    pub files: Vec<(&'a str, &'a str)>,
}

/// A prompt: its name and its arguments.
#[derive(Debug, Clone)]
pub struct Prompt<'a> {
    /// The prompt's name.
    pub name: &'a str,
    /// Its arguments: each name, and whether it is required.
    pub arguments: Vec<(&'a str, bool)>,
}

/// A resource at a fixed URI.
#[derive(Debug, Clone)]
pub struct Resource<'a> {
    /// The resource's name.
    pub name: &'a str,
    /// Its URI.
    pub uri: &'a str,
}

/// A resource template.
#[derive(Debug, Clone)]
pub struct Template<'a> {
    /// The template's name.
    pub name: &'a str,
    /// Its RFC 6570 URI template.
    pub uri_template: &'a str,
}

impl<'a> Catalog<'a> {
    /// The catalog of a server's lists as it sends them: the items of `prompts/list`,
    /// `resources/list` and `resources/templates/list`. An item without a string `name` (or
    /// `uri`, `uriTemplate`) is left out; a prompt argument is optional unless it says
    /// `"required": true`, as MCP defines it.
    pub fn from_json(prompts: &'a [Value], resources: &'a [Value], templates: &'a [Value]) -> Self {
        let text = |item: &'a Value, key: &str| item.get(key).and_then(Value::as_str);
        Catalog {
            prompts: prompts
                .iter()
                .filter_map(|p| {
                    Some(Prompt {
                        name: text(p, "name")?,
                        arguments: p
                            .get("arguments")
                            .and_then(Value::as_array)
                            .map(|args| {
                                args.iter()
                                    .filter_map(|a| {
                                        Some((text(a, "name")?, a["required"] == Value::Bool(true)))
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                })
                .collect(),
            resources: resources
                .iter()
                .filter_map(|r| {
                    Some(Resource {
                        name: text(r, "name")?,
                        uri: text(r, "uri")?,
                    })
                })
                .collect(),
            templates: templates
                .iter()
                .filter_map(|t| {
                    Some(Template {
                        name: text(t, "name")?,
                        uri_template: text(t, "uriTemplate")?,
                    })
                })
                .collect(),
            skills: Vec::new(),
            events: Vec::new(),
        }
    }

    /// The catalog with the event types of `events/list` (descriptors as a server sends
    /// them; one without a `name` is left out, a missing schema is any object's).
    #[must_use]
    pub fn with_events(mut self, events: &'a [Value]) -> Self {
        static ANY_OBJECT: std::sync::LazyLock<Value> =
            std::sync::LazyLock::new(|| serde_json::json!({"type": "object"}));
        self.events = events
            .iter()
            .filter_map(|e| {
                let schema = |key: &str| match e.get(key) {
                    Some(schema @ (Value::Object(_) | Value::Bool(_))) => schema,
                    _ => &*ANY_OBJECT,
                };
                Some(EventType {
                    name: e["name"].as_str()?,
                    delivery: e["delivery"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect(),
                    input_schema: schema("inputSchema"),
                    payload_schema: schema("payloadSchema"),
                    raw: e,
                })
            })
            .collect();
        self
    }

    /// The catalog with the skills of `skills/list` (entries as a server sends them; one
    /// without a `uri` or a frontmatter `name` is left out, as are files without a digest).
    #[must_use]
    pub fn with_skills(mut self, skills: &'a [Value]) -> Self {
        self.skills = skills
            .iter()
            .filter_map(|s| {
                let mut files: Vec<(&str, &str)> = s["resources"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| Some((f["uri"].as_str()?, f["digest"].as_str()?)))
                    .collect();
                files.sort_unstable();
                Some(Skill {
                    name: s["frontmatter"]["name"].as_str()?,
                    uri: s["uri"].as_str()?,
                    files,
                })
            })
            .collect();
        self
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
            && self.resources.is_empty()
            && self.templates.is_empty()
            && self.skills.is_empty()
            && self.events.is_empty()
    }

    /// What the rules read of it, as canonical JSON: an object of `prompts` (each `name` and
    /// its `arguments`' `name` and `required`), `resourceTemplates` (`name`, `uriTemplate`)
    /// and `resources` (`name`, `uri`), and when there are any `skills` (`uri`, `frontmatter`'s
    /// `name`, `resources`' `uri` and `digest`), each list sorted by name, keys sorted, no
    /// whitespace.
    /// [`Catalog::from_json`] reads it back (the lists are shaped as MCP sends them); two
    /// catalogs that differ only in order or in what no rule reads (descriptions, titles)
    /// have the same canonical form.
    pub fn canonical(&self) -> String {
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
        let mut prompts: Vec<&Prompt<'_>> = self.prompts.iter().collect();
        prompts.sort_by_key(|p| p.name);
        let prompts: Vec<String> = prompts
            .iter()
            .map(|p| {
                let mut arguments = p.arguments.clone();
                arguments.sort_unstable();
                let arguments: Vec<String> = arguments
                    .iter()
                    .map(|(name, required)| {
                        format!("{{\"name\":{},\"required\":{required}}}", quote(name))
                    })
                    .collect();
                format!(
                    "{{\"arguments\":[{}],\"name\":{}}}",
                    arguments.join(","),
                    quote(p.name)
                )
            })
            .collect();
        let mut templates: Vec<&Template<'_>> = self.templates.iter().collect();
        templates.sort_by_key(|t| (t.name, t.uri_template));
        let templates: Vec<String> = templates
            .iter()
            .map(|t| {
                format!(
                    "{{\"name\":{},\"uriTemplate\":{}}}",
                    quote(t.name),
                    quote(t.uri_template)
                )
            })
            .collect();
        let mut resources: Vec<&Resource<'_>> = self.resources.iter().collect();
        resources.sort_by_key(|r| (r.name, r.uri));
        let resources: Vec<String> = resources
            .iter()
            .map(|r| format!("{{\"name\":{},\"uri\":{}}}", quote(r.name), quote(r.uri)))
            .collect();
        // Skills only when there are any: the form (and the digest) of a catalog without them
        // is what it was before skills were compared.
        let skills = if self.skills.is_empty() {
            String::new()
        } else {
            let mut skills: Vec<&Skill<'_>> = self.skills.iter().collect();
            skills.sort_by_key(|s| (s.name, s.uri));
            let skills: Vec<String> = skills
                .iter()
                .map(|s| {
                    let files: Vec<String> = s
                        .files
                        .iter()
                        .map(|(uri, digest)| {
                            format!("{{\"digest\":{},\"uri\":{}}}", quote(digest), quote(uri))
                        })
                        .collect();
                    format!(
                        "{{\"frontmatter\":{{\"name\":{}}},\"resources\":[{}],\"uri\":{}}}",
                        quote(s.name),
                        files.join(","),
                        quote(s.uri)
                    )
                })
                .collect();
            format!(",\"skills\":[{}]", skills.join(","))
        };
        // Event types when there are any (name, sorted modes, schemas), first: keys sorted.
        let events = if self.events.is_empty() {
            String::new()
        } else {
            let mut events: Vec<&EventType<'_>> = self.events.iter().collect();
            events.sort_by_key(|e| e.name);
            let events: Vec<String> = events
                .iter()
                .map(|e| {
                    let mut modes = e.delivery.clone();
                    modes.sort_unstable();
                    let modes: Vec<String> = modes.iter().map(|m| quote(m)).collect();
                    format!(
                        "{{\"delivery\":[{}],\"inputSchema\":{},\"name\":{},\"payloadSchema\":{}}}",
                        modes.join(","),
                        crate::events::canonical(e.input_schema),
                        quote(e.name),
                        crate::events::canonical(e.payload_schema)
                    )
                })
                .collect();
            format!("\"events\":[{}],", events.join(","))
        };
        format!(
            "{{{events}\"prompts\":[{}],\"resourceTemplates\":[{}],\"resources\":[{}]{skills}}}",
            prompts.join(","),
            templates.join(","),
            resources.join(",")
        )
    }

    /// `sha256:` and the hex SHA-256 of its [`canonical`](Catalog::canonical) form.
    #[cfg(feature = "digest")]
    pub fn digest(&self) -> String {
        mcp_bindgen_core::digest::digest_text(&self.canonical())
    }

    /// Only what `other` holds: its prompts, resources and templates by name (what a
    /// generated module's methods call, out of all a server lists).
    pub fn restricted_to(&self, other: &Catalog<'_>) -> Catalog<'a> {
        Catalog {
            prompts: self
                .prompts
                .iter()
                .filter(|p| other.prompts.iter().any(|o| o.name == p.name))
                .cloned()
                .collect(),
            resources: self
                .resources
                .iter()
                .filter(|r| other.resources.iter().any(|o| o.name == r.name))
                .cloned()
                .collect(),
            templates: self
                .templates
                .iter()
                .filter(|t| other.templates.iter().any(|o| o.name == t.name))
                .cloned()
                .collect(),
            skills: self
                .skills
                .iter()
                .filter(|s| other.skills.iter().any(|o| o.name == s.name))
                .cloned()
                .collect(),
            events: self
                .events
                .iter()
                .filter(|e| other.events.iter().any(|o| o.name == e.name))
                .cloned()
                .collect(),
        }
    }
}

/// What changed between two catalogs, in the old one's order (then what was added).
pub fn diff<'a>(old: &Catalog<'a>, new: &Catalog<'a>) -> Vec<Change> {
    let mut changes = Vec::new();
    let new_prompts: BTreeMap<&str, &Prompt<'_>> =
        new.prompts.iter().map(|p| (p.name, p)).collect();
    for prompt in &old.prompts {
        match new_prompts.get(prompt.name) {
            None => changes.push(change(
                rules::PROMPT_REMOVED,
                Kind::Prompt,
                prompt.name,
                "",
                "prompt removed".into(),
            )),
            Some(now) => arguments(prompt, now, &mut changes),
        }
    }
    for prompt in &new.prompts {
        if !old.prompts.iter().any(|p| p.name == prompt.name) {
            changes.push(change(
                rules::PROMPT_ADDED,
                Kind::Prompt,
                prompt.name,
                "",
                "new prompt".into(),
            ));
        }
    }
    let resources = |c: &Catalog<'a>| -> Vec<(&'a str, &'a str)> {
        c.resources.iter().map(|r| (r.name, r.uri)).collect()
    };
    let templates = |c: &Catalog<'a>| -> Vec<(&'a str, &'a str)> {
        c.templates
            .iter()
            .map(|t| (t.name, t.uri_template))
            .collect()
    };
    pairs(Kind::Resource, resources(old), resources(new), &mut changes);
    pairs(
        Kind::ResourceTemplate,
        templates(old),
        templates(new),
        &mut changes,
    );
    skills(old, new, &mut changes);
    crate::events::diff(&old.events, &new.events, &mut changes);
    changes
}

/// Skills, by name: gone, moved (its `SKILL.md` at another URI), its files changed, new.
fn skills(old: &Catalog<'_>, new: &Catalog<'_>, changes: &mut Vec<Change>) {
    let now: BTreeMap<&str, &Skill<'_>> = new.skills.iter().map(|s| (s.name, s)).collect();
    for skill in &old.skills {
        let Some(found) = now.get(skill.name) else {
            changes.push(change(
                rules::SKILL_REMOVED,
                Kind::Skill,
                skill.name,
                "",
                format!("skill removed (was `{}`)", skill.uri),
            ));
            continue;
        };
        if found.uri != skill.uri {
            changes.push(change(
                rules::SKILL_URI_CHANGED,
                Kind::Skill,
                skill.name,
                "",
                format!("SKILL.md `{}` -> `{}`", skill.uri, found.uri),
            ));
        } else if found.files != skill.files {
            let changed: Vec<&str> = skill
                .files
                .iter()
                .chain(&found.files)
                .filter(|f| !skill.files.contains(f) || !found.files.contains(f))
                .map(|(uri, _)| *uri)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let listed = if changed.is_empty() {
                "its files became dynamic or listed".to_owned()
            } else {
                changed.join(", ")
            };
            changes.push(change(
                rules::SKILL_CHANGED,
                Kind::Skill,
                skill.name,
                "",
                format!("the skill's files changed: {listed}"),
            ));
        }
    }
    for skill in &new.skills {
        if !old.skills.iter().any(|s| s.name == skill.name) {
            changes.push(change(
                rules::SKILL_ADDED,
                Kind::Skill,
                skill.name,
                "",
                format!("new skill `{}`", skill.uri),
            ));
        }
    }
}

/// Resources or templates (`kind`), by name: each `(name, uri)` old against new.
fn pairs(kind: Kind, old: Vec<(&str, &str)>, new: Vec<(&str, &str)>, changes: &mut Vec<Change>) {
    let (removed, added, moved) = match kind {
        Kind::Resource => (
            rules::RESOURCE_REMOVED,
            rules::RESOURCE_ADDED,
            rules::RESOURCE_URI_CHANGED,
        ),
        _ => (
            rules::TEMPLATE_REMOVED,
            rules::TEMPLATE_ADDED,
            rules::TEMPLATE_CHANGED,
        ),
    };
    let what = if kind == Kind::Resource {
        "URI"
    } else {
        "URI template"
    };
    let now: BTreeMap<&str, &str> = new.iter().copied().collect();
    for (name, uri) in &old {
        match now.get(name) {
            None => changes.push(change(
                removed,
                kind,
                name,
                "",
                format!("{} removed (was `{uri}`)", kind.as_str()),
            )),
            Some(moved_to) if moved_to != uri => changes.push(change(
                moved,
                kind,
                name,
                "",
                format!("{what} `{uri}` -> `{moved_to}`"),
            )),
            Some(_) => {}
        }
    }
    for (name, uri) in &new {
        if !old.iter().any(|(n, _)| n == name) {
            changes.push(change(
                added,
                kind,
                name,
                "",
                format!("new {} `{uri}`", kind.as_str()),
            ));
        }
    }
}

/// A prompt's arguments, old against new.
fn arguments(old: &Prompt<'_>, new: &Prompt<'_>, changes: &mut Vec<Change>) {
    let now: BTreeMap<&str, bool> = new.arguments.iter().copied().collect();
    let at = |name: &str| format!("/arguments/{}", mcp_bindgen_core::pointer::escape(name));
    for &(name, required) in &old.arguments {
        match now.get(name) {
            None => changes.push(change(
                rules::PROMPT_ARGUMENT_REMOVED,
                Kind::Prompt,
                old.name,
                &at(name),
                "argument removed (a client still sending it may be refused)".into(),
            )),
            Some(&true) if !required => changes.push(change(
                rules::PROMPT_ARGUMENT_BECAME_REQUIRED,
                Kind::Prompt,
                old.name,
                &at(name),
                "optional argument became required".into(),
            )),
            Some(&false) if required => changes.push(change(
                rules::PROMPT_ARGUMENT_BECAME_OPTIONAL,
                Kind::Prompt,
                old.name,
                &at(name),
                "required argument became optional".into(),
            )),
            Some(_) => {}
        }
    }
    for &(name, required) in &new.arguments {
        if old.arguments.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let (rule, message) = if required {
            (
                rules::PROMPT_ARGUMENT_REQUIRED_ADDED,
                "new required argument",
            )
        } else {
            (rules::PROMPT_ARGUMENT_ADDED, "new optional argument")
        };
        changes.push(change(
            rule,
            Kind::Prompt,
            old.name,
            &at(name),
            message.into(),
        ));
    }
}

fn change(rule: Rule, kind: Kind, name: &str, pointer: &str, message: String) -> Change {
    Change {
        rule: rule.id.to_owned(),
        severity: rule.severity,
        kind,
        tool: name.to_owned(),
        pointer: pointer.to_owned(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Catalog;

    fn lists(value: &Value) -> [Vec<Value>; 3] {
        ["prompts", "resources", "resourceTemplates"]
            .map(|key| value[key].as_array().cloned().unwrap_or_default())
    }

    #[test]
    #[cfg(feature = "digest")]
    fn the_canonical_form_reads_back_and_ignores_order_and_prose() {
        let served = json!({
            "prompts": [
                {"name": "z", "description": "Last.", "arguments": [
                    {"name": "b", "required": true}, {"name": "a", "description": "An a."}]},
                {"name": "a\"quoted", "title": "A"}
            ],
            "resources": [{"name": "log", "uri": "game://log", "mimeType": "text/plain"}],
            "resourceTemplates": [{"name": "level", "uriTemplate": "game://levels/{id}"}]
        });
        let [p, r, t] = lists(&served);
        let catalog = Catalog::from_json(&p, &r, &t);
        let canonical = catalog.canonical();
        assert_eq!(
            canonical,
            r#"{"prompts":[{"arguments":[],"name":"a\"quoted"},{"arguments":[{"name":"a","required":false},{"name":"b","required":true}],"name":"z"}],"resourceTemplates":[{"name":"level","uriTemplate":"game://levels/{id}"}],"resources":[{"name":"log","uri":"game://log"}]}"#
        );
        let parsed: Value = serde_json::from_str(&canonical).expect("JSON");
        let [p2, r2, t2] = lists(&parsed);
        assert_eq!(Catalog::from_json(&p2, &r2, &t2).canonical(), canonical);

        // Another order and other prose: the same digest. A required flag: another.
        let mut reordered = served.clone();
        reordered["prompts"]
            .as_array_mut()
            .expect("prompts")
            .reverse();
        reordered["prompts"][1]["description"] = json!("Changed.");
        let [p3, r3, t3] = lists(&reordered);
        assert_eq!(Catalog::from_json(&p3, &r3, &t3).digest(), catalog.digest());
        reordered["prompts"][1]["arguments"][1]["required"] = json!(true);
        let [p4, r4, t4] = lists(&reordered);
        assert_ne!(Catalog::from_json(&p4, &r4, &t4).digest(), catalog.digest());
    }

    #[test]
    fn restricted_to_keeps_what_the_other_names() {
        let served = json!({"prompts": [{"name": "a"}, {"name": "b"}],
            "resources": [{"name": "r", "uri": "x://r"}, {"name": "s", "uri": "x://s"}],
            "resourceTemplates": [{"name": "t", "uriTemplate": "x://{t}"}]});
        let mine =
            json!({"prompts": [{"name": "b"}], "resources": [{"name": "s", "uri": "x://old"}]});
        let ([p, r, t], [mp, mr, mt]) = (lists(&served), lists(&mine));
        let live = Catalog::from_json(&p, &r, &t);
        let module = Catalog::from_json(&mp, &mr, &mt);
        let kept = live.restricted_to(&module);
        assert_eq!(
            kept.canonical(),
            r#"{"prompts":[{"arguments":[],"name":"b"}],"resourceTemplates":[],"resources":[{"name":"s","uri":"x://s"}]}"#
        );
    }
}
