//! The agent cannot reconfigure the guard through the guard's own binary: `hooks init`,
//! `hooks mcp approve|wrap|unwrap`, `hooks serve --install|--uninstall` and `hooks import
//! --output` are the user's, whatever the packs and however the command is wrapped, while the
//! commands that read or only print stay allowed.

#![allow(clippy::unwrap_used)]

mod common;

use common::denial as check_with;

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
