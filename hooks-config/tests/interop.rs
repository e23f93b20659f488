//! Interop round trips: each agent event in, the right canonical event emitted, the right
//! protocol out; Claude Code settings imported; and Claude Code-style hook scripts giving the
//! same decisions under our runner as under Claude Code's rules.
#![allow(clippy::unwrap_used, missing_docs)]

use hooks_config::interop::Rewrites;
use hooks_config::interop::claude::{self, CLAUDE, import_settings};
use hooks_config::interop::codex::{self, CODEX};
use hooks_config::interop::gemini::{self, GEMINI};
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

fn stdout_json(answer: &hooks_config::interop::AgentAnswer) -> Value {
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
    let answer = claude::answer(
        "PreToolUse",
        &data,
        &outcome("tool:pre", &data, vec![HookResult::cont()]).await,
    );
    assert_eq!(
        answer,
        hooks_config::interop::AgentAnswer::json(Default::default())
    );
    assert!(answer.stdout.is_empty());
}

#[tokio::test]
async fn claude_deny_is_exit_2_with_the_reason_on_stderr() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
    let result = outcome("tool:pre", &data, vec![HookResult::deny("no rm -rf")]).await;
    let answer = claude::answer("PreToolUse", &data, &result);
    assert_eq!((answer.exit_code, answer.stderr.as_str()), (2, "no rm -rf"));
    // The same on any event: a prompt is erased, a stop is refused.
    assert_eq!(
        claude::answer("UserPromptSubmit", &data, &result).exit_code,
        2
    );
}

#[tokio::test]
async fn claude_ask_is_a_permission_decision_on_pre_tool_use_and_fails_closed_elsewhere() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "git push"}});
    let result = outcome("tool:pre", &data, vec![HookResult::ask("Push to origin?")]).await;
    let json = stdout_json(&claude::answer("PreToolUse", &data, &result));
    assert_eq!(json["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "ask");
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "Push to origin?"
    );
    // On a permission request, Claude Code's own dialog asks.
    assert!(
        claude::answer("PermissionRequest", &data, &result)
            .stdout
            .is_empty()
    );
    let stop = claude::answer("Stop", &data, &result);
    assert_eq!(stop.exit_code, 2);
    assert!(stop.stderr.contains("Push to origin?"), "{stop:?}");
}

#[tokio::test]
async fn claude_a_rewritten_tool_input_is_updated_input_for_the_user_to_confirm() {
    let data = json!({"tool_name": "Write", "tool_input": {"file_path": "/etc/x", "content": "a"}});
    let mut rewritten = data.clone();
    rewritten["tool_input"]["file_path"] = json!("sandbox/x");
    let result = outcome("tool:pre", &data, vec![HookResult::modify(rewritten)]).await;
    let json = stdout_json(&claude::answer("PreToolUse", &data, &result));
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
    let answer = claude::answer("UserPromptSubmit", &data, &result);
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
    let json = stdout_json(&claude::answer("PostToolUse", &data, &result));
    assert_eq!(
        json["hookSpecificOutput"]["additionalContext"],
        "lint: 2 warnings"
    );
    assert_eq!(json["systemMessage"], "linted");
    let stop = stdout_json(&claude::answer("Stop", &data, &result));
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
    let json = stdout_json(&claude::answer("PreToolUse", &data, &result));
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
        let json = stdout_json(&claude::answer(agent_event, &data, &result));
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
    let json = stdout_json(&claude::answer("PreToolUse", &data, &result));
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "rm -rf is not allowed"
    );
    assert_eq!(json["systemMessage"], "see CONTRIBUTING.md, section Safety");

    for agent_event in ["UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"] {
        let json = stdout_json(&claude::answer(agent_event, &data, &result));
        assert_eq!(json["decision"], "block", "{agent_event}");
        assert_eq!(json["reason"], "rm -rf is not allowed", "{agent_event}");
        assert_eq!(json["systemMessage"], "see CONTRIBUTING.md, section Safety");
    }
    let request = stdout_json(&claude::answer("PermissionRequest", &data, &result));
    assert_eq!(
        request["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "rm -rf is not allowed"})
    );
    // Where only exit 2 blocks, the message goes to stderr beside the reason.
    let start = claude::answer("SessionStart", &data, &result);
    assert_eq!(start.exit_code, 2);
    assert!(start.stderr.contains("CONTRIBUTING.md"), "{start:?}");
}

#[tokio::test]
async fn claude_a_rewrite_says_what_would_run_and_applies_only_when_the_entry_says_so() {
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}});
    let mut rewritten = data.clone();
    rewritten["tool_input"]["command"] = json!("npm test -- --ci");
    let result = outcome("tool:pre", &data, vec![HookResult::modify(rewritten)]).await;

    let asked = stdout_json(&claude::answer("PreToolUse", &data, &result));
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
    let rewrites = hooks_config::interop::Rewrites::of(&config);
    let applied = stdout_json(&claude::answer_with(
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
    let json = stdout_json(&claude::answer_with("PreToolUse", &data, &other, &rewrites));
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
    let denied = gemini::answer("BeforeTool", &data, &deny, &Rewrites::confirmed());
    assert_eq!(denied.exit_code, 0);
    assert_eq!(
        stdout_json(&denied),
        json!({"decision": "deny", "reason": "no"})
    );

    let ask = outcome("tool:pre", &data, vec![HookResult::ask("sure?")]).await;
    let asked = stdout_json(&gemini::answer(
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
    let json = stdout_json(&gemini::answer(
        "BeforeTool",
        &data,
        &modified,
        &Rewrites::of(&config),
    ));
    assert_eq!(
        json["hookSpecificOutput"]["tool_input"],
        json!({"command": "ls -la"})
    );
    let json = stdout_json(&gemini::answer(
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
    let json = stdout_json(&gemini::answer(
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
    let json = stdout_json(&gemini::answer(
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
