//! The proxy's own stdin and stdout, read and written without a thread in between.
//!
//! `tokio::io::stdin()` and `stdout()` hand every read and write to a blocking thread: two
//! thread hand-offs per message, a large part of what the proxy added to a call. An MCP client
//! starts the proxy with a pipe (or, from Node.js, a socket) on each, and both can be polled by
//! the runtime directly once made non-blocking. Anything else (a terminal, a file), and a
//! descriptor that is also the proxy's stderr (which the server inherits and writes blocking),
//! keeps the blocking thread.

use std::io;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// A reader of the proxy's stdin (see [`stdio`]).
pub type Input = Pin<Box<dyn AsyncRead + Send>>;
/// A writer of the proxy's stdout (see [`stdio`]).
pub type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// This process's stdin and stdout as the proxy's client side, polled by the runtime directly
/// where they are pipes or sockets (see the [module docs](self)). Must be called within a Tokio
/// runtime.
pub fn stdio() -> (Input, Output) {
    (input(), output())
}

#[cfg(unix)]
fn input() -> Input {
    use std::os::fd::AsFd;
    match direct::reader(io::stdin().as_fd()) {
        Ok(Some(reader)) => reader,
        Ok(None) => Box::pin(tokio::io::stdin()),
        Err(error) => {
            tracing::debug!(%error, "stdin is read through a blocking thread");
            Box::pin(tokio::io::stdin())
        }
    }
}

#[cfg(unix)]
fn output() -> Output {
    use std::os::fd::AsFd;
    match direct::writer(io::stdout().as_fd()) {
        Ok(Some(writer)) => writer,
        Ok(None) => Box::pin(tokio::io::stdout()),
        Err(error) => {
            tracing::debug!(%error, "stdout is written through a blocking thread");
            Box::pin(tokio::io::stdout())
        }
    }
}

#[cfg(not(unix))]
fn input() -> Input {
    Box::pin(tokio::io::stdin())
}

#[cfg(not(unix))]
fn output() -> Output {
    Box::pin(tokio::io::stdout())
}

/// Pipes and sockets as the runtime polls them.
///
/// Each works on a copy of the descriptor, which shares the open file with it, so the
/// original becomes non-blocking too: nothing else in the proxy reads stdin or writes stdout,
/// and the server's are pipes of its own.
#[cfg(unix)]
pub(crate) mod direct {
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::os::unix::net::UnixStream;

    use tokio::net::unix::pipe;

    use super::{Input, Output};

    /// A reader of `fd` polled by the runtime, when `fd` is a pipe or a socket.
    pub(crate) fn reader(fd: BorrowedFd<'_>) -> io::Result<Option<Input>> {
        let Some((owned, metadata)) = copy(fd)? else {
            return Ok(None);
        };
        if metadata.file_type().is_fifo() {
            return Ok(Some(Box::pin(pipe::Receiver::from_file(File::from(
                owned,
            ))?)));
        }
        Ok(Some(Box::pin(socket(owned)?)))
    }

    /// A writer of `fd` polled by the runtime, when `fd` is a pipe or a socket.
    pub(crate) fn writer(fd: BorrowedFd<'_>) -> io::Result<Option<Output>> {
        let Some((owned, metadata)) = copy(fd)? else {
            return Ok(None);
        };
        if metadata.file_type().is_fifo() {
            return Ok(Some(Box::pin(pipe::Sender::from_file(File::from(owned))?)));
        }
        Ok(Some(Box::pin(socket(owned)?)))
    }

    /// A copy of `fd` when it is a pipe or a socket that is not also stderr.
    fn copy(fd: BorrowedFd<'_>) -> io::Result<Option<(OwnedFd, Metadata)>> {
        let owned = fd.try_clone_to_owned()?;
        let metadata = File::from(owned.try_clone()?).metadata()?;
        let kind = metadata.file_type();
        if !(kind.is_fifo() || kind.is_socket()) || is_stderr(&metadata) {
            return Ok(None);
        }
        Ok(Some((owned, metadata)))
    }

    /// Whether `metadata` is that of this process's stderr, which the server inherits and
    /// would find non-blocking.
    fn is_stderr(metadata: &Metadata) -> bool {
        let stderr = io::stderr();
        let Ok(stderr) = stderr.as_fd().try_clone_to_owned() else {
            return true;
        };
        match File::from(stderr).metadata() {
            Ok(theirs) => theirs.dev() == metadata.dev() && theirs.ino() == metadata.ino(),
            Err(_) => false,
        }
    }

    fn socket(owned: OwnedFd) -> io::Result<tokio::net::UnixStream> {
        let socket = UnixStream::from(owned);
        socket.set_nonblocking(true)?;
        tokio::net::UnixStream::from_std(socket)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::{Read, Write};
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::direct;

    /// A pipe: its read end is read, its write end written, by the runtime.
    #[tokio::test]
    async fn a_pipe_is_polled_directly() {
        let (read, write) = std::io::pipe().unwrap();
        let mut reader = direct::reader(read.as_fd())
            .unwrap()
            .expect("a pipe is polled");
        let mut writer = direct::writer(write.as_fd())
            .unwrap()
            .expect("a pipe is polled");
        writer.write_all(b"{\"jsonrpc\":\"2.0\"}\n").await.unwrap();
        writer.flush().await.unwrap();
        let mut line = [0u8; 18];
        reader.read_exact(&mut line).await.unwrap();
        assert_eq!(&line, b"{\"jsonrpc\":\"2.0\"}\n");
    }

    /// A socket (what Node.js gives a child for its stdio) works both ways.
    #[tokio::test]
    async fn a_socket_is_polled_directly() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut reader = direct::reader(ours.as_fd())
            .unwrap()
            .expect("a socket is polled");
        let mut writer = direct::writer(ours.as_fd())
            .unwrap()
            .expect("a socket is polled");
        theirs.write_all(b"ping\n").unwrap();
        let mut line = [0u8; 5];
        reader.read_exact(&mut line).await.unwrap();
        assert_eq!(&line, b"ping\n");
        writer.write_all(b"pong\n").await.unwrap();
        writer.flush().await.unwrap();
        let mut back = [0u8; 5];
        theirs.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"pong\n");
    }

    /// A regular file is left to the blocking thread (the runtime cannot poll it).
    #[tokio::test]
    async fn a_file_is_not_polled_directly() {
        let file = std::fs::File::open(std::env::current_exe().unwrap()).unwrap();
        assert!(direct::reader(file.as_fd()).unwrap().is_none());
    }

    /// A descriptor that is also stderr (which the server inherits) is never made
    /// non-blocking, whatever it is.
    #[tokio::test]
    async fn stderr_is_never_polled_directly() {
        assert!(direct::writer(std::io::stderr().as_fd()).unwrap().is_none());
    }
}
