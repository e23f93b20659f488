//! The guard's own commands that change the guard are the user's (`guard:self-admin`): run by
//! the agent, the `hooks` binary would rewrite the files the guard-file rule protects on its
//! behalf, or trust what the pins hold back.
//!
//! | command | why it is the user's |
//! |---|---|
//! | `hooks init <agent>` | rewrites the agent's hook settings and the hooks file (`--dry-run` only prints) |
//! | `hooks mcp approve` | trusts the tool definitions the pins hold back (a rug pull, a poisoned description) |
//! | `hooks mcp wrap` / `unwrap` | rewrites the agent's MCP configurations, or takes the proxy out of them (`--dry-run` only prints) |
//! | `hooks serve --install` / `--uninstall` | writes or removes the resident guard's user service (`--dry-run` only prints) |
//! | `hooks import … --output FILE` | writes a hooks file (to stdout, it only prints) |
//!
//! Everything else the binary does reads or decides and passes: `check`, `eval`, `test`,
//! `replay`, `doctor`, `events`, `mcp pins`, `serve` itself, `--help` anywhere.

use super::{Denial, Rule, Severity};
use crate::programs::operands;

/// Changing the guard's own setup through its binary.
pub(crate) const SELF_ADMIN: Rule = Rule {
    pack: "guard",
    name: "self-admin",
    severity: Severity::Critical,
    reason: "changes the guard's own setup (the agents' hook settings, the hooks file, the MCP \
             servers it wraps or the tools it trusts) through the `hooks` binary, which is the \
             user's to do",
    alternative: "tell the user the command, and let them run it outside the agent",
};

/// The guard's binaries, as [`program_name`](crate::programs::program_name) gives them: the
/// guard, and the companion installed beside it that runs its `init`, `mcp` and `serve`.
const BINARIES: &[&str] = &["hooks", "hooks-full"];

/// Why `program` with `args` must not run, if it is the guard's binary changing the guard.
pub(crate) fn administers_guard(program: &str, args: &[String]) -> Option<Denial> {
    if !BINARIES.contains(&program) || changes_guard(args).is_none() {
        return None;
    }
    let mut shown = vec![program.to_owned()];
    shown.extend(args.iter().cloned());
    Some(Denial::explained(&SELF_ADMIN, &shown.join(" ")))
}

/// The subcommand of `hooks` in `args` that changes the guard, if it does.
fn changes_guard(args: &[String]) -> Option<&'static str> {
    let (options, words) = operands(args);
    let has = |flag: &str| options.contains(&flag);
    if has("-h") || has("--help") || words.first() == Some(&"help") {
        return None;
    }
    let prints_only = has("--dry-run");
    match words.as_slice() {
        ["init", ..] if !prints_only => Some("init"),
        ["mcp", "approve", ..] => Some("mcp approve"),
        ["mcp", "wrap" | "unwrap", ..] if !prints_only => Some("mcp wrap"),
        ["serve", ..] if (has("--install") || has("--uninstall")) && !prints_only => {
            Some("serve --install")
        }
        ["import", ..] if writes_output(&options) => Some("import --output"),
        _ => None,
    }
}

/// Whether `hooks import`'s options name a file to write (`-o FILE`, `-oFILE`,
/// `--output FILE`, `--output=FILE`).
fn writes_output(options: &[&str]) -> bool {
    options.iter().any(|option| {
        *option == "-o"
            || *option == "--output"
            || option.starts_with("--output=")
            || (option.starts_with("-o") && !option.starts_with("--"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(command: &str) -> bool {
        let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        let (program, args) = words.split_first().unwrap();
        administers_guard(program, args).is_some()
    }

    #[test]
    fn commands_that_change_the_guard_are_refused() {
        for command in [
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
            "hooks-full init claude",
            "hooks-full serve --uninstall",
            "hooks-full mcp approve --all",
        ] {
            assert!(denied(command), "{command} passed");
        }
    }

    #[test]
    fn commands_that_read_or_only_print_pass() {
        for command in [
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
            assert!(!denied(command), "{command} was refused");
        }
    }
}
