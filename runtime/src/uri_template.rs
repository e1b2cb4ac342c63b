//! RFC 6570 URI templates: [`expand`] fills one (what a generated client does to read a
//! templated resource), [`check`] says whether one is valid and where it is not, and the
//! server matches URIs against one to read their variables back.

use serde_json::{Map, Value};

/// Expands `template` with `variables` (name, value), RFC 6570 levels 1 to 4 for string
/// values: simple `{x}`, reserved `{+x}`, fragment `{#x}`, label `{.x}`, path `{/x}`,
/// path-parameter `{;x}`, query `{?x,y}` and continuation `{&x}` expressions, and prefixes
/// `{x:3}`. Values are percent-encoded as each operator requires (UTF-8; reserved characters
/// kept by `+` and `#`). A variable not given is left out, as the RFC says of undefined ones.
///
/// ```
/// use mcp_bindgen::uri_template::expand;
///
/// assert_eq!(expand("game://level/{name}", &[("name", "dark forest")]), "game://level/dark%20forest");
/// assert_eq!(expand("file:///{+path}", &[("path", "maps/a b.json")]), "file:///maps/a%20b.json");
/// assert_eq!(expand("search{?q,limit}", &[("q", "red key"), ("limit", "5")]), "search?q=red%20key&limit=5");
/// assert_eq!(expand("search{?q,limit}", &[("q", "orc")]), "search?q=orc");
/// ```
pub fn expand(template: &str, variables: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let body = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let (operator, list) = match body.chars().next() {
            Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &body[1..]),
            _ => (None, body),
        };
        let (first, separator, named, if_empty, reserved) = match operator {
            None => ("", ",", false, "", false),
            Some('+') => ("", ",", false, "", true),
            Some('#') => ("#", ",", false, "", true),
            Some('.') => (".", ".", false, "", false),
            Some('/') => ("/", "/", false, "", false),
            Some(';') => (";", ";", true, "", false),
            Some('?') => ("?", "&", true, "=", false),
            _ => ("&", "&", true, "=", false),
        };
        let mut parts = Vec::new();
        for spec in list.split(',') {
            let spec = spec.trim_end_matches('*');
            let (name, prefix) = match spec.split_once(':') {
                Some((name, length)) => (name, length.parse::<usize>().ok()),
                None => (spec, None),
            };
            let Some(&(_, value)) = variables.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            let value = match prefix {
                Some(length) => value.chars().take(length).collect::<String>(),
                None => value.to_owned(),
            };
            let encoded = encode(&value, reserved);
            parts.push(if !named {
                encoded
            } else if value.is_empty() {
                format!("{name}{if_empty}")
            } else {
                format!("{name}={encoded}")
            });
        }
        if !parts.is_empty() {
            out.push_str(first);
            out.push_str(&parts.join(separator));
        }
    }
    out.push_str(rest);
    out
}

/// `text` percent-encoded: unreserved characters kept, and with `reserved` the reserved ones
/// and existing `%XX` triplets too.
fn encode(text: &str, reserved: bool) -> String {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (reserved && RESERVED.as_bytes().contains(&b));
        if keep {
            out.push(char::from(b));
        } else if reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            out.push_str(&text[i..i + 3]);
            i += 3;
            continue;
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
    out
}

/// Why a URI template is not RFC 6570: what is wrong, and where (a byte offset in the
/// template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template.
    pub template: String,
    /// The byte offset of the fault in `template`.
    pub at: usize,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not an RFC 6570 URI template: {} (at byte {})",
            self.template, self.message, self.at
        )
    }
}

impl std::error::Error for TemplateError {}

/// Checks that `template` is an RFC 6570 URI template (levels 1 to 4): every `{` closed by a
/// `}`, no `}` outside an expression, an operator of `+ # . / ; ? &` (the RFC's reserved
/// `= , ! @ |` refused), variable names of letters, digits, `_`, `.` and percent-encoded
/// octets, prefixes `:1` to `:9999`, and no prefix on an exploded variable.
///
/// ```
/// use mcp_bindgen::uri_template::check;
///
/// assert!(check("game://entity/{id}{?fields*}").is_ok());
/// let err = check("game://entity/{id").unwrap_err();
/// assert_eq!(err.at, 14);
/// assert!(err.to_string().contains("never closed"));
/// ```
pub fn check(template: &str) -> Result<(), TemplateError> {
    let fault = |at: usize, message: String| TemplateError {
        template: template.to_owned(),
        at,
        message,
    };
    let mut at = 0;
    let mut rest = template;
    loop {
        let open = rest.find('{');
        let literal = &rest[..open.unwrap_or(rest.len())];
        if let Some(close) = literal.find('}') {
            return Err(fault(
                at + close,
                "a `}` outside an expression (write it as %7D)".into(),
            ));
        }
        let Some(open) = open else {
            return Ok(());
        };
        let start = at + open;
        let Some(close) = rest[open..].find('}') else {
            return Err(fault(start, "a `{` never closed by `}`".into()));
        };
        let body = &rest[open + 1..open + close];
        if let Some(nested) = body.find('{') {
            return Err(fault(
                start + 1 + nested,
                "a `{` inside an expression".into(),
            ));
        }
        let (list, offset) = match body.chars().next() {
            None => return Err(fault(start, "an empty expression `{}`".into())),
            Some('+' | '#' | '.' | '/' | ';' | '?' | '&') => (&body[1..], start + 2),
            Some(c @ ('=' | ',' | '!' | '@' | '|')) => {
                return Err(fault(
                    start + 1,
                    format!("the operator `{c}` is reserved for future extensions"),
                ));
            }
            Some(_) => (body, start + 1),
        };
        let mut position = offset;
        for spec in list.split(',') {
            check_varspec(spec).map_err(|message| fault(position, message))?;
            position += spec.len() + 1;
        }
        at += open + close + 1;
        rest = &rest[open + close + 1..];
    }
}

/// One `varname`, `varname*` or `varname:n`; the message when it is none.
fn check_varspec(spec: &str) -> Result<(), String> {
    let (name, modifier) = match spec.find([':', '*']) {
        Some(i) => (&spec[..i], &spec[i..]),
        None => (spec, ""),
    };
    if name.is_empty() {
        return Err(format!("a variable without a name in `{spec}`"));
    }
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => i += 1,
            b'.' if i > 0 && i + 1 < bytes.len() && bytes[i - 1] != b'.' => i += 1,
            b'%' if bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
            {
                i += 3;
            }
            _ => {
                return Err(format!(
                    "`{name}` is not a variable name (letters, digits, `_`, `.` between them, \
                     percent-encoded octets)"
                ));
            }
        }
    }
    match modifier {
        "" | "*" => Ok(()),
        _ if modifier.starts_with(':') => {
            let digits = &modifier[1..];
            let valid = (1..=4).contains(&digits.len())
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.starts_with('0');
            if valid {
                Ok(())
            } else {
                Err(format!(
                    "`{spec}`: a prefix is `:1` to `:9999`, and an exploded variable has none"
                ))
            }
        }
        _ => Err(format!(
            "`{spec}`: `*` ends a variable; nothing may follow it"
        )),
    }
}

/// An RFC 6570 URI template, for matching URIs against it (levels 1 to 4: simple, reserved
/// `+`, fragment `#`, label `.`, path `/`, path-parameter `;`, query `?` and `&` expressions,
/// explode `*`, prefixes `:n`).
#[derive(Debug)]
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) struct UriTemplate {
    regex: Option<regress::Regex>,
    expressions: Vec<Expression>,
}

#[derive(Debug)]
struct Expression {
    operator: Option<char>,
    variables: Vec<(String, bool)>,
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
impl UriTemplate {
    /// The template, checked ([`check`]).
    pub(crate) fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
        check(template)?;
        let parsed = UriTemplate::new(template);
        if parsed.regex.is_none() {
            return Err(TemplateError {
                template: template.to_owned(),
                at: 0,
                message: "it cannot be matched (please report this template)".into(),
            });
        }
        Ok(parsed)
    }

    pub(crate) fn new(template: &str) -> UriTemplate {
        let mut pattern = String::from("^");
        let mut expressions = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            pattern.push_str(&escape(&rest[..open]));
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            rest = &rest[open + close + 1..];
            let (operator, list) = match body.chars().next() {
                Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &body[1..]),
                _ => (None, body),
            };
            let variables: Vec<(String, bool)> = list
                .split(',')
                .map(|v| {
                    let v = v.split(':').next().unwrap_or(v);
                    match v.strip_suffix('*') {
                        Some(name) => (name.to_owned(), true),
                        None => (v.to_owned(), false),
                    }
                })
                .collect();
            pattern.push_str(match operator {
                None => "([^/?#&]*)",
                Some('+') => "([^?#]*)",
                Some('#') => "(#.*)?",
                Some('.') => "((?:\\.[^/?#]*)?)",
                Some('/') => "((?:/[^/?#]*)*)",
                Some(';') => "((?:;[^/?#]*)*)",
                Some('?') => "(\\?[^#]*)?",
                _ => "(&[^#]*)?",
            });
            expressions.push(Expression {
                operator,
                variables,
            });
        }
        pattern.push_str(&escape(rest));
        pattern.push('$');
        UriTemplate {
            regex: regress::Regex::new(&pattern).ok(),
            expressions,
        }
    }

    /// The variables of `uri`, when it fits: strings, and arrays for exploded variables.
    pub(crate) fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        let found = self.regex.as_ref()?.find(uri)?;
        let mut variables = Map::new();
        for (i, expression) in self.expressions.iter().enumerate() {
            let Some(range) = found.group(i + 1) else {
                continue;
            };
            expression.read(&uri[range], &mut variables);
        }
        Some(variables)
    }
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
impl Expression {
    fn read(&self, text: &str, into: &mut Map<String, Value>) {
        let (prefix, separator, named) = match self.operator {
            None | Some('+') => ("", ',', false),
            Some('#') => ("#", ',', false),
            Some('.') => (".", '.', false),
            Some('/') => ("/", '/', false),
            Some(';') => (";", ';', true),
            Some('?') => ("?", '&', true),
            _ => ("&", '&', true),
        };
        let Some(text) = text.strip_prefix(prefix) else {
            return;
        };
        if text.is_empty() && prefix.is_empty() && self.variables.len() == 1 {
            into.insert(self.variables[0].0.clone(), Value::String(String::new()));
            return;
        }
        if named {
            for pair in text.split(separator).filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let key = decode(key);
                let value = Value::String(decode(value));
                let exploded = self
                    .variables
                    .iter()
                    .any(|(name, explode)| *explode && *name == key);
                match into.get_mut(&key) {
                    Some(Value::Array(values)) if exploded => values.push(value),
                    _ if exploded => {
                        into.insert(key, Value::Array(vec![value]));
                    }
                    _ => {
                        into.insert(key, value);
                    }
                }
            }
            return;
        }
        let pieces: Vec<String> =
            if self.variables.len() == 1 && !self.variables[0].1 && separator == ',' {
                vec![decode(text)]
            } else {
                text.split(separator).map(decode).collect()
            };
        if let [(name, true)] = self.variables.as_slice() {
            into.insert(
                name.clone(),
                Value::Array(pieces.into_iter().map(Value::String).collect()),
            );
            return;
        }
        for ((name, _), piece) in self.variables.iter().zip(pieces) {
            into.insert(name.clone(), Value::String(piece));
        }
    }
}

/// `text` with the regex syntax characters escaped.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Percent-decoding; text whose escapes are not valid `%XX` UTF-8 is kept as written.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
fn decode(text: &str) -> String {
    mcp_bindgen_core::pointer::percent_decode(text)
        .map_or_else(|| text.to_owned(), std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests;
