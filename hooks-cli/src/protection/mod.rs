//! What the guard keeps from the agent of the `hooks` binary itself: its subcommands that change
//! the guard's setup (`guard:self-admin`), its resident processes, `hooks serve` and
//! `hooks mcp-proxy` (`guard:stop-guard`), and the files only the binary writes (the MCP proxy's
//! pins, the MCP configurations `hooks mcp wrap` rewrites, `hooks serve`'s user service).
//!
//! The checker knows none of it: [`self_protection`] hands it over, through the binary's
//! module catalog ([`catalog`](crate::modules::catalog)), to every hooks file's `safety`
//! module; what any loader of hooks files protects (the agents' settings, the hooks files, the
//! policy layers) comes from `hooks_config::protection`.
//!
//! Every subcommand is marked in [`SUBCOMMANDS`] as reading or changing the setup; a test
//! walks the command line's clap tree and fails on a subcommand that is not, so that a new one
//! is classified the day it is added.

use hooks_std::safety::{AdminCommand, AdminProgram, ResidentProcess, SelfProtection};

#[cfg(test)]
mod tests;

/// The binary's name, as an agent's shell runs it.
pub const BINARY: &str = env!("CARGO_BIN_NAME");

/// The address `hooks serve` listens on by default (its `DEFAULT_LISTEN`): here, so that a
/// binary built without `serve` keeps it from the agent too.
pub const SERVE_LISTEN: &str = "127.0.0.1:8787";

/// The port of [`SERVE_LISTEN`] (a test holds them equal).
const SERVE_PORT: u16 = 8787;

/// The systemd unit `hooks serve --install` writes (its `service::UNIT`).
pub const SERVE_UNIT: &str = "hooks-serve.service";

/// The launchd label `hooks serve --install` writes (its `service::LABEL`).
pub const SERVE_LABEL: &str = "hooks.serve";

/// Where the MCP proxy keeps a project's tool pins, beside its hooks file (hooks-mcp's
/// `PROJECT_PINS_DIR`): an agent that rewrites them approves its own rug pull.
pub const PINS_DIR: &str = ".hooks/mcp-pins";

/// The MCP configurations `hooks mcp wrap` runs through the proxy, relative to a project,
/// besides those that are an agent's settings (Gemini CLI's, Codex CLI's): an agent that
/// unwraps a server calls it unguarded.
const MCP_CONFIGS: &[&str] = &[".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"];

/// How a subcommand touches the guard's setup (the agents' hook settings, the hooks file, the
/// MCP servers it wraps, the tools it trusts, its user service).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// It reads or decides, and changes none of it.
    Reads,
    /// It changes the setup: when one of `when_any` is given (none: always), unless one of
    /// `unless_any` is.
    Writes {
        /// Options of which one must be given for it to write.
        when_any: &'static [&'static str],
        /// Options that make it only print.
        unless_any: &'static [&'static str],
    },
}

/// `--dry-run` only prints what would change.
const UNLESS_DRY_RUN: Setup = Setup::Writes {
    when_any: &[],
    unless_any: &["--dry-run"],
};

/// Every subcommand of the binary by its words, but the agents' (`hooks claude`, one per
/// agent of `AGENTS`, which answer the agent's hook and read the setup): what it does to the
/// guard's setup. A subcommand of a build without a feature is listed all the same: the agent
/// may run another build.
pub const SUBCOMMANDS: &[(&str, Setup)] = &[
    ("eval", Setup::Reads),
    ("check", Setup::Reads),
    ("events", Setup::Reads),
    ("test", Setup::Reads),
    ("replay", Setup::Reads),
    ("demo", Setup::Reads),
    // Rewrites the agent's hook settings and the hooks file.
    ("init", UNLESS_DRY_RUN),
    ("doctor", Setup::Reads),
    ("mcp-proxy", Setup::Reads),
    ("mcp pins", Setup::Reads),
    // Trusts the tool definitions the pins hold back (a rug pull, a poisoned description).
    (
        "mcp approve",
        Setup::Writes {
            when_any: &[],
            unless_any: &[],
        },
    ),
    // Accepts a change of the guard's configuration for the sessions running.
    (
        "trust",
        Setup::Writes {
            when_any: &[],
            unless_any: &[],
        },
    ),
    // Rewrite the agent's MCP configurations, or take the proxy out of them.
    ("mcp wrap", UNLESS_DRY_RUN),
    ("mcp unwrap", UNLESS_DRY_RUN),
    // Writes or removes the resident guard's user service; serving itself reads.
    (
        "serve",
        Setup::Writes {
            when_any: &["--install", "--uninstall"],
            unless_any: &["--dry-run"],
        },
    ),
    // Writes a hooks file (to stdout, it only prints).
    (
        "import",
        Setup::Writes {
            when_any: &["--output", "-o"],
            unless_any: &[],
        },
    ),
];

/// What the guard keeps from the agent of this binary: its pins, the MCP configurations it
/// wraps, `hooks serve`'s service files (write-protected), `hooks serve` and `hooks mcp-proxy`
/// (kept running) and the subcommands of [`SUBCOMMANDS`] that change the setup (refused).
pub fn self_protection() -> SelfProtection {
    let mut guard_files = vec![format!("**/{PINS_DIR}/**")];
    guard_files.extend(MCP_CONFIGS.iter().map(|config| format!("**/{config}")));
    // The service's token and log are in the hooks' state folder, a protected file already;
    // an agent that edits the service chooses the next server's policy.
    guard_files.extend([
        format!("**/systemd/user/{SERVE_UNIT}"),
        format!("**/systemd/user/**/{SERVE_UNIT}"),
        format!("**/Library/LaunchAgents/{SERVE_LABEL}.plist"),
    ]);
    SelfProtection {
        guard_files,
        own_files: Vec::new(),
        resident: vec![resident()],
        // The guard and its companion, which runs the guard's `init`, `mcp` and `serve`.
        admin: vec![admin(BINARY), admin(crate::companion::COMPANION)],
    }
}

/// `hooks serve` and `hooks mcp-proxy`, as the tools that stop processes name them. The
/// proxy's upstream command and the options a given server runs with cannot be known here,
/// and are left out.
fn resident() -> ResidentProcess {
    ResidentProcess::new(BINARY)
        .command_line(&format!("{BINARY} serve --listen {SERVE_LISTEN}"))
        .command_line(&format!("{BINARY} mcp-proxy"))
        .port(SERVE_PORT)
        .systemd_unit(SERVE_UNIT)
        .launchd_label(SERVE_LABEL)
        .reason(&format!(
            "stops the resident guard (`{BINARY} serve`, `{BINARY} mcp-proxy`) that answers this \
             agent's hooks, which would switch the guard off"
        ))
}

/// The binary called `name`, with the subcommands of [`SUBCOMMANDS`] that change the setup.
fn admin(name: &str) -> AdminProgram {
    let mut program = AdminProgram::new(name).reason(&format!(
        "changes the guard's own setup (the agents' hook settings, the hooks file, the MCP \
         servers it wraps or the tools it trusts) through the `{name}` binary, which is the \
         user's to do"
    ));
    for (path, setup) in SUBCOMMANDS {
        if let Setup::Writes {
            when_any,
            unless_any,
        } = setup
        {
            let words: Vec<&str> = path.split(' ').collect();
            program = program.command(
                AdminCommand::writes(&words)
                    .when_any(when_any)
                    .unless_any(unless_any),
            );
        }
    }
    program
}
