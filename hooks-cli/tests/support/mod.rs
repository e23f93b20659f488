//! What the tests of the `hooks` binary share: running it as a user or an agent runs it.

#![allow(dead_code)] // each test binary uses its own part

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// Starts `hooks` with `args` (in `dir`, when given), writes `stdin` and closes it, as an agent
/// does; the process is left running.
pub fn spawn<A: AsRef<OsStr>>(dir: Option<&Path>, args: &[A], stdin: &str) -> Child {
    // Session state goes to one directory of the test run, never the user's own.
    static STATE: OnceLock<PathBuf> = OnceLock::new();
    let state = STATE.get_or_init(|| hooks_testing::scratch_dir("cli-state", "shared"));
    spawn_with_state(dir, args, stdin, state)
}

/// [`spawn`], with the session state kept in `state_dir`.
pub fn spawn_with_state<A: AsRef<OsStr>>(
    dir: Option<&Path>,
    args: &[A],
    stdin: &str,
    state_dir: &Path,
) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .env("HOOKS_STATE_DIR", state_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the hooks binary starts");
    if let Some(mut input) = child.stdin.take() {
        // A command that does not read its input (`hooks init`) may exit first.
        let _ = input.write_all(stdin.as_bytes());
    }
    child
}

/// Runs `hooks` with `args` and `stdin` to the end.
/// An agent's hook is checked by [`check_agent_answer`].
pub fn run<A: AsRef<OsStr>>(dir: Option<&Path>, args: &[A], stdin: &str) -> Output {
    let output = spawn(dir, args, stdin)
        .wait_with_output()
        .expect("the hooks binary ends");
    check_agent_answer(args, stdin, &output);
    output
}

/// Its standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Its standard output, as the JSON answer an agent reads.
pub fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {:?}", stdout(output)))
}

/// The reason Claude Code reads when `hooks claude` blocks: exit 2 with the reason on stderr,
/// or (when a hook also has a message for the user) the event's JSON block; `None` when the
/// answer does not block.
pub fn claude_denial(output: &Output) -> Option<String> {
    match output.status.code() {
        Some(2) => Some(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Some(0) if !output.stdout.is_empty() => {
            let answer = stdout_json(output);
            let specific = &answer["hookSpecificOutput"];
            if specific["permissionDecision"] == "deny" {
                specific["permissionDecisionReason"]
                    .as_str()
                    .map(str::to_owned)
            } else if answer["decision"] == "block" {
                answer["reason"].as_str().map(str::to_owned)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Runs `hooks` with `args` and `stdin` in an environment with `env` added; an agent's hook is
/// checked by [`check_agent_answer`].
pub fn run_with_env<A: AsRef<OsStr>>(
    dir: Option<&Path>,
    args: &[A],
    stdin: &str,
    env: &[(&str, &OsStr)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the hooks binary starts");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    let output = child.wait_with_output().expect("the hooks binary ends");
    check_agent_answer(args, stdin, &output);
    output
}

/// What `agent` (`claude`, `codex`, ...) does with `output` as the answer of a hook on its
/// event `event`, read by its own validator
/// ([`Agent::accepts`](hooks_config::interop::Agent::accepts)); an error when it would reject
/// the answer (most agents then count the hook as failed and run the call).
pub fn accepts(
    agent: &str,
    event: &str,
    output: &Output,
) -> Result<hooks_config::interop::Verdict, String> {
    let agent = hooks_config::interop::agent(agent).expect("an agent `hooks` serves");
    let answer = hooks_config::interop::AgentAnswer {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        exit_code: output.status.code().unwrap_or(-1),
    };
    agent.accepts(event, &answer)
}

/// When `args` run an agent's hook (`<agent> --config FILE`), checks its answer to `stdin` is
/// one the agent takes, by the agent's validator; panics otherwise. Every run of an agent's
/// hook in these tests goes through it.
pub fn check_agent_answer<A: AsRef<OsStr>>(args: &[A], stdin: &str, output: &Output) {
    let mut args = args.iter().map(|arg| arg.as_ref().to_string_lossy());
    let (Some(name), Some(flag)) = (args.next(), args.next()) else {
        return;
    };
    let Some(agent) = hooks_config::interop::agent(&name) else {
        return;
    };
    if !flag.starts_with("--config") {
        return;
    }
    // The event it was asked about; for input it cannot read, its tool call's.
    let event = agent
        .event_in(stdin)
        .ok()
        .map(|mapped| mapped.agent_event)
        .or_else(|| {
            agent
                .profile()
                .protocol
                .agent_event(hooks_core::events::TOOL_PRE)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    if let Err(problem) = accepts(&name, &event, output) {
        panic!(
            "{} would reject the answer to {event} ({problem}): {output:?}",
            agent.profile().display_name
        );
    }
}

/// The hooks file the agents' tests share: the safety module over its own directory, and a
/// rule on the canonical `Bash` that asks before `git push`.
pub const ASK_ON_PUSH: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
"#;

/// `text` as the `hooks.yaml` of a scratch directory of `agent`'s `test`.
pub fn policy(agent: &str, test: &str, text: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir(agent, test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, text).expect("the hooks file is written");
    file
}

/// Runs `hooks <agent> --config <config>` with `input` on stdin, as the agent runs it; its
/// answer is checked by the agent's validator ([`check_agent_answer`]).
pub fn agent_hook(agent: &str, config: &Path, input: &serde_json::Value) -> Output {
    run(
        None,
        &[agent.as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

/// What `agent` does with `output` as the answer to its `event`; panics where it would reject
/// the answer.
pub fn verdict(agent: &str, event: &str, output: &Output) -> hooks_config::interop::Verdict {
    accepts(agent, event, output)
        .unwrap_or_else(|problem| panic!("{agent} rejects {output:?}: {problem}"))
}

/// Claude Code's `PreToolUse` stdin for `tool` with `input`, as Claude Code's dialects send it.
pub fn claude_pre_tool(tool: &str, input: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": "/tmp",
                       "tool_name": tool, "tool_input": input})
}

/// The address a `hooks serve` just started listens on, read from the first line of its
/// stderr (`... listening on http://ADDR`); the rest of its log is drained, so that the server
/// never blocks on a full pipe.
pub fn serve_address(server: &mut Child) -> String {
    use std::io::BufRead as _;
    let mut stderr = std::io::BufReader::new(server.stderr.take().expect("stderr is piped"));
    let mut line = String::new();
    stderr
        .read_line(&mut line)
        .expect("the server says where it listens");
    let address = line
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    address
}
