//! Discovery: the server's challenge (`WWW-Authenticate`), its protected resource metadata
//! (RFC 9728) and its authorization server's metadata (RFC 8414, OpenID Connect Discovery), in
//! the order the MCP authorization spec gives, with the checks it asks for.

use reqwest::Url;
use serde_json::Value;

use super::{auth_error, fetch_json};

/// The `Bearer` or `DPoP` challenge of a `WWW-Authenticate` header (as in [`Error::Auth`]'s
/// `www_authenticate`): what the client's sign-in reads, and what a tool can show a person.
///
/// [`Error::Auth`]: crate::Error::Auth
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Challenge {
    /// `resource_metadata`: where the server's protected resource metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the server asks for.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ...
    pub error: Option<String>,
    /// Whether the server offered the `DPoP` scheme (RFC 9449): it accepts, or requires,
    /// tokens bound to a key of the client's.
    pub dpop: bool,
}

impl Challenge {
    /// Reads the parameters of the `Bearer` and `DPoP` challenges (quoted or bare values; other
    /// schemes and unknown parameters ignored; where both schemes give one, the later wins).
    /// `None` when there is neither.
    pub fn parse(header: &str) -> Option<Challenge> {
        let mut rest = header.trim();
        let mut challenge: Option<Challenge> = None;
        let mut in_bearer = false;
        while !rest.is_empty() {
            rest = rest.trim_start_matches([' ', ',', '\t']);
            // A token: a scheme, or a parameter's name.
            let end = rest.find(['=', ' ', ',']).unwrap_or(rest.len());
            let (word, after) = rest.split_at(end);
            if word.is_empty() {
                break;
            }
            let after_trimmed = after.trim_start();
            if let Some(value_part) = after_trimmed.strip_prefix('=') {
                let value_part = value_part.trim_start();
                let (value, remaining) = if let Some(quoted) = value_part.strip_prefix('"') {
                    let mut value = String::new();
                    let mut chars = quoted.char_indices();
                    let mut consumed = quoted.len();
                    while let Some((i, c)) = chars.next() {
                        match c {
                            '\\' => {
                                if let Some((_, escaped)) = chars.next() {
                                    value.push(escaped);
                                }
                            }
                            '"' => {
                                consumed = i + 1;
                                break;
                            }
                            c => value.push(c),
                        }
                    }
                    (value, &quoted[consumed.min(quoted.len())..])
                } else {
                    let end = value_part.find([',', ' ']).unwrap_or(value_part.len());
                    (value_part[..end].to_owned(), &value_part[end..])
                };
                if in_bearer && let Some(c) = challenge.as_mut() {
                    match word.to_ascii_lowercase().as_str() {
                        "resource_metadata" => c.resource_metadata = Some(value),
                        "scope" => c.scope = Some(value),
                        "error" => c.error = Some(value),
                        _ => {}
                    }
                }
                rest = remaining;
            } else {
                // A scheme starts a new challenge.
                let dpop = word.eq_ignore_ascii_case("dpop");
                in_bearer = dpop || word.eq_ignore_ascii_case("bearer");
                if in_bearer {
                    let found = challenge.get_or_insert_with(Challenge::default);
                    found.dpop |= dpop;
                }
                rest = after;
            }
        }
        challenge
    }
}

/// The protected resource metadata URLs to try for `server`, in order: the challenge's alone
/// when it names one; else the well-known location with the server's path, then the root.
pub(crate) fn resource_metadata_urls(server: &Url, challenge: Option<&Challenge>) -> Vec<Url> {
    let mut urls = Vec::new();
    if let Some(url) = challenge
        .and_then(|c| c.resource_metadata.as_deref())
        .and_then(|u| server.join(u).ok())
    {
        return vec![url];
    }
    let path = server.path().trim_end_matches('/');
    for suffix in [path, ""] {
        let mut url = server.clone();
        url.set_path(&format!("/.well-known/oauth-protected-resource{suffix}"));
        url.set_query(None);
        url.set_fragment(None);
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    urls
}

/// The authorization server metadata URLs to try for `issuer`, in the spec's order: with a
/// path, OAuth with the path inserted, OpenID with the path inserted, OpenID with the path
/// appended; without one, OAuth then OpenID at the root.
pub(crate) fn authorization_server_urls(issuer: &Url) -> Vec<Url> {
    // An issuer with a path never has its metadata at the root (that would be another
    // issuer's).
    let path = issuer.path().trim_end_matches('/');
    let at = |p: String| {
        let mut url = issuer.clone();
        url.set_path(&p);
        url.set_query(None);
        url.set_fragment(None);
        url
    };
    if path.is_empty() {
        vec![
            at("/.well-known/oauth-authorization-server".to_owned()),
            at("/.well-known/openid-configuration".to_owned()),
        ]
    } else {
        vec![
            at(format!("/.well-known/oauth-authorization-server{path}")),
            at(format!("/.well-known/openid-configuration{path}")),
            at(format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// What the resource metadata says.
#[derive(Debug, Clone)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: Option<String>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// What the authorization server metadata says (the fields the client uses).
#[derive(Debug, Clone)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) token_endpoint_auth_methods: Option<Vec<String>>,
    pub(crate) code_challenge_methods: Option<Vec<String>>,
    pub(crate) cimd_supported: bool,
    pub(crate) iss_parameter_supported: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449): the proof algorithms it accepts.
    pub(crate) dpop_algorithms: Option<Vec<String>>,
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value.as_array().map(|items| {
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// Fetches the protected resource metadata from the first of `urls` that has it; `None` when
/// none does (a server of the 2025-03-26 revision, whose own origin is its authorization
/// server).
pub(crate) async fn resource_metadata(
    http: &reqwest::Client,
    urls: &[Url],
) -> Result<Option<(Url, ResourceMetadata)>, crate::Error> {
    for url in urls {
        let Some(document) = fetch_json(http, url).await? else {
            continue;
        };
        return Ok(Some((
            url.clone(),
            ResourceMetadata {
                resource: document["resource"].as_str().map(str::to_owned),
                authorization_servers: strings(&document["authorization_servers"])
                    .unwrap_or_default(),
                scopes_supported: strings(&document["scopes_supported"]),
            },
        )));
    }
    Ok(None)
}

/// Fetches the authorization server metadata of `issuer` (as the resource metadata wrote it)
/// from the first URL that has it, and checks that its `issuer` is exactly that string (RFC
/// 8414 section 3.3: no normalisation). `None` when no URL has it.
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<Option<ServerMetadata>, crate::Error> {
    let parsed = Url::parse(issuer).map_err(|e| {
        auth_error(format!(
            "OAuth discovery: the authorization server {issuer:?} is not a URL ({e})"
        ))
    })?;
    for url in authorization_server_urls(&parsed) {
        let Some(document) = fetch_json(http, &url).await? else {
            continue;
        };
        let stated = document["issuer"].as_str().unwrap_or("");
        if stated != issuer {
            return Err(auth_error(format!(
                "OAuth discovery: the authorization server metadata at {url} names the issuer \
                 {stated:?}, not {issuer:?} (RFC 8414 requires them to be the same string)"
            )));
        }
        let Some(token_endpoint) = document["token_endpoint"].as_str() else {
            return Err(auth_error(format!(
                "OAuth discovery: the authorization server metadata at {url} has no \
                 token_endpoint"
            )));
        };
        return Ok(Some(ServerMetadata {
            issuer: stated.to_owned(),
            authorization_endpoint: document["authorization_endpoint"]
                .as_str()
                .map(str::to_owned),
            token_endpoint: token_endpoint.to_owned(),
            registration_endpoint: document["registration_endpoint"]
                .as_str()
                .map(str::to_owned),
            scopes_supported: strings(&document["scopes_supported"]),
            token_endpoint_auth_methods: strings(
                &document["token_endpoint_auth_methods_supported"],
            ),
            code_challenge_methods: strings(&document["code_challenge_methods_supported"]),
            cimd_supported: document["client_id_metadata_document_supported"] == true,
            iss_parameter_supported: document["authorization_response_iss_parameter_supported"]
                == true,
            dpop_algorithms: strings(&document["dpop_signing_alg_values_supported"]),
        }));
    }
    Ok(None)
}

/// Whether the resource the metadata names covers `server` (RFC 9728 section 3.3 and RFC
/// 8707): the same origin, and a path that is the server's or a parent of it.
pub(crate) fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str().map(str::to_ascii_lowercase)
            != server.host_str().map(str::to_ascii_lowercase)
        || resource.port_or_known_default() != server.port_or_known_default()
    {
        return false;
    }
    let wanted = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    path == wanted || path.starts_with(&format!("{wanted}/")) || wanted.is_empty()
}

#[cfg(test)]
mod tests;
