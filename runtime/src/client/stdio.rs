//! The stdio client transport: spawns the server, speaks newline-delimited JSON-RPC on its
//! stdin/stdout, passes its stderr through, and ends it when the client is dropped. It only
//! moves lines: the era and every other protocol rule are the session's (`session/`), and
//! what comes in is routed by `inbox.rs`.

use std::collections::HashMap;
use std::future::Future;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::era;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::io::{self, IoTask};
use super::transport::Carrier;
use super::{
    CallContext, ClientBuilder, McpClient, Negotiated, Outgoing, Reply, Response, Routed, Session,
    describe, lock,
};
use crate::Error;

/// A request waiting for its response.
struct Pending {
    tx: oneshot::Sender<Response>,
    context: CallContext,
}

/// What the reader task and the callers share.
struct Shared {
    session: Arc<Session>,
    pending: Mutex<HashMap<u64, Pending>>,
    writer: mpsc::UnboundedSender<String>,
    /// The last lines the server printed that are not JSON-RPC (a banner, a usage message, a
    /// crash), quoted when it fails to answer.
    noise: Mutex<std::collections::VecDeque<String>>,
    /// The server's output has closed (set under the `pending` lock, so that a request is
    /// either failed by the reader or refused here, never left waiting for its timeout).
    closed: std::sync::atomic::AtomicBool,
    /// A `subscriptions/listen` for tool changes was sent (2026-07-28).
    listening: std::sync::atomic::AtomicBool,
}

/// How many of the server's stray lines are kept, and how much of each.
const NOISE_LINES: usize = 3;
const NOISE_CHARS: usize = 200;

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Keeps `line`, which is not JSON-RPC, among the last few.
    fn stray(&self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let mut kept: String = line.chars().take(NOISE_CHARS).collect();
        if kept.len() < line.len() {
            kept.push('…');
        }
        let mut noise = lock(&self.noise);
        if noise.len() == NOISE_LINES {
            noise.pop_front();
        }
        noise.push_back(kept);
    }

    /// A JSON-RPC message came: what was printed before it is not why a later request fails.
    fn heard(&self) {
        let mut noise = lock(&self.noise);
        if !noise.is_empty() {
            noise.clear();
        }
    }

    /// ` (instead of JSON-RPC it printed "…" | "…": ...)` when the server's last lines were not
    /// JSON-RPC.
    fn printed_instead(&self) -> String {
        let noise = lock(&self.noise);
        if noise.is_empty() {
            return String::new();
        }
        let quoted: Vec<String> = noise.iter().map(|l| format!("{l:?}")).collect();
        format!(
            " (instead of JSON-RPC it printed {}: is this an MCP server on stdio, with its logs \
             on stderr?)",
            quoted.join(" | ")
        )
    }

    fn write(&self, message: &Value) -> Result<(), Error> {
        self.write_line(message.to_string())
    }

    /// Writes one message's text and its newline.
    fn write_line(&self, mut text: String) -> Result<(), Error> {
        text.push('\n');
        self.writer
            .send(text)
            .map_err(|_| Error::transport("could not write to the server: it has exited"))
    }

    /// The calls in flight that a notification concerns: a progress notification, the call
    /// its token names; an event stream's, the `events/stream` request its subscription id
    /// names; any other, every call with a log handler.
    fn concerned(&self, message: &Value) -> Vec<CallContext> {
        let pending = lock(&self.pending);
        let method = message["method"].as_str().unwrap_or("");
        if method == "notifications/progress" || crate::events::is_stream_note(method) {
            let token = match method {
                "notifications/progress" => message["params"]["progressToken"].as_u64(),
                _ => message["params"]["_meta"][era::meta::SUBSCRIPTION_ID].as_u64(),
            };
            return token
                .and_then(|t| pending.get(&t))
                .map(|p| vec![p.context.clone()])
                .unwrap_or_default();
        }
        pending
            .values()
            .filter(|p| p.context.log.is_some())
            .map(|p| p.context.clone())
            .collect()
    }

    fn cancel(&self, id: u64, reason: &str) {
        #[cfg(feature = "tracing")]
        tracing::debug!(id, reason, "cancelling the request on the server");
        lock(&self.pending).remove(&id);
        let _ = self.write(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": reason}}),
        );
    }
}

/// Settings for [`StdioClient::spawn`]: the shared ones of [`ClientBuilder`] and the command
/// that starts the server.
pub type StdioClientBuilder = ClientBuilder<StdioOptions>;

/// The stdio options of a [`StdioClientBuilder`]: the command that starts the server.
#[derive(Debug)]
pub struct StdioOptions {
    command: Command,
}

impl ClientBuilder<StdioOptions> {
    /// Starts the server and finds the protocol era (a `server/discover` probe, else the
    /// legacy `initialize` handshake; see [`super::Protocol`]).
    pub async fn spawn(mut self) -> Result<StdioClient, Error> {
        let program = self
            .options
            .command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let runtime = io::handle()?;
        let mut child = {
            // The pipes belong to the I/O runtime, whichever executor calls this.
            let _entered = runtime.enter();
            self.options
                .command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| Error::transport_source(format!("could not start {program}"), e))?
        };
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| Error::transport("the server's stdin is not available"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::transport("the server's stdout is not available"))?;
        let (writer, mut lines) = mpsc::unbounded_channel::<String>();
        let session = Arc::new(Session::new(self.settings));
        let shared = Arc::new(Shared {
            session: session.clone(),
            pending: Mutex::new(HashMap::new()),
            writer,
            noise: Mutex::new(std::collections::VecDeque::new()),
            closed: std::sync::atomic::AtomicBool::new(false),
            listening: std::sync::atomic::AtomicBool::new(false),
        });
        let writer_task = runtime.spawn(async move {
            while let Some(line) = lines.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let reader = runtime.spawn(read_loop(stdout, shared.clone()));
        let transport = StdioTransport {
            shared,
            reader,
            writer: writer_task,
            child: Mutex::new(child),
        };
        McpClient::open(session, transport).await
    }
}

/// An MCP client over a child process's stdio; a [`ToolCaller`](crate::ToolCaller). The child is ended when the
/// last clone is dropped. Works from any executor (its I/O runs on the crate's own runtime).
///
/// ```no_run
/// use mcp_bindgen::{StdioClient, ToolCaller};
///
/// // No async runtime of your own needed: pollster drives the call, the client does its I/O.
/// let mut server = std::process::Command::new("npx");
/// server.args(["-y", "@modelcontextprotocol/server-everything", "stdio"]);
/// let result = pollster::block_on(async {
///     let client = StdioClient::spawn(server).await?;
///     let mut arguments = serde_json::Map::new();
///     arguments.insert("message".into(), "hi".into());
///     client.call_tool("echo", arguments).await
/// })?;
/// assert_eq!(result.texts().collect::<String>(), "Echo: hi");
/// # Ok::<(), mcp_bindgen::Error>(())
/// ```
pub type StdioClient = McpClient<StdioTransport>;

/// The stdio transport of a [`StdioClient`]: the child's pipes and the tasks that move its
/// lines. The child is ended when the transport is dropped, with the client's last clone.
#[derive(Debug)]
pub struct StdioTransport {
    shared: Arc<Shared>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
    child: Mutex<Child>,
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
        let _ = lock(&self.child).start_kill();
    }
}

impl McpClient<StdioTransport> {
    /// Settings for running `command` (a `tokio::process::Command` or a
    /// `std::process::Command`).
    pub fn builder(command: impl Into<Command>) -> StdioClientBuilder {
        ClientBuilder::with(StdioOptions {
            command: command.into(),
        })
    }

    /// Starts `command` with the default settings.
    pub async fn spawn(command: impl Into<Command>) -> Result<Self, Error> {
        StdioClient::builder(command).spawn().await
    }
}

#[allow(private_interfaces)] // see `Carrier`: sealed
impl Carrier for StdioTransport {
    const MIRRORS_HEADERS: bool = false;
    const NAME: &'static str = "stdio";

    fn peer(&self) -> String {
        "the server".to_owned()
    }

    fn printed_instead(&self) -> String {
        self.shared.printed_instead()
    }

    fn exchange(
        &self,
        request: Outgoing<'_>,
        context: CallContext,
        timeout: Duration,
    ) -> impl Future<Output = Result<Reply, Error>> + Send {
        let shared = self.shared.clone();
        let cancelling = shared.clone();
        let id = request.id;
        let what = describe(request.method, request.params);
        let text = request.text;
        IoTask::spawn(
            async move {
                let (tx, rx) = oneshot::channel();
                {
                    let mut pending = lock(&shared.pending);
                    if shared.closed.load(std::sync::atomic::Ordering::Acquire) {
                        return Err(Error::transport(format!(
                            "{what}: the server has exited (its output is closed){}",
                            shared.printed_instead()
                        )));
                    }
                    pending.insert(id, Pending { tx, context });
                }
                if let Err(e) = shared.write_line(text) {
                    lock(&shared.pending).remove(&id);
                    return Err(e);
                }
                match tokio::time::timeout(timeout, rx).await {
                    Ok(Ok(answer)) => Ok(Reply::Response(answer)),
                    Ok(Err(_)) => Err(Error::transport(format!(
                        "{what}: the server closed its output before answering{}",
                        shared.printed_instead()
                    ))),
                    // Reads "tools/call x (instead of JSON-RPC it printed ...) timed out after".
                    Err(_) => {
                        shared.cancel(id, "timed out");
                        Err(Error::Timeout {
                            message: format!("{what}{}", shared.printed_instead()),
                            after: timeout,
                        })
                    }
                }
            },
            Some(Box::new(move || {
                cancelling.cancel(id, "the caller stopped waiting");
            })),
        )
    }

    fn notify(
        &self,
        message: Value,
        _negotiated: Negotiated,
        _timeout: Duration,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        std::future::ready(self.shared.write(&message))
    }

    /// In 2026-07-28, sends one `subscriptions/listen` for tool list changes, once, when the
    /// server advertises `tools.listChanged`: the request stays open for the connection's life,
    /// and its notifications come in band, routed by `read_loop` like any other.
    fn hear_changes(&self) {
        let shared = &self.shared;
        let session = &shared.session;
        let Some(negotiated) = session.negotiated().filter(|n| n.is_modern()) else {
            return;
        };
        if !session.announces_tool_changes()
            || shared
                .listening
                .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        let params = json!({"notifications": {"toolsListChanged": true}});
        let id = session.next_id();
        let written = session
            .outgoing(
                id,
                "subscriptions/listen",
                &params,
                Some(&negotiated),
                None,
                false,
            )
            .and_then(|request| shared.write_line(request.text));
        if let Err(_e) = written {
            #[cfg(not(feature = "tracing"))]
            log::debug!("subscriptions/listen over stdio failed ({_e}); relying on ttlMs");
            #[cfg(feature = "tracing")]
            tracing::debug!(error = %_e, "subscriptions/listen over stdio failed; relying on ttlMs");
        }
    }
}

/// One line of the child's stdout, without its end: `Ok(None)` at the end of the output, a line
/// longer than `limit` bytes read to its end but not kept (`Err` with its length so far).
async fn next_line(
    reader: &mut BufReader<ChildStdout>,
    limit: usize,
) -> std::io::Result<Option<Result<String, usize>>> {
    let mut line = Vec::new();
    let mut dropped = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if line.is_empty() && dropped == 0 {
                return Ok(None);
            }
            break;
        }
        let (part, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], true),
            None => (available, false),
        };
        if dropped > 0 || line.len() + part.len() > limit {
            // Past the limit: the rest of the line is read and dropped as it comes.
            dropped += line.len() + part.len();
            line = Vec::new();
        } else {
            line.extend_from_slice(part);
        }
        let used = part.len() + usize::from(ended);
        reader.consume(used);
        if ended {
            break;
        }
    }
    if dropped > 0 {
        return Ok(Some(Err(dropped)));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(Ok(String::from_utf8_lossy(&line).into_owned())))
}

/// Hands each line to the session's router; a response goes to the request waiting for it,
/// a line that is not JSON-RPC is kept for a message about the server's silence, and so is a
/// line past the client's message limit (not kept in memory: the request it answered times
/// out, saying so).
async fn read_loop(stdout: ChildStdout, shared: Arc<Shared>) {
    let limit = shared.session.settings.max_message_bytes;
    let mut reader = BufReader::new(stdout);
    while let Ok(Some(line)) = next_line(&mut reader, limit).await {
        let line = match line {
            Ok(line) => line,
            Err(length) => {
                shared.stray(&format!(
                    "[a line of more than {limit} bytes ({length} read), past the client's limit \
                     (ClientBuilder::max_message_bytes): dropped]"
                ));
                continue;
            }
        };
        let answering = shared.clone();
        let routed = shared.session.route(
            line.as_bytes(),
            |message| shared.concerned(message),
            move |answer| {
                // A server that has exited takes no answer; its requests fail with it.
                let _ = answering.write(&answer);
                std::future::ready(())
            },
        );
        match routed {
            Routed::Stray => shared.stray(&line),
            Routed::Response(id) => {
                shared.heard();
                // Its bytes go to the request, decoded there (see `super::decode`).
                if let Some(id) = id
                    && let Some(pending) = lock(&shared.pending).remove(&id)
                {
                    let _ = pending.tx.send(Response::new(line));
                }
            }
            Routed::Handled => shared.heard(),
        }
    }
    // The server is gone: every waiting request fails now rather than at its timeout, and
    // every later one at once.
    let mut pending = lock(&shared.pending);
    shared
        .closed
        .store(true, std::sync::atomic::Ordering::Release);
    pending.clear();
}
