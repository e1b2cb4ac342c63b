//! One server's module: names, normalised schemas through typify, and the client (quote).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::config::ServerConfig;
use crate::contracts::{self, Contracts, Lowered, NO_CONTRACTS, Source};
use crate::definition::Normalised;
use crate::diagnostic::{Diagnostic, Reporter};
use crate::dialect;
use crate::emit;
use crate::error::Error;
use crate::fault::{Fault, Stage};
use crate::model::Capture;
use crate::module::Module;
use crate::naming::Names;
use crate::normalise;
use crate::plan::{self, Args};
use crate::types::{self, Unit};

/// The contracts of a server, lowered and normalised.
struct ContractTypes {
    lowered: Lowered,
    unit: Unit,
}

pub(crate) fn generate(
    config: &ServerConfig,
    capture: Option<&Capture>,
    sources: Vec<Source>,
    faults: &[Fault],
) -> Result<Module, Error> {
    let has_client = capture.is_some();
    let empty;
    let capture = match capture {
        Some(capture) => capture,
        None => {
            empty = Capture {
                file: config.contracts.first().cloned().unwrap_or_default(),
                text: String::new(),
                server: None,
                protocol_version: None,
                tools: Vec::new(),
            };
            &empty
        }
    };
    let file = &capture.file;
    let mut report = Reporter::new(file, &capture.text);

    plan::check_configured_tools(config, capture, has_client)?;
    let mut plans = plan::methods(config, capture, &mut report)?;

    // Schemas → typify units.
    let mut names = plan::type_names(&plans);
    let contract_types = if sources.is_empty() && config.results.is_empty() {
        None
    } else if !cfg!(feature = "contracts") {
        let what = match config.contracts.first() {
            Some(path) => format!("the contract `{}`", path.display()),
            None => "result types written in TypeScript".to_owned(),
        };
        return Err(Diagnostic::new(
            format!("[servers.{}]", config.module),
            format!("{what} needs {NO_CONTRACTS}"),
        )
        .help("turn the feature on: mcp-bindgen-codegen = { version = \"..\", features = [\"contracts\"] } (it is on by default)")
        .into());
    } else {
        Some(lower_contracts(
            config,
            sources,
            &plan::stems(&plans),
            &mut names,
        )?)
    };
    let mut contract_warnings = Vec::new();
    if let Some(contracts) = &contract_types {
        contract_warnings.extend(contracts.lowered.warnings.iter().cloned());
        plan::take_contract_results(&mut plans, &contracts.lowered.results);
    }
    let mut units = Vec::new();
    for plan in &mut plans {
        let tool = plan.tool;
        let stem = plan.stem();
        for (key, schema) in [
            ("inputSchema", Some(&tool.input_schema)),
            ("outputSchema", tool.output_schema.as_ref()),
        ] {
            if let Some(schema) = schema {
                let base = format!("{}/{key}", tool.pointer);
                dialect::check(schema, &|p: &str, m: String, h: &str| {
                    report.error(&format!("{base}{p}"), m, h)
                })?;
            }
        }
        if !plan::takes_arguments(&tool.input_schema) {
            continue;
        }
        let input_pointer = format!("{}/inputSchema", tool.pointer);
        let args_name = format!("{stem}Args");
        if !plan::is_object_schema(&tool.input_schema) {
            report.warn(
                &tool.name,
                input_pointer.clone(),
                "inputSchema does not describe an object; arguments typed as a JSON object".into(),
            );
            plan.args = Args::Map(args_name);
            continue;
        }
        let schema_diag =
            |p: &str, m: String, h: &str| report.error(&format!("{input_pointer}{p}"), m, h);
        let forced = plan::has_fault(faults, tool, Stage::Normalise);
        let normalised = match normalise_guarded(
            &tool.input_schema,
            (&args_name, &stem),
            &mut names,
            &schema_diag,
            forced,
        )? {
            Ok(normalised) => normalised,
            Err(reason) => {
                report.warn(
                    &tool.name,
                    input_pointer,
                    format!("{reason}; arguments typed as a JSON object"),
                );
                plan.args = Args::Map(args_name);
                continue;
            }
        };
        for (p, m) in normalised.warnings {
            report.warn(&tool.name, format!("{input_pointer}{p}"), m);
        }
        units.push(Unit {
            root: args_name.clone(),
            defs: normalised.defs,
            own: normalised.own,
            substitutions: normalised.substitutions,
            doc: Some(format!("The arguments of `{}`.", tool.name)),
            fault: plan::args_fault(faults, tool),
            ..Unit::default()
        });
        plan.args = Args::Typed(args_name);
    }
    // Output schemas, with or without arguments; a result type from the contracts wins.
    for plan in &mut plans {
        let tool = plan.tool;
        if plan.output.is_some() || plan.from_contracts {
            continue;
        }
        if let Some(output) = &tool.output_schema {
            let stem = plan.stem();
            let output_pointer = format!("{}/outputSchema", tool.pointer);
            let output_name = format!("{stem}Output");
            let schema_diag =
                |p: &str, m: String, h: &str| report.error(&format!("{output_pointer}{p}"), m, h);
            let normalised = match normalise_guarded(
                output,
                (&output_name, &stem),
                &mut names,
                &schema_diag,
                false,
            )? {
                Ok(normalised) => normalised,
                Err(reason) => {
                    report.warn(
                        &tool.name,
                        output_pointer,
                        format!("{reason}; result typed as serde_json::Value"),
                    );
                    continue;
                }
            };
            for (p, m) in normalised.warnings {
                report.warn(&tool.name, format!("{output_pointer}{p}"), m);
            }
            units.push(Unit {
                root: output_name.clone(),
                defs: normalised.defs,
                own: normalised.own,
                substitutions: normalised.substitutions,
                doc: Some(format!("The result of `{}`.", tool.name)),
                fault: plan::output_fault(faults, tool),
                ..Unit::default()
            });
            plan.output = Some(output_name);
        }
    }

    plan::check_variants(config, file, &names)?;
    if let Some(contracts) = &contract_types {
        units.push(contracts.unit.clone());
    }
    let mut generated = types::generate(&units);
    plan::missing_names(&plans, &mut generated);
    if let Some(contracts) = &contract_types {
        for (name, reason) in &generated.failed {
            if contracts.unit.defs.iter().any(|(def, _)| def == name) {
                contract_warnings.push(contracts.lowered.warning(
                    name,
                    format!("{reason}; `{name}` typed as serde_json::Value"),
                ));
            }
        }
    }
    plan::degrade(&mut plans, &generated.failed, &mut report);

    let items = generated.items;
    let file = emit::file(config, capture, has_client, &plans, items)?;
    let mut warnings = report.into_warnings();
    warnings.extend(contract_warnings);
    warnings.sort_by(|a, b| {
        (a.file.clone(), a.at.map(|at| (at.line, at.column)))
            .cmp(&(b.file.clone(), b.at.map(|at| (at.line, at.column))))
    });
    let mut inputs: Vec<std::path::PathBuf> = plan::capture_input(config, capture, has_client);
    inputs.extend(config.contracts.iter().cloned());
    Ok(Module {
        name: config.module.clone(),
        inputs,
        body: file.into(),
        warnings,
        tools: plans.len(),
        types: generated.count,
    })
}

/// Normalises one of a tool's schemas (as the type `root.0`, nested names starting with
/// `root.1`) under a guard: a panic in the normaliser (or a `forced` one) costs that schema
/// its type, with the reason, instead of costing the whole server. The outer error is an input
/// error that stops generation (an unknown dialect).
fn normalise_guarded(
    schema: &Value,
    (root, prefix): (&str, &str),
    names: &mut Names,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
    forced: bool,
) -> Result<Result<Normalised, String>, Error> {
    let result = types::guarded(|| {
        if forced {
            panic!("{}", crate::fault::INJECTED);
        }
        normalise::normalise(schema, root, prefix, names, diag)
    });
    match result {
        Ok(normalised) => normalised.map(Ok),
        Err(message) => Ok(Err(format!("normaliser panicked: {message}"))),
    }
}

/// Parses, lowers and normalises the server's contracts; result types are named
/// `{Stem}Result` when they are not a declared type.
fn lower_contracts(
    config: &ServerConfig,
    sources: Vec<Source>,
    stems: &BTreeMap<&str, String>,
    names: &mut Names,
) -> Result<ContractTypes, Error> {
    let contracts = Contracts::parse(sources)?;
    let settings = contracts::Settings {
        overrides: &config.overrides,
        results: config
            .results
            .iter()
            .map(|(tool, ty)| {
                let stem = stems.get(tool.as_str()).cloned().unwrap_or_default();
                (tool.clone(), format!("{stem}Result"), ty.clone())
            })
            .collect(),
    };
    let lowered = contracts.lower(&settings, &mut |wanted| names.reserve(wanted))?;
    for (ty, chosen) in &config.variants {
        names.name_variants_of(ty, chosen);
    }
    for (ty, chosen) in &lowered.variant_names {
        names.name_variants_of(ty, chosen);
    }
    let normalised = normalise::normalise_definitions(&lowered.defs, names);
    let mut lowered = lowered;
    for (pointer, message) in normalised.warnings {
        let def = pointer.split('/').nth(2).unwrap_or_default().to_owned();
        let warning = lowered.warning(&def, message);
        lowered.warnings.push(warning);
    }
    Ok(ContractTypes {
        unit: Unit {
            root: "agent contracts".into(),
            defs: normalised.defs,
            split: true,
            own: normalised.own,
            substitutions: normalised.substitutions,
            typescript: true,
            consts: std::mem::take(&mut lowered.consts),
            ..Unit::default()
        },
        lowered,
    })
}
