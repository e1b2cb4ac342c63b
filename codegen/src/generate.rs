//! The stage sequence: [`Generator`] reads a server's inputs and runs the stages ([`stages`])
//! on the generator's stack ([`on_generator_stack`]): capture and contracts in, [`Module`] out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::capture;
use crate::config::ServerConfig;
use crate::contracts::{self, Contracts, Lowered, NO_CONTRACTS, Source};
use crate::diagnostic::{Diagnostic, Reporter, Warning};
use crate::emit;
use crate::error::Error;
#[cfg(feature = "fault-injection")]
use crate::fault::{Fault, Stage};
use crate::model::{self, Capture};
use crate::module::Module;
use crate::naming::Names;
use crate::normalise;
use crate::plan::{self, Plan};
use crate::signature::{self, Decided};
use crate::types::{self, Origin, Types, Unit};

/// Runs `f` with the big stack of the recursive stages (normaliser, contracts, typify, syn):
/// deeply nested schemas must not overflow the caller's stack (test threads have 2 MiB). The
/// runner is the comparison's (`mcp_bindgen_core::stack`): one home for both.
pub(crate) fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    mcp_bindgen_core::stack::with_big_stack("mcp-bindgen-generator", f)
}

/// Runs `f` on a thread with the generator's stack (256 MiB reserved, only touched pages
/// committed) and returns what it returns; a panic in `f` is resumed here.
///
/// [`Generator::generate`] runs its deeply recursive stages on such a thread anyway. Called
/// outside one, it hands the module back across threads as rendered code (syntax trees are
/// not `Send`): [`Module::code`] and [`Module::to_module_file`] cost nothing more, but
/// [`Module::to_wrapped`] has to parse that code again to lay it out inside `pub mod`. Called
/// inside `f`, it runs directly and the module keeps its syntax. Do there everything that
/// needs the [`Module`] (rendering it, writing it) and return what is `Send`:
///
/// ```no_run
/// use mcp_bindgen_codegen::{Generator, ServerConfig, on_generator_stack};
///
/// let config = ServerConfig::new("big", "captures/big.tools.json");
/// let code = on_generator_stack(|| {
///     let module = Generator::new().generate(&config)?;
///     Ok::<_, mcp_bindgen_codegen::Error>(module.to_wrapped("mcp-bindgen generate"))
/// })?;
/// std::fs::write("big.rs", code)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn on_generator_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    with_big_stack(f)
}

/// The generator. Stateless between calls; cheap to create.
///
/// ```
/// use mcp_bindgen_codegen::{Generator, ServerConfig, capture};
///
/// let text = r#"{"tools": [{"name": "add", "description": "Adds two numbers.",
///     "inputSchema": {"type": "object", "required": ["a", "b"],
///         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
///     "outputSchema": {"type": "object", "required": ["sum"],
///         "properties": {"sum": {"type": "integer"}}}}]}"#;
/// let config = ServerConfig::new("calculator", "calculator.tools.json");
/// let capture = capture::parse(config.capture.as_deref().unwrap(), text.to_owned())?;
/// let module = Generator::new().generate_capture(&config, &capture)?;
/// let code = module.to_wrapped("mcp-bindgen generate");
/// assert!(code.contains("pub async fn add("));
/// assert!(code.contains("pub struct AddOutput"));
/// # Ok::<(), mcp_bindgen_codegen::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Generator {
    base: Option<PathBuf>,
    #[cfg(feature = "fault-injection")]
    faults: Vec<Fault>,
}

impl Generator {
    /// A generator reading paths as given (relative to the current directory).
    pub fn new() -> Self {
        Generator::default()
    }

    /// Reads relative input paths from `base` (a manifest's directory); messages and headers
    /// still name them as written.
    pub fn with_base(mut self, base: impl Into<PathBuf>) -> Self {
        self.base = Some(base.into());
        self
    }

    /// Makes tool `tool` fail at `stage`, for tests of how one tool's failure degrades it
    /// alone (with the `fault-injection` feature).
    #[doc(hidden)]
    #[cfg(feature = "fault-injection")]
    pub fn with_fault(mut self, tool: impl Into<String>, stage: Stage) -> Self {
        self.faults.push(Fault {
            tool: tool.into(),
            stage,
        });
        self
    }

    fn resolve(&self, path: &Path) -> PathBuf {
        match &self.base {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_path_buf(),
        }
    }

    /// Reads an input. A file that is not there says where it was looked for (a relative
    /// path is read from the base: the crate's directory in build.rs, the manifest's in
    /// `regenerate`) and how to make one.
    fn read(&self, path: &Path) -> Result<String, Error> {
        let resolved = self.resolve(path);
        std::fs::read_to_string(&resolved).map_err(|source| {
            let source = if source.kind() == std::io::ErrorKind::NotFound {
                let help = if path.extension().is_some_and(|e| e == "ts") {
                    "write the declarations there, or fix the configured path \
                     (ServerConfig::with_contract in build.rs, `contracts` in bindings.toml, \
                     --contracts on the command line)"
                } else {
                    "capture the server's tools there (`mcp-bindgen capture -o FILE --url URL`, \
                     or `-- COMMAND` for a stdio server), or fix the configured path \
                     (ServerConfig::new in build.rs, `capture` in bindings.toml, --tools on the \
                     command line)"
                };
                let absolute = |p: &Path| match std::env::current_dir() {
                    Ok(cwd) if p.is_relative() => cwd.join(p),
                    _ => p.to_path_buf(),
                };
                let relative_to = match &self.base {
                    // build.rs: the crate's directory; regenerate: the manifest's.
                    Some(base) if path.is_relative() => {
                        format!(" (relative to {})", absolute(base).display())
                    }
                    _ => String::new(),
                };
                std::io::Error::new(
                    source.kind(),
                    format!(
                        "{source}: looked for {}{relative_to}; help: {help}",
                        absolute(&resolved).display()
                    ),
                )
            } else {
                source
            };
            Error::Io {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// Generates the module for one server: its capture and contracts are read from disk.
    pub fn generate(&self, config: &ServerConfig) -> Result<Module, Error> {
        let capture = match &config.capture {
            Some(path) => Some(capture::parse(path, self.read(path)?)?),
            None => None,
        };
        self.generate_inner(config, capture.as_ref())
    }

    /// Generates the module for a capture already read (the config's contracts are read from
    /// disk).
    pub fn generate_capture(
        &self,
        config: &ServerConfig,
        capture: &model::Capture,
    ) -> Result<Module, Error> {
        self.generate_inner(config, Some(capture))
    }

    fn generate_inner(
        &self,
        config: &ServerConfig,
        capture: Option<&model::Capture>,
    ) -> Result<Module, Error> {
        if mcp_bindgen_core::stack::on_big_stack() {
            return self.generate_on_this_stack(config, capture);
        }
        // The module's syntax is not `Send`: the generator thread hands back its code, rendered
        // ([`on_generator_stack`] keeps the syntax, for `to_wrapped`).
        let rendered = with_big_stack(|| {
            self.generate_on_this_stack(config, capture)
                .map(Module::render)
        })?;
        Ok(rendered.into())
    }

    fn generate_on_this_stack(
        &self,
        config: &ServerConfig,
        capture: Option<&model::Capture>,
    ) -> Result<Module, Error> {
        if capture.is_none() && config.contracts.is_empty() {
            return Err(Diagnostic::new(
                format!("[servers.{}]", config.module),
                "nothing to generate: no capture and no contracts",
            )
            .help("give the server a capture (`capture = \"..\"`, --tools) or contract files (`contracts = [..]`, --contracts)")
            .into());
        }
        let mut sources = Vec::new();
        for path in &config.contracts {
            sources.push(Source {
                path: path.clone(),
                text: self.read(path)?,
            });
        }
        #[cfg(feature = "fault-injection")]
        let _faults = crate::fault::install(&self.faults);
        stages(config, capture, sources)
    }
}

/// One server's module, stage by stage: plan each tool's method, lower the contracts, decide
/// each method's signature (normalising the tools' schemas into units), type every unit
/// (typify and the post-passes), settle the signatures (the tools whose types failed degrade),
/// emit the module.
fn stages(
    config: &ServerConfig,
    capture: Option<&Capture>,
    sources: Vec<Source>,
) -> Result<Module, Error> {
    // Where the inputs came from, for messages: the capture, or without one the first
    // contract file.
    let file = match capture {
        Some(capture) => capture.file.clone(),
        None => config.contracts.first().cloned().unwrap_or_default(),
    };
    let mut report = Reporter::new(&file, capture.map_or("", |c| c.text.as_str()));

    let plans = plan::tools(config, capture, &file, &mut report)?;
    let mut names = plan::type_names(&plans);
    let contracts = contract_types(config, sources, &plans, &mut names)?;
    let results = contracts.as_ref().map(|c| &c.lowered.results);
    let Decided {
        signatures,
        mut units,
    } = signature::decide(&plans, results, &mut names, &mut report)?;
    let (mut event_plans, event_units) = crate::events::plan(capture, &mut names, &mut report);
    units.extend(event_units);
    plan::check_variants(config, &file, &names)?;
    let (lowered, contract_unit) = contracts.map(|c| (c.lowered, c.unit)).unzip();
    units.extend(contract_unit);

    let Types {
        items,
        failed,
        count,
    } = types::generate(&units);
    let failed = signature::failed(&signatures, &items, failed);
    let signatures = signature::settle(&plans, signatures, &failed, &mut report);
    crate::events::settle(&mut event_plans, &items, &failed, &mut report);
    let from_contracts = lowered
        .map(|lowered| contract_warnings(lowered, &units, &failed))
        .unwrap_or_default();

    let syntax = emit::file(
        config,
        capture,
        &file,
        (&plans, &signatures),
        &event_plans,
        items,
    )?;
    let mut warnings = report.into_warnings();
    warnings.extend(from_contracts);
    warnings.sort_by(|a, b| {
        (a.file.clone(), a.at.map(|at| (at.line, at.column)))
            .cmp(&(b.file.clone(), b.at.map(|at| (at.line, at.column))))
    });
    Ok(Module {
        name: config.module.clone(),
        inputs: inputs(config, capture),
        body: syntax.into(),
        warnings,
        tools: plans.len(),
        types: count,
        digest: capture
            .map(|_| mcp_bindgen_core::digest::digest(plans.iter().map(|p| &p.tool.raw))),
    })
}

/// The module's inputs: the capture as named in the config (or as read, when it was passed
/// in), and the contracts.
fn inputs(config: &ServerConfig, capture: Option<&Capture>) -> Vec<PathBuf> {
    let capture = match (&config.capture, capture) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(capture)) => Some(capture.file.clone()),
        (None, None) => None,
    };
    capture
        .into_iter()
        .chain(config.contracts.iter().cloned())
        .collect()
}

/// The contracts of a server, lowered and normalised.
struct ContractTypes {
    lowered: Lowered,
    /// Every definition of the contracts, as one unit.
    unit: Unit,
}

/// The server's contracts, parsed, lowered and normalised, when it has any (or result types
/// written in TypeScript); result types are named `{Stem}Result` when they are not a declared
/// type.
fn contract_types(
    config: &ServerConfig,
    sources: Vec<Source>,
    plans: &[Plan<'_>],
    names: &mut Names,
) -> Result<Option<ContractTypes>, Error> {
    if sources.is_empty() && config.results.is_empty() {
        return Ok(None);
    }
    if !cfg!(feature = "contracts") {
        return Err(contracts_off(config).into());
    }
    let stems = plans
        .iter()
        .map(|p| (p.tool.name.as_str(), p.stem.as_str()))
        .collect();
    lower_contracts(config, sources, &stems, names).map(Some)
}

/// The error of a build without the `contracts` feature that was given TypeScript: located at
/// the contract (or the capture whose result types are TypeScript), worded for build.rs,
/// `include_tools!` and manifest users alike, and suggesting no version (the crate may be a
/// path or git dependency).
fn contracts_off(config: &ServerConfig) -> Diagnostic {
    let (file, what) = match config.contracts.first() {
        Some(path) => (path.clone(), "this contract".to_owned()),
        None => (
            config
                .capture
                .clone()
                .unwrap_or_else(|| config.module.clone().into()),
            format!(
                "the result types of module `{}`, written in TypeScript,",
                config.module
            ),
        ),
    };
    Diagnostic::new(file, format!("{what} needs {NO_CONTRACTS}")).help(
        "turn mcp-bindgen-codegen's `contracts` feature back on (it is on by default): drop \
         `default-features = false` from its dependency line, or add `features = [\"contracts\"]` \
         to it",
    )
}

/// Parses, lowers and normalises the server's contracts.
fn lower_contracts(
    config: &ServerConfig,
    sources: Vec<Source>,
    stems: &BTreeMap<&str, &str>,
    names: &mut Names,
) -> Result<ContractTypes, Error> {
    let contracts = Contracts::parse(sources)?;
    let settings = contracts::Settings {
        overrides: &config.overrides,
        results: config
            .results
            .iter()
            .map(|(tool, ty)| {
                let stem = stems.get(tool.as_str()).copied().unwrap_or_default();
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
            handwritten: normalised.handwritten,
            substitutions: normalised.substitutions,
            consts: std::mem::take(&mut lowered.consts),
            ..Unit::new("agent contracts", Origin::Contracts, normalised.defs)
        },
        lowered,
    })
}

/// The contracts' warnings, and one for each of their definitions that failed to type (by
/// name, with the reason; `units` holds the contracts' unit), which is then a
/// `serde_json::Value`.
fn contract_warnings(
    mut lowered: Lowered,
    units: &[Unit],
    failed: &BTreeMap<String, String>,
) -> Vec<Warning> {
    let mut warnings = std::mem::take(&mut lowered.warnings);
    let contract_defs = units
        .iter()
        .filter(|u| u.origin == Origin::Contracts)
        .flat_map(|u| &u.defs);
    for (name, reason) in failed {
        if contract_defs.clone().any(|(def, _)| def == name) {
            warnings.push(lowered.warning(
                name,
                format!("{reason}; `{name}` typed as serde_json::Value"),
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the parser, a contract is refused where the user named it, in words for every
    /// way in, and with no version to paste (a build.rs user once got `[servers.x]` and a
    /// `version = ".."` line).
    #[test]
    fn contracts_without_the_parser_are_refused_at_the_contract() {
        let mut config = ServerConfig::new("everything", "captures/everything.json");
        config.contracts.push("contracts/everything.d.ts".into());
        let text = contracts_off(&config).to_string();
        assert!(text.starts_with("contracts/everything.d.ts"), "{text}");
        assert!(text.contains("`contracts` feature"), "{text}");
        assert!(
            !text.contains("[servers.") && !text.contains("version"),
            "{text}"
        );

        let config = ServerConfig::new("everything", "captures/everything.json");
        let text = contracts_off(&config).to_string();
        assert!(text.starts_with("captures/everything.json"), "{text}");
        assert!(text.contains("module `everything`"), "{text}");
    }
}
