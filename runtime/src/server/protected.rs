//! The server as an OAuth 2.1 resource server (the MCP authorization spec's server side): it
//! publishes its protected resource metadata (RFC 9728), naming the authorization server that
//! issues its tokens, and accepts a request whose bearer token the application vouches for.

use std::sync::Arc;

use http::{HeaderMap, HeaderValue, header};

/// What protects a server with OAuth: the authorization server that issues its tokens, the
/// scopes it knows, and the check of a token. Hand it to
/// [`ServerBuilder::oauth`](super::ServerBuilder::oauth).
///
/// The server then publishes its protected resource metadata at
/// `/.well-known/oauth-protected-resource{path}` (and at `/.well-known/oauth-protected-resource`),
/// with `resource` the endpoint's URL as the client addressed it (`http://127.0.0.1:7100/mcp`,
/// or `localhost`), and answers a request without a token, or with one the check refuses,
/// `401` with `WWW-Authenticate: Bearer resource_metadata="…"` (plus `error="invalid_token"` when
/// a token was refused, and `scope` when scopes are set): what an MCP client needs to sign in
/// (`mcp_bindgen::oauth`, or any SDK's) and send the request again.
///
/// The check gets the token and answers who it speaks for (`Some(subject)`) or that it is not
/// accepted (`None`: unknown, expired, revoked, issued for another resource, or missing a scope
/// the server needs). The subject owns the tasks its requests make, so a refreshed token still
/// finds them. The check runs on the server's HTTP thread for every request: keep it quick (a
/// lookup, a signature), not a network round trip per request.
///
/// ```
/// use mcp_bindgen::server::{ProtectedResource, ServerBuilder};
///
/// let protect = ProtectedResource::new("https://auth.example.com", |token: &str| {
///     // A real check looks the token up, or verifies its signature, audience and expiry.
///     (token == "a-token-the-authorization-server-issued").then(|| "player-1".to_owned())
/// })
/// .scope("game");
/// let builder = ServerBuilder::new().port(0).oauth(protect);
/// # let _ = builder;
/// ```
#[derive(Clone)]
pub struct ProtectedResource {
    authorization_servers: Vec<String>,
    scopes: Vec<String>,
    name: Option<String>,
    check: Arc<TokenCheck>,
}

/// The application's check of a bearer token: who it speaks for, or `None`.
type TokenCheck = dyn Fn(&str) -> Option<String> + Send + Sync;

impl std::fmt::Debug for ProtectedResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtectedResource")
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes", &self.scopes)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ProtectedResource {
    /// Tokens issued by `authorization_server` (its issuer URL, whose
    /// `/.well-known/oauth-authorization-server` clients read), accepted when `check` names
    /// who they speak for.
    pub fn new(
        authorization_server: impl Into<String>,
        check: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        ProtectedResource {
            authorization_servers: vec![authorization_server.into()],
            scopes: Vec::new(),
            name: None,
            check: Arc::new(check),
        }
    }

    /// Another authorization server whose tokens `check` accepts (listed after the first).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// A scope the server knows: listed in the metadata's `scopes_supported` and in the
    /// challenge's `scope`, which a client asks for when it signs in. A scope is an RFC 6749
    /// scope token (visible ASCII but `"` and `\`, no blank); one that is not is left out of
    /// the challenge, where it could not be quoted, and stays in the metadata.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// The name a client may show a person (`resource_name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Who the request's `Authorization: Bearer` token speaks for; `Err(true)` when it carries
    /// a token the check refused, `Err(false)` when it carries none.
    pub(super) fn subject(&self, headers: &HeaderMap) -> Result<String, bool> {
        let token = bearer(headers).ok_or(false)?;
        (self.check)(token).ok_or(true)
    }

    /// Whether `path` is where this server's metadata is published, for the endpoint at
    /// `endpoint`.
    pub(super) fn is_metadata_path(path: &str, endpoint: &str) -> bool {
        let Some(rest) = path.strip_prefix(WELL_KNOWN) else {
            return false;
        };
        rest.is_empty() || rest == "/" || rest == endpoint
    }

    /// The protected resource metadata document for the endpoint at `origin` + `endpoint`.
    pub(super) fn metadata(&self, origin: &str, endpoint: &str) -> String {
        let mut document = serde_json::json!({
            "resource": format!("{origin}{endpoint}"),
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes.is_empty() {
            document["scopes_supported"] = self.scopes.clone().into();
        }
        if let Some(name) = &self.name {
            document["resource_name"] = name.clone().into();
        }
        document.to_string()
    }

    /// The `WWW-Authenticate` value of a 401: where the metadata is, and why the request was
    /// refused.
    pub(super) fn challenge(&self, origin: &str, endpoint: &str, refused: bool) -> HeaderValue {
        let mut value = format!("Bearer resource_metadata=\"{origin}{WELL_KNOWN}{endpoint}\"");
        let tokens: Vec<&str> = self
            .scopes
            .iter()
            .map(String::as_str)
            .filter(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
            })
            .collect();
        if !tokens.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", tokens.join(" ")));
        }
        if refused {
            value.push_str(
                ", error=\"invalid_token\", error_description=\"the token is not accepted\"",
            );
        }
        // Built from the request's loopback Host and the configured path and scopes; a value
        // that is no header text (a scope with a control character) gets the bare challenge.
        HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("Bearer"))
    }
}

/// Where RFC 9728 publishes the metadata (the endpoint's path follows).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The token an `Authorization: Bearer` header carries (the scheme in any case, RFC 7235), for
/// the OAuth check and for the server's static bearer tokens alike.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests;
