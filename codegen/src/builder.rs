//! build.rs support, in the style of prost-build / tonic-build.

use std::path::PathBuf;

use crate::config::ServerConfig;
use crate::error::Error;
use crate::generate::Generator;

/// Generates client modules from build.rs into `OUT_DIR`.
///
/// ```no_run
/// // build.rs: `fn main() { .. }` holding this
/// use mcp_bindgen_codegen::{Builder, ServerConfig};
///
/// if let Err(e) = Builder::new()
///     .server(ServerConfig::new("saving_throw", "saving_throw.tools.json"))
///     .generate()
/// {
///     // A located message (file:line:column, the line, what to do), not a backtrace.
///     eprintln!("{e}");
///     std::process::exit(1);
/// }
/// ```
///
/// ```ignore
/// // src/lib.rs: defines `pub mod saving_throw { .. }`
/// include!(concat!(env!("OUT_DIR"), "/saving_throw.rs"));
/// ```
///
/// Relative capture and contract paths are read from `CARGO_MANIFEST_DIR`. Every input (the
/// capture and each `.d.ts`) is announced with `cargo:rerun-if-changed`, so an untouched build
/// runs no generator work, and warnings are shown with `cargo:warning`.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    servers: Vec<ServerConfig>,
    out_dir: Option<PathBuf>,
    emit_cargo: Option<bool>,
}

impl Builder {
    /// A builder with no servers.
    pub fn new() -> Self {
        Builder::default()
    }

    /// Adds a server: one module `{module}.rs` in the output directory.
    pub fn server(mut self, config: ServerConfig) -> Self {
        self.servers.push(config);
        self
    }

    /// Shorthand for [`Builder::server`] with a module name and a capture path.
    pub fn capture(self, module: impl Into<String>, capture: impl Into<PathBuf>) -> Self {
        self.server(ServerConfig::new(module, capture))
    }

    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Whether to print `cargo:` directives (default: when running under cargo, i.e. when
    /// `OUT_DIR` is set).
    pub fn emit_cargo_directives(mut self, emit: bool) -> Self {
        self.emit_cargo = Some(emit);
        self
    }

    /// Generates every server; returns the files written.
    pub fn generate(self) -> Result<Vec<PathBuf>, Error> {
        // Generating and rendering on the generator's thread saves handing each module across.
        crate::generate::with_big_stack(|| self.generate_on_this_stack())
    }

    fn generate_on_this_stack(self) -> Result<Vec<PathBuf>, Error> {
        let env_out = std::env::var_os("OUT_DIR").map(PathBuf::from);
        let emit = self.emit_cargo.unwrap_or(env_out.is_some());
        let out_dir = self.out_dir.or(env_out).ok_or_else(|| Error::Io {
            path: PathBuf::from("OUT_DIR"),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "OUT_DIR is not set: call Builder::generate from build.rs, or set Builder::out_dir",
            ),
        })?;
        let mut generator = Generator::new();
        if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
            generator = generator.with_base(dir);
        }
        let mut written = Vec::new();
        for config in &self.servers {
            if emit {
                for input in config.inputs() {
                    println!("cargo:rerun-if-changed={}", input.display());
                }
            }
            let module = generator.generate(config)?;
            if emit {
                for warning in &module.warnings {
                    println!("cargo:warning={}", warning.to_string().replace('\n', " "));
                }
            }
            let path = out_dir.join(format!("{}.rs", config.module));
            let text = module.to_wrapped("cargo build (build.rs)");
            // Leave an identical file alone so its timestamp does not trigger a rebuild.
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                std::fs::write(&path, text).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
            }
            written.push(path);
        }
        Ok(written)
    }
}
