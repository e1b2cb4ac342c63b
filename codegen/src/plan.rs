//! What each tool becomes: its method (snake_case, the manifest's renames, collisions), how
//! its arguments and its result are typed, and the checks of what the manifest names (tools,
//! enum types) against what the server has.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::config::ServerConfig;
use crate::diagnostic::{Diagnostic, Reporter};
use crate::error::Error;
use crate::fault::{Fault, Stage};
use crate::model::{Capture, Tool};
use crate::naming::{self, Names};
use crate::types;

/// Client methods that are not tools; a tool that would get one of these names is renamed.
const RESERVED: &[&str] = &["new", "caller", "into_inner", "drift", "check_drift"];

/// How a tool's arguments are passed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Args {
    /// The tool takes no arguments; the method has none.
    None,
    /// A generated type.
    Typed(String),
    /// A JSON object (`serde_json::Map`), when no type could be generated.
    Map(String),
}

/// What one tool becomes: a method, its arguments' type and its result's.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub tool: &'a Tool,
    pub method: String,
    pub args: Args,
    /// Generated result type name: from the manifest's `results`, else from a usable
    /// `outputSchema`.
    pub output: Option<String>,
    /// Whether `output` comes from the contracts.
    pub from_contracts: bool,
}

impl Plan<'_> {
    /// The stem of the tool's type names (`ListScenarios` for `list_scenarios`).
    pub(crate) fn stem(&self) -> String {
        naming::type_name(&self.method)
    }
}

/// Every tool the config names (for a result type or a rename) is in the capture; `file` is
/// where the capture (or, without one, the contracts) came from.
pub(crate) fn check_configured_tools(
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
/// its name; two tools that would share a method (or its `_raw`) are an error.
pub(crate) fn methods<'a>(
    config: &ServerConfig,
    capture: &'a Capture,
    report: &mut Reporter<'_>,
) -> Result<Vec<Plan<'a>>, Error> {
    let mut methods: BTreeMap<String, &Tool> = BTreeMap::new();
    let mut plans = Vec::with_capacity(capture.tools.len());
    for tool in &capture.tools {
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
        for name in [method.clone(), format!("{method}_raw")] {
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
            method,
            args: Args::None,
            output: None,
            from_contracts: false,
        });
    }
    Ok(plans)
}

/// The server's names, with each tool's `{Stem}Args` and `{Stem}Output` taken first.
pub(crate) fn type_names(plans: &[Plan<'_>]) -> Names {
    let mut names = Names::default();
    for plan in plans {
        let stem = plan.stem();
        names.reserve(&format!("{stem}Args"));
        names.reserve(&format!("{stem}Output"));
    }
    names
}

/// Each tool's stem, by tool name (for the contracts' `{Stem}Result` types).
pub(crate) fn stems<'a>(plans: &[Plan<'a>]) -> BTreeMap<&'a str, String> {
    plans
        .iter()
        .map(|p| (p.tool.name.as_str(), p.stem()))
        .collect()
}

/// Result types the contracts give (tool → definition name) win over output schemas.
pub(crate) fn take_contract_results(plans: &mut [Plan<'_>], results: &BTreeMap<String, String>) {
    for plan in plans {
        if let Some(ty) = results.get(&plan.tool.name) {
            plan.output = Some(ty.clone());
            plan.from_contracts = true;
        }
    }
}

/// Every type the config names variants for is an enum the normaliser met.
pub(crate) fn check_variants(
    config: &ServerConfig,
    file: &std::path::Path,
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

/// Whether a failure is forced on `tool` at `stage`.
pub(crate) fn has_fault(faults: &[Fault], tool: &Tool, stage: Stage) -> bool {
    faults
        .iter()
        .any(|f| f.tool == tool.name && f.stage == stage)
}

/// The failure a test forces on the type layer for the tool's arguments (the last named).
pub(crate) fn args_fault(faults: &[Fault], tool: &Tool) -> Option<Stage> {
    faults
        .iter()
        .rev()
        .find(|f| {
            f.tool == tool.name
                && matches!(f.stage, Stage::Typify | Stage::Render | Stage::PostPass)
        })
        .map(|f| f.stage)
}

/// The failure a test forces on the type layer for the tool's result: typify refuses it.
pub(crate) fn output_fault(faults: &[Fault], tool: &Tool) -> Option<Stage> {
    has_fault(faults, tool, Stage::Output).then_some(Stage::Typify)
}

/// The last check before the client is written: every type the client names is in `types`.
/// One that is not (whatever stage lost it) is reported as failed, so that its tool degrades
/// instead of the module not compiling.
pub(crate) fn missing_names(plans: &[Plan<'_>], generated: &mut types::Types) {
    let defined = types::defined_names(&generated.items);
    for plan in plans {
        let args = match &plan.args {
            Args::Typed(name) => Some(name),
            _ => None,
        };
        for name in args.into_iter().chain(plan.output.as_ref()) {
            if !defined.contains(name) {
                generated.failed.entry(name.clone()).or_insert_with(|| {
                    format!("self-consistency check: `{name}` is not in the generated types")
                });
            }
        }
    }
}

/// Tools whose types failed (by root name, with the reason) degrade: arguments to a JSON
/// object, a result to `serde_json::Value`, each with a warning.
pub(crate) fn degrade(
    plans: &mut [Plan<'_>],
    failed: &BTreeMap<String, String>,
    report: &mut Reporter<'_>,
) {
    for plan in plans {
        if let Args::Typed(name) = &plan.args
            && let Some(reason) = failed.get(name)
        {
            report.warn(
                &plan.tool.name,
                format!("{}/inputSchema", plan.tool.pointer),
                format!("{reason}; arguments typed as a JSON object"),
            );
            plan.args = Args::Map(name.clone());
        }
        if let Some(name) = &plan.output
            && let Some(reason) = failed.get(name)
        {
            report.warn(
                &plan.tool.name,
                format!("{}/outputSchema", plan.tool.pointer),
                format!("{reason}; result typed as serde_json::Value"),
            );
            plan.output = None;
        }
    }
}

/// The capture as named in the config (or as read, when it was passed in).
pub(crate) fn capture_input(
    config: &ServerConfig,
    capture: Option<&Capture>,
) -> Vec<std::path::PathBuf> {
    match (&config.capture, capture) {
        (Some(path), _) => vec![path.clone()],
        (None, Some(capture)) => vec![capture.file.clone()],
        (None, None) => Vec::new(),
    }
}

fn valid_method(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !naming::is_keyword(name)
}

/// A tool takes arguments unless its schema is an object with no way to hold any.
pub(crate) fn takes_arguments(schema: &Value) -> bool {
    let Value::Object(object) = schema else {
        return schema != &Value::Bool(false);
    };
    object.iter().any(|(key, value)| match key.as_str() {
        "type" | "$schema" | "$id" | "title" | "description" | "$comment" | "required"
        | "$defs" | "definitions" | "examples" | "default" => false,
        "properties" => value.as_object().is_some_and(|p| !p.is_empty()),
        "additionalProperties" | "unevaluatedProperties" => value != &Value::Bool(false),
        _ => true,
    })
}

/// Whether a schema may describe an object (no `type`, or one that includes `"object"`).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    match schema.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        Some(_) => false,
    }
}
