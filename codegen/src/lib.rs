//! The mcp-bindgen generator: a captured MCP `tools/list` in, a typed Rust client out; and
//! agent-contract TypeScript declarations (`.d.ts`) in, result types out (see
//! [`ServerConfig::contracts`] and [`ServerConfig::results`]).
//!
//! Three ways in, all on this crate:
//!
//! - **build.rs**: [`Builder`] writes modules into `OUT_DIR` for `include!`.
//! - **a checked-in crate**: `mcp-bindgen regenerate` reads a `bindings.toml`
//!   ([`manifest`]) and rewrites the crate's sources; `--check` fails on drift.
//! - **one file**: `mcp-bindgen generate --tools capture.json -o client.rs`.
//!
//! All three share [`ServerConfig`] (what to generate for one server) and [`Generator`]. To
//! generate large inputs faster, generate and render inside [`on_generator_stack`].
//!
//! ```no_run
//! use mcp_bindgen_codegen::{Generator, ServerConfig};
//!
//! let config = ServerConfig::new("saving_throw", "captures/saving_throw.tools.json")
//!     .with_rename("list_runs", "runs");
//! let module = Generator::new().generate(&config)?;
//! for warning in &module.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! std::fs::write("src/saving_throw.rs", module.to_module_file("mcp-bindgen regenerate"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod builder;
pub mod capture;
mod client;
mod contracts;
mod diagnostic;
pub mod diff;
mod fault;
#[cfg(feature = "cli")]
pub mod live;
pub mod manifest;
pub mod model;
mod naming;
mod normalise;
mod types;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use builder::Builder;
pub use diagnostic::{Diagnostic, LineCol, Warning};
#[doc(hidden)]
pub use fault::{Fault, Stage};

/// Everything that stops generation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// An input is wrong: the message says where and what to do.
    #[error("{0}")]
    Input(Box<Diagnostic>),
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error::Input(Box::new(d))
    }
}

impl Error {
    /// The located diagnostic, for input errors.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            Error::Input(d) => Some(d),
            Error::Io { .. } => None,
        }
    }
}

/// What to generate for one server: the module name, its capture and agent contracts, result
/// types, overrides and renames. Shared by [`Builder`], the `bindings.toml` manifest and the
/// CLI.
///
/// ```
/// use mcp_bindgen_codegen::ServerConfig;
///
/// let config = ServerConfig::new("scape", "captures/scape.tools.json")
///     .with_contract("contracts/agent_contracts.d.ts")
///     .with_result("scape_observe", "AgentObservation")
///     .with_override("AgentPosition.x", "integer")
///     .with_variant_name("AgentSceneObjectConveyorEmoji", "\u{27a1}\u{fe0f}", "Right");
/// assert_eq!(config.contracts.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The Rust module name (`saving_throw`).
    #[serde(skip)]
    pub module: String,
    /// The captured `tools/list` (see [`capture`]); without one, only the contracts' types are
    /// generated.
    #[serde(default)]
    pub capture: Option<PathBuf>,
    /// Agent-contract TypeScript declaration files (`.d.ts`): every interface, type alias and
    /// `declare const` becomes a Rust type or constant in `types`.
    #[serde(default)]
    pub contracts: Vec<PathBuf>,
    /// The server's name in docs ("Saving Throw"); default: the capture's `serverInfo`.
    #[serde(default)]
    pub name: Option<String>,
    /// Tool name → method name, for collisions and taste.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    /// Tool name → its result type, a TypeScript type over the contracts (`"AgentObservation"`,
    /// `"AgentPosition[]"`). Wins over the tool's `outputSchema`.
    #[serde(default)]
    pub results: BTreeMap<String, String>,
    /// Replaces a contract type (`"Type"`) or member (`"Type.field"`, `"Type.inline.field"`) by
    /// a TypeScript type; `integer`, `i8`..`i64`, `u8`..`u64`, `f32` and `f64` name Rust's
    /// numbers (`"AgentPosition.x" = "integer"`).
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
    /// Enum type → wire value → variant name, for variants whose generated name you want to
    /// choose (`"➡️" = "Right"`; for a union tagged by a boolean, `"true" = "Entered"`).
    #[serde(default)]
    pub variants: BTreeMap<String, BTreeMap<String, String>>,
}

impl ServerConfig {
    /// A config for module `module` generated from the capture at `capture`.
    pub fn new(module: impl Into<String>, capture: impl Into<PathBuf>) -> Self {
        ServerConfig {
            module: module.into(),
            capture: Some(capture.into()),
            ..Default::default()
        }
    }

    /// A config for module `module` with no capture: only the types of its contracts (add
    /// them with [`ServerConfig::with_contract`]).
    pub fn contracts_only(module: impl Into<String>) -> Self {
        ServerConfig {
            module: module.into(),
            ..Default::default()
        }
    }

    /// Sets the server's display name used in docs.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Gives tool `tool` the method name `method` (and `{method}_raw`).
    pub fn with_rename(mut self, tool: impl Into<String>, method: impl Into<String>) -> Self {
        self.rename.insert(tool.into(), method.into());
        self
    }

    /// Adds an agent-contract declaration file (`.d.ts`).
    pub fn with_contract(mut self, path: impl Into<PathBuf>) -> Self {
        self.contracts.push(path.into());
        self
    }

    /// Types the result of `tool` as `ty`, a TypeScript type over the contracts.
    pub fn with_result(mut self, tool: impl Into<String>, ty: impl Into<String>) -> Self {
        self.results.insert(tool.into(), ty.into());
        self
    }

    /// Replaces the type of contract type or member `path` (`"AgentPosition.x"`) by `ty`.
    pub fn with_override(mut self, path: impl Into<String>, ty: impl Into<String>) -> Self {
        self.overrides.insert(path.into(), ty.into());
        self
    }

    /// Names the variant of enum `ty` for wire value `value`.
    pub fn with_variant_name(
        mut self,
        ty: impl Into<String>,
        value: impl Into<String>,
        variant: impl Into<String>,
    ) -> Self {
        self.variants
            .entry(ty.into())
            .or_default()
            .insert(value.into(), variant.into());
        self
    }

    /// The input files, as named: the capture, then the contracts.
    pub fn inputs(&self) -> Vec<PathBuf> {
        self.capture
            .iter()
            .chain(&self.contracts)
            .cloned()
            .collect()
    }
}

/// One generated module.
#[derive(Clone)]
pub struct Module {
    /// The module name.
    pub name: String,
    /// Inputs, as named in the config (for the `@generated` header and rebuild tracking).
    pub inputs: Vec<PathBuf>,
    /// The module's items (types, schemas, client), without the `mod` wrapper.
    pub file: syn::File,
    /// Problems worked around; each type concerned is looser than its schema.
    pub warnings: Vec<Warning>,
    /// Number of tools.
    pub tools: usize,
    /// Number of named types generated.
    pub types: usize,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("inputs", &self.inputs)
            .field("tools", &self.tools)
            .field("types", &self.types)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// The module as a file of its own (`src/{name}.rs`, used with `mod name;`), with the
    /// `@generated` header naming its inputs and `command`, the command that refreshes it.
    pub fn to_module_file(&self, command: &str) -> String {
        format!(
            "{}{}",
            self.header(command),
            prettyplease::unparse(&self.file)
        )
    }

    /// The module wrapped as `pub mod {name} { .. }`, for `include!` (build.rs, `generate`).
    pub fn to_wrapped(&self, command: &str) -> String {
        // Built as syntax, not as tokens to parse again: the module's items are already syn's.
        let wrapped = syn::ItemMod {
            // A file's attributes are inner ones (`#![..]`): they go inside the braces.
            attrs: self.file.attrs.clone(),
            vis: syn::Visibility::Public(Default::default()),
            unsafety: None,
            mod_token: Default::default(),
            ident: naming::ident(&self.name),
            content: Some((Default::default(), self.file.items.clone())),
            semi: None,
        };
        let file = syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![syn::Item::Mod(wrapped)],
        };
        format!("{}{}", self.header(command), prettyplease::unparse(&file))
    }

    fn header(&self, command: &str) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        format!(
            "// @generated by mcp-bindgen from {}.\n// Do not edit by hand: change the inputs and run `{command}`.\n\n",
            inputs.join(", ")
        )
    }
}

/// Stack for the recursive stages (normaliser, contracts, typify, syn): deeply nested schemas
/// must not overflow the caller's stack (test threads have 2 MiB). Only touched pages are
/// committed.
const GENERATOR_STACK: usize = 256 * 1024 * 1024;

/// The `Send` fields of a [`Module`], to cross from the generator thread.
struct Parts {
    name: String,
    inputs: Vec<PathBuf>,
    warnings: Vec<Warning>,
    tools: usize,
    types: usize,
}

thread_local! {
    /// Whether this thread was started by [`with_big_stack`].
    static ON_GENERATOR_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with [`GENERATOR_STACK`]: on a scoped thread, or right here when this thread is
/// already one of those. A panic in `f` is resumed here.
pub(crate) fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if ON_GENERATOR_STACK.get() {
        return f();
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("mcp-bindgen-generator".into())
            .stack_size(GENERATOR_STACK)
            .spawn_scoped(scope, || {
                ON_GENERATOR_STACK.set(true);
                f()
            });
        match handle {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // The closure went to the failed spawn, so it cannot run here instead.
            Err(_) => no_generator_thread(),
        }
    })
}

/// Runs `f` on a thread with the generator's stack (256 MiB reserved, only touched pages
/// committed) and returns what it returns; a panic in `f` is resumed here.
///
/// [`Generator::generate`] runs its deeply recursive stages on such a thread anyway. Called
/// outside one, it has to hand the module back across threads (syn's syntax trees are not
/// `Send`), which costs rendering the module's code and parsing it again: about a quarter of
/// the time for a large input. Called inside `f`, it runs directly. Do there everything that
/// needs the [`Module`] (rendering it, writing it) and return what is `Send`:
///
/// ```no_run
/// use mcp_bindgen_codegen::{Generator, ServerConfig, on_generator_stack};
///
/// let config = ServerConfig::new("big", "captures/big.tools.json");
/// let code = on_generator_stack(|| {
///     let module = Generator::new().generate(&config)?;
///     Ok::<_, mcp_bindgen_codegen::Error>(module.to_module_file("mcp-bindgen regenerate"))
/// })?;
/// std::fs::write("src/big.rs", code)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn on_generator_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    with_big_stack(f)
}

#[cold]
fn no_generator_thread<T>() -> T {
    panic!("mcp-bindgen could not start its generator thread (out of memory or threads)")
}

/// The generator. Stateless between calls; cheap to create.
#[derive(Debug, Clone, Default)]
pub struct Generator {
    base: Option<PathBuf>,
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
    /// alone.
    #[doc(hidden)]
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

    fn read(&self, path: &Path) -> Result<String, Error> {
        std::fs::read_to_string(self.resolve(path)).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
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
        if ON_GENERATOR_STACK.get() {
            return self.generate_on_this_stack(config, capture);
        }
        // `syn::File` is not `Send`: the generator thread hands back the rendered code, which
        // is parsed again here ([`on_generator_stack`] avoids this).
        let (parts, code) = with_big_stack(|| {
            self.generate_on_this_stack(config, capture).map(|m| {
                let code = prettyplease::unparse(&m.file);
                let parts = Parts {
                    name: m.name,
                    inputs: m.inputs,
                    warnings: m.warnings,
                    tools: m.tools,
                    types: m.types,
                };
                (parts, code)
            })
        })?;
        let file = syn::parse_file(&code).map_err(|e| {
            Diagnostic::new(
                &config.module,
                format!("internal error: generated code does not parse: {e}"),
            )
            .help("please report this with the inputs attached")
        })?;
        Ok(Module {
            name: parts.name,
            inputs: parts.inputs,
            file,
            warnings: parts.warnings,
            tools: parts.tools,
            types: parts.types,
        })
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
            sources.push(contracts::Source {
                path: path.clone(),
                text: self.read(path)?,
            });
        }
        client::generate(config, capture, sources, &self.faults)
    }
}
