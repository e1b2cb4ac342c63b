//! The JSON Schema dialects a schema may name in `$schema`.

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::error::Error;

/// Dialects a schema may name in `$schema`; anything else is an error (MCP 2025-11-25: "MUST
/// handle unsupported dialects gracefully by returning an appropriate error").
const DIALECTS: &[&str] = &[
    "json-schema.org/draft-04/schema",
    "json-schema.org/draft-06/schema",
    "json-schema.org/draft-07/schema",
    "json-schema.org/draft/2019-09/schema",
    "json-schema.org/draft/2020-12/schema",
];

/// An unknown `$schema` dialect is an error (MCP 2025-11-25: "MUST handle unsupported dialects
/// gracefully by returning an appropriate error"), whether or not the schema has properties.
pub(crate) fn check(
    schema: &Value,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Result<(), Error> {
    if let Some(dialect) = schema.get("$schema") {
        let known = dialect.as_str().is_some_and(|d| {
            DIALECTS
                .iter()
                .any(|k| d.trim_end_matches('#').ends_with(k))
        });
        if !known {
            return Err(Error::from(diag(
                "/$schema",
                format!("unsupported JSON Schema dialect {dialect}"),
                "MCP schemas are JSON Schema 2020-12 unless they say otherwise; draft-04, -06, -07 and 2019-09 are also read. Remove \"$schema\" or name one of those",
            )));
        }
    }
    Ok(())
}
