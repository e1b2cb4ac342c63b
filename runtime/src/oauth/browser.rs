//! The authorization step a desktop or command-line application usually wants (RFC 8252): the
//! system browser opens the authorization URL, and a listener on 127.0.0.1 takes the redirect.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Url;

use super::AuthorizationRequest;
use crate::Error;

/// Signs a person in with the system browser and a loopback redirect (RFC 8252 §7.3): a
/// listener on `127.0.0.1` at a free port receives the authorization server's redirect to
/// `http://127.0.0.1:PORT/callback`. Hand it to [`OAuth::browser_sign_in`](super::OAuth::browser_sign_in),
/// which sets the redirect URI and the authorization step; `mcp-bindgen capture --oauth` uses it too.
///
/// At each sign-in it prints the URL to stderr (the way in when no browser starts), opens it
/// with the browser command (default: `$BROWSER`, a command and its words, quoted as in a
/// shell where a word has blanks, else the platform's opener: `xdg-open`, `open` on macOS, `url.dll`'s protocol handler
/// on Windows; never through a shell, and only for an `http` or `https` URL), and
/// waits for a request to `/callback` that carries the `state` of that authorization URL. A
/// request with another `state` (a forged or stale redirect) is answered 400 and the wait goes
/// on; one with `error` (the person declined) ends it with an [`Error::Auth`] naming the
/// error; no redirect within the timeout (default 5 minutes) ends it too.
///
/// Sign-ins through one `BrowserSignIn` (and its clones, which share its listener) take
/// turns: a second one prints and opens its URL only when the first has ended, so each
/// redirect reaches the sign-in that sent the browser.
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_bindgen::Error> {
/// use mcp_bindgen::oauth::{BrowserSignIn, FileTokenStore, OAuth};
/// let oauth = OAuth::new()
///     .token_store(FileTokenStore::new("my-app-tokens"))
///     .browser_sign_in(BrowserSignIn::new()?);
/// let _client = mcp_bindgen::HttpClient::builder("https://mcp.example/mcp")
///     .oauth(oauth)
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct BrowserSignIn {
    listener: Arc<TcpListener>,
    port: u16,
    browser: Option<String>,
    timeout: Duration,
    /// Held through a sign-in: one at a time on the listener.
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl BrowserSignIn {
    /// Listens on `127.0.0.1` at a free port. `Err`: no port could be bound.
    pub fn new() -> Result<Self, Error> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| {
            Error::transport_source("OAuth: could not listen on 127.0.0.1 for the redirect", e)
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::transport_source("OAuth: the redirect listener has no address", e))?
            .port();
        Ok(BrowserSignIn {
            listener: Arc::new(listener),
            port,
            browser: None,
            timeout: Duration::from_secs(300),
            turn: Arc::default(),
        })
    }

    /// The command that opens the URL, with its words (`"firefox --new-window"`; a word with
    /// blanks in `'…'` or `"…"`, as in a shell, which never runs); the URL is added last. Default: `$BROWSER`, else the platform's opener.
    pub fn browser(mut self, command: impl Into<String>) -> Self {
        self.browser = Some(command.into());
        self
    }

    /// How long a person has to approve (default 5 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Where the authorization server sends the browser back:
    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    /// The authorization step: prints and opens `request.url`, then waits for the redirect
    /// and returns the URL the browser was sent to (what [`OAuth::on_authorize`](super::OAuth::on_authorize)'s
    /// hook returns). Waits on a thread of its own, so any executor can await it; waits
    /// first for a sign-in already under way on this listener to end.
    pub async fn authorize(&self, request: AuthorizationRequest) -> Result<String, Error> {
        let state = Url::parse(&request.url)
            .ok()
            .and_then(|url| {
                url.query_pairs()
                    .find(|(k, _)| k == "state")
                    .map(|(_, v)| v.into_owned())
            })
            .ok_or_else(|| {
                super::auth_error(format!(
                    "OAuth authorization: the authorization URL carries no state: {}",
                    request.url
                ))
            })?;
        let _turn = self.turn.lock().await;
        if let Some(reason) = &request.reason {
            eprintln!("Signing in again: {reason}.");
        }
        eprintln!(
            "Signing in: approve in your browser, or open\n  {}",
            request.url
        );
        self.open(&request.url);
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let listener = self.listener.clone();
        let (port, timeout) = (self.port, self.timeout);
        std::thread::Builder::new()
            .name("mcp-bindgen-oauth-redirect".into())
            .spawn(move || {
                let _ = sender.send(wait(&listener, port, &state, timeout));
            })
            .map_err(|e| {
                Error::transport_source("OAuth: could not start the redirect listener", e)
            })?;
        receiver.await.map_err(|_| {
            Error::transport("OAuth: the redirect listener stopped without an answer")
        })?
    }

    /// Starts the browser command; when none starts, the printed URL is the way in.
    fn open(&self, url: &str) {
        let command = self
            .browser
            .clone()
            .or_else(|| std::env::var("BROWSER").ok());
        let Some(argv) = opener(command.as_deref(), Platform::current(), url) else {
            eprintln!("(not opening a browser for that URL: open it yourself if you trust it)");
            return;
        };
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let started = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn();
        if started.is_err() {
            let command = command.as_deref().unwrap_or("the system's opener");
            eprintln!("(could not start a browser with `{command}`: open the URL above)");
        }
    }
}

/// The platforms whose openers differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Platform {
    MacOs,
    Windows,
    /// Linux and the other Unixes (freedesktop's `xdg-open`).
    Unix,
}

impl Platform {
    fn current() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::MacOs
        } else if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }
}

/// The program and arguments that open `url`: `command` (the browser command, or `$BROWSER`:
/// a program and its words) with the URL last, else the platform's opener. No shell ever
/// reads the URL, which comes from the server's metadata: on Windows `cmd /C start` would cut
/// it at its first `&` (losing `state` and the PKCE challenge) and run what follows as a
/// command, so the URL goes to `rundll32 url.dll,FileProtocolHandler` as one argument. `None`
/// when `url` is not an `http` or `https` URL (an opener would run a path or another scheme's
/// handler).
fn opener(command: Option<&str>, platform: Platform, url: &str) -> Option<Vec<String>> {
    let parsed = Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "https" | "http") {
        return None;
    }
    let mut argv: Vec<String> = match command.map(words) {
        Some(words) if !words.is_empty() => words,
        _ => match platform {
            Platform::MacOs => vec!["open".into()],
            Platform::Windows => vec!["rundll32".into(), "url.dll,FileProtocolHandler".into()],
            Platform::Unix => vec!["xdg-open".into()],
        },
    };
    argv.push(url.to_owned());
    Some(argv)
}

/// A command's words as a POSIX shell splits them, without running one: blanks separate words,
/// `'…'` keeps everything inside, `"…"` keeps everything but a backslash before `"` or `\\`,
/// and a backslash elsewhere keeps the next character (`'/opt/my browser/run' --new-window`).
/// No variables, globs or other shell syntax; an unclosed quote ends at the end of the text.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(next @ ('"' | '\\')) => w.push(next),
                            Some(next) => {
                                w.push('\\');
                                w.push(next);
                            }
                            None => w.push('\\'),
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Takes requests on `listener` until one reaches `/callback` with `state` (returned as the
/// full redirect URL), one with `state` says `error`, or `timeout` passes.
fn wait(
    listener: &TcpListener,
    port: u16,
    state: &str,
    timeout: Duration,
) -> Result<String, Error> {
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::transport_source("OAuth: the redirect listener failed", e))?;
    let deadline = Instant::now() + timeout;
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(super::auth_error(format!(
                        "OAuth authorization: no approval within {} s (the browser never came \
                         back to http://127.0.0.1:{port}/callback)",
                        timeout.as_secs_f64()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(e) => {
                return Err(Error::transport_source(
                    "OAuth: the redirect listener failed",
                    e,
                ));
            }
        };
        if let Some(answer) = callback(&stream, port, state) {
            return answer;
        }
    }
}

/// Reads one request: `None` to wait on (another path, another `state`, a broken request),
/// else the sign-in's end.
fn callback(stream: &TcpStream, port: u16, state: &str) -> Option<Result<String, Error>> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).ok()?;
    let target = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let reply = |status: &str, text: &str| {
        let page = format!("<!doctype html><title>Sign-in</title><p>{text}");
        let _ = write!(
            &mut &*stream,
            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{page}",
            page.len()
        );
    };
    if target != "/callback" && !target.starts_with("/callback?") {
        reply("404 Not Found", "Not here.");
        return None;
    }
    let url = format!("http://127.0.0.1:{port}{target}");
    let parsed = Url::parse(&url).ok()?;
    let parameter = |name: &str| {
        parsed
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if parameter("state").as_deref() != Some(state) {
        reply(
            "400 Bad Request",
            "This sign-in was not started here (its state does not match).",
        );
        return None;
    }
    if let Some(error) = parameter("error") {
        reply("200 OK", "Sign-in declined. You can close this window.");
        let description = parameter("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Some(Err(super::auth_error(format!(
            "OAuth authorization: the authorization server answered {error}{description}"
        ))));
    }
    reply("200 OK", "Signed in. You can close this window.");
    Some(Ok(url))
}

#[cfg(test)]
mod tests;
