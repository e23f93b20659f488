//! A stdio connection's JSON-RPC lines shared by two parties: rmcp's transport and the
//! [`lane`](super::lane) that carries `tools/call` beside it.
//!
//! - [`LineSink`]: one task writes the connection; every party hands it whole lines, so two
//!   writers never interleave inside a message, and none waits on another's write.
//! - [`LineFilter`]: reads the connection line by line and offers each whole line to a
//!   [`Claim`] before the reader above (rmcp's transport) sees it; a claimed line is taken out
//!   of the stream.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::mpsc;

/// The writing side of a connection, shared: whole lines are queued to the one task that
/// writes them. Cloning it is cheap; the connection is closed once every clone is gone.
#[derive(Clone, Debug)]
pub(crate) struct LineSink {
    lines: mpsc::UnboundedSender<Vec<u8>>,
}

impl LineSink {
    /// Starts the task that writes `write`, and returns the way to it. Must be called within a
    /// Tokio runtime.
    pub(crate) fn spawn<W>(write: W) -> LineSink
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (lines, queue) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(write, queue));
        LineSink { lines }
    }

    /// Queues `line`, which must be one whole message ending in `\n`; fails once the
    /// connection cannot be written any more.
    pub(crate) fn send(&self, line: Vec<u8>) -> io::Result<()> {
        self.lines.send(line).map_err(|_| closed())
    }

    /// A writer for a party that writes bytes (rmcp's transport): what it writes is queued
    /// line by line, each whole line at once.
    pub(crate) fn writer(&self) -> SinkWriter {
        SinkWriter {
            sink: self.clone(),
            partial: Vec::new(),
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the connection is closed")
}

/// Writes the queued lines as they come, those queued meanwhile in one write; stops at the
/// first failed write (the reader is gone), which every sender then sees.
async fn write_lines<W>(mut write: W, mut queue: mpsc::UnboundedReceiver<Vec<u8>>)
where
    W: AsyncWrite + Unpin,
{
    while let Some(mut lines) = queue.recv().await {
        while let Ok(next) = queue.try_recv() {
            lines.extend_from_slice(&next);
        }
        if write.write_all(&lines).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// A byte writer onto a [`LineSink`]: bytes are held until their line ends.
#[derive(Debug)]
pub(crate) struct SinkWriter {
    sink: LineSink,
    /// The start of a line not yet ended.
    partial: Vec<u8>,
}

impl AsyncWrite for SinkWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let Some(end) = memchr::memrchr(b'\n', bytes) else {
            this.partial.extend_from_slice(bytes);
            return Poll::Ready(Ok(bytes.len()));
        };
        let (lines, rest) = bytes.split_at(end + 1);
        let mut whole = std::mem::take(&mut this.partial);
        whole.extend_from_slice(lines);
        this.partial.extend_from_slice(rest);
        Poll::Ready(this.sink.send(whole).map(|()| bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Queued is as far as a party can see: the writing task flushes after each batch.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Who may take lines out of a [`LineFilter`]'s stream.
pub(crate) trait Claim: Send + Sync {
    /// Whether `line` (one whole line, without its `\n`) is taken; a line not taken reaches
    /// the reader above.
    fn claim(&self, line: &[u8]) -> bool;

    /// The connection ended (end of file or a read error): told once.
    fn ended(&self) {}
}

/// Reads lines from `inner`, handing up those the [`Claim`] does not take.
pub(crate) struct LineFilter<R> {
    inner: R,
    claim: Arc<dyn Claim>,
    /// The start of a line not yet ended.
    line: Vec<u8>,
    /// Lines to hand up before reading on.
    pending: Vec<u8>,
    /// How much of `pending` was handed up.
    handed: usize,
    read: Box<[u8]>,
    ended: bool,
}

impl<R> LineFilter<R> {
    pub(crate) fn new(inner: R, claim: Arc<dyn Claim>) -> Self {
        LineFilter {
            inner,
            claim,
            line: Vec::new(),
            pending: Vec::new(),
            handed: 0,
            read: vec![0; 8192].into_boxed_slice(),
            ended: false,
        }
    }

    /// Offers each line that `chunk` ends to the claim, and keeps what is not taken.
    fn take(&mut self, mut chunk: &[u8]) {
        while let Some(at) = memchr::memchr(b'\n', chunk) {
            let (part, rest) = chunk.split_at(at + 1);
            chunk = rest;
            if self.line.is_empty() {
                if !self.claim.claim(&part[..at]) {
                    self.pending.extend_from_slice(part);
                }
            } else {
                self.line.extend_from_slice(part);
                let body = &self.line[..self.line.len() - 1];
                if !self.claim.claim(body) {
                    self.pending.extend_from_slice(&self.line);
                }
                self.line.clear();
            }
        }
        self.line.extend_from_slice(chunk);
    }

    /// Moves pending bytes into `out`, as many as fit.
    fn hand_out(&mut self, out: &mut ReadBuf<'_>) {
        let n = (self.pending.len() - self.handed).min(out.remaining());
        out.put_slice(&self.pending[self.handed..self.handed + n]);
        self.handed += n;
        if self.handed == self.pending.len() {
            self.pending.clear();
            self.handed = 0;
        }
    }

    fn end(&mut self) {
        if !std::mem::replace(&mut self.ended, true) {
            self.claim.ended();
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineFilter<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.handed < this.pending.len() {
                this.hand_out(out);
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut this.read);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => {
                    this.end();
                    return Poll::Ready(Err(error));
                }
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // An unended last line is no message: the reader above drops it too.
                    this.end();
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(())) => {
                    let n = read.filled().len();
                    let chunk = std::mem::take(&mut this.read);
                    this.take(&chunk[..n]);
                    this.read = chunk;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tokio::io::AsyncReadExt;

    use super::*;

    /// Takes the lines that start with `take`, and remembers them.
    struct Taker {
        taken: Mutex<Vec<String>>,
        ended: Mutex<u32>,
    }

    impl Claim for Taker {
        fn claim(&self, line: &[u8]) -> bool {
            let line = String::from_utf8_lossy(line).into_owned();
            let taken = line.starts_with("take");
            if taken {
                self.taken.lock().unwrap().push(line);
            }
            taken
        }

        fn ended(&self) {
            *self.ended.lock().unwrap() += 1;
        }
    }

    #[tokio::test]
    async fn a_filter_hands_up_the_lines_not_claimed_and_is_told_of_the_end_once() {
        let taker = Arc::new(Taker {
            taken: Mutex::default(),
            ended: Mutex::default(),
        });
        // Lines split across reads, and one claimed line between two others.
        let (mut write, read) = tokio::io::duplex(16);
        let mut filter = LineFilter::new(read, Arc::clone(&taker) as Arc<dyn Claim>);
        let writing = tokio::spawn(async move {
            for part in ["keep one\nta", "ke this one\nkeep", " two\n", "unended"] {
                write.write_all(part.as_bytes()).await.unwrap();
            }
        });
        let mut handed = String::new();
        filter.read_to_string(&mut handed).await.unwrap();
        writing.await.unwrap();
        assert_eq!(handed, "keep one\nkeep two\n");
        assert_eq!(*taker.taken.lock().unwrap(), ["take this one"]);
        let mut more = [0; 4];
        assert_eq!(filter.read(&mut more).await.unwrap(), 0);
        assert_eq!(*taker.ended.lock().unwrap(), 1);
    }

    #[tokio::test]
    async fn two_writers_never_interleave_inside_a_line() {
        let (write, mut read) = tokio::io::duplex(1 << 16);
        let sink = LineSink::spawn(write);
        let mut bytes_writer = sink.writer();
        // The byte writer sends half a line, the other party a whole one, then the rest.
        bytes_writer.write_all(b"{\"first\":").await.unwrap();
        sink.send(b"{\"whole\":1}\n".to_vec()).unwrap();
        bytes_writer.write_all(b"1}\n").await.unwrap();
        drop(bytes_writer);
        drop(sink);
        let mut written = String::new();
        read.read_to_string(&mut written).await.unwrap();
        assert_eq!(written, "{\"whole\":1}\n{\"first\":1}\n");
    }

    #[tokio::test]
    async fn a_sink_whose_reader_is_gone_refuses_lines() {
        let (write, read) = tokio::io::duplex(64);
        drop(read);
        let sink = LineSink::spawn(write);
        sink.send(b"{}\n".to_vec()).unwrap_or(());
        // The writing task finds the reader gone and stops; later lines are refused.
        let mut refused = false;
        for _ in 0..100 {
            if sink.send(b"{}\n".to_vec()).is_err() {
                refused = true;
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(refused, "a sink whose reader is gone still takes lines");
    }
}
