//! Modules generated from published declaration files (`fixtures/contracts/npm/`, see
//! `tests/npm_contracts.rs`), compiled here so that the generator's output is proven to build.

#[rustfmt::skip]
pub mod geojson;
#[rustfmt::skip]
pub mod har_format;
#[rustfmt::skip]
pub mod webhooks_types;
#[rustfmt::skip]
pub mod estree;
#[rustfmt::skip]
pub mod unist;
#[rustfmt::skip]
pub mod json_schema;
#[rustfmt::skip]
pub mod sarif;
#[rustfmt::skip]
pub mod swagger_schema_official;
#[rustfmt::skip]
pub mod vscode_languageserver_types;
#[rustfmt::skip]
pub mod open_rpc_meta_schema;
