//! The stage sequence: [`Generator`] reads a server's inputs and runs the stages on the
//! generator's stack ([`on_generator_stack`]): capture and contracts in, [`Module`] out.

use std::path::{Path, PathBuf};

use crate::capture;
use crate::client;
use crate::config::ServerConfig;
use crate::contracts;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::fault::{Fault, Stage};
use crate::model;
use crate::module::Module;

/// Stack for the recursive stages (normaliser, contracts, typify, syn): deeply nested schemas
/// must not overflow the caller's stack (test threads have 2 MiB). Only touched pages are
/// committed.
const GENERATOR_STACK: usize = 256 * 1024 * 1024;

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
            sources.push(contracts::Source {
                path: path.clone(),
                text: self.read(path)?,
            });
        }
        client::generate(config, capture, sources, &self.faults)
    }
}
