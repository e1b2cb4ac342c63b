//! How each tool's method is typed: its arguments and its result. [`decide`] chooses from the
//! tool's schemas and the contracts before typify runs, and hands over the units to type;
//! [`settle`] takes what typify made and degrades the types that failed to JSON. Each returns
//! the signatures, one per plan in the plans' order; the plans stay as planned.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnostic::Reporter;
use crate::dialect;
use crate::error::Error;
use crate::fault::{self, Stage};
use crate::model::Tool;
use crate::naming::Names;
use crate::normalise;
use crate::plan::Plan;
use crate::types::{self, Origin, Unit};

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

/// Where a tool's result type comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Output {
    /// None: the result is JSON (`serde_json::Value`).
    Json,
    /// The type generated from the tool's `outputSchema`.
    Schema(String),
    /// A type of the agent contracts, or a TypeScript result type the config gives.
    Contracts(String),
}

impl Output {
    /// The generated type's name, unless the result is JSON.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Output::Json => None,
            Output::Schema(name) | Output::Contracts(name) => Some(name),
        }
    }
}

/// How one tool's method is typed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Signature {
    pub args: Args,
    pub output: Output,
}

/// The signatures as decided before typify, and the units to type for them.
#[derive(Debug)]
pub(crate) struct Decided {
    /// One per plan, in the plans' order.
    pub signatures: Vec<Signature>,
    /// Every tool's arguments first, then every tool's result.
    pub units: Vec<Unit>,
}

/// Each tool's signature before typify: its schemas' dialect checked, its arguments normalised
/// into a unit `{Stem}Args` (none when it takes none; a JSON object when its schema is not an
/// object or the normaliser fails on it), and its result from `results` (the contracts' result
/// types by tool name, when there are contracts), else from its output schema normalised into a unit `{Stem}Output`
/// (JSON when it has none, or the normaliser fails on it).
pub(crate) fn decide(
    plans: &[Plan<'_>],
    results: Option<&BTreeMap<String, String>>,
    names: &mut Names,
    report: &mut Reporter<'_>,
) -> Result<Decided, Error> {
    let mut units = Vec::new();
    // Every tool's arguments before any tool's result: nested types take their names in this
    // order.
    let mut args = Vec::with_capacity(plans.len());
    for plan in plans {
        check_dialects(plan.tool, report)?;
        let (decided, unit) = arguments(plan, names, report);
        args.push(decided);
        units.extend(unit);
    }
    let mut signatures = Vec::with_capacity(plans.len());
    for (plan, args) in plans.iter().zip(args) {
        let output = match results.and_then(|r| r.get(&plan.tool.name)) {
            Some(ty) => Output::Contracts(ty.clone()),
            None => {
                let (decided, unit) = output(plan, names, report);
                units.extend(unit);
                decided
            }
        };
        signatures.push(Signature { args, output });
    }
    Ok(Decided { signatures, units })
}

/// A tool's input and output schemas are in a dialect the generator reads, and their type
/// names are ones it can write.
fn check_dialects(tool: &Tool, report: &mut Reporter<'_>) -> Result<(), Error> {
    for (key, schema) in [
        ("inputSchema", Some(&tool.input_schema)),
        ("outputSchema", tool.output_schema.as_ref()),
    ] {
        if let Some(schema) = schema {
            let base = format!("{}/{key}", tool.pointer);
            let at = |p: &str, m: String, h: &str| report.error(&format!("{base}{p}"), m, h);
            dialect::check(schema, &at)?;
            dialect::check_type_names(schema, &at)?;
        }
    }
    Ok(())
}

/// How a tool's arguments are passed, and the unit that types them.
fn arguments(
    plan: &Plan<'_>,
    names: &mut Names,
    report: &mut Reporter<'_>,
) -> (Args, Option<Unit>) {
    let tool = plan.tool;
    if !takes_arguments(&tool.input_schema) {
        return (Args::None, None);
    }
    let args_name = format!("{}Args", plan.stem);
    if !is_object_schema(&tool.input_schema) {
        report.warn(
            &tool.name,
            format!("{}/inputSchema", tool.pointer),
            "inputSchema does not describe an object; arguments typed as a JSON object".into(),
        );
        return (Args::Map(args_name), None);
    }
    let origin = Origin::Arguments(tool.name.clone());
    match tool_unit(plan, origin, &args_name, names, report) {
        Some(unit) => (Args::Typed(args_name), Some(unit)),
        None => (Args::Map(args_name), None),
    }
}

/// A tool's result type from its output schema (JSON without one), and the unit that types
/// it.
fn output(plan: &Plan<'_>, names: &mut Names, report: &mut Reporter<'_>) -> (Output, Option<Unit>) {
    let output_name = format!("{}Output", plan.stem);
    let origin = Origin::Result(plan.tool.name.clone());
    match tool_unit(plan, origin, &output_name, names, report) {
        Some(unit) => (Output::Schema(output_name), Some(unit)),
        None => (Output::Json, None),
    }
}

/// The tool's arguments or result (`origin`) normalised into the unit `root` (`{Stem}Args` or
/// `{Stem}Output`; nested names starting with the stem), the normaliser's warnings reported at
/// their pointers; none for a result without an output schema. The normaliser runs under a
/// guard: a panic in it costs that schema its type, with a warning giving the reason, instead
/// of costing the whole server.
fn tool_unit(
    plan: &Plan<'_>,
    origin: Origin,
    root: &str,
    names: &mut Names,
    report: &mut Reporter<'_>,
) -> Option<Unit> {
    let tool = plan.tool;
    let (key, schema, doc, fallback) = match &origin {
        Origin::Arguments(_) => (
            "inputSchema",
            &tool.input_schema,
            "The arguments of",
            "arguments typed as a JSON object",
        ),
        Origin::Result(_) => (
            "outputSchema",
            tool.output_schema.as_ref()?,
            "The result of",
            "result typed as serde_json::Value",
        ),
        Origin::Contracts => return None,
    };
    let pointer = format!("{}/{key}", tool.pointer);
    let forced =
        matches!(origin, Origin::Arguments(_)) && fault::forced(&tool.name, Stage::Normalise);
    let result = types::guarded(|| {
        if forced {
            panic!("{}", fault::INJECTED);
        }
        normalise::normalise(schema, root, &plan.stem, names)
    });
    let normalised = match result {
        Ok(normalised) => normalised,
        Err(message) => {
            let message = format!("normaliser panicked: {message}; {fallback}");
            report.warn(&tool.name, pointer, message);
            return None;
        }
    };
    for (p, m) in normalised.warnings {
        report.warn(&tool.name, format!("{pointer}{p}"), m);
    }
    Some(Unit {
        handwritten: normalised.handwritten,
        substitutions: normalised.substitutions,
        doc: Some(format!("{doc} `{}`.", tool.name)),
        ..Unit::new(root, origin, normalised.defs)
    })
}

/// Every type that failed, by name, with the reason: typify's failures (`failed`), and each
/// type a signature names that `items` (the `types` module) does not define, whatever stage
/// lost it (the last check before the client is written, so that its tool degrades instead of
/// the module not compiling).
pub(crate) fn failed(
    signatures: &[Signature],
    items: &[syn::Item],
    mut failed: BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let defined = types::defined_names(items);
    for signature in signatures {
        let args = match &signature.args {
            Args::Typed(name) => Some(name.as_str()),
            _ => None,
        };
        for name in args.into_iter().chain(signature.output.name()) {
            if !defined.contains(name) {
                failed.entry(name.to_owned()).or_insert_with(|| {
                    format!("self-consistency check: `{name}` is not in the generated types")
                });
            }
        }
    }
    failed
}

/// The signatures after typify: a tool whose types `failed` (by name, with the reason)
/// degrades, its arguments to a JSON object and its result to `serde_json::Value`, each with a
/// warning.
pub(crate) fn settle(
    plans: &[Plan<'_>],
    signatures: Vec<Signature>,
    failed: &BTreeMap<String, String>,
    report: &mut Reporter<'_>,
) -> Vec<Signature> {
    debug_assert_eq!(plans.len(), signatures.len(), "a signature per plan");
    plans
        .iter()
        .zip(signatures)
        .map(
            |(
                plan,
                Signature {
                    mut args,
                    mut output,
                },
            )| {
                let tool = plan.tool;
                if let Args::Typed(name) = &args
                    && let Some(reason) = failed.get(name)
                {
                    report.warn(
                        &tool.name,
                        format!("{}/inputSchema", tool.pointer),
                        format!("{reason}; arguments typed as a JSON object"),
                    );
                    args = Args::Map(name.clone());
                }
                if let Some(reason) = output.name().and_then(|name| failed.get(name)) {
                    report.warn(
                        &tool.name,
                        format!("{}/outputSchema", tool.pointer),
                        format!("{reason}; result typed as serde_json::Value"),
                    );
                    output = Output::Json;
                }
                Signature { args, output }
            },
        )
        .collect()
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
fn is_object_schema(schema: &Value) -> bool {
    match schema.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        Some(_) => false,
    }
}
