//! One decision, whatever the front end: the calls of `front_ends/cases.json`, under the managed
//! file of `front_ends/managed/` and the project's of `front_ends/project/`, decided by
//! `hooks claude`, `hooks serve`, `hooks mcp-proxy`, `hooks eval`, `hooks test` and
//! `hooks replay`. Each is held to the decision the table states, so that no front end can
//! assemble the decision its own way (a lower layer's rewrite escaping the managed re-check, a
//! remembered answer or a `#[hook]` left out). The Python package runs the same table in
//! `hooks-py/tests/test_front_ends.py`.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
#[cfg(any(feature = "serve", feature = "mcp"))]
use std::process::{Command, Stdio};
#[cfg(any(feature = "serve", feature = "mcp"))]
use std::time::Duration;

use hooks_core::HookRegistry;
use hooks_core::session::approval::Approvals;
use hooks_std::state_file::FileState;
use serde::Deserialize;
use serde_json::{Value, json};

/// What the policy decides of a call, as a person asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Verdict {
    Allow,
    Deny,
    Ask,
}

/// One call of the table and the decision expected of it.
#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    command: String,
    verdict: Verdict,
    /// The command as the decision leaves it, where it goes ahead or is asked.
    runs: Option<String>,
    session: Option<String>,
    #[serde(default)]
    rewritten_by_module: bool,
}

#[derive(Debug, Deserialize)]
struct Remembered {
    session: String,
    question: String,
}

#[derive(Debug, Deserialize)]
struct Table {
    remembered: Remembered,
    cases: Vec<Case>,
}

/// What a front end showed of one decision: its verdict, and the command it leaves where the
/// front end shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    verdict: Verdict,
    runs: Option<String>,
}

impl Seen {
    fn new(verdict: Verdict, runs: Option<&str>) -> Self {
        Seen {
            verdict,
            runs: runs.map(str::to_owned),
        }
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/front_ends")
}

fn table() -> Table {
    let text = std::fs::read_to_string(fixture().join("cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The session a case's call is made in.
fn session_of(case: &Case) -> &str {
    case.session.as_deref().unwrap_or("front-ends")
}

/// A machine of its own: the fixture's managed and project files copied, a home without a
/// user file, the sessions' state where the table's remembered answer is kept.
struct Machine {
    root: PathBuf,
    project: PathBuf,
    managed: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

impl Machine {
    fn new(test: &str, table: &Table) -> Self {
        let root = hooks_testing::scratch_dir("front-ends", test);
        let machine = Machine {
            project: root.join("project"),
            managed: root.join("managed"),
            home: root.join("home"),
            state: root.join("state"),
            root,
        };
        for (from, to) in [("managed", &machine.managed), ("project", &machine.project)] {
            std::fs::create_dir_all(to).unwrap();
            for entry in std::fs::read_dir(fixture().join(from)).unwrap() {
                let path = entry.unwrap().path();
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
        std::fs::create_dir_all(&machine.home).unwrap();
        machine.remember(&table.remembered);
        machine
    }

    /// The session of `remembered` answered its question "… always allow", as an
    /// application's approval would have kept it.
    fn remember(&self, remembered: &Remembered) {
        let registry = HookRegistry::new();
        registry.set_state_backend(FileState::new(&self.state));
        let state = registry.state().session(&remembered.session).unwrap();
        Approvals::new(None, registry)
            .remembering_in(state)
            .remember(&remembered.question, true);
    }

    fn config(&self) -> PathBuf {
        self.project.join("hooks.yaml")
    }

    fn env(&self) -> Vec<(&'static str, OsString)> {
        vec![
            ("HOOKS_MANAGED_DIR", self.managed.clone().into()),
            ("HOME", self.home.clone().into()),
            ("XDG_CONFIG_HOME", OsString::new()),
            ("XDG_STATE_HOME", OsString::new()),
            ("HOOKS_STATE_DIR", self.state.clone().into()),
        ]
    }

    fn run(&self, args: &[&OsStr], stdin: &str) -> std::process::Output {
        let env = self.env();
        let env: Vec<(&str, &OsStr)> = env
            .iter()
            .map(|(name, value)| (*name, value.as_os_str()))
            .collect();
        support::run_with_env(Some(&self.project), args, stdin, &env)
    }

    /// The canonical `tool:pre` data of `case`'s call.
    fn call(&self, case: &Case) -> Value {
        json!({"tool_name": "Bash", "tool_input": {"command": case.command},
               "session_id": session_of(case), "cwd": self.project})
    }

    /// Claude Code's hook input for `case`'s call.
    fn claude_input(&self, case: &Case) -> Value {
        json!({"session_id": session_of(case), "transcript_path": "/tmp/t.jsonl",
               "cwd": self.project, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": case.command}, "tool_use_id": "t1",
               "permission_mode": "default"})
    }
}

/// Claude Code's reading of an answer (exit code, stdout).
fn claude_seen(exit_code: Option<i32>, stdout: &str, case: &Case) -> Seen {
    if exit_code == Some(2) {
        return Seen::new(Verdict::Deny, None);
    }
    if stdout.trim().is_empty() {
        return Seen::new(Verdict::Allow, Some(&case.command));
    }
    let answer: Value = serde_json::from_str(stdout).unwrap();
    if answer["decision"] == "block" {
        return Seen::new(Verdict::Deny, None);
    }
    let specific = &answer["hookSpecificOutput"];
    let runs = specific["updatedInput"]["command"]
        .as_str()
        .unwrap_or(&case.command);
    match specific["permissionDecision"].as_str() {
        Some("deny") => Seen::new(Verdict::Deny, None),
        Some("ask") => Seen::new(Verdict::Ask, Some(runs)),
        _ => Seen::new(Verdict::Allow, Some(runs)),
    }
}

/// What an agent adapter answers for `case`: the policy's decision, except that a rewrite no
/// `rewrite: apply` entry made is put to the user to confirm.
fn expected_of_an_agent(case: &Case) -> Seen {
    match (case.verdict, case.rewritten_by_module) {
        (Verdict::Allow, true) => Seen::new(Verdict::Ask, case.runs.as_deref()),
        (Verdict::Deny, _) => Seen::new(Verdict::Deny, None),
        (verdict, _) => Seen::new(verdict, case.runs.as_deref()),
    }
}

/// The policy's decision of `case`, as a front end that shows it whole gives it.
fn expected(case: &Case) -> Seen {
    match case.verdict {
        Verdict::Deny => Seen::new(Verdict::Deny, None),
        verdict => Seen::new(verdict, case.runs.as_deref()),
    }
}

/// `seen` agrees with `wanted`: the same verdict, and the same command where both show one.
fn agrees(seen: &Seen, wanted: &Seen) -> bool {
    seen.verdict == wanted.verdict
        && match (&seen.runs, &wanted.runs) {
            (Some(seen), Some(wanted)) => seen == wanted,
            _ => true,
        }
}

/// Checks every case a front end decided against what the table wants of it.
fn hold(front_end: &str, table: &Table, seen: &[(usize, Seen)], want: fn(&Case) -> Seen) {
    assert!(!seen.is_empty(), "{front_end} decided nothing");
    let wrong: Vec<String> = seen
        .iter()
        .filter_map(|(index, seen)| {
            let case = &table.cases[*index];
            let wanted = want(case);
            (!agrees(seen, &wanted))
                .then(|| format!("{}: {seen:?}, the policy decides {wanted:?}", case.name))
        })
        .collect();
    assert!(wrong.is_empty(), "{front_end}:\n{}", wrong.join("\n"));
}

#[test]
fn hooks_claude_decides_as_the_table_says() {
    let table = table();
    let machine = Machine::new("claude", &table);
    let config = machine.config();
    let seen: Vec<(usize, Seen)> = table
        .cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let output = machine.run(
                &["claude".as_ref(), "--config".as_ref(), config.as_os_str()],
                &machine.claude_input(case).to_string(),
            );
            let stdout = support::stdout(&output);
            (index, claude_seen(output.status.code(), &stdout, case))
        })
        .collect();
    hold("hooks claude", &table, &seen, expected_of_an_agent);
}

#[test]
fn hooks_eval_decides_as_the_table_says() {
    let table = table();
    let machine = Machine::new("eval", &table);
    let config = machine.config();
    let seen: Vec<(usize, Seen)> = table
        .cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let data = machine.call(case).to_string();
            let output = machine.run(
                &[
                    "eval".as_ref(),
                    "--config".as_ref(),
                    config.as_os_str(),
                    "--event".as_ref(),
                    "PreToolUse".as_ref(),
                    "--data".as_ref(),
                    data.as_ref(),
                ],
                "",
            );
            assert!(output.status.success(), "{output:?}");
            let result = support::stdout_json(&output);
            let verdict = match result["action"].as_str() {
                Some("deny") => Verdict::Deny,
                Some("ask_user") => Verdict::Ask,
                _ => Verdict::Allow,
            };
            let runs = result["data"]["tool_input"]["command"].as_str();
            (index, Seen::new(verdict, runs))
        })
        .collect();
    hold("hooks eval", &table, &seen, expected);
}

#[test]
fn hooks_test_decides_as_the_table_says() {
    let table = table();
    let machine = Machine::new("test", &table);
    let cases: Vec<Value> = table
        .cases
        .iter()
        .map(|case| {
            let verdict = match case.verdict {
                Verdict::Allow => "allow",
                Verdict::Deny => "deny",
                Verdict::Ask => "ask",
            };
            json!({"name": case.name, "event": "PreToolUse", "data": machine.call(case),
                   "expect": verdict})
        })
        .collect();
    // JSON is YAML: the table as `hooks test` reads it.
    let file = machine.project.join("front-ends.test.yaml");
    let written = json!({"config": "hooks.yaml", "cases": cases});
    std::fs::write(&file, written.to_string()).unwrap();
    let output = machine.run(&["test".as_ref(), file.as_os_str(), "--json".as_ref()], "");
    let report = support::stdout_json(&output);
    assert_eq!(report["errors"], json!([]), "{report}");
    let got = report["tables"][0]["cases"].as_array().unwrap();
    assert_eq!(got.len(), table.cases.len(), "{report}");
    let seen: Vec<(usize, Seen)> = got
        .iter()
        .enumerate()
        .map(|(index, result)| {
            let verdict = serde_json::from_value(result["got"].clone()).unwrap();
            (index, Seen::new(verdict, None))
        })
        .collect();
    hold("hooks test", &table, &seen, expected);
    assert!(output.status.success(), "{report}");
}

#[test]
fn hooks_replay_decides_as_the_table_says() {
    let table = table();
    let machine = Machine::new("replay", &table);
    // Each call logged as let through: what replay reports changed is what the policy now stops.
    let log: String = table
        .cases
        .iter()
        .map(|case| {
            let line = json!({"event": "tool:pre", "data": machine.call(case),
                              "result": {"action": "continue"}});
            format!("{line}\n")
        })
        .collect();
    let events = machine.root.join("events.jsonl");
    std::fs::write(&events, log).unwrap();
    let config = machine.config();
    let output = machine.run(
        &[
            "replay".as_ref(),
            events.as_os_str(),
            "--config".as_ref(),
            config.as_os_str(),
            "--json".as_ref(),
        ],
        "",
    );
    assert!(output.status.success(), "{output:?}");
    let report = support::stdout_json(&output);
    assert_eq!(report["not_replayed"], json!([]), "{report}");
    assert_eq!(report["replayed"], table.cases.len(), "{report}");
    let seen: Vec<(usize, Seen)> = (0..table.cases.len())
        .map(|index| {
            let changed = report["changed"]
                .as_array()
                .unwrap()
                .iter()
                .find(|change| change["line"] == index + 1);
            let verdict = changed.map_or(Verdict::Allow, |change| {
                serde_json::from_value(change["after"].clone()).unwrap()
            });
            (index, Seen::new(verdict, None))
        })
        .collect();
    hold("hooks replay", &table, &seen, expected);
}

#[cfg(feature = "serve")]
#[test]
fn hooks_serve_decides_as_the_table_says() {
    use std::io::{Read as _, Write as _};
    use std::net::TcpStream;

    let table = table();
    let machine = Machine::new("serve", &table);
    let token_file = machine.root.join("token");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&token_file)
        .envs(machine.env())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let address = support::serve_address(&mut child);
    let token = std::fs::read_to_string(&token_file).unwrap();
    let seen: Vec<(usize, Seen)> = table
        .cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let body = machine.claude_input(case).to_string();
            let mut stream = TcpStream::connect(&address).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            write!(
                stream,
                "POST /claude HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
                 Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                token.trim(),
                body.len()
            )
            .unwrap();
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            let (head, body) = reply.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with("HTTP/1.1 200"), "{reply}");
            (index, claude_seen(Some(0), body, case))
        })
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    hold("hooks serve", &table, &seen, expected_of_an_agent);
}

/// An MCP server of the handshake era with one tool, `run`, that answers the command it was
/// given: what reaches it is what the policy let through.
#[cfg(feature = "mcp")]
const SERVER: &str = r#"import json, sys
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "run", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "run", "description": "Runs a command",
                             "inputSchema": {"type": "object",
                                             "properties": {"command": {"type": "string"}}}}]}
    elif method == "tools/call":
        command = message["params"]["arguments"]["command"]
        result = {"content": [{"type": "text", "text": command}]}
    elif method == "ping":
        result = {}
    else:
        answer = {"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": "method not found"}}
        print(json.dumps(answer), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
"#;

#[cfg(feature = "mcp")]
#[test]
fn hooks_mcp_proxy_decides_as_the_table_says() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::sync::mpsc;

    let table = table();
    let machine = Machine::new("mcp-proxy", &table);
    let server = machine.root.join("server.py");
    std::fs::write(&server, SERVER).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .arg("mcp-proxy")
        .arg("--config")
        .arg(machine.config())
        .args(["--name", "runner", "--", "python3"])
        .arg(&server)
        .current_dir(&machine.project)
        .envs(machine.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let output = BufReader::new(child.stdout.take().unwrap());
    let (lines, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for line in output.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let send = |input: &mut std::process::ChildStdin, message: Value| {
        writeln!(input, "{message}").unwrap();
    };
    let answer_to = |id: usize| -> Value {
        loop {
            let line = answers
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no answer to request {id}"));
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    };
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "front-ends", "version": "1"}}}),
    );
    answer_to(0);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    // An MCP client's calls carry no agent session: the cases that need one are left out.
    let mut seen = Vec::new();
    for (index, case) in table.cases.iter().enumerate() {
        if case.session.is_some() {
            continue;
        }
        let id = index + 1;
        send(
            &mut input,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "run", "arguments": {"command": case.command}}}),
        );
        let answer = answer_to(id);
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let seen_here = if result["isError"] == true {
            if text.contains("would have been asked") || text.contains("not approved") {
                Seen::new(Verdict::Ask, None)
            } else {
                assert!(text.contains("denied"), "{answer}");
                Seen::new(Verdict::Deny, None)
            }
        } else {
            Seen::new(Verdict::Allow, Some(text))
        };
        seen.push((index, seen_here));
    }
    drop(input);
    let _ = child.kill();
    let _ = child.wait();
    hold("hooks mcp-proxy", &table, &seen, expected);
}
