//! The conformance host (this project's own server, `conformance_host`) on 127.0.0.1, shared by
//! the test binaries that need a server of ours to talk to.
#![allow(dead_code)] // each binary uses a part

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The fixture host on a free port; killed when dropped.
pub(crate) struct Host {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`
    pub(crate) url: String,
}

impl Host {
    pub(crate) fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance_host"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("prints its URL");
        Host {
            child,
            url: line.trim().to_owned(),
        }
    }

    /// `127.0.0.1:PORT`
    pub(crate) fn authority(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
