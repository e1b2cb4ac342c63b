//! An incremental Server-Sent Events parser: bytes in as they arrive, event payloads out as
//! soon as each event is complete.

/// Parser state across chunks.
#[derive(Debug)]
pub(crate) struct SseParser {
    /// The most an event (its data) or a line may hold: a peer's stream cannot make the
    /// parser grow without end.
    limit: usize,
    buffer: Vec<u8>,
    data: String,
    has_data: bool,
    /// The last `id:` seen (for a legacy-era reconnection with `Last-Event-ID`).
    pub(crate) last_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub(crate) retry: Option<u64>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(crate::client::builder::MAX_MESSAGE_BYTES)
    }
}

impl SseParser {
    /// A parser of events of at most `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        SseParser {
            limit,
            buffer: Vec::new(),
            data: String::new(),
            has_data: false,
            last_id: None,
            retry: None,
        }
    }

    /// Feeds `chunk`; returns the `data` of every event it completes, or the limit when a line
    /// or an event's data passed it (the stream is then of no further use).
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Vec<String>, usize> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buffer[start..].iter().position(|&b| b == b'\n') {
            let mut line = &self.buffer[start..start + end];
            start += end + 1;
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            let line = String::from_utf8_lossy(line).into_owned();
            self.line(&line, &mut events);
            if self.data.len() > self.limit {
                return Err(self.limit);
            }
        }
        self.buffer.drain(..start);
        if self.buffer.len() > self.limit {
            return Err(self.limit);
        }
        Ok(events)
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            if self.has_data {
                let mut data = std::mem::take(&mut self.data);
                if data.ends_with('\n') {
                    data.pop();
                }
                events.push(data);
                self.has_data = false;
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_whole_whatever_the_chunking() {
        let stream = b": comment\nid: e-1\nretry: 500\ndata: \n\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: last\n\n";
        for size in 1..stream.len() {
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            for chunk in stream.chunks(size) {
                events.extend(parser.push(chunk).expect("within the limit"));
            }
            assert_eq!(events, ["", "{\"a\":\n1}", "last"], "chunks of {size}");
            assert_eq!(parser.last_id.as_deref(), Some("e-1"));
            assert_eq!(parser.retry, Some(500));
        }
    }

    #[test]
    fn a_line_or_an_event_past_the_limit_is_refused_before_it_grows_further() {
        // One endless line, in chunks: refused once the unfinished line passes the limit.
        let mut parser = SseParser::new(1_000);
        let mut refused = None;
        for round in 0..100 {
            if parser.push(&[b'x'; 100]).is_err() {
                refused = Some(round);
                break;
            }
        }
        assert_eq!(refused, Some(10), "at 1,100 bytes held");
        // An event of many short data lines: refused at its data, not at a line.
        let mut parser = SseParser::new(1_000);
        let mut refused = false;
        for _ in 0..100 {
            if parser
                .push(b"data: 0123456789012345678901234567890123456789\n")
                .is_err()
            {
                refused = true;
                break;
            }
        }
        assert!(refused);
        // Within the limit, the same parser reads on.
        let mut parser = SseParser::new(1_000);
        assert_eq!(parser.push(b"data: ok\n\n"), Ok(vec!["ok".to_owned()]));
    }
}
