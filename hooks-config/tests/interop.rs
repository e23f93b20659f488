//! Interop round trips: each agent event in, the right canonical event emitted, the right
//! protocol out; Claude Code settings imported; and Claude Code-style hook scripts giving the
//! same decisions under our runner as under Claude Code's rules.
#![allow(clippy::unwrap_used, missing_docs)]

use hooks_config::interop::claude::{CLAUDE, ClaudeCode, import_settings};
use hooks_config::interop::codex::{self, CODEX};
use hooks_config::interop::gemini::{GEMINI, GeminiCli};
use hooks_config::interop::{AGENTS, Agent, AgentAnswer, Rewrites, Verdict};
use hooks_core::{EmitResult, HookRegistry, HookResult, MessageLevel, events};
use serde_json::{Value, json};

/// The merged result of one emit of `event` with `data` through `answers` (one handler each).
async fn outcome(event: &str, data: &Value, answers: Vec<HookResult>) -> EmitResult {
    let registry = HookRegistry::new();
    for (index, answer) in answers.into_iter().enumerate() {
        registry
            .register(
                event,
                move |_: &str, _: &Value| {
                    let answer = answer.clone();
                    async move { answer }
                },
                i32::try_from(index).unwrap(),
                format!("h{index}"),
            )
            .unwrap();
    }
    registry.emit(event, data.clone()).await
}

/// `agent`'s answer to `agent_event`, checked by its validator: every answer of these tests is
/// one the agent takes.
fn answer_of(
    agent: &dyn Agent,
    agent_event: &str,
    data: &Value,
    outcome: &EmitResult,
    rewrites: &Rewrites,
) -> AgentAnswer {
    let answer = agent.answer(agent_event, data, outcome, rewrites);
    if let Err(problem) = agent.accepts(agent_event, &answer) {
        panic!("{agent:?} would reject the answer to {agent_event} ({problem}): {answer:?}");
    }
    answer
}

/// Claude Code's answer, every rewrite confirmed.
fn claude(agent_event: &str, data: &Value, outcome: &EmitResult) -> AgentAnswer {
    answer_of(
        &ClaudeCode,
        agent_event,
        data,
        outcome,
        &Rewrites::confirmed(),
    )
}

fn stdout_json(answer: &AgentAnswer) -> Value {
    assert_eq!(answer.exit_code, 0, "{answer:?}");
    serde_json::from_str(&answer.stdout).unwrap()
}

// Events in.

#[test]
fn every_claude_code_event_maps_to_its_canonical_event_and_back() {
    let expected = [
        ("SessionStart", "session:start"),
        ("SessionEnd", "session:end"),
        ("UserPromptSubmit", "prompt:submit"),
        ("PreToolUse", "tool:pre"),
        ("PermissionRequest", "approval:required"),
        ("PostToolUse", "tool:post"),
        ("PostToolUseFailure", "tool:error"),
        ("Notification", "user:notification"),
        ("Stop", "prompt:complete"),
        ("PreCompact", "context:pre_compact"),
        ("PostCompact", "context:post_compact"),
        ("SubagentStart", "claude:subagent_start"),
        ("SubagentStop", "claude:subagent_stop"),
        // Newer than this table: kept, as a custom event.
        ("TaskCreated", "claude:task_created"),
    ];
    for (claude_event, canonical) in expected {
        let input = json!({"session_id": "s1", "hook_event_name": claude_event, "cwd": "/p"});
        let mapped = CLAUDE.event_in(&input.to_string()).unwrap();
        assert_eq!(mapped.event, canonical, "{claude_event}");
        assert_eq!(mapped.agent_event, claude_event);
        assert_eq!(mapped.data["session_id"], "s1");
        if !canonical.starts_with("claude:") {
            // A script of theirs, run here for the canonical event, reads their event name.
            let script_input = CLAUDE.script_input(canonical, &mapped.data);
            assert_eq!(script_input["hook_event_name"], claude_event);
        }
    }
}

#[test]
fn every_gemini_cli_event_maps_to_its_canonical_event() {
    for (gemini_event, canonical) in [
        ("BeforeTool", "tool:pre"),
        ("AfterTool", "tool:post"),
        ("BeforeAgent", "prompt:submit"),
        ("AfterAgent", "prompt:complete"),
        ("BeforeModel", "provider:request"),
        ("AfterModel", "provider:response"),
        ("SessionStart", "session:start"),
        ("SessionEnd", "session:end"),
        ("PreCompress", "context:pre_compact"),
        ("Notification", "user:notification"),
        ("BeforeToolSelection", "gemini:before_tool_selection"),
    ] {
        let input = json!({"hook_event_name": gemini_event});
        assert_eq!(
            GEMINI.event_in(&input.to_string()).unwrap().event,
            canonical
        );
    }
}

#[test]
fn fields_the_taxonomy_names_otherwise_are_there_under_both_names() {
    let input = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}});
    let mapped = CLAUDE.event_in(&input.to_string()).unwrap();
    assert_eq!(mapped.data["tool_result"], json!({"stdout": "a"}));
    assert_eq!(mapped.data["tool_response"], json!({"stdout": "a"}));
    // And the other way, for their scripts run here.
    let ours = json!({"tool_name": "Bash", "tool_result": "out"});
    assert_eq!(
        CLAUDE.script_input(events::TOOL_POST, &ours)["tool_response"],
        "out"
    );
    // The call's id, which the tracing spans record, under the taxonomy's name.
    let pre = json!({"hook_event_name": "PreToolUse", "tool_use_id": "toolu_1"});
    for protocol in [&CLAUDE, &CODEX] {
        let mapped = protocol.event_in(&pre.to_string()).unwrap();
        assert_eq!(mapped.data[events::fields::TOOL_CALL_ID], "toolu_1");
    }
    let cursor = json!({"hook_event_name": "stop", "conversation_id": "c1"});
    let mapped = hooks_config::interop::cursor::Cursor
        .event_in(&cursor.to_string())
        .unwrap();
    assert_eq!(mapped.data[events::fields::SESSION_ID], "c1");
    let model = json!({"hook_event_name": "BeforeModel", "llm_request": {"model": "m"}});
    assert_eq!(
        GEMINI.event_in(&model.to_string()).unwrap().data["request"]["model"],
        "m"
    );
}

#[test]
fn unreadable_input_is_an_error_not_a_guess() {
    for input in [
        "",
        "garbage",
        "[1, 2]",
        "{\"tool_name\": \"Bash\"}",
        "{\"hook_event_name\": \"no such!\"}",
    ] {
        assert!(CLAUDE.event_in(input).is_err(), "{input}");
    }
}

// Answers out: Claude Code.

#[tokio::test]
async fn claude_continue_answers_nothing_rather_than_allow() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let answer = claude(
        "PreToolUse",
        &data,
        &outcome("tool:pre", &data, vec![HookResult::cont()]).await,
    );
    assert_eq!(answer, AgentAnswer::silent());
    assert!(answer.stdout.is_empty());
}

#[tokio::test]
async fn claude_deny_is_exit_2_with_the_reason_on_stderr() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
    let result = outcome("tool:pre", &data, vec![HookResult::deny("no rm -rf")]).await;
    let answer = claude("PreToolUse", &data, &result);
    assert_eq!((answer.exit_code, answer.stderr.as_str()), (2, "no rm -rf"));
    // The same on any event: a prompt is erased, a stop is refused.
    assert_eq!(claude("UserPromptSubmit", &data, &result).exit_code, 2);
}

#[tokio::test]
async fn claude_ask_is_a_permission_decision_on_pre_tool_use_and_fails_closed_elsewhere() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "git push"}});
    let result = outcome("tool:pre", &data, vec![HookResult::ask("Push to origin?")]).await;
    let json = stdout_json(&claude("PreToolUse", &data, &result));
    assert_eq!(json["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "ask");
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "Push to origin?"
    );
    // On a permission request, Claude Code's own dialog asks.
    assert!(
        claude("PermissionRequest", &data, &result)
            .stdout
            .is_empty()
    );
    let stop = claude("Stop", &data, &result);
    assert_eq!(stop.exit_code, 2);
    assert!(stop.stderr.contains("Push to origin?"), "{stop:?}");
}

#[tokio::test]
async fn claude_a_rewritten_tool_input_is_updated_input_for_the_user_to_confirm() {
    let data = json!({"tool_name": "Write", "tool_input": {"file_path": "/etc/x", "content": "a"}});
    let mut rewritten = data.clone();
    rewritten["tool_input"]["file_path"] = json!("sandbox/x");
    let result = outcome("tool:pre", &data, vec![HookResult::modify(rewritten)]).await;
    let json = stdout_json(&claude("PreToolUse", &data, &result));
    let specific = &json["hookSpecificOutput"];
    assert_eq!(
        specific["updatedInput"],
        json!({"file_path": "sandbox/x", "content": "a"})
    );
    assert_eq!(specific["permissionDecision"], "ask");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("`h0`")
    );
}

#[tokio::test]
async fn claude_a_modification_it_cannot_apply_blocks_rather_than_vanishes() {
    let data = json!({"prompt": "my key is sk-live-123"});
    let result = outcome(
        "prompt:submit",
        &data,
        vec![HookResult::modify(
            json!({"prompt": "my key is [redacted]"}),
        )],
    )
    .await;
    let answer = claude("UserPromptSubmit", &data, &result);
    assert_eq!(answer.exit_code, 2);
    assert!(answer.stderr.contains("cannot apply"), "{answer:?}");
}

#[tokio::test]
async fn claude_context_goes_where_it_reaches_the_model_and_otherwise_to_the_user() {
    let data = json!({"tool_name": "Bash", "tool_input": {}, "tool_response": "ok"});
    let result = outcome(
        "tool:post",
        &data,
        vec![
            HookResult::inject("lint: 2 warnings"),
            HookResult::cont().with_user_message("linted", MessageLevel::Info),
        ],
    )
    .await;
    let json = stdout_json(&claude("PostToolUse", &data, &result));
    assert_eq!(
        json["hookSpecificOutput"]["additionalContext"],
        "lint: 2 warnings"
    );
    assert_eq!(json["systemMessage"], "linted");
    let stop = stdout_json(&claude("Stop", &data, &result));
    assert!(stop.get("hookSpecificOutput").is_none());
    assert!(
        stop["systemMessage"]
            .as_str()
            .unwrap()
            .contains("lint: 2 warnings"),
        "{stop}"
    );
}

#[tokio::test]
async fn claude_a_failed_hook_is_reported_to_the_user() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { Err::<HookResult, _>("broken policy") },
            0,
            "flaky",
        )
        .unwrap();
    let data = json!({"tool_name": "Bash", "tool_input": {}});
    let result = registry.emit("tool:pre", data.clone()).await;
    let json = stdout_json(&claude("PreToolUse", &data, &result));
    assert!(
        json["systemMessage"].as_str().unwrap().contains("`flaky`"),
        "{json}"
    );
}

#[tokio::test]
async fn claude_setup_and_subagent_start_take_context_as_context() {
    let data = json!({"agent_type": "reviewer"});
    for (agent_event, event) in [
        ("Setup", "claude:setup"),
        ("SubagentStart", "claude:subagent_start"),
    ] {
        let result = outcome(event, &data, vec![HookResult::inject("house rules")]).await;
        let json = stdout_json(&claude(agent_event, &data, &result));
        assert_eq!(
            json["hookSpecificOutput"]["additionalContext"], "house rules",
            "{agent_event}: {json}"
        );
        assert!(json.get("systemMessage").is_none(), "{agent_event}: {json}");
    }
}

#[tokio::test]
async fn claude_a_block_keeps_the_message_for_the_user() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf src"}});
    let explained = HookResult::deny("rm -rf is not allowed")
        .with_user_message("see CONTRIBUTING.md, section Safety", MessageLevel::Warning);
    let result = outcome("tool:pre", &data, vec![explained.clone()]).await;
    let json = stdout_json(&claude("PreToolUse", &data, &result));
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "rm -rf is not allowed"
    );
    assert_eq!(json["systemMessage"], "see CONTRIBUTING.md, section Safety");

    for agent_event in ["UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"] {
        let json = stdout_json(&claude(agent_event, &data, &result));
        assert_eq!(json["decision"], "block", "{agent_event}");
        assert_eq!(json["reason"], "rm -rf is not allowed", "{agent_event}");
        assert_eq!(json["systemMessage"], "see CONTRIBUTING.md, section Safety");
    }
    let request = stdout_json(&claude("PermissionRequest", &data, &result));
    assert_eq!(
        request["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "rm -rf is not allowed"})
    );
    // Where only exit 2 blocks, the message goes to stderr beside the reason.
    let start = claude("SessionStart", &data, &result);
    assert_eq!(start.exit_code, 2);
    assert!(start.stderr.contains("CONTRIBUTING.md"), "{start:?}");
}

#[tokio::test]
async fn claude_a_rewrite_says_what_would_run_and_applies_only_when_the_entry_says_so() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}});
    let mut rewritten = data.clone();
    rewritten["tool_input"]["command"] = json!("npm test -- --ci");
    let result = outcome("tool:pre", &data, vec![HookResult::modify(rewritten)]).await;

    let asked = stdout_json(&claude("PreToolUse", &data, &result));
    let reason = asked["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(asked["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(reason.contains("`npm test -- --ci`"), "{reason}");
    assert!(reason.contains("claude -p"), "{reason}");

    let config = hooks_config::load_str(
        "hooks:\n  PreToolUse:\n    - type: command\n      name: h0\n      command: 'true'\n      rewrite: apply\n",
        std::path::Path::new("hooks.yaml"),
        std::path::Path::new("."),
    )
    .unwrap();
    let rewrites = Rewrites::of(&config);
    let applied = stdout_json(&answer_of(
        &ClaudeCode,
        "PreToolUse",
        &data,
        &result,
        &rewrites,
    ));
    assert_eq!(applied["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(
        applied["hookSpecificOutput"]["updatedInput"]["command"],
        "npm test -- --ci"
    );
    // Another hook's rewrite, not marked: asked again.
    let other = outcome(
        "tool:pre",
        &data,
        vec![
            HookResult::cont(),
            HookResult::modify(json!({"tool_input": {"command": "x"}})),
        ],
    )
    .await;
    let json = stdout_json(&answer_of(
        &ClaudeCode,
        "PreToolUse",
        &data,
        &other,
        &rewrites,
    ));
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "ask");
}

#[test]
fn rewrite_takes_confirm_or_apply() {
    let error = hooks_config::load_str(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: 'true'\n      rewrite: always\n",
        std::path::Path::new("hooks.yaml"),
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("hooks.yaml:5:"), "{error}");
    assert!(error.contains("confirm or apply"), "{error}");
}

// Answers out: Gemini CLI.

#[tokio::test]
async fn gemini_answers_in_its_protocol() {
    let data =
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls", "dir": "."}});
    // A deny is the documented JSON at exit 0: an exit code 2 shows as a failed hook.
    let deny = outcome("tool:pre", &data, vec![HookResult::deny("no")]).await;
    let denied = answer_of(
        &GeminiCli,
        "BeforeTool",
        &data,
        &deny,
        &Rewrites::confirmed(),
    );
    assert_eq!(denied.exit_code, 0);
    assert_eq!(
        stdout_json(&denied),
        json!({"decision": "deny", "reason": "no"})
    );

    let ask = outcome("tool:pre", &data, vec![HookResult::ask("sure?")]).await;
    let asked = stdout_json(&answer_of(
        &GeminiCli,
        "BeforeTool",
        &data,
        &ask,
        &Rewrites::confirmed(),
    ));
    assert_eq!(
        asked["decision"], "deny",
        "Gemini CLI cannot ask: fail closed"
    );
    assert!(
        asked["reason"].as_str().unwrap().contains("sure?"),
        "{asked}"
    );

    // A rewrite runs unconfirmed under Gemini CLI: applied only when the entries opted in,
    // whole (Gemini CLI 0.61 replaces the arguments with it, so an argument can be removed).
    let mut changed = data.clone();
    changed["tool_input"] = json!({"command": "ls -la"});
    let modified = outcome("tool:pre", &data, vec![HookResult::modify(changed)]).await;
    let config = hooks_config::load_str(
        "hooks:\n  PreToolUse:\n    - type: command\n      name: h0\n      command: 'true'\n      rewrite: apply\n",
        std::path::Path::new("h.yaml"),
        std::path::Path::new("."),
    )
    .unwrap();
    let json = stdout_json(&answer_of(
        &GeminiCli,
        "BeforeTool",
        &data,
        &modified,
        &Rewrites::of(&config),
    ));
    assert_eq!(
        json["hookSpecificOutput"]["tool_input"],
        json!({"command": "ls -la"})
    );
    let json = stdout_json(&answer_of(
        &GeminiCli,
        "BeforeTool",
        &data,
        &modified,
        &Rewrites::confirmed(),
    ));
    assert_eq!(json["decision"], "deny");
    let reason = json["reason"].as_str().unwrap();
    assert!(
        reason.contains("`ls -la`"),
        "says what would have run: {reason}"
    );
    assert!(reason.contains("rewrite: apply"), "{reason}");

    let context = outcome("tool:post", &data, vec![HookResult::inject("note")]).await;
    let json = stdout_json(&answer_of(
        &GeminiCli,
        "AfterTool",
        &data,
        &context,
        &Rewrites::confirmed(),
    ));
    assert_eq!(json["hookSpecificOutput"]["additionalContext"], "note");

    // Where Gemini CLI ignores the decision, the user still reads the reason.
    let start = outcome(
        "session:start",
        &json!({}),
        vec![HookResult::deny("not here")],
    )
    .await;
    let json = stdout_json(&answer_of(
        &GeminiCli,
        "SessionStart",
        &json!({}),
        &start,
        &Rewrites::confirmed(),
    ));
    assert_eq!(json["decision"], "deny");
    assert_eq!(json["systemMessage"], "not here");
}

// Codex CLI.

#[test]
fn every_codex_cli_event_maps_to_its_canonical_event() {
    for (codex_event, canonical) in [
        ("PreToolUse", "tool:pre"),
        ("PermissionRequest", "approval:required"),
        ("PostToolUse", "tool:post"),
        ("PreCompact", "context:pre_compact"),
        ("PostCompact", "context:post_compact"),
        ("SessionStart", "session:start"),
        ("SessionEnd", "session:end"),
        ("UserPromptSubmit", "prompt:submit"),
        ("Stop", "prompt:complete"),
        ("SubagentStart", "codex:subagent_start"),
        ("SubagentStop", "codex:subagent_stop"),
    ] {
        let input = json!({"hook_event_name": codex_event, "turn_id": "t1", "model": "gpt-5"});
        let mapped = CODEX.event_in(&input.to_string()).unwrap();
        assert_eq!(mapped.event, canonical, "{codex_event}");
        assert_eq!(mapped.data["turn_id"], "t1", "Codex's own fields are kept");
    }
    let post = json!({"hook_event_name": "PostToolUse", "tool_response": "ok"});
    let mapped = CODEX.event_in(&post.to_string()).unwrap();
    assert_eq!(mapped.data["tool_result"], "ok");
}

const CODEX_HOOKS_JSON: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 10, "statusMessage": "checking"}]}
    ],
    "SubagentStop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}]
  }
}"#;

const CODEX_CONFIG_TOML: &str = r#"model = "gpt-5"

[features]
hooks = true

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./guard.sh"
timeout = 10

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "./check-tests.sh"
"#;

#[test]
fn codex_hooks_json_and_config_toml_import_as_the_same_entries() {
    let file = std::path::Path::new(".codex/hooks.json");
    let imported = hooks_config::settings::import_hooks(&CODEX, CODEX_HOOKS_JSON, file).unwrap();
    let events: Vec<&str> = imported.entries.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(events, ["tool:pre", "codex:subagent_stop"]);
    let yaml = imported.to_yaml();
    assert!(yaml.contains("by `hooks import codex`"), "{yaml}");
    assert!(yaml.contains("# PreToolUse"), "{yaml}");
    assert!(
        imported
            .notes
            .iter()
            .any(|note| note.contains("`statusMessage`")),
        "{:?}",
        imported.notes
    );
    // What it writes loads back.
    hooks_config::load_str(
        &yaml,
        std::path::Path::new("imported.yaml"),
        std::path::Path::new("."),
    )
    .unwrap();

    let toml =
        codex::import_config_toml(CODEX_CONFIG_TOML, std::path::Path::new("config.toml")).unwrap();
    let events: Vec<&str> = toml.entries.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(events, ["tool:pre", "prompt:complete"]);
    assert_eq!(
        toml.entries[0].matcher.as_ref().unwrap().to_string(),
        "Bash"
    );

    let broken =
        codex::import_config_toml("[[hooks.Stop]\n", std::path::Path::new("c.toml")).unwrap_err();
    assert!(broken.to_string().contains("not valid TOML"), "{broken}");
    let none =
        codex::import_config_toml("model = \"x\"\n", std::path::Path::new("c.toml")).unwrap_err();
    assert!(none.to_string().contains("no `hooks` section"), "{none}");
}

// Claude Code settings.

const SETTINGS: &str = r#"{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 10}]},
      {"matcher": "Edit|Write", "hooks": [
        {"type": "command", "command": "python3 protect.py"},
        {"type": "http", "url": "http://127.0.0.1:1/policy", "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeout": 2.5}
      ]}
    ],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo context", "async": false, "statusMessage": "thinking"}]}],
    "SubagentStop": [{"hooks": [{"type": "command", "command": "true"}]}],
    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done? $ARGUMENTS"}]}]
  }
}"#;

#[test]
fn a_settings_file_converts_to_entries_with_every_hook_mapped() {
    let path = std::path::Path::new("settings.json");
    let imported = import_settings(SETTINGS, path).unwrap();
    let summary: Vec<(String, String)> = imported
        .entries
        .iter()
        .map(|entry| (entry.event.clone(), entry.name.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            ("tool:pre".into(), "PreToolUse[0].hooks[0]".into()),
            ("tool:pre".into(), "PreToolUse[1].hooks[0]".into()),
            ("tool:pre".into(), "PreToolUse[1].hooks[1]".into()),
            (
                "claude:subagent_stop".into(),
                "SubagentStop[0].hooks[0]".into()
            ),
            (
                "prompt:submit".into(),
                "UserPromptSubmit[0].hooks[0]".into()
            ),
        ],
        "{imported:?}"
    );
    let config = &imported.entries;
    // Entries keep their place in the settings file.
    assert_eq!(config[0].line, 4);
    assert_eq!(config[0].timeout, std::time::Duration::from_secs(10));
    assert_eq!(config[0].on_failure, hooks_config::OnFailure::Warn);
    match &config[0].hook {
        // Its output is read as Claude Code reads it.
        hooks_config::HookKind::Command(command) => {
            assert_eq!(command.protocol, hooks_config::AnswerProtocol::ClaudeCode);
        }
        other => panic!("{other:?}"),
    }
    // Claude Code's default timeout, not ours.
    assert_eq!(config[1].timeout, std::time::Duration::from_secs(600));
    assert_eq!(config[2].timeout, std::time::Duration::from_millis(2500));
    match &config[2].hook {
        hooks_config::HookKind::Http(http) => {
            assert_eq!(
                http.headers,
                [("Authorization".to_owned(), "Bearer ${TOKEN}".to_owned())]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        config[1]
            .matcher
            .as_ref()
            .unwrap()
            .matches("tool:pre", &json!({"tool_name": "Write"}))
    );
    assert!(
        !config[1]
            .matcher
            .as_ref()
            .unwrap()
            .matches("tool:pre", &json!({"tool_name": "Bash"}))
    );
    // Said plainly: what became a custom event, what was ignored, what was left out.
    assert_eq!(imported.notes.len(), 2, "{:?}", imported.notes);
    assert!(imported.notes[0].contains("`claude:subagent_stop`"));
    assert!(imported.notes[1].contains("`statusMessage`"));
    assert_eq!(imported.left_out.len(), 1);
    assert_eq!(imported.left_out[0].line, 13);
    assert!(
        imported.left_out[0]
            .message
            .contains("Stop[0].hooks[0]: `type: prompt`")
    );
}

#[test]
fn the_yaml_of_an_import_loads_back_to_the_same_entries() {
    let path = std::path::Path::new("settings.json");
    let imported = import_settings(SETTINGS, path).unwrap();
    let yaml = imported.to_yaml();
    assert!(yaml.contains("# - left out: Stop[0].hooks[0]"), "{yaml}");
    assert!(yaml.contains("`statusMessage`"), "{yaml}");
    let config = hooks_config::load_str(&yaml, path, std::path::Path::new(".")).unwrap();
    // Everything but the line, which is the YAML's now.
    let shape = |entry: &hooks_config::Entry| {
        format!(
            "{} {} {} {:?} {:?} {:?} {:?}",
            entry.event,
            entry.name,
            entry.priority,
            entry.matcher,
            entry.timeout,
            entry.on_failure,
            entry.hook
        )
    };
    let loaded: Vec<String> = config.entries.iter().map(shape).collect();
    let imported: Vec<String> = imported.entries.iter().map(shape).collect();
    assert_eq!(loaded, imported, "{yaml}");
}

#[test]
fn loading_a_settings_file_directly_refuses_hooks_it_cannot_run() {
    let dir = hooks_testing::scratch_dir("interop", "direct");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let path = dir.join(".claude/settings.json");
    std::fs::write(&path, SETTINGS).unwrap();
    let errors = hooks_config::load_file(&path).unwrap_err();
    assert_eq!(errors.0.len(), 1, "{errors}");
    assert!(errors.to_string().contains("settings.json:13:"), "{errors}");

    let runnable = SETTINGS.replace(
        r#""type": "prompt", "prompt": "Done? $ARGUMENTS""#,
        r#""type": "command", "command": "true""#,
    );
    std::fs::write(&path, runnable).unwrap();
    let config = hooks_config::load_file(&path).unwrap();
    assert_eq!(config.entries.len(), 6);
    // Commands run in the project directory, above `.claude/`, as in Claude Code.
    assert_eq!(config.project_dir, dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_settings_are_errors_with_their_place() {
    let path = std::path::Path::new("settings.json");
    let cases = [
        (
            "{\"hooks\": {\n  \"PreToolUse\": [}\n}",
            "settings.json:2:",
            "not valid JSON",
        ),
        ("[]", "settings.json:1:1", "a JSON object"),
        (
            "{\"model\": \"x\"}",
            "settings.json:1:1",
            "no `hooks` section",
        ),
        (
            "{\n\"hooks\": {\n \"PreToolUse\": [{\"matcher\": \"(\", \"hooks\": []}]}}",
            "settings.json:3:2",
            "not a valid regex",
        ),
        (
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"timeout\": 10}]}]}}",
            "settings.json:1:",
            "no `command`",
        ),
        (
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"command\": \"x\", \"timeout\": -1}]}]}}",
            "settings.json:1:",
            "`timeout` must be",
        ),
        (
            "{\"hooks\": {\"PreToolUse\": {\"matcher\": \"x\"}}}",
            "settings.json:1:",
            "a list",
        ),
    ];
    for (text, place, message) in cases {
        let errors = import_settings(text, path).unwrap_err().to_string();
        assert!(
            errors.contains(place) && errors.contains(message),
            "{text}\n=> {errors}"
        );
    }
}

// Every agent.

/// A hooks file whose entry `h0` (the first hook of [`outcome`]) applies its rewrites.
fn applied_by_h0() -> Rewrites {
    let config = hooks_config::load_str(
        "hooks:\n  PreToolUse:\n    - type: command\n      name: h0\n      command: 'true'\n      rewrite: apply\n",
        std::path::Path::new("hooks.yaml"),
        std::path::Path::new("."),
    )
    .unwrap();
    Rewrites::of(&config)
}

/// A tool call's data, as every agent's tool event carries it once mapped.
fn tool_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "prompt": "hi"})
}

/// One merged result of each kind on `event`.
async fn every_kind_of_outcome(event: &str, data: &Value) -> Vec<(&'static str, EmitResult)> {
    let mut rewritten = data.clone();
    rewritten["tool_input"] = json!({"command": "ls -la"});
    let kinds = [
        ("continue", vec![HookResult::cont()]),
        ("deny", vec![HookResult::deny("no")]),
        (
            "deny with a message",
            vec![HookResult::deny("no").with_user_message("see the docs", MessageLevel::Info)],
        ),
        ("ask", vec![HookResult::ask("sure?")]),
        ("rewrite", vec![HookResult::modify(rewritten.clone())]),
        (
            "rewrite and context",
            vec![
                HookResult::modify(rewritten),
                HookResult::inject("the tree is large"),
            ],
        ),
        ("context", vec![HookResult::inject("note")]),
        (
            "message",
            vec![
                HookResult::cont()
                    .with_user_message("fyi", MessageLevel::Info)
                    .with_suppress_output(true),
            ],
        ),
    ];
    let mut outcomes = Vec::new();
    for (kind, answers) in kinds {
        outcomes.push((kind, outcome(event, data, answers).await));
    }
    outcomes
}

#[test]
fn the_agents_are_listed_once_by_name() {
    let names: Vec<&str> = AGENTS.iter().map(|agent| agent.name()).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "an agent listed twice: {names:?}"
    );
    for name in &names {
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase()),
            "{name}: a subcommand's name is lowercase"
        );
    }
    for agent in AGENTS {
        assert_eq!(
            hooks_config::interop::agent(agent.name()).unwrap().name(),
            agent.name()
        );
        assert_eq!(agent.profile().protocol.agent, agent.name());
    }
    assert!(hooks_config::interop::agent("Claude").is_none());
}

#[tokio::test]
async fn every_agent_answers_every_event_in_a_form_it_takes() {
    for agent in AGENTS {
        let protocol = agent.profile().protocol;
        for (agent_event, _) in protocol.events {
            let event = protocol.canonical_event(agent_event).unwrap();
            let data = tool_call();
            for (kind, outcome) in every_kind_of_outcome(&event, &data).await {
                for rewrites in [Rewrites::confirmed(), applied_by_h0()] {
                    let answer = agent.answer(agent_event, &data, &outcome, &rewrites);
                    if let Err(problem) = agent.accepts(agent_event, &answer) {
                        panic!(
                            "{} would reject our answer to {agent_event} ({kind}): {problem}\n\
                             {answer:?}",
                            agent.profile().display_name
                        );
                    }
                }
            }
            for on in [Some(*agent_event), None] {
                let answer = agent.fail_closed(on, "the policy is broken".to_owned());
                if let Err(problem) = agent.accepts(agent_event, &answer) {
                    panic!(
                        "{} would reject the fail-closed answer to {agent_event}: {problem}",
                        agent.profile().display_name
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn no_agent_reads_a_deny_a_question_or_an_unconfirmed_rewrite_as_go_ahead() {
    for agent in AGENTS {
        let protocol = agent.profile().protocol;
        let tool_events = protocol
            .events
            .iter()
            .filter(|(_, canonical)| *canonical == Some(events::TOOL_PRE))
            .map(|(agent_event, _)| *agent_event);
        for agent_event in tool_events {
            let data = tool_call();
            let name = agent.profile().display_name;
            let read = |outcome: &EmitResult, rewrites: &Rewrites| {
                let answer = agent.answer(agent_event, &data, outcome, rewrites);
                agent.accepts(agent_event, &answer).unwrap()
            };
            let outcomes = every_kind_of_outcome(events::TOOL_PRE, &data).await;
            let of = |kind: &str| &outcomes.iter().find(|(k, _)| *k == kind).unwrap().1;

            for kind in ["deny", "deny with a message"] {
                assert_eq!(
                    read(of(kind), &Rewrites::confirmed()),
                    Verdict::Block("no".to_owned()),
                    "{name} {agent_event} {kind}"
                );
            }
            match read(of("ask"), &Rewrites::confirmed()) {
                Verdict::Ask(question) | Verdict::Block(question) => {
                    assert!(question.contains("sure?"), "{name}: {question}");
                }
                other => panic!("{name} {agent_event}: a question read as {other:?}"),
            }
            for kind in ["rewrite", "rewrite and context"] {
                // Confirmed: shown to the user, or a deny that says what would have run.
                match read(of(kind), &Rewrites::confirmed()) {
                    Verdict::Ask(reason) | Verdict::Block(reason) => {
                        assert!(reason.contains("ls -la"), "{name} {kind}: {reason}");
                    }
                    other => {
                        panic!("{name} {agent_event}: an unconfirmed rewrite read as {other:?}")
                    }
                }
                // Applied: runs as rewritten, or a deny where the agent cannot take it; the
                // original never runs.
                match read(of(kind), &applied_by_h0()) {
                    Verdict::RunRewritten(input) => assert_eq!(input, json!({"command": "ls -la"})),
                    Verdict::Block(reason) => assert!(reason.contains("ls -la"), "{reason}"),
                    other => panic!("{name} {agent_event}: an applied rewrite read as {other:?}"),
                }
            }
            for on in [Some(agent_event), None] {
                let answer = agent.fail_closed(on, "the policy is broken".to_owned());
                assert!(
                    matches!(agent.accepts(agent_event, &answer), Ok(Verdict::Block(_))),
                    "{name} {agent_event} fails closed: {answer:?}"
                );
            }
        }
    }
}

#[test]
fn every_validator_refuses_an_answer_its_agent_would_not_take() {
    let crashed = AgentAnswer {
        stdout: String::new(),
        stderr: "crashed".to_owned(),
        exit_code: 1,
    };
    let garbage = AgentAnswer {
        stdout: "not json {{{".to_owned(),
        ..AgentAnswer::silent()
    };
    let unknown = AgentAnswer::json(&json!({"nonsense": true}));
    let silent_block = AgentAnswer::block("");
    for agent in AGENTS {
        let pre = agent
            .profile()
            .protocol
            .agent_event(events::TOOL_PRE)
            .unwrap();
        for wrong in [&crashed, &garbage, &unknown, &silent_block] {
            assert!(
                agent.accepts(pre, wrong).is_err(),
                "{} takes {wrong:?}",
                agent.profile().display_name
            );
        }
    }
    // What each agent would take, but a guard must not say: an allow that skips the user's
    // own prompt, a question the agent cannot ask.
    let allow = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "allow"}});
    assert!(
        ClaudeCode
            .accepts("PreToolUse", &AgentAnswer::json(&allow))
            .is_err()
    );
    let ask = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                     "permissionDecision": "ask", "permissionDecisionReason": "sure?"}});
    assert!(
        ClaudeCode
            .accepts("PreToolUse", &AgentAnswer::json(&ask))
            .is_ok()
    );
    assert!(
        codex::CodexCli
            .accepts("PreToolUse", &AgentAnswer::json(&ask))
            .is_err()
    );
    let gemini_ask = json!({"decision": "ask", "reason": "sure?"});
    assert!(
        GeminiCli
            .accepts("BeforeTool", &AgentAnswer::json(&gemini_ask))
            .is_err()
    );
    let cursor = hooks_config::interop::cursor::Cursor;
    let cursor_allow = json!({"permission": "allow"});
    assert!(
        cursor
            .accepts("beforeShellExecution", &AgentAnswer::json(&cursor_allow))
            .is_err()
    );
    // An answer on an event that takes none.
    let cursor_deny = json!({"permission": "deny", "user_message": "no"});
    assert!(
        cursor
            .accepts("afterFileEdit", &AgentAnswer::json(&cursor_deny))
            .is_err()
    );
}

#[test]
fn the_settings_init_writes_are_the_settings_a_check_reads() {
    for agent in AGENTS {
        let settings = agent.profile().settings;
        let command = agent.command("hooks.yaml");
        assert!(command.starts_with(&format!("hooks {} --config ", agent.name())));
        let ours = json!({"type": "command", "command": command});
        if let hooks_config::interop::Layout::Executables(template) = settings.layout {
            // A directory with a script per event, and one of the user's own.
            let dir = hooks_testing::scratch_dir("interop-settings", agent.name());
            let command = hooks_config::interop::plugin::PluginCommand {
                binary: "/opt/bin/hooks".to_owned(),
                agent: agent.name().to_owned(),
                config: "hooks.yaml".to_owned(),
                root: "../..".to_owned(),
                timeout_ms: 25_000,
            };
            for event in settings.init_events {
                let script = hooks_config::interop::executables::render(template, event, &command);
                std::fs::write(dir.join(event), script).unwrap();
            }
            std::fs::write(dir.join("TaskStart"), "#!/bin/sh\necho '{}'\n").unwrap();
            let running = settings.events_running_at(agent.name(), &dir);
            assert_eq!(
                running,
                settings.init_events,
                "{}",
                agent.profile().display_name
            );
            let elsewhere = settings.events_running_at(agent.name(), &dir.join("missing"));
            assert!(elsewhere.is_empty());
            continue;
        }
        if settings.layout == hooks_config::interop::Layout::Triggers {
            // A list of hooks, each naming its event.
            let hooks: Vec<Value> = settings
                .init_events
                .iter()
                .map(|event| json!({"name": event, "trigger": event, "action": ours}))
                .chain([json!({"trigger": "Other", "action": {"command": "./mine.sh"}})])
                .collect();
            let text = json!({"version": "v1", "hooks": hooks}).to_string();
            let running = settings.events_running(agent.name(), &text);
            assert_eq!(
                running,
                settings.init_events,
                "{}",
                agent.profile().display_name
            );
            continue;
        }
        let hooks: serde_json::Map<String, Value> = settings
            .init_events
            .iter()
            .map(|event| {
                let listed = match settings.layout {
                    hooks_config::interop::Layout::MatcherGroups
                    | hooks_config::interop::Layout::NamedMatcherGroups(_) => {
                        json!([{"hooks": [ours]}])
                    }
                    hooks_config::interop::Layout::Commands
                    | hooks_config::interop::Layout::BareCommands => json!([ours]),
                    hooks_config::interop::Layout::Triggers => unreachable!("read above"),
                    // A plugin is read by the command it names, below.
                    hooks_config::interop::Layout::Plugin(_) => json!([]),
                    hooks_config::interop::Layout::Executables(_) => unreachable!("read above"),
                    hooks_config::interop::Layout::CommandFields(fields) => {
                        let entry: serde_json::Map<String, Value> = fields
                            .iter()
                            .map(|field| ((*field).to_owned(), Value::from(command.clone())))
                            .collect();
                        json!([entry])
                    }
                };
                ((*event).to_owned(), listed)
            })
            .chain([(
                "Other".to_owned(),
                json!([{"hooks": [{"command": "./mine.sh"}]}, {"command": "./mine.sh"}]),
            )])
            .collect();
        let text = match settings.layout {
            hooks_config::interop::Layout::Plugin(template) => {
                hooks_config::interop::plugin::PluginCommand {
                    binary: "/opt/bin/hooks".to_owned(),
                    agent: agent.name().to_owned(),
                    config: "hooks.yaml".to_owned(),
                    root: "../..".to_owned(),
                    timeout_ms: 90_000,
                }
                .render(template)
            }
            _ => {
                let mut text = serde_json::Map::new();
                text.insert(
                    settings.layout.events_key().to_owned(),
                    Value::Object(hooks),
                );
                Value::Object(text).to_string()
            }
        };
        let mut running = settings.events_running(agent.name(), &text);
        running.sort_unstable();
        let mut expected: Vec<&str> = settings.init_events.to_vec();
        expected.sort_unstable();
        assert_eq!(running, expected, "{}", agent.profile().display_name);
        assert!(settings.events_running(agent.name(), "not json").is_empty());
        // Each agent's help says what it can and cannot do.
        let described = agent
            .profile()
            .capabilities
            .describe(agent.profile().display_name);
        assert!(described.contains("Rewrites:"), "{described}");
    }
}

#[tokio::test]
async fn every_agent_blocks_a_prompt_where_it_says_it_can() {
    for agent in AGENTS {
        let Some(prompt_event) = agent.profile().capabilities.blocks_prompt else {
            continue;
        };
        let data = json!({"prompt": "my password is hunter2"});
        let denied = outcome(
            events::PROMPT_SUBMIT,
            &data,
            vec![HookResult::deny("no passwords")],
        )
        .await;
        let answer = agent.answer(prompt_event, &data, &denied, &Rewrites::confirmed());
        assert_eq!(
            agent.accepts(prompt_event, &answer),
            Ok(Verdict::Block("no passwords".to_owned())),
            "{}: {answer:?}",
            agent.profile().display_name
        );
    }
}

#[test]
fn every_event_an_agent_description_names_is_one_of_its_events() {
    for agent in AGENTS {
        let protocol = agent.profile().protocol;
        let capabilities = agent.profile().capabilities;
        let named = capabilities
            .asks_on
            .iter()
            .chain(capabilities.context_on)
            .chain(&capabilities.blocks_prompt)
            .chain(agent.profile().settings.init_events);
        for event in named {
            assert!(
                protocol.events.iter().any(|(theirs, _)| theirs == event),
                "{}: `{event}` is not in its event table",
                agent.profile().display_name
            );
        }
        let prompt = capabilities
            .blocks_prompt
            .map(|event| protocol.canonical_event(event));
        assert!(
            prompt.is_none_or(|event| event.as_deref() == Ok(events::PROMPT_SUBMIT)),
            "{}",
            agent.profile().display_name
        );
    }
}
