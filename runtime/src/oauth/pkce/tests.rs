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

/// An ES256 assertion verifies with the key's public half, and carries the claims.
#[test]
fn es256_assertions_verify() {
    use ring::signature::KeyPair;
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &rng,
    )
    .unwrap();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        base64::engine::general_purpose::STANDARD.encode(pkcs8.as_ref())
    );
    let claims = serde_json::json!({"iss": "me", "aud": "https://as.example"});
    let jwt = client_assertion("ES256", pem.as_bytes(), &claims).unwrap();
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3);
    let pair = ring::signature::EcdsaKeyPair::from_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        pkcs8.as_ref(),
        &rng,
    )
    .unwrap();
    let public = ring::signature::UnparsedPublicKey::new(
        &ring::signature::ECDSA_P256_SHA256_FIXED,
        pair.public_key().as_ref(),
    );
    let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    assert_eq!(signature.len(), 64, "r||s, not DER");
    public
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("verifies");
    let body: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    assert_eq!(body, claims);
    assert!(client_assertion("HS256", pem.as_bytes(), &claims).is_err());
    assert!(client_assertion("ES256", b"not a key", &claims).is_err());
}

#[test]
fn verifiers_are_long_enough_and_differ() {
    let (a, b) = (Pkce::new().unwrap(), Pkce::new().unwrap());
    assert_eq!(a.verifier.len(), 43);
    assert_ne!(a.verifier, b.verifier);
    assert_eq!(a.challenge, challenge_of(&a.verifier));
}
