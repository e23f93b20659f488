//! Standard modules mounted from a hooks file's `modules:` section: built from their settings,
//! every mistake located in the file, relative paths taken from the file's directory, one
//! registry for modules and entries, and an application's own modules by name.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::path::PathBuf;

use hooks_config::{ConfigErrors, load_file, load_file_with};
use hooks_config::{ModuleCatalog, ModuleContext};
use hooks_core::{HookAction, HookModule, HookRegistry, MountError, Mounted};
use serde_json::{Value, json};

fn project(test: &str, yaml: &str) -> (PathBuf, PathBuf) {
    let dir = support::scratch("modules", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    (dir, file)
}

fn errors(yaml: &str) -> ConfigErrors {
    let (_, file) = project("errors", yaml);
    load_file(&file).unwrap_err()
}

fn shell(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}})
}

const GUARD: &str = r#"modules:
  safety:
    workspace: "."
  redaction: {}
  logging:
    path: "logs/events.jsonl"
hooks:
  PreToolUse:
    - type: matcher
      name: note_git
      match: {tool: Bash, args: {command: "git *"}}
      action: inject
      message: "this repository squashes its merges"
"#;

#[tokio::test]
async fn modules_and_entries_decide_together_on_one_registry() {
    let (dir, file) = project("together", GUARD);
    let config = load_file(&file).unwrap();
    assert_eq!(config.summary(), "3 modules, 1 hook");
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).unwrap();

    let denied = registry.emit("tool:pre", shell("rm -rf /")).await;
    assert!(denied.is_denied());
    assert_eq!(denied.decided_by.as_deref(), Some("safety"));

    // The matcher's injection and the safety module's silence merge into one answer.
    let noted = registry.emit("tool:pre", shell("git status")).await;
    assert_eq!(noted.action(), HookAction::InjectContext);
    assert_eq!(&*noted.injections[0].hook, "note_git");

    let prompt = registry
        .emit(
            "prompt:submit",
            json!({"prompt": "use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx please"}),
        )
        .await;
    let redacted = prompt.data()["prompt"].as_str().unwrap();
    assert!(!redacted.contains("AbCdEfGh"), "{redacted}");

    // The log is where the file says, relative to the file, not to the working directory.
    let log = std::fs::read_to_string(dir.join("logs/events.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 3);
    assert!(!log.contains("AbCdEfGh"), "the log is redacted too");
}

fn write(path: &str) -> Value {
    json!({"tool_name": "Write", "tool_input": {"file_path": path, "content": "x"}})
}

/// Lists in a module's settings add to its built-in lists; `replace_defaults` replaces them.
#[tokio::test]
async fn lists_in_a_files_module_settings_extend_the_built_in_ones() {
    let (_, file) = project(
        "lists",
        "modules:\n  safety:\n    workspace: \".\"\n    protected_files: [\"**/secrets.toml\"]\n  \
         redaction:\n    secret_keys: [session_cookie]\n",
    );
    let registry = HookRegistry::new();
    let _mounted = load_file(&file).unwrap().mount(&registry).unwrap();
    for secret in ["config/secrets.toml", ".env", "certs/server.key"] {
        let outcome = registry.emit("tool:pre", write(secret)).await;
        assert!(outcome.is_denied(), "{secret} is not protected");
    }
    assert!(
        !registry
            .emit("tool:pre", write("src/app.py"))
            .await
            .is_denied()
    );
    let result = json!({"tool_name": "Bash", "tool_result": {
        "password": "hunter2", "api_key": "k-123", "session_cookie": "c-456",
        "dsn": "postgres://admin:hunter2@db/prod"
    }});
    let outcome = registry.emit("tool:post", result).await;
    assert_eq!(
        outcome.data()["tool_result"],
        json!({"password": "[REDACTED]", "api_key": "[REDACTED]", "session_cookie": "[REDACTED]",
               "dsn": "postgres://admin:[REDACTED:url_password]@db/prod"})
    );

    let (_, file) = project(
        "replaced",
        "modules:\n  safety:\n    workspace: \".\"\n    protected_files: [\"**/secrets.toml\"]\n    \
         replace_defaults: [protected_files]\n",
    );
    let registry = HookRegistry::new();
    let _mounted = load_file(&file).unwrap().mount(&registry).unwrap();
    assert!(
        registry
            .emit("tool:pre", write("config/secrets.toml"))
            .await
            .is_denied()
    );
    assert!(!registry.emit("tool:pre", write(".env")).await.is_denied());

    let misspelt = errors("modules:\n  safety:\n    replace_defaults: [protected_file]\n");
    let error = &misspelt.0[0];
    assert!(error.message.contains("module `safety`"), "{error}");
    assert!(
        error
            .message
            .contains("`protected_file` is not a list with built-in entries"),
        "{error}"
    );
}

#[test]
fn loading_and_checking_write_nothing() {
    let (dir, file) = project("no_writes", GUARD);
    load_file(&file).unwrap();
    assert!(!dir.join("logs").exists());
}

#[test]
fn a_file_may_hold_modules_only() {
    for yaml in [
        "modules:\n  redaction: {}\n",
        "modules:\n  redaction:\nhooks:\n",
        "modules:\n  redaction: {}\nhooks: {}\n",
    ] {
        let (_, file) = project("modules_only", yaml);
        let config = load_file(&file).unwrap_or_else(|e| panic!("{yaml}: {e}"));
        assert_eq!(config.summary(), "1 module, 0 hooks", "{yaml}");
    }
    let neither = errors("other: 1\n");
    assert!(
        neither
            .to_string()
            .contains("no `hooks:` and no `modules:`"),
        "{neither}"
    );
}

#[test]
fn an_unknown_module_is_located_and_the_closest_name_suggested() {
    let errors = errors("modules:\n  safety: {}\n  loging: {path: x.jsonl}\n");
    assert_eq!(errors.0.len(), 1, "{errors}");
    let error = &errors.0[0];
    assert_eq!((error.line, error.column), (3, 3));
    assert!(error.message.contains("unknown module `loging`"), "{error}");
    assert!(error.message.contains("did you mean `logging`?"), "{error}");
}

#[test]
fn an_unknown_setting_points_at_its_key() {
    let errors = errors("modules:\n  safety:\n    workspace: \".\"\n    packz: [git]\n");
    let error = &errors.0[0];
    assert_eq!((error.line, error.column), (4, 5), "{error}");
    assert!(error.message.contains("module `safety`"), "{error}");
    assert!(error.message.contains("unknown field `packz`"), "{error}");
}

#[test]
fn a_misspelt_setting_hides_no_other_problem_of_its_module() {
    let errors = errors(
        "modules:\n  safety:\n    packz: [git]\n    blocked_commands:\n      - reason: \"no\"\n        patern: \"rm\"\n  redaction:\n    patterns:\n      - name: token\n        regexp: \"tok_[a-z]+\"\n",
    );

    let found: Vec<(usize, usize, &str)> = errors
        .0
        .iter()
        .map(|e| (e.line, e.column, e.message.as_str()))
        .collect();
    let expect = [
        (3, 5, "module `safety`: unknown field `packz`"),
        (5, 9, "module `safety`: missing field `pattern`"),
        (6, 9, "module `safety`: unknown field `patern`"),
        (9, 9, "module `redaction`: missing field `regex`"),
        (10, 9, "module `redaction`: unknown field `regexp`"),
    ];
    for (line, column, fragment) in expect {
        assert!(
            found
                .iter()
                .any(|(l, c, m)| *l == line && *c == column && m.contains(fragment)),
            "expected {line}:{column} {fragment:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");
}

#[test]
fn settings_of_the_wrong_shape_or_type_are_errors_not_defaults() {
    let wrong_type = errors("modules:\n  approval:\n    tools: Bash\n");
    assert_eq!(wrong_type.0[0].line, 2, "{wrong_type}");
    assert!(
        wrong_type.to_string().contains("module `approval`"),
        "{wrong_type}"
    );

    let not_a_mapping = errors("modules:\n  safety: [workspace]\n");
    assert!(
        not_a_mapping.to_string().contains("takes a mapping"),
        "{not_a_mapping}"
    );

    let modules_a_list = errors("modules:\n  - safety\n");
    assert!(
        modules_a_list.to_string().contains("maps module names"),
        "{modules_a_list}"
    );

    // Every problem of the file is reported at once, modules and entries alike.
    let both = errors("modules:\n  safty: {}\nhooks:\n  PreToolUse:\n    - type: nonsense\n");
    assert_eq!(both.0.len(), 2, "{both}");
}

/// A module an application adds under its own name.
struct Audit {
    tag: String,
}

impl HookModule for Audit {
    fn name(&self) -> &str {
        "audit"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new("audit");
        let tag = self.tag.clone();
        mounted.register(
            registry,
            "tool:pre",
            move |_: &str, _: &Value| {
                let tag = tag.clone();
                async move { hooks_core::HookResult::inject(format!("audited as {tag}")) }
            },
            0,
            "audit",
        )?;
        Ok(mounted)
    }
}

#[tokio::test]
async fn an_applications_own_module_mounts_from_its_hooks_file() {
    let mut catalog = ModuleCatalog::standard();
    catalog
        .add("audit", |config: &Value, _: &ModuleContext| {
            let tag = config["tag"].as_str().ok_or("`tag` is required")?;
            Ok(Box::new(Audit {
                tag: tag.to_owned(),
            }) as _)
        })
        .unwrap();
    let (_, file) = project("own", "modules:\n  audit: {tag: team-a}\n");
    let config = load_file_with(&file, &catalog).unwrap();
    let registry = HookRegistry::new();
    let mounted = config.mount(&registry).unwrap();
    let outcome = registry.emit("tool:pre", shell("ls")).await;
    assert_eq!(outcome.injections[0].text, "audited as team-a");
    assert_eq!(mounted.unmount(), 1);

    // The standard catalog does not know it; the factory's own refusal is located too.
    assert!(load_file(&file).is_err());
    let (_, missing) = project("own_missing", "modules:\n  audit: {}\n");
    let error = load_file_with(&missing, &catalog).unwrap_err();
    assert!(error.to_string().contains("`tag` is required"), "{error}");
}

#[test]
fn a_module_that_cannot_mount_leaves_nothing_mounted() {
    // A log under a regular file cannot be created: the file mounts whole or not at all.
    let dir = support::scratch("modules", "half");
    std::fs::write(dir.join("blocker"), "").unwrap();
    let file = dir.join("hooks.yaml");
    std::fs::write(
        &file,
        "modules:\n  safety: {}\n  logging: {path: blocker/events.jsonl}\n",
    )
    .unwrap();
    let config = load_file(&file).unwrap();
    let registry = HookRegistry::new();
    let error = config.mount(&registry).unwrap_err().to_string();
    assert!(error.contains("module `logging` (line 3)"), "{error}");
    assert!(registry.list_handlers(None).is_empty());
    assert_eq!(registry.observer_count(), 0);
}
