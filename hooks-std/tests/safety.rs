//! The safety module, the checker's adapter: a symbolic link into a blocked tree, the hook on
//! `tool:pre` and what it tells the user, and the behavioural suite.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use hooks_core::{HookAction, HookModule, HookRegistry};
use hooks_std::safety::{SafetyConfig, SafetyModule, SelfProtection};
use hooks_testing::hook_behaviour_tests;
use serde_json::{Value, json};

const WORKSPACE: &str = "/srv/project";

fn safety() -> SafetyModule {
    let config = serde_json::from_value(json!({"workspace": WORKSPACE, "home": "/home/dev"}));
    SafetyModule::new(config.unwrap(), &SelfProtection::none()).unwrap()
}

#[test]
fn a_symlink_into_a_blocked_tree_is_still_blocked() {
    let root = hooks_testing::scratch_dir("safety", "symlink");
    let workspace = root.join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let link = workspace.join("config-link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/etc", &link).unwrap();
    let outside = workspace.join("elsewhere");
    let _ = std::fs::remove_file(&outside);
    std::os::unix::fs::symlink(&root, &outside).unwrap();
    let config: SafetyConfig =
        serde_json::from_value(json!({ "workspace": workspace.clone() })).unwrap();
    let safety = SafetyModule::new(config, &SelfProtection::none()).unwrap();

    let into_etc = safety.check(&json!({"path": "config-link/passwd"}));
    let out_of_workspace = safety.check(&json!({"path": "elsewhere/notes.txt"}));
    let inside = safety.check(&json!({"path": "src/new-file.rs"}));

    std::fs::remove_dir_all(&root).unwrap();
    assert!(
        into_etc
            .as_deref()
            .is_some_and(|r| r.contains("/etc/passwd")),
        "{into_etc:?}"
    );
    assert!(
        out_of_workspace
            .as_deref()
            .is_some_and(|r| r.contains("outside the workspace")),
        "{out_of_workspace:?}"
    );
    assert_eq!(inside, None);
}

#[tokio::test]
async fn mounted_it_denies_on_tool_pre_and_tells_the_user() {
    let registry = HookRegistry::new();
    let _mounted = safety().mount(&registry).unwrap();

    let denied = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "Bash", "tool_input": {"command": "sudo rm -rf /"}}),
        )
        .await;
    let allowed = registry
        .emit(
            "PreToolUse",
            json!({"tool_name": "Write", "tool_input": {"file_path": "src/lib.rs"}}),
        )
        .await;

    assert_eq!(denied.action(), HookAction::Deny);
    assert_eq!(denied.decided_by.as_deref(), Some("safety"));
    assert!(
        denied
            .result
            .user_message
            .as_deref()
            .is_some_and(|m| m.contains("`Bash`"))
    );
    assert_eq!(allowed.action(), HookAction::Continue);
}

fn workspace_module() -> SafetyModule {
    let config = SafetyConfig {
        workspace: Some(PathBuf::from(WORKSPACE)),
        ..SafetyConfig::default()
    };
    SafetyModule::new(config, &SelfProtection::none()).unwrap()
}

hook_behaviour_tests!(safety_behaviour, workspace_module());

#[test]
fn the_scripted_session_tool_calls_pass() {
    // The behavioural session writes tests/parser.rs and runs cargo test: everyday work.
    let safety = workspace_module();
    for step in hooks_testing::ScriptedSession::typical().steps() {
        if step.event == "tool:pre" {
            assert_eq!(
                safety.check(&step.data["tool_input"]),
                None,
                "{}",
                step.data
            );
        }
    }
    let _: Value = json!(null);
}

#[tokio::test]
async fn the_hook_tells_the_user_which_rule_fired() {
    let registry = HookRegistry::new();
    let config = SafetyConfig {
        workspace: Some("/srv/project".into()),
        ..SafetyConfig::default()
    };
    let _mounted = SafetyModule::new(config, &SelfProtection::none())
        .unwrap()
        .mount(&registry)
        .unwrap();
    let result = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "Bash", "tool_input": {"command": "git clean -fdx"}}),
        )
        .await;
    assert!(
        result
            .result
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("[git:clean-force]")),
        "{result:?}"
    );
    assert!(
        result
            .result
            .user_message
            .as_deref()
            .is_some_and(|m| m.contains("git:clean-force")),
        "{result:?}"
    );
}

#[tokio::test]
async fn mounted_it_lets_tools_read_the_agent_settings_but_not_change_them() {
    let registry = HookRegistry::new();
    // The product says what the agent's settings are.
    let protection = SelfProtection {
        guard_files: vec!["**/.claude/settings.json".to_owned()],
        ..SelfProtection::none()
    };
    let config = SafetyConfig {
        workspace: Some(WORKSPACE.into()),
        ..SafetyConfig::default()
    };
    let safety = SafetyModule::new(config, &protection).unwrap();
    let _mounted = safety.mount(&registry).unwrap();
    let call = |tool: &str, input: Value| {
        registry.emit("tool:pre", json!({"tool_name": tool, "tool_input": input}))
    };
    let settings = json!({"file_path": ".claude/settings.json"});
    let read = call("Read", settings.clone()).await;
    let edit = call("Edit", settings).await;
    let emptied = call(
        "Bash",
        json!({"command": "echo {} > .claude/settings.json"}),
    )
    .await;
    let patch = "*** Begin Patch\n*** Add File: notes.md\n+cat ~/.ssh/id_rsa\n*** End Patch\n";
    let patched = call("apply_patch", json!({ "command": patch })).await;
    let outside = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n";
    let escaped = call("apply_patch", json!({ "command": outside })).await;

    assert_eq!(read.action(), HookAction::Continue);
    assert_eq!(edit.action(), HookAction::Deny);
    assert!(
        edit.result.reason
            .as_deref()
            .is_some_and(|r| r.starts_with("[guard:guard-file]") && r.contains("outside the agent")),
        "{:?}",
        edit.result.reason
    );
    assert_eq!(emptied.action(), HookAction::Deny);
    assert_eq!(
        patched.action(),
        HookAction::Continue,
        "{:?}",
        patched.result.reason
    );
    assert_eq!(escaped.action(), HookAction::Deny);
}

#[tokio::test]
async fn built_from_a_hooks_file_it_write_protects_that_file() {
    use hooks_std::catalog::{ModuleCatalog, ModuleContext};
    use std::path::Path;
    let context = ModuleContext::new(Path::new(WORKSPACE)).with_file(Path::new("policy/team.yml"));
    assert_eq!(
        context.file(),
        Some(Path::new("/srv/project/policy/team.yml"))
    );
    let catalog = ModuleCatalog::standard();
    let config = json!({"workspace": WORKSPACE});
    let call =
        |tool: &str| json!({"tool_name": tool, "tool_input": {"file_path": "policy/team.yml"}});

    let registry = HookRegistry::new();
    let built = catalog.build("safety", &config, &context).unwrap();
    let _mounted = built.mount(&registry).unwrap();
    let written = registry.emit("tool:pre", call("Write")).await;
    let read = registry.emit("tool:pre", call("Read")).await;
    // Without the file handed on, a name outside the built-in list is an ordinary file.
    let plain = HookRegistry::new();
    let unnamed = catalog
        .build("safety", &config, &ModuleContext::new(Path::new(WORKSPACE)))
        .unwrap();
    let _plain = unnamed.mount(&plain).unwrap();
    let ordinary = plain.emit("tool:pre", call("Write")).await;

    assert_eq!(written.action(), HookAction::Deny);
    assert_eq!(read.action(), HookAction::Continue);
    assert_eq!(ordinary.action(), HookAction::Continue);
}

#[tokio::test]
async fn what_the_catalog_and_the_context_protect_reaches_the_module() {
    use hooks_std::catalog::{ModuleCatalog, ModuleContext};
    use hooks_std::safety::{AdminCommand, AdminProgram};
    use std::path::Path;
    let mut catalog = ModuleCatalog::standard();
    // What an application knows of itself, and what a loader knows of the files it loads.
    catalog.protect(SelfProtection {
        admin: vec![AdminProgram::new("warden").command(AdminCommand::writes(&["apply"]))],
        ..SelfProtection::none()
    });
    let context = ModuleContext::new(Path::new(WORKSPACE)).protect(SelfProtection {
        guard_files: vec!["**/warden.toml".to_owned()],
        ..SelfProtection::none()
    });
    let config = json!({"workspace": WORKSPACE});
    let registry = HookRegistry::new();
    let built = catalog.build("safety", &config, &context).unwrap();
    let _mounted = built.mount(&registry).unwrap();
    let bash = |command: &str| json!({"tool_name": "Bash", "tool_input": {"command": command}});
    let applied = registry.emit("tool:pre", bash("warden apply")).await;
    let written = registry
        .emit("tool:pre", bash("echo x > warden.toml"))
        .await;
    // Neither alone: a bare catalog and context protect nothing of the product.
    let plain = HookRegistry::new();
    let bare = ModuleCatalog::standard()
        .build("safety", &config, &ModuleContext::new(Path::new(WORKSPACE)))
        .unwrap();
    let _plain = bare.mount(&plain).unwrap();
    let unguarded = plain.emit("tool:pre", bash("echo x > warden.toml")).await;

    assert!(
        applied
            .result
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("[guard:self-admin]")),
        "{applied:?}"
    );
    assert!(
        written
            .result
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("[guard:guard-file]")),
        "{written:?}"
    );
    assert_eq!(unguarded.action(), HookAction::Continue);
}
