//! The size limit on messages, as a reader between a pipe and the proxy's MCP transport.
//!
//! A message (one line) longer than the limit is never buffered or forwarded: its bytes are
//! dropped as they come. So that its sender is told instead of waiting, the reader reads the
//! message's `id` in its first bytes and puts a small message in its place:
//!
//! - a request (it has a `method`) becomes an [`OVERSIZED_METHOD`] request with the same id,
//!   which the proxy answers with an error (the sender's request gets that answer);
//! - a response becomes an error response with the same id (the request it answers, which the
//!   proxy sent, ends with that error, which reaches whoever made it).
//!
//! A message without an id in its first [`ID_WINDOW`] bytes (a notification, or an unusual
//! field order) is only dropped, and logged.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, ReadBuf};

/// The method of the request that stands for a request over the limit; its `params` are
/// `{"bytes": <at least this many>, "limit": <the limit>}`.
pub const OVERSIZED_METHOD: &str = "hooks/oversizedMessage";

/// How far into a message its `id` is looked for.
const ID_WINDOW: usize = 4096;

/// More than the longest stand-in (its envelope and an id of up to [`ID_WINDOW`] bytes).
pub(crate) const STANDIN_ROOM: usize = 2 * ID_WINDOW;

/// The error an [`OVERSIZED_METHOD`] request, or a response over the limit, is answered with.
pub(crate) fn oversized_message(params: Option<&Value>) -> String {
    let number = |key| {
        params
            .and_then(|params| params.get(key))
            .and_then(Value::as_u64)
    };
    match (number("bytes"), number("limit")) {
        (Some(bytes), Some(limit)) => format!(
            "a message of more than {bytes} bytes is over the proxy's limit of {limit} bytes; \
             it was not forwarded"
        ),
        _ => "a message was over the proxy's size limit; it was not forwarded".to_owned(),
    }
}

/// Reads lines from `inner`, each at most `limit` bytes long; see the module docs.
pub(crate) struct LineLimit<R> {
    inner: R,
    limit: usize,
    /// The bytes of the current line passed on so far.
    line: usize,
    /// The first bytes of the current line, to find its id in.
    head: Vec<u8>,
    /// Whether the current line is over the limit (its rest is dropped).
    dropping: bool,
    /// Bytes to hand out before reading on (the message in place of a dropped one).
    pending: Vec<u8>,
    read: Box<[u8]>,
}

impl<R> LineLimit<R> {
    pub(crate) fn new(inner: R, limit: usize) -> Self {
        LineLimit {
            inner,
            limit,
            line: 0,
            head: Vec::new(),
            dropping: false,
            pending: Vec::new(),
            read: vec![0; 8192].into_boxed_slice(),
        }
    }

    /// Takes `chunk` (just read) into `out` and `pending`, line by line.
    fn take(&mut self, mut chunk: &[u8], out: &mut ReadBuf<'_>) {
        while !chunk.is_empty() {
            let end = chunk
                .iter()
                .position(|&b| b == b'\n')
                .map_or(chunk.len(), |at| at + 1);
            let (part, rest) = chunk.split_at(end);
            chunk = rest;
            let ends_line = part.last() == Some(&b'\n');
            let body = part.len() - usize::from(ends_line);
            if !self.dropping && self.line + body > self.limit {
                self.dropping = true;
                // What was passed on of the line is ended here: an unfinished JSON text, which
                // the transport reads as unparsable and ignores.
                if self.line > 0 {
                    self.pending.push(b'\n');
                }
            }
            if self.head.len() < ID_WINDOW {
                let room = ID_WINDOW - self.head.len();
                self.head.extend_from_slice(&part[..body.min(room)]);
            }
            self.line += body;
            if !self.dropping {
                self.pending.extend_from_slice(part);
            }
            if ends_line {
                if self.dropping {
                    let standin = standin(&self.head, self.line, self.limit);
                    self.pending.extend_from_slice(&standin);
                }
                self.line = 0;
                self.head.clear();
                self.dropping = false;
            }
        }
        self.hand_out(out);
    }

    /// Moves what is pending into `out`, as much as fits.
    fn hand_out(&mut self, out: &mut ReadBuf<'_>) {
        let n = self.pending.len().min(out.remaining());
        out.put_slice(&self.pending[..n]);
        self.pending.drain(..n);
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimit<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        // A caller's buffer may come partly filled: only what this read adds counts.
        let before = out.filled().len();
        loop {
            if !this.pending.is_empty() {
                this.hand_out(out);
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut this.read);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().len();
                    if filled == 0 {
                        // The end of the stream.
                        return Poll::Ready(Ok(()));
                    }
                    let chunk = this.read[..filled].to_vec();
                    this.take(&chunk, out);
                    if out.filled().len() == before && this.pending.is_empty() {
                        // All of it was dropped: read on rather than report an end.
                        continue;
                    }
                    return Poll::Ready(Ok(()));
                }
            }
        }
    }
}

/// The message in place of a line of `bytes` bytes over `limit` whose first bytes are `head`;
/// nothing when it has no id there.
fn standin(head: &[u8], bytes: usize, limit: usize) -> Vec<u8> {
    let Some((id, is_request)) = id_of(head) else {
        tracing::error!(
            bytes,
            limit,
            "a message over the size limit was dropped (no id to answer it by)"
        );
        return Vec::new();
    };
    tracing::error!(bytes, limit, %id, "a message over the size limit was dropped");
    let params = json!({"bytes": bytes, "limit": limit});
    let message = if is_request {
        json!({"jsonrpc": "2.0", "id": id, "method": OVERSIZED_METHOD, "params": params})
    } else {
        let text = oversized_message(Some(&params));
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": text}})
    };
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// The `id` of the JSON-RPC message that begins with `head` (a number or a string), and
/// whether it is a request (it has a `method`), read from its top-level fields only.
fn id_of(head: &[u8]) -> Option<(Value, bool)> {
    let mut depth = 0usize;
    let mut at = 0;
    let mut key: Option<Vec<u8>> = None;
    let mut expect_key = false;
    let mut id = None;
    let mut is_request = false;
    while at < head.len() {
        match head[at] {
            b'"' => {
                // A string the window cuts ends the reading.
                let Some(end) = string_end(head, at) else {
                    break;
                };
                if depth == 1 && expect_key {
                    let name = head[at + 1..end].to_vec();
                    is_request |= name == b"method";
                    key = Some(name);
                    expect_key = false;
                }
                at = end;
            }
            b':' if depth == 1 && key.as_deref() == Some(b"id") => {
                id = value_at(head, at + 1);
            }
            b',' if depth == 1 => expect_key = true,
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    id.map(|id| (id, is_request))
}

/// The index of the quote that ends the string opening at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

/// The number or string that starts (after spaces) at `start`.
fn value_at(text: &[u8], start: usize) -> Option<Value> {
    let start = start
        + text[start..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    let end = match text.get(start)? {
        b'"' => string_end(text, start)? + 1,
        _ => {
            start
                + text[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit() || b"-+.eE".contains(b))
                    .count()
        }
    };
    match serde_json::from_slice(&text[start..end]).ok()? {
        value @ (Value::Number(_) | Value::String(_)) => Some(value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use tokio::io::AsyncReadExt;

    use super::*;

    #[test]
    fn the_id_is_read_from_the_top_level_only() {
        let request =
            br#"{"jsonrpc":"2.0","params":{"id":7,"method":"x"},"id":"a-1","method":"tools/call"#;
        assert_eq!(id_of(request), Some((json!("a-1"), true)));
        let response =
            br#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"\"id\":1"#;
        assert_eq!(id_of(response), Some((json!(42), false)));
        let notification =
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":3"#;
        assert_eq!(id_of(notification), None);
    }

    async fn through(input: &[u8], limit: usize) -> String {
        let mut reader = LineLimit::new(input, limit);
        let mut out = String::new();
        reader.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_unchanged_and_one_over_it_is_replaced() {
        let small = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"text":"{}"}}}}"#,
            "x".repeat(100_000)
        );
        let input = format!("{small}\n{big}\n{small}\n");
        let out = through(input.as_bytes(), 1000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], small);
        let standin: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(standin["id"], 2);
        assert_eq!(standin["method"], OVERSIZED_METHOD);
        assert_eq!(standin["params"]["limit"], 1000);
        assert_eq!(lines[2], small);
        assert!(out.len() < 2000);
    }

    #[tokio::test]
    async fn what_was_passed_of_a_line_before_it_went_over_is_ended_unparsable() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"text":"{}"}}}}"#,
            "x".repeat(20_000)
        );
        let out = through(format!("{big}\n").as_bytes(), 10_000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].len() <= 10_000);
        assert!(serde_json::from_str::<Value>(lines[0]).is_err());
        let standin: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(standin["id"], 3);
    }

    #[tokio::test]
    async fn a_response_over_the_limit_becomes_an_error_for_its_request() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":9,"result":{{"text":"{}"}}}}"#,
            "y".repeat(5000)
        );
        let out = through(format!("{big}\n").as_bytes(), 100).await;
        let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        assert_eq!(last["id"], 9);
        assert!(
            last["error"]["message"]
                .as_str()
                .unwrap()
                .contains("limit of 100 bytes")
        );
    }
}
