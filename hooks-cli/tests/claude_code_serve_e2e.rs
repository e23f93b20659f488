//! Claude Code itself behind `hooks serve`: a project set up by `hooks init claude --serve`
//! (`type: "http"` hooks with `onFailure: "block"`, the token from `$HOOKS_SERVE_TOKEN`, and a
//! `SessionStart` hook that starts the server), the real CLI run headless in a network
//! namespace with only loopback against the mock of the Messages API (see `claude_code/`).
//!
//! What Claude Code 2.1.331 does when the server fails (connection refused, 500, 503, a 2xx
//! whose body is not JSON): the hook fails, and under `onFailure: "block"` it blocks: the prompt (`UserPromptSubmit
//! operation blocked by hook: [url]: failed; blocking because onFailure is "block"` and the
//! cause, `connect ECONNREFUSED ...` or `HTTP 500 from ...`), so nothing reaches the model;
//! and a tool call, which does not run, the model reading `PreToolUse:Bash hook error: ...`
//! as its failed result. These scenarios check it with the call's effect on disk.
//!
//! Runs when `HOOKS_E2E_CLAUDE` names the pinned `claude` executable; skipped, saying so,
//! otherwise.

#![cfg(feature = "serve")]
#![allow(clippy::unwrap_used)]

mod claude_code;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use claude_code::messages_api::{self, MessagesRequest, Script, TOOL_USE_ID};
use claude_code::mock_http::{MockServer, Request};
use claude_code::project::{ClaudeRun, Project};
use claude_code::scenario;
use serde_json::Value;

/// The address the wiring names (each scenario has a network namespace of its own, so the
/// default port is free).
const ADDRESS: &str = "127.0.0.1:8787";

/// The token the scenarios put in the server's token file and in Claude Code's environment.
const TOKEN: &str = "5e7fe2e0c0ffee0ddba11c0de5eed5a1e5e7fe2e0c0ffee0ddba11c0de5eed5a";

/// The model's turns, in the order the mock received them.
fn turns(api: &MockServer) -> Vec<Request> {
    api.requests()
        .into_iter()
        .filter(Request::is_turn)
        .collect()
}

/// What the model read as the result of its one tool call: the text and whether it was an
/// error; panics with the run's report when it never got one.
fn tool_result(api: &MockServer, run: &ClaudeRun) -> (String, bool) {
    turns(api)
        .iter()
        .find_map(|request| request.tool_result(TOOL_USE_ID))
        .unwrap_or_else(|| {
            panic!(
                "the model never got the tool call's result\n{}",
                run.report()
            )
        })
}

/// A project set up by `hooks init claude --serve` with the pinned Claude Code on the PATH
/// (so the entries carry `onFailure`), and the token file where `hooks serve` looks for it in
/// the project's home; returns the project and the settings written.
fn served_project(claude: &Path, scratch: &Path) -> (Project, Value) {
    let project = Project::new(scratch, "hooks: {}\n");
    let settings = project.init_with_args(claude, &["--serve", "--listen", ADDRESS]);
    let pre = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(pre["type"], "http", "{settings}");
    assert_eq!(pre["onFailure"], "block", "{settings}");
    let start = &settings["hooks"]["SessionStart"][0]["hooks"][0]["command"];
    assert!(
        start
            .as_str()
            .unwrap_or_default()
            .contains("serve --ensure"),
        "{settings}"
    );
    let token_file = token_file(&project);
    std::fs::create_dir_all(token_file.parent().unwrap()).unwrap();
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    (project, settings)
}

/// `hooks serve`'s token file under the project's `HOME`.
fn token_file(project: &Project) -> PathBuf {
    project.home.join(".local/state/hooks/serve-token")
}

/// Runs Claude Code in `project` with the token in its environment, as the wiring expects.
fn run_served(project: &Project, claude: &Path, api: &MockServer, prompt: &str) -> ClaudeRun {
    project.run_claude_with(claude, api, prompt, &[("HOOKS_SERVE_TOKEN", TOKEN)])
}

/// The server the `SessionStart` hook started answers with the token; a way to tell that the
/// decisions came from it.
fn assert_served(project: &Project, run: &ClaudeRun) {
    let log = std::fs::read_to_string(token_file(project).with_file_name("serve.log"))
        .unwrap_or_default();
    assert!(
        log.contains("listening on http://127.0.0.1:8787"),
        "the SessionStart hook must have started `hooks serve`; its log: {log:?}\n{}",
        run.report()
    );
    let events =
        std::fs::read_to_string(project.dir.join(".hooks/events.jsonl")).unwrap_or_default();
    assert!(
        events.contains("\"PreToolUse\"") || events.contains("tool:before"),
        "the server's policy logged the call: {events:?}\n{}",
        run.report()
    );
}

/// `cd .. && rm -rf project` is denied by the served policy: the project stays, and the model
/// reads the policy's reason.
#[test]
fn served_a_denied_rm_leaves_its_target_and_the_model_reads_our_reason() {
    scenario(
        "served_a_denied_rm_leaves_its_target_and_the_model_reads_our_reason",
        |claude, scratch| {
            let (project, _) = served_project(claude, scratch);
            let source = project.dir.join("src/main.rs");
            std::fs::create_dir_all(source.parent().unwrap()).unwrap();
            std::fs::write(&source, "fn main() {}\n").unwrap();
            let command = "cd .. && rm -rf project";
            let reason = project.deny_reason(command);
            let api = messages_api::start(Script {
                bash_command: Some(command.to_owned()),
                ..Script::default()
            });

            let run = run_served(&project, claude, &api, "start the project over");

            run.assert_finished();
            assert!(source.exists(), "the project was deleted\n{}", run.report());
            let (text, is_error) = tool_result(&api, &run);
            assert!(
                is_error && text.contains(&reason),
                "the model must read the denial with our reason {reason:?}, read {text:?}\n{}",
                run.report()
            );
            assert_served(&project, &run);
        },
    );
}

#[test]
fn served_a_benign_command_runs() {
    scenario("served_a_benign_command_runs", |claude, scratch| {
        let (project, _) = served_project(claude, scratch);
        let api = messages_api::start(Script {
            bash_command: Some("touch made-by-agent".to_owned()),
            ..Script::default()
        });

        let run = run_served(&project, claude, &api, "create the marker file");

        run.assert_finished();
        assert!(
            project.dir.join("made-by-agent").exists(),
            "the command did not run\n{}",
            run.report()
        );
        let (_, is_error) = tool_result(&api, &run);
        assert!(!is_error, "a success\n{}", run.report());
        assert_served(&project, &run);
    });
}

/// A `--serve` project whose server is not the real one (`break_server` sets that up, given
/// the project and its settings), asked to run `touch made-by-agent`. The prompt's hook fails
/// first: Claude Code blocks the prompt, says why, and nothing reaches the model. With the
/// prompt's hook taken out, the tool call's hook fails: the call does not run, and the model
/// reads a failed call. What Claude Code said each time goes to the test's log.
fn a_failing_server_blocks_the_call(test: &str, break_server: impl FnOnce(&Project, &mut Value)) {
    scenario(test, |claude, scratch| {
        let (project, mut settings) = served_project(claude, scratch);
        break_server(&project, &mut settings);
        project.write_settings(&settings);
        let script = Script {
            bash_command: Some("touch made-by-agent".to_owned()),
            ..Script::default()
        };

        let api = messages_api::start(script.clone());
        let run = run_served(&project, claude, &api, "create the marker file");
        run.assert_finished();
        let said = run.result["result"].as_str().unwrap_or_default().to_owned();
        assert!(
            said.contains("blocking because onFailure is \"block\""),
            "Claude Code must say the prompt was blocked\n{}",
            run.report()
        );
        assert!(
            turns(&api).is_empty(),
            "nothing reaches the model\n{}",
            run.report()
        );
        eprintln!("{test}: the prompt: {said:?}");

        settings["hooks"]
            .as_object_mut()
            .unwrap()
            .remove("UserPromptSubmit");
        project.write_settings(&settings);
        let api = messages_api::start(script);
        let run = run_served(&project, claude, &api, "create the marker file");
        run.assert_finished();
        assert!(
            !project.dir.join("made-by-agent").exists(),
            "the call ran though its hook failed\n{}",
            run.report()
        );
        let (text, is_error) = tool_result(&api, &run);
        assert!(
            is_error,
            "the model must be told the call was blocked, read {text:?}\n{}",
            run.report()
        );
        eprintln!("{test}: the tool call: the model read {text:?}");
    });
}

/// The server is down and cannot be started (the `SessionStart` hook names a binary that is
/// gone): the connection is refused, and `onFailure: "block"` blocks the call.
#[test]
fn served_a_server_down_and_not_startable_blocks_the_call() {
    a_failing_server_blocks_the_call(
        "served_a_server_down_and_not_startable_blocks_the_call",
        |_, settings| {
            let start = &mut settings["hooks"]["SessionStart"][0]["hooks"][0]["command"];
            let command = start.as_str().unwrap().to_owned();
            let (_, rest) = command.split_once(' ').unwrap();
            *start = Value::from(format!("/nonexistent/bin/hooks {rest}"));
        },
    );
}

/// Something else holds the server's address and answers every request with `status` and
/// `body` (so `hooks serve --ensure` cannot start the real one): the call must not run.
fn a_foreign_server_blocks_the_call(test: &str, status: &'static str, body: &'static str) {
    a_failing_server_blocks_the_call(test, move |_, _| {
        let listener = TcpListener::bind(ADDRESS).unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || answer_with(stream, status, body));
            }
        });
    });
}

/// Reads one request from `stream` (headers, then the body its `Content-Length` names) and
/// answers it with `status` and `body`.
fn answer_with(stream: std::net::TcpStream, status: &str, body: &str) {
    let mut reader = BufReader::new(stream);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut request_body = vec![0u8; length];
    let _ = reader.read_exact(&mut request_body);
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
}

#[test]
fn served_a_500_blocks_the_call() {
    a_foreign_server_blocks_the_call(
        "served_a_500_blocks_the_call",
        "500 Internal Server Error",
        "{\"error\": \"boom\"}",
    );
}

#[test]
fn served_a_503_blocks_the_call() {
    a_foreign_server_blocks_the_call(
        "served_a_503_blocks_the_call",
        "503 Service Unavailable",
        "busy",
    );
}

/// A 2xx whose body is not JSON (which `hooks serve` never sends: its every 2xx is a decision,
/// or empty for "no objection"): Claude Code 2.1.331 takes it as a failed hook ("HTTP hook
/// must return JSON, but got non-JSON response body"), so it blocks too.
#[test]
fn served_a_2xx_that_is_not_json_blocks_the_call() {
    a_foreign_server_blocks_the_call(
        "served_a_2xx_that_is_not_json_blocks_the_call",
        "200 OK",
        "not json <html>",
    );
}
