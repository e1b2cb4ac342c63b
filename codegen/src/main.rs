//! The `mcp-bindgen` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_bindgen_codegen::manifest::{self, FileStatus};
use mcp_bindgen_codegen::{Error, Generator, ServerConfig};

/// Typed Rust bindings for MCP tool servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-bindgen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Regenerates a checked-in bindings crate from its bindings.toml.
    Regenerate {
        /// The manifest (default: bindings.toml or generated/bindings.toml, found from the
        /// current directory upward).
        #[arg(long)]
        manifest: Option<PathBuf>,
        /// Write nothing; exit 1 listing every file that is not up to date.
        #[arg(long)]
        check: bool,
    },
    /// Captures a live server's tools/list: `capture --url URL [--bearer-env VAR] [--cacert
    /// FILE] -o FILE` (Streamable HTTP, http:// or https://) or `capture -o FILE -- COMMAND
    /// [ARGS...]` (stdio).
    Capture {
        #[command(flatten)]
        live: mcp_bindgen_codegen::live::LiveArgs,
        /// Where to write the capture.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// Generates one self-contained module (types and client) from a capture and agent
    /// contracts; with contracts alone, only their types.
    #[command(group(clap::ArgGroup::new("inputs").required(true).multiple(true).args(["tools", "contracts"])))]
    Generate {
        /// A captured tools/list (a result, a JSON-RPC response, or an array of pages).
        #[arg(long, value_name = "FILE")]
        tools: Option<PathBuf>,
        /// An agent-contract TypeScript declaration file; repeat for several.
        #[arg(long = "contracts", value_name = "FILE.d.ts")]
        contracts: Vec<PathBuf>,
        /// The result type of a tool, a TypeScript type over the contracts; repeat for several.
        #[arg(long = "result", value_name = "TOOL=TYPE", value_parser = parse_pair)]
        results: Vec<(String, String)>,
        /// Replaces a contract type or member by a type (`AgentPosition.x=integer`); repeat
        /// for several.
        #[arg(long = "override", value_name = "PATH=TYPE", value_parser = parse_pair)]
        overrides: Vec<(String, String)>,
        /// The module name (default: the file name of the capture, else of the first contract
        /// file, up to the first dot).
        #[arg(long, value_name = "NAME")]
        module: Option<String>,
        /// Where to write the module (`pub mod NAME { .. }`, ready for `include!`).
        #[arg(short = 'o', long = "output", value_name = "FILE.rs")]
        output: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Regenerate { manifest, check } => regenerate(manifest, check),
        Command::Capture { live, output } => capture(&live, &output),
        Command::Generate {
            tools,
            contracts,
            results,
            overrides,
            module,
            output,
        } => {
            let named = tools.clone().or_else(|| contracts.first().cloned());
            let module = module.unwrap_or_else(|| {
                let stem = named
                    .as_deref()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let stem = stem.split('.').next().unwrap_or_default();
                let name: String = stem
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_lowercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                if name.starts_with(|c: char| c.is_ascii_lowercase()) {
                    name
                } else {
                    format!("server_{name}")
                }
            });
            let mut config = match tools {
                Some(tools) => ServerConfig::new(module, tools),
                None => ServerConfig::contracts_only(module),
            };
            for path in contracts {
                config = config.with_contract(path);
            }
            for (tool, ty) in results {
                config = config.with_result(tool, ty);
            }
            for (path, ty) in overrides {
                config = config.with_override(path, ty);
            }
            let generated = Generator::new().generate(&config)?;
            for warning in &generated.warnings {
                eprintln!("warning: {warning}");
            }
            let text = generated.to_wrapped("mcp-bindgen generate");
            std::fs::write(&output, text).map_err(|source| Error::Io {
                path: output.clone(),
                source,
            })?;
            println!(
                "{}: {} tools, {} types -> {}",
                generated.name,
                generated.tools,
                generated.types,
                output.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `NAME=VALUE` (the value may contain `=`).
fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() && !value.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("expected NAME=TYPE, got `{text}`")),
    }
}

fn capture(
    live: &mcp_bindgen_codegen::live::LiveArgs,
    output: &std::path::Path,
) -> Result<ExitCode, Error> {
    // The client runs its I/O on its own thread: any executor does to wait for it.
    let options = match live.options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(ExitCode::from(2));
        }
    };
    let what = live.server();
    let result = pollster::block_on(live.capture(&options));
    let document = match result {
        Ok(document) => document,
        Err(e) => {
            eprintln!("error: capturing {what}: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let text = serde_json::to_string_pretty(&document).unwrap_or_default() + "\n";
    std::fs::write(output, text).map_err(|source| Error::Io {
        path: output.to_path_buf(),
        source,
    })?;
    let tools = document["tools"].as_array().map_or(0, Vec::len);
    println!(
        "{}: {tools} tools from {} {} (protocol {}) -> {}",
        what,
        document["serverInfo"]["name"].as_str().unwrap_or("?"),
        document["serverInfo"]["version"].as_str().unwrap_or(""),
        document["protocolVersion"].as_str().unwrap_or("?"),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn regenerate(path: Option<PathBuf>, check: bool) -> Result<ExitCode, Error> {
    let path = match path {
        Some(path) => path,
        None => {
            let cwd = std::env::current_dir().map_err(|source| Error::Io {
                path: PathBuf::from("."),
                source,
            })?;
            manifest::find(&cwd).ok_or_else(|| Error::Io {
                path: PathBuf::from("generated/bindings.toml"),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no bindings.toml or generated/bindings.toml here or in any parent directory; pass --manifest PATH",
                ),
            })?
        }
    };
    // Name files relative to where the user stands.
    let path = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(PathBuf::from))
        .unwrap_or(path);
    let manifest = manifest::load(&path)?;
    let report = manifest::regenerate(&manifest, check)?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    let base = manifest.dir.display().to_string();
    let base = if base.is_empty() {
        ".".to_owned()
    } else {
        base
    };
    println!("{} ({} servers)", path.display(), manifest.servers.len());
    let mut stale = 0;
    for file in &report.files {
        let status = match (file.status, check) {
            (FileStatus::Written, _) => "written",
            (FileStatus::Unchanged, _) => "up to date",
            (FileStatus::Stale, _) => {
                stale += 1;
                "STALE"
            }
            (FileStatus::Orphan, true) => {
                stale += 1;
                "STALE (no server produces it)"
            }
            (FileStatus::Orphan, false) => "removed (no server produces it)",
        };
        let what = match &file.module {
            Some(module) => format!("  {module}: {} tools, {} types", file.tools, file.types),
            None => String::new(),
        };
        println!("  {:<11} {}/{}{what}", status, base, file.path.display());
    }
    let tools: usize = report.files.iter().map(|f| f.tools).sum();
    let types: usize = report.files.iter().map(|f| f.types).sum();
    println!(
        "{} servers, {tools} tools, {types} types, {} warnings",
        manifest.servers.len(),
        report.warnings.len()
    );
    if check && stale > 0 {
        eprintln!(
            "error: {stale} generated file(s) are stale; run `mcp-bindgen regenerate --manifest {}`",
            path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
