//! The linter module: findings injected with a warning and output suppressed, clean files
//! quiet, a missing linter warned about once, a slow one stopped, config errors, and the suite.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hooks_core::{HookAction, MessageLevel};
use hooks_std::linter::{LinterConfig, LinterModule};
use hooks_testing::{MockTool, TestCoordinator, hook_behaviour_tests};
use serde_json::{Value, json};

/// A linter made of `sh`: it reports every line holding `TODO`.
const TODO_LINTER: &[&str] = &[
    "sh",
    "-c",
    "if grep -n TODO \"$1\"; then exit 1; fi",
    "lint",
    "{file}",
];

fn workspace(test: &str) -> PathBuf {
    hooks_testing::scratch_dir("linter", test)
}

fn linter(dir: &Path, extra: Value) -> LinterModule {
    let mut config = json!({
        "workspace": dir,
        "linters": {"txt": TODO_LINTER, "md": ["definitely-not-an-installed-linter", "{file}"], "slow": ["sh", "-c", "sleep 5"]},
        "timeout_ms": 300
    });
    config
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    LinterModule::new(serde_json::from_value::<LinterConfig>(config).unwrap()).unwrap()
}

fn written(file: &str) -> Value {
    json!({"tool_name": "write_file", "tool_input": {"file_path": file, "content": "..."}, "tool_result": {"success": true}})
}

#[tokio::test]
async fn findings_are_injected_with_a_warning_and_the_output_suppressed() {
    let dir = workspace("findings");
    std::fs::write(dir.join("notes.txt"), "first line\nTODO: finish\n").unwrap();
    std::fs::write(dir.join("clean.txt"), "all done\n").unwrap();
    let linter = linter(&dir, json!({}));

    let dirty = linter.lint(&written("notes.txt")).await;
    let clean = linter.lint(&written("clean.txt")).await;

    assert_eq!(dirty.action, HookAction::InjectContext);
    let text = dirty.context_injection.unwrap();
    assert!(
        text.contains("reported problems in notes.txt") && text.contains("2:TODO: finish"),
        "{text}"
    );
    assert_eq!(dirty.user_message_level, MessageLevel::Warning);
    assert!(dirty.suppress_output);
    assert_eq!(clean.action, HookAction::Continue);
    assert_eq!(clean.user_message, None);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_missing_linter_is_a_one_time_warning() {
    let dir = workspace("missing");
    let linter = linter(&dir, json!({}));

    let first = linter.lint(&written("README.md")).await;
    let second = linter.lint(&written("CHANGES.md")).await;

    assert_eq!(first.action, HookAction::Continue);
    assert!(first.user_message.unwrap().contains("is not installed"));
    assert_eq!(second.action, HookAction::Continue);
    assert_eq!(second.user_message, None, "said once");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_slow_linter_is_stopped_at_its_timeout() {
    let dir = workspace("slow");
    let linter = linter(&dir, json!({}));

    let started = Instant::now();
    let answer = linter.lint(&written("data.slow")).await;

    assert!(
        started.elapsed() < Duration::from_secs(4),
        "it did not wait for the linter"
    );
    assert_eq!(answer.action, HookAction::Continue);
    assert!(
        answer
            .user_message
            .unwrap()
            .contains("took longer than 300ms")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn only_successful_writes_of_configured_tools_and_extensions_are_linted() {
    let dir = workspace("scope");
    std::fs::write(dir.join("notes.txt"), "TODO\n").unwrap();
    let linter = linter(&dir, json!({}));
    let cases = [
        json!({"tool_name": "read_file", "tool_input": {"file_path": "notes.txt"}}),
        json!({"tool_name": "write_file", "tool_input": {"file_path": "notes.txt"}, "tool_result": {"success": false}}),
        json!({"tool_name": "write_file", "tool_input": {"file_path": "image.png"}}),
        json!({"tool_name": "write_file", "tool_input": {"file_path": 7}}),
        json!({"tool_name": "write_file"}),
        json!("garbage"),
    ];
    for case in cases {
        assert_eq!(
            linter.lint(&case).await.action,
            HookAction::Continue,
            "{case}"
        );
    }
    let edit = json!({"tool_name": "EDIT", "tool_input": {"path": "notes.txt"}});
    assert_eq!(
        linter.lint(&edit).await.action,
        HookAction::InjectContext,
        "any case, either field"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_path_that_looks_like_an_option_is_passed_as_a_path() {
    let dir = workspace("option");
    std::fs::write(dir.join("-n.txt"), "TODO\n").unwrap();
    let linter = linter(&dir, json!({}));

    let answer = linter.lint(&written("-n.txt")).await;

    assert_eq!(answer.action, HookAction::InjectContext, "{answer:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn in_a_session_the_agent_gets_the_findings_and_the_user_a_warning() {
    let dir = workspace("session");
    std::fs::write(dir.join("plan.txt"), "TODO: plan\n").unwrap();
    let mut test = TestCoordinator::new();
    test.mount(&linter(&dir, json!({}))).unwrap();
    let write = MockTool::new("write_file").returning(json!({"success": true}));

    let outcome = test
        .run_tool(&write, json!({"file_path": "plan.txt"}))
        .await;

    assert!(outcome.injections[0].text.contains("1:TODO: plan"));
    assert!(
        test.context()
            .messages()
            .iter()
            .any(|m| m.content.contains("TODO: plan"))
    );
    assert!(
        test.display()
            .shown()
            .iter()
            .any(|m| m.level == MessageLevel::Warning && m.suppress_output)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn config_errors_name_the_key() {
    let unknown = serde_json::from_value::<LinterConfig>(json!({"linter": {}})).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown field `linter`"),
        "{unknown}"
    );
    let empty: LinterConfig = serde_json::from_value(json!({"linters": {"py": []}})).unwrap();
    assert!(
        LinterModule::new(empty)
            .unwrap_err()
            .to_string()
            .contains("`linters.py`")
    );
    let zero: LinterConfig = serde_json::from_value(json!({"timeout_ms": 0})).unwrap();
    assert!(
        LinterModule::new(zero)
            .unwrap_err()
            .to_string()
            .contains("`timeout_ms`")
    );
    let defaults = LinterConfig::with_built_in_lists();
    assert_eq!(defaults.linters["py"], ["ruff", "check", "{file}"]);
    assert_eq!(defaults.linters["rs"], ["rustfmt", "--check", "{file}"]);
}

fn suite_linter() -> LinterModule {
    // The scripted session writes tests/parser.rs: lint .rs files with the `sh` linter, so the
    // suite needs no real linter installed.
    let dir = workspace("suite");
    let config = json!({"workspace": dir, "linters": {"rs": TODO_LINTER}, "timeout_ms": 2000});
    LinterModule::new(serde_json::from_value(config).unwrap()).unwrap()
}

// The linter spawns a process per lint: its stated budget allows for a loaded machine.
hook_behaviour_tests!(
    linter_behaviour,
    suite_linter(),
    budget = Duration::from_secs(5)
);

/// Whether `pid` still runs (a zombie does not).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit(')')
                .next()
                .map(|rest| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn a_hung_linter_is_killed_with_what_it_started() {
    let dir = workspace("hung");
    // The linter starts a helper in its group, notes its pid, and waits for it.
    let hung = ["sh", "-c", "sleep 30 & echo $! > helper.pid; wait"];
    let linter = linter(&dir, json!({"linters": {"txt": hung}}));

    let answer = linter.lint(&written("notes.txt")).await;

    assert!(answer.user_message.unwrap().contains("was stopped"));
    let helper: i32 = std::fs::read_to_string(dir.join("helper.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(helper) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(helper), "the helper outlived the linter");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_flood_of_findings_is_capped() {
    let dir = workspace("flood");
    // Three mebibytes of findings, and room to inject them all: only the cap stops them.
    let flood = ["sh", "-c", "head -c 3145728 /dev/zero | tr '\\0' x; exit 1"];
    let linter = linter(
        &dir,
        json!({"linters": {"txt": flood}, "max_output_bytes": 10_000_000, "timeout_ms": 10_000}),
    );

    let answer = linter.lint(&written("notes.txt")).await;

    assert_eq!(answer.action, HookAction::InjectContext);
    let text = answer.context_injection.unwrap();
    assert!(
        text.len() < hooks_std::process::OUTPUT_CAP + 1000,
        "{}",
        text.len()
    );
    assert!(
        text.ends_with("the rest was discarded]"),
        "{}",
        &text[text.len() - 100..]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn mounted_it_lints_a_tool_post_with_or_without_the_result_its_view_reads() {
    use hooks_core::HookRegistry;
    use hooks_core::module::HookModule;

    let dir = workspace("mounted");
    std::fs::write(dir.join("notes.txt"), "TODO: finish\n").unwrap();
    let registry = HookRegistry::new();
    let _mounted = linter(&dir, json!({})).mount(&registry).unwrap();

    let ours = registry.emit("tool:post", written("notes.txt")).await;
    // Claude Code's shape: the result is `tool_response`, so the `tool:post` view refuses it.
    let claude_shaped = json!({"tool_name": "write_file",
        "tool_input": {"file_path": "notes.txt"}, "tool_response": {"success": true}});
    let theirs = registry.emit("tool:post", claude_shaped).await;

    for outcome in [ours, theirs] {
        assert_eq!(outcome.action(), HookAction::InjectContext);
        assert!(
            outcome.injections[0]
                .text
                .contains("reported problems in notes.txt")
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
