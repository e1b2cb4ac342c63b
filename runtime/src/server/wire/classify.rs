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
    let claims_modern = claim.and_then(Text::as_str).is_some_and(era::is_modern);
    if request.method == "initialize" && !claims_modern {
        if header_modern {
            return Err(mismatch(
                id,
                "an initialize request (legacy handshake) came with a 2026-07-28 \
                 MCP-Protocol-Version header"
                    .into(),
            ));
        }
        return Ok(Era::Session);
    }
    let Some(claim) = claim else {
        return unclaimed(request, header_version);
    };
    let Some(meta) = meta else {
        return Ok(Era::Session);
    };
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
        return Err(mismatch(
            id,
            format!(
                "_meta names protocol version {version} but the MCP-Protocol-Version header \
                 names {header}"
            ),
        ));
    }
    if !era::is_modern(version) {
        if era::is_supported(version) {
            return Ok(Era::Session);
        }
        return Err(unsupported(id, version));
    }
    if let Some(headers) = headers {
        check_headers(request, headers)?;
    }
    Ok(Era::Stateless)
}

/// `-32020`: a header and the body disagree.
fn mismatch(id: &Value, what: String) -> Rejection {
    Rejection::new(
        id,
        era::code::HEADER_MISMATCH,
        format!("Bad Request: the request headers and body disagree: {what}"),
    )
}

/// A request whose `_meta` names no protocol version: legacy, unless the headers or the
/// method say 2026-07-28 (then `-32602` naming what is missing), or the header names a version
/// this server does not support.
fn unclaimed(request: &Request, header_version: Option<&str>) -> Result<Era, Rejection> {
    let meta = request.params.meta.as_ref();
    if header_version.is_some_and(era::is_modern) || request.method == "server/discover" {
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
            &request.id,
            -32602,
            format!(
                "Invalid params: a {} request needs params._meta with {} and {}; missing: \
                 {missing}",
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
        return Err(unsupported(&request.id, version));
    }
    Ok(Era::Session)
}

/// 2026-07-28 over HTTP: the version header is present, `Mcp-Method` names the body's
/// method, and `Mcp-Name` the member the method mirrors ([`era::header::name_member`]).
fn check_headers(request: &Request, headers: &Headers) -> Result<(), Rejection> {
    let id = &request.id;
    if headers.version.is_none() {
        return Err(mismatch(
            id,
            "the MCP-Protocol-Version header is required on every request".into(),
        ));
    }
    let method = &request.method;
    match headers.method.as_deref() {
        None => {
            return Err(mismatch(
                id,
                format!("the body names method {method} but the Mcp-Method header is absent"),
            ));
        }
        Some(m) if m != method => {
            return Err(mismatch(
                id,
                format!("the body names method {method} but the Mcp-Method header names {m}"),
            ));
        }
        Some(_) => {}
    }
    let params = &request.params;
    let Some(member) = era::header::name_member(method) else {
        return Ok(());
    };
    let body = match member {
        "name" => params.name.as_ref().and_then(Text::as_str),
        "uri" => params.uri.as_deref().and_then(Value::as_str),
        _ => params
            .rare
            .as_deref()
            .and_then(|r| r.task_id.as_ref())
            .and_then(Value::as_str),
    };
    let Some(body) = body else {
        return Ok(());
    };
    match headers.name.as_deref().map(era::header_value::decode) {
        None => Err(mismatch(
            id,
            format!("the body carries params.{member}={body:?} but the Mcp-Name header is absent"),
        )),
        Some(None) => Err(mismatch(
            id,
            "the Mcp-Name header carries an invalid =?base64?...?= value".into(),
        )),
        Some(Some(name)) if name != body => Err(mismatch(
            id,
            format!(
                "the body carries params.{member}={body:?} but the Mcp-Name header names \
                 {name:?}"
            ),
        )),
        Some(Some(_)) => Ok(()),
    }
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
