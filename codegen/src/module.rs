//! [`Module`]: one generated module, and its renderings as a file of its own or wrapped in
//! `pub mod`.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::diagnostic::Warning;
use crate::naming;

/// One generated module: its items as Rust code ([`Module::code`], or a whole file with
/// [`Module::to_module_file`] and [`Module::to_wrapped`]), and what was learnt making it.
#[derive(Clone)]
pub struct Module {
    /// The module name.
    pub name: String,
    /// Inputs, as named in the config (for the `@generated` header and rebuild tracking).
    pub inputs: Vec<PathBuf>,
    /// Problems worked around; each type concerned is looser than its schema.
    pub warnings: Vec<Warning>,
    /// Number of tools.
    pub tools: usize,
    /// Number of named types generated.
    pub types: usize,
    /// The digest of the tools the client calls (its `PROVENANCE`); `None` for a module of
    /// contract types only.
    pub digest: Option<String>,
    /// The module's items (types, schemas, client), without the `mod` wrapper.
    pub(crate) body: Body,
}

/// The module's items: the syntax the generator made, while the module stays on the thread
/// that made it, or its rendered code once it crossed from the generator's thread (syntax
/// trees are not `Send`; see [`crate::on_generator_stack`]).
#[derive(Clone)]
pub(crate) enum Body {
    Syntax(syn::File),
    Code(String),
}

impl From<syn::File> for Body {
    fn from(file: syn::File) -> Self {
        Body::Syntax(file)
    }
}

/// A [`Module`] with its items rendered, to hand across threads.
pub(crate) struct Rendered {
    name: String,
    inputs: Vec<PathBuf>,
    warnings: Vec<Warning>,
    tools: usize,
    types: usize,
    digest: Option<String>,
    code: String,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("inputs", &self.inputs)
            .field("tools", &self.tools)
            .field("types", &self.types)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// The module's items (types, schemas, client) as Rust code, formatted by prettyplease,
    /// without the `@generated` header or a `mod` wrapper. To walk the items, parse it
    /// (`syn::parse_file`).
    pub fn code(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Syntax(file) => Cow::Owned(laid_out(&prettyplease::unparse(file))),
            Body::Code(code) => Cow::Borrowed(code),
        }
    }

    /// The module as a file of its own (`src/{name}.rs`, used with `mod name;`), with the
    /// `@generated` header naming its inputs and `command`, the command that refreshes it.
    pub fn to_module_file(&self, command: &str) -> String {
        format!("{}{}", self.header(command), self.code())
    }

    /// The module wrapped as `pub mod {name} { .. }`, for `include!` (build.rs, `generate`).
    pub fn to_wrapped(&self, command: &str) -> String {
        let wrapped = match &self.body {
            Body::Syntax(file) => self.wrap(file),
            // The code came from syntax prettyplease wrote, so it parses; if it ever did not,
            // the same text inside `pub mod` is still the module, only laid out by hand.
            Body::Code(code) => match syn::parse_file(code) {
                Ok(file) => self.wrap(&file),
                Err(_) => wrap_text(&self.name, code),
            },
        };
        format!("{}{wrapped}", self.header(command))
    }

    /// `file`'s items inside `pub mod {name} { .. }`, rendered. Built as syntax, not as tokens
    /// to parse again: the module's items are already syn's.
    fn wrap(&self, file: &syn::File) -> String {
        let wrapped = syn::ItemMod {
            // A file's attributes are inner ones (`#![..]`): they go inside the braces.
            attrs: file.attrs.clone(),
            vis: syn::Visibility::Public(Default::default()),
            unsafety: None,
            mod_token: Default::default(),
            ident: naming::ident(&self.name),
            content: Some((Default::default(), file.items.clone())),
            semi: None,
        };
        let file = syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![syn::Item::Mod(wrapped)],
        };
        laid_out(&prettyplease::unparse(&file))
    }

    fn header(&self, command: &str) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        let digest = match &self.digest {
            Some(digest) => format!("// Tools digest: {digest}.\n"),
            None => String::new(),
        };
        // The inputs' list goes on as many lines as it takes to stay within 100 columns.
        let mut first = format!(
            "// @generated by mcp-bindgen {} from",
            env!("CARGO_PKG_VERSION")
        );
        let mut lines = Vec::new();
        let count = inputs.len();
        for (i, input) in inputs.iter().enumerate() {
            let word = format!("{input}{}", if i + 1 == count { "." } else { "," });
            if first.chars().count() + 1 + word.chars().count() > 100 && first != "//" {
                lines.push(std::mem::replace(&mut first, "//".to_owned()));
            }
            first.push(' ');
            first.push_str(&word);
        }
        lines.push(first);
        let mut edit = format!("// Do not edit by hand: change the inputs and run `{command}`.");
        if edit.chars().count() > 100 {
            edit = format!("// Do not edit by hand: change the inputs and run\n// `{command}`.");
        }
        format!("{}\n{digest}{edit}\n\n", lines.join("\n"))
    }

    /// Renders the items, so that the module can cross threads.
    pub(crate) fn render(self) -> Rendered {
        let code = self.code().into_owned();
        Rendered {
            name: self.name,
            inputs: self.inputs,
            warnings: self.warnings,
            tools: self.tools,
            types: self.types,
            digest: self.digest,
            code,
        }
    }
}

impl From<Rendered> for Module {
    fn from(rendered: Rendered) -> Self {
        Module {
            name: rendered.name,
            inputs: rendered.inputs,
            warnings: rendered.warnings,
            tools: rendered.tools,
            types: rendered.types,
            digest: rendered.digest,
            body: Body::Code(rendered.code),
        }
    }
}

/// `code` as a person lays it out: prettyplease writes items back to back, so a blank line goes
/// between two items at the same depth (after an item's closing `}` or `;`, before the next
/// item's docs, attributes or keyword), as rustfmt keeps them. Consecutive `use`s stay
/// together, and no line that starts inside a string literal or a comment is touched.
fn laid_out(code: &str) -> String {
    let code = fit_long_lines(code, MAX_WIDTH);
    let code = code.as_str();
    let inside = lines_inside_literals(code);
    let lines: Vec<&str> = code.split('\n').collect();
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    // Whether the last item begun at each indentation is a `use`.
    let mut uses: Vec<bool> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let depth = line.len() - line.trim_start().len();
        let starts_item = !inside[i] && starts_item(line);
        if i > 0 && !inside[i] {
            let prev = lines[i - 1];
            let inner_attr = |l: &str| l.trim_start().starts_with("#![");
            let after_docs = (prev.starts_with("//!") && !line.starts_with("//!")
                || inner_attr(prev) && !inner_attr(line))
                && !line.is_empty();
            let after_use = uses.get(depth).copied().unwrap_or(false);
            let is_use = line.trim_start().starts_with("use ");
            if after_docs || (starts_item && ends_item(prev, line) && !(after_use && is_use)) {
                out.push('\n');
            }
        }
        if starts_item
            && !line.trim_start().starts_with("///")
            && !line.trim_start().starts_with("#[")
        {
            if uses.len() <= depth {
                uses.resize(depth + 1, false);
            }
            uses[depth] = line.trim_start().starts_with("use ");
        }
        out.push_str(line);
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
    out
}

/// The widest line of a generated module a person should have to read.
const MAX_WIDTH: usize = 100;

/// `code` with the code lines prettyplease leaves over `width` characters broken as a person
/// would: a function signature before its `->`, a string literal with `\` line continuations
/// (which the string does not contain: the line break and the next line's indentation are
/// skipped). Comments, and lines inside multi-line literals, are left as they are.
fn fit_long_lines(code: &str, width: usize) -> String {
    let inside = lines_inside_literals(code);
    let mut out = String::with_capacity(code.len());
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        if line.chars().count() <= width
            || inside.get(i).copied().unwrap_or(true)
            || trimmed.starts_with("//")
        {
            out.push_str(line);
            continue;
        }
        match signature_break(line).or_else(|| string_breaks(line, width)) {
            Some(lines) => out.push_str(&lines.join("\n")),
            None => out.push_str(line),
        }
    }
    out
}

/// `fn name(..) -> Type {` as `fn name(..)` and, at the same indent, `-> Type {`.
fn signature_break(line: &str) -> Option<Vec<String>> {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    let is_fn = ["fn ", "pub fn ", "pub(super) fn ", "pub(crate) fn "]
        .iter()
        .any(|start| trimmed.starts_with(start));
    if !is_fn || !trimmed.ends_with('{') {
        return None;
    }
    let at = line.rfind(") -> ")?;
    Some(vec![
        line[..=at].to_owned(),
        format!("{indent}{}", &line[at + 2..]),
    ])
}

/// A line whose first string literal (a plain one) runs past `width`, as lines ending in `\`
/// inside the literal, those after the first one indent deeper than the line. A break comes
/// before a character that is not whitespace (a continuation skips the next line's leading
/// whitespace), never inside an escape, and after a space where one is in reach.
fn string_breaks(line: &str, width: usize) -> Option<Vec<String>> {
    let chars: Vec<char> = line.chars().collect();
    let start = chars.iter().position(|&c| c == '"')?;
    if start > 0 && matches!(chars[start - 1], 'r' | '#' | 'b' | '\'') {
        return None;
    }
    // Where a break may go (a char index the next line starts at), and whether a space is
    // before it; up to the literal's closing quote.
    let mut candidates: Vec<(usize, bool)> = Vec::new();
    let mut k = start + 1;
    loop {
        match chars.get(k) {
            None => return None,
            Some('"') => break,
            Some('\\') => {
                // An escape is a unit: `\n`, `\"`, `\u{..}`.
                let unicode = chars.get(k + 1) == Some(&'u');
                k += 2;
                if unicode {
                    while k < chars.len() && chars[k - 1] != '}' {
                        k += 1;
                    }
                }
                continue;
            }
            Some(c) => {
                if !c.is_whitespace() && k > start + 1 {
                    candidates.push((k, chars[k - 1] == ' '));
                }
                k += 1;
            }
        }
    }
    let indent = chars.iter().take_while(|c| **c == ' ').count();
    let deeper = " ".repeat(indent + 4);
    let mut lines = Vec::new();
    // The current line's first character, and the columns before it.
    let (mut from, mut lead) = (0, 0);
    while lead + chars.len() - from > width {
        // The last break that leaves room for the `\`, after a space if one is in reach.
        let fits = |&&(k, _): &&(usize, bool)| k > from && lead + (k - from) < width;
        let spaced = candidates.iter().filter(fits).rfind(|(_, space)| *space);
        let cut = spaced.or_else(|| candidates.iter().rfind(fits))?.0;
        let text: String = chars[from..cut].iter().collect();
        let prefix = if from == 0 { "" } else { deeper.as_str() };
        lines.push(format!("{prefix}{text}\\"));
        from = cut;
        lead = indent + 4;
    }
    if lines.is_empty() {
        return None;
    }
    let rest: String = chars[from..].iter().collect();
    lines.push(format!("{deeper}{rest}"));
    Some(lines)
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    #[test]
    fn long_signatures_break_before_their_arrow() {
        let line = format!(
            "        pub(super) fn {}() -> super::{} {{",
            "a".repeat(50),
            "B".repeat(40)
        );
        let fitted = fit_long_lines(&line, 100);
        let lines: Vec<&str> = fitted.lines().collect();
        assert_eq!(lines.len(), 2, "{fitted}");
        assert!(lines[0].ends_with("()"), "{fitted}");
        assert!(lines[1].starts_with("        -> super::B"), "{fitted}");
    }

    #[test]
    fn long_strings_continue_on_the_next_line_and_keep_their_value() {
        let words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi";
        let line = format!("            \"{words} {words} \\\"quoted\\\" \\u{{1F600}}\",");
        let fitted = fit_long_lines(&line, 60);
        assert!(fitted.lines().count() > 2, "{fitted}");
        assert!(fitted.lines().all(|l| l.chars().count() <= 60), "{fitted}");
        // What the compiler makes of it: each `\` and the next line's indent removed.
        let mut value = String::new();
        let mut lines = fitted.lines().peekable();
        while let Some(l) = lines.next() {
            let l = if value.is_empty() { l } else { l.trim_start() };
            match l.strip_suffix('\\') {
                Some(head) if lines.peek().is_some() => value.push_str(head),
                _ => value.push_str(l),
            }
        }
        assert_eq!(value, line);
        // A line with no string or signature to break is left alone.
        let code = format!("    let x = {};", "y".repeat(120));
        assert_eq!(fit_long_lines(&code, 100), code);
    }
}

/// Whether `line` begins an item (its docs, attributes or keyword).
fn starts_item(line: &str) -> bool {
    let l = line.trim_start();
    [
        "///",
        "#[",
        "pub ",
        "pub(",
        "fn ",
        "async fn ",
        "impl",
        "mod ",
        "struct ",
        "enum ",
        "static ",
        "const ",
        "type ",
        "trait ",
        "use ",
    ]
    .iter()
    .any(|k| l.starts_with(k))
}

/// Whether `prev` ends an item at the depth of `line` (its closing `}` or `;`).
fn ends_item(prev: &str, line: &str) -> bool {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let p = prev.trim();
    !p.is_empty()
        && indent(prev) == indent(line)
        && (p == "}" || (p.ends_with(';') && !p.starts_with("//")))
}

/// For each line of `code`, whether it starts inside a string literal or a block comment (so
/// that a line break there is part of the literal).
fn lines_inside_literals(code: &str) -> Vec<bool> {
    #[derive(PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment(usize),
        Str,
        RawStr(usize),
    }
    let chars: Vec<char> = code.chars().collect();
    let mut state = State::Code;
    let mut inside = vec![false];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code => match c {
                '/' if next == Some('/') => state = State::LineComment,
                '/' if next == Some('*') => {
                    state = State::BlockComment(1);
                    i += 1;
                }
                '"' => state = State::Str,
                'r' if matches!(next, Some('"' | '#'))
                    && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) =>
                {
                    let mut hashes = 0;
                    while chars.get(i + 1 + hashes) == Some(&'#') {
                        hashes += 1;
                    }
                    if chars.get(i + 1 + hashes) == Some(&'"') {
                        state = State::RawStr(hashes);
                        i += 1 + hashes;
                    }
                }
                '\'' => {
                    // A char literal ('x', '\n', '\''), not a lifetime ('a).
                    if next == Some('\\') {
                        i += 2;
                        while i < chars.len() && chars[i] != '\'' {
                            i += 1;
                        }
                    } else if chars.get(i + 2) == Some(&'\'') {
                        i += 2;
                    }
                }
                _ => {}
            },
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                }
            }
            State::BlockComment(depth) => {
                if c == '*' && next == Some('/') {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::BlockComment(depth - 1)
                    };
                    i += 1;
                } else if c == '/' && next == Some('*') {
                    state = State::BlockComment(depth + 1);
                    i += 1;
                }
            }
            State::Str => match c {
                '\\' => {
                    // An escaped line break (a string continued on the next line) is one too.
                    if next == Some('\n') {
                        inside.push(true);
                    }
                    i += 1;
                }
                '"' => state = State::Code,
                _ => {}
            },
            State::RawStr(hashes) => {
                if c == '"' && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#')) {
                    state = State::Code;
                    i += hashes;
                }
            }
        }
        if c == '\n' {
            inside.push(!matches!(state, State::Code | State::LineComment));
        }
        i += 1;
    }
    inside
}

/// `code` inside `pub mod {name} { .. }` as it stands, not indented: a line of a multi-line
/// string literal must not change.
fn wrap_text(name: &str, code: &str) -> String {
    format!("pub mod {} {{\n{code}}}\n", naming::ident(name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn items_are_separated_and_literals_left_alone() {
        let code = "use a::B;\nuse c::D;\npub struct S {\n    pub x: u8,\n}\n/// Doc.\nimpl S {\n    fn f() {\n        let s = \"x\n}\n/// not an item\";\n    }\n    fn g() {}\n}\nconst C: &str = r#\"a\n}\nfn h() {}\"#;\nstatic T: u8 = 1;\n";
        let expected = "use a::B;\nuse c::D;\n\npub struct S {\n    pub x: u8,\n}\n\n/// Doc.\nimpl S {\n    fn f() {\n        let s = \"x\n}\n/// not an item\";\n    }\n\n    fn g() {}\n}\n\nconst C: &str = r#\"a\n}\nfn h() {}\"#;\n\nstatic T: u8 = 1;\n";
        assert_eq!(super::laid_out(code), expected);
    }

    use super::*;

    /// The hand-made wrapping keeps every item as it was, literals included.
    #[test]
    fn wrap_text_keeps_the_items() {
        let code = "//! The module.\n\n/// A text.\npub const TEXT: &str = \"one\n  two\";\npub struct S;\n";
        let file = syn::parse_file(code).expect("parses");
        let wrapped = syn::parse_file(&wrap_text("m", code)).expect("the wrapped text parses");
        let [syn::Item::Mod(module)] = &wrapped.items[..] else {
            panic!("one module: {}", quote::quote!(#wrapped));
        };
        assert_eq!(module.ident, "m");
        // Compared as tokens (syn's trees implement `Eq` only with `extra-traits`).
        let attrs = &module.attrs;
        let expected = &file.attrs;
        assert_eq!(
            quote::quote!(#(#attrs)*).to_string(),
            quote::quote!(#(#expected)*).to_string()
        );
        let items = module.content.as_ref().map(|(_, items)| items);
        let expected = &file.items;
        assert_eq!(
            items.map(|items| quote::quote!(#(#items)*).to_string()),
            Some(quote::quote!(#(#expected)*).to_string())
        );
    }
}
