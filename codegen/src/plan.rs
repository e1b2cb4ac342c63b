//! What each tool becomes: its method (snake_case, the manifest's renames, collisions) and the
//! stem of its type names; and the checks of what the manifest names (tools, enum types)
//! against what the server has.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_bindgen_core::param_headers::param_headers;

use crate::config::ServerConfig;
use crate::diagnostic::{Diagnostic, Reporter};
use crate::error::Error;
use crate::model::{Capture, Tool};
use crate::naming::{self, Names};

/// Client methods that are not tools; a tool that would get one of these names is renamed.
const RESERVED: &[&str] = &["new", "caller", "into_inner", "drift", "check_drift"];

/// What one tool becomes: a method. Fixed once planned; how the method is typed is decided
/// later, per tool ([`crate::signature`]).
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub tool: &'a Tool,
    pub method: String,
    /// The stem of the tool's type names (`ListScenarios` for `list_scenarios`).
    pub stem: String,
}

/// A plan for each tool, in the capture's order (see [`methods`]), after checking that every
/// tool the config names is in the capture; `file` is where the capture (or, without one, the
/// contracts) came from. No capture, no tools.
pub(crate) fn tools<'a>(
    config: &ServerConfig,
    capture: Option<&'a Capture>,
    file: &Path,
    report: &mut Reporter<'_>,
) -> Result<Vec<Plan<'a>>, Error> {
    check_configured_tools(config, capture, file)?;
    match capture {
        Some(capture) => methods(config, capture, report),
        None => Ok(Vec::new()),
    }
}

/// Every tool the config names (for a result type or a rename) is in the capture.
fn check_configured_tools(
    config: &ServerConfig,
    capture: Option<&Capture>,
    file: &Path,
) -> Result<(), Error> {
    let listed = |name: &str| capture.is_some_and(|c| c.tools.iter().any(|t| t.name == name));
    for tool in config.results.keys() {
        if !listed(tool) {
            let message = if capture.is_some() {
                format!(
                    "a result type is configured for tool `{tool}`, which this capture does not list"
                )
            } else {
                format!(
                    "a result type is configured for tool `{tool}`, but the server has no capture"
                )
            };
            return Err(Diagnostic::new(file, message)
                .help(format!(
                    "remove `{tool}` from the `{}` server's results, or fix its name",
                    config.module
                ))
                .into());
        }
    }
    for renamed in config.rename.keys() {
        if !listed(renamed) {
            return Err(Diagnostic::new(
                file,
                format!("a rename is configured for tool `{renamed}`, which this capture does not list"),
            )
            .help(format!("remove the rename of `{renamed}` from the `{}` server's settings, or capture the server again", config.module))
            .into());
        }
    }
    Ok(())
}

/// A plan for each tool, in the capture's order: its method, from the manifest's rename or
/// its name; two tools that would share a method (or its `_raw`, or a task-capable tool's
/// `_task`) are an error.
fn methods<'a>(
    config: &ServerConfig,
    capture: &'a Capture,
    report: &mut Reporter<'_>,
) -> Result<Vec<Plan<'a>>, Error> {
    let mut methods: BTreeMap<String, &Tool> = BTreeMap::new();
    let mut plans = Vec::with_capacity(capture.tools.len());
    for tool in &capture.tools {
        if let Err(invalid) = param_headers(&tool.input_schema) {
            report.warn(
                &tool.name,
                format!("{}/inputSchema{}", tool.pointer, invalid.pointer),
                format!(
                    "{}: clients of MCP 2026-07-28 must leave out a tool whose x-mcp-header \
                     annotations are invalid, so no method is generated for it (the server \
                     should fix the annotation)",
                    invalid.message
                ),
            );
            continue;
        }
        let method = match config.rename.get(&tool.name) {
            Some(method) => {
                if !valid_method(method) {
                    return Err(Diagnostic::new(
                        report.file(),
                        format!("the rename of tool `{}` to `{method}` is not a snake_case Rust identifier", tool.name),
                    )
                    .help("use lowercase letters, digits and underscores, starting with a letter")
                    .into());
                }
                method.clone()
            }
            None => {
                let mut method = naming::method_name(&tool.name);
                if RESERVED.contains(&method.as_str()) {
                    report.warn(
                        &tool.name,
                        tool.pointer.clone(),
                        format!(
                            "the method `{method}` is the client's own; the tool's method is `{method}_tool` (rename it in the manifest to choose)"
                        ),
                    );
                    method = format!("{method}_tool");
                } else if naming::is_keyword(&method) {
                    report.warn(
                        &tool.name,
                        tool.pointer.clone(),
                        format!(
                            "the tool name is the Rust keyword `{method}`; the method is `{}` (rename it in the manifest for a plainer name)",
                            naming::ident(&method)
                        ),
                    );
                }
                method
            }
        };
        let task = tool.task_support().map(|_| format!("{method}_task"));
        for name in [method.clone(), format!("{method}_raw")]
            .into_iter()
            .chain(task)
        {
            if let Some(other) = methods.insert(name.clone(), tool) {
                return Err(report
                    .error(
                        &tool.pointer,
                        format!(
                            "tools `{}` ({}) and `{}` ({}) both become the method `{name}`",
                            other.name, other.pointer, tool.name, tool.pointer
                        ),
                        &format!(
                            "rename one: in bindings.toml, [servers.{}.rename] \"{}\" = \"another_name\"; in build.rs, ServerConfig::with_rename",
                            config.module, tool.name
                        ),
                    )
                    .into());
            }
        }
        plans.push(Plan {
            tool,
            stem: naming::type_name(&method),
            method,
        });
    }
    Ok(plans)
}

/// The server's names, with each tool's `{Stem}Args` and `{Stem}Output` taken first.
pub(crate) fn type_names(plans: &[Plan<'_>]) -> Names {
    let mut names = Names::default();
    for plan in plans {
        names.reserve(&format!("{}Args", plan.stem));
        names.reserve(&format!("{}Output", plan.stem));
    }
    names
}

/// Every type the config names variants for is an enum the normaliser met.
pub(crate) fn check_variants(
    config: &ServerConfig,
    file: &Path,
    names: &Names,
) -> Result<(), Error> {
    for ty in config.variants.keys() {
        if !names.variants_used(ty) {
            return Err(Diagnostic::new(
                file,
                format!("variant names are configured for `{ty}`, which is not a generated enum"),
            )
            .help(format!(
                "name an enum type of the `{}` server (a contract enum or a union tagged by a boolean or number), as it appears in the generated `types` module",
                config.module
            ))
            .into());
        }
    }
    Ok(())
}

fn valid_method(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !naming::is_keyword(name)
}
