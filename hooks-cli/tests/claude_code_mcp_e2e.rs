//! Claude Code itself with an MCP server run through `hooks mcp-proxy`: the project's
//! `.mcp.json` is rewritten by `hooks mcp wrap`, the real CLI (`claude -p`, offline, in a
//! network namespace with only loopback) calls the server's tool as the mock model asks, and
//! the server (a small one that records every call it gets in a file) shows what reached it.
//!
//! The proxy's policy is a file of its own (`mcp wrap --config`), and Claude Code's own hooks
//! file says nothing of the tool: a denial can only come from the proxy.
//!
//! Runs when `HOOKS_E2E_CLAUDE` names the pinned `claude` executable (see `claude_code/`);
//! skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

mod claude_code;

use claude_code::messages_api::{self, MessagesRequest, Script, TOOL_USE_ID};
use claude_code::mock_http::{MockServer, Request};
use claude_code::project::{ClaudeRun, Project};
use claude_code::scenario;
use serde_json::{Value, json};

/// The proxy's policy: the recorder may not record anything "forbidden".
const MCP_POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_forbidden_record
      match:
        tool: mcp__recorder__record
        args:
          text: "*forbidden*"
      action: block
      message: "RECORDER-DENY-9d2b: that text may not be recorded"
"#;

/// The tool as Claude Code names it.
const TOOL: &str = "mcp__recorder__record";

/// A project with the recorder in `.mcp.json`, wrapped by `hooks mcp wrap` with the proxy's
/// own policy, and its servers enabled; the recorder's log file.
fn project_with_recorder(scratch: &std::path::Path) -> (Project, std::path::PathBuf) {
    let project = Project::new(scratch, "hooks: {}\n");
    let log = scratch.join("recorded.txt");
    let recorder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/claude_code/mcp_recorder.py"
    );
    let servers = json!({"mcpServers": {"recorder": {
        "command": "python3",
        "args": [recorder, log.to_string_lossy()],
    }}});
    std::fs::write(project.dir.join(".mcp.json"), servers.to_string()).unwrap();
    std::fs::write(project.dir.join("mcp-policy.yaml"), MCP_POLICY).unwrap();
    project.hooks(&["check", "mcp-policy.yaml"]);
    project.hooks(&["mcp", "wrap", "--config", "mcp-policy.yaml"]);
    let wrapped: Value =
        serde_json::from_str(&std::fs::read_to_string(project.dir.join(".mcp.json")).unwrap())
            .unwrap();
    let args = wrapped["mcpServers"]["recorder"]["args"].to_string();
    assert!(args.contains("mcp-proxy"), "not wrapped: {wrapped}");
    // A project's servers run only once the user has enabled them.
    let mut settings = project.settings();
    settings["enableAllProjectMcpServers"] = json!(true);
    project.write_settings(&settings);
    (project, log)
}

/// Runs Claude Code in `project` with the model calling the recorder with `text`.
fn call_recorder(
    claude: &std::path::Path,
    project: &Project,
    text: &str,
) -> (ClaudeRun, MockServer) {
    let api = messages_api::start(Script {
        tool_call: Some((TOOL.to_owned(), json!({"text": text}))),
        ..Script::default()
    });
    let run = project.run_claude_allowing(claude, &api, "record the line", TOOL, &[]);
    (run, api)
}

/// The tools offered to the model at each turn, for a failure report.
fn offered_tools(api: &MockServer) -> Vec<Vec<String>> {
    api.requests()
        .iter()
        .filter(|request| request.is_turn())
        .map(|request| {
            request.json()["tools"]
                .as_array()
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The result the model got for its tool call, if it got one.
fn answered(api: &MockServer) -> Option<(String, bool)> {
    api.requests()
        .into_iter()
        .filter(Request::is_turn)
        .find_map(|request| request.tool_result(TOOL_USE_ID))
}

#[test]
fn a_denied_mcp_call_never_reaches_the_server_and_the_model_reads_why() {
    scenario(
        "a_denied_mcp_call_never_reaches_the_server_and_the_model_reads_why",
        |claude, scratch| {
            let (project, log) = project_with_recorder(scratch);
            let (run, api) = call_recorder(claude, &project, "a forbidden line");
            run.assert_finished();
            let recorded = std::fs::read_to_string(&log).unwrap_or_default();
            assert!(
                !recorded.contains("forbidden"),
                "the denied call reached the server: {recorded:?}\n{}",
                run.report()
            );
            let Some((text, is_error)) = answered(&api) else {
                panic!(
                    "the model never got the tool call's result\n{}",
                    run.report()
                );
            };
            assert!(
                is_error && text.contains("RECORDER-DENY-9d2b"),
                "the model must read the proxy's denial, read {text:?}\n{}",
                run.report()
            );
        },
    );
}

#[test]
fn an_allowed_mcp_call_reaches_the_server() {
    scenario(
        "an_allowed_mcp_call_reaches_the_server",
        |claude, scratch| {
            let (project, log) = project_with_recorder(scratch);
            let (run, api) = call_recorder(claude, &project, "an ordinary line");
            run.assert_finished();
            let offered = offered_tools(&api);
            let recorded = std::fs::read_to_string(&log).unwrap_or_default();
            assert_eq!(
                recorded,
                "an ordinary line\n",
                "tools offered to the model: {offered:?}\n{}",
                run.report()
            );
            assert!(
                matches!(answered(&api), Some((ref text, false)) if text.contains("recorded")),
                "the model must get the server's answer, got {:?}\n{}",
                answered(&api),
                run.report()
            );
        },
    );
}
