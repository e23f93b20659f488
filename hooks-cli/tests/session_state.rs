//! Session state under per-event agent hooks: every `hooks claude` run is a process of its own,
//! and what one event's hooks remember (a reminder list, an "always" answer) reaches the next
//! event of the same session through the file store, keyed by the agent's `session_id`.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use hooks_core::session::{HookSession, ScriptedApprovals, ToolCallStatus, tool_fn};
use hooks_core::{HookModule, HookRegistry};
use hooks_std::approval::{ApprovalConfig, ApprovalModule};
use hooks_std::state_file::FileState;
use serde_json::{Value, json};

/// A project with `yaml` as its hooks file, and the state directory its hook runs share.
fn project(test: &str, yaml: &str) -> (PathBuf, PathBuf) {
    let dir = hooks_testing::scratch_dir("session-state", test);
    std::fs::write(dir.join("hooks.yaml"), yaml).unwrap();
    let state = dir.join("state");
    (dir, state)
}

/// One hook call of `agent`, as the agent makes it.
fn run(agent: &str, dir: &Path, state: &Path, input: &Value) -> Output {
    let args = [agent, "--config", "hooks.yaml"];
    let output = support::spawn_with_state(Some(dir), &args, &input.to_string(), state)
        .wait_with_output()
        .unwrap();
    support::check_agent_answer(&args, &input.to_string(), &output);
    output
}

fn claude(session: &str, event: &str, fields: Value) -> Value {
    let mut input = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": ".", "hook_event_name": event});
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    input
}

const REMINDER: &str =
    "modules:\n  reminder:\n    events: [prompt:submit]\n    todo_tool: TodoWrite\n";

fn todo_write(session: &str) -> Value {
    claude(
        session,
        "PostToolUse",
        json!({"tool_name": "TodoWrite", "tool_response": {},
               "tool_input": {"todos": [
                   {"content": "write the migration", "status": "in_progress", "activeForm": "Writing"},
                   {"content": "plan it", "status": "completed", "activeForm": "Planning"}]}}),
    )
}

#[test]
fn a_reminder_list_set_by_one_process_is_shown_by_the_next() {
    let (dir, state) = project("reminder", REMINDER);
    let wrote = run("claude", &dir, &state, &todo_write("sess-a"));
    assert_eq!(wrote.status.code(), Some(0), "{wrote:?}");
    assert!(
        state.join("sess-a.json").exists(),
        "the state file is written"
    );

    let prompt = |session| {
        run(
            "claude",
            &dir,
            &state,
            &claude(session, "UserPromptSubmit", json!({"prompt": "next?"})),
        )
    };
    let same = prompt("sess-a");
    assert_eq!(
        support::stdout_json(&same)["hookSpecificOutput"]["additionalContext"],
        "Current todos:\n- write the migration"
    );
    let other = prompt("sess-b");
    assert_eq!(other.status.code(), Some(0), "{other:?}");
    assert!(
        other.stdout.is_empty(),
        "another session has no list: {:?}",
        support::stdout(&other)
    );
}

#[test]
fn a_session_id_naming_a_path_never_leaves_the_state_directory() {
    let (dir, state) = project("escape", REMINDER);
    let wrote = run("claude", &dir, &state, &todo_write("../../escaped"));
    assert_eq!(wrote.status.code(), Some(0), "{wrote:?}");
    let written: Vec<_> = walk(&dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
    assert!(!std::env::temp_dir().join("escaped.json").exists());
    assert!(!dir.parent().unwrap().join("escaped.json").exists());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn cursor_s_conversation_id_keys_its_session_state() {
    let (dir, state) = project("cursor", REMINDER);
    let input = json!({"conversation_id": "conv-1", "generation_id": "g", "hook_event_name": "postToolUse",
        "workspace_roots": [dir], "tool_name": "TodoWrite",
        "tool_input": {"todos": ["ship it"]}, "tool_output": "{}"});
    let output = run("cursor", &dir, &state, &input);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("conv-1.json")).unwrap()).unwrap();
    assert_eq!(kept["hooks.reminder.items"], json!(["ship it"]));
}

const APPROVAL: &str = "modules:\n  approval:\n    tools: [Deploy]\n";

/// The application's side: a session over the same file store, whose user answers `answer`
/// to the approval module's question about the deploy below.
fn answered_in_an_application(state: &Path, session: &str, answer: &str) {
    let registry = HookRegistry::new();
    registry.set_state_backend(FileState::new(state));
    let config: ApprovalConfig = serde_json::from_value(
        json!({"tools": ["Deploy"], "options": ["Allow once", "Allow always", "Deny always"]}),
    )
    .unwrap();
    let _mounted = ApprovalModule::new(config)
        .unwrap()
        .mount(&registry)
        .unwrap();
    let session = HookSession::builder(registry)
        .session_id(session)
        .approvals(Arc::new(ScriptedApprovals::choosing([answer])))
        .build();
    let deploy = tool_fn("Deploy", |_| async { Ok(json!("deployed")) });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(session.run_tool(&deploy, json!({"command": "deploy prod"})));
    assert_eq!(
        matches!(outcome.status, ToolCallStatus::Ran { .. }),
        answer.starts_with("Allow"),
        "{outcome:?}"
    );
}

fn deploy(session: &str) -> Value {
    claude(
        session,
        "PreToolUse",
        json!({"tool_name": "Deploy", "tool_input": {"command": "deploy prod"}, "tool_use_id": "t1"}),
    )
}

#[test]
fn an_always_answer_kept_in_the_session_state_settles_the_agent_s_next_ask() {
    let (dir, state) = project("approval", APPROVAL);
    answered_in_an_application(&state, "allowed", "Allow always");
    answered_in_an_application(&state, "denied", "Deny always");

    // Remembered allow: the hook no longer asks (Claude Code's own permissions apply).
    let allowed = run("claude", &dir, &state, &deploy("allowed"));
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert!(allowed.stdout.is_empty(), "{}", support::stdout(&allowed));

    // Remembered deny: blocked, saying why.
    let denied = run("claude", &dir, &state, &deploy("denied"));
    let reason = support::claude_denial(&denied).unwrap();
    assert!(reason.contains("\"always\""), "{reason}");

    // A session that answered nothing is asked, as before.
    let fresh = run("claude", &dir, &state, &deploy("fresh"));
    assert_eq!(
        support::stdout_json(&fresh)["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
}

const MIGRATIONS: &str = r#"modules:
  prompt_gate:
    rules:
      - name: migrations
        paths: ["**/migrations/**"]
        prompt: "(?i)\\bmigrations?\\b"
"#;

fn write_migration(session: &str) -> Value {
    claude(
        session,
        "PreToolUse",
        json!({"tool_name": "Write", "tool_use_id": "t2",
               "tool_input": {"file_path": "/work/app/migrations/0002_users.sql", "content": "create table users();"}}),
    )
}

#[test]
fn a_write_to_migrations_needs_a_prompt_of_the_same_session_across_processes() {
    let (dir, state) = project("migrations", MIGRATIONS);
    let prompt = |session, text| {
        let output = run(
            "claude",
            &dir,
            &state,
            &claude(session, "UserPromptSubmit", json!({"prompt": text})),
        );
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    // Before any prompt: denied.
    let early = run("claude", &dir, &state, &write_migration("asks"));
    assert!(
        support::claude_denial(&early)
            .unwrap()
            .contains("rule `migrations`")
    );

    prompt("asks", "Please add a migration for the users table");
    prompt("other", "Tidy the README");
    let allowed = run("claude", &dir, &state, &write_migration("asks"));
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert!(support::claude_denial(&allowed).is_none(), "{allowed:?}");
    let denied = run("claude", &dir, &state, &write_migration("other"));
    assert!(support::claude_denial(&denied).is_some(), "{denied:?}");

    // No usable session id: the gate cannot decide, and denies.
    let escaping = run("claude", &dir, &state, &write_migration("../asks"));
    let reason = support::claude_denial(&escaping).unwrap();
    assert!(reason.contains("refused"), "{reason}");
}

#[test]
fn an_agent_cannot_forge_the_session_state_where_the_environment_puts_it() {
    // The state directory is `$HOOKS_STATE_DIR` here, inside the project: a write into it from
    // a tool call is denied (it would forge an "always" answer or a prompt gate's permission),
    // while the rest of the project stays writable.
    let (dir, state) = project("forge", "modules:\n  safety: {workspace: \".\"}\n");
    let bash = |command: String| {
        claude(
            "sess-f",
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": command}}),
        )
    };
    let forged = format!(
        r#"echo '{{"approvals":{{"Bash":"always"}}}}' > {}/sess-f.json"#,
        state.display()
    );
    let output = run("claude", &dir, &state, &bash(forged));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{output:?}"
    );
    let allowed = run("claude", &dir, &state, &bash("echo ok > notes.txt".into()));
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert!(allowed.stdout.is_empty(), "{allowed:?}");
}
