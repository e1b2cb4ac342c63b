//! Prompts, resources and resource templates: what a generated client's `prompt_*`, `read_*`
//! and `complete_*` methods and its `resources` constants rely on. A prompt or template is
//! matched by its name, a resource by its name too (its URI may move); what breaks a client
//! is what makes one of those calls fail: a prompt, resource or template gone, a prompt
//! argument the client does not send now required, a template or resource URI changed.

use std::collections::BTreeMap;

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
    changes
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
    let at = |name: &str| format!("/arguments/{}", crate::pointer::escape(name));
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
