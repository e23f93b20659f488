//! Policy entries in hooks files: Cedar and Rego policies compiled as the file loads, their
//! mistakes located in the file they are in, and their decisions through the registry.

#![cfg(all(feature = "cedar", feature = "rego"))]
#![allow(clippy::unwrap_used)]

mod support;
use support::mounted;

use std::path::{Path, PathBuf};

use hooks_config::{ConfigErrors, load_file};
use hooks_core::HookAction;
use serde_json::json;

fn scratch(test: &str) -> PathBuf {
    support::scratch("policies", test)
}

/// The errors of loading `yaml` as `dir/hooks.yaml`: file name, line, column, message.
fn errors(dir: &Path, yaml: &str) -> Vec<(String, usize, usize, String)> {
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    let ConfigErrors(errors) = load_file(&file).unwrap_err();
    errors
        .into_iter()
        .map(|error| {
            let name = error
                .file
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, error.line, error.column, error.message)
        })
        .collect()
}

const NO_SUDO: &str = r#"@id("no-sudo")
@reason("no sudo from the agent")
forbid (principal, action == Action::"Bash", resource)
when { context.input has command && context.input.command like "sudo *" };
"#;

#[tokio::test]
async fn a_cedar_file_and_a_rego_directory_decide_through_the_registry() {
    let dir = scratch("decide");
    std::fs::write(dir.join("guard.cedar"), NO_SUDO).unwrap();
    std::fs::create_dir_all(dir.join("rego")).unwrap();
    std::fs::write(
        dir.join("rego/ask.rego"),
        "package guard\n\nask contains \"publish a package?\" if startswith(input.tool_input.command, \"npm publish\")\n",
    )
    .unwrap();
    let registry = mounted(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: guard.cedar\n    - type: rego\n      policies: rego\n",
    );
    let call = |command: &str| json!({"tool_name": "Bash", "tool_input": {"command": command}});
    let denied = registry.emit("tool:pre", call("sudo ls")).await.result;
    assert_eq!(denied.action, HookAction::Deny);
    assert!(
        denied
            .reason
            .unwrap()
            .contains("no sudo from the agent (Cedar policy `no-sudo`)")
    );
    let asked = registry.emit("tool:pre", call("npm publish")).await.result;
    assert_eq!(asked.action, HookAction::AskUser);
    let quiet = registry.emit("tool:pre", call("ls")).await.result;
    assert_eq!(quiet.action, HookAction::Continue);
}

#[tokio::test]
async fn policies_that_cannot_decide_block_unless_told_otherwise() {
    let dir = scratch("undecided");
    let policies = "      policies: |\n        forbid (principal, action, resource) when { context.input.command like \"*x*\" };\n";
    let blocking = mounted(
        &dir,
        &format!("hooks:\n  PreToolUse:\n    - type: cedar\n{policies}"),
    );
    let read = json!({"tool_name": "Read", "tool_input": {"file_path": "a"}});
    let blocked = blocking.emit("tool:pre", read.clone()).await.result;
    assert_eq!(blocked.action, HookAction::Deny);
    assert!(blocked.reason.unwrap().contains("could not decide"));
    let warning = mounted(
        &dir,
        &format!("hooks:\n  PreToolUse:\n    - type: cedar\n      on_failure: warn\n{policies}"),
    );
    assert_eq!(
        warning.emit("tool:pre", read).await.result.action,
        HookAction::Continue
    );
}

#[test]
fn cedar_mistakes_are_located_where_they_are() {
    let dir = scratch("cedar-errors");
    std::fs::write(
        dir.join("bad.cedar"),
        "permit (principal, action, resource);\n\nforbid (principal action, resource);\n",
    )
    .unwrap();
    let in_file = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: bad.cedar\n",
    );
    assert_eq!(in_file.len(), 1, "{in_file:?}");
    assert_eq!(
        (in_file[0].0.as_str(), in_file[0].1),
        ("bad.cedar", 3),
        "{in_file:?}"
    );
    assert!(in_file[0].3.contains("Cedar"), "{in_file:?}");

    let inline = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: |\n        permit (principal, action, resource);\n        forbid (principal, action, resource) when { context.input.x = 1 };\n",
    );
    assert_eq!(
        (inline[0].0.as_str(), inline[0].1, inline[0].2),
        ("hooks.yaml", 6, 53),
        "{inline:?}: at the `=` of the file's line 6"
    );

    std::fs::write(
        dir.join("tools.cedarschema"),
        "entity Agent = { session: String, user: String };\nentity Tool;\naction \"Bash\" appliesTo { principal: Agent, resource: Tool, context: { input: { command: String } } };\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("typed.cedar"),
        "forbid (principal, action == Action::\"Bash\", resource)\nwhen { context.input.cmd == \"ls\" };\n",
    )
    .unwrap();
    let typed = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: typed.cedar\n      schema: tools.cedarschema\n",
    );
    assert_eq!(
        (typed[0].0.as_str(), typed[0].1),
        ("typed.cedar", 2),
        "{typed:?}"
    );
    assert!(typed[0].3.contains("cmd"), "{typed:?}");

    let nowhere = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: missing.cedar\n      polices: x\n",
    );
    assert!(
        nowhere.iter().any(|e| e.3.contains("cannot read")),
        "{nowhere:?}"
    );
    assert!(
        nowhere
            .iter()
            .any(|e| e.3.contains("did you mean `policies`")),
        "{nowhere:?}"
    );

    let no_tool = errors(
        &dir,
        "hooks:\n  UserPromptSubmit:\n    - type: cedar\n      policies: bad.cedar\n",
    );
    assert!(no_tool[0].3.contains("carries none"), "{no_tool:?}");
}

#[test]
fn rego_mistakes_are_located_where_they_are() {
    let dir = scratch("rego-errors");
    std::fs::write(
        dir.join("bad.rego"),
        "package guard\n\ndeny contains msg if {\n  msg := \n}\n",
    )
    .unwrap();
    let bad = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: rego\n      policies: bad.rego\n",
    );
    assert_eq!(bad[0].0, "bad.rego", "{bad:?}");
    assert!(bad[0].1 >= 4, "{bad:?}");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let empty = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: rego\n      policies: empty\n",
    );
    assert_eq!(
        (empty[0].0.as_str(), empty[0].1),
        ("hooks.yaml", 4),
        "{empty:?}"
    );
    assert!(empty[0].3.contains("no `.rego` file"), "{empty:?}");
}

#[test]
fn the_builtin_schema_locates_a_policy_that_gets_a_builtin_tool_wrong() {
    let dir = scratch("builtin-schema");
    std::fs::write(
        dir.join("guard.cedar"),
        "forbid (principal, action == Action::\"Write\", resource)\nwhen { context.input.command like \"*\" };\n",
    )
    .unwrap();
    let found = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: guard.cedar\n      schema: builtin\n",
    );
    assert_eq!(
        (found[0].0.as_str(), found[0].1),
        ("guard.cedar", 2),
        "{found:?}"
    );
    assert!(found[0].3.contains("command"), "{found:?}");

    std::fs::write(dir.join("guard.cedar"), NO_SUDO).unwrap();
    let file = dir.join("hooks.yaml");
    assert!(load_file(&file).is_ok());
}

#[tokio::test]
async fn an_mcp_servers_pins_become_its_schema() {
    let dir = scratch("mcp-schema");
    std::fs::create_dir_all(dir.join(".hooks/mcp-pins")).unwrap();
    let pins = json!({"server": "github", "tools": {"create_issue": {"name": "create_issue",
        "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"},
        "title": {"type": "string"}}, "required": ["repo", "title"]}}}});
    std::fs::write(dir.join(".hooks/mcp-pins/github.json"), pins.to_string()).unwrap();
    let policy = |condition: &str| {
        format!(
            "hooks:\n  PreToolUse:\n    - type: cedar\n      schema: [builtin, mcp:github]\n      policies: |\n        forbid (principal, action == Action::\"mcp__github__create_issue\", resource)\n        when {{ {condition} }};\n"
        )
    };
    let found = errors(&dir, &policy("context.input.body like \"*\""));
    assert_eq!(found[0].1, 7, "{found:?}");
    assert!(found[0].3.contains("body"), "{found:?}");

    let registry = mounted(&dir, &policy("context.input.repo == \"acme/prod\""));
    let call = |repo: &str| json!({"tool_name": "mcp__github__create_issue", "tool_input": {"repo": repo, "title": "x", "labels": ["bug"]}});
    let denied = registry.emit("tool:pre", call("acme/prod")).await.result;
    assert_eq!(denied.action, HookAction::Deny);
    let other = registry.emit("tool:pre", call("acme/docs")).await.result;
    assert_eq!(other.action, HookAction::Continue);

    let missing = errors(
        &dir,
        "hooks:\n  PreToolUse:\n    - type: cedar\n      schema: mcp:gitlab\n      policies: \"permit(principal, action, resource);\"\n",
    );
    assert_eq!((missing[0].1, missing[0].2), (4, 15), "{missing:?}");
    assert!(
        missing[0].3.contains("cannot read the pins of `gitlab`"),
        "{missing:?}"
    );
}
