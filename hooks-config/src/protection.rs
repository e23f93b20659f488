//! What the `safety` module keeps from the agent of the hooks this crate loads: the
//! [`SelfProtection`] every hooks file's modules are built with ([`self_protection`]).
//!
//! The checker (`hooks-safety`) knows none of it; these are the facts of the files this crate
//! reads, each from where it is defined:
//!
//! | kept | what | from |
//! |---|---|---|
//! | write-protected | the hooks files (`hooks.yaml`, `hooks.yml`, `.hooks.yaml`, `.hooks.yml`) | [`HOOKS_FILES`] |
//! | write-protected | every agent's hook settings, in a project and the home directory | each agent's row, [`Profile::guard_globs`](crate::interop::Profile::guard_globs) |
//! | write-protected | the policy layers' folders: the managed one (macOS's `/Library/Application Support/hooks/`, or `$HOOKS_MANAGED_DIR`; Linux's `/etc/hooks/` is a system directory already) and the user's (`~/.config/hooks/`, or `$XDG_CONFIG_HOME/hooks/`) | [`LayerPaths`](crate::LayerPaths) |
//! | read and write refused | the session states (remembered answers, what a prompt gate let through) and compiled WebAssembly hooks: `~/.local/state/hooks/`, `~/.cache/hooks/`, or where `$HOOKS_STATE_DIR`, `$XDG_STATE_HOME`, `$HOOKS_WASM_CACHE` or `$XDG_CACHE_HOME` put them | hooks-std's state files, hooks-wasm's cache |
//!
//! So an application that loads a hooks file through this crate, without the `hooks` binary,
//! has its agents' settings and hooks files write-protected. What only the binary has (its
//! subcommands that change the setup, `hooks serve` and `hooks mcp-proxy`, their pins, service
//! and the MCP configurations `hooks mcp wrap` rewrites) the binary adds through its module
//! catalog ([`ModuleCatalog::protect`](crate::ModuleCatalog::protect)).

use std::path::{Path, PathBuf};

use hooks_std::safety::SelfProtection;
use hooks_std::state_file::STATE_DIR_ENV;

use crate::interop::AGENTS;
use crate::layers::{LAYER_FILE, MANAGED_DIR_VAR};

/// The names of a hooks file: `hooks.yaml` is what `hooks init` writes and `--config` defaults
/// to, the others its usual spellings.
pub const HOOKS_FILES: &[&str] = &[LAYER_FILE, "hooks.yml", ".hooks.yaml", ".hooks.yml"];

/// The managed policy's folder on macOS, write-protected wherever the guard runs (a path
/// checked on another system names nothing there).
const MACOS_MANAGED_DIR: &str = "/Library/Application Support/hooks";

/// The hooks' own folders under the home directory: session states and compiled
/// WebAssembly hooks (machine code the next `hooks` process runs).
const OWN_FILES: &[&str] = &["**/.local/state/hooks/**", "**/.cache/hooks/**"];

/// The environment variable that moves the compiled WebAssembly hooks (hooks-wasm's cache,
/// which this crate builds only with its `wasm` feature).
const WASM_CACHE_ENV: &str = "HOOKS_WASM_CACHE";

/// Whether an environment variable names the folder itself or the base folder holding
/// `hooks/`.
#[derive(Clone, Copy)]
enum Names {
    Folder,
    Base,
}

/// The variables that move the policy layers' folders.
const LAYER_DIRS_FROM_ENV: &[(&str, Names)] = &[
    (MANAGED_DIR_VAR, Names::Folder),
    ("XDG_CONFIG_HOME", Names::Base),
];

/// The variables that move the hooks' own folders.
const OWN_DIRS_FROM_ENV: &[(&str, Names)] = &[
    (STATE_DIR_ENV, Names::Folder),
    ("XDG_STATE_HOME", Names::Base),
    (WASM_CACHE_ENV, Names::Folder),
    ("XDG_CACHE_HOME", Names::Base),
];

/// What the `safety` module of a hooks file loaded here keeps from the agent: see the
/// [module docs](self). The environment is read now: the folders it moves are where this
/// process looks for them.
///
/// ```
/// use hooks_config::protection::self_protection;
///
/// let protection = self_protection();
/// assert!(protection.guard_files.iter().any(|glob| glob == "**/.claude/settings.json"));
/// assert!(protection.guard_files.iter().any(|glob| glob == "**/hooks.yaml"));
/// assert!(protection.own_files.iter().any(|glob| glob == "**/.local/state/hooks/**"));
/// ```
pub fn self_protection() -> SelfProtection {
    let mut protection = SelfProtection::none();
    let mut guarded: Vec<String> = HOOKS_FILES
        .iter()
        .map(|name| format!("**/{name}"))
        .collect();
    guarded.extend(
        AGENTS
            .iter()
            .flat_map(|agent| agent.profile().guard_globs()),
    );
    guarded.extend([
        MACOS_MANAGED_DIR.to_owned(),
        format!("{MACOS_MANAGED_DIR}/**"),
        "**/.config/hooks/**".to_owned(),
    ]);
    protection.extend(SelfProtection {
        guard_files: guarded,
        own_files: OWN_FILES.iter().map(|glob| (*glob).to_owned()).collect(),
        ..SelfProtection::none()
    });
    for dir in dirs_from_env(LAYER_DIRS_FROM_ENV) {
        protection.guard_dir(&dir);
    }
    for dir in dirs_from_env(OWN_DIRS_FROM_ENV) {
        protection.own_dir(&dir);
    }
    protection
}

/// The folders `vars` name in this process's environment (an empty value counts as unset).
fn dirs_from_env(vars: &[(&str, Names)]) -> Vec<PathBuf> {
    vars.iter()
        .filter_map(|(name, names)| {
            let value = std::env::var_os(name).filter(|value| !value.is_empty())?;
            let dir = Path::new(&value);
            Some(match names {
                Names::Folder => dir.to_path_buf(),
                Names::Base => dir.join("hooks"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hooks_std::safety::{Guard, SafetyConfig};
    use serde_json::json;

    use super::*;
    use crate::interop::Layout;

    const WORKSPACE: &str = "/srv/project";

    fn guard() -> Guard {
        let config = SafetyConfig {
            workspace: Some(WORKSPACE.into()),
            home: Some("/home/dev".into()),
            ..SafetyConfig::default()
        };
        Guard::new(config, &self_protection()).unwrap_or_else(|error| panic!("{error}"))
    }

    fn command(line: &str) -> Option<String> {
        guard()
            .check(line, Path::new(WORKSPACE))
            .map(|denial| denial.to_string())
    }

    #[test]
    fn every_glob_compiles() {
        // The built-in globs are compiled at their first use, not when the guard is built: one
        // that did not compile would block every path, so each is checked here.
        let protection = self_protection();
        for glob in protection.guard_files.iter().chain(&protection.own_files) {
            assert!(globset::Glob::new(glob).is_ok(), "{glob}");
        }
    }

    #[test]
    fn every_agents_settings_are_write_protected_in_a_project_and_the_home_directory() {
        let guard = guard();
        for agent in AGENTS {
            let settings = agent.profile().settings;
            for file in [
                Path::new(WORKSPACE).join(settings.project),
                Path::new("/home/dev").join(settings.user),
            ] {
                // A folder of executables is written one event's file at a time.
                let file = match settings.layout {
                    Layout::Executables(_) => file.join(settings.init_events[0]),
                    _ => file,
                };
                let file = file.display().to_string();
                let written = guard.check_tool_call("Write", &json!({"file_path": file}));
                assert_eq!(
                    written.map(|denial| denial.id()).as_deref(),
                    Some("guard:guard-file"),
                    "{}: {file}",
                    agent.name()
                );
            }
        }
    }

    #[test]
    fn the_hooks_own_state_and_compiled_hooks_cannot_be_forged_from_a_tool_call() {
        // A session state file holds remembered "always" answers and what a prompt gate let
        // through; the WebAssembly cache holds machine code the next `hooks` process runs. An
        // agent running as the user could otherwise write either with a shell redirect or a
        // copy.
        for line in [
            r#"echo '{"approvals":{"Bash":"always"}}' > ~/.local/state/hooks/sessions/s1.json"#,
            "tee /home/dev/.local/state/hooks/sessions/s1.json < forged.json",
            "cp payload.cwasm ~/.cache/hooks/wasm/0123abcd.cwasm",
            "cat ~/.local/state/hooks/sessions/s1.json",
        ] {
            let denial = command(line);
            assert!(
                denial
                    .as_deref()
                    .is_some_and(|d| d.starts_with("[secrets:")),
                "{line}: {denial:?}"
            );
        }
        // Denied as a protected file, not only as a path outside the workspace.
        let denial = guard()
            .check_path("/home/dev/.cache/hooks/wasm/0123abcd.cwasm")
            .map(|denial| denial.to_string());
        assert!(
            denial
                .as_deref()
                .is_some_and(|d| d.starts_with("[secrets:")),
            "a file tool into the cache: {denial:?}"
        );
        // Only those directories: the rest of the home directory is as before.
        assert_eq!(command("echo note > ~/notes.txt"), None);
        assert_eq!(command("cat ~/.cache/pip/log.txt"), None);
    }
}
