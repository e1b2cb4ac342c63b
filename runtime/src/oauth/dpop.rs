//! DPoP (RFC 9449): tokens bound to a key of the client's. Every request that carries such a
//! token, and every token request that asks for one, carries a proof: a JWT signed with the
//! key (ES256, ring's P-256), naming the request's method and URL, when it was made, a value
//! never used before (`jti`), the token's hash (`ath`, at the MCP server) and the server's
//! nonce when it gave one. A token that leaks is of no use without the key; the key is kept
//! with the tokens in the [`TokenStore`](super::TokenStore) so that a second process reuses
//! both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Url;
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::json;

use super::{Secret, auth_error, now};
use crate::Error;

/// Whether the client binds its tokens to a key of its own (DPoP, RFC 9449), for
/// [`OAuth::dpop`](super::OAuth::dpop). Whatever the setting, tokens that were issued bound
/// (a stored token, a refresh) are always sent with their proofs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Dpop {
    /// When the authorization server lists `ES256` in `dpop_signing_alg_values_supported`, or,
    /// when its metadata lists no algorithms, the MCP server's challenge uses the `DPoP`
    /// scheme (the default). A server that issues a Bearer token anyway is taken at its word.
    #[default]
    WhenOffered,
    /// Always: a token request carries a proof, and an authorization server that issues a
    /// Bearer token, or that lists proof algorithms without `ES256`, is an
    /// [`Error::Auth`](crate::Error::Auth).
    Required,
    /// Never: Bearer tokens only.
    Off,
}

/// A P-256 key pair, with what every proof repeats (its JOSE header, already encoded).
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    /// The PKCS#8 document, base64url: what the token store keeps.
    stored: Secret,
    /// `base64url({"typ":"dpop+jwt","alg":"ES256","jwk":{...}})`.
    header: String,
    /// The public key's RFC 7638 thumbprint (what a bound token's `cnf.jkt` names).
    thumbprint: String,
    rng: SystemRandom,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("jkt", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

fn key_error(what: &str) -> Error {
    auth_error(format!("OAuth DPoP: {what}"))
}

impl DpopKey {
    /// A new key from the system's random source.
    pub(crate) fn generate() -> Result<Self, Error> {
        let rng = SystemRandom::new();
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| key_error("the system's random source failed to make a key"))?;
        Self::from_pkcs8(document.as_ref(), rng)
    }

    /// The key a token store kept (see [`DpopKey::stored`]).
    pub(crate) fn from_stored(stored: &Secret) -> Result<Self, Error> {
        let der = URL_SAFE_NO_PAD
            .decode(stored.expose())
            .map_err(|_| key_error("the stored key is not base64url"))?;
        Self::from_pkcs8(&der, SystemRandom::new())
    }

    fn from_pkcs8(der: &[u8], rng: SystemRandom) -> Result<Self, Error> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
            .map_err(|_| key_error("the stored key is not a P-256 PKCS#8 key"))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        let (x, y) = point
            .get(1..)
            .filter(|xy| point.first() == Some(&4) && xy.len() == 64)
            .map(|xy| xy.split_at(32))
            .ok_or_else(|| key_error("the public key is not an uncompressed P-256 point"))?;
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        // RFC 7638: the required members only, in lexicographic order, no whitespace.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let thumbprint = sha256(&canonical);
        let header = json!({
            "typ": "dpop+jwt",
            "alg": "ES256",
            "jwk": {"kty": "EC", "crv": "P-256", "x": x, "y": y},
        });
        Ok(DpopKey {
            pair,
            stored: Secret::new(URL_SAFE_NO_PAD.encode(der)),
            header: URL_SAFE_NO_PAD.encode(header.to_string()),
            thumbprint,
            rng,
        })
    }

    /// The private key as the token store keeps it (PKCS#8, base64url).
    pub(crate) fn stored(&self) -> &Secret {
        &self.stored
    }

    /// A proof for one request: `method` to `url` (its query and fragment left out), with the
    /// hash of the `access_token` it carries and the server's `nonce`, when there are.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, Error> {
        let mut jti = [0u8; 16];
        self.rng
            .fill(&mut jti)
            .map_err(|_| key_error("the system's random source failed"))?;
        // The claims written as text (no JSON tree to build): the method, URL and nonce are
        // escaped as JSON strings; the rest is base64url and digits.
        let text = |value: &str| {
            serde_json::to_string(value).map_err(|_| key_error("a claim is not JSON text"))
        };
        let mut claims = String::with_capacity(256);
        claims.push_str(r#"{"jti":""#);
        URL_SAFE_NO_PAD.encode_string(jti, &mut claims);
        claims.push_str(r#"","htm":"#);
        claims.push_str(&text(method)?);
        claims.push_str(r#","htu":"#);
        claims.push_str(&text(&htu(url))?);
        claims.push_str(&format!(r#","iat":{}"#, now()));
        if let Some(token) = access_token {
            claims.push_str(r#","ath":""#);
            claims.push_str(&sha256(token));
            claims.push('"');
        }
        if let Some(nonce) = nonce {
            claims.push_str(r#","nonce":"#);
            claims.push_str(&text(nonce)?);
        }
        claims.push('}');
        let mut proof = String::with_capacity(self.header.len() + claims.len() * 4 / 3 + 100);
        proof.push_str(&self.header);
        proof.push('.');
        URL_SAFE_NO_PAD.encode_string(claims, &mut proof);
        let signature = self
            .pair
            .sign(&self.rng, proof.as_bytes())
            .map_err(|_| key_error("signing the proof failed"))?;
        proof.push('.');
        URL_SAFE_NO_PAD.encode_string(signature.as_ref(), &mut proof);
        Ok(proof)
    }
}

/// How long a proof signed ahead may wait for its request: its `iat` stays this close to when
/// it is sent (servers accept a window of seconds to minutes).
const PRESIGNED_FOR: Duration = Duration::from_secs(2);

/// One proof signed ahead for the next POST to the MCP server, so that a signature (some 17 µs
/// of a loopback call's 125 on the 2-core bench machine) is made on another thread while the
/// request that took the last one waits for its answer, not before the next one leaves. Taken once (its `jti` is never sent twice); of use only for the
/// same token and nonce and within [`PRESIGNED_FOR`]; at most one is being signed at a time.
#[derive(Default)]
pub(crate) struct Presigned {
    slot: Mutex<Option<Spare>>,
    signing: AtomicBool,
}

struct Spare {
    proof: String,
    token: Arc<str>,
    nonce: Option<Arc<str>>,
    made: Instant,
}

impl Presigned {
    /// The proof signed ahead for a POST with `token` and `nonce`, if it still fits.
    pub(crate) fn take(&self, token: &str, nonce: Option<&str>) -> Option<String> {
        let spare = crate::client::lock(&self.slot).take()?;
        (&*spare.token == token
            && spare.nonce.as_deref() == nonce
            && spare.made.elapsed() < PRESIGNED_FOR)
            .then_some(spare.proof)
    }

    /// Whether this caller is to sign the next one (no one else is).
    pub(crate) fn start(&self) -> bool {
        !self.signing.swap(true, Ordering::AcqRel)
    }

    /// Signs the next proof for a POST to `url` with `token` (after [`Presigned::start`]).
    pub(crate) fn fill(&self, key: &DpopKey, url: &str, token: Arc<str>, nonce: Option<Arc<str>>) {
        let made = Instant::now();
        if let Ok(proof) = key.proof("POST", url, Some(&token), nonce.as_deref()) {
            *crate::client::lock(&self.slot) = Some(Spare {
                proof,
                token,
                nonce,
                made,
            });
        }
        self.signing.store(false, Ordering::Release);
    }
}

/// `base64url(SHA-256(text))`: a token's `ath`, a key's thumbprint.
fn sha256(text: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()))
}

/// A proof's `htu`: the URL without its query and fragment (RFC 9449 section 4.2).
fn htu(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut url) => {
            url.set_query(None);
            url.set_fragment(None);
            url.into()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &str) -> serde_json::Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("JSON")
    }

    #[test]
    fn a_proof_names_the_request_and_verifies_with_the_key_it_carries() {
        let key = DpopKey::generate().expect("key");
        let proof = key
            .proof(
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some("tok"),
                Some("n-1"),
            )
            .expect("proof");
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(
            header["jwk"].get("d").is_none(),
            "the private part stays home"
        );
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(claims["ath"], sha256("tok"));
        let mut point = vec![4u8];
        for axis in ["x", "y"] {
            let coordinate = header["jwk"][axis].as_str().expect("coordinate");
            point.extend(URL_SAFE_NO_PAD.decode(coordinate).expect("base64url"));
        }
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).expect("base64url");
        ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("the signature verifies with the jwk");
        let again = key.proof("POST", "https://mcp.example/mcp", None, None);
        let again = decode(again.expect("proof").split('.').nth(1).expect("claims"));
        assert_ne!(again["jti"], claims["jti"], "a new jti for every proof");
        assert!(again.get("ath").is_none() && again.get("nonce").is_none());
        // What a server sends is escaped, not spliced into the JSON.
        let odd = key.proof("GET", "https://mcp.example/a", None, Some("n\"},\"x\":\"1"));
        let odd = decode(odd.expect("proof").split('.').nth(1).expect("claims"));
        assert_eq!(odd["nonce"], "n\"},\"x\":\"1");
        assert!(odd.get("x").is_none());
        assert!(odd["iat"].as_u64().is_some_and(|iat| iat + 60 > now()));
    }

    #[test]
    fn a_stored_key_is_the_same_key() {
        let key = DpopKey::generate().expect("key");
        let again = DpopKey::from_stored(key.stored()).expect("reads");
        assert_eq!(key.thumbprint, again.thumbprint);
        assert_eq!(key.header, again.header);
        assert!(!format!("{key:?}").contains(key.stored().expose()));
        assert!(DpopKey::from_stored(&Secret::new("not-a-key")).is_err());
    }
}
