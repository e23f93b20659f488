//! Policy layers: the managed, user and project hooks files on one registry, and what a lower
//! file cannot do to a managed rule.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use hooks_config::{LayerPaths, LayersError, Level, ModuleCatalog, PolicyStack};
use hooks_core::{HookAction, HookModule, HookRegistry};
use serde_json::{Value, json};

/// A project directory and a managed and a user directory beside it, none with a file yet.
struct Machine {
    project: PathBuf,
    managed: PathBuf,
    user: PathBuf,
}

impl Machine {
    fn new(test: &str) -> Self {
        let root = support::scratch("layers", test);
        let machine = Machine {
            project: root.join("project"),
            managed: root.join("etc-hooks"),
            user: root.join("config-hooks"),
        };
        std::fs::create_dir_all(&machine.project).unwrap();
        machine
    }

    fn paths(&self) -> LayerPaths {
        LayerPaths {
            managed: Some(self.managed.join("hooks.yaml")),
            user: Some(self.user.join("hooks.yaml")),
        }
    }

    fn write(dir: &Path, yaml: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let file = dir.join("hooks.yaml");
        std::fs::write(&file, yaml).unwrap();
        file
    }

    fn managed(&self, yaml: &str) -> PathBuf {
        Self::write(&self.managed, yaml)
    }

    fn user(&self, yaml: &str) -> PathBuf {
        Self::write(&self.user, yaml)
    }

    fn project(&self, yaml: &str) -> PathBuf {
        Self::write(&self.project, yaml)
    }

    fn load(&self) -> Result<PolicyStack, LayersError> {
        PolicyStack::load(
            &self.paths(),
            &self.project.join("hooks.yaml"),
            &ModuleCatalog::standard(),
        )
    }
}

/// What the stack decides on `data` for `tool:pre`.
async fn decide(stack: &PolicyStack, data: Value) -> (HookAction, String) {
    let registry = HookRegistry::new();
    let _mounted = stack.mount(&registry).unwrap();
    let outcome = registry.emit("tool:pre", data).await;
    (
        outcome.action(),
        outcome.result.reason.clone().unwrap_or_default(),
    )
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "session_id": "s"})
}

const MANAGED_NO_CURL: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no-curl
      match: {tool: Bash, args: {command: "curl *"}}
      action: block
      message: "managed: no curl"
"#;

#[tokio::test]
async fn every_layer_applies_on_one_registry() {
    let machine = Machine::new("every_layer");
    machine.managed(MANAGED_NO_CURL);
    machine.user(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"wget *\"}}\n      action: block\n      message: \"user: no wget\"\n",
    );
    machine.project(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"scp *\"}}\n      action: block\n      message: \"project: no scp\"\n",
    );
    let stack = machine.load().unwrap();
    let levels: Vec<Level> = stack.layers().iter().map(|layer| layer.level).collect();
    assert_eq!(levels, [Level::Managed, Level::User, Level::Project]);
    assert!(stack.warnings().is_empty(), "{:?}", stack.warnings());
    for (command, reason) in [
        ("curl x", "managed: no curl"),
        ("wget x", "user: no wget"),
        ("scp x", "project: no scp"),
    ] {
        assert_eq!(
            decide(&stack, bash(command)).await,
            (HookAction::Deny, reason.to_owned())
        );
    }
    assert_eq!(decide(&stack, bash("ls")).await.0, HookAction::Continue);
    // Every rule says where it comes from.
    let origins: Vec<(Level, String)> = stack
        .origins()
        .iter()
        .map(|origin| (origin.level, origin.kind.to_owned()))
        .collect();
    assert_eq!(
        origins,
        [
            (Level::Managed, "matcher".to_owned()),
            (Level::User, "matcher".to_owned()),
            (Level::Project, "matcher".to_owned()),
        ]
    );
    assert_eq!(stack.origins()[0].name, "no-curl");
    assert_eq!(stack.origins()[0].file, machine.managed.join("hooks.yaml"));
}

#[tokio::test]
async fn a_project_hook_reusing_a_managed_name_is_reported_and_the_managed_rule_applies() {
    let machine = Machine::new("same_name");
    machine.managed(MANAGED_NO_CURL);
    // The same name, redefined to let curl through.
    let project = machine.project(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      name: no-curl\n      match: {tool: Bash, args: {command: \"nothing *\"}}\n      action: block\n",
    );
    let stack = machine.load().unwrap();
    let [warning] = stack.warnings() else {
        panic!("one warning: {:?}", stack.warnings());
    };
    assert_eq!(warning.level, Level::Project);
    assert_eq!(warning.file, project);
    assert_eq!(warning.line, 3);
    assert!(warning.message.contains("`no-curl`"), "{warning}");
    assert!(warning.message.contains("managed one applies"), "{warning}");
    assert_eq!(stack.layer(Level::Project).unwrap().entries.len(), 0);
    assert_eq!(
        decide(&stack, bash("curl x")).await,
        (HookAction::Deny, "managed: no curl".to_owned())
    );
}

#[tokio::test]
async fn a_managed_deny_stays_a_deny_whatever_a_lower_file_allows() {
    let machine = Machine::new("deny_stays");
    machine.managed(MANAGED_NO_CURL);
    // Allows come first (a lower priority runs earlier) from both lower layers.
    let allow = "hooks:\n  PreToolUse:\n    - type: matcher\n      priority: -100\n      match: {tool: Bash, args: {command: \"curl *\"}}\n      action: allow\n";
    machine.user(allow);
    machine.project(allow);
    let stack = machine.load().unwrap();
    assert_eq!(
        decide(&stack, bash("curl x")).await,
        (HookAction::Deny, "managed: no curl".to_owned())
    );
}

#[tokio::test]
async fn replace_defaults_in_a_project_file_cannot_drop_a_managed_protection() {
    let machine = Machine::new("replace_defaults");
    machine.managed("modules:\n  safety: {}\n");
    let project =
        machine.project("modules:\n  safety:\n    replace_defaults: [guard_files, packs]\n");
    let stack = machine.load().unwrap();
    let [warning] = stack.warnings() else {
        panic!("one warning: {:?}", stack.warnings());
    };
    assert_eq!(
        (warning.file.as_path(), warning.line),
        (project.as_path(), 2)
    );
    assert!(
        warning.message.contains("`guard_files`, `packs`")
            && warning.message.contains("managed `safety` module"),
        "{warning}"
    );
    // The managed safety module still write-protects the agents' settings and denies rm -rf /.
    let write = json!({
        "tool_name": "Write",
        "tool_input": {"file_path": machine.project.join(".claude/settings.json"), "content": "{}"},
        "session_id": "s",
    });
    assert_eq!(decide(&stack, write).await.0, HookAction::Deny);
    assert_eq!(decide(&stack, bash("rm -rf /")).await.0, HookAction::Deny);
}

#[test]
fn a_replace_defaults_with_no_managed_module_of_its_name_is_the_projects_own_choice() {
    let machine = Machine::new("own_choice");
    machine.managed(MANAGED_NO_CURL);
    machine.project("modules:\n  safety:\n    replace_defaults: [packs]\n");
    assert!(machine.load().unwrap().warnings().is_empty());
}

#[tokio::test]
async fn no_managed_or_user_file_is_the_project_alone() {
    let machine = Machine::new("project_alone");
    machine.project(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash}\n      action: block\n",
    );
    let stack = machine.load().unwrap();
    let levels: Vec<Level> = stack.layers().iter().map(|layer| layer.level).collect();
    assert_eq!(levels, [Level::Project]);
    let searched: Vec<(Level, bool)> = stack.searched().map(|(l, _, found)| (l, found)).collect();
    assert_eq!(searched, [(Level::Managed, false), (Level::User, false)]);
    assert_eq!(decide(&stack, bash("ls")).await.0, HookAction::Deny);
    // An existing directory with no file in it is no layer either.
    std::fs::create_dir_all(&machine.managed).unwrap();
    assert_eq!(machine.load().unwrap().layers().len(), 1);
}

#[test]
fn a_broken_managed_file_is_an_error_naming_its_level_and_place() {
    let machine = Machine::new("broken_managed");
    let managed =
        machine.managed("hooks:\n  PreToolUse:\n    - type: matcher\n      acton: block\n");
    machine.project("hooks: {}\n");
    let error = machine.load().unwrap_err();
    assert_eq!(error.level(), Level::Managed);
    let text = error.to_string();
    assert!(
        text.contains("managed hooks file") && text.contains(&managed.display().to_string()),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn a_managed_file_that_is_there_but_cannot_be_read_is_an_error() {
    let machine = Machine::new("unreadable_managed");
    machine.project("hooks: {}\n");
    // A link to nothing (a policy on a volume that is not mounted): there, but unreadable,
    // even for root.
    std::fs::create_dir_all(&machine.managed).unwrap();
    std::os::unix::fs::symlink(
        machine.managed.join("elsewhere.yaml"),
        machine.managed.join("hooks.yaml"),
    )
    .unwrap();
    let error = machine.load().unwrap_err();
    assert!(
        matches!(
            error,
            LayersError::Unreadable {
                level: Level::Managed,
                ..
            }
        ),
        "{error}"
    );
    assert!(
        error.to_string().contains("does not run without it"),
        "{error}"
    );
    // A managed "directory" that is a file cannot hold the policy either: refused, not skipped.
    std::fs::remove_file(machine.managed.join("hooks.yaml")).unwrap();
    std::fs::remove_dir(&machine.managed).unwrap();
    std::fs::write(&machine.managed, "").unwrap();
    assert_eq!(machine.load().unwrap_err().level(), Level::Managed);
}

#[test]
fn a_broken_project_or_user_file_is_an_error_too() {
    let machine = Machine::new("broken_lower");
    machine.project("hooks: [\n");
    assert_eq!(machine.load().unwrap_err().level(), Level::Project);
    machine.project("hooks: {}\n");
    machine.user("nothing: here\n");
    assert_eq!(machine.load().unwrap_err().level(), Level::User);
}

#[test]
fn a_file_that_is_two_levels_is_loaded_once_at_the_higher() {
    let machine = Machine::new("two_levels");
    let user = machine.user(MANAGED_NO_CURL);
    let stack = PolicyStack::load(&machine.paths(), &user, &ModuleCatalog::standard()).unwrap();
    let levels: Vec<Level> = stack.layers().iter().map(|layer| layer.level).collect();
    assert_eq!(levels, [Level::User]);
    assert!(stack.warnings().is_empty(), "{:?}", stack.warnings());
}

#[tokio::test]
async fn the_managed_and_user_command_hooks_run_in_the_project() {
    let machine = Machine::new("run_in_project");
    machine.managed(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: 'test -f marker || echo \"{\\\"decision\\\": \\\"block\\\", \\\"reason\\\": \\\"not in the project\\\"}\"'\n",
    );
    machine.project("hooks: {}\n");
    std::fs::write(machine.project.join("marker"), "").unwrap();
    let stack = machine.load().unwrap();
    assert_eq!(decide(&stack, bash("ls")).await.0, HookAction::Continue);
}

#[test]
fn the_places_come_from_the_environment_or_the_platform() {
    let paths = LayerPaths::from_env();
    // The test process's own environment: the override when set, else the platform's place.
    let managed = paths.managed.unwrap();
    assert!(managed.ends_with("hooks/hooks.yaml") || managed.ends_with("hooks.yaml"));
    if std::env::var_os("HOOKS_MANAGED_DIR").is_none() && cfg!(target_os = "linux") {
        assert_eq!(managed, Path::new("/etc/hooks/hooks.yaml"));
    }
    assert_eq!(LayerPaths::none().of(Level::Managed), None);
}
