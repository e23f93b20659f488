//! `hooks doctor`: a project set up by `hooks init` passes; each way of setting it up wrong is
//! a ✗ and exit status 1.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

/// A project, a home of its own, and a PATH with a fake Claude Code of a version that takes
/// `onFailure`.
struct Setup {
    project: PathBuf,
    home: PathBuf,
    path: OsString,
}

impl Setup {
    fn new(test: &str) -> Self {
        let project = hooks_testing::scratch_dir("doctor", test);
        let home = hooks_testing::scratch_dir("doctor", &format!("{test}_home"));
        let bin = hooks_testing::scratch_dir("doctor", &format!("{test}_bin"));
        let claude = bin.join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho '2.1.331 (Claude Code)'\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = OsString::from(format!("{}:/usr/bin:/bin", bin.display()));
        Setup {
            project,
            home,
            path,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut all: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        all.extend(["--dir".as_ref(), self.project.as_os_str()]);
        support::run_with_env(
            None,
            &all,
            "",
            &[
                ("PATH", &self.path),
                ("HOME", self.home.as_os_str()),
                // Gemini CLI's trust comes from the home directory alone.
                ("GEMINI_CLI_TRUST_WORKSPACE", "".as_ref()),
            ],
        )
    }

    /// `hooks init claude` here.
    fn init_claude(self) -> Self {
        let output = self.run(&["init", "claude"]);
        assert!(output.status.success(), "{output:?}");
        self
    }

    /// `hooks doctor --json`: its exit code and the Claude Code findings, as
    /// `(check, level, message)`.
    fn doctor(&self) -> (Option<i32>, Vec<(String, String, String)>) {
        let output = self.run(&["doctor", "--json"]);
        let report: Value = support::stdout_json(&output);
        let claude = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|agent| agent["agent"] == "claude")
            .unwrap();
        let findings = claude["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|finding| {
                let text = |key: &str| finding[key].as_str().unwrap().to_owned();
                (text("check"), text("level"), text("message"))
            })
            .collect();
        assert_eq!(
            report["ok"] == true,
            output.status.success(),
            "`ok` and the exit status agree"
        );
        (output.status.code(), findings)
    }

    fn settings(&self) -> PathBuf {
        self.project.join(".claude/settings.json")
    }

    /// Changes the project's Claude Code settings.
    fn edit(&self, change: impl FnOnce(&mut Value)) {
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(self.settings()).unwrap()).unwrap();
        change(&mut settings);
        std::fs::write(self.settings(), settings.to_string()).unwrap();
    }
}

/// The finding of `check` at `level`, with its message.
fn found<'a>(
    findings: &'a [(String, String, String)],
    check: &str,
    level: &str,
) -> Option<&'a str> {
    findings
        .iter()
        .find(|(c, l, _)| c == check && l == level)
        .map(|(_, _, message)| message.as_str())
}

/// Every command hook of ours in the settings.
fn our_hooks(settings: &mut Value) -> Vec<&mut Value> {
    settings["hooks"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .flat_map(|groups| groups.as_array_mut().unwrap())
        .flat_map(|group| group["hooks"].as_array_mut().unwrap())
        .collect()
}

#[test]
fn a_project_set_up_by_init_passes_every_check() {
    let setup = Setup::new("right").init_claude();
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(0), "{findings:#?}");
    for check in ["events", "fail_closed", "binary", "hooks_file"] {
        assert!(
            found(&findings, check, "ok").is_some(),
            "{check}: {findings:#?}"
        );
    }
    assert!(
        !findings.iter().any(|(_, level, _)| level == "problem"),
        "{findings:#?}"
    );
    let human = setup.run(&["doctor"]);
    let text = support::stdout(&human);
    assert!(text.contains("Claude Code: installed"), "{text}");
    assert!(text.contains("✓"), "{text}");
    assert!(!text.contains("✗"), "{text}");
    assert!(
        text.contains("Gemini CLI: not installed, not configured"),
        "{text}"
    );
}

#[test]
fn a_missing_binary_path_is_a_problem() {
    let setup = Setup::new("missing_binary").init_claude();
    setup.edit(|settings| {
        for hook in our_hooks(settings) {
            let command = hook["command"].as_str().unwrap().to_owned();
            let rest = command.split_once(' ').unwrap().1;
            hook["command"] = Value::from(format!("/nowhere/bin/hooks {rest}"));
        }
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let message = found(&findings, "binary", "problem").unwrap();
    assert!(
        message.contains("/nowhere/bin/hooks does not exist"),
        "{message}"
    );
}

#[test]
fn a_bare_hooks_on_the_path_is_a_problem() {
    let setup = Setup::new("bare").init_claude();
    setup.edit(|settings| {
        for hook in our_hooks(settings) {
            let command = hook["command"].as_str().unwrap().to_owned();
            let rest = command.split_once(' ').unwrap().1;
            hook["command"] = Value::from(format!("hooks {rest}"));
        }
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let message = found(&findings, "binary", "problem").unwrap();
    assert!(message.contains("looked up on the PATH"), "{message}");
}

#[test]
fn no_on_failure_or_a_wrong_one_is_a_problem() {
    let setup = Setup::new("on_failure").init_claude();
    setup.edit(|settings| {
        for hook in our_hooks(settings) {
            hook.as_object_mut().unwrap().remove("onFailure");
        }
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let message = found(&findings, "fail_closed", "problem").unwrap();
    assert!(message.contains("fails open"), "{message}");

    setup.edit(|settings| {
        for hook in our_hooks(settings) {
            hook["onFailure"] = Value::from("blok");
        }
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let message = found(&findings, "fail_closed", "problem").unwrap();
    assert!(
        message.contains("skip the whole settings file"),
        "{message}"
    );
}

#[test]
fn a_broken_hooks_file_is_a_problem() {
    let setup = Setup::new("broken_yaml").init_claude();
    std::fs::write(setup.project.join("hooks.yaml"), "hooks: [\n").unwrap();
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let message = found(&findings, "hooks_file", "problem").unwrap();
    assert!(message.contains("does not load"), "{message}");
}

#[test]
fn the_guard_on_the_wrong_event_is_a_problem() {
    let setup = Setup::new("wrong_event").init_claude();
    setup.edit(|settings| {
        let hooks = settings["hooks"].as_object_mut().unwrap();
        let pre = hooks.remove("PreToolUse").unwrap();
        hooks.remove("UserPromptSubmit");
        hooks.insert("PreToolUsed".to_owned(), pre);
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let missing = found(&findings, "events", "problem").unwrap();
    assert!(
        missing.contains("does not run the guard on PreToolUse, UserPromptSubmit"),
        "{findings:#?}"
    );
    assert!(
        findings
            .iter()
            .any(|(_, _, message)| message.contains("PreToolUsed, which Claude Code does not have")),
        "{findings:#?}"
    );
}

#[test]
fn hooks_switched_off_are_a_problem_and_another_hook_is_listed() {
    let setup = Setup::new("overrides").init_claude();
    setup.edit(|settings| {
        settings["hooks"]["PreToolUse"]
            .as_array_mut()
            .unwrap()
            .insert(
                0,
                serde_json::json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "./approve-all.sh"}]}),
            );
    });
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(0), "another hook is a warning: {findings:#?}");
    let listed = found(&findings, "overrides", "warning").unwrap();
    assert!(listed.contains("./approve-all.sh"), "{listed}");

    std::fs::write(
        setup.project.join(".claude/settings.local.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(1));
    let off = found(&findings, "overrides", "problem").unwrap();
    assert!(off.contains("disableAllHooks"), "{off}");
}

#[test]
fn an_agent_that_is_not_set_up_is_no_problem() {
    let setup = Setup::new("empty");
    let (code, findings) = setup.doctor();
    assert_eq!(code, Some(0));
    assert!(findings.is_empty(), "{findings:#?}");
}

/// The findings of agent `name` in a `hooks doctor --json` report.
fn findings_of(report: &Value, name: &str) -> Vec<(String, String)> {
    report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["agent"] == name)
        .unwrap()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["check"].as_str().unwrap().to_owned(),
                finding["level"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn cursor_fails_closed_gemini_fails_open_and_an_untrusted_folder_is_a_problem() {
    let setup = Setup::new("cursor_gemini");
    for agent in ["cursor", "gemini"] {
        let output = setup.run(&["init", agent]);
        assert!(output.status.success(), "{output:?}");
    }
    std::fs::create_dir_all(setup.home.join(".gemini")).unwrap();
    std::fs::write(setup.home.join(".gemini/trustedFolders.json"), "{}").unwrap();
    let output = setup.run(&["doctor", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = support::stdout_json(&output);

    let cursor = findings_of(&report, "cursor");
    for check in ["events", "fail_closed", "binary", "hooks_file"] {
        assert!(
            cursor.contains(&(check.to_owned(), "ok".to_owned())),
            "{check}: {cursor:?}"
        );
    }
    assert!(
        !cursor.iter().any(|(_, level)| level == "problem"),
        "{cursor:?}"
    );

    let gemini = findings_of(&report, "gemini");
    assert!(
        gemini.contains(&("fail_closed".to_owned(), "warning".to_owned())),
        "{gemini:?}"
    );
    assert!(
        gemini.contains(&("trust".to_owned(), "problem".to_owned())),
        "{gemini:?}"
    );
}

/// A free port on loopback, as an address.
#[cfg(feature = "serve")]
fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

#[cfg(feature = "serve")]
impl Setup {
    /// Runs `hooks` with `args` here, and `HOOKS_SERVE_TOKEN` set to `token` (else empty).
    fn run_with_token(&self, args: &[&str], token: Option<&str>) -> Output {
        support::run_with_env(
            None,
            args,
            "",
            &[
                ("PATH", &self.path),
                ("HOME", self.home.as_os_str()),
                ("XDG_STATE_HOME", "".as_ref()),
                ("HOOKS_SERVE_TOKEN", token.unwrap_or_default().as_ref()),
            ],
        )
    }

    /// `hooks doctor --json` with the token in the environment: the findings of Claude Code
    /// and the report's `server`.
    fn doctor_with_token(&self, token: Option<&str>) -> (Vec<(String, String, String)>, Value) {
        let dir = self.project.display().to_string();
        let output = self.run_with_token(&["doctor", "--json", "--dir", &dir], token);
        let report = support::stdout_json(&output);
        let claude = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|agent| agent["agent"] == "claude")
            .unwrap();
        let findings = claude["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|finding| {
                let text = |key: &str| finding[key].as_str().unwrap().to_owned();
                (text("check"), text("level"), text("message"))
            })
            .collect();
        (findings, report["server"].clone())
    }
}

#[cfg(feature = "serve")]
#[test]
fn doctor_reports_the_server_a_serve_project_asks() {
    let setup = Setup::new("serve");
    let address = free_address();
    let dir = setup.project.display().to_string();
    let output = setup.run(&["init", "claude", "--serve", "--listen", &address]);
    assert!(output.status.success(), "{output:?}");

    // Not running: the SessionStart hook would start it, so a warning; the wiring itself is
    // checked as the command entries are.
    let (findings, server) = setup.doctor_with_token(None);
    let down = found(&findings, "serve", "warning").unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(
        down.contains(&address) && down.contains("SessionStart"),
        "{down}"
    );
    for check in ["events", "fail_closed", "hooks_file"] {
        assert!(
            found(&findings, check, "ok").is_some(),
            "{check}: {findings:#?}"
        );
    }
    assert!(
        !findings.iter().any(|(_, level, _)| level == "problem"),
        "{findings:#?}"
    );
    assert_eq!(server["address"], address.as_str(), "{server}");
    assert_eq!(server["running"], false, "{server}");
    assert_eq!(server["token_file_exists"], false, "{server}");
    assert_eq!(
        server["wired"][0],
        setup.settings().canonicalize().unwrap().to_str().unwrap(),
        "{server}"
    );

    // Running, with its token file, and the token in the environment.
    let token_file = setup.home.join(".local/state/hooks/serve-token");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["serve", "--listen", &address, "--token-file"])
        .arg(&token_file)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !token_file.exists() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let token = std::fs::read_to_string(&token_file).unwrap();
    let (findings, server) = setup.doctor_with_token(Some(token.trim()));
    let text = setup.run_with_token(&["doctor", "--dir", &dir], Some("not-the-token"));
    let _ = child.kill();
    let _ = child.wait();
    let up = found(&findings, "serve", "ok").unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(up.contains(&address), "{up}");
    assert_eq!(server["running"], true, "{server}");
    assert_eq!(server["token_file_exists"], true, "{server}");
    assert_eq!(server["token_file_private"], true, "{server}");
    assert_eq!(server["token_env"], "matches", "{server}");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("hooks serve: running on {address}")),
        "{text}"
    );
    assert!(text.contains("holds another token"), "{text}");

    // Nothing starts it: a problem.
    setup.edit(|settings| {
        settings["hooks"]
            .as_object_mut()
            .unwrap()
            .remove("SessionStart");
    });
    let (findings, _) = setup.doctor_with_token(None);
    let never = found(&findings, "serve", "problem").unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(never.contains("every call is blocked"), "{never}");
}

#[cfg(feature = "serve")]
#[test]
fn doctor_says_when_no_settings_ask_the_server() {
    let setup = Setup::new("serve-none").init_claude();
    let (_, server) = setup.doctor_with_token(None);
    assert_eq!(server["address"], "127.0.0.1:8787", "{server}");
    assert_eq!(server["wired"], serde_json::json!([]), "{server}");
    let dir = setup.project.display().to_string();
    let text = setup.run_with_token(&["doctor", "--dir", &dir], None);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("no settings here use the `hooks init --serve` wiring"),
        "{text}"
    );
}
