//! `#[derive(McpTool)]` and `#[derive(McpPrompt)]` for [mcp-bindgen](https://docs.rs/mcp-bindgen). Use it through the
//! `mcp-bindgen` crate (`mcp_bindgen::McpTool`), which re-exports it next to the trait.
//!
//! Laid out like thiserror's `impl/`: `ast` parses the input, `attr` reads `#[mcp(..)]`,
//! `valid` checks both with spanned errors, `expand` writes the tokens.

#![deny(missing_docs)]

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro::TokenStream;

/// Declares a struct as the arguments of an MCP tool. See `mcp_bindgen::McpTool`.
#[proc_macro_derive(McpTool, attributes(mcp))]
pub fn derive_mcp_tool(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    ast::Input::from_syn(&input, ast::Derive::Tool)
        .and_then(|input| {
            valid::check(&input)?;
            Ok(expand::derive(&input))
        })
        .unwrap_or_else(|error| with_fallback(error, &input, ast::Derive::Tool))
        .into()
}

/// Declares a struct as the arguments of an MCP prompt. See `mcp_bindgen::server::McpPrompt`.
#[proc_macro_derive(McpPrompt, attributes(mcp))]
pub fn derive_mcp_prompt(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    ast::Input::from_syn(&input, ast::Derive::Prompt)
        .and_then(|input| {
            valid::check(&input)?;
            Ok(expand::derive_prompt(&input))
        })
        .unwrap_or_else(|error| with_fallback(error, &input, ast::Derive::Prompt))
        .into()
}

/// The error, and an impl of the trait with neutral values (as serde's derive does), so that
/// the type's uses do not add a second, misleading error (`McpTool is not satisfied`) to the
/// one that says what to mend. None for a generic type, which the derive does not take.
fn with_fallback(
    error: syn::Error,
    input: &syn::DeriveInput,
    derive: ast::Derive,
) -> proc_macro2::TokenStream {
    let mut tokens = error.into_compile_error();
    if input.generics.params.is_empty() {
        tokens.extend(expand::fallback(&input.ident, derive));
    }
    tokens
}
