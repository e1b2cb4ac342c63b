//! The model: plain data read from captures (and, later, contracts), shared by every later
//! stage. Nothing here knows about typify or oxc.

use std::path::PathBuf;

use serde_json::Value;

/// One server's tools, as read from a capture of its `tools/list`.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The capture file as the user named it.
    pub file: PathBuf,
    /// The file's text, kept to locate problems found later.
    pub text: String,
    /// `serverInfo` from the capture (or its `initialize` response), when recorded.
    pub server: Option<ServerInfo>,
    /// The negotiated protocol version, when recorded.
    pub protocol_version: Option<String>,
    /// The tools, in the order the server listed them (pages concatenated).
    pub tools: Vec<Tool>,
    /// The prompts (`prompts/list`), when captured.
    pub prompts: Vec<Prompt>,
    /// The resources at fixed URIs (`resources/list`), when captured.
    pub resources: Vec<Resource>,
    /// The resource templates (`resources/templates/list`), when captured.
    pub templates: Vec<ResourceTemplate>,
    /// The Agent Skills (`skills/list`, the `io.modelcontextprotocol/skills` extension), when
    /// captured.
    pub skills: Vec<Skill>,
    /// Whether the server offers completion of prompt arguments and template variables
    /// (`capabilities.completions`, when the capture recorded its capabilities).
    pub completions: bool,
    /// The event types (`events/list`, the `io.modelcontextprotocol/events` extension), when
    /// captured.
    pub events: Vec<Event>,
}

/// One event type of an `events/list` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event type's name.
    pub name: String,
    /// What the event means.
    pub description: Option<String>,
    /// The delivery modes offered (`poll`, `push`, `webhook`), as sent.
    pub delivery: Vec<String>,
    /// The JSON Schema of a subscription's arguments.
    pub input_schema: Value,
    /// The JSON Schema of each occurrence's data.
    pub payload_schema: Value,
    /// The descriptor exactly as sent.
    pub raw: Value,
    /// JSON pointer of this event type in its capture file (`/events/0`).
    pub pointer: String,
}

/// One prompt of a `prompts/list` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The name a client asks for.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// One resource of a `resources/list` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
}

/// One template of a `resources/templates/list` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// Their MIME type.
    pub mime_type: Option<String>,
}

/// One entry of a `skills/list` result: a skill an agent can load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The URI of its `SKILL.md` (`skill://play-tecs/SKILL.md`).
    pub uri: String,
    /// Its name (the frontmatter's).
    pub name: String,
    /// What it is for (the frontmatter's description).
    pub description: String,
    /// Its files' URIs and `sha256:` digests, sorted by URI; `None` when the server lists its
    /// files as `"dynamic"`.
    pub files: Option<Vec<(String, String)>>,
}

impl ResourceTemplate {
    /// The template's variable names, in order, each once.
    pub fn variables(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut rest = self.uri_template.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            rest = &rest[open + close + 1..];
            let list = body.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
            for spec in list.split(',') {
                let name = spec.trim_end_matches('*');
                let name = name.split(':').next().unwrap_or(name);
                if !name.is_empty() && !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        }
        names
    }
}

/// The `serverInfo` (`Implementation`) a server sent in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// Machine name.
    pub name: String,
    /// Display name (2025-06-18+).
    pub title: Option<String>,
    /// Version string.
    pub version: Option<String>,
}

/// One tool of a `tools/list` result. Every field the server sent is kept in `raw`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The name a client calls.
    pub name: String,
    /// Display name (2025-06-18+).
    pub title: Option<String>,
    /// What the tool does.
    pub description: Option<String>,
    /// The JSON Schema of the arguments, as sent.
    pub input_schema: Value,
    /// The JSON Schema of `structuredContent`, when the server sends one (2025-06-18+).
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26+).
    pub annotations: Annotations,
    /// The tool's `_meta`, when sent.
    pub meta: Option<Value>,
    /// The tool object exactly as sent, unknown fields included.
    pub raw: Value,
    /// JSON pointer of this tool in its capture file (`/tools/3`).
    pub pointer: String,
}

/// `ToolAnnotations`. Absent hints are `None`: the spec's defaults (destructive and open-world
/// `true`) apply to them, and generated docs say so.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `annotations.title`.
    pub title: Option<String>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl Tool {
    /// Display name: `title`, then `annotations.title`, then `name` (the spec's precedence).
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or(self.annotations.title.as_deref())
            .unwrap_or(&self.name)
    }

    /// Whether the tool runs as a task (`execution.taskSupport`, 2025-11-25+): `None` for a
    /// tool that does not (`forbidden`, absent, or a value this version does not know).
    pub fn task_support(&self) -> Option<TaskSupport> {
        match self.raw.get("execution")?.get("taskSupport")?.as_str()? {
            "optional" => Some(TaskSupport::Optional),
            "required" => Some(TaskSupport::Required),
            _ => None,
        }
    }
}

/// How a tool that runs as a task takes it: [`Tool::task_support`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// The client chooses: a plain call or a task.
    Optional,
    /// Only as a task: a plain call fails.
    Required,
}
