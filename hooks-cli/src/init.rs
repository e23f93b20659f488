//! `hooks init <agent>`: a starter hooks file, and the agent's settings entries that run
//! `hooks <agent> --config <file>` on it, for every agent of
//! [`AGENTS`](hooks_config::interop::AGENTS): where its settings are, how its commands name the
//! project directory and which events to hook are its [`HookSettings`].
//!
//! The command names the hooks file so that it survives a project path with spaces, as each
//! agent runs it (`sh -c`; see [`ProjectDir`](hooks_config::interop::ProjectDir)).
//!
//! The settings file is merged, never replaced: every hook already there stays, the file keeps
//! its order, an entry already present is not added twice (so a second run changes nothing),
//! the old file is kept as a backup, and the change is printed as a diff first. `--dry-run`
//! prints the diff and writes nothing. A settings file that is not a JSON object, or whose
//! `hooks` have an unexpected shape, is an error that leaves it untouched.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hooks_config::interop::{Agent, HookSettings, Layout, Trust};

use crate::ordered_json::{Json, indent_of};

/// The hooks file `hooks init` writes when the project has none.
pub const STARTER: &str = include_str!("../starter/hooks.yaml");

/// What `hooks init` was asked to do.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The agent.
    pub agent: &'static dyn Agent,
    /// The project directory.
    pub dir: PathBuf,
    /// The hooks file, relative to the project directory.
    pub config: PathBuf,
    /// Print the change, write nothing.
    pub dry_run: bool,
}

/// One file `hooks init` creates or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// Its text today; `None` when it does not exist.
    pub old: Option<String>,
    /// Its text after the change.
    pub new: String,
}

/// Why `hooks init` could not go on; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The settings file cannot be merged safely.
    #[error("{path}: {problem}; fix or move it and run `hooks init` again (it was left untouched)")]
    Settings {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The hooks file path cannot be named from the settings file.
    #[error("--config must be a relative path inside the project directory, not `{0}`")]
    ConfigPath(PathBuf),
}

/// The files to create or change; empty when everything is set up already.
pub fn plan(options: &InitOptions) -> Result<Vec<FileChange>, InitError> {
    let config = &options.config;
    if config.is_absolute()
        || config
            .components()
            .any(|part| matches!(part, std::path::Component::ParentDir))
    {
        return Err(InitError::ConfigPath(config.clone()));
    }
    let mut changes = Vec::new();
    let hooks_file = options.dir.join(config);
    if !hooks_file.exists() {
        changes.push(FileChange {
            path: hooks_file,
            old: None,
            new: STARTER.to_owned(),
        });
    }
    let agent = options.agent;
    let setup: &HookSettings = agent.settings();
    let settings = options.dir.join(setup.project);
    let old = match std::fs::read_to_string(&settings) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(InitError::Io {
                path: settings,
                error,
            });
        }
    };
    let command = agent.command(&config.display().to_string());
    let merged = merge_settings(old.as_deref(), setup.layout, setup.init_events, &command)
        .map_err(|problem| InitError::Settings {
            path: settings.clone(),
            problem,
        })?;
    if let Some(new) = merged {
        changes.push(FileChange {
            path: settings,
            old,
            new,
        });
    }
    Ok(changes)
}

/// What the user should know about running hooks in `options.agent`, whatever was written:
/// the agent's trust step, and a warning when this folder is not trusted.
pub fn notes(options: &InitOptions) -> Vec<String> {
    let project = std::fs::canonicalize(&options.dir).unwrap_or(options.dir.clone());
    let agent = options.agent;
    agent
        .trust_note()
        .map(str::to_owned)
        .into_iter()
        .chain(trust_warning(agent, &project))
        .collect()
}

/// The warning for a project whose hooks `agent` will not run until it is trusted; `None`
/// when it will, or has no trust step.
pub fn trust_warning(agent: &dyn Agent, project: &Path) -> Option<String> {
    match agent.trust(project)? {
        Trust::Trusted(_) => None,
        Trust::Untrusted(why) => Some(format!(
            "warning: {} will not run the hooks of {} until the folder is trusted ({why})",
            agent.display_name(),
            project.display()
        )),
    }
}

/// The settings text with a command hook running `command` on each of `events`, or `None`
/// when every one is there already. Hooks already there are kept, in their order.
fn merge_settings(
    old: Option<&str>,
    layout: Layout,
    events: &[&str],
    command: &str,
) -> Result<Option<String>, String> {
    let mut settings = match old {
        Some(text) if !text.trim().is_empty() => serde_json::from_str::<Json>(text)
            .map_err(|error| format!("not valid JSON ({error})"))?,
        _ => Json::Object(Vec::new()),
    };
    if !matches!(settings, Json::Object(_)) {
        return Err("not a JSON object".to_owned());
    }
    let mut changed = false;
    if layout != Layout::MatcherGroups && settings.get("version").is_none() {
        settings.entry("version", Json::Number(1.into()));
        changed = true;
    }
    let hooks = settings
        .entry("hooks", Json::Object(Vec::new()))
        .filter(|hooks| matches!(hooks, Json::Object(_)))
        .ok_or("`hooks` is not an object")?;
    for event in events {
        let Some(Json::Array(listed)) = hooks.entry(event, Json::Array(Vec::new())) else {
            return Err(format!("`hooks.{event}` is not a list"));
        };
        let ours = Json::object([
            ("type", Json::String("command".to_owned())),
            ("command", Json::String(command.to_owned())),
        ]);
        let present = match layout {
            Layout::MatcherGroups => listed.iter().any(|group| runs(group, command)),
            Layout::Commands => listed.iter().any(|hook| is_command(hook, command)),
            Layout::CommandFields(fields) => listed.iter().any(|hook| {
                fields
                    .iter()
                    .any(|field| hook.get(field).and_then(Json::as_str) == Some(command))
            }),
        };
        if !present {
            listed.push(match layout {
                Layout::MatcherGroups => Json::object([("hooks", Json::Array(vec![ours]))]),
                Layout::Commands => Json::object([("command", Json::String(command.to_owned()))]),
                Layout::CommandFields(fields) => {
                    Json::Object(
                        std::iter::once(("type".to_owned(), Json::String("command".to_owned())))
                            .chain(fields.iter().map(|field| {
                                ((*field).to_owned(), Json::String(command.to_owned()))
                            }))
                            .collect(),
                    )
                }
            });
            changed = true;
        }
    }
    Ok(changed.then(|| settings.to_pretty(indent_of(old.unwrap_or_default()))))
}

/// Whether a matcher group of the settings already runs `command`.
fn runs(group: &Json, command: &str) -> bool {
    match group.get("hooks") {
        Some(Json::Array(hooks)) => hooks.iter().any(|hook| is_command(hook, command)),
        _ => false,
    }
}

/// Whether a hook of the settings is `command`.
fn is_command(hook: &Json, command: &str) -> bool {
    hook.get("command").and_then(Json::as_str) == Some(command)
}

/// The change as a unified diff with three lines of context, headed by the file's name.
pub fn diff(change: &FileChange) -> String {
    let old = change.old.as_deref().unwrap_or_default();
    let name = change.path.display().to_string();
    let old_name = if change.old.is_some() {
        name.as_str()
    } else {
        "/dev/null"
    };
    similar::TextDiff::from_lines(old, &change.new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, &name)
        .to_string()
}

/// The first free backup name for `path`: `<name>.bak`, else `<name>.bak.1`, `.bak.2`, ...
/// (an earlier backup is never overwritten).
fn backup_path(path: &Path) -> PathBuf {
    let plain = PathBuf::from(format!("{}.bak", path.display()));
    if !plain.exists() {
        return plain;
    }
    (1..)
        .map(|n| PathBuf::from(format!("{}.bak.{n}", path.display())))
        .find(|candidate| !candidate.exists())
        .unwrap_or(plain)
}

/// Carries out `changes`: backs up each file that exists, then writes the new text. Returns
/// what was done, a line each.
pub fn apply(changes: &[FileChange]) -> Result<String, InitError> {
    let mut report = String::new();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| InitError::Io { path, error }
    };
    for change in changes {
        if change.old.is_some() {
            let backup = backup_path(&change.path);
            std::fs::copy(&change.path, &backup).map_err(io(&backup))?;
            let _ = writeln!(
                report,
                "backed up {} to {}",
                change.path.display(),
                backup.display()
            );
        }
        if let Some(dir) = change.path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        std::fs::write(&change.path, &change.new).map_err(io(&change.path))?;
        let verb = if change.old.is_some() {
            "updated"
        } else {
            "created"
        };
        let _ = writeln!(report, "{verb} {}", change.path.display());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMAND: &str = "hooks claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml";

    #[test]
    fn an_existing_hook_is_kept_and_ours_is_added_once() {
        let old = r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#;
        let new = merge_settings(
            Some(old),
            Layout::MatcherGroups,
            &["PreToolUse", "Stop"],
            COMMAND,
        )
        .unwrap()
        .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(value["model"], "x");
        let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "./mine.sh");
        assert_eq!(pre[1]["hooks"][0]["command"], COMMAND);
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["command"], COMMAND);
        assert_eq!(
            merge_settings(
                Some(&new),
                Layout::MatcherGroups,
                &["PreToolUse", "Stop"],
                COMMAND
            )
            .unwrap(),
            None
        );
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused() {
        for (text, problem) in [
            ("[1]", "not a JSON object"),
            ("{\"hooks\": []}", "`hooks` is not an object"),
            ("{\"hooks\": {\"Stop\": {}}}", "`hooks.Stop` is not a list"),
            ("{\"hooks\": ", "not valid JSON"),
        ] {
            let error =
                merge_settings(Some(text), Layout::MatcherGroups, &["Stop"], COMMAND).unwrap_err();
            assert!(error.starts_with(problem), "{text}: {error}");
        }
    }
}
