//! Modules generated from published declaration files (`fixtures/contracts/npm/`, see
//! `tests/npm_contracts.rs`), compiled here so that the generator's output is proven to build.

#[rustfmt::skip]
pub mod geojson;
#[rustfmt::skip]
pub mod har_format;
#[rustfmt::skip]
pub mod webhooks_types;
