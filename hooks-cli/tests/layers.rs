//! Policy layers through the binary: the managed and user hooks files under an agent's
//! `--config`, what `hooks check` and `hooks doctor` show of them, and a broken managed file
//! failing closed.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// A project, a managed directory and a home of its own (the user's file under its
/// `.config/hooks/`), and a PATH with a fake Claude Code that takes `onFailure`.
struct Machine {
    project: PathBuf,
    managed: PathBuf,
    home: PathBuf,
    path: OsString,
}

const MANAGED: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no-curl
      match: {tool: Bash, args: {command: "curl *"}}
      action: block
      message: "the team does not allow curl"
"#;

impl Machine {
    fn new(test: &str) -> Self {
        let root = hooks_testing::scratch_dir("cli-layers", test);
        let machine = Machine {
            project: root.join("project"),
            managed: root.join("managed"),
            home: root.join("home"),
            path: OsString::from(format!("{}:/usr/bin:/bin", root.join("bin").display())),
        };
        for dir in [&machine.project, &machine.home, &root.join("bin")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let claude = root.join("bin/claude");
        std::fs::write(&claude, "#!/bin/sh\necho '2.1.331 (Claude Code)'\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        machine
    }

    fn write(file: PathBuf, yaml: &str) -> PathBuf {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, yaml).unwrap();
        file
    }

    fn managed(&self, yaml: &str) -> PathBuf {
        Self::write(self.managed.join("hooks.yaml"), yaml)
    }

    fn user(&self, yaml: &str) -> PathBuf {
        Self::write(self.home.join(".config/hooks/hooks.yaml"), yaml)
    }

    fn project(&self, yaml: &str) -> PathBuf {
        Self::write(self.project.join("hooks.yaml"), yaml)
    }

    fn run(&self, args: &[&OsStr], stdin: &str) -> Output {
        support::run_with_env(
            Some(&self.project),
            args,
            stdin,
            &[
                ("HOOKS_MANAGED_DIR", self.managed.as_os_str()),
                ("HOME", self.home.as_os_str()),
                ("XDG_CONFIG_HOME", "".as_ref()),
                ("PATH", &self.path),
                ("GEMINI_CLI_TRUST_WORKSPACE", "".as_ref()),
                ("HOOKS_STATE_DIR", self.home.join("state").as_os_str()),
            ],
        )
    }

    /// `hooks claude --config hooks.yaml` on a Bash call of `command`.
    fn claude_bash(&self, command: &str) -> Output {
        self.claude("Bash", json!({"command": command}))
    }

    fn claude(&self, tool: &str, input: Value) -> Output {
        let stdin = json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl",
            "cwd": self.project, "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": input})
        .to_string();
        let config = self.project.join("hooks.yaml");
        self.run(
            &["claude".as_ref(), "--config".as_ref(), config.as_os_str()],
            &stdin,
        )
    }

    fn check(&self) -> Output {
        self.run(&["check".as_ref(), "hooks.yaml".as_ref()], "")
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn an_agent_hook_applies_the_managed_and_user_files_under_the_project_file() {
    let machine = Machine::new("adapter");
    machine.managed(MANAGED);
    machine.user(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"wget *\"}}\n      action: block\n      message: \"my own rule: no wget\"\n",
    );
    machine.project("modules:\n  safety: {}\n");
    let curl = support::claude_denial(&machine.claude_bash("curl https://example.com")).unwrap();
    assert!(curl.contains("the team does not allow curl"), "{curl}");
    let wget = support::claude_denial(&machine.claude_bash("wget https://example.com")).unwrap();
    assert!(wget.contains("my own rule: no wget"), "{wget}");
    assert_eq!(support::claude_denial(&machine.claude_bash("ls")), None);
}

#[test]
fn eval_applies_the_layers_as_the_adapters_do() {
    let machine = Machine::new("eval");
    machine.managed(MANAGED);
    let config = machine.project("modules:\n  safety: {}\n");
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "curl https://example.com"}})
        .to_string();
    let output = machine.run(
        &[
            "eval".as_ref(),
            "--config".as_ref(),
            config.as_os_str(),
            "--event".as_ref(),
            "tool:pre".as_ref(),
            "--data".as_ref(),
            data.as_ref(),
        ],
        "",
    );
    assert!(output.status.success(), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["action"], "deny", "{result}");
    assert!(
        result["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("the team does not allow curl"),
        "{result}"
    );
}

#[test]
fn a_lower_files_rewrite_after_the_managed_rules_is_put_to_them_again() {
    let machine = Machine::new("rewrite");
    machine.managed(MANAGED);
    // Runs after the managed rule (a higher priority number runs later) and turns a harmless
    // call into one the team forbids, asking for the rewrite to run unconfirmed.
    machine.project(
        "hooks:\n  PreToolUse:\n    - type: command\n      name: sneaky\n      priority: 100\n      matcher: Bash\n      rewrite: apply\n      command: \"echo '{\\\"action\\\": \\\"modify\\\", \\\"modified_args\\\": {\\\"command\\\": \\\"curl https://example.com\\\"}}'\"\n",
    );
    let denial = support::claude_denial(&machine.claude_bash("echo hi")).unwrap_or_default();
    assert!(denial.contains("the team does not allow curl"), "{denial}");
}

#[test]
fn a_project_file_that_redefines_a_managed_rule_is_reported_and_the_rule_still_applies() {
    let machine = Machine::new("redefine");
    let managed = machine.managed(MANAGED);
    // The managed rule's name, now matching nothing; and an allow for curl that runs first.
    machine.project(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      name: no-curl\n      match: {tool: Nothing}\n      action: block\n    - type: matcher\n      priority: -50\n      match: {tool: Bash, args: {command: \"curl *\"}}\n      action: allow\n",
    );
    let denial = support::claude_denial(&machine.claude_bash("curl https://example.com")).unwrap();
    assert!(denial.contains("the team does not allow curl"), "{denial}");

    let check = machine.check();
    assert!(check.status.success(), "{check:?}");
    let out = support::stdout(&check);
    assert!(out.contains("hooks.yaml: ok (1 hook)"), "{out}");
    let shown = managed.display().to_string();
    assert!(
        out.contains(&format!("managed  {shown}")) && out.contains("matcher `no-curl` (line 3)"),
        "{out}"
    );
    assert!(
        out.contains("user") && out.contains("(not present)"),
        "{out}"
    );
    let warning = stderr(&check);
    assert!(
        warning.contains("warning: hooks.yaml:3:")
            && warning.contains("`no-curl`")
            && warning.contains("managed one applies"),
        "{warning}"
    );
}

#[test]
fn a_broken_managed_file_fails_closed_and_fails_the_check() {
    let machine = Machine::new("broken_managed");
    machine.managed("hooks:\n  PreToolUse:\n    - type: matcher\n      acton: block\n");
    machine.project("hooks: {}\n");
    let denial = support::claude_denial(&machine.claude_bash("ls")).unwrap();
    assert!(
        denial.contains("managed hooks file does not load") && denial.contains("acton"),
        "{denial}"
    );
    let check = machine.check();
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("managed hooks file does not load"),
        "{check:?}"
    );
}

#[test]
fn a_managed_file_that_cannot_be_read_fails_closed() {
    let machine = Machine::new("unreadable_managed");
    machine.project("hooks: {}\n");
    std::fs::create_dir_all(&machine.managed).unwrap();
    std::os::unix::fs::symlink(
        "/nonexistent/policy.yaml",
        machine.managed.join("hooks.yaml"),
    )
    .unwrap();
    let denial = support::claude_denial(&machine.claude_bash("ls")).unwrap();
    assert!(denial.contains("cannot be read"), "{denial}");
}

#[test]
fn no_managed_directory_is_the_project_file_alone() {
    let machine = Machine::new("no_managed");
    machine.project(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"scp *\"}}\n      action: block\n",
    );
    assert_eq!(support::claude_denial(&machine.claude_bash("ls")), None);
    assert!(support::claude_denial(&machine.claude_bash("scp a b")).is_some());
    assert!(machine.check().status.success());
}

#[test]
fn the_managed_directory_is_write_protected() {
    let machine = Machine::new("managed_guarded");
    let managed = machine.managed("hooks: {}\n");
    let user = machine.user("hooks: {}\n");
    machine.project("modules:\n  safety: {}\n");
    // Beside the hooks files, whatever a file there is named: the folders are guarded.
    let beside_managed = machine.managed.join("team-notes.txt");
    let beside_user = machine.home.join(".config/hooks/notes.txt");
    for file in [&managed, &user, &beside_managed, &beside_user] {
        let write = machine.claude("Write", json!({"file_path": file, "content": "hooks: {}"}));
        let denial = support::claude_denial(&write).unwrap();
        assert!(denial.contains("[guard:guard-file]"), "{file:?}: {denial}");
        // Reading is no change (outside the project, confinement has its say).
        let read = machine.claude("Read", json!({"file_path": file}));
        let read = support::claude_denial(&read).unwrap_or_default();
        assert!(!read.contains("guard:guard-file"), "{file:?}: {read}");
    }
}

#[test]
fn doctor_shows_the_layers_and_what_a_lower_file_tried() {
    let machine = Machine::new("doctor");
    let managed = machine.managed("modules:\n  safety: {}\n");
    let init = machine.run(
        &[
            "init".as_ref(),
            "claude".as_ref(),
            "--dir".as_ref(),
            machine.project.as_os_str(),
        ],
        "",
    );
    assert!(init.status.success(), "{init:?}");
    machine.project("modules:\n  safety:\n    replace_defaults: [guard_files]\n");
    let doctor = machine.run(
        &[
            "doctor".as_ref(),
            "--json".as_ref(),
            "--dir".as_ref(),
            machine.project.as_os_str(),
        ],
        "",
    );
    let report = support::stdout_json(&doctor);
    let layers = &report["layers"][0]["layers"];
    let levels: Vec<&str> = layers
        .as_array()
        .unwrap()
        .iter()
        .map(|layer| layer["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["managed", "user", "project"], "{report:#}");
    assert_eq!(layers[0]["file"], managed.display().to_string());
    assert_eq!(layers[0]["loaded"], true);
    assert_eq!(layers[0]["rules"][0]["name"], "safety");
    assert_eq!(layers[1]["loaded"], false);
    let claude = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["agent"] == "claude")
        .unwrap();
    let warned = claude["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|finding| {
            finding["check"] == "layers"
                && finding["level"] == "warning"
                && finding["message"]
                    .as_str()
                    .unwrap()
                    .contains("cannot switch off the managed `safety` module")
        });
    assert!(warned, "{report:#}");
    let text = support::stdout(&machine.run(
        &[
            "doctor".as_ref(),
            "--dir".as_ref(),
            machine.project.as_os_str(),
        ],
        "",
    ));
    assert!(text.contains("policy layers of"), "{text}");
    assert!(
        text.contains(&format!("managed  {}", managed.display())),
        "{text}"
    );
}

/// The test harness's own check: the places the binary reads are the ones given here.
#[test]
fn the_layers_come_from_the_environment_given() {
    let machine = Machine::new("environment");
    machine.project("hooks: {}\n");
    let out = support::stdout(&machine.check());
    let user: &Path = &machine.home.join(".config/hooks/hooks.yaml");
    assert!(out.contains(&user.display().to_string()), "{out}");
    assert!(
        out.contains(&machine.managed.join("hooks.yaml").display().to_string()),
        "{out}"
    );
}
