//! Reads a capture of `tools/list`: a `ListToolsResult`, a JSON-RPC response holding one, or an
//! array of pages (results or responses, optionally with the `initialize` response), for every
//! protocol version from 2024-11-05 to 2026-07-28. Unknown fields are tolerated and kept.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, LineCol};
use crate::error::Error;
use crate::model::{
    Annotations, Capture, Event, Prompt, PromptArgument, Resource, ResourceTemplate, ServerInfo,
    Skill, Tool,
};

/// Reads and checks the capture at `path` (named in messages as given).
pub fn read(path: &Path) -> Result<Capture, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, text)
}

/// JSON nested deeper than this is refused (before parsing, so no input can exhaust the
/// stack); real schemas stay far below it.
pub const MAX_NESTING: usize = 256;

/// The byte offset where `text` first nests deeper than `limit` (brackets outside strings).
fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parses capture `text`; `path` is only used in messages.
pub fn parse(path: &Path, text: String) -> Result<Capture, Error> {
    if let Some(at) = too_deep(&text, MAX_NESTING) {
        return Err(Diagnostic::new(
            path,
            format!("JSON nested deeper than {MAX_NESTING} levels"),
        )
        .at(&text, crate::diagnostic::locate::line_col(&text, at))
        .help("no tool schema needs this depth; check the capture for a runaway structure")
        .into());
    }
    let value: Value = {
        use serde::Deserialize;
        let mut de = serde_json::Deserializer::from_str(&text);
        // Bounded above; serde_json's own limit (128) refuses legitimately deep schemas.
        de.disable_recursion_limit();
        Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v))
    }
    .map_err(|e| {
        let at = LineCol {
            line: e.line().max(1),
            column: e.column().max(1),
        };
        let message = strip_position(&e.to_string());
        Diagnostic::new(path, format!("not valid JSON: {message}"))
            .at(&text, at)
            .help("a capture is the JSON of a tools/list result ({\"tools\": [...]}), a JSON-RPC response holding one, or an array of such pages; `mcp-bindgen capture` writes one")
    })?;
    let mut reader = Reader {
        path,
        text: &text,
        server: None,
        protocol_version: None,
        tools: Vec::new(),
        prompts: Vec::new(),
        resources: Vec::new(),
        templates: Vec::new(),
        skills: Vec::new(),
        completions: false,
        events: Vec::new(),
    };
    match &value {
        Value::Array(pages) => {
            if pages.is_empty() {
                return Err(reader
                    .error("", "the capture is an empty array", WHAT_TO_DO)
                    .into());
            }
            for (i, page) in pages.iter().enumerate() {
                reader.document(page, &format!("/{i}"), true)?;
            }
        }
        other => reader.document(other, "", false)?,
    }
    if reader.tools.is_empty() && !has_tools_key(&value) {
        return Err(reader
            .error("", "no tools/list result found in the capture", WHAT_TO_DO)
            .into());
    }
    let Reader {
        server,
        protocol_version,
        tools,
        prompts,
        resources,
        templates,
        skills,
        completions,
        events,
        ..
    } = reader;
    check_unique(path, &text, &tools)?;
    Ok(Capture {
        file: path.to_path_buf(),
        text,
        server,
        protocol_version,
        tools,
        prompts,
        resources,
        templates,
        skills,
        completions,
        events,
    })
}

const WHAT_TO_DO: &str = "a capture is the JSON of a tools/list result ({\"tools\": [...]}), a JSON-RPC response holding one, or an array of such pages; `mcp-bindgen capture` writes one";

fn has_tools_key(value: &Value) -> bool {
    match value {
        Value::Object(o) => o.contains_key("tools") || o.get("result").is_some_and(has_tools_key),
        Value::Array(a) => a.iter().any(has_tools_key),
        _ => false,
    }
}

/// serde_json appends " at line L column C"; we print the position ourselves.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    server: Option<ServerInfo>,
    protocol_version: Option<String>,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    skills: Vec<Skill>,
    completions: bool,
    events: Vec<Event>,
}

impl Reader<'_> {
    fn error(&self, pointer: &str, message: impl Into<String>, help: &str) -> Diagnostic {
        Diagnostic::new(self.path, message)
            .pointer(Some(self.text), pointer)
            .help(help)
    }

    /// One document: a result or a JSON-RPC message. In an array of pages, JSON-RPC requests
    /// and notifications (a transcript) are skipped.
    fn document(&mut self, value: &Value, pointer: &str, in_pages: bool) -> Result<(), Error> {
        let Value::Object(object) = value else {
            return Err(self
                .error(
                    pointer,
                    format!("expected an object, found {}", kind(value)),
                    WHAT_TO_DO,
                )
                .into());
        };
        if object.contains_key("method") && in_pages {
            return Ok(());
        }
        if let Some(error) = object.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)");
            return Err(self
                .error(
                    &format!("{pointer}/error"),
                    format!("the capture holds a JSON-RPC error response: {message}"),
                    "capture the server again; this response has no tools",
                )
                .into());
        }
        if let Some(result) = object.get("result") {
            return self.result(result, &format!("{pointer}/result"));
        }
        self.result(value, pointer)
    }

    /// A result: `initialize` (server info) or `tools/list` (tools), or our own capture header.
    fn result(&mut self, value: &Value, pointer: &str) -> Result<(), Error> {
        let Value::Object(object) = value else {
            return Err(self
                .error(
                    pointer,
                    format!("expected a result object, found {}", kind(value)),
                    WHAT_TO_DO,
                )
                .into());
        };
        if let Some(info) = object.get("serverInfo") {
            self.server = Some(self.server_info(info, &format!("{pointer}/serverInfo"))?);
        }
        if let Some(capabilities) = object.get("capabilities") {
            self.completions |= capabilities
                .get("completions")
                .is_some_and(|c| !c.is_null());
        }
        if let Some(version) = object.get("protocolVersion") {
            let Some(version) = version.as_str() else {
                return Err(self
                    .error(
                        &format!("{pointer}/protocolVersion"),
                        format!("expected a string, found {}", kind(version)),
                        "protocolVersion is a date string such as \"2025-06-18\"",
                    )
                    .into());
            };
            self.protocol_version = Some(version.to_owned());
        }
        if let Some(tools) = object.get("tools") {
            let Value::Array(tools) = tools else {
                return Err(self
                    .error(
                        &format!("{pointer}/tools"),
                        format!("expected an array of tools, found {}", kind(tools)),
                        WHAT_TO_DO,
                    )
                    .into());
            };
            for (i, tool) in tools.iter().enumerate() {
                let tool = self.tool(tool, &format!("{pointer}/tools/{i}"))?;
                self.tools.push(tool);
            }
        }
        let others = self.others(object, pointer)?;
        if !object.contains_key("tools") && !others && !object.contains_key("serverInfo") {
            return Err(self
                .error(
                    pointer,
                    "expected a tools/list result with a \"tools\" array",
                    WHAT_TO_DO,
                )
                .into());
        }
        Ok(())
    }

    /// The prompts, resources, resource templates and skills of a result (a capture's, or a
    /// page of their lists); whether it had any of the four keys.
    fn others(&mut self, object: &Map<String, Value>, pointer: &str) -> Result<bool, Error> {
        let mut found = false;
        if let Some(list) = object.get("skills") {
            found = true;
            self.skills(list, &format!("{pointer}/skills"))?;
        }
        if let Some(list) = object.get("events") {
            found = true;
            self.events(list, &format!("{pointer}/events"))?;
        }
        for key in ["prompts", "resources", "resourceTemplates"] {
            let Some(list) = object.get(key) else {
                continue;
            };
            found = true;
            let pointer = format!("{pointer}/{key}");
            let Value::Array(items) = list else {
                return Err(self
                    .error(
                        &pointer,
                        format!("expected an array, found {}", kind(list)),
                        "remove it, or record the server's list as it sent it",
                    )
                    .into());
            };
            for (i, item) in items.iter().enumerate() {
                let pointer = format!("{pointer}/{i}");
                let entry = self.object(item, &pointer, "each entry is an object with a name")?;
                let name =
                    self.required_string(entry, &pointer, "name", "every entry needs a name")?;
                let title = self.optional_string(entry, &pointer, "title")?;
                let description = self.optional_string(entry, &pointer, "description")?;
                match key {
                    "prompts" => {
                        let arguments = self.prompt_arguments(entry, &pointer)?;
                        self.prompts.push(Prompt {
                            name,
                            title,
                            description,
                            arguments,
                        });
                    }
                    "resources" => {
                        let uri = self.required_string(
                            entry,
                            &pointer,
                            "uri",
                            "a resource needs its uri",
                        )?;
                        let mime_type = self.optional_string(entry, &pointer, "mimeType")?;
                        self.resources.push(Resource {
                            uri,
                            name,
                            title,
                            description,
                            mime_type,
                        });
                    }
                    _ => {
                        let uri_template = self.required_string(
                            entry,
                            &pointer,
                            "uriTemplate",
                            "a resource template needs its uriTemplate (RFC 6570)",
                        )?;
                        let mime_type = self.optional_string(entry, &pointer, "mimeType")?;
                        self.templates.push(ResourceTemplate {
                            uri_template,
                            name,
                            title,
                            description,
                            mime_type,
                        });
                    }
                }
            }
        }
        Ok(found)
    }

    fn prompt_arguments(
        &self,
        prompt: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Vec<PromptArgument>, Error> {
        let pointer = format!("{pointer}/arguments");
        let items = match prompt.get("arguments") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(self
                    .error(
                        &pointer,
                        format!("expected an array of arguments, found {}", kind(other)),
                        "a prompt's arguments are [{\"name\", \"description\"?, \"required\"?}]",
                    )
                    .into());
            }
        };
        let mut arguments = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let pointer = format!("{pointer}/{i}");
            let argument = self.object(item, &pointer, "an argument is {\"name\", ...}")?;
            arguments.push(PromptArgument {
                name: self.required_string(
                    argument,
                    &pointer,
                    "name",
                    "every argument needs a name",
                )?,
                description: self.optional_string(argument, &pointer, "description")?,
                required: match argument.get("required") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(required)) => *required,
                    Some(other) => {
                        return Err(self
                            .error(
                                &format!("{pointer}/required"),
                                format!(
                                    "expected \"required\" to be true or false, found {}",
                                    kind(other)
                                ),
                                "an argument's \"required\" is a boolean (absent: optional)",
                            )
                            .into());
                    }
                },
            });
        }
        Ok(arguments)
    }

    fn server_info(&self, value: &Value, pointer: &str) -> Result<ServerInfo, Error> {
        let object = self.object(
            value,
            pointer,
            "serverInfo is {\"name\": ..., \"version\": ...}",
        )?;
        let name = self.required_string(object, pointer, "name", "serverInfo needs a name")?;
        Ok(ServerInfo {
            name,
            title: self.optional_string(object, pointer, "title")?,
            version: self.optional_string(object, pointer, "version")?,
        })
    }

    fn tool(&self, value: &Value, pointer: &str) -> Result<Tool, Error> {
        let object = self.object(
            value,
            pointer,
            "each entry of \"tools\" is a Tool object with a name and an inputSchema",
        )?;
        let name = self.required_string(object, pointer, "name", "every tool needs a name")?;
        if name.is_empty() {
            return Err(self
                .error(
                    &format!("{pointer}/name"),
                    "the tool name is empty",
                    "give the tool the name the server lists it under",
                )
                .into());
        }
        let input_schema = match object.get("inputSchema") {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => schema.clone(),
            Some(other) => {
                return Err(self
                    .error(
                        &format!("{pointer}/inputSchema"),
                        format!(
                            "inputSchema of tool `{name}` must be a JSON Schema object, found {}",
                            kind(other)
                        ),
                        "a tool without arguments has {\"type\": \"object\"}",
                    )
                    .into());
            }
            None => {
                // A key that is nearly `inputSchema` is most likely a typo of it.
                let near = object
                    .keys()
                    .find(|k| k.as_str() != "outputSchema" && near_input_schema(k));
                let message = match near {
                    Some(key) => format!(
                        "tool `{name}` has no inputSchema (it has `{key}`: did you mean `inputSchema`?)"
                    ),
                    None => format!("tool `{name}` has no inputSchema"),
                };
                return Err(self
                    .error(
                        pointer,
                        message,
                        "every Tool carries an inputSchema; a tool without arguments has {\"type\": \"object\"}",
                    )
                    .into());
            }
        };
        let output_schema = match object.get("outputSchema") {
            None | Some(Value::Null) => None,
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => Some(schema.clone()),
            Some(other) => {
                return Err(self
                    .error(
                        &format!("{pointer}/outputSchema"),
                        format!(
                            "outputSchema of tool `{name}` must be a JSON Schema object, found {}",
                            kind(other)
                        ),
                        "remove it, or give the JSON Schema of the tool's structuredContent",
                    )
                    .into());
            }
        };
        let annotations = match object.get("annotations") {
            None | Some(Value::Null) => Annotations::default(),
            Some(value) => {
                let pointer = format!("{pointer}/annotations");
                let object = self.object(value, &pointer, "annotations is an object of hints")?;
                Annotations {
                    title: self.optional_string(object, &pointer, "title")?,
                    read_only: self.optional_bool(object, &pointer, "readOnlyHint")?,
                    destructive: self.optional_bool(object, &pointer, "destructiveHint")?,
                    idempotent: self.optional_bool(object, &pointer, "idempotentHint")?,
                    open_world: self.optional_bool(object, &pointer, "openWorldHint")?,
                }
            }
        };
        Ok(Tool {
            title: self.optional_string(object, pointer, "title")?,
            description: self.optional_string(object, pointer, "description")?,
            name,
            input_schema,
            output_schema,
            annotations,
            meta: object.get("_meta").cloned(),
            raw: value.clone(),
            pointer: pointer.to_owned(),
        })
    }

    /// The items of a list a capture records (`skills`, `events`), or why it is not one.
    fn items<'v>(&self, list: &'v Value, pointer: &str, help: &str) -> Result<&'v [Value], Error> {
        match list {
            Value::Array(items) => Ok(items),
            other => Err(self
                .error(
                    pointer,
                    format!("expected an array, found {}", kind(other)),
                    help,
                )
                .into()),
        }
    }

    /// The event types of an `events/list` result.
    fn events(&mut self, list: &Value, pointer: &str) -> Result<(), Error> {
        const HELP: &str = "record the server's events/list as it sent it (`mcp-bindgen capture`)";
        let items = self.items(list, pointer, HELP)?;
        for (i, item) in items.iter().enumerate() {
            let pointer = format!("{pointer}/{i}");
            let entry = self.object(item, &pointer, "each event type is an object with a name")?;
            let name =
                self.required_string(entry, &pointer, "name", "every event type needs a name")?;
            let description = self.optional_string(entry, &pointer, "description")?;
            let delivery = match entry.get("delivery") {
                Some(Value::Array(modes)) if modes.iter().all(Value::is_string) => modes
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => {
                    return Err(self
                        .error(
                            &format!("{pointer}/delivery"),
                            "an event type's delivery is a list of modes (\"poll\", \"push\", \"webhook\")",
                            HELP,
                        )
                        .into());
                }
            };
            let schema = |key: &str| {
                let schema = entry
                    .get(key)
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({"type": "object"}));
                match schema {
                    Value::Object(_) | Value::Bool(_) => Ok(schema),
                    other => Err(Error::from(self.error(
                        &format!("{pointer}/{key}"),
                        format!("expected a JSON Schema, found {}", kind(&other)),
                        HELP,
                    ))),
                }
            };
            let input_schema = schema("inputSchema")?;
            let payload_schema = schema("payloadSchema")?;
            if self.events.iter().any(|e| e.name == name) {
                return Err(self
                    .error(
                        &pointer,
                        format!("the event type `{name}` is listed twice"),
                        HELP,
                    )
                    .into());
            }
            self.events.push(Event {
                name,
                description,
                delivery,
                input_schema,
                payload_schema,
                raw: item.clone(),
                pointer,
            });
        }
        Ok(())
    }

    /// The entries of a `skills/list` result: each `uri`, the frontmatter's `name` and
    /// `description`, and its files' digests (or `"dynamic"`).
    fn skills(&mut self, list: &Value, pointer: &str) -> Result<(), Error> {
        const HELP: &str = "record the server's skills/list as it sent it (`mcp-bindgen capture`)";
        let items = self.items(list, pointer, HELP)?;
        for (i, item) in items.iter().enumerate() {
            let pointer = format!("{pointer}/{i}");
            let entry = self.object(item, &pointer, "each skill is an object with a uri")?;
            let uri = self.required_string(entry, &pointer, "uri", "a skill needs its uri")?;
            let at = format!("{pointer}/frontmatter");
            let frontmatter = entry.get("frontmatter").unwrap_or(&Value::Null);
            let frontmatter = self.object(frontmatter, &at, "a skill has a frontmatter object")?;
            let name = self.required_string(frontmatter, &at, "name", "a skill has a name")?;
            let description = self.required_string(
                frontmatter,
                &at,
                "description",
                "a skill says what it is for",
            )?;
            let files = match entry.get("resources") {
                Some(Value::String(dynamic)) if dynamic == "dynamic" => None,
                Some(Value::Array(files)) => {
                    let mut listed = Vec::with_capacity(files.len());
                    for (j, file) in files.iter().enumerate() {
                        let at = format!("{pointer}/resources/{j}");
                        let file = self.object(file, &at, "each file has a uri and a digest")?;
                        let uri = self.required_string(file, &at, "uri", "a file needs a uri")?;
                        let digest =
                            self.required_string(file, &at, "digest", "a file needs a digest")?;
                        listed.push((uri, digest));
                    }
                    listed.sort();
                    Some(listed)
                }
                _ => {
                    return Err(self
                        .error(
                            &format!("{pointer}/resources"),
                            "a skill's resources are a list of files or \"dynamic\"",
                            HELP,
                        )
                        .into());
                }
            };
            self.skills.push(Skill {
                uri,
                name,
                description,
                files,
            });
        }
        Ok(())
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        pointer: &str,
        help: &str,
    ) -> Result<&'v Map<String, Value>, Error> {
        value.as_object().ok_or_else(|| {
            self.error(
                pointer,
                format!("expected an object, found {}", kind(value)),
                help,
            )
            .into()
        })
    }

    fn required_string(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
        key: &str,
        help: &str,
    ) -> Result<String, Error> {
        match object.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self
                .error(
                    &format!("{pointer}/{key}"),
                    format!("expected \"{key}\" to be a string, found {}", kind(other)),
                    help,
                )
                .into()),
            None => Err(self
                .error(pointer, format!("missing \"{key}\""), help)
                .into()),
        }
    }

    fn optional_string(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Result<Option<String>, Error> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self
                .error(
                    &format!("{pointer}/{key}"),
                    format!("expected \"{key}\" to be a string, found {}", kind(other)),
                    "remove the field or make it a string",
                )
                .into()),
        }
    }

    fn optional_bool(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Result<Option<bool>, Error> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self
                .error(
                    &format!("{pointer}/{key}"),
                    format!(
                        "expected \"{key}\" to be true or false, found {}",
                        kind(other)
                    ),
                    "annotation hints are booleans",
                )
                .into()),
        }
    }
}

/// Two tools with one name: the server would not know which to run.
fn check_unique(path: &Path, text: &str, tools: &[Tool]) -> Result<(), Error> {
    let mut seen: BTreeMap<&str, &Tool> = BTreeMap::new();
    for tool in tools {
        if let Some(first) = seen.insert(&tool.name, tool) {
            return Err(Diagnostic::new(
                path,
                format!(
                    "two tools are named `{}`: {} and {}",
                    tool.name, first.pointer, tool.pointer
                ),
            )
            .pointer(Some(text), &tool.pointer)
            .help("tool names are unique within a server (MCP spec); fix the capture, or capture the server again")
            .into());
        }
    }
    Ok(())
}

/// "a string", "an array", ... for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether `key` reads as a misspelt `inputSchema`: the same letters but for case and
/// separators (`input_schema`, `InputSchema`), or at most two edits away (`inputSchem`).
fn near_input_schema(key: &str) -> bool {
    let folded: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let target = "inputschema";
    if folded == target {
        return true;
    }
    // Levenshtein distance, small strings only.
    let (a, b): (Vec<char>, Vec<char>) = (folded.chars().collect(), target.chars().collect());
    if a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()] <= 2
}
