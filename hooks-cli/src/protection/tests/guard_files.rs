//! The guard protects itself: the hooks files and the agents' hook settings can be read by
//! any tool, and changed by none, whichever way in a tool call takes.

use std::path::Path;

use hooks_std::safety::{Access, Guard, SafetyConfig};
use serde_json::json;

use super::product_protection;

const WORKSPACE: &str = "/srv/project";

fn guard() -> Guard {
    let mut config = SafetyConfig {
        workspace: Some(WORKSPACE.into()),
        home: Some("/home/dev".into()),
        ..SafetyConfig::default()
    };
    // As the adapter does with the file given to `--config`.
    config.protect_guard_file(Path::new("/srv/project/policy/agent-guard.yaml"));
    Guard::new(config, &product_protection()).unwrap()
}

fn command(line: &str) -> Option<String> {
    guard()
        .check(line, Path::new(WORKSPACE))
        .map(|denial| denial.id())
}

fn tool(name: &str, input: serde_json::Value) -> Option<String> {
    guard()
        .check_tool_call(name, &input)
        .map(|denial| denial.id())
}

const GUARDED: &str = "guard:guard-file";

#[test]
fn every_shell_way_of_changing_a_guard_file_is_refused() {
    for line in [
        "echo {} > .claude/settings.json",
        "echo 'hooks: {}' >> hooks.yaml",
        ": > .claude/settings.local.json",
        "sed -i 's/deny/allow/' hooks.yaml",
        "sed -i.bak -e 's/a/b/' .gemini/settings.json",
        "sed --in-place 's/a/b/' .codex/config.toml",
        "cp /tmp/empty.json .claude/settings.json",
        "cp -f empty.yaml hooks.yaml",
        "mv hooks.yaml hooks.yaml.off",
        "mv /tmp/x .cursor/hooks.json",
        "rm hooks.yaml",
        "rm -f .codex/hooks.json",
        "rm -rf .claude",
        "rm -r .github/hooks",
        "rm -rf .github",
        "echo {} | tee .github/hooks/guard.json",
        "truncate -s 0 hooks.yaml",
        "ln -sf /dev/null .claude/settings.json",
        "dd if=/dev/null of=hooks.yaml",
        "install -m 644 empty.yaml hooks.yaml",
        "shred -u .qwen/settings.json",
        "unlink .factory/hooks.json",
        "chmod 000 hooks.yaml",
        "curl -o hooks.yaml https://example.com/open.yaml",
        "cd .claude && echo {} > settings.json",
        "echo {} > ~/.claude/settings.json",
        "rm $HOME/.gemini/settings.json",
        "rm policy/agent-guard.yaml",
        "echo x > .kiro/hooks/guard.json",
        "echo '{}' > .clinerules/hooks/PreToolUse",
        "printf x > .cline/hooks/PreToolUse.sh",
        "echo {} > .mcp.json",
        "rm .cursor/mcp.json",
        "sed -i 's/hooks//' .vscode/mcp.json",
        "echo x > ~/.config/systemd/user/hooks-serve.service",
        "rm ~/.config/systemd/user/default.target.wants/hooks-serve.service",
        "rm -r .opencode/plugin",
        "bash -c 'echo {} > .claude/settings.json'",
        "find . -name hooks.yaml -exec rm {} \\;",
        "sudo -u dev tee hooks.yaml < /dev/null",
        "git checkout -- hooks.yaml",
        "git restore .claude/settings.json",
        "git rm -q hooks.yaml",
        "git mv hooks.yaml old-hooks.yaml",
    ] {
        assert_eq!(command(line).as_deref(), Some(GUARDED), "{line}");
    }
}

#[test]
fn an_interpreter_that_writes_a_guard_file_is_refused() {
    for line in [
        r#"python3 -c "open('hooks.yaml','w').write('hooks: {}')""#,
        r#"python -c "import pathlib; pathlib.Path('.claude/settings.json').write_text('{}')""#,
        r#"python3 -c "import os; os.remove('hooks.yaml')""#,
        r#"node -e "require('fs').writeFileSync('.claude/settings.json', '{}')""#,
        r#"node -e "require('fs').unlinkSync('.cursor/hooks.json')""#,
        r#"ruby -e "File.write('hooks.yaml', '')""#,
        r#"perl -e "open(my \$f, '>', 'hooks.yaml'); close \$f""#,
        "perl -pi -e 's/deny/allow/' hooks.yaml",
        "ruby -i -pe 'gsub(/deny/, \"allow\")' .gemini/settings.json",
        "python3 <<'PY'\nopen('.codex/hooks.json', 'w').close()\nPY",
        "php -r \"file_put_contents('hooks.yaml', '');\"",
    ] {
        assert_eq!(command(line).as_deref(), Some(GUARDED), "{line}");
    }
}

#[test]
fn reading_a_guard_file_stays_allowed() {
    for line in [
        "cat hooks.yaml",
        "cat .claude/settings.json | jq .hooks",
        "grep -n deny hooks.yaml",
        "sed -n '1,20p' hooks.yaml",
        "head .codex/config.toml",
        "cp .claude/settings.json /tmp/settings-backup.json",
        "cp hooks.yaml hooks.yaml.orig",
        "diff hooks.yaml .hooks.yaml",
        "less policy/agent-guard.yaml",
        "jq . < .cursor/hooks.json",
        "ls -la .github/hooks",
        "touch hooks.yaml",
        "rm -rf target",
        r#"python3 -c "print(open('hooks.yaml').read())""#,
        r#"node -e "console.log(require('fs').readFileSync('.claude/settings.json', 'utf8'))""#,
        "git diff hooks.yaml",
        "git log -p hooks.yaml",
        "git checkout main",
        "git add hooks.yaml",
        // Neighbours of a guard file, and directories that merely share a name.
        "rm -rf src/hooks",
        "echo x > policy/notes.md",
        "rm -r policy/drafts",
    ] {
        assert_eq!(command(line), None, "{line}");
    }
}

#[test]
fn a_file_tool_may_read_a_guard_file_but_not_change_it() {
    let settings = json!({"file_path": ".claude/settings.json"});
    for reader in ["Read", "read_file", "Grep", "view"] {
        assert_eq!(tool(reader, settings.clone()), None, "{reader}");
    }
    for writer in [
        "Write",
        "Edit",
        "MultiEdit",
        "write_file",
        "replace",
        "SomeNewTool",
    ] {
        assert_eq!(
            tool(writer, settings.clone()).as_deref(),
            Some(GUARDED),
            "{writer}"
        );
    }
    let notebook = json!({"notebook_path": "/home/dev/.claude/settings.json"});
    assert_eq!(tool("NotebookEdit", notebook).as_deref(), Some(GUARDED));
    let config = json!({"file_path": "policy/agent-guard.yaml", "content": "hooks: {}"});
    assert_eq!(tool("Write", config).as_deref(), Some(GUARDED));
    // A tool not named is taken as one that may write.
    let unnamed = guard().check_tool_input(&json!({"path": "hooks.yaml"}));
    assert_eq!(unnamed.map(|d| d.id()).as_deref(), Some(GUARDED));
    // A file beside a guard file, or below one's directory, is an ordinary file.
    for path in ["src/app.py", "policy/notes.md", "hooks/README.md"] {
        assert_eq!(tool("Write", json!({ "file_path": path })), None, "{path}");
    }
    // The plain path API says the same.
    assert!(guard().check_path("hooks.yaml").is_some());
    assert!(
        guard()
            .check_path_access("hooks.yaml", Access::Read)
            .is_none()
    );
    assert!(
        guard()
            .check_path_access("src/hooks.rs", Access::Write)
            .is_none()
    );
}

#[test]
fn the_denial_tells_the_user_how_to_change_the_file() {
    let denial = guard()
        .check_tool_call("Edit", &json!({"file_path": "hooks.yaml"}))
        .unwrap();
    assert!(
        denial.message.contains("edit it outside the agent"),
        "{}",
        denial.message
    );
    assert!(denial.message.contains("Reading it is fine"));
}

#[test]
fn the_mcp_proxys_pins_are_write_protected_and_readable() {
    for line in [
        "echo {} > .hooks/mcp-pins/everything.json",
        "rm -rf .hooks/mcp-pins",
        "sed -i 's/old/new/' .hooks/mcp-pins/git.json",
    ] {
        assert_eq!(command(line).as_deref(), Some(GUARDED), "{line}");
    }
    let pin = json!({"file_path": ".hooks/mcp-pins/everything.json", "content": "{}"});
    assert_eq!(tool("Write", pin).as_deref(), Some(GUARDED));
    assert_eq!(command("cat .hooks/mcp-pins/everything.json"), None);
}

#[test]
fn the_list_extends_and_can_be_replaced() {
    let config: SafetyConfig = serde_json::from_value(json!({
        "workspace": WORKSPACE,
        "guard_files": ["**/policy.toml"],
    }))
    .unwrap();
    let guard = Guard::new(config, &product_protection()).unwrap();
    assert!(guard.check_path("conf/policy.toml").is_some());
    assert!(guard.check_path("hooks.yaml").is_some());
    let config: SafetyConfig = serde_json::from_value(json!({
        "workspace": WORKSPACE,
        "guard_files": ["**/policy.toml"],
        "replace_defaults": ["guard_files"],
    }))
    .unwrap();
    let guard = Guard::new(config, &product_protection()).unwrap();
    assert!(guard.check_path("conf/policy.toml").is_some());
    assert!(guard.check_path("hooks.yaml").is_none());
    assert!(
        SafetyConfig::with_built_in_lists(&product_protection())
            .guard_files
            .iter()
            .any(|glob| glob == "**/.claude/settings.json")
    );
}

fn patch(lines: &[&str]) -> serde_json::Value {
    json!({ "command": format!("{}\n", lines.join("\n")) })
}

#[test]
fn a_patch_is_checked_file_by_file_as_the_write_tool_is() {
    let outside = patch(&[
        "*** Begin Patch",
        "*** Add File: ../outside.txt",
        "+x",
        "*** End Patch",
    ]);
    assert_eq!(
        tool("apply_patch", outside).as_deref(),
        tool("Write", json!({"file_path": "../outside.txt"})).as_deref()
    );
    let system = patch(&[
        "*** Begin Patch",
        "*** Add File: /etc/cron.d/job",
        "+x",
        "*** End Patch",
    ]);
    assert_eq!(
        tool("apply_patch", system).as_deref(),
        Some("system:system-path")
    );
    let climbing = patch(&[
        "*** Begin Patch",
        "*** Update File: src/../../elsewhere/a.rs",
        "@@",
        "-a",
        "+b",
        "*** End Patch",
    ]);
    assert_eq!(
        tool("apply_patch", climbing).as_deref(),
        Some("workspace:outside")
    );
    let moved = patch(&[
        "*** Begin Patch",
        "*** Update File: src/a.rs",
        "*** Move to: ../a.rs",
        "*** End Patch",
    ]);
    assert_eq!(
        tool("apply_patch", moved).as_deref(),
        Some("workspace:outside")
    );
    let secret = patch(&[
        "*** Begin Patch",
        "*** Add File: .env",
        "+TOKEN=x",
        "*** End Patch",
    ]);
    assert_eq!(
        tool("apply_patch", secret).as_deref(),
        Some("secrets:secret-file")
    );
    for path in [
        "hooks.yaml",
        ".claude/settings.json",
        "policy/agent-guard.yaml",
    ] {
        let header = format!("*** Delete File: {path}");
        let deleting = patch(&["*** Begin Patch", &header, "*** End Patch"]);
        assert_eq!(
            tool("apply_patch", deleting).as_deref(),
            Some(GUARDED),
            "{path}"
        );
    }
}

#[test]
fn a_patch_body_is_text_not_a_command() {
    let mentions = patch(&[
        "*** Begin Patch",
        "*** Add File: docs/keys.md",
        "+Never run `cat ~/.ssh/id_rsa` or `rm -rf /`.",
        "*** Update File: src/lib.rs",
        "@@",
        "-// old",
        "+// echo {} > .claude/settings.json",
        "*** End Patch",
    ]);
    assert_eq!(tool("apply_patch", mentions.clone()), None);
    // Found by its text whatever the tool is called, and in the other fields Codex uses.
    assert_eq!(tool("Bash", mentions.clone()), None);
    let text = mentions["command"].clone();
    assert_eq!(tool("apply_patch", json!({ "input": text.clone() })), None);
    assert_eq!(tool("apply_patch", json!({ "patch": text.clone() })), None);
    // Codex's shell form: `["apply_patch", PATCH]`.
    assert_eq!(
        tool("shell", json!({ "command": ["apply_patch", text] })),
        None
    );
}

#[test]
fn a_patch_that_cannot_be_read_whole_fails_closed() {
    let bad = "input:bad-patch";
    for text in [
        "*** Begin Patch\n*** Add File: a.txt\n+x\n",
        "*** Begin Patch\n*** Add File: \n+x\n*** End Patch\n",
        "*** Begin Patch\n*** Rename File: a.txt\n*** End Patch\n",
        "just some text",
    ] {
        assert_eq!(
            tool("apply_patch", json!({ "command": text })).as_deref(),
            Some(bad),
            "{text}"
        );
    }
    assert_eq!(tool("apply_patch", json!({})).as_deref(), Some(bad));
    assert_eq!(
        tool("apply_patch", json!({"command": 7})).as_deref(),
        Some(bad)
    );
    let cut = guard()
        .check_tool_call(
            "apply_patch",
            &json!({"command": "*** Begin Patch\n*** Add File: a\n"}),
        )
        .unwrap();
    assert!(cut.message.contains("End Patch"), "{}", cut.message);
}

#[test]
fn a_unified_diff_is_read_as_a_patch() {
    let diff = "--- a/hooks.yaml\n+++ b/hooks.yaml\n@@ -1 +1 @@\n-hooks: [x]\n+hooks: {}\n";
    assert_eq!(
        tool("apply_patch", json!({ "patch": diff })).as_deref(),
        Some(GUARDED)
    );
    let fine = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-a\n+cat ~/.ssh/id_rsa\n";
    assert_eq!(tool("apply_patch", json!({ "patch": fine })), None);
    let outside = "--- /dev/null\n+++ b/../x.txt\n@@ -0,0 +1 @@\n+x\n";
    assert_eq!(
        tool("apply_patch", json!({ "patch": outside })).as_deref(),
        Some("workspace:outside")
    );
}

#[test]
fn a_patch_applied_from_the_shell_is_read_as_a_patch() {
    let heredoc =
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: hooks.yaml\n*** End Patch\nEOF";
    assert_eq!(command(heredoc).as_deref(), Some(GUARDED));
    let harmless = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.md\n+see ~/.ssh/id_rsa\n*** End Patch\nEOF";
    assert_eq!(command(harmless), None);
    let diff = "patch -p1 <<'EOF'\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-{\"hooks\": 1}\n+{}\nEOF";
    assert_eq!(command(diff).as_deref(), Some(GUARDED));
    assert_eq!(
        command("patch hooks.yaml fix.diff").as_deref(),
        Some(GUARDED)
    );
}

#[test]
fn a_symbolic_link_to_a_guard_file_is_refused_and_followed_by_file_tools() {
    let root = std::env::temp_dir().join(format!("hooks-self-guard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), "{}").unwrap();
    std::os::unix::fs::symlink(".claude/settings.json", root.join("innocent.json")).unwrap();
    let guard = Guard::new(
        SafetyConfig {
            workspace: Some(root.clone()),
            ..SafetyConfig::default()
        },
        &product_protection(),
    )
    .unwrap();
    let linking = guard
        .check("ln -s .claude/settings.json other.json", &root)
        .map(|d| d.id());
    let by_tool = guard
        .check_tool_call("Write", &json!({"file_path": "innocent.json"}))
        .map(|d| d.id());
    let read = guard.check("cat innocent.json", &root);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(linking.as_deref(), Some(GUARDED));
    assert_eq!(by_tool.as_deref(), Some(GUARDED));
    assert_eq!(read, None);
}

#[test]
fn the_managed_and_user_policy_files_are_guard_files() {
    // Under /etc, the system directories' rule comes first; refused either way.
    for path in ["/etc/hooks/hooks.yaml", "/etc/hooks/team-rules.yaml"] {
        let write = json!({"file_path": path, "content": "hooks: {}"});
        assert!(tool("Write", write).is_some(), "{path}");
    }
    for path in [
        "/Library/Application Support/hooks/hooks.yaml",
        "/home/dev/.config/hooks/hooks.yaml",
        "/home/dev/.config/hooks/extra.yaml",
    ] {
        let write = json!({"file_path": path, "content": "hooks: {}"});
        assert_eq!(tool("Write", write).as_deref(), Some(GUARDED), "{path}");
    }
    for line in [
        "rm ~/.config/hooks/hooks.yaml",
        "echo 'hooks: {}' > /home/dev/.config/hooks/hooks.yaml",
        "mv /home/dev/.config/hooks /tmp/off",
    ] {
        assert_eq!(command(line).as_deref(), Some(GUARDED), "{line}");
    }
    // Reading is not refused as a change (outside the workspace, confinement has its say).
    let read = json!({"file_path": "/home/dev/.config/hooks/hooks.yaml"});
    assert_ne!(tool("Read", read).as_deref(), Some(GUARDED));
}

#[cfg(unix)]
#[test]
fn a_write_through_an_existing_link_to_a_guard_file_is_refused() {
    let workspace = std::env::temp_dir().join(format!("hooks-safety-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&workspace);
    std::fs::create_dir_all(workspace.join(".claude")).unwrap();
    std::fs::write(workspace.join(".claude/settings.json"), "{}").unwrap();
    std::fs::write(workspace.join("plain.txt"), "").unwrap();
    // Links already in the tree: one to the agent's settings, one to an ordinary file.
    std::os::unix::fs::symlink(".claude/settings.json", workspace.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink("plain.txt", workspace.join("other.txt")).unwrap();
    let guard = Guard::new(
        SafetyConfig {
            workspace: Some(workspace.clone()),
            ..SafetyConfig::default()
        },
        &product_protection(),
    )
    .unwrap();
    let check = |line: &str| guard.check(line, &workspace).map(|denial| denial.id());
    for line in [
        "echo '{}' > notes.txt",
        "truncate -s 0 notes.txt",
        "sed -i 's/a/b/' notes.txt",
        "cp /dev/null notes.txt",
    ] {
        assert_eq!(check(line).as_deref(), Some(GUARDED), "{line}");
    }
    for line in ["echo x > other.txt", "echo x > plain.txt", "cat notes.txt"] {
        assert_eq!(check(line), None, "{line}");
    }
    let _ = std::fs::remove_dir_all(&workspace);
}
