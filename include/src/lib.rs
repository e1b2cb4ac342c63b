//! `include_tools!`: the [mcp-bindgen](https://docs.rs/mcp-bindgen) generator as a macro, the
//! way in that needs no `build.rs` (as progenitor's `generate_api!` is to its build script).
//!
//! ```ignore
//! // Cargo.toml: mcp-bindgen (feature "client" for HttpClient) and mcp-bindgen-include.
//! mcp_bindgen_include::include_tools!("tools/time.tools.json");
//!
//! # async fn run() -> Result<(), mcp_bindgen::Error> {
//! let http = mcp_bindgen::HttpClient::connect("http://127.0.0.1:7100/mcp").await?;
//! let client = time::Client::new(http);
//! # Ok(()) }
//! ```
//!
//! The macro runs the same generator as `mcp_bindgen_codegen::Builder` and `mcp-bindgen
//! generate`, with the same diagnostics: an invalid capture fails the build at the macro's
//! argument with the capture's file, line and column and what to do. Paths are relative to the
//! crate's `Cargo.toml`; a change to a capture (or contract) rebuilds the crate.

#![deny(missing_docs)]

use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::{Generator, ServerConfig, on_generator_stack};
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// Generates a typed client module from a captured `tools/list`, as `pub mod NAME { .. }` at
/// the call site (what `build.rs` with `Builder` writes for `include!`).
///
/// ```ignore
/// include_tools!("tools/time.tools.json");                      // pub mod time
/// include_tools!(
///     "captures/scape.tools.json",
///     module = "scape",                                         // default: the file's stem
///     name = "Scape",                                           // the server's name in docs
///     contract = "contracts/agent.d.ts",                        // feature "contracts"
///     result = ("scape_observe", "AgentObservation"),           // a tool's result type
///     rename = ("scape_interact", "interact"),                  // a tool's method name
/// );
/// ```
///
/// `contract`, `result` and `rename` may be given more than once. The generator's warnings
/// (a tool it could not type exactly, ...) show as `deprecated` warnings naming them, the one
/// kind of warning a macro can raise on stable Rust.
#[proc_macro]
pub fn include_tools(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The macro's arguments: the capture, then `key = value` options.
struct Args {
    capture: LitStr,
    options: Vec<(Ident, Value)>,
}

/// An option's value: a string, or a pair of strings.
enum Value {
    Text(LitStr),
    Pair(LitStr, LitStr),
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let capture: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "include_tools! takes the capture's path first: include_tools!(\"tools/server.tools.json\")",
            )
        })?;
        let mut options = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value = if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let first: LitStr = content.parse()?;
                content.parse::<Token![,]>()?;
                let second: LitStr = content.parse()?;
                let _ = content.parse::<Option<Token![,]>>()?;
                Value::Pair(first, second)
            } else {
                Value::Text(input.parse()?)
            };
            options.push((key, value));
        }
        Ok(Args { capture, options })
    }
}

fn expand(args: &Args) -> syn::Result<TokenStream> {
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            syn::Error::new(
                args.capture.span(),
                "include_tools!: CARGO_MANIFEST_DIR is not set (build with cargo)",
            )
        })?;
    let capture = args.capture.value();
    let mut module = default_module(&capture);
    let mut config = ServerConfig::new(String::new(), &capture);
    for (key, value) in &args.options {
        match (key.to_string().as_str(), value) {
            ("module", Value::Text(text)) => module = Some(text.value()),
            ("name", Value::Text(text)) => config = config.with_name(text.value()),
            ("contract", Value::Text(text)) => config = config.with_contract(text.value()),
            ("result", Value::Pair(tool, ty)) => {
                config = config.with_result(tool.value(), ty.value())
            }
            ("rename", Value::Pair(tool, method)) => {
                config = config.with_rename(tool.value(), method.value());
            }
            ("module" | "name" | "contract", Value::Pair(..)) => {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` takes a string"),
                ));
            }
            ("result" | "rename", Value::Text(..)) => {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` takes a pair: {key} = (\"tool\", \"...\")"),
                ));
            }
            _ => {
                return Err(syn::Error::new(
                    key.span(),
                    format!(
                        "unknown option `{key}`: include_tools! takes module, name, contract, \
                         result and rename"
                    ),
                ));
            }
        }
    }
    let module = module
        .filter(|m| syn::parse_str::<Ident>(m).is_ok())
        .ok_or_else(|| {
            syn::Error::new(
                args.capture.span(),
                format!(
                    "include_tools!: no module name can be made from {capture:?}: name it with \
                     module = \"name\""
                ),
            )
        })?;
    config.module = module;
    let generator = Generator::new().with_base(&base);
    // The generator builds syntax with proc-macro2 on a thread of its own (a big stack), where
    // the compiler's token API is not available: proc-macro2's own implementation it is, until
    // the module is back on this thread as text.
    proc_macro2::fallback::force();
    let generated = on_generator_stack(|| {
        generator.generate(&config).map(|m| {
            let warnings: Vec<String> = m.warnings.iter().map(ToString::to_string).collect();
            (m.to_wrapped("include_tools!"), warnings)
        })
    });
    if proc_macro::is_available() {
        proc_macro2::fallback::unforce();
    }
    // The generator's error names the file, line and column and what to do; it is shown at
    // the capture's argument.
    // Paths in it relative to the crate, as the user wrote them.
    let relative = |text: String| text.replace(&format!("{}/", base.display()), "");
    let (code, warnings) =
        generated.map_err(|e| syn::Error::new(args.capture.span(), relative(e.to_string())))?;
    let items: TokenStream = code.parse().map_err(|e| {
        syn::Error::new(
            args.capture.span(),
            format!("include_tools!: the generated module does not parse ({e}); please report it"),
        )
    })?;
    // Each input read, so that cargo rebuilds the crate when one changes.
    let inputs = config
        .inputs()
        .into_iter()
        .map(|path| absolute(&base, &path).display().to_string());
    let warnings = warnings.into_iter().map(|warning| {
        let note = format!("mcp-bindgen: {}", relative(warning));
        quote! {
            const _: () = {
                #[deprecated(note = #note)]
                struct GeneratorWarning;
                let _ = GeneratorWarning;
            };
        }
    });
    Ok(quote! {
        #items
        #(const _: &[u8] = include_bytes!(#inputs);)*
        #(#warnings)*
    })
}

/// The module name `capture`'s file gives: its name up to the first dot, `-` as `_`
/// (`tools/saving-throw.tools.json` → `saving_throw`).
fn default_module(capture: &str) -> Option<String> {
    let name = Path::new(capture).file_name()?.to_str()?;
    let stem = name.split('.').next()?;
    Some(stem.replace('-', "_")).filter(|s| !s.is_empty())
}

fn absolute(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: &str) -> syn::Result<TokenStream> {
        expand(&syn::parse_str::<Args>(input).expect("arguments"))
    }

    /// A malformed capture: the generator's located error, its path as the user wrote it.
    #[test]
    fn a_malformed_capture_is_the_generators_located_error() {
        let error = expanded(r#""tests/fixtures/broken.tools.json""#)
            .expect_err("malformed")
            .to_string();
        assert!(
            error.starts_with("tests/fixtures/broken.tools.json:4:3"),
            "{error}"
        );
        assert!(!error.contains(env!("CARGO_MANIFEST_DIR")), "{error}");
    }

    #[test]
    fn the_module_is_named_after_the_capture_or_as_asked() {
        assert_eq!(
            default_module("tools/saving-throw.tools.json").as_deref(),
            Some("saving_throw")
        );
        let error = expanded(r#""tools/9lives.tools.json""#)
            .expect_err("not an identifier")
            .to_string();
        assert!(error.contains("module = \"name\""), "{error}");
        let code = expanded(
            r#""../examples/build-rs/tools/time.tools.json", module = "clock", name = "Clock""#,
        )
        .expect("generates")
        .to_string();
        assert!(code.starts_with("pub mod clock {"), "{code}");
        assert!(code.contains("include_bytes !"), "{code}");
        assert!(code.contains("Clock MCP server"), "{code}");
    }
}
