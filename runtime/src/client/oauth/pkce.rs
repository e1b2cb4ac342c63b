//! The random values of an authorization: the PKCE verifier and its S256 challenge (RFC 7636),
//! and `state`. The cryptography is ring's (already linked for TLS): its system random source
//! and SHA-256.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SecureRandom as _;

use crate::Error;

/// `n` random bytes, base64url without padding.
pub(super) fn random_token(n: usize) -> Result<String, Error> {
    let mut bytes = vec![0u8; n];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Auth {
            status: None,
            message: "OAuth: the system's random source failed".to_owned(),
            www_authenticate: None,
        })?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A PKCE pair: the verifier (43 characters of base64url from 32 random bytes) and its
/// `S256` challenge.
pub(super) struct Pkce {
    pub(super) verifier: String,
    pub(super) challenge: String,
}

impl Pkce {
    pub(super) fn new() -> Result<Self, Error> {
        let verifier = random_token(32)?;
        let challenge = challenge_of(&verifier);
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

/// `BASE64URL(SHA256(verifier))`.
pub(super) fn challenge_of(verifier: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// Standard base64 (for `client_secret_basic`).
pub(super) fn basic(user: &str, password: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected value computed independently (Python's `hashlib.sha256` and
    /// `base64.urlsafe_b64encode`, padding stripped).
    #[test]
    fn s256_is_base64url_of_sha256() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWjOEjXk"),
            "VYFANLqdx_HDV6BqEhluZJ63rtrIPROSSFdB3P6G83I"
        );
    }

    #[test]
    fn verifiers_are_long_enough_and_differ() {
        let (a, b) = (Pkce::new().unwrap(), Pkce::new().unwrap());
        assert_eq!(a.verifier.len(), 43);
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.challenge, challenge_of(&a.verifier));
    }
}
