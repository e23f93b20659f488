//! Lists in the standard modules' configurations extend the built-in ones: a configured list
//! never drops a built-in entry unless `replace_defaults` names it, and then it really does.

#![allow(clippy::unwrap_used)]

use hooks_core::{HookAction, HookModule, HookRegistry};
use hooks_std::linter::{LinterConfig, LinterModule};
use hooks_std::logging::{LoggingConfig, LoggingModule};
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use hooks_std::reminder::{ReminderConfig, ReminderModule};
use hooks_std::safety::{SafetyConfig, SafetyModule, SelfProtection};
use serde_json::{Value, json};

const WORKSPACE: &str = "/srv/project";

fn module(config: Value) -> SafetyModule {
    let mut full = json!({"workspace": WORKSPACE, "home": "/home/dev"});
    full.as_object_mut()
        .unwrap()
        .extend(config.as_object().unwrap().clone());
    SafetyModule::new(
        serde_json::from_value(full).unwrap(),
        &SelfProtection::none(),
    )
    .unwrap()
}

fn write(safety: &SafetyModule, path: &str) -> Option<String> {
    safety.check(&json!({"file_path": path, "content": "x"}))
}

#[test]
fn a_protected_file_given_is_protected_besides_the_built_in_secrets() {
    let safety = module(json!({"protected_files": ["**/secrets.toml"]}));
    for secret in [
        "config/secrets.toml",
        ".env",
        "deploy/.env.production",
        "/home/dev/.ssh/id_ed25519",
        "certs/server.key",
    ] {
        assert!(
            write(&safety, secret).is_some_and(|d| d.starts_with("[secrets:")),
            "{secret} is not protected"
        );
    }
    assert_eq!(write(&safety, ".env.example"), None);
    assert_eq!(write(&safety, "src/main.rs"), None);
}

#[test]
fn replace_defaults_really_replaces_the_lists_it_names_and_only_those() {
    let safety = module(json!({
        "protected_files": ["**/secrets.toml"],
        "replace_defaults": ["protected_files"]
    }));
    assert!(write(&safety, "config/secrets.toml").is_some());
    assert_eq!(write(&safety, ".env"), None);
    assert_eq!(write(&safety, "certs/server.key"), None);
    // The other lists keep their built-in entries.
    assert!(write(&safety, "/etc/passwd").is_some());
    assert!(
        safety
            .check(&json!({"cmd": "git reset --hard"}))
            .is_some_and(|d| d.starts_with("[git:reset-hard]"))
    );

    // An emptied list of exceptions: the example files and public keys are protected too.
    let strict = module(json!({"allowed_files": [], "replace_defaults": ["allowed_files"]}));
    assert!(write(&strict, ".env.example").is_some_and(|d| d.starts_with("[secrets:")));
    assert!(write(&strict, "keys/id_rsa.pub").is_some_and(|d| d.starts_with("[secrets:")));
}

#[test]
fn an_exception_given_is_added_to_the_built_in_ones() {
    let safety = module(json!({"allowed_files": ["**/.env.test"]}));
    assert_eq!(write(&safety, ".env.test"), None);
    assert_eq!(write(&safety, ".env.example"), None);
    assert_eq!(write(&safety, "keys/id_rsa.pub"), None);
    assert!(write(&safety, ".env").is_some());
}

#[test]
fn fields_and_blocked_paths_given_are_read_besides_the_built_in_ones() {
    let safety = module(json!({
        "command_fields": ["shell_line"],
        "path_fields": ["dest"],
        "blocked_paths": ["/opt/vault/**"],
        "confine_to_workspace": false
    }));
    for input in [
        json!({"command": "rm -rf /"}),
        json!({"shell_line": "rm -rf /"}),
        json!({"file_path": "/etc/hosts"}),
        json!({"dest": "/etc/hosts"}),
        json!({"path": "/opt/vault/token"}),
    ] {
        assert!(safety.check(&input).is_some(), "{input} is let through");
    }
    assert_eq!(safety.check(&json!({"path": "/opt/other/file"})), None);
}

#[test]
fn the_lists_written_out_make_the_same_module_as_the_defaults() {
    let mut written_out = SafetyConfig::with_built_in_lists(&SelfProtection::none());
    written_out.workspace = Some(WORKSPACE.into());
    written_out.home = Some("/home/dev".into());
    let written_out = SafetyModule::new(written_out, &SelfProtection::none()).unwrap();
    let defaults = module(json!({}));
    for input in [
        json!({"command": "rm -rf /"}),
        json!({"cmd": "git push --force"}),
        json!({"script": "cat ~/.aws/credentials"}),
        json!({"file_path": ".env"}),
        json!({"notebook_path": "/etc/shadow"}),
        json!({"path": "/home/dev/.ssh/id_rsa.pub"}),
        json!({"target": "/usr/lib/x"}),
        json!({"destination": "src/lib.rs"}),
    ] {
        assert_eq!(defaults.check(&input), written_out.check(&input), "{input}");
    }
    assert!(defaults.check(&json!({"file_path": ".env"})).is_some());
}

#[test]
fn replace_defaults_names_only_lists_with_built_in_entries() {
    let config: SafetyConfig =
        serde_json::from_value(json!({"replace_defaults": ["protected_file"]})).unwrap();
    let error = SafetyModule::new(config, &SelfProtection::none())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`replace_defaults`: `protected_file` is not a list")
            && error.contains("`protected_files`")
            && error.contains("`packs`"),
        "{error}"
    );
    // A key the module does not know is still an error naming it.
    let unknown = serde_json::from_value::<SafetyConfig>(json!({"extra_protected_files": []}))
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("unknown field `extra_protected_files`"),
        "{unknown}"
    );
    for (module, error) in [
        (
            "redaction",
            RedactionModule::new(RedactionConfig {
                replace_defaults: vec!["patterns".into()],
                ..RedactionConfig::default()
            })
            .err()
            .map(|e| e.to_string()),
        ),
        (
            "linter",
            LinterModule::new(LinterConfig {
                replace_defaults: vec!["timeout_ms".into()],
                ..LinterConfig::default()
            })
            .err()
            .map(|e| e.to_string()),
        ),
        (
            "logging",
            LoggingModule::new(LoggingConfig {
                replace_defaults: vec!["events".into()],
                redact: false,
                ..LoggingConfig::default()
            })
            .err()
            .map(|e| e.to_string()),
        ),
        (
            "reminder",
            ReminderModule::new(ReminderConfig {
                replace_defaults: vec!["items".into()],
                ..ReminderConfig::default()
            })
            .err()
            .map(|e| e.to_string()),
        ),
    ] {
        let error = error.unwrap_or_else(|| panic!("{module} accepts a list it has not"));
        assert!(error.contains("`replace_defaults`"), "{module}: {error}");
    }
}

#[test]
fn a_secret_key_given_is_redacted_besides_the_built_in_ones() {
    let data = json!({"tool_result": {
        "password": "hunter2",
        "api_key": "k-123",
        "session_cookie": "c-456",
        "user": "ada"
    }});
    let config: RedactionConfig =
        serde_json::from_value(json!({"secret_keys": ["session_cookie"]})).unwrap();
    let (clean, count) = RedactionModule::new(config).unwrap().redact(&data).unwrap();
    assert_eq!(
        clean["tool_result"],
        json!({"password": "[REDACTED]", "api_key": "[REDACTED]", "session_cookie": "[REDACTED]", "user": "ada"})
    );
    assert_eq!(count, 3);

    let config: RedactionConfig = serde_json::from_value(
        json!({"secret_keys": ["session_cookie"], "replace_defaults": ["secret_keys"]}),
    )
    .unwrap();
    let (clean, count) = RedactionModule::new(config).unwrap().redact(&data).unwrap();
    assert_eq!(
        clean["tool_result"],
        json!({"password": "hunter2", "api_key": "k-123", "session_cookie": "[REDACTED]", "user": "ada"})
    );
    assert_eq!(count, 1);
}

fn mounted_events(module: &dyn HookModule) -> Vec<String> {
    let registry = HookRegistry::new();
    let _mounted = module.mount(&registry).unwrap();
    registry.list_handlers(None).into_keys().collect()
}

#[test]
fn events_given_are_added_to_the_built_in_ones() {
    let redaction = RedactionModule::new(RedactionConfig {
        events: vec!["tool:pre".into()],
        ..RedactionConfig::default()
    })
    .unwrap();
    assert_eq!(
        mounted_events(&redaction),
        ["prompt:submit", "provider:request", "tool:post", "tool:pre"]
    );
    let only = RedactionModule::new(RedactionConfig {
        events: vec!["tool:pre".into()],
        replace_defaults: vec!["events".into()],
        ..RedactionConfig::default()
    })
    .unwrap();
    assert_eq!(mounted_events(&only), ["tool:pre"]);

    let reminder = ReminderModule::new(ReminderConfig {
        events: vec!["prompt:submit".into()],
        ..ReminderConfig::default()
    })
    .unwrap();
    assert_eq!(
        mounted_events(&reminder),
        ["prompt:submit", "provider:request"]
    );
}

#[tokio::test]
async fn the_logs_secret_keys_can_replace_the_built_in_ones() {
    let dir = hooks_testing::scratch_dir("built-in-lists", "logging");
    let data = json!({"password": "hunter2", "session_cookie": "c-456"});
    for (replace, password) in [(false, "[REDACTED]"), (true, "hunter2")] {
        let path = dir.join(format!("events-{replace}.jsonl"));
        let logging = LoggingModule::new(LoggingConfig {
            path: path.clone(),
            secret_keys: vec!["session_cookie".into()],
            replace_defaults: if replace {
                vec!["secret_keys".into()]
            } else {
                Vec::new()
            },
            ..LoggingConfig::default()
        })
        .unwrap();
        let registry = HookRegistry::new();
        let _mounted = logging.mount(&registry).unwrap();
        registry.emit("app:login", data.clone()).await;
        let line: Value =
            serde_json::from_str(std::fs::read_to_string(&path).unwrap().trim()).unwrap();
        assert_eq!(line["data"]["password"], password, "replace: {replace}");
        assert_eq!(line["data"]["session_cookie"], "[REDACTED]");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A linter made of `sh`: it reports every line holding `TODO`.
const TODO_LINTER: &[&str] = &[
    "sh",
    "-c",
    "if grep -n TODO \"$1\"; then exit 1; fi",
    "lint",
    "{file}",
];

fn written(tool: &str, file: &str) -> Value {
    json!({"tool_name": tool, "tool_input": {"file_path": file}, "tool_result": {"success": true}})
}

#[tokio::test]
async fn linters_and_tools_given_are_added_to_the_built_in_ones() {
    let dir = hooks_testing::scratch_dir("built-in-lists", "linter");
    std::fs::write(dir.join("notes.txt"), "TODO: finish\n").unwrap();
    std::fs::write(dir.join("tool.py"), "import os\n").unwrap();
    let linter = |extra: Value| {
        let mut config =
            json!({"workspace": dir, "linters": {"txt": TODO_LINTER}, "tools": ["save_file"]});
        config
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        LinterModule::new(serde_json::from_value(config).unwrap()).unwrap()
    };

    let extended = linter(json!({}));
    for tool in ["save_file", "Write", "edit_file"] {
        let result = extended.lint(&written(tool, "notes.txt")).await;
        assert_eq!(result.action, HookAction::InjectContext, "{tool}");
    }
    // The built-in `py` linter is still there: it reports the unused import, or that `ruff`
    // is not installed; either way it speaks.
    let python = extended.lint(&written("Write", "tool.py")).await;
    assert!(python.user_message.is_some(), "{python:?}");

    let replaced = linter(json!({"replace_defaults": ["tools", "linters"]}));
    let own_tool = replaced.lint(&written("save_file", "notes.txt")).await;
    assert_eq!(own_tool.action, HookAction::InjectContext);
    let built_in_tool = replaced.lint(&written("Write", "notes.txt")).await;
    assert_eq!(built_in_tool.action, HookAction::Continue);
    let python = replaced.lint(&written("save_file", "tool.py")).await;
    assert_eq!(python.user_message, None);
    std::fs::remove_dir_all(dir).unwrap();
}
