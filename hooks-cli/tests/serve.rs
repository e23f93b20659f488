//! `hooks serve`: the agents' HTTP hooks answered by one resident process, checked against
//! `hooks <agent>` run per event on the same hooks file, and its guards (token, size, time,
//! loopback, reloads, shutdown).

#![cfg(feature = "serve")]
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

/// Safety, redaction, logging, and rules that ask and rewrite.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
  redaction: {}
  logging:
    path: ".hooks/events.jsonl"
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
    - type: matcher
      match: {tool: Write, args: {file_path: "**/notes.txt"}}
      action: block
      message: "the notes are read-only"
"#;

/// A running `hooks serve` on a free loopback port, stopped when dropped.
struct Served {
    child: Child,
    address: String,
    token: String,
}

impl Served {
    fn start(test: &str, extra: &[&str]) -> Self {
        let dir = hooks_testing::scratch_dir("serve", test);
        let token_file = dir.join("token");
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(&token_file)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        // The rest of the log is drained so that the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let token = std::fs::read_to_string(&token_file)
            .unwrap()
            .trim()
            .to_owned();
        Served {
            child,
            address,
            token,
        }
    }

    /// Sends `request` (headers and body, as written) and reads the reply to the end.
    fn raw(&self, request: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(request).unwrap();
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        let status = reply
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP reply: {reply:?}"));
        let body = reply
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    /// POSTs `body` to `path`, with `token` as the bearer token when given.
    fn post(&self, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
        let auth = token
            .map(|token| format!("Authorization: Bearer {token}\r\n"))
            .unwrap_or_default();
        self.raw(
            format!(
                "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{auth}\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
    }

    fn get(&self, path: &str, token: Option<&str>) -> (u16, String) {
        let auth = token
            .map(|token| format!("Authorization: Bearer {token}\r\n"))
            .unwrap_or_default();
        self.raw(
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{auth}\r\n")
                .as_bytes(),
        )
    }

    fn call(&self, agent: &str, event: &str) -> (u16, String) {
        self.post(&format!("/{agent}"), Some(&self.token), event)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn project(test: &str, policy: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("serve-project", test);
    std::fs::write(dir.join("hooks.yaml"), policy).unwrap();
    dir
}

/// What the agent reads from an HTTP reply, as from a command hook: a 2xx body is its stdout;
/// anything else is a failure, a block under `onFailure: "block"`.
fn as_read(status: u16, body: &str) -> AgentAnswer {
    if status / 100 == 2 {
        AgentAnswer {
            stdout: body.to_owned(),
            stderr: String::new(),
            exit_code: 0,
        }
    } else {
        AgentAnswer::block(body)
    }
}

/// `hooks <agent> --config FILE` on `input`, as the agent runs it.
fn per_process(agent: &str, config: &Path, input: &str) -> AgentAnswer {
    let output = support::run(
        None,
        &[agent.as_ref(), "--config".as_ref(), config.as_os_str()],
        input,
    );
    AgentAnswer {
        stdout: String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        exit_code: output.status.code().unwrap(),
    }
}

/// The events of Claude Code's protocol (Qwen Code takes the same with its own tool names).
fn cases(cwd: &Path, shell: &str, write: &str) -> Vec<(String, Value)> {
    let cwd = cwd.to_str().unwrap();
    let tool = |name: &str, input: Value| {
        json!({"session_id": "serve-1", "cwd": cwd, "hook_event_name": "PreToolUse",
               "tool_name": name, "tool_input": input, "tool_use_id": "t1",
               "tool_call_id": "t1", "permission_mode": "default"})
    };
    vec![
        ("PreToolUse", tool(shell, json!({"command": "rm -rf /"}))),
        ("PreToolUse", tool(shell, json!({"command": "ls -la"}))),
        (
            "PreToolUse",
            tool(shell, json!({"command": "git push origin main"})),
        ),
        (
            "PreToolUse",
            tool(
                write,
                json!({"file_path": format!("{cwd}/notes.txt"), "content": "x"}),
            ),
        ),
        (
            "PreToolUse",
            tool(write, json!({"file_path": "/etc/passwd", "content": "x"})),
        ),
        (
            "UserPromptSubmit",
            json!({"session_id": "serve-1", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
                   "prompt": "my key is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}),
        ),
        (
            "PostToolUse",
            json!({"session_id": "serve-1", "cwd": cwd, "hook_event_name": "PostToolUse",
                   "tool_name": shell, "tool_input": {"command": "ls"},
                   "tool_response": {"stdout": "a b c"}}),
        ),
        (
            "Stop",
            json!({"session_id": "serve-1", "cwd": cwd, "hook_event_name": "Stop",
                   "stop_hook_active": false}),
        ),
    ]
    .into_iter()
    .map(|(event, input)| (event.to_owned(), input))
    .collect()
}

/// Checks that `agent` reads the server's reply to each case as it reads `hooks <agent>`'s
/// answer, and that an answer on stdout is sent as it is.
fn same_both_ways(served: &Served, name: &str, project: &Path, shell: &str, write: &str) {
    let agent = agent(name).unwrap();
    let config = project.join("hooks.yaml");
    let mut blocks = 0;
    for (event, input) in cases(project, shell, write) {
        let input = input.to_string();
        let by_process = per_process(name, &config, &input);
        let (status, body) = served.call(name, &input);
        let by_http = as_read(status, &body);
        let read_by_process = agent.accepts(&event, &by_process);
        assert!(read_by_process.is_ok(), "{read_by_process:?}");
        assert_eq!(
            agent.accepts(&event, &by_http),
            read_by_process,
            "{name} {input}: {by_process:?} / {status} {body}"
        );
        if by_process.exit_code == 0 {
            assert_eq!((status, body.as_str()), (200, by_process.stdout.as_str()));
        }
        blocks += usize::from(matches!(read_by_process, Ok(Verdict::Block(_))));
    }
    assert!(blocks >= 3, "the cases block somewhere: {blocks}");
}

#[test]
fn claude_and_qwen_get_the_answers_hooks_agent_gives() {
    let served = Served::start("both-ways", &[]);
    let claude = project("both-ways-claude", POLICY);
    same_both_ways(&served, "claude", &claude, "Bash", "Write");
    let qwen = project("both-ways-qwen", POLICY);
    same_both_ways(&served, "qwen", &qwen, "run_shell_command", "write_file");
    // Several projects at once, each logged in its own directory.
    for dir in [&claude, &qwen] {
        let log = std::fs::read_to_string(dir.join(".hooks/events.jsonl")).unwrap();
        assert!(log.lines().count() >= 8, "{}", dir.display());
    }
    // Input neither can read: a 4xx status, a block for the agent, as per process.
    let (status, body) = served.call("claude", "not json");
    assert_eq!(status, 400, "{body}");
    let by_process = per_process("claude", &claude.join("hooks.yaml"), "not json");
    assert_eq!(by_process.exit_code, 2);
    assert_eq!(body.trim(), by_process.stderr);
}

#[test]
fn the_project_header_and_the_query_name_the_hooks_file() {
    let served = Served::start("routing", &[]);
    let dir = project("routing", "hooks: {}\n");
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/strict.yaml"),
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Write}\n      \
         action: block\n      message: \"read-only here\"\n",
    )
    .unwrap();
    let event = json!({"session_id": "r", "cwd": "/somewhere/else", "hook_event_name": "PreToolUse",
                       "tool_name": "Write", "tool_input": {"file_path": "/x/notes.txt", "content": ""}})
    .to_string();
    let request = |query: &str| {
        served.raw(
            format!(
                "POST /claude{query} HTTP/1.1\r\nHost: l\r\nConnection: close\r\n\
                 Authorization: Bearer {}\r\nX-Hooks-Project: {}\r\nContent-Length: {}\r\n\r\n{event}",
                served.token,
                dir.display(),
                event.len()
            )
            .as_bytes(),
        )
    };
    assert_eq!(request(""), (200, String::new()));
    let (status, body) = request("?config=policy/strict.yaml");
    assert_eq!(status, 200);
    assert!(body.contains("read-only"), "{body}");
    assert_eq!(request("?config=../outside.yaml").0, 400);
    // Without the header, the event's `cwd` must name a project.
    let (status, body) = served.call("claude", &event);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("policy file is broken"), "{body}");
}

#[test]
fn an_edit_is_picked_up_and_a_broken_edit_keeps_the_last_good_policy() {
    let served = Served::start("reload", &[]);
    let dir = project("reload", "hooks: {}\n");
    let event = json!({"session_id": "e", "cwd": dir, "hook_event_name": "PreToolUse",
                       "tool_name": "Write", "tool_input": {"file_path": "notes.txt", "content": ""}})
    .to_string();
    assert_eq!(served.call("claude", &event), (200, String::new()));
    std::fs::write(dir.join("hooks.yaml"), POLICY).unwrap();
    let (_, body) = served.call("claude", &event);
    assert!(body.contains("read-only"), "the edit is in force: {body}");
    std::fs::write(dir.join("hooks.yaml"), "hooks:\n  PreToolUse: {oops\n").unwrap();
    let (_, body) = served.call("claude", &event);
    assert!(
        body.contains("read-only"),
        "the last good policy stays: {body}"
    );
    let (status, health) = served.get("/health", Some(&served.token));
    assert_eq!(status, 200);
    let health: Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["status"], "broken", "{health}");
    assert!(health["files"][0]["broken"].is_string(), "{health}");
}

#[test]
fn every_request_needs_the_token_and_health_tells_nothing_without_it() {
    let served = Served::start("token", &[]);
    let dir = project("token", POLICY);
    let event = json!({"session_id": "t", "cwd": dir, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    assert_eq!(served.post("/claude", None, &event).0, 401);
    let wrong = "0".repeat(served.token.len());
    assert_eq!(served.post("/claude", Some(&wrong), &event).0, 401);
    assert_eq!(served.post("/nobody", None, &event).0, 401);
    assert_eq!(served.post("/nobody", Some(&served.token), &event).0, 404);
    assert_eq!(served.get("/claude", Some(&served.token)).0, 405);
    let (status, body) = served.get("/health", None);
    assert_eq!(status, 200);
    assert_eq!(body, format!("ok hooks {}\n", env!("CARGO_PKG_VERSION")));
    assert_eq!(served.get("/health", Some(&wrong)).1, body);
}

#[test]
fn an_oversized_body_or_a_slow_client_gets_an_error_status() {
    let served = Served::start("limits", &["--max-body", "1000", "--read-timeout", "1"]);
    let big = format!("{{\"padding\": \"{}\"}}", "x".repeat(2000));
    assert_eq!(served.call("claude", &big).0, 413);
    // Declares a body and never sends it.
    let started = std::time::Instant::now();
    let (status, _) = served.raw(
        format!(
            "POST /claude HTTP/1.1\r\nHost: l\r\nAuthorization: Bearer {}\r\n\
             Content-Length: 100\r\n\r\n{{",
            served.token
        )
        .as_bytes(),
    );
    assert_eq!(status, 408);
    assert!(started.elapsed() < Duration::from_secs(10));
    // Sends half its headers and stops: the connection is closed, nothing decided.
    let mut stream = TcpStream::connect(&served.address).unwrap();
    stream
        .write_all(b"POST /claude HTTP/1.1\r\nHost: l\r\n")
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(!reply.contains(" 200 "), "{reply}");
}

#[test]
fn a_non_loopback_address_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args([
            "serve",
            "--listen",
            "0.0.0.0:0",
            "--token-file",
            "/nonexistent/t",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn sigterm_lets_the_call_in_flight_finish() {
    let mut served = Served::start("drain", &[]);
    let dir = project(
        "drain",
        "hooks:\n  PreToolUse:\n    - type: command\n      command: \"sleep 1\"\n",
    );
    let event = json!({"session_id": "d", "cwd": dir, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    let address = served.address.clone();
    let token = served.token.clone();
    let in_flight = std::thread::spawn(move || {
        let probe = Served {
            child: Command::new("true").spawn().unwrap(),
            address,
            token,
        };
        probe.call("claude", &event)
    });
    std::thread::sleep(Duration::from_millis(300));
    let pid = served.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let (status, _) = in_flight.join().unwrap();
    assert_eq!(status, 200);
    let exited = served.child.wait().unwrap();
    assert!(exited.success(), "{exited:?}");
}
