//! ARCHITECTURE.md's invariants on what a crate may know: the checker (`hooks-safety`) knows no
//! `hooks` subcommand, and no agent's wire names (its own event names) are written outside the
//! agents' descriptions (`hooks_config::interop`).

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::collections::BTreeSet;

use support::{members, root, rust_files, string_literals, tokens};

/// The subcommands of the `hooks` binary, read from its clap tree: the top-level ones and
/// those of `hooks mcp`.
fn subcommands() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = support::clap_variants("hooks-cli/src/main.rs", "Command")
        .into_iter()
        .collect();
    names.extend(support::clap_variants("hooks-cli/src/mcp.rs", "McpCommand"));
    names
}

/// Literals of hooks-safety equal to a subcommand's name for another reason: the Unix `init`
/// (`init 0` halts the machine), which the disk and system packs judge, and the shell's `eval`
/// and `test`, which the walker reads through.
const NOT_THE_SUBCOMMAND: &[(&str, &str)] = &[
    ("hooks-safety/src/packs/disk.rs", "init"),
    ("hooks-safety/src/packs/here.rs", "init"),
    ("hooks-safety/src/programs.rs", "eval"),
    ("hooks-safety/src/walk.rs", "eval"),
    ("hooks-safety/src/walk.rs", "test"),
    // `test` among the programs that only look at a directory, never read its files.
    ("hooks-safety/src/packs/secrets.rs", "test"),
];

/// What of the `hooks` binary a string literal of hooks-safety names, if anything: the binary
/// (`"hooks"`, `"hooks init"`) or one of its subcommands.
fn names_the_binary(literal: &str, subcommands: &BTreeSet<String>) -> bool {
    literal == "hooks" || literal.starts_with("hooks ") || subcommands.contains(literal)
}

#[test]
fn the_subcommands_are_read_from_the_clap_tree() {
    let names = subcommands();
    for name in [
        "eval",
        "init",
        "doctor",
        "serve",
        "mcp-proxy",
        "mcp",
        "approve",
        "wrap",
    ] {
        assert!(names.contains(name), "{name} missing from {names:?}");
    }
    // The agents' subcommands come from the agents' list, flattened in.
    assert!(!names.contains("agent"), "{names:?}");
}

#[test]
fn hooks_safety_names_no_hooks_subcommand() {
    let subcommands = subcommands();
    let src = root().join("hooks-safety/src");
    let mut offences = Vec::new();
    for file in rust_files(&src) {
        let shown = file.strip_prefix(root()).unwrap().display().to_string();
        for literal in string_literals(tokens(&file)) {
            let excused = NOT_THE_SUBCOMMAND.contains(&(shown.as_str(), literal.as_str()));
            if names_the_binary(&literal, &subcommands) && !excused {
                offences.push(format!("{shown}: \"{literal}\""));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "hooks-safety names the hooks binary or its subcommands (hand them to the checker from \
         hooks-cli instead):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_checks_of_literals_see_what_they_look_for() {
    let subcommands: BTreeSet<String> = ["init", "serve"].map(str::to_owned).into();
    assert!(names_the_binary("hooks", &subcommands));
    assert!(names_the_binary("hooks init", &subcommands));
    assert!(names_the_binary("serve", &subcommands));
    assert!(!names_the_binary("hooks-cli", &subcommands));
    assert!(!names_the_binary(".kiro/hooks/**", &subcommands));
    let code = "/// \"serve\" in a doc\nconst A: &str = \"serve\";\n#[cfg(test)]\nmod tests { \
                const B: &str = \"hooks\"; }\nfn f() { g(r#\"raw\"#, 'c', 1); }\n";
    assert_eq!(string_literals(code.parse().unwrap()), ["serve", "raw"]);
}

/// An agent's own event name that no other text would hold by chance: a compound word in
/// camel or Pascal case (`PreToolUse`, `beforeShellExecution`); `Stop` and `stop` are words.
fn distinctive(event: &str) -> bool {
    event.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && event.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The places outside `interop` that may hold agents' event names, each with why:
const WIRE_NAMES_ALLOWED: &[(&str, &str)] = &[
    // The taxonomy's PascalCase aliases (`PreToolUse` is `tool:pre`), the reference's names,
    // which Claude Code shares.
    ("hooks-events/src/", "the taxonomy's aliases"),
    // The rest of hooks-config reads an agent's event through `interop` only; its settings
    // importer maps events by the agent's protocol, given.
    ("hooks-config/src/interop/", "the agents' descriptions"),
];

/// Places that still hold agents' event names, whose facts are being moved into the agents'
/// rows (the HTTP hooks' events and Claude Code's blocking events); the test fails when one is
/// clean, so that its line goes too.
const WIRE_NAMES_BEING_MOVED: &[&str] = &[
    "hooks-cli/src/doctor.rs",
    "hooks-cli/src/init.rs",
    "hooks-cli/src/serve/reply.rs",
];

#[test]
fn no_agent_event_name_outside_the_agents_descriptions() {
    let mut names = BTreeSet::new();
    for agent in hooks_config::interop::AGENTS {
        for (event, _) in agent.profile().protocol.events {
            if distinctive(event) {
                names.insert(*event);
            }
        }
    }
    assert!(names.contains("PreToolUse") && names.contains("beforeShellExecution"));
    let mut offences = BTreeSet::new();
    let mut moving = BTreeSet::new();
    for member in members() {
        for file in rust_files(&root().join(&member).join("src")) {
            let shown = file.strip_prefix(root()).unwrap().display().to_string();
            if WIRE_NAMES_ALLOWED
                .iter()
                .any(|(prefix, _)| shown.starts_with(prefix))
            {
                continue;
            }
            for literal in string_literals(tokens(&file)) {
                if names.contains(literal.as_str()) {
                    match WIRE_NAMES_BEING_MOVED.iter().find(|m| shown == **m) {
                        Some(moved) => {
                            moving.insert(*moved);
                        }
                        None => {
                            offences.insert(format!("{shown}: \"{literal}\""));
                        }
                    }
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "agents' event names outside hooks_config::interop (read them from the agent's \
         description instead):\n{}",
        offences.into_iter().collect::<Vec<_>>().join("\n")
    );
    let clean: Vec<&&str> = WIRE_NAMES_BEING_MOVED
        .iter()
        .filter(|m| !moving.contains(*m))
        .collect();
    assert!(
        clean.is_empty(),
        "no longer holding event names, remove: {clean:?}"
    );
}

#[test]
fn distinctive_event_names_are_compound_words() {
    assert!(distinctive("PreToolUse"));
    assert!(distinctive("beforeShellExecution"));
    assert!(!distinctive("Stop"));
    assert!(!distinctive("stop"));
    assert!(!distinctive("tool:pre"));
}
