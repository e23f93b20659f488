//! Hooks configured in YAML: every config error with its location, command hooks as real
//! processes (each answer protocol, exit 2, crashes, hangs, floods, invalid UTF-8, async),
//! matcher hooks, and the kernel's merge rules across entries.

#![allow(clippy::unwrap_used)]

mod support;
use support::{alive, mounted};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hooks_config::{ConfigErrors, load_file, load_str};
use hooks_core::{HookAction, HookRegistry, HookResult, MessageLevel};
use serde_json::{Value, json};

fn scratch(test: &str) -> PathBuf {
    support::scratch("config", test)
}

/// A hooks file with one command hook running `script` (written to `hook.sh`).
fn command_hook(dir: &Path, script: &str, extra: &str) -> HookRegistry {
    std::fs::write(dir.join("hook.sh"), script).unwrap();
    mounted(
        dir,
        &format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      name: policy\n      command: \"sh ./hook.sh\"\n{extra}"
        ),
    )
}

fn tool_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "s-1"})
}

// Config errors.

fn errors(yaml: &str) -> Vec<(usize, usize, String)> {
    let ConfigErrors(errors) = load_str(yaml, Path::new("hooks.yaml"), Path::new(".")).unwrap_err();
    errors
        .into_iter()
        .map(|e| (e.line, e.column, e.message))
        .collect()
}

#[test]
fn every_problem_is_reported_at_once_with_its_location() {
    let yaml = r#"hooks:
  PreToolUsee:
    - type: command
      command: "true"
  tool:post:
    - type: command
      comand: "x"
    - type: command
      command: "true"
      timeout_ms: "soon"
    - type: command
      command: "true"
      timeout_ms: 0
      on_failure: explode
    - type: matcher
      match:
        tool: "[unclosed"
        args:
          path: "regex:("
      action: block
    - type: telepathy
    - type: llm
      model: small
    - type: matcher
      match: {tool: Bash}
      action: block
      priority: high
extra: 1
"#;
    let found = errors(yaml);
    let expect = [
        (2, 3, "did you mean `PreToolUse`"),
        (6, 7, "is missing `command`"),
        (7, 7, "unknown key `comand`"),
        (
            10,
            19,
            "`timeout_ms` must be from 1 to 3600000 milliseconds, not `soon`",
        ),
        (13, 19, "`timeout_ms` must be from 1"),
        (
            14,
            19,
            "`on_failure` must be warn, block or ignore, not `explode`",
        ),
        (17, 15, "the glob `[unclosed` does not compile"),
        (19, 17, "the regex `(` does not compile"),
        (21, 13, "unknown hook type `telepathy`"),
        (22, 7, "hook 6 of `tool:post` is missing `prompt`"),
        (
            27,
            17,
            "`priority` in hook 7 of `tool:post` must be an integer, not `high`",
        ),
        (28, 1, "unknown key `extra`"),
    ];
    for (line, column, fragment) in expect {
        assert!(
            found
                .iter()
                .any(|(l, c, m)| *l == line && *c == column && m.contains(fragment)),
            "expected {line}:{column} {fragment:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");
}

#[test]
fn a_wrong_key_hides_no_other_problem_of_its_entry() {
    let yaml = r#"hooks:
  PreToolUse:
    - type: command
      comand: "x"
      matcher: "("
      rewrite: sideways
    - type: matcher
      action: deny
      match:
        tol: Write
    - typ: command
      command: "true"
      priority: high
"#;
    let found = errors(yaml);
    let expect = [
        (3, 7, "hook 1 of `PreToolUse` is missing `command`"),
        (4, 7, "unknown key `comand`"),
        (
            5,
            16,
            "`matcher` in hook 1 of `PreToolUse` is not a valid regex",
        ),
        (6, 16, "`rewrite` must be confirm or apply, not `sideways`"),
        (
            8,
            15,
            "`action` must be block, allow, ask or inject, not `deny`",
        ),
        (10, 9, "unknown key `tol` in `match`"),
        (11, 7, "hook 3 of `PreToolUse` is missing `type`"),
        (
            13,
            17,
            "`priority` in hook 3 of `PreToolUse` must be an integer, not `high`",
        ),
    ];
    for (line, column, fragment) in expect {
        assert!(
            found
                .iter()
                .any(|(l, c, m)| *l == line && *c == column && m.contains(fragment)),
            "expected {line}:{column} {fragment:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");
}

#[test]
fn a_character_yaml_forbids_refuses_the_file_where_it_is() {
    // The YAML reader ends the stream at a NUL, even in a comment: read that way, the file
    // below would be one rule, and the `rm` the second one denies would go through.
    let yaml = "hooks:\n  PreToolUse:\n    - type: matcher  # first\u{0} rule\n      match: {tool: Bash}\n      action: allow\n    - type: matcher\n      match: {tool: Bash, args: {command: \"rm *\"}}\n      action: block\n";
    let found = errors(yaml);
    assert_eq!(found.len(), 1, "{found:#?}");
    let (line, column, message) = &found[0];
    assert_eq!((*line, *column), (3, 29), "{message}");
    assert!(message.contains("U+0000"), "{message}");
    // Without the NUL, both rules load.
    let whole = load_str(
        &yaml.replace('\u{0}', " "),
        Path::new("hooks.yaml"),
        Path::new("."),
    )
    .unwrap();
    assert_eq!(whole.entries.len(), 2);
    assert_eq!(whole.summary(), "2 hooks");

    for forbidden in ['\u{1}', '\u{1b}', '\u{7f}', '\u{9b}', '\u{ffff}'] {
        let found = errors(&format!("hooks:\n  PreToolUse: []\n# a{forbidden}\n"));
        assert_eq!(
            found.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
            [(3, 4)],
            "{forbidden:?}: {found:#?}"
        );
    }
    // Tabs, line breaks and ordinary text beyond ASCII are fine.
    load_str(
        "hooks:\r\n  PreToolUse:\t[]  # café, \u{85}, \u{feff}\n",
        Path::new("hooks.yaml"),
        Path::new("."),
    )
    .unwrap();
}

#[test]
fn an_empty_name_is_refused() {
    for name in ["\"\"", "\"  \"", ""] {
        let found = errors(&format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      name: {name}\n      command: \"true\"\n"
        ));
        assert_eq!(found.len(), 1, "{name}: {found:#?}");
        assert_eq!(found[0].0, 4, "{found:#?}");
        assert!(
            found[0]
                .2
                .contains("`name` in hook 1 of `PreToolUse` must not be empty"),
            "{found:#?}"
        );
    }
}

#[test]
fn a_misspelt_key_or_type_is_given_the_one_meant() {
    let found = errors(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: \"true\"\n      on_failur: block\n    - type: comand\n      command: \"true\"\n",
    );
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!((found[0].0, found[0].1), (5, 7));
    assert!(
        found[0].2.contains("unknown key `on_failur`")
            && found[0].2.contains("did you mean `on_failure`?"),
        "{found:#?}"
    );
    assert_eq!((found[1].0, found[1].1), (6, 13));
    assert!(
        found[1]
            .2
            .contains("unknown hook type `comand` (did you mean `command`?)"),
        "{found:#?}"
    );
}

#[test]
fn every_runner_takes_the_shared_keys_and_a_matcher_takes_none_it_cannot_use() {
    let config = load_str(
        "hooks:\n  PreToolUse:\n    - type: llm\n      model: m\n      prompt: p\n      rewrite: apply\n      on_failure: block\n    - type: matcher\n      matcher: Bash\n      match: {tool: Bash}\n      action: block\n    - type: http\n      url: http://127.0.0.1:1/\n      protocol: claude\n",
        Path::new("hooks.yaml"),
        Path::new("."),
    )
    .unwrap();
    let [llm, matcher, http] = &config.entries[..] else {
        panic!("{:?}", config.entries)
    };
    assert_eq!(llm.rewrite, hooks_config::Rewrite::Apply);
    assert_eq!(llm.on_failure, hooks_config::OnFailure::Block);
    assert_eq!(llm.timeout, hooks_config::DEFAULT_LLM_TIMEOUT);
    assert!(matcher.matcher.is_some());
    match &http.hook {
        hooks_config::HookKind::Http(hook) => {
            assert_eq!(hook.protocol, hooks_config::AnswerProtocol::ClaudeCode)
        }
        other => panic!("{other:?}"),
    }
    let found = errors(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash}\n      action: block\n      on_failure: block\n    - type: command\n      command: \"true\"\n      protocol: json\n    - type: command\n      command: \"true\"\n      persistent: true\n      protocol: claude\n",
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[2].2.contains("a persistent hook answers JSON lines"),
        "{found:#?}"
    );
    assert!(
        found[0].2.contains("unknown key `on_failure`"),
        "{found:#?}"
    );
    assert!(
        found[1]
            .2
            .contains("`protocol` must be hooks or claude, not `json`"),
        "{found:#?}"
    );
}

#[test]
fn broken_yaml_and_unreadable_files_are_errors_with_a_location() {
    let broken = errors("hooks:\n  PreToolUse: [\n    - type: command\n");
    assert_eq!(broken.len(), 1);
    assert!(broken[0].2.contains("not valid YAML"), "{broken:?}");
    let missing = load_file(Path::new("/nonexistent/hooks.yaml")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("/nonexistent/hooks.yaml:1:1: cannot read the file"),
        "{missing}"
    );
    let shown = ConfigErrors(vec![]).to_string();
    assert!(shown.is_empty());
}

// Command hooks.

#[tokio::test]
async fn the_hook_reads_the_event_as_the_proposal_and_claude_code_describe_it() {
    let dir = scratch("stdin");
    let registry = command_hook(
        &dir,
        "cat > stdin.json\nprintf '%s' \"$HOOKS_PROJECT_DIR\" > env.txt\n",
        "",
    );

    registry.emit("tool:pre", tool_call()).await;

    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("stdin.json")).unwrap()).unwrap();
    assert_eq!(seen["event"], "PreToolUse");
    assert_eq!(seen["canonical_event"], "tool:pre");
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool"], "Bash");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["args"], json!({"command": "ls"}));
    assert_eq!(seen["tool_input"], json!({"command": "ls"}));
    assert_eq!(seen["session_id"], "s-1");
    assert!(seen["timestamp"].is_string());
    assert_eq!(seen["data"]["tool_name"], "Bash");
    assert_eq!(seen["cwd"], dir.to_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.join("env.txt")).unwrap(),
        dir.to_str().unwrap()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An assertion on one emit's outcome.
type Check = Box<dyn Fn(&hooks_core::EmitResult)>;

#[tokio::test]
async fn every_answer_protocol_is_understood() {
    let cases: Vec<(&str, Check)> = vec![
        (
            "true",
            Box::new(|o| assert_eq!(o.action(), HookAction::Continue)),
        ),
        (
            r#"echo '{"action": "block", "message": "no shell today"}'"#,
            Box::new(|o| {
                assert_eq!(o.action(), HookAction::Deny);
                assert_eq!(o.result.reason.as_deref(), Some("no shell today"));
            }),
        ),
        (
            r#"echo '{"action": "modify", "modified_args": {"command": "ls -la"}, "message": "added -la"}'"#,
            Box::new(|o| {
                assert_eq!(o.action(), HookAction::Modify);
                assert_eq!(o.data()["tool_input"], json!({"command": "ls -la"}));
                assert_eq!(o.result.user_message.as_deref(), Some("added -la"));
            }),
        ),
        (
            r#"echo '{"action": "inject_context", "context_injection": "remember the style guide"}'"#,
            Box::new(|o| {
                assert_eq!(
                    o.result.context_injection.as_deref(),
                    Some("remember the style guide")
                )
            }),
        ),
        (
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "use rg"}}'"#,
            Box::new(|o| {
                assert_eq!(o.action(), HookAction::Deny);
                assert_eq!(o.result.reason.as_deref(), Some("use rg"));
            }),
        ),
        (
            r#"echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "Run ls?"}}'"#,
            Box::new(|o| {
                assert_eq!(o.action(), HookAction::AskUser);
                assert_eq!(o.result.approval_prompt.as_deref(), Some("Run ls?"));
            }),
        ),
        (
            r#"echo '{"hookSpecificOutput": {"updatedInput": {"command": "ls -1"}, "additionalContext": "listing"}, "systemMessage": "rewrote ls", "suppressOutput": true}'"#,
            Box::new(|o| {
                assert_eq!(o.data()["tool_input"], json!({"command": "ls -1"}));
                assert!(o.is_modified());
                assert_eq!(o.injections[0].text, "listing");
                assert_eq!(o.messages[0].level, MessageLevel::Warning);
                assert!(o.result.suppress_output);
            }),
        ),
        (
            r#"echo '{"continue": false, "stopReason": "session over"}'"#,
            Box::new(|o| assert_eq!(o.result.reason.as_deref(), Some("session over"))),
        ),
        (
            r#"echo '{"decision": "block", "reason": "tests must pass first"}'"#,
            Box::new(|o| assert_eq!(o.result.reason.as_deref(), Some("tests must pass first"))),
        ),
        (
            "echo 'dangerous: use rm -i' >&2; exit 2",
            Box::new(|o| {
                assert_eq!(o.action(), HookAction::Deny);
                assert_eq!(o.result.reason.as_deref(), Some("dangerous: use rm -i"));
            }),
        ),
    ];
    for (script, check) in cases {
        let dir = scratch("protocols");
        let registry = command_hook(&dir, &format!("cat > /dev/null\n{script}\n"), "");
        let outcome = registry.emit("tool:pre", tool_call()).await;
        assert!(
            outcome.failures.is_empty(),
            "{script}: {:?}",
            outcome.failures
        );
        check(&outcome);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test]
async fn failures_follow_on_failure_and_never_read_as_an_allow() {
    let failing = [
        ("exit 1", "exited with 1"),
        ("kill -9 $$", "killed by signal 9"),
        ("echo '{\"decision\": \"block\"'", "starts like JSON"),
        ("echo '[\"deny\"]'", "starts like JSON"),
        ("printf '\\377\\376{garbage'", "not UTF-8"),
        ("echo '{\"action\": \"explode\"}'", "not a hook result"),
        (
            "head -c 5242880 /dev/zero | tr '\\0' 'x'",
            "more than 1048576 bytes",
        ),
    ];
    for (script, why) in failing {
        let dir = scratch("failures");
        let warn = command_hook(&dir, &format!("cat > /dev/null\n{script}\n"), "");
        let warned = warn.emit("tool:pre", tool_call()).await;
        assert_eq!(warned.action(), HookAction::Continue, "{script}");
        let message = warned.result.user_message.clone().unwrap_or_default();
        assert!(
            message.contains("hook `policy` failed") && message.contains(why),
            "{script}: {message}"
        );
        assert_eq!(warned.result.user_message_level, MessageLevel::Warning);

        let block = command_hook(
            &dir,
            &format!("cat > /dev/null\n{script}\n"),
            "      on_failure: block\n",
        );
        let blocked = block.emit("tool:pre", tool_call()).await;
        assert_eq!(blocked.action(), HookAction::Deny, "{script}: fail closed");
        assert!(
            blocked
                .result
                .reason
                .as_deref()
                .unwrap_or_default()
                .contains(why),
            "{script}"
        );

        let ignore = command_hook(
            &dir,
            &format!("cat > /dev/null\n{script}\n"),
            "      on_failure: ignore\n",
        );
        let ignored = ignore.emit("tool:pre", tool_call()).await;
        assert_eq!(
            (ignored.action(), ignored.result.user_message.clone()),
            (HookAction::Continue, None),
            "{script}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_killed_with_its_whole_process_group() {
    let dir = scratch("hang");
    let script = "sleep 30 &\necho $! > child.pid\nsleep 30\n";
    let registry = command_hook(
        &dir,
        script,
        "      timeout_ms: 300\n      on_failure: block\n",
    );

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", tool_call()).await;

    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the emit waited for the hang"
    );
    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("timed out and was killed")
    );
    let child: i32 = std::fs::read_to_string(dir.join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut gone = false;
    for _ in 0..50 {
        if !alive(child) {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the hook's background child {child} outlived it");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn an_async_hook_does_not_hold_up_the_emit() {
    let dir = scratch("async");
    let registry = command_hook(
        &dir,
        "cat > /dev/null\nsleep 0.5\ntouch done.txt\n",
        "      async: true\n",
    );

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", tool_call()).await;

    assert!(
        started.elapsed() < Duration::from_millis(400),
        "the emit waited"
    );
    assert_eq!(outcome.action(), HookAction::Continue);
    for _ in 0..100 {
        if dir.join("done.txt").exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        dir.join("done.txt").exists(),
        "the hook still ran to the end"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn plain_output_is_context_under_claude_codes_protocol_only() {
    let dir = scratch("plain");
    std::fs::write(
        dir.join("hook.sh"),
        "cat > /dev/null\necho 'Today is release day.'\n",
    )
    .unwrap();
    let claude = mounted(
        &dir,
        "hooks:\n  PromptSubmit:\n    - type: command\n      command: sh ./hook.sh\n      protocol: claude\n",
    );
    let outcome = claude
        .emit("prompt:submit", json!({"prompt": "ship it"}))
        .await;
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("Today is release day.")
    );

    // Our own protocol has no plain text: the line is not taken as context.
    let ours = mounted(
        &dir,
        "hooks:\n  PromptSubmit:\n    - type: command\n      command: sh ./hook.sh\n",
    );
    let outcome = ours
        .emit("prompt:submit", json!({"prompt": "ship it"}))
        .await;
    assert_eq!(outcome.result.context_injection, None);
    let warning = outcome.result.user_message.clone().unwrap_or_default();
    assert!(
        warning.contains("not a JSON answer: `Today is release day.`"),
        "{warning}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn garbage_from_a_hooks_file_command_is_a_failure_its_on_failure_decides() {
    let dir = scratch("garbage");
    let garbage = "cat > /dev/null\necho 'this is not json {{{'\n";
    let blocking = command_hook(&dir, garbage, "      on_failure: block\n");
    let blocked = blocking.emit("tool:pre", tool_call()).await;
    assert_eq!(blocked.action(), HookAction::Deny, "{blocked:?}");
    let reason = blocked.result.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("hook `policy` failed") && reason.contains("this is not json {{{"),
        "{reason}"
    );
    let warning = command_hook(&dir, garbage, "")
        .emit("tool:pre", tool_call())
        .await;
    assert_eq!(warning.action(), HookAction::Continue);
    assert_eq!(warning.result.user_message_level, MessageLevel::Warning);
    let ignored = command_hook(&dir, garbage, "      on_failure: ignore\n")
        .emit("tool:pre", tool_call())
        .await;
    assert_eq!(ignored.action(), HookAction::Continue);
    assert_eq!(ignored.result.user_message, None);
    // Printing nothing is still an answer: continue.
    let silent = command_hook(&dir, "cat > /dev/null\n", "      on_failure: block\n")
        .emit("tool:pre", tool_call())
        .await;
    assert_eq!(silent.action(), HookAction::Continue, "{silent:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn garbage_from_a_claude_code_settings_hook_proceeds_as_in_claude_code() {
    let dir = scratch("claude-garbage");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::write(
        dir.join("hook.sh"),
        "cat > /dev/null\necho 'this is not json {{{'\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh ./hook.sh"}]}]}}"#,
    )
    .unwrap();
    let config = load_file(&dir.join(".claude/settings.json")).unwrap();
    let registry = HookRegistry::new();
    let _mounted = hooks_core::HookModule::mount(&config, &registry).unwrap();
    let outcome = registry.emit("tool:pre", tool_call()).await;
    // Claude Code shows a successful hook's plain stdout in the transcript and goes on.
    assert_eq!(outcome.action(), HookAction::Continue, "{outcome:?}");
    assert_eq!(
        outcome.result.user_message, None,
        "not a failure: {outcome:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

// Matcher hooks.

#[tokio::test]
async fn matchers_use_globs_or_regexes_and_need_every_condition() {
    let dir = scratch("matcher");
    let registry = mounted(
        &dir,
        r#"hooks:
  PreToolUse:
    - type: matcher
      name: env_files
      match:
        tool: "{Write,Edit}"
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
    - type: matcher
      name: rm
      match:
        tool: Bash
        args:
          command: "regex:^rm\\s+-[a-z]*r"
      action: ask
      message: "Really delete recursively?"
    - type: matcher
      name: style
      match:
        tool: "Write"
      action: inject
      message: "Follow the style guide."
"#,
    );
    let call = |tool: &str, input: Value| json!({"tool_name": tool, "tool_input": input});

    for path in [".env", "config/.env.local", "/abs/.env"] {
        let outcome = registry
            .emit("tool:pre", call("Write", json!({"file_path": path})))
            .await;
        assert_eq!(
            outcome.result.reason.as_deref(),
            Some("Cannot modify environment files"),
            "{path}"
        );
    }
    let read = registry
        .emit("tool:pre", call("Read", json!({"file_path": ".env"})))
        .await;
    assert_eq!(
        read.action(),
        HookAction::Continue,
        "the tool must match too"
    );
    let other = registry
        .emit(
            "tool:pre",
            call("Write", json!({"file_path": "src/env.rs"})),
        )
        .await;
    assert_eq!(other.action(), HookAction::InjectContext);
    assert_eq!(other.injections[0].hook.as_ref(), "style");
    let rm = registry
        .emit("tool:pre", call("Bash", json!({"command": "rm -rf build"})))
        .await;
    assert_eq!(
        rm.result.approval_prompt.as_deref(),
        Some("Really delete recursively?")
    );
    let ls = registry
        .emit("tool:pre", call("Bash", json!({"command": "ls"})))
        .await;
    assert_eq!(ls.action(), HookAction::Continue);
    let odd = registry
        .emit("tool:pre", call("Bash", json!({"command": 7})))
        .await;
    assert_eq!(
        odd.action(),
        HookAction::Continue,
        "a non-string field does not match"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn entries_merge_with_in_process_hooks_by_priority_and_file_order() {
    let dir = scratch("merge");
    let registry = mounted(
        &dir,
        r#"hooks:
  tool:post:
    - type: matcher
      name: second
      match: {tool: "*"}
      action: inject
      message: "from the file, second"
    - type: matcher
      name: third
      match: {tool: "*"}
      action: inject
      message: "from the file, third"
    - type: matcher
      name: first
      priority: -5
      match: {tool: "*"}
      action: inject
      message: "from the file, first"
"#,
    );
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::inject("in process, last") },
            10,
            "code",
        )
        .unwrap();

    let outcome = registry
        .emit("tool:post", json!({"tool_name": "Write"}))
        .await;

    let order: Vec<&str> = outcome.injections.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        order,
        [
            "from the file, first",
            "from the file, second",
            "from the file, third",
            "in process, last"
        ]
    );
    std::fs::remove_dir_all(dir).unwrap();
}
