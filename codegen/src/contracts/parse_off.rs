//! The contracts' parser when the `contracts` feature is off: there is no TypeScript parser
//! (oxc) in this build. The generator stops with a located error before it would parse a
//! contract (the `contracts` feature's help), so these functions only keep the types whole.

use super::ir::{Decl, Loc, Ty};

/// Declarations of one file, and what was left out of them.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub decls: Vec<Decl>,
    pub skipped: Vec<(Loc, String)>,
}

/// A parse failure: where (byte offset) and why.
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub offset: u32,
    pub message: String,
}

fn no_parser() -> SyntaxError {
    SyntaxError {
        offset: 0,
        message: super::NO_CONTRACTS.into(),
    }
}

pub(crate) fn parse_file(_file: usize, _text: &str) -> Result<Parsed, SyntaxError> {
    Err(no_parser())
}

pub(crate) fn parse_type(_file: usize, _text: &str) -> Result<Ty, SyntaxError> {
    Err(no_parser())
}
