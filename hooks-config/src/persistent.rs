//! Persistent command hooks: one long-lived process per entry, one JSON object per line each way,
//! so a policy script's start-up (an interpreter, its imports, its rules) is paid once rather
//! than per event.
//!
//! The process reads a request line (the same JSON a per-event hook reads on stdin, plus a
//! `request_id`) and answers with one line in any of the answer protocols. Requests go one at a
//! time, in emit order. The process is started at the first event, restarted at the next event
//! after it dies, and killed (its whole process group) when it times out, answers out of turn,
//! or the hook is unmounted. An answer that cannot be read, or that echoes another request's id,
//! also restarts it, and so does output found waiting before a request is sent: a stray line on
//! stdout must not be taken as the answer to a later event. (Output that arrives just as a
//! request is sent can only be told apart by the echoed id.)

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as SyncMutex};
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::Mutex;

use hooks_core::HookResult;
use hooks_std::process::{GroupedChild, OUTPUT_CAP, ProcessError};

use crate::Entry;
use crate::answer::parse_line;
use crate::command::{Site, shell};
use crate::failure::{Failure, NoAnswer};
use crate::request::{REQUEST_ID_FIELD, request};
use crate::runner::Runner;
use hooks_core::sync::lock;

/// How much of a persistent hook's stderr is kept for failure reports.
const STDERR_KEPT: usize = 4096;

/// A persistent hook's process, started on demand.
#[derive(Debug)]
pub(crate) struct PersistentProcess {
    command: String,
    site: Site,
    running: Mutex<Option<Running>>,
    next_request: AtomicU64,
}

/// A started process and its pipes. Dropping it kills the process group.
#[derive(Debug)]
struct Running {
    process: GroupedChild,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<SyncMutex<Vec<u8>>>,
    stderr_drain: tokio::task::JoinHandle<()>,
}

impl PersistentProcess {
    /// A process for `command`, run by `sh -c` at `site` once the first event comes.
    pub(crate) fn new(command: &str, site: &Site) -> Self {
        PersistentProcess {
            command: command.to_owned(),
            site: site.clone(),
            running: Mutex::new(None),
            next_request: AtomicU64::new(1),
        }
    }

    /// Sends `request` (with a fresh `request_id`) and reads the answer line.
    ///
    /// Returns the request id with the line, so the caller can check an echoed id.
    pub(crate) async fn round_trip(
        &self,
        mut request: serde_json::Map<String, Value>,
        timeout: Duration,
    ) -> Result<(u64, String), NoAnswer> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        request.insert(REQUEST_ID_FIELD.to_owned(), Value::from(id));
        let mut line = Value::Object(request).to_string();
        line.push('\n');
        // One request at a time: the protocol has no other way to pair answers with requests.
        let mut slot = self.running.lock().await;
        if let Some(running) = slot.as_mut()
            && let Some(why) = running.unusable()
        {
            tracing::warn!(command = %self.command, "a persistent hook {why}; restarting it");
            *slot = None;
        }
        let running = match slot.as_mut() {
            Some(running) => running,
            None => slot.insert(self.start().map_err(NoAnswer::Start)?),
        };
        let exchange = tokio::time::timeout(timeout, running.exchange(line.as_bytes())).await;
        match exchange {
            Ok(Ok(answer)) => Ok((id, answer)),
            Ok(Err(error)) => {
                let error = match error {
                    Exchange::Closed => NoAnswer::Died(running.how_it_ended().await),
                    Exchange::TooLong => NoAnswer::TooLong,
                };
                *slot = None;
                Err(error)
            }
            Err(_elapsed) => {
                *slot = None;
                Err(NoAnswer::TimedOut)
            }
        }
    }

    /// Kills the process if it runs; the next event starts a fresh one.
    pub(crate) async fn restart(&self) {
        *self.running.lock().await = None;
    }

    fn start(&self) -> Result<Running, ProcessError> {
        let mut shell = shell(&self.command, &self.site);
        shell.env("HOOKS_PERSISTENT", "1");
        let mut process = GroupedChild::spawn(shell)?;
        let child = process.child();
        let missing = || ProcessError::Spawn(std::io::Error::other("the process has no pipes"));
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let mut stderr = child.stderr.take().ok_or_else(missing)?;
        // Drain stderr all the time, so a chatty hook never blocks on a full pipe; keep the tail.
        let kept = Arc::new(SyncMutex::new(Vec::new()));
        let tail = Arc::clone(&kept);
        let stderr_drain = tokio::spawn(async move {
            let mut buffer = [0_u8; 4096];
            while let Ok(read @ 1..) = stderr.read(&mut buffer).await {
                let mut tail = lock(&tail);
                tail.extend_from_slice(&buffer[..read]);
                let excess = tail.len().saturating_sub(STDERR_KEPT);
                tail.drain(..excess);
            }
        });
        Ok(Running {
            process,
            stdin,
            stdout: BufReader::new(stdout),
            stderr: kept,
            stderr_drain,
        })
    }
}

/// Why an exchange failed before the timeout.
enum Exchange {
    Closed,
    TooLong,
}

impl Running {
    /// Why the process cannot take the next request, if it cannot: it ended, closed its
    /// output, or printed something nobody asked for since its last answer.
    fn unusable(&mut self) -> Option<&'static str> {
        if !matches!(self.process.child().try_wait(), Ok(None)) {
            return Some("ended between requests");
        }
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        // One poll, no waiting: only a read that would block means a quiet, open stdout.
        match Pin::new(&mut self.stdout).poll_fill_buf(&mut context) {
            Poll::Pending => None,
            Poll::Ready(Ok([])) | Poll::Ready(Err(_)) => Some("closed its output"),
            Poll::Ready(Ok(_)) => Some("printed between requests"),
        }
    }

    async fn exchange(&mut self, line: &[u8]) -> Result<String, Exchange> {
        if self.stdin.write_all(line).await.is_err() || self.stdin.flush().await.is_err() {
            return Err(Exchange::Closed);
        }
        let mut answer = Vec::new();
        loop {
            let buffer = self.stdout.fill_buf().await.map_err(|_| Exchange::Closed)?;
            if buffer.is_empty() {
                return Err(Exchange::Closed);
            }
            let (taken, done) = match buffer.iter().position(|&byte| byte == b'\n') {
                Some(end) => (end + 1, true),
                None => (buffer.len(), false),
            };
            answer.extend_from_slice(&buffer[..taken]);
            self.stdout.consume(taken);
            if answer.len() > OUTPUT_CAP {
                return Err(Exchange::TooLong);
            }
            if done {
                return Ok(String::from_utf8_lossy(&answer).into_owned());
            }
        }
    }

    /// How the process ended, for a failure report (it has closed its stdout).
    async fn how_it_ended(&mut self) -> String {
        let status =
            tokio::time::timeout(Duration::from_millis(500), self.process.child().wait()).await;
        // Its last words may still be in the pipe: let the drain reach the end (bounded, since a
        // child it left behind may hold stderr open).
        let _ = tokio::time::timeout(Duration::from_millis(200), &mut self.stderr_drain).await;
        let stderr = String::from_utf8_lossy(&lock(&self.stderr))
            .trim()
            .to_owned();
        let last_line = stderr.lines().last().unwrap_or("");
        match status {
            Ok(Ok(status)) => match status.code() {
                Some(code @ 129..=192) => format!("was killed by signal {}", code - 128),
                Some(code) if last_line.is_empty() => format!("exited with {code}"),
                Some(code) => format!("exited with {code}: {last_line}"),
                None => "was killed by a signal".to_owned(),
            },
            _ => "closed its output without answering".to_owned(),
        }
    }
}

/// A persistent command hook: one request line, one answer line per event.
pub(crate) struct PersistentRunner {
    pub(crate) process: PersistentProcess,
    pub(crate) site: Site,
}

impl Runner for PersistentRunner {
    async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
        let request = request(entry, &self.site.project_dir, data);
        let (id, line) = self.process.round_trip(request, entry.timeout).await?;
        match parse_line(&line, id, &entry.event, data) {
            Ok(result) => Ok(result),
            Err(why) => {
                // After an answer it cannot read, the next line it prints may be this answer's
                // rest: only a fresh process is surely in step again.
                self.process.restart().await;
                Err(Failure::Restarted(why))
            }
        }
    }
}
