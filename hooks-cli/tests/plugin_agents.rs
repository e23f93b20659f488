//! `hooks opencode` and `hooks amp`: the JSON their plugins send on stdin, every answer read by
//! the plugin's rules ([`support::run`] checks each): a block, a proceed, a rewrite of the
//! agent's own arguments, and a block for anything the policy cannot decide.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

const POLICY: &str = r#"modules:
  safety:
    workspace: "."
  redaction: {}
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
    - type: command
      name: dry_run
      matcher: Bash
      command: "grep -q 'npm publish' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"npm publish --dry-run\"}}' || true"
    - type: command
      name: python3
      matcher: Bash
      rewrite: apply
      command: "grep -q 'python x.py' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"python3 x.py\", \"cmd\": \"python3 x.py\"}}' || true"
"#;

fn policy(test: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("plugin-agents", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, POLICY).unwrap();
    file
}

fn run(agent: &str, config: &Path, input: &Value) -> Output {
    support::run(
        None,
        &[agent.as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

fn answer(output: &Output) -> Value {
    serde_json::from_str(&support::stdout(output)).unwrap()
}

fn opencode_tool(tool: &str, args: Value) -> Value {
    json!({"hook_event_name": "tool.execute.before", "tool": tool, "args": args,
           "sessionID": "ses_1", "callID": "call_1", "directory": "/tmp/project"})
}

fn amp_tool(tool: &str, input: Value) -> Value {
    json!({"hook_event_name": "tool.call", "tool": tool, "input": input, "thread": "T-1",
           "toolUseID": "toolu_1"})
}

#[test]
fn opencode_tools_meet_the_canonical_rules() {
    let config = policy("opencode-tools");
    let rm = run(
        "opencode",
        &config,
        &opencode_tool(
            "bash",
            json!({"command": "rm -rf /", "description": "clean"}),
        ),
    );
    let rm = answer(&rm);
    assert_eq!(rm["decision"], "block", "{rm}");
    assert!(rm["reason"].as_str().unwrap().contains("rm-root"), "{rm}");

    let write = run(
        "opencode",
        &config,
        &opencode_tool("write", json!({"filePath": "/etc/passwd", "content": "x"})),
    );
    let write = answer(&write);
    assert_eq!(write["decision"], "block", "{write}");
    assert!(write["reason"].as_str().unwrap().contains("/etc/passwd"));

    let patch = run(
        "opencode",
        &config,
        &opencode_tool(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n"}),
        ),
    );
    assert_eq!(answer(&patch)["decision"], "block", "{patch:?}");

    let fine = run(
        "opencode",
        &config,
        &opencode_tool("bash", json!({"command": "ls", "description": "list"})),
    );
    assert_eq!(answer(&fine), json!({"decision": "proceed"}));
}

#[test]
fn a_question_blocks_with_the_question_as_neither_plugin_can_ask() {
    let config = policy("question");
    for (agent, input) in [
        (
            "opencode",
            opencode_tool("bash", json!({"command": "git push"})),
        ),
        ("amp", amp_tool("Bash", json!({"cmd": "git push"}))),
    ] {
        let output = answer(&run(agent, &config, &input));
        assert_eq!(output["decision"], "block", "{agent}: {output}");
        assert!(
            output["reason"]
                .as_str()
                .unwrap()
                .contains("push to the remote?"),
            "{agent}: {output}"
        );
    }
}

#[test]
fn a_rewrite_runs_only_when_its_entry_says_apply_and_comes_back_in_the_agents_fields() {
    let config = policy("rewrite");
    let unconfirmed = answer(&run(
        "opencode",
        &config,
        &opencode_tool(
            "bash",
            json!({"command": "npm publish", "description": "ship"}),
        ),
    ));
    assert_eq!(unconfirmed["decision"], "block", "{unconfirmed}");
    assert!(
        unconfirmed["reason"]
            .as_str()
            .unwrap()
            .contains("npm publish --dry-run"),
        "{unconfirmed}"
    );

    let applied = answer(&run(
        "opencode",
        &config,
        &opencode_tool("bash", json!({"command": "python x.py"})),
    ));
    assert_eq!(applied["decision"], "rewrite", "{applied}");
    assert_eq!(applied["args"]["command"], "python3 x.py", "{applied}");

    // Amp's shell tool has its command in `cmd`: the rewrite comes back there, and the
    // canonical `command` the rules read is not added to Amp's arguments.
    let amp = answer(&run(
        "amp",
        &config,
        &amp_tool("Bash", json!({"cmd": "python x.py"})),
    ));
    assert_eq!(amp["decision"], "rewrite", "{amp}");
    assert_eq!(amp["args"], json!({"cmd": "python3 x.py"}), "{amp}");
}

#[test]
fn a_prompt_with_a_key_is_sent_redacted_and_a_plain_one_as_it_is() {
    let config = policy("prompt");
    let key = "sk-ant-api03-Zq4xFAKEkeyFAKEkeyFAKEkeyFAKEkey0123456789ab";
    let prompt = |text: &str| {
        json!({"hook_event_name": "chat.message", "sessionID": "ses_1", "messageID": "msg_1",
               "prompt": text, "directory": "/tmp/project"})
    };
    let redacted = answer(&run(
        "opencode",
        &config,
        &prompt(&format!("deploy with {key}")),
    ));
    assert_eq!(redacted["decision"], "rewrite", "{redacted}");
    let sent = redacted["prompt"].as_str().unwrap();
    assert!(
        !sent.contains(key) && sent.starts_with("deploy with"),
        "{sent}"
    );
    let plain = answer(&run("opencode", &config, &prompt("list the files")));
    assert_eq!(plain["decision"], "proceed", "{plain}");
}

#[test]
fn what_the_policy_cannot_decide_blocks() {
    let config = policy("broken");
    std::fs::write(&config, "hooks: [").unwrap();
    for (agent, input) in [
        ("opencode", opencode_tool("bash", json!({"command": "ls"}))),
        ("amp", amp_tool("Bash", json!({"cmd": "ls"}))),
    ] {
        let broken = run(agent, &config, &input);
        assert_eq!(broken.status.code(), Some(2), "{agent}: {broken:?}");
        assert_eq!(answer(&broken)["decision"], "block", "{agent}");
        let unreadable = support::run(
            None,
            &[agent.as_ref(), "--config".as_ref(), config.as_os_str()],
            "not json",
        );
        assert_eq!(answer(&unreadable)["decision"], "block", "{agent}");
    }
}

#[test]
fn the_plugins_reading_refuses_answers_it_would_take_as_a_failure() {
    use hooks_config::interop::{AgentAnswer, Verdict, agent};
    let opencode = agent("opencode").unwrap();
    let says = |stdout: &str| AgentAnswer {
        stdout: stdout.to_owned(),
        stderr: String::new(),
        exit_code: 0,
    };
    let event = "tool.execute.before";
    assert_eq!(
        opencode.accepts(event, &says(r#"{"decision": "proceed"}"#)),
        Ok(Verdict::Proceed)
    );
    for wrong in [
        "",
        "{}",
        r#"{"decision": "allow"}"#,
        r#"{"decision": "block"}"#,
        r#"{"decision": "rewrite", "prompt": "x"}"#,
        r#"{"decision": "proceed", "reason": "why"}"#,
    ] {
        assert!(opencode.accepts(event, &says(wrong)).is_err(), "{wrong}");
    }
}

#[test]
fn the_plugin_files_are_write_protected_from_the_agents_own_tools() {
    let config = policy("guard-files");
    let write = answer(&run(
        "opencode",
        &config,
        &opencode_tool(
            "write",
            json!({"filePath": "/tmp/project/.opencode/plugin/hooks.js", "content": ""}),
        ),
    ));
    assert_eq!(write["decision"], "block", "{write}");
    let edit = answer(&run(
        "amp",
        &config,
        &amp_tool(
            "edit_file",
            json!({"path": ".amp/plugins/hooks.ts", "old_str": "a", "new_str": "b"}),
        ),
    ));
    assert_eq!(edit["decision"], "block", "{edit}");
}
