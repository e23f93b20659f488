//! The subcommands a lean guard build leaves out, handed to its companion binary.
//!
//! `cargo install-guard` installs two binaries side by side: `hooks`, the guard an agent starts
//! on every tool call (no HTTP client, no MCP proxy, no server: a static executable that starts
//! in well under 2× a `/bin/true` spawn), and [`COMPANION`], the default build, which has all of
//! them. Carrying the proxy and the server in the guard itself made every tool call pay for
//! them (BENCHMARKS.md, "An agent's per-event hook"), so the guard runs what it lacks by
//! executing the companion in its place, with the same arguments: `hooks serve`, `hooks
//! mcp-proxy` and `hooks mcp ...` behave the same whichever binary a user or a wrapped MCP
//! configuration names. Agent subcommands are never handed over: the guard answers them itself,
//! and fails closed itself.
//!
//! The companion names the guard, not itself, in what it writes (settings entries, a service's
//! command line): see [`guard_beside`].

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The companion's file name, beside the guard (`hooks-full.exe` on Windows).
pub const COMPANION: &str = "hooks-full";

/// What `hooks --help` adds in a build that hands subcommands over.
#[cfg(not(all(feature = "mcp", feature = "serve")))]
pub const HELP: &str = "Also: `hooks mcp-proxy`, `hooks mcp`, `hooks serve` and `hooks init --serve`, \
                        run by the companion `hooks-full` installed beside this binary \
                        (`hooks <subcommand> --help`).";

/// What this build leaves to the companion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing {
    /// `hooks mcp-proxy` and `hooks mcp ...` (the `mcp` feature).
    pub mcp: bool,
    /// `hooks serve`, `hooks init --serve` and `hooks doctor`'s check of a running server (the
    /// `serve` feature).
    pub serve: bool,
}

/// What this build leaves out, from its features.
pub const MISSING: Missing = Missing {
    mcp: cfg!(not(feature = "mcp")),
    serve: cfg!(not(feature = "serve")),
};

/// Whether a command line goes to the companion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// Its subcommand is not in this build: without the companion it cannot run.
    Required,
    /// This build runs it with less (`hooks doctor` without the server's check, `hooks init`
    /// without `--serve`): the companion runs it when it is there.
    IfPresent,
}

/// Whether `args` (the whole command line, the program first) go to the companion, for a build
/// that leaves out `missing`.
pub fn handover(args: &[OsString], missing: Missing) -> Option<Handover> {
    let words: Vec<&OsStr> = args.iter().skip(1).map(OsString::as_os_str).collect();
    // `hooks help serve` is `hooks serve --help`.
    let words = match words.as_slice() {
        [help, rest @ ..] if *help == "help" && !rest.is_empty() => rest,
        words => words,
    };
    let (subcommand, rest) = words.split_first()?;
    let flagged = |flag: &str| {
        rest.iter().any(|word| {
            word.to_str()
                .is_some_and(|word| word == flag || word.starts_with(&format!("{flag}=")))
        })
    };
    let subcommand = subcommand.to_str()?;
    match subcommand {
        "mcp-proxy" | "mcp" if missing.mcp => Some(Handover::Required),
        "serve" if missing.serve => Some(Handover::Required),
        "init" if missing.serve && (flagged("--serve") || flagged("--listen")) => {
            Some(Handover::Required)
        }
        // The companion's `init` takes `--serve` (and its help says so) and `doctor` checks the
        // server too; this build's do the rest as well.
        "init" | "doctor" if missing.serve => Some(Handover::IfPresent),
        _ => None,
    }
}

/// The companion beside the binary at `exe`, when it is there.
pub fn companion_beside(exe: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(exe).ok()?.parent()?.to_path_buf();
    let companion = dir.join(format!("{COMPANION}{}", std::env::consts::EXE_SUFFIX));
    companion.is_file().then_some(companion)
}

/// The guard beside the binary at `exe` when `exe` is the companion: the binary the settings
/// and services it writes should run, so that an agent's hooks start the lean guard and a
/// resident server runs as `hooks serve`. `None` for any other binary.
pub fn guard_beside(exe: &Path) -> Option<PathBuf> {
    let name = exe.file_stem()?;
    if name != COMPANION {
        return None;
    }
    let guard = exe.with_file_name(format!("hooks{}", std::env::consts::EXE_SUFFIX));
    guard.is_file().then_some(guard)
}

/// Runs `args` with the companion in this process's place; `None` when a [`Handover::IfPresent`]
/// finds no companion (this build runs the command then). A [`Handover::Required`] without a
/// companion is an error saying what to install.
pub fn hand_over(args: &[OsString], handover: Handover) -> Option<ExitCode> {
    let subcommand = args
        .iter()
        .skip(1)
        .find(|word| *word != "help")
        .map(|word| word.to_string_lossy().into_owned())
        .unwrap_or_default();
    let exe = std::env::current_exe().ok();
    let companion = exe.as_deref().and_then(companion_beside);
    let missing = |why: String| {
        eprintln!(
            "hooks: `hooks {subcommand}` is not in this build of the guard; {why} (`cargo \
             install-guard` installs it beside `hooks`, docs/install.md)"
        );
        Some(ExitCode::from(1))
    };
    let companion = match (companion, handover) {
        (Some(companion), _) => companion,
        (None, Handover::IfPresent) => return None,
        (None, Handover::Required) => {
            return missing(format!(
                "it is run by `{COMPANION}`, which is not beside it"
            ));
        }
    };
    // A lean build installed as the companion would hand the command to itself.
    if exe.and_then(|exe| std::fs::canonicalize(exe).ok()) == Some(companion.clone()) {
        return missing(format!("`{COMPANION}` lacks it too"));
    }
    let mut command = std::process::Command::new(&companion);
    command.args(&args[1..]);
    Some(run_in_place(command, &args[0], &companion))
}

/// In the companion, takes the guard's process name (Linux's `comm`, which `killall` and `pkill`
/// match; the command line keeps the guard's from the hand-over): the process is `hooks serve`
/// to whoever looks, as it was before the hand-over, so that the guard's own rules about
/// stopping it (`guard:stop-guard`) hold for it alike. Only a build with every subcommand can
/// be the companion.
#[cfg(all(feature = "mcp", feature = "serve"))]
pub fn take_the_guards_name() {
    let is_companion = std::env::current_exe()
        .ok()
        .is_some_and(|exe| exe.file_stem().is_some_and(|name| name == COMPANION));
    #[cfg(target_os = "linux")]
    if is_companion {
        // The main thread's name is the process's; at the start it is the only thread.
        let _ = std::fs::write("/proc/self/comm", "hooks");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = is_companion;
}

/// A build that hands subcommands over is never the companion.
#[cfg(not(all(feature = "mcp", feature = "serve")))]
pub fn take_the_guards_name() {}

/// Executes `command` in place of this process, its program name kept (`ps` and `pgrep` see
/// `hooks serve`, as they would without the hand-over).
#[cfg(unix)]
fn run_in_place(mut command: std::process::Command, program: &OsStr, path: &Path) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = command.arg0(program).exec();
    eprintln!("hooks: cannot run {}: {error}", path.display());
    ExitCode::from(1)
}

/// Runs `command` to its end and exits as it did (no `exec` here).
#[cfg(not(unix))]
fn run_in_place(mut command: std::process::Command, _program: &OsStr, path: &Path) -> ExitCode {
    match command.status() {
        Ok(status) => ExitCode::from(
            status
                .code()
                .and_then(|code| u8::try_from(code).ok())
                .unwrap_or(1),
        ),
        Err(error) => {
            eprintln!("hooks: cannot run {}: {error}", path.display());
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEAN: Missing = Missing {
        mcp: true,
        serve: true,
    };
    const FULL: Missing = Missing {
        mcp: false,
        serve: false,
    };

    fn handover_of(line: &str, missing: Missing) -> Option<Handover> {
        let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        handover(&args, missing)
    }

    #[test]
    fn the_lean_build_hands_over_what_it_lacks() {
        for line in [
            "hooks mcp-proxy --config hooks.yaml -- server",
            "hooks mcp wrap claude",
            "hooks mcp-proxy --help",
            "hooks serve --ensure",
            "hooks serve",
            "hooks help serve",
            "hooks help mcp-proxy",
            "hooks init claude --serve",
            "hooks init qwen --serve --listen=127.0.0.1:9000",
        ] {
            assert_eq!(handover_of(line, LEAN), Some(Handover::Required), "{line}");
        }
        for line in [
            "hooks doctor --json",
            "hooks init claude",
            "hooks init --help",
        ] {
            assert_eq!(handover_of(line, LEAN), Some(Handover::IfPresent), "{line}");
        }
    }

    #[test]
    fn the_guard_keeps_its_agents_and_the_rest() {
        for line in [
            "hooks claude --config hooks.yaml",
            "hooks codex --config serve",
            "hooks check serve",
            "hooks eval --config hooks.yaml --event serve",
            "hooks --help",
            "hooks help",
            "hooks",
        ] {
            assert_eq!(handover_of(line, LEAN), None, "{line}");
        }
    }

    #[test]
    fn the_full_build_hands_over_nothing() {
        for line in [
            "hooks mcp-proxy --config hooks.yaml -- server",
            "hooks serve",
            "hooks init claude --serve",
            "hooks doctor",
        ] {
            assert_eq!(handover_of(line, FULL), None, "{line}");
        }
    }

    #[test]
    fn the_companion_names_the_guard_beside_it_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("hooks-companion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let suffix = std::env::consts::EXE_SUFFIX;
        let companion = dir.join(format!("{COMPANION}{suffix}"));
        let guard = dir.join(format!("hooks{suffix}"));
        std::fs::write(&companion, "").unwrap();
        // No guard beside it yet: it names itself.
        assert_eq!(guard_beside(&companion), None);
        std::fs::write(&guard, "").unwrap();
        assert_eq!(guard_beside(&companion), Some(guard.clone()));
        assert_eq!(
            companion_beside(&guard),
            Some(companion.canonicalize().unwrap())
        );
        assert_eq!(
            companion_beside(&companion),
            Some(companion.canonicalize().unwrap())
        );
        assert_eq!(guard_beside(&guard), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
