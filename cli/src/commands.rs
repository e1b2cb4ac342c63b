//! The `mcp-bindgen` command line, which the `mcp-bindgen-cli` crate installs
//! (`cargo install mcp-bindgen-cli`): [`main`] parses the process's arguments and runs the
//! command.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_bindgen_codegen::manifest::{self, FileStatus};
use mcp_bindgen_codegen::{Error, Generator, ServerConfig, capture, diff, on_generator_stack};

use crate::console;
use crate::live::LiveArgs;

/// Typed Rust bindings for MCP tool servers.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-bindgen",
    version,
    about = "Typed Rust clients for MCP servers: capture a server's tools (and prompts and \
             resources), generate a typed client from the capture, and tell what a change of \
             the server breaks.",
    after_help = "Examples:\n  \
        mcp-bindgen capture --url https://mcp.example/mcp --bearer-env TOKEN -o server.tools.json\n  \
        mcp-bindgen generate --tools server.tools.json -o src/server.rs\n  \
        mcp-bindgen diff server.tools.json --url https://mcp.example/mcp --bearer-env TOKEN\n  \
        mcp-bindgen regenerate --check"
)]
struct Cli {
    /// Say more on stderr: `-v` what the client does (connecting, each request, fallbacks,
    /// retries), `-vv` also the requests' arguments and the responses.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Say less: errors only (no warnings).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

/// The runtime's spans and events on stderr, at the level `-v` / `-q` asks for: warnings by
/// default (a drift report, a refused connection), DEBUG with `-v`, TRACE with `-vv`, errors
/// only with `-q`. Other crates' events stay at WARN.
fn init_logging(verbose: u8, quiet: bool) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let level = match (quiet, verbose) {
        (true, _) => LevelFilter::ERROR,
        (false, 0) => LevelFilter::WARN,
        (false, 1) => LevelFilter::DEBUG,
        (false, _) => LevelFilter::TRACE,
    };
    let filter = Targets::new()
        .with_target("mcp_bindgen", level)
        .with_target("mcp_bindgen_codegen", level)
        .with_default(if quiet {
            LevelFilter::ERROR
        } else {
            LevelFilter::WARN
        });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(|| console::Stderr)
        .with_ansi(false)
        .without_time();
    // Another subscriber already installed (a test harness) is left as it is.
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init();
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Regenerates a checked-in bindings crate from its bindings.toml.
    #[command(after_help = "Examples:\n  \
        mcp-bindgen regenerate                 # every server of ./bindings.toml\n  \
        mcp-bindgen regenerate --check         # fail (exit 1) when a module is not current")]
    Regenerate {
        /// The manifest (default: bindings.toml or generated/bindings.toml, found from the
        /// current directory upward).
        #[arg(long)]
        manifest: Option<PathBuf>,
        /// Write nothing; exit 1 listing every file that is not up to date.
        #[arg(long)]
        check: bool,
    },
    /// Captures a live server's tools/list: `capture --url URL [--bearer-env VAR] -o FILE`
    /// (Streamable HTTP) or `capture -o FILE -- COMMAND [ARGS...]` (stdio).
    #[command(group(clap::ArgGroup::new("capture_server").required(true).args(["url", "command"])))]
    #[command(after_help = "Examples:\n  \
        mcp-bindgen capture --url https://mcp.example/mcp --bearer-env TOKEN -o server.tools.json\n  \
        mcp-bindgen capture --url https://mcp.example/mcp --oauth -o server.tools.json\n  \
        mcp-bindgen capture -o fs.tools.json -- npx @modelcontextprotocol/server-filesystem /tmp")]
    Capture {
        #[command(flatten)]
        server: LiveArgs,
        /// Where to write the capture (`-`: stdout).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// What changed between two tool lists, and what it breaks: `diff OLD NEW` (two capture
    /// files) or `diff OLD --url URL` / `diff OLD -- COMMAND` (the live server as NEW). Exit 0
    /// when nothing breaks, 1 when something does, 2 on bad input.
    #[command(after_help = "Examples:\n  \
        mcp-bindgen diff old.tools.json new.tools.json\n  \
        mcp-bindgen diff old.tools.json --url https://mcp.example/mcp --format markdown\n  \
        mcp-bindgen diff --against-module src/server.rs --url https://mcp.example/mcp\n  \
        mcp-bindgen diff --cassette tests/session.jsonl --verify --url https://mcp.example/mcp")]
    Diff {
        /// The old capture (with `--against-module` or `--cassette`: the new one).
        #[arg(value_name = "OLD")]
        old: Option<PathBuf>,
        /// The new capture (omit it to capture a live server: `--url URL` or `-- COMMAND`).
        #[arg(value_name = "NEW")]
        new: Option<PathBuf>,
        /// The old side is a generated module (`src/server.rs`): the tools, prompts,
        /// resources and templates it records in its `PROVENANCE`, those its client was
        /// generated from.
        #[arg(long, value_name = "FILE.rs")]
        against_module: Option<PathBuf>,
        /// The old side is a cassette (`mcp_bindgen::cassette`): would the calls it recorded
        /// still be answered so by the new side? Breaking: the tool is gone, or the recorded
        /// arguments no longer fit its input schema; warning: the recorded result no longer
        /// fits its output schema.
        #[arg(long, value_name = "FILE.jsonl", conflicts_with = "against_module")]
        cassette: Option<PathBuf>,
        /// With `--cassette` and a live server: play the cassette's calls of read-only tools
        /// (by their annotations) again and report what the server answers differently (exit
        /// 1 when something does).
        #[arg(long, requires = "cassette")]
        verify: bool,
        /// With `--verify`: play every recorded call, read-only or not (only against a server
        /// meant for it: a call that changes the server changes it again).
        #[arg(long, requires = "verify")]
        all: bool,
        #[command(flatten)]
        server: LiveArgs,
        /// `text` (grouped by tool, breaking first), `markdown` (a pull-request comment) or
        /// `json` (`{"changes": [{"rule", "severity", "kind", "tool", "pointer", "message"}],
        /// "summary": {..}}`).
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: diff::Format,
        /// Fail (exit 1) on changes of at least this severity: `breaking` or `warning`.
        #[arg(long, value_name = "SEVERITY", default_value = "breaking", value_parser = parse_fail_on)]
        fail_on: diff::Severity,
        /// `wire` (what a client sends and receives) or `source` (also what changes in the
        /// generated Rust).
        #[arg(long, value_name = "LEVEL", default_value = "wire", value_parser = parse_level)]
        level: diff::Level,
    },
    /// Generates one self-contained module (types and client) from a capture and agent
    /// contracts; with contracts alone, only their types.
    #[command(group(clap::ArgGroup::new("inputs").required(true).multiple(true).args(["tools", "contracts"])))]
    #[command(after_help = "Examples:\n  \
        mcp-bindgen generate --tools server.tools.json -o src/server.rs\n  \
        mcp-bindgen generate --tools game.tools.json --contracts agent.d.ts \\\n      \
        --result get_state=GameState -o src/game.rs")]
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
        /// Where to write the module: a file of its own, for `mod NAME;` (`-`: stdout).
        #[arg(short = 'o', long = "output", value_name = "FILE.rs")]
        output: PathBuf,
        /// Wrap the module in `pub mod NAME { .. }`, for `include!` (which does not take a
        /// file of its own: its `//!` docs are inner attributes).
        #[arg(long)]
        wrap: bool,
    },
}

/// Runs the command line: parses the process's arguments (`--help` lists the commands), runs
/// the command, and returns its exit code (0 done, 1 a check failed or something breaks, 2 an
/// error, printed on stderr).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    console::set_quiet(cli.quiet);
    init_logging(cli.verbose, cli.quiet);
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
        Command::Capture { server, output } => capture(&server, &output),
        Command::Diff {
            cassette: Some(cassette),
            verify: true,
            all,
            server,
            format,
            ..
        } => verify_cassette(&cassette, &server, format, all),
        Command::Diff {
            old,
            new,
            against_module,
            cassette: Some(cassette),
            server,
            format,
            fail_on,
            ..
        } if against_module.is_none() => {
            let files: Vec<PathBuf> = old.into_iter().chain(new).collect();
            diff_cassette(&cassette, &files, &server, format, fail_on)
        }
        Command::Diff {
            old,
            new,
            against_module,
            server,
            format,
            fail_on,
            level,
            ..
        } => diff(
            &old.into_iter().chain(new).collect::<Vec<_>>(),
            against_module.as_deref(),
            &server,
            format,
            fail_on,
            level,
        ),
        Command::Generate {
            tools,
            contracts,
            results,
            overrides,
            module,
            output,
            wrap,
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
            // Render on the generator's thread: the module is not handed across threads.
            on_generator_stack(|| {
                let step = console::progress(format!("generating {}", config.module));
                let generated = Generator::new().generate(&config);
                drop(step);
                let generated = generated?;
                for warning in &generated.warnings {
                    console::warn(warning);
                }
                let text = if wrap {
                    generated.to_wrapped("mcp-bindgen generate")
                } else {
                    generated.to_module_file("mcp-bindgen generate")
                };
                console::write_output(&output, &text)?;
                // The summary goes to stderr when the module itself went to stdout.
                let summary = format!(
                    "{}: {}, {} -> {}",
                    generated.name,
                    console::count(generated.tools, "tool"),
                    console::count(generated.types, "type"),
                    if output == std::path::Path::new("-") {
                        "stdout".to_owned()
                    } else {
                        output.display().to_string()
                    }
                );
                if output == std::path::Path::new("-") {
                    eprintln!("{summary}");
                } else {
                    println!("{summary}");
                }
                Ok(ExitCode::SUCCESS)
            })
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

/// The live server's options from the flags, or exit 2 with the error printed.
fn live_options(server: &LiveArgs) -> Result<crate::live::LiveOptions, ExitCode> {
    server.options().map_err(|message| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
}

/// Captures the live server `server` names: `(what, document)`, or the exit code after the
/// error is printed.
fn capture_live(server: &LiveArgs) -> Result<(String, serde_json::Value), ExitCode> {
    if !server.given() {
        eprintln!("error: give --url URL, or the server command after --");
        return Err(ExitCode::from(2));
    }
    let options = live_options(server)?;
    let what = server.server();
    let step = console::progress(format!("connecting to {what}"));
    // The client runs its I/O on a runtime of its own: any executor can wait for it.
    let captured = pollster::block_on(server.capture(&options));
    drop(step);
    match captured {
        Ok(document) => Ok((what, document)),
        Err(e) => {
            eprintln!("error: capturing {what}: {e}");
            if let Some(help) = server.auth_help(&e) {
                eprintln!("  = help: {help}");
            }
            Err(ExitCode::FAILURE)
        }
    }
}

fn capture(server: &LiveArgs, output: &std::path::Path) -> Result<ExitCode, Error> {
    let (what, document) = match capture_live(server) {
        Ok(captured) => captured,
        Err(code) => return Ok(code),
    };
    let text = serde_json::to_string_pretty(&document).unwrap_or_default() + "\n";
    console::write_output(output, &text)?;
    let to_stdout = output == std::path::Path::new("-");
    // What was listed: the tools, and the prompts, resources and templates there are.
    let listed: Vec<String> = [
        ("tools", "tool"),
        ("prompts", "prompt"),
        ("resources", "resource"),
        ("resourceTemplates", "resource template"),
    ]
    .into_iter()
    .filter_map(|(key, noun)| {
        let items = document
            .get(key)
            .and_then(|v| v.as_array())
            .map_or(0, Vec::len);
        (key == "tools" || items > 0).then(|| console::count(items, noun))
    })
    .collect();
    let summary = format!(
        "{}: {} from {} {} (protocol {}) -> {}",
        what,
        listed.join(", "),
        document["serverInfo"]["name"].as_str().unwrap_or("?"),
        document["serverInfo"]["version"].as_str().unwrap_or(""),
        document["protocolVersion"].as_str().unwrap_or("?"),
        if to_stdout {
            "stdout".to_owned()
        } else {
            output.display().to_string()
        }
    );
    if to_stdout {
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_fail_on(text: &str) -> Result<diff::Severity, String> {
    match text {
        "breaking" => Ok(diff::Severity::Breaking),
        "warning" => Ok(diff::Severity::Warning),
        "info" => Ok(diff::Severity::Info),
        _ => Err(format!("expected breaking, warning or info, got `{text}`")),
    }
}

fn parse_level(text: &str) -> Result<diff::Level, String> {
    match text {
        "wire" => Ok(diff::Level::Wire),
        "source" => Ok(diff::Level::Source),
        _ => Err(format!("expected wire or source, got `{text}`")),
    }
}

fn diff(
    files: &[PathBuf],
    module: Option<&std::path::Path>,
    server: &LiveArgs,
    format: diff::Format,
    fail_on: diff::Severity,
    level: diff::Level,
) -> Result<ExitCode, Error> {
    // With --against-module the old side is what the module records.
    let mut files: Vec<Option<&PathBuf>> = files.iter().map(Some).collect();
    if module.is_some() {
        if files.len() > 1 {
            eprintln!(
                "error: with --against-module, diff takes one new capture, --url URL or -- COMMAND"
            );
            return Ok(ExitCode::from(2));
        }
        files.insert(0, None);
    }
    let old_side = |file: Option<&PathBuf>| match (file, module) {
        (Some(file), _) => capture::read(file),
        (None, Some(module)) => diff::read_module(module),
        (None, None) => unreachable!("a file or a module"),
    };
    let (old, new) = match (files.as_slice(), server.given()) {
        ([old, Some(new)], false) => (old_side(*old)?, capture::read(new)?),
        ([old], true) => {
            let old = old_side(*old)?;
            let (what, document) = match capture_live(server) {
                Ok(captured) => captured,
                Err(code) => return Ok(code),
            };
            let text = serde_json::to_string_pretty(&document).unwrap_or_default();
            (old, capture::parse(std::path::Path::new(&what), text)?)
        }
        ([_, _], true) => {
            eprintln!(
                "error: diff takes two capture files, or one and a live server (--url URL or -- COMMAND), not both"
            );
            return Ok(ExitCode::from(2));
        }
        _ => {
            eprintln!(
                "error: diff needs the new side: a second capture file, --url URL or -- COMMAND"
            );
            return Ok(ExitCode::from(2));
        }
    };
    let report = diff::diff(&old, &new, &diff::Options { level });
    let name = |c: &mcp_bindgen_codegen::model::Capture| c.file.display().to_string();
    let rendered = format.render(&report, &name(&old), &name(&new));
    // A reader that stops early (`diff … | head`) is not an error: the verdict stands.
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout().lock(), rendered.as_bytes())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: writing the report: {e}");
        return Ok(ExitCode::from(2));
    }
    Ok(if report.breaks(fail_on) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `diff --cassette FILE --verify (--url URL | -- COMMAND) [--all]`: the cassette's calls played
/// again against the live server, and what it answers differently. Exit 1 when something does.
fn verify_cassette(
    cassette: &std::path::Path,
    server: &LiveArgs,
    format: diff::Format,
    all: bool,
) -> Result<ExitCode, Error> {
    if !server.given() {
        eprintln!(
            "error: --verify plays the cassette against a server: give --url URL or -- COMMAND"
        );
        return Ok(ExitCode::from(2));
    }
    let calls = match mcp_bindgen::cassette::read(cassette) {
        Ok(calls) => calls,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let options = match live_options(server) {
        Ok(options) => options,
        Err(code) => return Ok(code),
    };
    let what = server.server();
    let step = console::progress(format!(
        "playing {} again against {what}",
        cassette.display()
    ));
    let verified = pollster::block_on(crate::live::verify(server, &options, &calls, all));
    drop(step);
    let verified = match verified {
        Ok(verified) => verified,
        Err(e) => {
            eprintln!("error: verifying against {what}: {e}");
            if let Some(help) = server.auth_help(&e) {
                eprintln!("  = help: {help}");
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    let rendered = render_verified(format, &verified, &cassette.display().to_string(), &what);
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout().lock(), rendered.as_bytes())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: writing the report: {e}");
        return Ok(ExitCode::from(2));
    }
    let differs = verified
        .iter()
        .any(|v| matches!(v.verdict, mcp_bindgen::cassette::Verdict::Differs { .. }));
    Ok(if differs {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The verify report: a line per call (`text`, `markdown`) or `{"cassette", "against",
/// "verified": [{"call", "tool", "verdict", ..}]}` (`json`).
fn render_verified(
    format: diff::Format,
    verified: &[mcp_bindgen::cassette::Verified],
    cassette: &str,
    against: &str,
) -> String {
    use mcp_bindgen::cassette::Verdict;
    if format == diff::Format::Json {
        let items: Vec<serde_json::Value> = verified
            .iter()
            .map(|v| {
                let mut item = serde_json::json!({"call": v.call, "tool": v.tool});
                match &v.verdict {
                    Verdict::Same => item["verdict"] = "same".into(),
                    Verdict::Differs {
                        pointer,
                        recorded,
                        live,
                    } => {
                        item["verdict"] = "differs".into();
                        item["pointer"] = pointer.clone().into();
                        item["recorded"] = recorded.clone();
                        item["live"] = live.clone();
                    }
                    Verdict::Skipped(why) => {
                        item["verdict"] = "skipped".into();
                        item["why"] = why.clone().into();
                    }
                    _ => item["verdict"] = "unknown".into(),
                }
                item
            })
            .collect();
        let report =
            serde_json::json!({"cassette": cassette, "against": against, "verified": items});
        return format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    }
    let markdown = format == diff::Format::Markdown;
    let mut lines = Vec::new();
    let (mut differs, mut skipped) = (0, 0);
    for v in verified {
        let (label, line) = match &v.verdict {
            Verdict::Same => ("same", "answers as recorded".to_owned()),
            Verdict::Differs {
                pointer,
                recorded,
                live,
            } => {
                differs += 1;
                let at = if pointer.is_empty() { "/" } else { pointer };
                (
                    "differs",
                    format!("at {at}: recorded {recorded}, now {live}"),
                )
            }
            Verdict::Skipped(why) => {
                skipped += 1;
                ("skipped", format!("not played: {why}"))
            }
            _ => ("?", "not judged".to_owned()),
        };
        lines.push(if markdown {
            format!("- **{label}** call {} `{}`: {line}", v.call, v.tool)
        } else {
            format!("  {label:<9} call {} {}: {line}", v.call, v.tool)
        });
    }
    let played = verified.len() - skipped;
    let mut out = format!(
        "{cassette} against {against}: {played} of {} recorded calls played, {differs} answered \
         differently\n",
        verified.len()
    );
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `diff --cassette FILE NEW`: the recorded calls a server listing NEW's tools would no longer
/// answer as recorded.
fn diff_cassette(
    cassette: &std::path::Path,
    files: &[PathBuf],
    server: &LiveArgs,
    format: diff::Format,
    fail_on: diff::Severity,
) -> Result<ExitCode, Error> {
    let new = match (files, server.given()) {
        ([new], false) => capture::read(new)?,
        ([], true) => {
            let (what, document) = match capture_live(server) {
                Ok(captured) => captured,
                Err(code) => return Ok(code),
            };
            let text = serde_json::to_string_pretty(&document).unwrap_or_default();
            capture::parse(std::path::Path::new(&what), text)?
        }
        _ => {
            eprintln!(
                "error: with --cassette, diff takes one new capture, --url URL or -- COMMAND"
            );
            return Ok(ExitCode::from(2));
        }
    };
    let calls = match mcp_bindgen::cassette::read(cassette) {
        Ok(calls) => calls,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let tools: Vec<serde_json::Value> = new.tools.iter().map(|t| t.raw.clone()).collect();
    let stale = mcp_bindgen::cassette::stale(&calls, &tools);
    let (old, new_name) = (
        cassette.display().to_string(),
        new.file.display().to_string(),
    );
    let rendered = render_stale(format, &stale, calls.len(), &old, &new_name);
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout().lock(), rendered.as_bytes())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: writing the report: {e}");
        return Ok(ExitCode::from(2));
    }
    Ok(if stale.iter().any(|s| s.severity >= fail_on) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn render_stale(
    format: diff::Format,
    stale: &[mcp_bindgen::cassette::Stale],
    calls: usize,
    old: &str,
    new: &str,
) -> String {
    let count = |severity| stale.iter().filter(|s| s.severity == severity).count();
    let (breaking, warning) = (
        count(diff::Severity::Breaking),
        count(diff::Severity::Warning),
    );
    let at = |pointer: &str| {
        if pointer.is_empty() {
            String::new()
        } else {
            format!(" at {pointer}")
        }
    };
    match format {
        diff::Format::Json => {
            let findings: Vec<serde_json::Value> = stale
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "call": s.call, "tool": s.tool, "severity": s.severity.as_str(),
                        "pointer": s.pointer, "message": s.message,
                    })
                })
                .collect();
            let report = serde_json::json!({
                "cassette": old, "against": new, "calls": calls, "stale": findings,
                "summary": { "breaking": breaking, "warning": warning },
            });
            serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
        }
        diff::Format::Markdown => {
            let mut out = format!(
                "### Recorded calls of `{old}` against `{new}`\n\n{calls} calls: {breaking} would break, {warning} would be answered differently.\n"
            );
            if !stale.is_empty() {
                out.push_str("\n| call | tool | severity | where | what |\n| --- | --- | --- | --- | --- |\n");
                for s in stale {
                    out.push_str(&format!(
                        "| {} | `{}` | {} | `{}` | {} |\n",
                        s.call,
                        s.tool,
                        s.severity.as_str(),
                        s.pointer,
                        s.message.replace('|', "\\|")
                    ));
                }
            }
            out
        }
        _ => {
            let mut out = format!(
                "{old} against {new}: {calls} recorded calls, {breaking} would break, {warning} would be answered differently\n"
            );
            for s in stale {
                out.push_str(&format!(
                    "  {:9} call {} {}{}: {}\n",
                    s.severity.as_str(),
                    s.call,
                    s.tool,
                    at(&s.pointer),
                    s.message
                ));
            }
            out
        }
    }
}

fn regenerate(path: Option<PathBuf>, check: bool) -> Result<ExitCode, Error> {
    let path = match path {
        Some(path) => path,
        None => {
            let cwd = std::env::current_dir().map_err(|source| Error::Io {
                path: PathBuf::from("."),
                source,
            })?;
            // Named by the directory searched from, which exists (the file does not).
            manifest::find(&cwd).ok_or_else(|| Error::Io {
                path: cwd.clone(),
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
    let step = console::progress(format!(
        "generating {} servers from {}",
        manifest.servers.len(),
        path.display()
    ));
    let report = manifest::regenerate(&manifest, check);
    drop(step);
    let report = report?;
    for warning in &report.warnings {
        console::warn(warning);
    }
    let base = manifest.dir.display().to_string();
    let base = if base.is_empty() {
        ".".to_owned()
    } else {
        base
    };
    if check {
        for file in report.stale() {
            let Some(module) = &file.module else { continue };
            let Some(capture) = manifest
                .servers
                .iter()
                .find(|s| &s.module == module)
                .and_then(|s| s.capture.as_ref())
            else {
                continue;
            };
            print_capture_changes(&manifest.dir, &file.path, capture);
        }
    }
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
            Some(module) => format!(
                "  {module}: {}, {}",
                console::count(file.tools, "tool"),
                console::count(file.types, "type")
            ),
            None => String::new(),
        };
        println!("  {:<11} {}/{}{what}", status, base, file.path.display());
    }
    let tools: usize = report.files.iter().map(|f| f.tools).sum();
    let types: usize = report.files.iter().map(|f| f.types).sum();
    println!(
        "{}, {}, {}, {}",
        console::count(manifest.servers.len(), "server"),
        console::count(tools, "tool"),
        console::count(types, "type"),
        console::count(report.warnings.len(), "warning")
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

/// For a stale generated file: what changed in its capture since the file was generated. The
/// old capture is the one in the git commit that last wrote the generated file (`git log -1 --
/// FILE`, then `git show COMMIT:CAPTURE`); without git, or for a file never committed, says so.
fn print_capture_changes(
    dir: &std::path::Path,
    generated: &std::path::Path,
    capture: &std::path::Path,
) {
    let shown = dir.join(capture);
    let git = |args: &[&str]| -> Option<String> {
        let dir = if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        };
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let generated_arg = generated.to_string_lossy();
    let commit = git(&["log", "-1", "--format=%h", "--", &generated_arg])
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty());
    let Some(commit) = commit else {
        println!(
            "{}: no previous capture to compare (the generated {} is not committed in git)",
            shown.display(),
            generated.display()
        );
        return;
    };
    let spec = format!(
        "{commit}:./{}",
        capture.to_string_lossy().replace('\\', "/")
    );
    let Some(text) = git(&["show", &spec]) else {
        println!(
            "{}: not in commit {commit}, which last wrote {}: nothing to compare",
            shown.display(),
            generated.display()
        );
        return;
    };
    let old_name = format!("{}@{commit}", shown.display());
    let old = match capture::parse(std::path::Path::new(&old_name), text) {
        Ok(old) => old,
        Err(e) => {
            println!("{old_name}: cannot be compared: {e}");
            return;
        }
    };
    let new = match capture::read(&shown) {
        Ok(new) => new,
        Err(e) => {
            println!("{}: cannot be compared: {e}", shown.display());
            return;
        }
    };
    let report = diff::diff(&old, &new, &diff::Options::default());
    if report.changes.is_empty() {
        println!(
            "{old_name} -> {}: no changes (the generator or the manifest changed)",
            shown.display()
        );
    } else {
        print!(
            "{}",
            diff::Format::Text.render(&report, &old_name, &shown.display().to_string())
        );
    }
    println!();
}
