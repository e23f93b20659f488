//! Command hooks: a process per event, speaking JSON on stdin and one of the answer protocols on
//! stdout, with exit code 2 as a block.
//!
//! The process runs under [`hooks_std::process::run`]: in its own process group, killed with
//! everything it started when it ends or at its timeout, its output capped.

use std::path::{Path, PathBuf};

use hooks_core::HookResult;
use hooks_std::process::{self, Finished, OUTPUT_CAP, ProcessError};
use serde_json::Value;

use crate::answer::{AnswerError, AnswerProtocol};
use crate::failure::Failure;
use crate::request::request;
use crate::runner::Runner;
use crate::{CommandHook, Entry};

/// Where the command hooks of a file run, and what they are told about it.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    /// The working directory, in `HOOKS_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`.
    pub(crate) project_dir: PathBuf,
}

/// `sh -c command` in the project directory, as every command hook runs, with the project
/// directory in the environment (under our name and Claude Code's).
pub(crate) fn shell(command: &str, site: &Site) -> tokio::process::Command {
    let dir: &Path = &site.project_dir;
    let mut shell = tokio::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("HOOKS_PROJECT_DIR", dir)
        .env("CLAUDE_PROJECT_DIR", dir);
    shell
}

/// A command hook run as a process per event.
pub(crate) struct CommandRunner {
    pub(crate) hook: CommandHook,
    pub(crate) site: Site,
}

impl Runner for CommandRunner {
    /// The process's answer to one event; its process group is killed at the entry's timeout.
    async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
        let (hook, site) = (&self.hook, &self.site);
        let input = Value::Object(request(entry, &site.project_dir, data)).to_string();
        if hook.fire_and_forget {
            let (command, name, site, timeout) = (
                hook.command.clone(),
                entry.name.clone(),
                site.clone(),
                entry.timeout,
            );
            tokio::spawn(async move {
                let ended = process::run(shell(&command, &site), input.as_bytes(), timeout);
                let failure = match ended.await {
                    Ok(finished) => finished.failure(),
                    Err(failure) => Some(failure),
                };
                if let Some(failure) = failure {
                    tracing::warn!(hook = %name, "async command hook failed: {failure}");
                }
            });
            return Ok(HookResult::cont());
        }
        let finished =
            process::run(shell(&hook.command, site), input.as_bytes(), entry.timeout).await?;
        interpret(&finished, hook.protocol, &entry.event, data)
    }
}

/// Reads a finished process: exit 2 blocks, exit 0 answers on stdout (read by `protocol`),
/// anything else failed.
fn interpret(
    finished: &Finished,
    protocol: AnswerProtocol,
    event: &str,
    data: &Value,
) -> Result<HookResult, Failure> {
    match finished.status.code() {
        Some(2) => {
            let stderr = finished.stderr_text();
            let reason = stderr.trim();
            Ok(HookResult::deny(if reason.is_empty() {
                "blocked by a hook (exit code 2)"
            } else {
                reason
            }))
        }
        Some(0) if finished.truncated => {
            Err(ProcessError::OutputOverCap { cap: OUTPUT_CAP }.into())
        }
        Some(0) => match std::str::from_utf8(&finished.stdout) {
            Ok(stdout) => Ok(protocol.read(stdout, event, data)?),
            // Not text at all: not even the plain output Claude Code reads as a success.
            Err(_) => {
                Err(AnswerError::NotText(finished.stdout_text().chars().take(60).collect()).into())
            }
        },
        _ => Err(finished.failure().unwrap_or(ProcessError::Signal(0)).into()),
    }
}
