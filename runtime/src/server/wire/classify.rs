//! Which protocol era a request belongs to, from its `params._meta` and (over HTTP) its
//! `Mcp-*` headers, and whether the two agree.

use serde_json::Value;

use super::frame::{Capabilities, Rejection, Request, Text};
use crate::era::{self, Era};

/// The `Mcp-*` headers of an HTTP request, for the era checks (`None` over stdio).
#[derive(Debug, Default)]
pub(crate) struct Headers {
    pub version: Option<String>,
    pub method: Option<String>,
    pub name: Option<String>,
    /// `Mcp-Param-*` headers: the lowercase suffix and the raw value.
    pub params: Vec<(String, String)>,
}

/// Which era a request belongs to, and whether its `_meta` and headers are consistent
/// (`basic/versioning.mdx`, `basic/transports/streamable-http.mdx` of 2026-07-28). Errors are
/// answered with HTTP 400.
pub(crate) fn classify(request: &Request, headers: Option<&Headers>) -> Result<Era, Rejection> {
    let id = &request.id;
    let meta = request.params.meta.as_ref();
    let claim = meta.and_then(|m| m.protocol_version.as_ref());
    let header_version = headers.and_then(|h| h.version.as_deref());
    let header_modern = header_version.is_some_and(era::is_modern);
    let mismatch = |what: String| {
        Rejection::new(
            id,
            era::code::HEADER_MISMATCH,
            format!("Bad Request: the request headers and body disagree: {what}"),
        )
    };
    let claims_modern = claim.and_then(Text::as_str).is_some_and(era::is_modern);
    if request.method == "initialize" && !claims_modern {
        if header_modern {
            return Err(mismatch(
                "an initialize request (legacy handshake) came with a 2026-07-28 \
                 MCP-Protocol-Version header"
                    .into(),
            ));
        }
        return Ok(Era::Legacy);
    }
    let Some(claim) = claim else {
        if header_modern || request.method == "server/discover" {
            let missing = match meta {
                None => "_meta".to_owned(),
                Some(m) if m.capabilities.is_none() => format!(
                    "{}, {}",
                    era::meta::PROTOCOL_VERSION,
                    era::meta::CLIENT_CAPABILITIES
                ),
                Some(_) => era::meta::PROTOCOL_VERSION.to_owned(),
            };
            let mut r = Rejection::new(
                id,
                -32602,
                format!(
                    "Invalid params: a {} request needs params._meta with \
                     {} and {}; missing: {missing}",
                    era::LATEST_MODERN,
                    era::meta::PROTOCOL_VERSION,
                    era::meta::CLIENT_CAPABILITIES
                ),
            );
            r.data = Some(Box::new(serde_json::json!({"missing": missing})));
            return Err(r);
        }
        if let Some(version) = header_version
            && !era::is_supported(version)
        {
            return Err(unsupported(id, version));
        }
        return Ok(Era::Legacy);
    };
    let meta = meta.expect("a claim is in _meta");
    let Some(version) = claim.as_str() else {
        return Err(Rejection::new(
            id,
            -32602,
            format!(
                "Invalid params: _meta[\"{}\"] must be a protocol version string",
                era::meta::PROTOCOL_VERSION
            ),
        ));
    };
    if meta
        .capabilities
        .as_ref()
        .and_then(Capabilities::declared)
        .is_none()
    {
        return Err(Rejection::new(
            id,
            -32602,
            format!(
                "Invalid params: _meta[\"{}\"] is required (an object; {{}} when the client \
                 declares none)",
                era::meta::CLIENT_CAPABILITIES
            ),
        ));
    }
    if let Some(header) = header_version
        && header != version
    {
        return Err(mismatch(format!(
            "_meta names protocol version {version} but the MCP-Protocol-Version header names \
             {header}"
        )));
    }
    if !era::is_modern(version) {
        if era::is_supported(version) {
            return Ok(Era::Legacy);
        }
        return Err(unsupported(id, version));
    }
    if let Some(headers) = headers {
        if header_version.is_none() {
            return Err(mismatch(
                "the MCP-Protocol-Version header is required on every request".into(),
            ));
        }
        match headers.method.as_deref() {
            None => {
                return Err(mismatch(format!(
                    "the body names method {} but the Mcp-Method header is absent",
                    request.method
                )));
            }
            Some(m) if m != request.method => {
                return Err(mismatch(format!(
                    "the body names method {} but the Mcp-Method header names {m}",
                    request.method
                )));
            }
            Some(_) => {}
        }
        let params = &request.params;
        let field = match &*request.method {
            "tools/call" | "prompts/get" => {
                Some(("name", params.name.as_ref().and_then(Text::as_str)))
            }
            "resources/read" => Some(("uri", params.uri.as_deref().and_then(Value::as_str))),
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some((
                "taskId",
                params
                    .rare
                    .as_deref()
                    .and_then(|r| r.task_id.as_ref())
                    .and_then(Value::as_str),
            )),
            _ => None,
        };
        if let Some((field, Some(body))) = field {
            match headers.name.as_deref() {
                None => {
                    return Err(mismatch(format!(
                        "the body carries params.{field}={body:?} but the Mcp-Name header is \
                         absent"
                    )));
                }
                Some(raw) => match era::header_value::decode(raw) {
                    None => {
                        return Err(mismatch(
                            "the Mcp-Name header carries an invalid =?base64?...?= value".into(),
                        ));
                    }
                    Some(name) if name != body => {
                        return Err(mismatch(format!(
                            "the body carries params.{field}={body:?} but the Mcp-Name header \
                             names {name:?}"
                        )));
                    }
                    Some(_) => {}
                },
            }
        }
    }
    Ok(Era::Modern)
}

fn unsupported(id: &Value, requested: &str) -> Rejection {
    let mut r = Rejection::new(
        id,
        era::code::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested:?}; supported: {}",
            era::all_versions().collect::<Vec<_>>().join(", ")
        ),
    );
    r.data = Some(Box::new(serde_json::json!({
        "supported": era::all_versions().collect::<Vec<_>>(),
        "requested": requested,
    })));
    r
}
