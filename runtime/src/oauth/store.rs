//! Where tokens and client registrations are kept between calls and runs: a [`TokenStore`],
//! in memory by default ([`MemoryTokenStore`]), or in files ([`FileTokenStore`]) for a command
//! line tool whose second run should not open a browser again.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::Error;

/// A secret string (token, client secret): its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(secret.into())
    }

    /// The secret itself, for sending where it belongs.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<secret>")
    }
}

/// The tokens an authorization server issued for one resource (MCP server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    /// The issuer that issued them: tokens are never sent after the server moved to another.
    pub issuer: String,
    /// The access token, sent as `Authorization: Bearer` (or `DPoP`, when bound) to the
    /// resource only.
    pub access_token: Secret,
    /// The refresh token, sent to the issuer's token endpoint only.
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes granted (space separated), when the server said.
    pub scope: Option<String>,
    /// The private key the tokens are bound to (DPoP, RFC 9449; PKCS#8, base64url), `None`
    /// for Bearer tokens. Kept with them: neither is of use without the other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

/// A client's registration with one authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientRegistration {
    /// The client id (a URL for a client ID metadata document).
    pub client_id: String,
    /// The client secret of a confidential client.
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint (`none`, `client_secret_basic`,
    /// `client_secret_post`), when the registration said.
    pub token_endpoint_auth_method: Option<String>,
}

/// Keeps tokens per resource and client registrations per issuer. Implementations must be
/// cheap to call: the client reads them at connect and writes them when tokens change.
pub trait TokenStore: Send + Sync {
    /// The tokens kept for `resource` (the MCP server's URL).
    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, Error>;
    /// Keeps `tokens` for `resource`.
    fn save_tokens(&self, resource: &str, tokens: &Tokens) -> Result<(), Error>;
    /// Forgets the tokens of `resource`.
    fn remove_tokens(&self, resource: &str) -> Result<(), Error>;
    /// The registration kept for `issuer`.
    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, Error>;
    /// Keeps `client` for `issuer`.
    fn save_client(&self, issuer: &str, client: &ClientRegistration) -> Result<(), Error>;
}

/// Tokens and registrations for as long as the process runs (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
    clients: Mutex<HashMap<String, ClientRegistration>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryTokenStore::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, Error> {
        Ok(crate::client::lock(&self.tokens).get(resource).cloned())
    }

    fn save_tokens(&self, resource: &str, tokens: &Tokens) -> Result<(), Error> {
        crate::client::lock(&self.tokens).insert(resource.to_owned(), tokens.clone());
        Ok(())
    }

    fn remove_tokens(&self, resource: &str) -> Result<(), Error> {
        crate::client::lock(&self.tokens).remove(resource);
        Ok(())
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, Error> {
        Ok(crate::client::lock(&self.clients).get(issuer).cloned())
    }

    fn save_client(&self, issuer: &str, client: &ClientRegistration) -> Result<(), Error> {
        crate::client::lock(&self.clients).insert(issuer.to_owned(), client.clone());
        Ok(())
    }
}

/// Tokens and registrations in a directory, one JSON file per resource (`tokens-…`) and per
/// issuer (`client-…`), readable and writable by the owner only (mode 0600 on Unix); the file
/// names are a digest of the URL, so no URL becomes a path.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

impl FileTokenStore {
    /// A store in `dir` (made, owner-only, on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileTokenStore { dir: dir.into() }
    }

    fn path(&self, kind: &str, key: &str) -> PathBuf {
        let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
        let hex: String = digest.as_ref()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        self.dir.join(format!("{kind}-{hex}.json"))
    }

    fn read<T: for<'de> Deserialize<'de>>(
        &self,
        kind: &str,
        key: &str,
    ) -> Result<Option<T>, Error> {
        let path = self.path(kind, key);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(store_error(&path, "could not read", e)),
        };
        // A file of another version or a broken one is not fatal: it is as if absent (the
        // next authorization writes it again).
        Ok(serde_json::from_str(&text).ok())
    }

    fn write<T: Serialize>(&self, kind: &str, key: &str, value: &T) -> Result<(), Error> {
        create_private_dir(&self.dir)?;
        let path = self.path(kind, key);
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| store_error(&path, "could not write", e))?;
        let temporary = path.with_extension("tmp");
        write_private(&temporary, text.as_bytes())
            .map_err(|e| store_error(&temporary, "could not write", e))?;
        std::fs::rename(&temporary, &path).map_err(|e| store_error(&path, "could not write", e))
    }
}

fn store_error(
    path: &std::path::Path,
    what: &str,
    e: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::transport_source(format!("token store: {what} {}", path.display()), e)
}

fn create_private_dir(dir: &std::path::Path) -> Result<(), Error> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| store_error(dir, "could not create", e))
}

fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

impl TokenStore for FileTokenStore {
    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, Error> {
        self.read("tokens", resource)
    }

    fn save_tokens(&self, resource: &str, tokens: &Tokens) -> Result<(), Error> {
        self.write("tokens", resource, tokens)
    }

    fn remove_tokens(&self, resource: &str) -> Result<(), Error> {
        let path = self.path("tokens", resource);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(store_error(&path, "could not remove", e))
            }
            _ => Ok(()),
        }
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, Error> {
        self.read("client", issuer)
    }

    fn save_client(&self, issuer: &str, client: &ClientRegistration) -> Result<(), Error> {
        self.write("client", issuer, client)
    }
}

#[cfg(test)]
mod tests;
