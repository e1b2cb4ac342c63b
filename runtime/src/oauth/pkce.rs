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

/// A client assertion for `private_key_jwt` (RFC 7523): a JWT signed with the client's key,
/// `ES256` (P-256, the signature as r||s) or `RS256`, from a PKCS#8 PEM private key. ring
/// signs; this only writes the JWS compact form around its signature.
pub(super) fn client_assertion(
    algorithm: &str,
    private_key_pem: &[u8],
    claims: &serde_json::Value,
) -> Result<String, Error> {
    use rustls::pki_types::PrivatePkcs8KeyDer;
    use rustls::pki_types::pem::PemObject;
    let fail = |what: String| Error::Auth {
        status: None,
        message: format!("OAuth private_key_jwt: {what}"),
        www_authenticate: None,
    };
    let key = PrivatePkcs8KeyDer::from_pem_slice(private_key_pem)
        .map_err(|e| fail(format!("the private key is not a PKCS#8 PEM key ({e})")))?;
    let header = serde_json::json!({"alg": algorithm, "typ": "JWT"});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let rng = ring::rand::SystemRandom::new();
    let signature = match algorithm {
        "ES256" => {
            let pair = ring::signature::EcdsaKeyPair::from_pkcs8(
                &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                key.secret_pkcs8_der(),
                &rng,
            )
            .map_err(|e| fail(format!("not a P-256 key for ES256 ({e})")))?;
            pair.sign(&rng, input.as_bytes())
                .map_err(|_| fail("signing failed".to_owned()))?
                .as_ref()
                .to_vec()
        }
        "RS256" => {
            let pair = ring::signature::RsaKeyPair::from_pkcs8(key.secret_pkcs8_der())
                .map_err(|e| fail(format!("not an RSA key for RS256 ({e})")))?;
            let mut signature = vec![0; pair.public().modulus_len()];
            pair.sign(
                &ring::signature::RSA_PKCS1_SHA256,
                &rng,
                input.as_bytes(),
                &mut signature,
            )
            .map_err(|_| fail("signing failed".to_owned()))?;
            signature
        }
        other => {
            return Err(fail(format!(
                "the algorithm {other:?} is not supported (ES256 or RS256)"
            )));
        }
    };
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// Standard base64 (for `client_secret_basic`).
pub(super) fn basic(user: &str, password: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

#[cfg(test)]
mod tests;
