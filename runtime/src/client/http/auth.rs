//! The HTTP transport's credentials, as a layer around each request it sends: the
//! `Authorization` header, a token refreshed before it expires, and a request sent again when
//! the server refused its token and OAuth could get a better one (a 401 answered by an
//! authorization or a refresh, a 403 by a step-up, a DPoP nonce asked for). The session above
//! sees only the final answer; the OAuth flow itself is [`crate::oauth`]'s. A token bound to
//! the client's key (DPoP) goes as `Authorization: DPoP` and each request that leaves gets its
//! own proof ([`Credential::prove`], called where the request is sent, so that a request sent
//! twice never repeats a proof).

use std::future::Future;
#[cfg(feature = "oauth")]
use std::sync::Arc;

use reqwest::header::{self, HeaderMap, HeaderValue};

use super::super::Reply;
use crate::Error;

/// What requests carry in `Authorization`.
#[derive(Debug)]
pub(super) enum Credential {
    None,
    /// An API key, a JWT, or a provider's token.
    Static(String),
    /// Tokens obtained, refreshed and replaced by OAuth.
    #[cfg(feature = "oauth")]
    OAuth(Arc<crate::oauth::Auth>),
}

/// How many times one request is sent again with new credentials: a 401 answered by an
/// authorization, one answered with a DPoP nonce, then a 403 answered by a step-up.
#[cfg(feature = "oauth")]
const REAUTHORIZATIONS: usize = 3;

impl Credential {
    /// Sets the `Authorization` of the next request (none without a credential, or before
    /// OAuth has a token).
    pub(super) fn authorize(&self, headers: &mut HeaderMap) {
        let token = match self {
            Credential::None => return,
            Credential::Static(token) => token.as_str(),
            #[cfg(feature = "oauth")]
            Credential::OAuth(auth) => return bearer(headers, auth.bearer().as_ref()),
        };
        set_bearer(headers, token);
    }

    /// Adds the `DPoP` proof of a request of `method` whose `Authorization` carries a bound
    /// token (nothing for any other request). Called for each request as it leaves.
    pub(super) fn prove(&self, headers: &mut HeaderMap, method: &str) -> Result<(), Error> {
        #[cfg(feature = "oauth")]
        if let Credential::OAuth(auth) = self
            && let Some(token) = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("DPoP "))
        {
            let proof = auth.resource_proof(method, token)?;
            if method == "POST" {
                auth.sign_ahead(token);
            }
            let mut value = HeaderValue::from_str(&proof).map_err(|_| {
                Error::transport("OAuth DPoP: the proof is not a header value".to_owned())
            })?;
            value.set_sensitive(true);
            headers.insert(crate::oauth::DPOP, value);
        }
        let _ = (headers, method);
        Ok(())
    }

    /// Notes what an answer's headers tell the credential: the MCP server's DPoP nonce.
    pub(super) fn note(&self, answer: &HeaderMap) {
        #[cfg(feature = "oauth")]
        if let Credential::OAuth(auth) = self
            && let Some(nonce) = answer
                .get(crate::oauth::DPOP_NONCE)
                .and_then(|v| v.to_str().ok())
        {
            auth.note_resource_nonce(nonce);
        }
        let _ = answer;
    }

    /// Brings the token up to date before a request (one about to expire is refreshed);
    /// nothing to do for a static credential, or a fresh token.
    #[cfg(feature = "oauth")]
    async fn prepare(&self, http: &reqwest::Client) -> Result<(), Error> {
        if let Credential::OAuth(auth) = self
            && auth.due()
        {
            return auth.prepare(http).await;
        }
        Ok(())
    }

    /// Sends one request through `send`, handing it `headers` (written with
    /// [`Credential::authorize`]); with OAuth, the token is brought up to date first and, when
    /// the server answers 401 or 403 and new credentials are obtained, the request is sent
    /// again with them (at most [`REAUTHORIZATIONS`] times). Returns the last answer.
    pub(super) async fn send<F, Fut>(
        &self,
        http: &reqwest::Client,
        #[allow(unused_mut)] mut headers: HeaderMap,
        mut send: F,
    ) -> Result<Reply, Error>
    where
        F: FnMut(HeaderMap) -> Fut,
        Fut: Future<Output = Result<Reply, Error>>,
    {
        #[cfg(feature = "oauth")]
        if let Credential::OAuth(auth) = self {
            let mut reauthorized = 0;
            loop {
                self.prepare(http).await?;
                let current = auth.bearer();
                bearer(&mut headers, current.as_ref());
                let reply = send(headers.clone()).await?;
                if let Reply::Refused {
                    status,
                    www_authenticate,
                    ..
                } = &reply
                    && (*status == http::StatusCode::UNAUTHORIZED
                        || *status == http::StatusCode::FORBIDDEN)
                    && reauthorized < REAUTHORIZATIONS
                    && matches!(
                        auth.on_refusal(
                            http,
                            status.as_u16(),
                            www_authenticate.as_deref(),
                            current.map(|b| b.generation),
                        )
                        .await?,
                        crate::oauth::Outcome::Retry
                    )
                {
                    reauthorized += 1;
                    #[cfg(feature = "tracing")]
                    tracing::info!(
                        status = status.as_u16(),
                        "sending the request again with new credentials"
                    );
                    continue;
                }
                return Ok(reply);
            }
        }
        // Nothing to obtain: one request, its headers as written.
        let _ = http;
        send(headers).await
    }
}

/// `Authorization: Bearer {token}`, marked sensitive (never printed by `Debug`).
fn set_bearer(headers: &mut HeaderMap, token: &str) {
    set_authorization(headers, "Bearer", token);
}

/// `Authorization: {scheme} {token}`, marked sensitive.
fn set_authorization(headers: &mut HeaderMap, scheme: &str, token: &str) {
    if let Ok(mut value) = HeaderValue::from_str(&format!("{scheme} {token}")) {
        value.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, value);
    }
}

/// The OAuth token in `headers` (`DPoP` when bound, else `Bearer`), replacing any older one;
/// none before the first sign-in.
#[cfg(feature = "oauth")]
fn bearer(headers: &mut HeaderMap, current: Option<&crate::oauth::Bearer>) {
    match current {
        Some(current) => {
            let scheme = if current.dpop { "DPoP" } else { "Bearer" };
            set_authorization(headers, scheme, &current.token);
        }
        None => {
            headers.remove(header::AUTHORIZATION);
            headers.remove(crate::oauth::DPOP);
        }
    }
}
