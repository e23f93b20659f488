//! Command hooks: a process per event, speaking JSON on stdin and one of the answer protocols on
//! stdout, with exit code 2 as a block.
//!
//! The process runs under [`hooks_std::process::run`]: in its own process group, killed with
//! everything it started when it ends or at its timeout, its output capped.

use std::path::{Path, PathBuf};

use hooks_core::HookResult;
use hooks_std::process::{self, Finished, OUTPUT_CAP, ProcessError};
use serde_json::Value;

use crate::answer::parse_stdout;
use crate::failure::Failure;
use crate::request::request;
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

/// The answer of a per-event command hook to one event, `on_failure` applied.
pub(crate) async fn answer(
    hook: &CommandHook,
    entry: &Entry,
    site: &Site,
    data: &Value,
) -> HookResult {
    let input = Value::Object(request(entry, &site.project_dir, data)).to_string();
    if hook.fire_and_forget {
        let (hook, name, site) = (hook.clone(), entry.name.clone(), site.clone());
        tokio::spawn(async move {
            let ended = process::run(shell(&hook.command, &site), input.as_bytes(), hook.timeout);
            let failure = match ended.await {
                Ok(finished) => finished.failure(),
                Err(failure) => Some(failure),
            };
            if let Some(failure) = failure {
                tracing::warn!(hook = %name, "async command hook failed: {failure}");
            }
        });
        return HookResult::cont();
    }
    let ended = process::run(shell(&hook.command, site), input.as_bytes(), hook.timeout).await;
    ended
        .map_err(Failure::from)
        .and_then(|finished| interpret(&finished, &entry.event, data))
        .unwrap_or_else(|failure| hook.on_failure.apply(&entry.name, &failure))
}

/// Reads a finished process: exit 2 blocks, exit 0 answers on stdout, anything else failed.
fn interpret(finished: &Finished, event: &str, data: &Value) -> Result<HookResult, Failure> {
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
            Ok(stdout) => parse_stdout(stdout.trim(), event, data).map_err(Failure::Answer),
            // Not text at all: not the plain output Claude Code reads as a success.
            Err(_) => Err(Failure::Answer(format!(
                "printed bytes that are not UTF-8 text: `{}`",
                finished.stdout_text().chars().take(60).collect::<String>()
            ))),
        },
        _ => Err(finished.failure().unwrap_or(ProcessError::Signal(0)).into()),
    }
}
