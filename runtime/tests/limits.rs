//! What a server can make a client hold: a response body, an event of a stream and a line of a
//! child's stdout each have a bound (`ClientBuilder::max_message_bytes`, 64 MiB by default).
//! A server of this test's own sends more than the bound (a declared `Content-Length`, a chunked
//! body without one, an SSE event that never ends, an endless stdout line): the call fails
//! with an error naming the limit, without the client reading it all, and the client's next
//! call works.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use mcp_bindgen::client::Protocol;
use mcp_bindgen::{Error, HttpClient, StdioClient, ToolCaller};
use serde_json::{Map, Value, json};

const LIMIT: usize = 64 * 1024;

/// A legacy-era server: `initialize` and `tools/list` answered as usual, `tools/call` of
/// `small` with a short result, `declared` with a `Content-Length` past the limit (and only
/// the first bytes sent), `chunked` streaming past the limit with no length, `event` an SSE
/// event that grows past the limit.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().expect("addr").port()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || {
                let _ = answer(stream);
            });
        }
    });
    url
}

fn answer(mut stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    if request_line.starts_with("GET") {
        return stream.write_all(
            b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = |result: Value| json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
    let plain = |text: String| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{text}",
            text.len()
        )
    };
    let result = match message["method"].as_str() {
        Some("initialize") => reply(json!({"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "limits", "version": "1"}})),
        Some("tools/list") => reply(json!({"tools": [
            {"name": "small", "inputSchema": {"type": "object"}},
            {"name": "declared", "inputSchema": {"type": "object"}},
            {"name": "chunked", "inputSchema": {"type": "object"}},
            {"name": "event", "inputSchema": {"type": "object"}},
        ]})),
        Some("tools/call") => match message["params"]["name"].as_str() {
            Some("declared") => {
                // Says 100 MB; sends 1 KB and waits: only the header may be read.
                stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                      Content-Length: 100000000\r\nConnection: close\r\n\r\n",
                )?;
                stream.write_all(&[b' '; 1024])?;
                std::thread::sleep(Duration::from_secs(5));
                return Ok(());
            }
            Some("chunked") => {
                stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                      Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                )?;
                // 1,000 chunks of 8 KB (8 MB) unless the client stops reading first.
                for _ in 0..1_000 {
                    let chunk = [b' '; 8192];
                    stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())?;
                    stream.write_all(&chunk)?;
                    stream.write_all(b"\r\n")?;
                }
                return stream.write_all(b"0\r\n\r\n");
            }
            Some("event") => {
                stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                      Connection: close\r\n\r\nevent: message\ndata: ",
                )?;
                for _ in 0..1_000 {
                    stream.write_all(&[b'x'; 8192])?;
                }
                return Ok(());
            }
            _ => reply(json!({"content": [{"type": "text", "text": "small"}]})),
        },
        _ => {
            return stream.write_all(
                b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    };
    stream.write_all(plain(result.to_string()).as_bytes())
}

fn call(client: &impl ToolCaller, tool: &str) -> Result<mcp_bindgen::CallToolResult, Error> {
    pollster::block_on(client.call_tool(tool, Map::new()))
}

#[test]
fn an_http_answer_past_the_limit_fails_its_call_and_the_client_goes_on() {
    let url = serve();
    let client = pollster::block_on(
        HttpClient::builder(&url)
            .protocol(Protocol::Legacy)
            .max_message_bytes(LIMIT)
            .timeout(Duration::from_secs(20))
            .connect(),
    )
    .expect("connects");
    for tool in ["declared", "chunked", "event"] {
        let started = std::time::Instant::now();
        let error = call(&client, tool).expect_err(tool).to_string();
        assert!(
            error.contains(&format!("larger than {LIMIT} bytes")),
            "{tool}: {error}"
        );
        assert!(error.contains("max_message_bytes"), "{tool}: {error}");
        // Refused as the limit is passed, not after the server's 5 s or 8 MB.
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{tool}: {:?}",
            started.elapsed()
        );
        call(&client, "small").expect("the next call works");
    }
}

#[test]
fn a_stdout_line_past_the_limit_is_dropped_said_and_the_client_goes_on() {
    // A stdio server in Python: a tools/call of `big` is answered with one line of 1 MB
    // (past a 64 KiB limit), anything else as usual.
    let script = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "limits", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "small", "inputSchema": {"type": "object"}},
                       {"name": "big", "inputSchema": {"type": "object"}}]}
    elif m["params"]["name"] == "big":
        r = {"content": [{"type": "text", "text": "x" * 1000000}]}
    else:
        r = {"content": [{"type": "text", "text": "small"}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;
    let mut command = std::process::Command::new("python3");
    command.args(["-c", script]);
    let client = pollster::block_on(
        StdioClient::builder(command)
            .protocol(Protocol::Legacy)
            .max_message_bytes(LIMIT)
            .timeout(Duration::from_secs(3))
            .spawn(),
    )
    .expect("connects");
    let error = call(&client, "big").expect_err("dropped").to_string();
    assert!(
        error.contains(&format!("more than {LIMIT} bytes")) && error.contains("dropped"),
        "{error}"
    );
    call(&client, "small").expect("the next call works");
}
