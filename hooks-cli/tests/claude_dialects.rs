//! `hooks qwen` and `hooks droid`: Qwen Code and Factory Droid speak Claude Code's protocol over
//! their own tool names. The same cases run for both, every answer read by the agent's own
//! rules ([`support::run`] checks each), and their reasons name the agent, not Claude Code.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

/// A dialect of Claude Code's protocol, by its tools.
struct Dialect {
    /// Its subcommand.
    agent: &'static str,
    /// Its name, as its reasons say it.
    name: &'static str,
    /// Its shell tool.
    shell: &'static str,
    /// Its tool that writes a new file, with the input writing `/etc/passwd`.
    write: (&'static str, fn() -> Value),
    /// Its tool that reads a file, with the input reading `/etc/shadow`.
    read: (&'static str, fn() -> Value),
}

const DIALECTS: &[Dialect] = &[
    Dialect {
        agent: "qwen",
        name: "Qwen Code",
        shell: "run_shell_command",
        write: (
            "write_file",
            || json!({"file_path": "/etc/passwd", "content": "x"}),
        ),
        read: ("read_file", || json!({"absolute_path": "/etc/shadow"})),
    },
    Dialect {
        agent: "droid",
        name: "Factory Droid",
        shell: "Execute",
        write: (
            "Create",
            || json!({"file_path": "/etc/passwd", "content": "x"}),
        ),
        read: ("Read", || json!({"file_path": "/etc/shadow"})),
    },
];

/// [`support::ASK_ON_PUSH`], and a question on prompts, which neither can ask there.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
  UserPromptSubmit:
    - type: matcher
      match: {args: {prompt: "deploy*"}}
      action: ask
      message: "deploy now?"
"#;

#[test]
fn their_shell_and_file_tools_meet_the_canonical_rules() {
    for dialect in DIALECTS {
        let config = support::policy(dialect.agent, "tools", POLICY);
        let hook = |tool: &str, input: Value| {
            support::agent_hook(
                dialect.agent,
                &config,
                &support::claude_pre_tool(tool, input),
            )
        };
        let rm = hook(dialect.shell, json!({"command": "rm -rf /"}));
        assert!(
            support::claude_denial(&rm).unwrap().contains("rm-root"),
            "{}: {rm:?}",
            dialect.agent
        );
        let (write, input) = dialect.write;
        let written = hook(write, input());
        assert!(
            support::claude_denial(&written)
                .unwrap()
                .contains("/etc/passwd"),
            "{}: {written:?}",
            dialect.agent
        );
        let (read, input) = dialect.read;
        let read = hook(read, input());
        assert!(
            support::claude_denial(&read)
                .unwrap()
                .contains("/etc/shadow"),
            "{}: {read:?}",
            dialect.agent
        );
        // A rule on `Bash` asks, before its own shell tool too.
        let push = hook(dialect.shell, json!({"command": "git push"}));
        assert_eq!(
            support::verdict(dialect.agent, "PreToolUse", &push),
            Verdict::Ask("push to the remote?".to_owned()),
            "{}",
            dialect.agent
        );
        let fine = hook(dialect.shell, json!({"command": "ls"}));
        assert_eq!(fine.status.code(), Some(0));
        assert!(fine.stdout.is_empty(), "{}: {fine:?}", dialect.agent);
    }
}

#[test]
fn a_question_they_cannot_ask_is_a_deny_naming_the_agent() {
    for dialect in DIALECTS {
        let config = support::policy(dialect.agent, "prompt", POLICY);
        let prompt = json!({"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                            "cwd": "/tmp", "prompt": "deploy to production"});
        let output = support::agent_hook(dialect.agent, &config, &prompt);
        let Verdict::Block(reason) = support::verdict(dialect.agent, "UserPromptSubmit", &output)
        else {
            panic!("{}: not a block: {output:?}", dialect.agent);
        };
        assert!(
            reason.contains(dialect.name) && !reason.contains("Claude Code"),
            "{}: {reason}",
            dialect.agent
        );
        assert!(reason.contains("deploy now?"), "{reason}");
    }
}

#[test]
fn their_validators_refuse_an_allow_that_would_skip_their_prompt() {
    let allow = AgentAnswer::json(&json!({"hookSpecificOutput":
        {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
    for dialect in DIALECTS {
        assert!(
            agent(dialect.agent)
                .unwrap()
                .accepts("PreToolUse", &allow)
                .is_err(),
            "{}",
            dialect.agent
        );
    }
}

#[test]
fn droids_camel_case_input_is_read_too() {
    let config = support::policy("droid", "camel", support::ASK_ON_PUSH);
    let camel = json!({"sessionId": "s1", "hookEventName": "PreToolUse", "cwd": "/tmp",
                       "toolName": "Execute", "toolInput": {"command": "rm -rf /"}});
    let output = support::agent_hook("droid", &config, &camel);
    assert!(support::claude_denial(&output).is_some(), "{output:?}");
}

#[test]
fn droids_edit_and_patch_tools_meet_the_path_rules_whatever_their_fields() {
    let config = support::policy("droid", "edits", support::ASK_ON_PUSH);
    // The call runs in the project: a patch's relative paths are read from there.
    let project = config.parent().unwrap().to_owned();
    let call = |tool: &str, input: Value| {
        json!({"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": project,
               "tool_name": tool, "tool_input": input})
    };
    let denied = |tool: &str, input: Value| {
        let output = support::agent_hook("droid", &config, &call(tool, input));
        support::claude_denial(&output).unwrap_or_else(|| panic!("{tool}: {output:?}"))
    };
    let edit = denied(
        "Edit",
        json!({"path": "/etc/passwd", "old_str": "a", "new_str": "b"}),
    );
    assert!(edit.contains("/etc/passwd"), "{edit}");
    let multi = denied("MultiEdit", json!({"filePath": "/etc/hosts", "edits": []}));
    assert!(multi.contains("/etc/hosts"), "{multi}");
    let patch = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n";
    let outside = denied("ApplyPatch", json!({"patch": patch}));
    assert!(outside.contains("outside"), "{outside}");
    // A write tool whose input names no file cannot be checked: it is blocked, saying why.
    let unnamed = denied("Edit", json!({"old_str": "a", "new_str": "b"}));
    assert!(unnamed.contains("names none"), "{unnamed}");
    // A patch inside the project still runs.
    let inside = "*** Begin Patch\n*** Add File: notes.txt\n+x\n*** End Patch\n";
    let output = support::agent_hook(
        "droid",
        &config,
        &call("ApplyPatch", json!({"input": inside})),
    );
    assert!(support::claude_denial(&output).is_none(), "{output:?}");
}
