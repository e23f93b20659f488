//! Command hooks: a process per event, speaking JSON on stdin and one of three answer protocols
//! on stdout (the proposal's, a `HookResult`, or Claude Code's), with exit code 2 as a block.
//!
//! The process runs in its own process group. When it ends, or when its timeout passes, the
//! whole group is killed, so nothing it started outlives it and no zombie is left; its output
//! is capped so a flood cannot exhaust memory.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use hooks_core::{HookAction, HookResult, MessageLevel};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use crate::interop::claude::CLAUDE;
use crate::persistent::{PersistentProcess, REQUEST_ID_FIELD};
use crate::{CommandHook, Entry, OnFailure};

/// The most output kept from each of stdout and stderr.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// How a command hook's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutcome {
    /// The exit code (`None` when killed by a signal or at the timeout).
    pub code: Option<i32>,
    /// Whether the timeout passed.
    pub timed_out: bool,
    /// Whether the process ended in time but a process it started (outside its group, so
    /// not killed with it) still held its output open at the timeout; `timed_out` is then
    /// set too, and the output is not read as an answer.
    pub output_held: bool,
    /// Standard output (at most [`OUTPUT_CAP`] bytes, lossily decoded).
    pub stdout: String,
    /// Standard error (at most [`OUTPUT_CAP`] bytes, lossily decoded).
    pub stderr: String,
    /// Whether either stream was cut at the cap.
    pub truncated: bool,
}

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
                // Beyond the cap, keep reading (so the process is not blocked) but discard.
                truncated |= read > room;
            }
        }
    }
}

pub(super) fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|pid| i32::try_from(pid).ok()) {
        // The group may already be gone; that is the goal either way.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// How long after its deadline the output of a command is still read.
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// `sh -c command` in `dir`, as every command hook runs: the project directory in the
/// environment, its own process group (so all it starts can be killed together), piped.
pub(super) fn shell(command: &str, dir: &Path) -> tokio::process::Command {
    let mut shell = tokio::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("HOOKS_PROJECT_DIR", dir)
        .env("CLAUDE_PROJECT_DIR", dir)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    shell
}

/// Runs `command` through `sh -c` in `dir` with `input` on stdin.
///
/// Everything is bounded by `timeout`: the process, the delivery of its input (a hook that
/// never reads a large event cannot stall the call) and the end of its output (a process that
/// left the group but still holds stdout open cannot either). The call returns at most half a
/// second after the timeout; past the timeout the outcome is `timed_out`, whatever was
/// printed so far.
pub async fn run_command(
    command: &str,
    dir: &Path,
    input: &[u8],
    timeout: Duration,
) -> std::io::Result<CommandOutcome> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut child = shell(command, dir).spawn()?;
    let pid = child.id();
    let stdout = tokio::spawn(read_capped(
        child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?,
    ));
    let stderr = tokio::spawn(read_capped(
        child
            .stderr
            .take()
            .ok_or_else(|| std::io::Error::other("no stderr"))?,
    ));
    if let Some(mut stdin) = child.stdin.take() {
        // Written beside the wait, not before it: a hook that does not read its input would
        // otherwise block the write, and the timeout would never start. A hook that closes
        // the pipe early is not an error; the write ends when the group is killed.
        let input = input.to_vec();
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
    }
    let (status, mut timed_out) = tokio::select! {
        status = child.wait() => (Some(status?), false),
        () = tokio::time::sleep_until(deadline) => (None, true),
    };
    // Whatever the hook left running in its group goes too, so the pipes close and nothing
    // outlives the hook.
    kill_group(pid);
    let status = match status {
        Some(status) => Some(status),
        None => Some(child.wait().await?),
    };
    // A process that escaped the group (setsid) may still hold the pipes: wait for them only
    // until the deadline, and a moment more for the pipes of a killed group to close and
    // what is left in them to be read, then stop reading.
    let until = deadline.max(tokio::time::Instant::now()) + OUTPUT_GRACE;
    let (mut stdout, mut stderr) = (stdout, stderr);
    let streams = async { ((&mut stdout).await, (&mut stderr).await) };
    let read = tokio::time::timeout_at(until, streams).await;
    stdout.abort();
    stderr.abort();
    let (((out, out_cut), (err, err_cut)), output_held) = match read {
        Ok((out, err)) => ((out.unwrap_or_default(), err.unwrap_or_default()), false),
        Err(_) => (Default::default(), !timed_out),
    };
    timed_out |= output_held;
    Ok(CommandOutcome {
        code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        output_held,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        truncated: out_cut || err_cut,
    })
}

/// The JSON a command hook reads on stdin: the proposal's fields, and the event data with
/// Claude Code's names and event name, so that its scripts run unchanged.
pub(super) fn stdin_json(entry: &Entry, project_dir: &Path, data: &Value) -> Map<String, Value> {
    let mut input = CLAUDE.script_input(&entry.event, data);
    if !input.contains_key("hook_event_name") {
        // An event Claude Code does not have: our alias, or the name as written.
        let name = hooks_core::events::aliases_of(&entry.event)
            .next()
            .unwrap_or(&entry.event_as_written);
        input.insert("hook_event_name".to_owned(), json!(name));
    }
    let ours = json!({
        "event": entry.event_as_written,
        "canonical_event": entry.event,
        "tool": data.get("tool_name"),
        "args": data.get("tool_input"),
        "data": data,
        "session_id": data.get("session_id"),
        "timestamp": data.get("timestamp"),
        "tool_name": data.get("tool_name"),
        "tool_input": data.get("tool_input"),
        "cwd": project_dir,
    });
    if let Value::Object(ours) = ours {
        input.extend(ours);
    }
    input
}

/// The answer of a command hook to one event, `on_failure` applied.
pub(super) async fn answer(
    hook: &CommandHook,
    process: Option<&PersistentProcess>,
    entry: &Entry,
    project_dir: &Path,
    data: &Value,
) -> HookResult {
    if let Some(process) = process {
        return persistent_answer(hook, process, entry, project_dir, data).await;
    }
    let input = Value::Object(stdin_json(entry, project_dir, data)).to_string();
    if hook.fire_and_forget {
        let (hook, name, dir) = (hook.clone(), entry.name.clone(), project_dir.to_path_buf());
        tokio::spawn(async move {
            match run_command(&hook.command, &dir, input.as_bytes(), hook.timeout).await {
                Ok(outcome) if outcome.code == Some(0) => {}
                Ok(outcome) => {
                    tracing::warn!(hook = %name, "async command hook failed: {}", describe(&outcome))
                }
                Err(error) => {
                    tracing::warn!(hook = %name, "async command hook could not start: {error}")
                }
            }
        });
        return HookResult::cont();
    }
    let outcome =
        match run_command(&hook.command, project_dir, input.as_bytes(), hook.timeout).await {
            Ok(outcome) => outcome,
            Err(error) => {
                return failure(
                    hook.on_failure,
                    &entry.name,
                    &format!("could not start: {error}"),
                );
            }
        };
    match interpret(&outcome, &entry.event, data) {
        Ok(result) => result,
        Err(why) => failure(hook.on_failure, &entry.name, &why),
    }
}

/// The answer of a persistent command hook: one request line, one answer line.
async fn persistent_answer(
    hook: &CommandHook,
    process: &PersistentProcess,
    entry: &Entry,
    project_dir: &Path,
    data: &Value,
) -> HookResult {
    let request = stdin_json(entry, project_dir, data);
    match process.round_trip(request, hook.timeout).await {
        Ok((id, line)) => match parse_answer_line(&line, id, &entry.event, data) {
            Ok(result) => result,
            Err(why) => {
                // After an answer it cannot read, the next line it prints may be this answer's
                // rest: only a fresh process is surely in step again.
                process.restart().await;
                failure(
                    hook.on_failure,
                    &entry.name,
                    &format!("{why}; it was restarted"),
                )
            }
        },
        Err(error) => failure(hook.on_failure, &entry.name, &error.to_string()),
    }
}

/// Reads a persistent hook's answer line to request `id`: any answer protocol, with an echoed
/// `request_id` checked and removed.
pub(super) fn parse_answer_line(
    line: &str,
    id: u64,
    event: &str,
    data: &Value,
) -> Result<HookResult, String> {
    let line = line.trim();
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(mut answer)) => {
            if let Some(echoed) = answer.remove(REQUEST_ID_FIELD) {
                if echoed.as_u64() != Some(id) {
                    return Err(format!(
                        "answered request {echoed} when request {id} was asked"
                    ));
                }
            }
            parse_object(answer, data)
        }
        _ => parse_stdout(line, event, data),
    }
}

fn describe(outcome: &CommandOutcome) -> String {
    if outcome.output_held {
        return OUTPUT_HELD.to_owned();
    }
    match (outcome.timed_out, outcome.code) {
        (true, _) => "timed out and was killed".to_owned(),
        // Through `sh -c`, a command killed by signal N exits with 128 + N.
        (false, Some(code @ 129..=192)) => format!("was killed by signal {}", code - 128),
        (false, Some(code)) => format!("exited with {code}: {}", first_line(&outcome.stderr)),
        (false, None) => "was killed by a signal".to_owned(),
    }
}

/// Why the answer of a hook whose output stayed open is not read.
const OUTPUT_HELD: &str = "ended, but a process it started kept its output open past the \
                           timeout";

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or("")
}

/// What `on_failure` makes of a failure.
pub(super) fn failure(policy: OnFailure, name: &str, why: &str) -> HookResult {
    match policy {
        OnFailure::Warn => HookResult::cont().with_user_message(
            format!("hook `{name}` failed: {why}; continuing"),
            MessageLevel::Warning,
        ),
        OnFailure::Block => HookResult::deny(format!(
            "hook `{name}` failed ({why}); blocked because its on_failure is block"
        ))
        .with_user_message(format!("hook `{name}` failed: {why}"), MessageLevel::Error),
        OnFailure::Ignore => HookResult::cont(),
    }
}

/// Reads a finished process: exit 2 blocks, exit 0 answers on stdout, anything else failed.
pub(super) fn interpret(
    outcome: &CommandOutcome,
    event: &str,
    data: &Value,
) -> Result<HookResult, String> {
    if outcome.timed_out {
        return Err(describe(outcome));
    }
    match outcome.code {
        Some(2) => {
            let reason = outcome.stderr.trim();
            Ok(HookResult::deny(if reason.is_empty() {
                "blocked by a hook (exit code 2)"
            } else {
                reason
            }))
        }
        Some(0) => {
            if outcome.truncated {
                return Err(format!("printed more than {OUTPUT_CAP} bytes"));
            }
            parse_stdout(outcome.stdout.trim(), event, data)
        }
        _ => Err(describe(outcome)),
    }
}

/// Parses what a hook printed: nothing, the proposal's answer, Claude Code's, or a `HookResult`.
pub(super) fn parse_stdout(stdout: &str, event: &str, data: &Value) -> Result<HookResult, String> {
    if stdout.is_empty() {
        return Ok(HookResult::cont());
    }
    let Ok(Value::Object(answer)) = serde_json::from_str::<Value>(stdout) else {
        // Claude Code adds plain output to the context for prompts and session starts.
        if matches!(event, "prompt:submit" | "session:start") {
            return Ok(HookResult::inject(stdout));
        }
        return Err(format!(
            "printed something that is not a JSON object: `{}`",
            cut(stdout, 120)
        ));
    };
    parse_object(answer, data)
}

/// Reads an answer object in whichever protocol its keys show.
fn parse_object(answer: Map<String, Value>, data: &Value) -> Result<HookResult, String> {
    let claude_keys = [
        "hookSpecificOutput",
        "decision",
        "continue",
        "stopReason",
        "systemMessage",
        "suppressOutput",
    ];
    if claude_keys.iter().any(|key| answer.contains_key(*key)) {
        return Ok(claude(&answer, data));
    }
    if answer.contains_key("modified_args") || answer.contains_key("message") {
        return proposal(&answer, data);
    }
    serde_json::from_value::<HookResult>(Value::Object(answer))
        .map_err(|error| format!("printed an answer that is not a hook result: {error}"))
        .and_then(usable)
}

/// `result` if it can be applied as it says; an answer the kernel could only skip (modify
/// without data, inject_context without text) is a failure of the hook, so that its
/// `on_failure` decides rather than the kernel's skip.
pub(super) fn usable(result: HookResult) -> Result<HookResult, String> {
    match result.action {
        HookAction::Modify if result.data.is_none() => {
            Err("answered modify without data".to_owned())
        }
        HookAction::InjectContext if result.context_injection.is_none() => {
            Err("answered inject_context without context_injection".to_owned())
        }
        _ => Ok(result),
    }
}

fn cut(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(at, _)| &text[..at])
}

/// `data` with its tool input replaced.
fn with_tool_input(data: &Value, input: Value) -> Value {
    let mut changed = data.clone();
    if let Value::Object(fields) = &mut changed {
        fields.insert("tool_input".to_owned(), input);
    }
    changed
}

/// The proposal's `{"action": "allow"|"block"|"modify", "modified_args", "message"}`.
fn proposal(answer: &Map<String, Value>, data: &Value) -> Result<HookResult, String> {
    let message = answer
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let result = match answer.get("action").and_then(Value::as_str) {
        Some("allow" | "continue") | None => HookResult::cont(),
        Some("block") => HookResult::deny(
            message
                .clone()
                .unwrap_or_else(|| "blocked by a hook".to_owned()),
        ),
        Some("modify") => match answer.get("modified_args") {
            Some(args @ Value::Object(_)) => {
                HookResult::modify(with_tool_input(data, args.clone()))
            }
            _ => return Err("answered modify without `modified_args` (an object)".to_owned()),
        },
        Some(other) => return Err(format!("answered the unknown action `{other}`")),
    };
    Ok(match message {
        Some(message) if result.action != HookAction::Deny => {
            result.with_user_message(message, MessageLevel::Info)
        }
        _ => result,
    })
}

/// Claude Code's JSON output.
fn claude(answer: &Map<String, Value>, data: &Value) -> HookResult {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    let specific = answer.get("hookSpecificOutput").and_then(Value::as_object);
    let field = |key: &str| specific.and_then(|s| s.get(key));
    let mut result = if answer.get("continue") == Some(&Value::Bool(false)) {
        HookResult::deny(
            text(answer.get("stopReason")).unwrap_or_else(|| "stopped by a hook".to_owned()),
        )
    } else if answer.get("decision").and_then(Value::as_str) == Some("block") {
        HookResult::deny(
            text(answer.get("reason")).unwrap_or_else(|| "blocked by a hook".to_owned()),
        )
    } else {
        let reason = text(field("permissionDecisionReason"));
        match field("permissionDecision").and_then(Value::as_str) {
            Some("deny") => {
                HookResult::deny(reason.unwrap_or_else(|| "denied by a hook".to_owned()))
            }
            Some("ask") => HookResult::ask(
                reason.unwrap_or_else(|| "A hook asks for your approval".to_owned()),
            ),
            _ => match field("updatedInput") {
                Some(input @ Value::Object(_)) => {
                    HookResult::modify(with_tool_input(data, input.clone()))
                }
                _ => HookResult::cont(),
            },
        }
    };
    if let Some(context) = text(field("additionalContext")) {
        result = result.with_context_injection(context);
    }
    if let Some(message) = text(answer.get("systemMessage")) {
        result = result.with_user_message(message, MessageLevel::Warning);
    }
    if answer.get("suppressOutput") == Some(&Value::Bool(true)) {
        result = result.with_suppress_output(true);
    }
    result
}
