//! A loopback HTTP proxy that records what it carried, shared by the test binaries that
//! check proxy routing.

/// A loopback HTTP proxy for the proxy tests: `CONNECT host:port` is tunnelled, and a request
/// in absolute form (`POST http://host:port/mcp`) is forwarded (origin form, `Connection:
/// close`). It records the target of every connection it handled.
pub(crate) struct LoopbackProxy {
    pub(crate) url: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl LoopbackProxy {
    pub(crate) fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let log = log.clone();
                std::thread::spawn(move || {
                    let _ = proxy_connection(stream, &log);
                });
            }
        });
        LoopbackProxy { url, seen }
    }

    /// The targets of the connections handled so far (`CONNECT localhost:443`, `POST
    /// http://127.0.0.1:80/mcp`).
    pub(crate) fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("lock").clone()
    }
}

fn proxy_connection(
    mut client: std::net::TcpStream,
    log: &std::sync::Mutex<Vec<String>>,
) -> std::io::Result<()> {
    use std::io::{Read, Write};
    // The request head, byte by byte (nothing of the body is read), at most 64 KiB.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 65536 || client.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut request_line = head.lines().next().unwrap_or("").split(' ');
    let (method, target) = (
        request_line.next().unwrap_or(""),
        request_line.next().unwrap_or(""),
    );
    let upstream = if method == "CONNECT" {
        log.lock().expect("lock").push(format!("CONNECT {target}"));
        let upstream = std::net::TcpStream::connect(target)?;
        client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
        upstream
    } else {
        log.lock().expect("lock").push(format!("{method} {target}"));
        let rest = target.strip_prefix("http://").unwrap_or(target);
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let mut upstream = std::net::TcpStream::connect(authority)?;
        // One request per forwarded connection: the server closes it after answering.
        let mut forwarded = head.replacen(target, if path.is_empty() { "/" } else { path }, 1);
        forwarded.truncate(forwarded.len() - 2);
        forwarded.push_str("Connection: close\r\n\r\n");
        upstream.write_all(forwarded.as_bytes())?;
        upstream
    };
    let (mut client_read, mut upstream_write) = (client.try_clone()?, upstream.try_clone()?);
    let copying = std::thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut upstream_write);
        let _ = upstream_write.shutdown(std::net::Shutdown::Write);
    });
    let (mut upstream_read, mut client_write) = (upstream, client);
    let _ = std::io::copy(&mut upstream_read, &mut client_write);
    let _ = client_write.shutdown(std::net::Shutdown::Both);
    let _ = copying.join();
    Ok(())
}
