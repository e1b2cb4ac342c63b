//! Capturing a live server's `tools/list` (the `mcp-bindgen capture` command): over Streamable
//! HTTP (`http://` or `https://`) or a child process's stdio, following `nextCursor`, keeping
//! each tool as the server sent it, and recording the server's name, version, the negotiated
//! protocol version and, when the server sent them, the list's caching hints (`ttlMs`,
//! `cacheScope`). The result is a capture that [`mcp_bindgen_codegen::capture`], `generate` and `regenerate`
//! read directly.

use std::path::PathBuf;
use std::time::Duration;

use mcp_bindgen::client::ToolList;
use mcp_bindgen::oauth::{BrowserSignIn, Dpop, FileTokenStore, OAuth};
use mcp_bindgen::{HttpClient, Protocol, StdioClient};
use serde_json::{Map, Value};

/// The flags that say which live server to talk to and how: `--url` (with `--bearer-env`,
/// `--cacert`, `--allow-insecure-http`) or a stdio command after `--`, and `--protocol`,
/// `--client-capabilities`, `--timeout`. Flatten it into any subcommand that reaches a live
/// server (`#[command(flatten)]`).
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("server").args(["url", "command"])))]
pub struct LiveArgs {
    /// The server's Streamable HTTP endpoint (`https://example.com/mcp`,
    /// `http://127.0.0.1:7100/mcp`).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The environment variable holding a bearer token (never put it in the URL).
    #[arg(long, value_name = "VAR", requires = "url")]
    pub bearer_env: Option<String>,
    /// A PEM file of CA certificates to trust besides the system's (a private or test CA).
    #[arg(long, value_name = "FILE", requires = "url")]
    pub cacert: Option<PathBuf>,
    /// Send the bearer token over plain http:// to a host that is not loopback.
    #[arg(long, requires = "url")]
    pub allow_insecure_http: bool,
    /// Sign in with OAuth 2.1 where the server asks for it: the system browser opens
    /// (`$BROWSER`, else xdg-open; the URL is printed too), a listener on 127.0.0.1 takes the
    /// redirect, and the tokens are kept (owner-only files in --token-dir) so that the next run
    /// needs no browser.
    #[arg(long, requires = "url", conflicts_with = "bearer_env")]
    pub oauth: bool,
    /// A client id registered with the server's authorization server (else a client ID
    /// metadata document with --client-metadata-url, else dynamic registration).
    #[arg(long, value_name = "ID", requires = "oauth")]
    pub client_id: Option<String>,
    /// The environment variable holding that client's secret.
    #[arg(long, value_name = "VAR", requires = "client_id")]
    pub client_secret_env: Option<String>,
    /// Sign in as a machine, with no browser: the client credentials grant with --client-id and
    /// its secret (--client-secret-env) or its key (--client-key).
    #[arg(long, requires = "client_id")]
    pub client_credentials: bool,
    /// A PKCS#8 PEM file of the client's private key (ES256): the client credentials grant,
    /// the client proving who it is with a signed JWT (private_key_jwt) instead of a secret.
    #[arg(
        long,
        value_name = "FILE",
        requires = "client_id",
        conflicts_with = "client_secret_env"
    )]
    pub client_key: Option<PathBuf>,
    /// Sign in as a workload, with no browser and no secret: the JWT its platform issued
    /// (CI, a cloud, a Kubernetes service account), read from FILE at every token request.
    #[arg(long, value_name = "FILE", requires = "oauth",
          conflicts_with_all = ["client_credentials", "client_key", "client_secret_env"])]
    pub workload_token: Option<PathBuf>,
    /// Require tokens bound to a key of this run's (DPoP, RFC 9449): every request carries a
    /// proof signed with it, and a server that issues Bearer tokens is refused. Without the
    /// flag, DPoP is used when the authorization server offers it.
    #[arg(long, requires = "oauth")]
    pub dpop: bool,
    /// The HTTPS URL of this client's ID metadata document.
    #[arg(long, value_name = "URL", requires = "oauth")]
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for besides those the server names (space separated).
    #[arg(long, value_name = "SCOPES", requires = "oauth")]
    pub scope: Option<String>,
    /// Where OAuth tokens are kept (default: `$XDG_CONFIG_HOME/mcp-bindgen/oauth`, else
    /// `~/.config/mcp-bindgen/oauth`).
    #[arg(long, value_name = "DIR", requires = "oauth")]
    pub token_dir: Option<PathBuf>,
    /// The protocol: `auto` (modern if the server speaks it, else legacy), `modern`, `legacy`,
    /// or a version such as `2025-06-18`.
    #[arg(long, value_name = "auto|modern|legacy|VERSION", default_value = "auto",
          value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// Client capabilities to declare, as a JSON object (default `{}`).
    #[arg(long, value_name = "JSON", value_parser = parse_capabilities)]
    pub client_capabilities: Option<Value>,
    /// Seconds allowed for each request.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl Default for LiveArgs {
    /// No server, and the defaults of the flags (`--protocol auto`, `--timeout 60`).
    fn default() -> Self {
        LiveArgs {
            url: None,
            bearer_env: None,
            cacert: None,
            allow_insecure_http: false,
            oauth: false,
            client_id: None,
            client_secret_env: None,
            client_credentials: false,
            client_key: None,
            workload_token: None,
            dpop: false,
            client_metadata_url: None,
            scope: None,
            token_dir: None,
            protocol: Protocol::Auto,
            client_capabilities: None,
            timeout: 60,
            command: Vec::new(),
        }
    }
}

fn parse_protocol(text: &str) -> Result<Protocol, String> {
    match text {
        "auto" => Ok(Protocol::Auto),
        "modern" => Ok(Protocol::Modern),
        "legacy" => Ok(Protocol::Legacy),
        v if mcp_bindgen::era::is_supported(v) => Ok(Protocol::Version(v.to_owned())),
        other => Err(format!(
            "`{other}` is not auto, modern, legacy or a protocol version this client speaks ({})",
            mcp_bindgen::era::all_versions()
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn parse_capabilities(text: &str) -> Result<Value, String> {
    match serde_json::from_str(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err("takes a JSON object, e.g. '{\"sampling\": {}}'".to_owned()),
    }
}

impl LiveArgs {
    /// Whether a server was named (`--url`, or a command after `--`).
    pub fn given(&self) -> bool {
        self.url.is_some() || !self.command.is_empty()
    }

    /// What to do about a refusal of the server's (HTTP 401 or 403), given the flags this
    /// run had: which flag supplies credentials, and what the server's `WWW-Authenticate`
    /// says (its OAuth metadata, a missing scope). `None` for any other error.
    pub fn auth_help(&self, error: &mcp_bindgen::Error) -> Option<String> {
        let mcp_bindgen::Error::Auth {
            status: Some(status),
            www_authenticate,
            ..
        } = error
        else {
            return None;
        };
        let challenge = www_authenticate.as_deref().unwrap_or_default();
        let bearer = mcp_bindgen::oauth::Challenge::parse(challenge).unwrap_or_default();
        let metadata = bearer.resource_metadata;
        let mut help = match (*status, &self.bearer_env, self.oauth) {
            (403, _, _) => {
                let scope = bearer
                    .scope
                    .map(|s| format!(" (it asks for the scope `{s}`)"))
                    .unwrap_or_default();
                format!(
                    "the server knows the credentials but refuses them for this{scope}: with \
                     --oauth, ask for more with --scope; with --bearer-env, use a token that \
                     grants it"
                )
            }
            (_, Some(var), _) => format!(
                "the server refused the token in ${var}: it may have expired, or belong to \
                 another server"
            ),
            (_, None, true) => {
                "the server refused the token the OAuth sign-in gave: run again to sign in \
                 afresh (--token-dir keeps tokens between runs)"
                    .to_owned()
            }
            (_, None, false) => "the server wants credentials: give a token with \
                 --bearer-env VAR (the environment variable holding it), or sign in with --oauth"
                .to_owned(),
        };
        if let Some(metadata) = metadata {
            help.push_str(&format!(
                "; its WWW-Authenticate points at OAuth metadata ({metadata}), so --oauth can \
                 sign in"
            ));
        } else if !challenge.is_empty() {
            help.push_str(&format!("; it answered WWW-Authenticate: {challenge}"));
        }
        Some(help)
    }

    /// The server, for messages: the URL, or the command line.
    pub fn server(&self) -> String {
        match &self.url {
            Some(url) => url.clone(),
            None => self.command.join(" "),
        }
    }

    /// The options these flags stand for: reads the bearer token's variable and the CA file.
    pub fn options(&self) -> Result<LiveOptions, String> {
        let mut options = LiveOptions {
            protocol: self.protocol.clone(),
            allow_insecure_http: self.allow_insecure_http,
            timeout: Duration::from_secs(self.timeout),
            ..LiveOptions::default()
        };
        if let Some(capabilities) = &self.client_capabilities {
            options.client_capabilities = capabilities.clone();
        }
        if let Some(var) = &self.bearer_env {
            match std::env::var(var) {
                Ok(token) if !token.is_empty() => options.bearer_token = Some(token),
                _ => {
                    return Err(format!(
                        "--bearer-env {var}: the environment variable {var} is not set"
                    ));
                }
            }
        }
        if self.oauth {
            let client_secret = match &self.client_secret_env {
                Some(var) => match std::env::var(var) {
                    Ok(secret) if !secret.is_empty() => Some(secret),
                    _ => {
                        return Err(format!(
                            "--client-secret-env {var}: the environment variable {var} is not set"
                        ));
                    }
                },
                None => None,
            };
            let token_dir = match &self.token_dir {
                Some(dir) => dir.clone(),
                None => default_token_dir().ok_or(
                    "--oauth: neither XDG_CONFIG_HOME nor HOME is set: give --token-dir DIR",
                )?,
            };
            let grant = match (&self.workload_token, &self.client_key) {
                (Some(file), _) => OAuthGrant::Workload(file.clone()),
                (None, Some(key)) => OAuthGrant::ClientKey(key.clone()),
                (None, None) if self.client_credentials => {
                    if client_secret.is_none() {
                        return Err("--client-credentials: give the client's secret \
                                    (--client-secret-env VAR) or its key (--client-key FILE)"
                            .to_owned());
                    }
                    OAuthGrant::ClientCredentials
                }
                (None, None) => OAuthGrant::Browser,
            };
            options.oauth = Some(OAuthOptions {
                grant,
                client_id: self.client_id.clone(),
                client_secret,
                client_metadata_url: self.client_metadata_url.clone(),
                scope: self.scope.clone(),
                token_dir,
                browser: None,
                dpop: self.dpop,
            });
        }
        if let Some(path) = &self.cacert {
            let pem =
                std::fs::read(path).map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            options.root_certificates.push(pem);
        }
        Ok(options)
    }

    /// Captures the server these flags name, with `options` (from [`LiveArgs::options`]).
    pub async fn capture(&self, options: &LiveOptions) -> Result<Value, mcp_bindgen::Error> {
        match (&self.url, self.command.split_first()) {
            (Some(url), _) => capture_http(url, options).await,
            (None, Some((program, args))) => capture_stdio(program, args, options).await,
            (None, None) => Err(mcp_bindgen::Error::transport(
                "give --url URL, or the server command after --",
            )),
        }
    }
}

/// How to reach a server, and how long to wait.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LiveOptions {
    /// Capabilities to declare (some servers list more tools for clients that declare more,
    /// e.g. `{"sampling": {}}`).
    pub client_capabilities: Value,
    /// Bearer token for HTTP servers.
    pub bearer_token: Option<String>,
    /// PEM texts of CA certificates to trust besides the system's.
    pub root_certificates: Vec<Vec<u8>>,
    /// Send the bearer token over plain http:// to a host that is not loopback.
    pub allow_insecure_http: bool,
    /// The protocol era or version.
    pub protocol: Protocol,
    /// Time allowed for each request.
    pub timeout: Duration,
    /// Sign in with OAuth where the server asks for it.
    pub oauth: Option<OAuthOptions>,
}

/// Which grant `--oauth` signs in with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthGrant {
    /// A person in the browser (the authorization code grant).
    #[default]
    Browser,
    /// The client credentials grant with the client's secret.
    ClientCredentials,
    /// The client credentials grant with the client's key (a PKCS#8 PEM file, ES256).
    ClientKey(PathBuf),
    /// Workload identity: the platform's JWT in this file.
    Workload(PathBuf),
}

/// How `--oauth` signs in.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// The grant.
    pub grant: OAuthGrant,
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret.
    pub client_secret: Option<String>,
    /// This client's ID metadata document URL.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for besides the server's.
    pub scope: Option<String>,
    /// Where tokens are kept.
    pub token_dir: PathBuf,
    /// The command that opens a URL (its words; the URL is added last); `None`: `$BROWSER`,
    /// else `xdg-open`.
    pub browser: Option<String>,
    /// Require DPoP-bound tokens (else used when the authorization server offers them).
    pub dpop: bool,
}

fn default_token_dir() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(config.join("mcp-bindgen").join("oauth"))
}

/// The OAuth settings of the command line: RFC 8252's loopback redirect (a listener on
/// 127.0.0.1, a free port) and the system browser, as the runtime's [`BrowserSignIn`] does it.
fn oauth_settings(options: &OAuthOptions) -> Result<OAuth, mcp_bindgen::Error> {
    let client_id = options.client_id.clone().unwrap_or_default();
    let mut oauth = match &options.grant {
        OAuthGrant::Browser => {
            let mut sign_in = BrowserSignIn::new()?;
            if let Some(browser) = &options.browser {
                sign_in = sign_in.browser(browser.clone());
            }
            OAuth::new().browser_sign_in(sign_in)
        }
        OAuthGrant::ClientCredentials => {
            OAuth::client_credentials(client_id, options.client_secret.clone().unwrap_or_default())
        }
        OAuthGrant::ClientKey(path) => {
            let pem = std::fs::read_to_string(path).map_err(|e| {
                mcp_bindgen::Error::transport_source(
                    format!("--client-key {}: cannot be read", path.display()),
                    e,
                )
            })?;
            OAuth::client_credentials_jwt(client_id, pem, "ES256")
        }
        OAuthGrant::Workload(path) => OAuth::workload_identity_file(path),
    };
    oauth = oauth
        .client_name("mcp-bindgen")
        .token_store(FileTokenStore::new(&options.token_dir));
    if let Some(id) = &options.client_id {
        oauth = oauth.client_id(id.clone());
    }
    if let Some(secret) = &options.client_secret {
        oauth = oauth.client_secret(secret.clone());
    }
    if let Some(url) = &options.client_metadata_url {
        oauth = oauth.client_metadata_url(url.clone());
    }
    if let Some(scope) = &options.scope {
        oauth = oauth.scope(scope.clone());
    }
    if options.dpop {
        oauth = oauth.dpop(Dpop::Required);
    }
    Ok(oauth)
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            client_capabilities: Value::Object(Map::new()),
            bearer_token: None,
            root_certificates: Vec::new(),
            allow_insecure_http: false,
            protocol: Protocol::Auto,
            timeout: Duration::from_secs(60),
            oauth: None,
        }
    }
}

/// A capture document: `{"protocolVersion", "serverInfo", "capabilities"?, "ttlMs"?,
/// "cacheScope"?, "tools", "prompts"?, "resources"?, "resourceTemplates"?, "skills"?,
/// "events"?}`; `capabilities` as the server declared them (`tools.listChanged`
/// says whether it announces changes to its tools).
fn document(
    version: Option<String>,
    server: Value,
    capabilities: Value,
    list: ToolList,
    catalog: Map<String, Value>,
) -> Value {
    let mut capture = Map::new();
    if let Some(version) = version {
        capture.insert("protocolVersion".into(), Value::String(version));
    }
    if !server.is_null() {
        capture.insert("serverInfo".into(), server);
    }
    if !capabilities.is_null() {
        capture.insert("capabilities".into(), capabilities);
    }
    if let Some(ttl) = list.ttl_ms {
        capture.insert("ttlMs".into(), ttl.into());
    }
    if let Some(scope) = list.cache_scope {
        capture.insert("cacheScope".into(), Value::String(scope));
    }
    capture.insert("tools".into(), Value::Array(list.tools));
    capture.extend(catalog);
    Value::Object(capture)
}

/// The server's prompts, resources, resource templates, skills and event types (every page),
/// for what its capabilities declare: `prompts`, `resources`, `resourceTemplates`, `skills` (the
/// `io.modelcontextprotocol/skills` extension: the listing only, no skill file is read) and
/// `events` (the `io.modelcontextprotocol/events` extension) in the capture, each absent when the server declared no such capability. A list the server
/// declared but refuses (an older server without templates) is left out with a warning.
async fn catalog<T: mcp_bindgen::client::Transport>(
    client: &mcp_bindgen::client::McpClient<T>,
    from: &str,
) -> Result<Map<String, Value>, mcp_bindgen::Error> {
    let capabilities = client.server_capabilities();
    let mut out = Map::new();
    if capabilities.get("prompts").is_some_and(|c| !c.is_null()) {
        crate::console::status(format!("listing the prompts of {from}"));
        out.insert("prompts".into(), Value::Array(client.list_prompts().await?));
    }
    if capabilities.get("resources").is_some_and(|c| !c.is_null()) {
        crate::console::status(format!("listing the resources of {from}"));
        out.insert(
            "resources".into(),
            Value::Array(client.list_resources().await?),
        );
        match client.list_resource_templates().await {
            Ok(templates) => {
                out.insert("resourceTemplates".into(), Value::Array(templates));
            }
            Err(e) => crate::console::warn(format_args!(
                "{from}: resources/templates/list failed, templates left out: {e}"
            )),
        }
    }
    let extensions = capabilities.get("extensions");
    if extensions.is_some_and(|e| e.get(mcp_bindgen::skill::EXTENSION).is_some()) {
        crate::console::status(format!("listing the skills of {from}"));
        let list = client.list_skills().await?;
        for (entry, reason) in &list.refused {
            crate::console::warn(format_args!(
                "{from}: skill {} left out: {reason}",
                entry["uri"]
            ));
        }
        let skills = list.skills.iter().map(|s| s.to_json()).collect();
        out.insert("skills".into(), Value::Array(skills));
    }
    // The events extension (SEP-3415); early servers declared a top-level `events` instead.
    let events = extensions.is_some_and(|e| e.get(mcp_bindgen::events::EXTENSION).is_some())
        || capabilities.get("events").is_some_and(Value::is_object);
    if events {
        crate::console::status(format!("listing the event types of {from}"));
        let types = client.list_events().await?;
        let types = serde_json::to_value(types).unwrap_or_else(|_| Value::Array(Vec::new()));
        out.insert("events".into(), types);
    }
    Ok(out)
}

/// Captures the Streamable HTTP server at `url`.
pub async fn capture_http(url: &str, options: &LiveOptions) -> Result<Value, mcp_bindgen::Error> {
    let client = connect_http(url, options).await?;
    crate::console::status(format!("listing the tools of {url}"));
    let list = client.tool_list().await?;
    for (tool, reason) in &list.rejected {
        crate::console::warn(format_args!("{url}: tool {tool} left out: {reason}"));
    }
    let catalog = catalog(&client, url).await?;
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        client.server_capabilities(),
        list,
        catalog,
    ))
}

/// A client of the Streamable HTTP server at `url`, set up as `options` say.
async fn connect_http(url: &str, options: &LiveOptions) -> Result<HttpClient, mcp_bindgen::Error> {
    let mut builder = HttpClient::builder(url)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .protocol(options.protocol.clone())
        .timeout(options.timeout);
    if let Some(token) = &options.bearer_token {
        builder = builder.bearer_token(token.clone());
    }
    for pem in &options.root_certificates {
        builder = builder.add_root_certificate(pem);
    }
    if options.allow_insecure_http {
        builder = builder.allow_insecure_http();
    }
    if let Some(oauth) = &options.oauth {
        builder = builder.oauth(oauth_settings(oauth)?);
    }
    builder.connect().await
}

/// Captures the stdio server started by `program args...` (ended afterwards).
pub async fn capture_stdio(
    program: &str,
    args: &[String],
    options: &LiveOptions,
) -> Result<Value, mcp_bindgen::Error> {
    let client = spawn_stdio(program, args, options).await?;
    crate::console::status(format!("listing the tools of {program}"));
    let list = client.tool_list().await?;
    let catalog = catalog(&client, program).await?;
    Ok(document(
        client.protocol_version(),
        client.server_info(),
        client.server_capabilities(),
        list,
        catalog,
    ))
}

/// A client of the stdio server started by `program args...`, set up as `options` say.
async fn spawn_stdio(
    program: &str,
    args: &[String],
    options: &LiveOptions,
) -> Result<StdioClient, mcp_bindgen::Error> {
    let mut command = std::process::Command::new(program);
    command.args(args);
    StdioClient::builder(command)
        .client_info("mcp-bindgen-capture", env!("CARGO_PKG_VERSION"))
        .capabilities(options.client_capabilities.clone())
        .protocol(options.protocol.clone())
        .timeout(options.timeout)
        .spawn()
        .await
}

/// Plays a cassette's `calls` again against the server these flags name (only the read-only
/// tools' calls unless `all`): [`mcp_bindgen::cassette::verify`] over a client of it.
pub(crate) async fn verify(
    server: &LiveArgs,
    options: &LiveOptions,
    calls: &[mcp_bindgen::cassette::Recorded],
    all: bool,
) -> Result<Vec<mcp_bindgen::cassette::Verified>, mcp_bindgen::Error> {
    async fn over<T: mcp_bindgen::client::Transport>(
        client: mcp_bindgen::client::McpClient<T>,
        calls: &[mcp_bindgen::cassette::Recorded],
        all: bool,
    ) -> Result<Vec<mcp_bindgen::cassette::Verified>, mcp_bindgen::Error> {
        let tools = client.list_tools().await?;
        Ok(mcp_bindgen::cassette::verify(calls, &tools, &client, all).await)
    }
    match (&server.url, server.command.split_first()) {
        (Some(url), _) => over(connect_http(url, options).await?, calls, all).await,
        (None, Some((program, args))) => {
            over(spawn_stdio(program, args, options).await?, calls, all).await
        }
        (None, None) => Err(mcp_bindgen::Error::transport(
            "give --url URL, or the server command after --",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(bearer_env: Option<&str>, oauth: bool) -> LiveArgs {
        LiveArgs {
            url: Some("https://mcp.example/mcp".into()),
            bearer_env: bearer_env.map(str::to_owned),
            oauth,
            ..LiveArgs::default()
        }
    }

    fn refused(status: u16, challenge: Option<&str>) -> mcp_bindgen::Error {
        mcp_bindgen::Error::Auth {
            status: Some(status),
            message: format!("answered HTTP {status}"),
            www_authenticate: challenge.map(str::to_owned),
        }
    }

    #[test]
    fn a_refusal_says_which_flag_gives_credentials_and_what_the_server_pointed_at() {
        let challenge = r#"Bearer realm="mcp", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="files:read files:write""#;
        let help = args(None, false)
            .auth_help(&refused(401, Some(challenge)))
            .expect("help");
        assert!(
            help.contains("--bearer-env VAR") && help.contains("--oauth"),
            "{help}"
        );
        assert!(
            help.contains(
                "OAuth metadata (https://mcp.example/.well-known/oauth-protected-resource)"
            ),
            "{help}"
        );
        let help = args(Some("TOKEN"), false)
            .auth_help(&refused(401, Some("Bearer error=\"invalid_token\"")))
            .expect("help");
        assert!(help.contains("refused the token in $TOKEN"), "{help}");
        assert!(
            help.contains("WWW-Authenticate: Bearer error=\"invalid_token\""),
            "{help}"
        );
        let help = args(None, true)
            .auth_help(&refused(403, Some(challenge)))
            .expect("help");
        assert!(
            help.contains("the scope `files:read files:write`"),
            "{help}"
        );
        assert!(help.contains("--scope"), "{help}");
        assert_eq!(
            args(None, false).auth_help(&mcp_bindgen::Error::transport("down")),
            None
        );
    }
}
