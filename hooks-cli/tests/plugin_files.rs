//! The plugins `hooks init opencode` and `hooks init amp` write, run under `node` with a stub of
//! each agent's plugin API: a denied call is stopped with our reason, a benign one goes on, a
//! rewrite reaches the agent's own arguments, and any failure of `hooks` (missing, crashing,
//! hanging, answering nonsense) blocks. Skipped, saying so, where `node` is not installed.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use hooks_config::interop::plugin::PluginCommand;
use serde_json::{Value, json};

/// The project's policy: the starter's modules, and a rewrite that applies.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
  redaction: {}
hooks:
  PreToolUse:
    - type: command
      name: python3
      matcher: Bash
      rewrite: apply
      command: "grep -q 'python x.py' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"python3 x.py\", \"cmd\": \"python3 x.py\"}}' || true"
"#;

/// Loads the plugin at argv[2] (a copy of the written one, as ES module), calls it as the agent
/// would for each case of argv[3], and prints what the agent would have seen, one JSON per case.
const DRIVER: &str = r#"
const [plugin, agent, casesJson] = process.argv.slice(2);
const cases = JSON.parse(casesJson);
const mod = await import(plugin);
const results = [];
if (agent === "opencode") {
  const hooks = await mod.HooksGuard({ directory: process.cwd() });
  for (const c of cases) {
    try {
      if (c.event === "tool.execute.before") {
        const output = { args: structuredClone(c.args) };
        await hooks["tool.execute.before"]({ tool: c.tool, sessionID: "ses_1", callID: "call_1" }, output);
        results.push({ ran: true, args: output.args });
      } else {
        const output = { message: {}, parts: [{ type: "text", text: c.prompt }] };
        await hooks["chat.message"]({ sessionID: "ses_1", messageID: "msg_1" }, output);
        results.push({ ran: true, prompt: output.parts[0].text });
      }
    } catch (error) {
      results.push({ ran: false, thrown: String(error && error.message) });
    }
  }
} else {
  const handlers = {};
  mod.default({ on: (name, handler) => { handlers[name] = handler; } });
  for (const c of cases) {
    results.push(await handlers["tool.call"]({ tool: c.tool, input: c.args, toolUseID: "toolu_1" }));
  }
}
console.log(JSON.stringify(results));
"#;

/// A project set up by `hooks init <agent>`: its directory and the plugin's text.
fn project(agent: &str, test: &str) -> (PathBuf, PathBuf) {
    let dir = hooks_testing::scratch_dir("plugin-files", test);
    std::fs::write(dir.join("hooks.yaml"), POLICY).unwrap();
    let init = support::run(Some(&dir), &["init", agent], "");
    assert!(init.status.success(), "{init:?}");
    let plugin = match agent {
        "opencode" => dir.join(".opencode/plugin/hooks.js"),
        _ => dir.join(".amp/plugins/hooks.ts"),
    };
    (dir, plugin)
}

/// `plugin` copied beside itself as an ES module `node` loads, its command changed by `change`.
fn loadable(plugin: &Path, change: impl FnOnce(&mut PluginCommand)) -> PathBuf {
    let text = std::fs::read_to_string(plugin).unwrap();
    let mut command = PluginCommand::read(&text).expect("the plugin names its command");
    let line = serde_json::to_string(&command).unwrap();
    assert!(text.contains(&line), "the command line is written as read");
    change(&mut command);
    let copy = plugin.with_file_name("under-test.mjs");
    std::fs::write(
        &copy,
        text.replace(&line, &serde_json::to_string(&command).unwrap()),
    )
    .unwrap();
    copy
}

/// What the agent sees for each case, or `None` where `node` is not installed.
fn drive(dir: &Path, plugin: &Path, agent: &str, cases: &Value) -> Option<Vec<Value>> {
    let driver = dir.join("driver.mjs");
    std::fs::write(&driver, DRIVER).unwrap();
    let output = match Command::new("node")
        .arg(&driver)
        .arg(plugin)
        .arg(agent)
        .arg(cases.to_string())
        .current_dir(dir)
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: `node` is not installed, and the plugin is JavaScript");
            return None;
        }
        Err(error) => panic!("node: {error}"),
    };
    assert!(output.status.success(), "{output:?}");
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// A script standing in for `hooks`, in `dir`.
fn stand_in(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn the_opencode_plugin_stops_a_denied_call_and_lets_a_benign_one_run() {
    let (dir, plugin) = project("opencode", "opencode-obeys");
    let copy = loadable(&plugin, |_| {});
    let cases = json!([
        {"event": "tool.execute.before", "tool": "bash", "args": {"command": "rm -rf /", "description": "x"}},
        {"event": "tool.execute.before", "tool": "bash", "args": {"command": "ls", "description": "list"}},
        {"event": "tool.execute.before", "tool": "bash", "args": {"command": "python x.py", "description": "run"}},
        {"event": "chat.message", "prompt": "deploy with sk-ant-api03-Zq4xFAKEkeyFAKEkeyFAKEkeyFAKEkey0123456789ab"},
    ]);
    let Some(seen) = drive(&dir, &copy, "opencode", &cases) else {
        return;
    };
    assert_eq!(seen[0]["ran"], false, "{seen:?}");
    assert!(
        seen[0]["thrown"].as_str().unwrap().contains("rm-root"),
        "{seen:?}"
    );
    assert_eq!(
        seen[1],
        json!({"ran": true, "args": {"command": "ls", "description": "list"}})
    );
    assert_eq!(seen[2]["ran"], true, "{seen:?}");
    assert_eq!(seen[2]["args"]["command"], "python3 x.py", "{seen:?}");
    let prompt = seen[3]["prompt"].as_str().unwrap();
    assert!(
        !prompt.contains("sk-ant-api03-Zq4xFAKEkeyFAKEkeyFAKEkeyFAKEkey0123456789ab")
            && prompt.starts_with("deploy with"),
        "{seen:?}"
    );
}

#[test]
fn every_failure_of_hooks_blocks_the_call_in_the_opencode_plugin() {
    let (dir, plugin) = project("opencode", "opencode-fails-closed");
    let call = json!([{"event": "tool.execute.before", "tool": "bash", "args": {"command": "ls"}}]);
    let failures = [
        (
            "/nonexistent/bin/hooks".to_owned(),
            90_000,
            "could not start",
        ),
        (
            stand_in(&dir, "crash", "exit 101"),
            90_000,
            "exited with 101",
        ),
        (
            stand_in(&dir, "nonsense", "echo 'all good'"),
            90_000,
            "cannot read",
        ),
        (
            stand_in(&dir, "silent", "cat >/dev/null; echo '{}'"),
            90_000,
            "cannot read",
        ),
        (
            stand_in(&dir, "hang", "exec sleep 30"),
            300,
            "ran past 300 ms",
        ),
    ];
    for (binary, timeout_ms, said) in failures {
        let copy = loadable(&plugin, |command| {
            command.binary = binary.clone();
            command.timeout_ms = timeout_ms;
        });
        let Some(seen) = drive(&dir, &copy, "opencode", &call) else {
            return;
        };
        assert_eq!(seen[0]["ran"], false, "{binary}: {seen:?}");
        let thrown = seen[0]["thrown"].as_str().unwrap();
        assert!(
            thrown.contains(said) && thrown.contains("blocked"),
            "{binary}: {thrown}"
        );
    }
}

#[test]
fn the_amp_plugin_answers_with_amps_actions_and_rejects_when_hooks_fails() {
    let (dir, plugin) = project("amp", "amp-obeys");
    let cases = json!([
        {"tool": "Bash", "args": {"cmd": "rm -rf /"}},
        {"tool": "Bash", "args": {"cmd": "ls"}},
        {"tool": "Bash", "args": {"cmd": "python x.py"}},
    ]);
    let copy = loadable(&plugin, |_| {});
    let Some(seen) = drive(&dir, &copy, "amp", &cases) else {
        return;
    };
    assert_eq!(seen[0]["action"], "reject-and-continue", "{seen:?}");
    assert!(seen[0]["message"].as_str().unwrap().contains("rm-root"));
    assert_eq!(seen[1], json!({"action": "allow"}));
    assert_eq!(
        seen[2],
        json!({"action": "modify", "input": {"cmd": "python3 x.py"}})
    );

    let missing = loadable(&plugin, |command| {
        command.binary = "/nonexistent/bin/hooks".to_owned();
    });
    let seen = drive(
        &dir,
        &missing,
        "amp",
        &json!([{"tool": "Bash", "args": {"cmd": "ls"}}]),
    )
    .unwrap();
    assert_eq!(seen[0]["action"], "reject-and-continue", "{seen:?}");
}

#[test]
fn doctor_reads_the_plugin_and_init_leaves_it_or_a_foreign_one_alone() {
    let (dir, plugin) = project("opencode", "opencode-doctor");
    let doctor = support::run(Some(&dir), &["doctor", "--dir", "."], "");
    let report = support::stdout(&doctor);
    assert!(
        report.contains("runs the guard on tool.execute.before, chat.message"),
        "{report}"
    );
    assert!(report.contains("hooks.yaml loads"), "{report}");

    let written = std::fs::read_to_string(&plugin).unwrap();
    let again = support::run(Some(&dir), &["init", "opencode"], "");
    assert!(again.status.success(), "{again:?}");
    assert_eq!(std::fs::read_to_string(&plugin).unwrap(), written);

    std::fs::write(&plugin, "export const Mine = async () => ({});\n").unwrap();
    let foreign = support::run(Some(&dir), &["init", "opencode"], "");
    assert!(!foreign.status.success(), "{foreign:?}");
    assert_eq!(
        std::fs::read_to_string(&plugin).unwrap(),
        "export const Mine = async () => ({});\n"
    );
}
