//! Agent contracts: TypeScript declaration files (`.d.ts`) lowered to JSON Schema definitions,
//! so that result types go through the same normaliser and typify as input and output schemas
//! (ARCHITECTURE.md, "The generator"). The only module that touches oxc (in `parse.rs`).
//!
//! | TypeScript | JSON Schema (→ Rust) |
//! | --- | --- |
//! | `interface X extends A { .. }`, `type X = { .. }` | object definition `X` with `A`'s members first (→ struct) |
//! | inline `{ .. }` | definition `{Parent}{Field}`, identical shapes once |
//! | `T[]`, `Array<T>`, `readonly T[]` / `[A, B]` | array / closed tuple |
//! | `'a' \| 'b'` | string `enum`, exact wire strings (emoji keep U+FE0F) |
//! | `0 \| 1`, `protocol: 1`, `ok: true` | integer `enum` / one-value `enum`: a wrong value does not decode |
//! | object unions with a literal tag | `oneOf` of objects, the tag inline (→ tagged enum) |
//! | `f?: T` / `f: T \| null` / `f?: T \| null` | not required / nullable and required / both (→ `Option<Option<T>>`) |
//! | `A & { .. }` | one merged object |
//! | `Record<string, T>`, `[k: string]: T` | `additionalProperties` (→ map, or a flattened map next to fields) |
//! | `unknown`, `any` | `{}` (→ `serde_json::Value`) |
//! | `G<T = X>` | instantiated where used (`GArg`), with defaults alone as `G` |
//! | `interface L extends Array<T> {}` | array definition `L` (→ `struct L(Vec<T>)`) |
//! | `Partial`, `Required`, `Readonly`, `Pick`, `Omit`, `Record<K, T>` | object definitions (keys through aliases and `keyof`) |
//! | `NonNullable`, `Exclude`, `Extract`, `T[K]`, `typeof CONST`, `keyof T` | what TypeScript computes (`shape.rs`), then lowered |
//! | `namespace N { type T }` | declaration `N.T` (→ `NT`) |
//! | `declare const MAX = 320`, `GRID: { readonly w: 64 }` | Rust constants |
//! | JSDoc | `description` (→ doc comments) |
//!
//! Conditional and generic mapped types, function types and the like have no JSON form: a
//! declaration of one is left out alone with a located warning (and is an error only where a
//! manifest result type names it); as a member's type, or a reference to a left-out
//! declaration, they become `serde_json::Value` with a located warning.

// Without the `contracts` feature nothing is parsed, so the IR is never built.
#![cfg_attr(not(feature = "contracts"), allow(dead_code))]

mod ir;
mod lower;
mod overrides;
#[cfg(feature = "contracts")]
mod parse;
#[cfg(not(feature = "contracts"))]
#[path = "parse_off.rs"]
mod parse;
mod shape;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::diagnostic::locate::line_col;
use crate::diagnostic::{Diagnostic, Warning};
use crate::error::Error;
pub(crate) use ir::{ConstValue, Lit};
use ir::{Decl, DeclKind, Loc, Ty};

/// Why contracts cannot be read in a build without the `contracts` feature.
pub(crate) const NO_CONTRACTS: &str = "the TypeScript parser, which this build of mcp-bindgen-codegen leaves out (its `contracts` feature is off)";

/// One contract file (or a type written in the manifest): its name as the user wrote it, and
/// its text.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    pub path: PathBuf,
    pub text: String,
}

/// The parsed declarations of a server's contract files.
#[derive(Debug)]
pub(crate) struct Contracts {
    sources: Vec<Source>,
    decls: Vec<Decl>,
    /// Statements that describe no data: where, and what they are.
    skipped: Vec<(Loc, String)>,
}

/// A `declare const` with a literal value.
#[derive(Debug, Clone)]
pub(crate) struct Const {
    pub name: String,
    pub doc: Option<String>,
    pub value: ConstValue,
}

/// A located problem in a contract file.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    at: Loc,
    message: String,
    help: String,
    /// A second place the problem is at (the other part of an intersection).
    also: Option<Loc>,
}

impl Problem {
    fn error(at: Loc, message: impl Into<String>, help: &str) -> Self {
        Problem {
            at,
            message: message.into(),
            help: help.to_owned(),
            also: None,
        }
    }

    fn also(mut self, at: Loc) -> Self {
        self.also = Some(at);
        self
    }
}

/// What the manifest adds to the declarations.
#[derive(Debug)]
pub(crate) struct Settings<'a> {
    /// `"Type"` or `"Type.field.sub"` → a TypeScript type (with `integer`, `i32`, `u64`, ...).
    pub overrides: &'a BTreeMap<String, String>,
    /// Result types: (tool, the definition name to use when it is not a declared type, type).
    pub results: Vec<(String, String, String)>,
}

/// Contracts lowered to JSON Schema definitions.
#[derive(Debug, Default)]
pub(crate) struct Lowered {
    /// Definitions (names final, references as `#/$defs/Name`), in declaration order.
    pub defs: Vec<(String, Value)>,
    pub consts: Vec<Const>,
    /// Tool → the result type's definition name.
    pub results: BTreeMap<String, String>,
    /// Enum definition → wire value → variant name, from TypeScript `enum` members.
    pub variant_names: BTreeMap<String, BTreeMap<String, String>>,
    /// Definition name → where it comes from, for messages.
    locations: BTreeMap<String, Loc>,
    /// The contract files (and manifest types), to locate definitions.
    sources: Vec<Source>,
    pub warnings: Vec<Warning>,
}

impl Contracts {
    /// Parses `sources`; a syntax error is a located error.
    pub(crate) fn parse(sources: Vec<Source>) -> Result<Contracts, Error> {
        let mut decls = Vec::new();
        let mut skipped = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            let parsed = parse::parse_file(i, &source.text).map_err(|e| {
                Error::from(
                    Diagnostic::new(&source.path, format!("not valid TypeScript: {}", e.message))
                        .at(&source.text, line_col(&source.text, e.offset as usize))
                        .help("a contract file holds TypeScript declarations (.d.ts): interfaces, type aliases, `declare const`"),
                )
            })?;
            decls.extend(parsed.decls);
            skipped.extend(parsed.skipped);
        }
        let contracts = Contracts {
            sources,
            decls,
            skipped,
        };
        contracts.check_duplicates()?;
        Ok(contracts)
    }

    /// Interfaces of one name merge (as in TypeScript); anything else declared twice is an
    /// error.
    fn check_duplicates(&self) -> Result<(), Error> {
        let mut seen: BTreeMap<&str, &Decl> = BTreeMap::new();
        for decl in &self.decls {
            let is_const = matches!(decl.kind, DeclKind::Const(..));
            let key = decl.name.as_str();
            if let Some(first) = seen.get(key) {
                let first_const = matches!(first.kind, DeclKind::Const(..));
                let both_interfaces = matches!(first.kind, DeclKind::Interface { .. })
                    && matches!(decl.kind, DeclKind::Interface { .. });
                // A value and a type may share a name (`const X = ..; type X = ..`).
                if both_interfaces || first_const != is_const {
                    continue;
                }
                let at = self.position(first.at);
                return Err(Error::from(self.diagnostic(&Problem::error(
                    decl.at,
                    format!(
                        "`{}` is declared twice (first at {}:{}:{})",
                        decl.name,
                        self.sources[first.at.file].path.display(),
                        at.line,
                        at.column
                    ),
                    "rename one of the declarations",
                ))));
            }
            seen.insert(key, decl);
        }
        Ok(())
    }

    fn position(&self, at: Loc) -> crate::diagnostic::LineCol {
        let text = &self.sources[at.file].text;
        line_col(text, at.offset as usize)
    }

    /// Located warnings, each file's line starts found once (`line_col` alone
    /// scans the file up to the position for each).
    fn warnings(&self, found: impl IntoIterator<Item = (Loc, String)>) -> Vec<Warning> {
        let mut lines: Vec<Option<LineStarts>> = vec![None; self.sources.len()];
        found
            .into_iter()
            .map(|(at, message)| {
                let text = &self.sources[at.file].text;
                let starts = lines[at.file].get_or_insert_with(|| LineStarts::new(text));
                Warning {
                    file: self.sources[at.file].path.clone(),
                    at: Some(starts.line_col(text, at.offset as usize)),
                    tool: None,
                    pointer: None,
                    message,
                }
            })
            .collect()
    }

    /// The problem's message, with its second location when it has one.
    fn problem_message(&self, problem: &Problem) -> String {
        let mut message = problem.message.clone();
        if let Some(also) = problem.also {
            let at = self.position(also);
            message.push_str(&format!(
                " (the other part: {}:{}:{})",
                self.sources[also.file].path.display(),
                at.line,
                at.column
            ));
        }
        message
    }

    fn diagnostic(&self, problem: &Problem) -> Diagnostic {
        let source = &self.sources[problem.at.file];
        Diagnostic::new(&source.path, self.problem_message(problem))
            .at(&source.text, self.position(problem.at))
            .help(problem.help.clone())
    }

    /// Lowers every declaration, the overrides applied; `reserve` takes a wanted Rust type name
    /// and returns it, or a free variant when it is taken.
    pub(crate) fn lower(
        mut self,
        settings: &Settings<'_>,
        reserve: &mut dyn FnMut(&str) -> String,
    ) -> Result<Lowered, Error> {
        for (key, text) in settings.overrides {
            let ty = self.setting_type(&format!("[overrides] \"{key}\""), text)?;
            self.apply_override(key, ty)?;
        }
        let mut results = Vec::new();
        for (tool, name, text) in &settings.results {
            let file = self.sources.len();
            let ty = self.setting_type(&format!("[results] {tool}"), text)?;
            results.push((tool.clone(), name.clone(), ty, file));
        }
        let decls = self.decls.clone();
        let mut lowerer = lower::Lowerer::new(&decls, reserve);
        let mut lowered = Lowered::default();
        lowerer
            .reserve(&decls)
            .map_err(|p| Error::from(self.diagnostic(&p)))?;
        lowerer
            .declarations(&decls)
            .map_err(|p| Error::from(self.diagnostic(&p)))?;
        for (tool, name, ty, file) in &results {
            let at = match ty {
                Ty::Ref { at, .. } | Ty::Unsupported { at, .. } => *at,
                // The start of the type as written in the manifest.
                _ => Loc {
                    file: *file,
                    offset: 0,
                },
            };
            let def = lowerer
                .setting(ty, name, at)
                .map_err(|p| Error::from(self.diagnostic(&p)))?;
            lowered.results.insert(tool.clone(), def);
        }
        let out = lowerer.finish();
        lowered.defs = out.defs;
        lowered.consts = out.consts;
        lowered.variant_names = out.variant_names;
        lowered.locations = out.locations;
        let skipped = self.skipped.iter().map(|(at, what)| {
            (
                *at,
                format!("{what} describes no JSON data; no type is generated for it"),
            )
        });
        let left_out = out.left_out.iter().map(|p| {
            let message = format!(
                "{}; {}. Members that refer to it are serde_json::Value",
                self.problem_message(p),
                p.help.trim_end_matches('.')
            );
            (p.at, message)
        });
        let found: Vec<(Loc, String)> = skipped.chain(left_out).chain(out.warnings).collect();
        lowered.warnings = self.warnings(found);
        lowered.sources = self.sources;
        Ok(lowered)
    }
}

/// Where each line of a text starts, to locate many positions in it.
#[derive(Debug, Clone)]
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> Self {
        LineStarts(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// What [`line_col`] gives for `pos` in `text` (the text this was made from).
    fn line_col(&self, text: &str, pos: usize) -> crate::diagnostic::LineCol {
        let pos = pos.min(text.len());
        // Lines that start at or before `pos`; the last of them holds it.
        let line = self.0.partition_point(|&start| start <= pos);
        let start = self.0[line - 1];
        crate::diagnostic::LineCol {
            line,
            column: text[start..pos].chars().count() + 1,
        }
    }
}

impl Lowered {
    /// A warning about the definition `name`, located where it was declared.
    pub(crate) fn warning(&self, name: &str, message: String) -> Warning {
        let at = self.locations.get(name);
        let source = at.and_then(|at| self.sources.get(at.file));
        Warning {
            file: source.map(|s| s.path.clone()).unwrap_or_default(),
            at: at
                .zip(source)
                .map(|(at, s)| line_col(&s.text, at.offset as usize)),
            tool: None,
            pointer: None,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_locate_as_line_col_does() {
        let text = "ab\n\nçé x\n  y\nlast";
        let starts = LineStarts::new(text);
        for pos in (0..=text.len() + 2).filter(|&p| p >= text.len() || text.is_char_boundary(p)) {
            assert_eq!(starts.line_col(text, pos), line_col(text, pos), "at {pos}");
        }
    }
}
