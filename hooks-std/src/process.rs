//! Running external processes so that they cannot outlive, outlast or outgrow their caller:
//! the one runner of the linter and of the command hooks of `hooks-config`.
//!
//! A process runs in its own process group; the whole group is killed when the process ends,
//! at the deadline, and when the handle is dropped, so nothing it started outlives it and no
//! zombie is left. Its input is written and its output read under the same deadline, and each
//! output stream is capped at [`OUTPUT_CAP`] so a flood cannot exhaust memory.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::time::Duration;
//! use hooks_std::process::{ProcessError, run};
//!
//! let cat = tokio::process::Command::new("cat");
//! let finished = run(cat, b"hello", Duration::from_secs(5)).await.unwrap();
//! assert_eq!(finished.stdout, b"hello");
//!
//! let mut sleep = tokio::process::Command::new("sleep");
//! sleep.arg("5");
//! let late = run(sleep, b"", Duration::from_millis(50)).await;
//! assert!(matches!(late, Err(ProcessError::TimedOut)));
//! # }
//! ```

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::time::Instant;

/// The most output kept from each of stdout and stderr.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// How long after its deadline the output of a process is still read: the pipes of a killed
/// group take a moment to close, and what is left in them is still wanted.
pub const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// Why a process gave no usable outcome.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The process could not be started (`NotFound` when the program does not exist).
    #[error("could not start: {0}")]
    Spawn(#[source] std::io::Error),
    /// The deadline passed; the process group was killed.
    #[error("timed out and was killed")]
    TimedOut,
    /// The process ended in time, but a process it started outside its group still held its
    /// output open at the deadline: what it printed cannot be trusted to be complete.
    #[error("ended, but a process it started kept its output open past the timeout")]
    OutputHeld,
    /// It printed more than the cap allows.
    #[error("printed more than {cap} bytes")]
    OutputOverCap {
        /// The cap, in bytes.
        cap: usize,
    },
    /// It was killed by a signal (directly, or the program `sh -c` ran).
    #[error("was killed by signal {0}")]
    Signal(i32),
    /// It exited with a failure code.
    #[error("exited with {code}: {stderr}")]
    Exited {
        /// The exit code.
        code: i32,
        /// The first line of its standard error.
        stderr: String,
    },
}

/// A process that ended within its deadline.
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub status: ExitStatus,
    /// Standard output, at most [`OUTPUT_CAP`] bytes.
    pub stdout: Vec<u8>,
    /// Standard error, at most [`OUTPUT_CAP`] bytes.
    pub stderr: Vec<u8>,
    /// Whether either stream was cut at the cap.
    pub truncated: bool,
}

impl Finished {
    /// Standard output, lossily decoded.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error, lossily decoded.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The failure an exit other than success is: a signal, or a code with the first line of
    /// standard error. `None` for a successful exit.
    pub fn failure(&self) -> Option<ProcessError> {
        exit_failure(self.status, &self.stderr_text())
    }
}

/// The failure `status` is, if it is one; `stderr` gives the reason of a failure code.
pub fn exit_failure(status: ExitStatus, stderr: &str) -> Option<ProcessError> {
    if status.success() {
        return None;
    }
    let first_line = stderr.trim().lines().next().unwrap_or("").to_owned();
    match (status.code(), status.signal()) {
        // Through `sh -c`, a program killed by signal N exits with 128 + N.
        (Some(code @ 129..=192), _) => Some(ProcessError::Signal(code - 128)),
        (Some(code), _) => Some(ProcessError::Exited {
            code,
            stderr: first_line,
        }),
        (None, Some(signal)) => Some(ProcessError::Signal(signal)),
        (None, None) => Some(ProcessError::Signal(0)),
    }
}

/// A started process in a process group of its own, with its pipes. Dropping it kills the
/// whole group.
#[derive(Debug)]
pub struct GroupedChild {
    child: Child,
    group: Option<u32>,
}

impl GroupedChild {
    /// Starts `command` as the leader of a new process group, its stdin, stdout and stderr
    /// piped.
    pub fn spawn(mut command: Command) -> Result<Self, ProcessError> {
        command
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let child = command.spawn().map_err(ProcessError::Spawn)?;
        Ok(GroupedChild {
            group: child.id(),
            child,
        })
    }

    /// The process, to take its pipes or wait for it.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Kills every process of the group (the process itself included).
    pub fn kill_group(&self) {
        if let Some(pid) = self.group.and_then(|pid| i32::try_from(pid).ok()) {
            // The group may already be gone; that is the goal either way.
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

impl Drop for GroupedChild {
    fn drop(&mut self) {
        self.kill_group();
    }
}

fn missing_pipe() -> ProcessError {
    ProcessError::Spawn(std::io::Error::other("the process has no pipes"))
}

/// Reads `stream` to its end, keeping at most [`OUTPUT_CAP`] bytes; beyond that it keeps
/// reading (so the writer is not blocked) but discards. Returns what was kept and whether
/// anything was discarded.
async fn read_capped(mut stream: impl AsyncRead + Unpin) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut buffer = [0_u8; 8192];
    let mut truncated = false;
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return (kept, truncated),
            Ok(read) => {
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
                truncated |= read > room;
            }
        }
    }
}

/// Runs `command` in a process group of its own with `input` on stdin, and collects its
/// output.
///
/// Everything is bounded by `timeout`: the process, the delivery of its input (a process that
/// never reads a large input cannot stall the call) and the end of its output (a process that
/// left the group but still holds stdout open cannot either). The call returns at most
/// [`OUTPUT_GRACE`] after the timeout. When the process ends, or the timeout passes, its whole
/// group is killed.
///
/// A process that ends in time is [`Finished`] whatever its exit status; output beyond
/// [`OUTPUT_CAP`] is discarded and marked `truncated`, for the caller to decide.
pub async fn run(
    command: Command,
    input: &[u8],
    timeout: Duration,
) -> Result<Finished, ProcessError> {
    let deadline = Instant::now() + timeout;
    let mut process = GroupedChild::spawn(command)?;
    let child = process.child();
    let mut stdout = tokio::spawn(read_capped(child.stdout.take().ok_or_else(missing_pipe)?));
    let mut stderr = tokio::spawn(read_capped(child.stderr.take().ok_or_else(missing_pipe)?));
    if let Some(mut stdin) = child.stdin.take() {
        // Written beside the wait, not before it: a process that does not read its input would
        // otherwise block the write, and the timeout would never start. One that closes the
        // pipe early is not an error; the write ends when the group is killed.
        let input = input.to_vec();
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
    }
    let status = tokio::select! {
        status = child.wait() => Some(status.map_err(ProcessError::Spawn)?),
        () = tokio::time::sleep_until(deadline) => None,
    };
    // Whatever it left running in its group goes too, so the pipes close and nothing outlives
    // it.
    process.kill_group();
    if status.is_none() {
        // Reap the killed leader, so no zombie is left.
        let _ = process.child().wait().await;
    }
    // A process that escaped the group (setsid) may still hold the pipes: wait for them only
    // until the deadline and the grace, then stop reading.
    let until = deadline.max(Instant::now()) + OUTPUT_GRACE;
    let read =
        tokio::time::timeout_at(until, async { ((&mut stdout).await, (&mut stderr).await) }).await;
    stdout.abort();
    stderr.abort();
    let Some(status) = status else {
        return Err(ProcessError::TimedOut);
    };
    let Ok((out, err)) = read else {
        return Err(ProcessError::OutputHeld);
    };
    let ((stdout, out_cut), (stderr, err_cut)) = (out.unwrap_or_default(), err.unwrap_or_default());
    Ok(Finished {
        status,
        stdout,
        stderr,
        truncated: out_cut || err_cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    #[tokio::test]
    async fn exit_codes_and_signals_are_told_apart() {
        let run_sh = |script| async move {
            run(sh(script), b"", Duration::from_secs(5))
                .await
                .unwrap()
                .failure()
                .map(|failure| failure.to_string())
        };
        assert_eq!(run_sh("exit 0").await, None);
        assert_eq!(
            run_sh("echo 'bad input' >&2; echo more >&2; exit 3").await,
            Some("exited with 3: bad input".to_owned())
        );
        assert_eq!(
            run_sh("kill -9 $$").await,
            Some("was killed by signal 9".to_owned())
        );
        assert_eq!(
            run_sh("sh -c 'kill -15 $$'").await,
            Some("was killed by signal 15".to_owned())
        );
    }

    #[tokio::test]
    async fn output_beyond_the_cap_is_discarded_and_marked() {
        let flood = format!("head -c {} /dev/zero", OUTPUT_CAP * 2);
        let finished = run(sh(&flood), b"", Duration::from_secs(10)).await.unwrap();
        assert!(finished.truncated);
        assert_eq!(finished.stdout.len(), OUTPUT_CAP);
    }

    #[tokio::test]
    async fn a_missing_program_is_a_spawn_failure() {
        let missing = run(
            Command::new("definitely-not-a-program"),
            b"",
            Duration::from_secs(1),
        );
        match missing.await {
            Err(ProcessError::Spawn(error)) => {
                assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
    }
}
