//! `type: wasm` entries: what the loader reads and refuses, and (with the `wasm` feature) real
//! components mounted from a hooks file, checked against their world, their failures decided
//! by `on_failure`.

#![allow(clippy::unwrap_used)]

#[cfg(feature = "wasm")]
mod support;

use std::path::Path;
use std::time::Duration;

use hooks_config::{ConfigErrors, HookKind, OnFailure, WasmAbi, load_str};

/// The one entry of `yaml`, with its component hook.
fn entry(yaml: &str) -> (hooks_config::Entry, hooks_config::ComponentHook) {
    let config = load_str(yaml, Path::new("hooks.yaml"), Path::new("/project")).unwrap();
    let entry = config.entries.into_iter().next().unwrap();
    match entry.hook.clone() {
        HookKind::Wasm(hook) => (entry, hook),
        other => panic!("not a wasm entry: {other:?}"),
    }
}

fn errors(yaml: &str) -> Vec<String> {
    let ConfigErrors(errors) =
        load_str(yaml, Path::new("hooks.yaml"), Path::new("/project")).unwrap_err();
    errors.into_iter().map(|error| error.message).collect()
}

#[test]
fn a_wasm_entry_reads_its_keys_and_defaults() {
    let (common, hook) =
        entry("hooks:\n  PreToolUse:\n    - type: wasm\n      path: policy.wasm\n");
    assert_eq!(hook.path, Path::new("/project/policy.wasm"));
    assert_eq!(hook.abi, WasmAbi::Hooks);
    assert_eq!(hook.config, serde_json::json!({}));
    assert_eq!(common.timeout, Duration::from_secs(1));
    assert_eq!(hook.memory_mb, 64);
    assert!(
        hook.read_dirs.is_empty() && hook.env.is_empty(),
        "nothing granted"
    );
    assert_eq!(common.on_failure, OnFailure::Warn);

    let (common, hook) = entry(
        "hooks:
  PreToolUse:
    - type: wasm
      path: /opt/amp.wasm
      abi: amplifier
      config: {strict: true, level: 3}
      timeout_ms: 20
      memory_mb: 8
      allow_read: [data]
      allow_env: [PROJECT]
      on_failure: block
",
    );
    assert_eq!(hook.path, Path::new("/opt/amp.wasm"));
    assert_eq!(hook.abi, WasmAbi::Amplifier);
    assert_eq!(hook.config, serde_json::json!({"strict": true, "level": 3}));
    assert_eq!(common.timeout, Duration::from_millis(20));
    assert_eq!(hook.memory_mb, 8);
    assert_eq!(
        hook.read_dirs,
        vec![Path::new("/project/data").to_path_buf()]
    );
    assert_eq!(hook.env, vec!["PROJECT".to_owned()]);
    assert_eq!(common.on_failure, OnFailure::Block);
}

#[test]
fn a_wasm_entry_with_bad_keys_is_refused_with_each_problem() {
    let found = errors(
        "hooks:
  PreToolUse:
    - type: wasm
      abi: wasi
      memory_mb: 0
      allow_read: data
      config: [1]
      shell: true
",
    );
    for expected in [
        "missing `path`",
        "`abi` must be hooks or amplifier",
        "`memory_mb` must be from 1",
        "`allow_read` in hook 1 of `PreToolUse` must be a list",
        "`config` in hook 1 of `PreToolUse` must be a mapping",
        "unknown key `shell`",
    ] {
        assert!(
            found.iter().any(|message| message.contains(expected)),
            "{expected}: {found:?}"
        );
    }
}

#[cfg(not(feature = "wasm"))]
#[test]
fn without_the_feature_mounting_and_checking_name_it() {
    use hooks_core::{HookModule, HookRegistry};
    let config = load_str(
        "hooks:\n  PreToolUse:\n    - type: wasm\n      name: sandboxed\n      path: p.wasm\n",
        Path::new("hooks.yaml"),
        Path::new("."),
    )
    .unwrap();
    let error = config
        .mount(&HookRegistry::new())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("`sandboxed`") && error.contains("`wasm` feature"),
        "{error}"
    );
    let checked = config.check_components().unwrap_err().to_string();
    assert!(
        checked.contains("`sandboxed`") && checked.contains("`wasm` feature"),
        "{checked}"
    );
}

#[cfg(feature = "wasm")]
#[path = "../../hooks-wasm/tests/support/mod.rs"]
mod components;

#[cfg(feature = "wasm")]
mod with_the_feature {
    use super::components::*;
    use super::support;
    use hooks_config::{ConfigErrors, load_file};
    use hooks_core::{HookAction, HookModule, HookRegistry};
    use serde_json::json;

    fn deny() -> Vec<u8> {
        guest(
            &answer(DENY, Some((REASON, 256, 5))),
            r#"(data (i32.const 256) "no rm")"#,
        )
    }

    fn write(
        dir: &std::path::Path,
        yaml: &str,
        components: &[(&str, Vec<u8>)],
    ) -> std::path::PathBuf {
        for (name, bytes) in components {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let file = dir.join("hooks.yaml");
        std::fs::write(&file, yaml).unwrap();
        file
    }

    #[tokio::test]
    async fn a_wasm_hook_in_a_hooks_file_decides() {
        let dir = support::scratch("config", "wasm-decides");
        let registry = support::mounted(&dir, &{
            std::fs::write(dir.join("deny.wasm"), deny()).unwrap();
            "hooks:\n  PreToolUse:\n    - type: wasm\n      name: no-rm\n      path: deny.wasm\n"
                .to_owned()
        });
        let emitted = registry
            .emit(
                "tool:pre",
                json!({"tool_name": "Bash", "tool_input": {"command": "rm"}}),
            )
            .await;
        assert_eq!(emitted.result.action, HookAction::Deny);
        assert_eq!(emitted.result.reason.as_deref(), Some("no rm"));
    }

    #[tokio::test]
    async fn a_failing_wasm_hook_goes_to_its_on_failure() {
        let dir = support::scratch("config", "wasm-on-failure");
        std::fs::write(
            dir.join("loop.wasm"),
            guest("(loop $forever (br $forever)) (i32.const 16)", ""),
        )
        .unwrap();
        for (on_failure, action) in [("block", HookAction::Deny), ("warn", HookAction::Continue)] {
            let registry = support::mounted(
                &dir,
                &format!(
                    "hooks:\n  PreToolUse:\n    - type: wasm\n      name: spin\n      path: loop.wasm\n      timeout_ms: 20\n      on_failure: {on_failure}\n"
                ),
            );
            let emitted = registry
                .emit("tool:pre", json!({"tool_name": "Bash"}))
                .await;
            assert_eq!(emitted.result.action, action, "{on_failure}");
            if on_failure == "block" {
                let reason = emitted.result.reason.unwrap_or_default();
                assert!(
                    reason.contains("`spin`") && reason.contains("deadline"),
                    "{reason}"
                );
            }
        }
    }

    #[test]
    fn checking_names_a_component_that_does_not_satisfy_its_world() {
        let dir = support::scratch("config", "wasm-check");
        let amplifier = component(
            "",
            "amplifier:modules/hook-module@1.0.0",
            &format!(
                r#"(module {RUNTIME}
                    (func (export "amplifier:modules/hook-handler@1.0.0#handle")
                      (param i32 i32) (result i32) unreachable))"#
            ),
        );
        let file = write(
            &dir,
            "hooks:
  PreToolUse:
    - type: wasm
      name: good
      path: deny.wasm
    - type: wasm
      name: mistaken
      path: amplifier.wasm
  PostToolUse:
    - type: wasm
      name: elsewhere
      path: deny.wasm
",
            &[("deny.wasm", deny()), ("amplifier.wasm", amplifier)],
        );
        let config = load_file(&file).unwrap();
        let ConfigErrors(errors) = config.check_components().unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].line, 6);
        assert!(
            errors[0].message.contains("`mistaken`")
                && errors[0].message.contains("amplifier.wasm")
                && errors[0].message.contains("hooks:guest/hook@0.1.0"),
            "{}",
            errors[0].message
        );
        assert!(
            errors[1].message.contains("`elsewhere`")
                && errors[1].message.contains("subscribes to tool:pre"),
            "{}",
            errors[1].message
        );
        // Mounting refuses the file whole.
        let registry = HookRegistry::new();
        let error = config.mount(&registry).err().unwrap().to_string();
        assert!(error.contains("`mistaken` (line 6)"), "{error}");
        assert!(
            registry.list_handlers(None).is_empty(),
            "nothing half-mounted"
        );
    }
}
