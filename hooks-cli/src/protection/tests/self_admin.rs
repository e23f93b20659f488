//! The agent cannot reconfigure the guard through the guard's own binary: `hooks init`,
//! `hooks mcp approve|wrap|unwrap`, `hooks serve --install|--uninstall` and `hooks import
//! --output` are the user's, whatever the packs and however the command is wrapped, while the
//! commands that read or only print stay allowed.

use super::denial as check_with;

#[test]
fn the_binary_changing_the_guard_is_refused_however_it_is_run() {
    for line in [
        "hooks mcp approve --all",
        "~/.cargo/bin/hooks mcp approve filesystem --config hooks.yaml",
        "cd sub && hooks init claude --config ../lax.yaml",
        "bash -c 'hooks mcp unwrap'",
        "env HOME=/tmp hooks serve --uninstall",
        "echo y | hooks init gemini",
        "timeout 5 ./target/release/hooks import claude .claude/settings.json -o hooks.yaml",
        "find . -name hooks.yaml -exec hooks mcp wrap --config {} \\;",
    ] {
        let (id, reason) =
            check_with(&["default"], line).unwrap_or_else(|| panic!("{line} passed"));
        assert_eq!(id, "guard:self-admin", "{line}");
        assert!(reason.contains("user"), "{line}: {reason}");
    }
    // No pack switches it off.
    assert_eq!(
        check_with(&[], "hooks mcp approve --all").map(|(id, _)| id),
        Some("guard:self-admin".to_owned())
    );
}

#[test]
fn reading_checking_and_printing_pass() {
    for line in [
        "hooks check hooks.yaml",
        "hooks test cases.yaml --json",
        "hooks eval --config hooks.yaml tool:pre '{}'",
        "hooks doctor",
        "hooks mcp pins",
        "hooks init claude --dry-run",
        "hooks mcp wrap --dry-run",
        "hooks serve --install --dry-run",
        "hooks import claude .claude/settings.json",
        "hooks mcp approve --help",
        "grep -r 'hooks init' docs",
    ] {
        assert_eq!(check_with(&["default"], line), None, "{line}");
    }
}

#[test]
fn each_subcommand_that_changes_the_guard_and_each_that_only_prints() {
    for line in [
        "hooks init claude",
        "hooks init codex --config lax.yaml",
        "hooks mcp approve --all",
        "hooks mcp approve filesystem",
        "hooks mcp unwrap",
        "hooks mcp wrap --config other.yaml",
        "hooks serve --uninstall",
        "hooks serve --install --listen 127.0.0.1:9000",
        "hooks import claude .claude/settings.json -o hooks.yaml",
        "hooks import claude settings.json --output=hooks.yaml",
        "hooks trust --config hooks.yaml",
        // The companion installed beside the guard runs the same subcommands.
        "hooks-full init claude",
        "hooks-full serve --uninstall",
        "hooks-full mcp approve --all",
    ] {
        let refused = check_with(&[], line).map(|(id, _)| id);
        assert_eq!(refused.as_deref(), Some("guard:self-admin"), "{line}");
    }
    for line in [
        "hooks check hooks.yaml",
        "hooks doctor --json",
        "hooks mcp pins",
        "hooks init claude --dry-run",
        "hooks mcp unwrap --dry-run",
        "hooks serve --install --dry-run",
        "hooks serve --ensure",
        "hooks import claude .claude/settings.json",
        "hooks init --help",
        "hooks help init",
        "hooks-dev init",
    ] {
        assert_eq!(check_with(&[], line), None, "{line}");
    }
}
