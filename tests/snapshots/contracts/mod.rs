//! Modules generated from the `.d.ts` snippets of `tests/contracts.rs`, one per mapping rule
//! (compiled here so that every snapshot is proven to build).

#[rustfmt::skip]
pub mod interfaces;
#[rustfmt::skip]
pub mod inline_objects;
#[rustfmt::skip]
pub mod arrays;
#[rustfmt::skip]
pub mod string_literals;
#[rustfmt::skip]
pub mod number_literals;
#[rustfmt::skip]
pub mod tagged_unions;
#[rustfmt::skip]
pub mod optional_nullable;
#[rustfmt::skip]
pub mod intersections;
#[rustfmt::skip]
pub mod maps;
#[rustfmt::skip]
pub mod recursive;
#[rustfmt::skip]
pub mod generics;
#[rustfmt::skip]
pub mod consts;
#[rustfmt::skip]
pub mod enums;
#[rustfmt::skip]
pub mod unsupported_members;
#[rustfmt::skip]
pub mod builtins;
#[rustfmt::skip]
pub mod type_queries;
#[rustfmt::skip]
pub mod narrowing;
#[rustfmt::skip]
pub mod left_out;
