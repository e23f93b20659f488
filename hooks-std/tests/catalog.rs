//! The module catalog: the standard modules by name, their configurations checked, relative
//! paths resolved against the hooks file's directory, and an application's own modules.

#![allow(clippy::unwrap_used, missing_docs)]

use hooks_core::{HookModule, HookRegistry, MountError, Mounted};
use hooks_std::catalog::{CatalogError, ModuleCatalog, ModuleContext};
use serde_json::{Value, json};

fn build(name: &str, config: Value, context: &ModuleContext) -> Result<(), CatalogError> {
    ModuleCatalog::standard()
        .build(name, &config, context)
        .map(|_| ())
}

#[test]
fn every_standard_module_builds_from_an_empty_configuration_and_mounts_on_its_events() {
    let context = ModuleContext::new(&hooks_testing::scratch_dir("catalog", "standard"));
    let catalog = ModuleCatalog::standard();
    let expected = [
        ("safety", "tool:pre"),
        ("redaction", "provider:request"),
        ("approval", "tool:pre"),
        ("linter", "tool:post"),
        ("reminder", "provider:request"),
        ("prompt_gate", "tool:pre"),
        ("prompt_gate", "prompt:submit"),
    ];
    for (name, event) in expected {
        let registry = HookRegistry::new();
        let module = catalog.build(name, &Value::Null, &context).unwrap();
        let _mounted = module.mount(&registry).unwrap();
        assert!(
            registry.has_handlers(event),
            "`{name}` should listen to {event}"
        );
    }
    // Logging observes every emit rather than handling one event.
    let registry = HookRegistry::new();
    let logging = catalog
        .build("logging", &json!({"path": "events.jsonl"}), &context)
        .unwrap();
    let _mounted = logging.mount(&registry).unwrap();
    assert_eq!(registry.observer_count(), 1);
    assert_eq!(
        catalog.names().collect::<Vec<_>>(),
        [
            "approval",
            "linter",
            "logging",
            "prompt_gate",
            "redaction",
            "reminder",
            "safety"
        ]
    );
}

#[test]
fn an_unknown_key_is_an_error_that_names_the_key_and_the_module() {
    let context = ModuleContext::new(std::path::Path::new("."));
    let error = build("safety", json!({"workspase": "."}), &context).unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, CatalogError::Config { ref module, .. } if module == "safety"));
    assert!(text.contains("unknown field `workspase`"), "{text}");
    assert!(
        text.contains("`workspace`"),
        "the valid keys are listed: {text}"
    );
}

#[test]
fn a_wrong_type_is_an_error_and_never_a_default() {
    let context = ModuleContext::new(std::path::Path::new("."));
    let error = build("approval", json!({"tools": "Bash"}), &context).unwrap_err();
    assert!(
        error.to_string().starts_with("module `approval`: "),
        "{error}"
    );
    assert!(build("redaction", json!([1, 2]), &context).is_err());
}

#[test]
fn an_unknown_module_lists_the_known_ones_and_suggests_the_closest() {
    let context = ModuleContext::new(std::path::Path::new("."));
    match build("redacton", json!({}), &context).unwrap_err() {
        CatalogError::UnknownModule {
            name,
            suggestion,
            known,
        } => {
            assert_eq!(name, "redacton");
            assert_eq!(suggestion.as_deref(), Some("redaction"));
            assert_eq!(known.len(), 7);
        }
        other => panic!("expected an unknown module, got {other:?}"),
    }
    let error = build("kubernetes", json!({}), &context).unwrap_err();
    assert!(!error.to_string().contains("did you mean"), "{error}");
}

#[tokio::test]
async fn a_relative_log_path_is_resolved_against_the_hooks_file_directory_and_created() {
    let base = hooks_testing::scratch_dir("catalog", "relative");
    let context = ModuleContext::new(&base);
    let logging = ModuleCatalog::standard()
        .build("logging", &json!({"path": "logs/events.jsonl"}), &context)
        .unwrap();
    let registry = HookRegistry::new();
    let _mounted = logging.mount(&registry).unwrap();
    registry.emit("session:start", json!({})).await;
    let log = std::fs::read_to_string(base.join("logs/events.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1);
}

#[tokio::test]
async fn a_relative_workspace_confines_the_safety_module_to_the_hooks_file_directory() {
    let base = hooks_testing::scratch_dir("catalog", "workspace");
    let context = ModuleContext::new(&base);
    let safety = ModuleCatalog::standard()
        .build(
            "safety",
            &json!({"workspace": ".", "confine_to_workspace": true}),
            &context,
        )
        .unwrap();
    let registry = HookRegistry::new();
    let _mounted = safety.mount(&registry).unwrap();
    let write = |path: String| json!({"tool_name": "Write", "tool_input": {"file_path": path, "content": "x"}});
    let inside = registry
        .emit(
            "tool:pre",
            write(base.join("notes.txt").display().to_string()),
        )
        .await;
    assert!(!inside.is_denied(), "{:?}", inside.result.reason);
    let outside = registry
        .emit("tool:pre", write("../elsewhere.txt".to_owned()))
        .await;
    assert!(outside.is_denied());
}

struct Audit;

impl HookModule for Audit {
    fn name(&self) -> &str {
        "audit"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new("audit");
        mounted.register(
            registry,
            "tool:post",
            |_: &str, _: &Value| async { hooks_core::HookResult::cont() },
            0,
            "audit",
        )?;
        Ok(mounted)
    }
}

#[test]
fn an_application_adds_its_own_module_but_cannot_replace_a_standard_one() {
    let mut catalog = ModuleCatalog::standard();
    catalog
        .add("audit", |config: &Value, _: &ModuleContext| {
            if config.as_object().is_some_and(|map| !map.is_empty()) {
                return Err("audit takes no configuration".into());
            }
            Ok(Box::new(Audit) as _)
        })
        .unwrap();
    let context = ModuleContext::new(std::path::Path::new("."));
    let registry = HookRegistry::new();
    let audit = catalog.build("audit", &json!({}), &context).unwrap();
    let _mounted = audit.mount(&registry).unwrap();
    assert!(registry.has_handlers("tool:post"));
    let Err(error) = catalog.build("audit", &json!({"x": 1}), &context) else {
        panic!("a configuration the factory refuses is an error");
    };
    assert_eq!(
        error.to_string(),
        "module `audit`: audit takes no configuration"
    );
    assert_eq!(
        catalog.add("safety", |_: &Value, _: &ModuleContext| Ok(
            Box::new(Audit) as _
        )),
        Err(CatalogError::Taken("safety".to_owned()))
    );
}

#[tokio::test]
async fn a_reminder_from_a_hooks_file_takes_its_items_and_its_todo_file_at_every_event() {
    let base = hooks_testing::scratch_dir("catalog", "reminder");
    std::fs::write(
        base.join("TODO.md"),
        "- [ ] write the parser test\n- [x] set up CI\n\n* fix the empty input\n",
    )
    .unwrap();
    let reminder = ModuleCatalog::standard()
        .build(
            "reminder",
            &json!({"items": ["keep secrets out"], "file": "TODO.md", "events": ["prompt:submit"]}),
            &ModuleContext::new(&base),
        )
        .unwrap();
    let registry = HookRegistry::new();
    let _mounted = reminder.mount(&registry).unwrap();
    let outcome = registry
        .emit("prompt:submit", json!({"prompt": "go on"}))
        .await;
    assert_eq!(
        outcome.injections[0].text,
        "Current todos:\n- keep secrets out\n- write the parser test\n- fix the empty input"
    );
    assert!(outcome.injections[0].ephemeral);

    // The file is read again at each event: what was done drops out.
    std::fs::write(base.join("TODO.md"), "- [x] write the parser test\n").unwrap();
    let outcome = registry
        .emit("prompt:submit", json!({"prompt": "go on"}))
        .await;
    assert_eq!(
        outcome.injections[0].text,
        "Current todos:\n- keep secrets out"
    );

    // A file that is gone adds nothing and fails nothing.
    std::fs::remove_file(base.join("TODO.md")).unwrap();
    let outcome = registry
        .emit("prompt:submit", json!({"prompt": "go on"}))
        .await;
    assert!(outcome.failures.is_empty());
    assert_eq!(outcome.injections.len(), 1);
}

#[test]
fn paths_from_a_relative_base_become_absolute() {
    let context = ModuleContext::new(std::path::Path::new("."));
    let resolved = context.resolve(std::path::Path::new("logs/events.jsonl"));
    assert!(resolved.is_absolute(), "{}", resolved.display());
    assert!(resolved.ends_with("logs/events.jsonl"));
    assert!(resolved.starts_with(std::env::current_dir().unwrap()));
    let absolute = std::path::Path::new("/var/log/hooks.jsonl");
    assert_eq!(context.resolve(absolute), absolute);
}
