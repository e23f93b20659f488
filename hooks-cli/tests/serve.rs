//! `hooks serve`: the agents' HTTP hooks answered by one resident process, checked against
//! `hooks <agent>` run per event on the same hooks file, and its guards (token, size, time,
//! loopback, reloads, shutdown).

#![cfg(feature = "serve")]
#![allow(clippy::unwrap_used)]

#[cfg(feature = "wasm")]
#[path = "../../hooks-wasm/tests/support/guests.rs"]
mod guests;
#[cfg(feature = "otel")]
#[path = "../../hooks-otel/tests/support/mod.rs"]
mod otlp;
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
        Served::start_on(test, "127.0.0.1:0", extra, &[])
    }

    /// As [`Served::start`], with `env` added to the server's environment.
    fn start_with_env(test: &str, extra: &[&str], env: &[(&str, &Path)]) -> Self {
        Served::start_on(test, "127.0.0.1:0", extra, env)
    }

    /// As [`Served::start_with_env`], listening on `listen`.
    fn start_on(test: &str, listen: &str, extra: &[&str], env: &[(&str, &Path)]) -> Self {
        let dir = hooks_testing::scratch_dir("serve", test);
        let token_file = dir.join("token");
        // The sessions' state of this server alone, never the user's own.
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(["serve", "--listen", listen, "--token-file"])
            .arg(&token_file)
            .args(extra)
            .env("HOOKS_STATE_DIR", dir.join("state"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let address = support::serve_address(&mut child);
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
    // An edit is in force for the sessions that start after it; the session running when it
    // was made is blocked until the user accepts it (see `hooks trust`).
    let event = |session: &str| {
        json!({"session_id": session, "cwd": dir, "hook_event_name": "PreToolUse",
               "tool_name": "Write", "tool_input": {"file_path": "notes.txt", "content": ""}})
        .to_string()
    };
    assert_eq!(served.call("claude", &event("e1")), (200, String::new()));
    std::fs::write(dir.join("hooks.yaml"), POLICY).unwrap();
    let (_, body) = served.call("claude", &event("e1"));
    assert!(
        body.contains("changed since this session started"),
        "{body}"
    );
    let (_, body) = served.call("claude", &event("e2"));
    assert!(body.contains("read-only"), "the edit is in force: {body}");
    std::fs::write(dir.join("hooks.yaml"), "hooks:\n  PreToolUse: {oops\n").unwrap();
    let (_, body) = served.call("claude", &event("e3"));
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

/// Reads from `stream` until the server closes it or `within` passes; whether it closed.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buffer = [0u8; 4096];
    let started = std::time::Instant::now();
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
        if started.elapsed() > within {
            return false;
        }
    }
}

#[test]
fn connections_over_the_limit_get_503_until_a_place_is_free() {
    let served = Served::start("cap", &["--max-connections", "2", "--read-timeout", "30"]);
    let dir = project("cap", POLICY);
    let event = json!({"session_id": "c", "cwd": dir, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    assert_eq!(served.call("claude", &event).0, 200);
    // The server frees that connection's place once it closed it.
    std::thread::sleep(Duration::from_millis(200));
    // Two clients hold both places (connected, nothing sent yet).
    let held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(&served.address).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (status, body) = served.call("claude", &event);
    assert_eq!(status, 503, "{body}");
    assert!(
        !body.contains("permissionDecision"),
        "nothing decided: {body}"
    );
    // Without the token too: the refusal says nothing of the policy.
    assert_eq!(served.post("/claude", None, &event).0, 503);
    drop(held);
    let started = std::time::Instant::now();
    loop {
        let (status, _) = served.call("claude", &event);
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the places of closed connections are freed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_silent_or_idle_client_is_cut_off_after_the_read_timeout() {
    let served = Served::start("idle", &["--read-timeout", "1"]);
    let dir = project("idle", POLICY);
    // Connects and sends nothing.
    let mut silent = TcpStream::connect(&served.address).unwrap();
    let started = std::time::Instant::now();
    assert!(closed_within(&mut silent, Duration::from_secs(5)));
    assert!(started.elapsed() >= Duration::from_millis(900));
    // One keep-alive call answered, then nothing more: the connection is closed as well.
    let event = json!({"session_id": "i", "cwd": dir, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    let mut idle = TcpStream::connect(&served.address).unwrap();
    write!(
        idle,
        "POST /claude HTTP/1.1\r\nHost: l\r\nAuthorization: Bearer {}\r\n\
         Content-Length: {}\r\n\r\n{event}",
        served.token,
        event.len()
    )
    .unwrap();
    let mut head = [0u8; 12];
    idle.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    assert!(closed_within(&mut idle, Duration::from_secs(5)));
}

#[test]
fn an_edit_of_the_user_or_managed_file_is_picked_up() {
    let dir = project("layers", "hooks: {}\n");
    let config = hooks_testing::scratch_dir("serve-layers", "config");
    let managed = hooks_testing::scratch_dir("serve-layers", "managed");
    let served = Served::start_with_env(
        "layers",
        &[],
        &[
            ("XDG_CONFIG_HOME", &config),
            ("HOOKS_MANAGED_DIR", &managed),
        ],
    );
    // Each call in a session of its own: an edit is in force for the sessions after it.
    let sessions = std::cell::Cell::new(0);
    let write = |file: &str| {
        sessions.set(sessions.get() + 1);
        json!({"session_id": format!("l{}", sessions.get()), "cwd": dir,
               "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": file, "content": ""}})
        .to_string()
    };
    let rule = |name: &str, message: &str| {
        format!(
            "hooks:\n  PreToolUse:\n    - name: {name}\n      type: matcher\n      \
             match: {{tool: Write, args: {{file_path: \"**/{name}.txt\"}}}}\n      \
             action: block\n      message: \"{message}\"\n"
        )
    };
    assert_eq!(
        served.call("claude", &write("mine.txt")),
        (200, String::new())
    );
    std::fs::create_dir_all(config.join("hooks")).unwrap();
    std::fs::write(
        config.join("hooks/hooks.yaml"),
        rule("mine", "the user says no"),
    )
    .unwrap();
    let (_, body) = served.call("claude", &write("mine.txt"));
    assert!(body.contains("the user says no"), "{body}");
    std::fs::write(managed.join("hooks.yaml"), rule("team", "the team says no")).unwrap();
    let (_, body) = served.call("claude", &write("team.txt"));
    assert!(body.contains("the team says no"), "{body}");
    // Still the user's rule beside it.
    let (_, body) = served.call("claude", &write("mine.txt"));
    assert!(body.contains("the user says no"), "{body}");
}

/// One keep-alive connection to the server, as an agent's HTTP client keeps one.
struct KeepAlive {
    reader: BufReader<TcpStream>,
    token: String,
}

impl KeepAlive {
    fn connect(served: &Served) -> Self {
        let stream = TcpStream::connect(&served.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        KeepAlive {
            reader: BufReader::new(stream),
            token: served.token.clone(),
        }
    }

    /// POSTs `body` to `/claude` and reads the reply (status and body).
    fn call(&mut self, body: &str) -> (u16, String) {
        write!(
            self.reader.get_mut(),
            "POST /claude HTTP/1.1\r\nHost: l\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.token,
            body.len()
        )
        .unwrap();
        let mut status_line = String::new();
        self.reader.read_line(&mut status_line).unwrap();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP reply: {status_line:?}"));
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0u8; length];
        self.reader.read_exact(&mut body).unwrap();
        (status, String::from_utf8(body).unwrap())
    }
}

/// The starter policy of `hooks init`, its log never rotated (so that every line stays to be
/// counted).
fn starter_unrotated() -> String {
    let starter = include_str!("../starter/hooks.yaml");
    let logging = "    path: \".hooks/events.jsonl\"\n";
    assert!(starter.contains(logging), "{starter}");
    starter.replace(logging, &format!("{logging}    max_bytes: null\n"))
}

/// The classes of events of the load: each a Claude Code event carrying `marker` where the
/// log keeps it, and deciding the same whatever the marker.
fn load_classes(cwd: &Path, marker: &str) -> Vec<(&'static str, Value)> {
    let tool = |name: &str, input: Value| {
        json!({"session_id": "load", "cwd": cwd, "hook_event_name": "PreToolUse",
               "tool_name": name, "tool_input": input, "tool_use_id": "t"})
    };
    vec![
        (
            "PreToolUse",
            tool(
                "Bash",
                json!({"command": "rm -rf /", "description": marker}),
            ),
        ),
        (
            "PreToolUse",
            tool("Bash", json!({"command": "ls -la", "description": marker})),
        ),
        (
            "PreToolUse",
            tool(
                "Write",
                json!({"file_path": "/etc/passwd", "content": marker}),
            ),
        ),
        (
            "UserPromptSubmit",
            json!({"session_id": "load", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
                   "prompt": format!("{marker}: my key is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")}),
        ),
        (
            "PostToolUse",
            json!({"session_id": "load", "cwd": cwd, "hook_event_name": "PostToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "ls"},
                   "tool_response": {"stdout": marker}}),
        ),
    ]
}

/// The mark of event `number` of session `session` in the load, found in its log line.
fn marker(session: usize, number: usize) -> String {
    format!("zq{session}q{number}qz")
}

/// The resident set of process `pid`, in KiB (`VmRSS` of `/proc/<pid>/status`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap()
}

/// `sessions` keep-alive clients at once, each sending `events` events of the classes in turn
/// to one server with the starter policy: every answer is the one `hooks claude` gives for
/// its class, every event is logged whole exactly as often as `hooks claude` logs it, and the
/// server's memory stays bounded. Prints the figures.
fn load(test: &str, sessions: usize, events: usize) {
    let dir = project(test, &starter_unrotated());
    let config = dir.join("hooks.yaml");
    let log = dir.join(".hooks/events.jsonl");
    // What `hooks claude` answers for each class, and how many lines it logs for one event.
    let reference: Vec<(&str, AgentAnswer, usize)> = load_classes(&dir, "zq0q0qz")
        .into_iter()
        .map(|(event, input)| {
            let _ = std::fs::remove_file(&log);
            let answer = per_process("claude", &config, &input.to_string());
            let lines = std::fs::read_to_string(&log).unwrap_or_default();
            (event, answer, lines.matches("zq0q0qz").count())
        })
        .collect();
    assert!(
        reference.iter().all(|(_, _, lines)| *lines >= 1),
        "every class is logged"
    );
    let _ = std::fs::remove_file(&log);

    let served = Served::start(test, &[]);
    let pid = served.child.id();
    // One event of each class first: the policy loaded, the log opened.
    let mut warm = KeepAlive::connect(&served);
    for (_, input) in load_classes(&dir, "load-warmup") {
        assert_eq!(warm.call(&input.to_string()).0, 200);
    }
    let rss_before = rss_kib(pid);
    let started = std::time::Instant::now();
    let clients: Vec<_> = (0..sessions)
        .map(|session| {
            let mut client = KeepAlive::connect(&served);
            let dir = dir.clone();
            let reference: Vec<(String, AgentAnswer)> = reference
                .iter()
                .map(|(event, answer, _)| ((*event).to_owned(), answer.clone()))
                .collect();
            std::thread::spawn(move || {
                let agent = agent("claude").unwrap();
                for number in 0..events {
                    let marker = marker(session, number);
                    let class = number % reference.len();
                    let input = &load_classes(&dir, &marker)[class].1;
                    let (status, body) = client.call(&input.to_string());
                    let (event, expected) = &reference[class];
                    let body = body.replace(&marker, "zq0q0qz");
                    assert_eq!(
                        agent.accepts(event, &as_read(status, &body)),
                        agent.accepts(event, expected),
                        "{marker}: {status} {body}"
                    );
                    if expected.exit_code == 0 {
                        assert_eq!((status, body.as_str()), (200, expected.stdout.as_str()));
                    }
                }
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let elapsed = started.elapsed();
    let rss_after = rss_kib(pid);

    let text = std::fs::read_to_string(&log).unwrap();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("a line not whole ({error}): {line}"));
        assert!(record["result"]["action"].is_string(), "{line}");
        for piece in line.split("zq").skip(1) {
            if let Some((inside, _)) = piece.split_once("qz")
                && inside
                    .split('q')
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            {
                *seen.entry(format!("zq{inside}qz")).or_default() += 1;
            }
        }
    }
    for session in 0..sessions {
        for number in 0..events {
            let class = number % reference.len();
            let marker = marker(session, number);
            assert_eq!(
                seen.get(&marker).copied().unwrap_or_default(),
                reference[class].2,
                "{marker} logged as often as by `hooks claude`"
            );
        }
    }
    let total = sessions * events;
    eprintln!(
        "load: {sessions} sessions x {events} events = {total} decisions in {:.2} s \
         ({:.0}/s); {} log lines; RSS {} KiB before, {} KiB after",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        text.lines().count(),
        rss_before,
        rss_after
    );
    // Memory bounded: the load adds no more than a fixed allowance, whatever its length.
    assert!(
        rss_after < rss_before + 64 * 1024,
        "RSS grew from {rss_before} KiB to {rss_after} KiB"
    );
}

#[test]
fn a_load_of_concurrent_sessions_loses_and_changes_nothing() {
    load("load-small", 8, 100);
}

/// The issue's load: 50 concurrent sessions × 2,000 events (about a minute on 2 cores):
/// `cargo test -p hooks-cli --test serve -- --ignored --nocapture fifty_sessions`.
#[test]
#[ignore = "long: run it by name with --ignored"]
fn fifty_sessions_of_two_thousand_events_lose_and_change_nothing() {
    load("load-full", 50, 2000);
}

/// `hooks serve` with `args`, `HOME` and `XDG_CONFIG_HOME` (when given) set, and nothing else
/// of the user's: its exit code and stdout.
fn serve_command(args: &[&str], home: &Path, config: Option<&Path>) -> (i32, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .arg("serve")
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env("HOME", home);
    if let Some(config) = config {
        command.env("XDG_CONFIG_HOME", config);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap(), format!("{stdout}{stderr}"))
}

#[cfg(target_os = "linux")]
#[test]
fn install_writes_a_systemd_user_unit_and_uninstall_removes_it() {
    let home = hooks_testing::scratch_dir("serve-install", "home");
    let units = home.join(".config/systemd/user");
    let unit = units.join("hooks-serve.service");
    let listen = ["--listen", "127.0.0.1:9911"];

    let (code, said) = serve_command(
        &[&listen[..], &["--install", "--dry-run"]].concat(),
        &home,
        None,
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains(&format!("would write {}", unit.display())),
        "{said}"
    );
    assert!(!unit.exists(), "a dry run writes nothing");

    let (code, said) = serve_command(&[&listen[..], &["--install"]].concat(), &home, None);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("systemctl --user enable --now hooks-serve.service"),
        "{said}"
    );
    let text = std::fs::read_to_string(&unit).unwrap();
    let token = home.join(".local/state/hooks/serve-token");
    let exec = format!(
        "ExecStart={} serve --listen 127.0.0.1:9911 --token-file {} --max-body 1048576 \
         --read-timeout 10 --max-connections 256\n",
        env!("CARGO_BIN_EXE_hooks"),
        token.display()
    );
    assert!(text.contains(&exec), "{text}");
    assert!(
        text.contains("[Install]\nWantedBy=default.target\n"),
        "{text}"
    );
    // What `systemctl --user enable` would add, for `--uninstall` to take away.
    std::fs::create_dir_all(units.join("default.target.wants")).unwrap();
    let link = units.join("default.target.wants/hooks-serve.service");
    std::os::unix::fs::symlink(&unit, &link).unwrap();

    let (code, said) = serve_command(&["--uninstall", "--dry-run"], &home, None);
    assert_eq!(code, 0, "{said}");
    assert!(unit.exists());
    let (code, said) = serve_command(&["--uninstall"], &home, None);
    assert_eq!(code, 0, "{said}");
    assert!(
        !unit.exists() && std::fs::symlink_metadata(&link).is_err(),
        "{said}"
    );
    assert!(
        said.contains("systemctl --user stop hooks-serve.service"),
        "{said}"
    );
    let (code, said) = serve_command(&["--uninstall"], &home, None);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("no service installed"), "{said}");

    // Under XDG_CONFIG_HOME when it is set.
    let config = hooks_testing::scratch_dir("serve-install", "config");
    let (code, said) = serve_command(&["--install"], &home, Some(&config));
    assert_eq!(code, 0, "{said}");
    assert!(
        config.join("systemd/user/hooks-serve.service").is_file(),
        "{said}"
    );
    // `--dry-run` alone, or with `--ensure`, is a usage error.
    assert_eq!(serve_command(&["--dry-run"], &home, None).0, 2);
    assert_eq!(serve_command(&["--install", "--ensure"], &home, None).0, 2);
}

/// The unit is one systemd reads without complaint: `systemd-analyze verify` finds nothing
/// wrong (skipped, saying so, where it is not installed).
#[cfg(target_os = "linux")]
#[test]
fn the_unit_passes_systemd_analyze_where_it_is_installed() {
    let Ok(version) = Command::new("systemd-analyze").arg("--version").output() else {
        eprintln!("skipped: no systemd-analyze on this machine");
        return;
    };
    if !version.status.success() {
        eprintln!("skipped: systemd-analyze does not run here");
        return;
    }
    let home = hooks_testing::scratch_dir("serve-install", "verify");
    assert_eq!(serve_command(&["--install"], &home, None).0, 0);
    let unit = home.join(".config/systemd/user/hooks-serve.service");
    let output = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&unit)
        .output()
        .unwrap();
    // It exits 0 even for a line it ignores, which it names with the file.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !said.contains("hooks-serve.service:"),
        "{said}"
    );
}

/// A self-signed certificate for `localhost` and 127.0.0.1 and its key, made by `openssl` in
/// `dir`; `None` (the test then says it was skipped) where `openssl` does not run.
#[cfg(feature = "serve-tls")]
fn self_signed(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        // A server's certificate, not a CA's (rustls refuses a CA as the server).
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .args(["-addext", "keyUsage=digitalSignature"])
        .args(["-addext", "extendedKeyUsage=serverAuth"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    made.is_ok_and(|status| status.success())
        .then_some((cert, key))
}

/// Sends `request` over TLS to `address`, trusting `cert` alone for `localhost`; the reply.
#[cfg(feature = "serve-tls")]
fn over_tls(address: &str, cert: &Path, request: &[u8]) -> String {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, ServerName};
    use std::sync::Arc;
    let mut roots = rustls::RootCertStore::empty();
    for der in CertificateDer::pem_file_iter(cert).unwrap() {
        roots.add(der.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = ServerName::try_from("localhost").unwrap();
    let connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let socket = TcpStream::connect(address).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut stream = rustls::StreamOwned::new(connection, socket);
    stream.write_all(request).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

#[cfg(feature = "serve-tls")]
#[test]
fn with_tls_a_non_loopback_address_is_served_over_https_only() {
    let dir = hooks_testing::scratch_dir("serve-tls", "cert");
    let Some((cert, key)) = self_signed(&dir) else {
        eprintln!("skipped: openssl cannot make a certificate here");
        return;
    };
    let (cert_arg, key_arg) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let served = Served::start_on(
        "tls",
        "0.0.0.0:0",
        &["--tls-cert", cert_arg, "--tls-key", key_arg],
        &[],
    );
    let port = served.address.rsplit(':').next().unwrap();
    let address = format!("127.0.0.1:{port}");
    let project = project("tls", POLICY);
    let event = json!({"session_id": "s", "cwd": project, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    .to_string();
    let request = |token: &str| {
        format!(
            "POST /claude HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Authorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{event}",
            event.len()
        )
    };
    let reply = over_tls(&address, &cert, request(&served.token).as_bytes());
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"permissionDecision\":\"deny\""), "{reply}");
    // The token is still required over TLS.
    let reply = over_tls(&address, &cert, request("wrong").as_bytes());
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    // Plain HTTP on the same port gets no HTTP answer at all.
    let mut plain = TcpStream::connect(&address).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    plain.write_all(request(&served.token).as_bytes()).unwrap();
    let mut reply = Vec::new();
    let _ = plain.read_to_end(&mut reply);
    assert!(!String::from_utf8_lossy(&reply).contains("HTTP/1.1 200"));
}

#[cfg(feature = "serve-tls")]
#[test]
fn tls_needs_both_files_and_a_readable_pair() {
    let dir = hooks_testing::scratch_dir("serve-tls", "bad");
    let missing = dir.join("missing.pem");
    let missing = missing.to_str().unwrap();
    let serve = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(["serve", "--token-file"])
            .arg(dir.join("token"))
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(serve(&["--tls-cert", missing]).status.code(), Some(2));
    let output = serve(&["--tls-cert", missing, "--tls-key", missing]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--tls-cert") && stderr.contains("missing.pem"),
        "{stderr}"
    );
}

/// `hooks serve` with a hooks file mounting `telemetry`: the exporter batches in the
/// background, so a decision never waits for the collector, spans arrive in fewer requests
/// than decisions, and what is batched when the server stops is exported before it exits.
#[cfg(feature = "otel")]
mod telemetry {
    use std::time::Instant;

    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;

    use super::*;

    /// Safety and telemetry to `endpoint`, with an export timeout of `timeout_ms`.
    fn traced(test: &str, endpoint: &str, timeout_ms: u64) -> PathBuf {
        project(
            test,
            &format!(
                "modules:\n  safety: {{}}\n  telemetry: {{endpoint: \"{endpoint}\", \
                 service_name: \"serve\", timeout_ms: {timeout_ms}}}\n"
            ),
        )
    }

    /// A Bash call in `dir` whose tool call id is `id`.
    fn bash(dir: &Path, id: &str) -> String {
        json!({"session_id": "otel", "cwd": dir, "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": id})
        .to_string()
    }

    /// The tool call ids of the `hooks.emit` spans the collector received.
    fn emitted(collector: &otlp::Receiver) -> Vec<String> {
        collector
            .spans()
            .into_iter()
            .filter(|span| span.name == "hooks.emit")
            .filter_map(|span| {
                span.attributes
                    .iter()
                    .find(|kv| kv.key == "gen_ai.tool.call.id")
                    .and_then(|kv| kv.value.as_ref())
                    .and_then(|value| match &value.value {
                        Some(Any::StringValue(id)) => Some(id.clone()),
                        _ => None,
                    })
            })
            .collect()
    }

    /// Waits up to `limit` for `done`; whether it came true.
    fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
        let started = Instant::now();
        while started.elapsed() < limit {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        done()
    }

    #[test]
    fn a_stalled_collector_holds_no_decision_back() {
        let collector = otlp::Receiver::start(otlp::Reply::Never);
        // An export may take 20 s; the batches go out every 50 ms.
        let dir = traced("otel-stalled", &collector.endpoint(), 20_000);
        let served = Served::start_with_env(
            "otel-stalled",
            &[],
            &[("OTEL_BSP_SCHEDULE_DELAY", Path::new("50"))],
        );
        let mut client = KeepAlive::connect(&served);
        assert_eq!(client.call(&bash(&dir, "first")).0, 200);
        assert!(
            within(Duration::from_secs(10), || {
                !collector.bodies("/v1/traces").is_empty()
            }),
            "the first batch reaches the collector"
        );
        // The exporter now waits on a collector that never answers: decisions go on.
        let started = Instant::now();
        for call in 0..20 {
            let (status, body) = client.call(&bash(&dir, &format!("stalled-{call}")));
            assert_eq!(status, 200, "{body}");
        }
        let elapsed = started.elapsed();
        // Generous, and far below the 20 s an export may take: a behaviour check.
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        assert_eq!(
            collector.bodies("/v1/traces").len(),
            1,
            "the exporter is still held by the first export"
        );
    }

    #[test]
    fn spans_arrive_in_batches_every_one_of_them() {
        const DECISIONS: usize = 40;
        let collector = otlp::Receiver::start(otlp::Reply::Ok);
        let dir = traced("otel-batches", &collector.endpoint(), 5_000);
        let served = Served::start_with_env(
            "otel-batches",
            &[],
            &[("OTEL_BSP_SCHEDULE_DELAY", Path::new("200"))],
        );
        let mut client = KeepAlive::connect(&served);
        let ids: Vec<String> = (0..DECISIONS).map(|call| format!("batch-{call}")).collect();
        for id in &ids {
            assert_eq!(client.call(&bash(&dir, id)).0, 200);
        }
        assert!(
            within(Duration::from_secs(20), || emitted(&collector).len()
                >= DECISIONS),
            "{} of {DECISIONS} spans arrived",
            emitted(&collector).len()
        );
        let mut arrived = emitted(&collector);
        arrived.sort();
        let mut expected = ids.clone();
        expected.sort();
        assert_eq!(arrived, expected, "each decision's span, once");
        let requests = collector.bodies("/v1/traces").len();
        assert!(
            requests < DECISIONS,
            "{requests} export requests for {DECISIONS} decisions"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_spans_still_batched_are_exported_when_the_server_stops() {
        let collector = otlp::Receiver::start(otlp::Reply::Ok);
        let dir = traced("otel-stop", &collector.endpoint(), 5_000);
        // No batch would go out for a minute.
        let mut served = Served::start_with_env(
            "otel-stop",
            &[],
            &[("OTEL_BSP_SCHEDULE_DELAY", Path::new("60000"))],
        );
        let ids: Vec<String> = (0..5).map(|call| format!("stop-{call}")).collect();
        {
            let mut client = KeepAlive::connect(&served);
            for id in &ids {
                assert_eq!(client.call(&bash(&dir, id)).0, 200);
            }
        }
        assert!(emitted(&collector).is_empty(), "held in the batch");
        let pid = served.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let exited = served.child.wait().unwrap();
        assert!(exited.success(), "{exited:?}");
        let mut arrived = emitted(&collector);
        arrived.sort();
        assert_eq!(arrived, ids, "exported before the server exited");
    }
}

/// A WebAssembly hook is loaded with its hooks file, once, not at each call: with its file and
/// its compiled code in the disk cache both gone, the server still answers with it. (A load
/// at a call would fail, and `on_failure: warn` would let the call through.)
#[cfg(feature = "wasm")]
#[test]
fn a_wasm_hook_is_loaded_once_and_answers_every_call_after() {
    const REASON: &str = "refused by the component";
    let dir = project(
        "wasm-once",
        "hooks:\n  PreToolUse:\n    - type: wasm\n      path: refuse.wasm\n      on_failure: warn\n",
    );
    let component = guests::guest(
        &guests::answer(
            guests::DENY,
            Some((guests::REASON, 512, i32::try_from(REASON.len()).unwrap())),
        ),
        &format!(
            "(data (i32.const 512) \"{REASON}\") {}",
            guests::filler(1_000)
        ),
    );
    std::fs::write(dir.join("refuse.wasm"), component).unwrap();
    let cache = dir.join("wasm-cache");
    let served = Served::start_with_env("wasm-once", &[], &[("HOOKS_WASM_CACHE", &cache)]);
    let call = |id: &str| {
        let event = json!({"session_id": "w", "cwd": dir, "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": "ls"},
                           "tool_use_id": id});
        served.call("claude", &event.to_string())
    };
    let (status, body) = call("first");
    assert_eq!(status, 200);
    assert!(body.contains(REASON), "the component decides: {body}");
    std::fs::remove_file(dir.join("refuse.wasm")).unwrap();
    let _ = std::fs::remove_dir_all(&cache);
    for id in ["second", "third", "fourth"] {
        let (status, body) = call(id);
        assert_eq!(status, 200);
        assert!(
            body.contains(REASON),
            "{id}: still the loaded component: {body}"
        );
    }
}
