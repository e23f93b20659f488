//! The guide's example policies (docs/guide/policies/) decide as the safety module does on the
//! main protections of the starter policy: one table of calls, three deciders.

#![cfg(all(feature = "cedar", feature = "rego"))]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hooks_config::{HookKind, PolicyHook, load_str};
use hooks_core::HookAction;
use hooks_safety::Guard;
use serde_json::{Value, json};

/// A tool call and whether the starter policy refuses it.
struct Case {
    tool: &'static str,
    field: &'static str,
    value: &'static str,
    refused: bool,
}

const fn case(tool: &'static str, field: &'static str, value: &'static str, refused: bool) -> Case {
    Case {
        tool,
        field,
        value,
        refused,
    }
}

/// The shared table: wiping the machine or the user's files, and secrets, against the
/// everyday calls next to them that must keep working.
const CASES: &[Case] = &[
    case("Bash", "command", "rm -rf /", true),
    case("Bash", "command", "rm -rf ~", true),
    case("Bash", "command", "sudo rm -rf /", true),
    case("Bash", "command", "cd /tmp && rm -rf $HOME", true),
    case("Bash", "command", "rm -fr ~", true),
    case("Bash", "command", "rm -rf target", false),
    case("Bash", "command", "ls -la", false),
    case("Bash", "command", "git status", false),
    case("Bash", "command", "cat .env", true),
    case("Bash", "command", "grep TOKEN .env", true),
    case("Read", "file_path", ".env", true),
    case("Read", "file_path", "config/.env.production", true),
    case("Edit", "file_path", "deploy/.env.local", true),
    case("Read", "file_path", ".env.example", false),
    case("Read", "file_path", "src/lib.rs", false),
    case("Write", "file_path", "notes/todo.md", false),
];

fn guides() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/policies")
}

/// The policy hook of a hooks file with one entry of `kind` over `policies`.
fn policy(kind: &str, policies: &Path) -> PolicyHook {
    let yaml = format!(
        "hooks:\n  PreToolUse:\n    - type: {kind}\n      policies: {}\n",
        policies.display()
    );
    let dir = std::env::temp_dir();
    let config = load_str(&yaml, &dir.join("hooks.yaml"), &dir).unwrap();
    match &config.entries[0].hook {
        HookKind::Policy(hook) => hook.clone(),
        other => panic!("not a policy hook: {other:?}"),
    }
}

fn refuses(hook: &PolicyHook, call: &Value) -> bool {
    match hook.decide("tool:pre", call).unwrap().action {
        HookAction::Deny => true,
        HookAction::Continue => false,
        other => panic!("{} answered {other:?} to {call}", hook.language()),
    }
}

#[test]
fn the_example_policies_decide_as_the_safety_module() {
    let cedar = policy("cedar", &guides().join("starter.cedar"));
    let rego = policy("rego", &guides().join("starter.rego"));
    let guard = Guard::with_defaults(&hooks_config::protection::self_protection()).unwrap();
    let mut disagreements = Vec::new();
    for case in CASES {
        let input = json!({ case.field: case.value });
        let call = json!({"tool_name": case.tool, "tool_input": input});
        let safety = guard.check_tool_call(case.tool, &input).is_some();
        for (decider, refused) in [
            ("safety", safety),
            ("cedar", refuses(&cedar, &call)),
            ("rego", refuses(&rego, &call)),
        ] {
            if refused != case.refused {
                disagreements.push(format!(
                    "{decider}: {} {} `{}` should be {}",
                    case.tool,
                    case.field,
                    case.value,
                    if case.refused { "refused" } else { "allowed" }
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
