//! `hooks init claude|gemini|codex|cursor`: a starter hooks file, and the agent's settings
//! entries that run `hooks <agent> --config <file>` on it.
//!
//! The command names the hooks file so that it survives a project path with spaces, as each
//! agent runs it (`sh -c`): Claude Code's `"$CLAUDE_PROJECT_DIR"/file`; Gemini CLI's
//! `"${GEMINI_PROJECT_DIR}/file"` (Gemini CLI replaces `$GEMINI_PROJECT_DIR` in the text with
//! the path quoted by itself, which inside our quotes would keep its quotes; the braced form is
//! left to the shell); Codex CLI's `"$(git rev-parse --show-toplevel)/file"` (Codex CLI sets no
//! project variable and runs hooks in the session's directory); Cursor's path relative to the
//! project, where it runs hooks.
//!
//! The settings file is merged, never replaced: every hook already there stays, the file keeps
//! its order, an entry already present is not added twice (so a second run changes nothing),
//! the old file is kept as a backup, and the change is printed as a diff first. `--dry-run`
//! prints the diff and writes nothing. A settings file that is not a JSON object, or whose
//! `hooks` have an unexpected shape, is an error that leaves it untouched.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::ordered_json::{Json, indent_of};

/// The agents `hooks init` sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InitAgent {
    /// Claude Code: `.claude/settings.json`.
    Claude,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// Codex CLI: `.codex/hooks.json`.
    Codex,
    /// Cursor: `.cursor/hooks.json`.
    Cursor,
}

/// How an agent's settings list the commands of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Claude Code and Gemini CLI: matcher groups, each with its `hooks` list of commands.
    MatcherGroups,
    /// Cursor: the commands themselves, in a file that says its `version`.
    Commands,
}

/// How a hook's command names the project directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProjectDir {
    /// `"$VAR"/file`: an environment variable the agent sets.
    Var(&'static str),
    /// `"${VAR}/file"`: a variable the agent sets, braced so that the agent's own textual
    /// substitution of `$VAR` leaves it to the shell.
    BracedVar(&'static str),
    /// `"$(git rev-parse --show-toplevel)/file"`: the repository's root.
    GitRoot,
    /// `file`: the agent runs hooks in the project directory.
    Cwd,
}

/// Where an agent keeps its project settings and how it runs a command hook.
struct AgentSetup {
    /// The settings file, relative to the project directory.
    settings: &'static str,
    /// How the agent's hook command names the hooks file.
    project_dir: ProjectDir,
    /// How the settings list an event's commands.
    layout: Layout,
    /// The `hooks` subcommand that speaks the agent's protocol.
    subcommand: &'static str,
    /// The agent's events the starter policy needs: tool calls before and after, prompts.
    events: &'static [&'static str],
}

impl InitAgent {
    fn setup(self) -> AgentSetup {
        match self {
            InitAgent::Claude => AgentSetup {
                settings: ".claude/settings.json",
                project_dir: ProjectDir::Var("CLAUDE_PROJECT_DIR"),
                layout: Layout::MatcherGroups,
                subcommand: "claude",
                events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
            },
            InitAgent::Gemini => AgentSetup {
                settings: ".gemini/settings.json",
                project_dir: ProjectDir::BracedVar("GEMINI_PROJECT_DIR"),
                layout: Layout::MatcherGroups,
                subcommand: "gemini",
                events: &["BeforeTool", "AfterTool", "BeforeAgent"],
            },
            InitAgent::Codex => AgentSetup {
                settings: ".codex/hooks.json",
                project_dir: ProjectDir::GitRoot,
                layout: Layout::MatcherGroups,
                subcommand: "codex",
                events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
            },
            InitAgent::Cursor => AgentSetup {
                settings: ".cursor/hooks.json",
                project_dir: ProjectDir::Cwd,
                layout: Layout::Commands,
                subcommand: "cursor",
                events: &[
                    "beforeShellExecution",
                    "beforeMCPExecution",
                    "beforeReadFile",
                    "afterFileEdit",
                    "beforeSubmitPrompt",
                    "stop",
                ],
            },
        }
    }
}

/// The hooks file `hooks init` writes when the project has none.
pub const STARTER: &str = include_str!("../starter/hooks.yaml");

/// What `hooks init` was asked to do.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The agent.
    pub agent: InitAgent,
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
    let setup = options.agent.setup();
    let settings = options.dir.join(setup.settings);
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
    let command = format!(
        "hooks {} --config {}",
        setup.subcommand,
        config_argument(setup.project_dir, &config.display().to_string())
    );
    let merged = merge_settings(old.as_deref(), setup.layout, setup.events, &command).map_err(
        |problem| InitError::Settings {
            path: settings.clone(),
            problem,
        },
    )?;
    if let Some(new) = merged {
        changes.push(FileChange {
            path: settings,
            old,
            new,
        });
    }
    Ok(changes)
}

/// The hooks file as the agent's shell reads it: `file` (relative to the project) after the
/// project directory, quoted so that spaces and quotes in either stay one argument.
fn config_argument(project_dir: ProjectDir, file: &str) -> String {
    let plain = file
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/+".contains(c));
    // Inside double quotes, the shell still reads `"`, `\`, `$` and backquotes.
    let escaped: String = file
        .chars()
        .flat_map(|c| {
            let escape = matches!(c, '"' | '\\' | '$' | '`').then_some('\\');
            escape.into_iter().chain([c])
        })
        .collect();
    match project_dir {
        ProjectDir::Var(var) if plain => format!("\"${var}\"/{file}"),
        ProjectDir::Var(var) => format!("\"${var}\"/\"{escaped}\""),
        ProjectDir::BracedVar(var) => format!("\"${{{var}}}/{escaped}\""),
        ProjectDir::GitRoot => format!("\"$(git rev-parse --show-toplevel)/{escaped}\""),
        ProjectDir::Cwd if plain => file.to_owned(),
        ProjectDir::Cwd => format!("'{}'", file.replace('\'', "'\\''")),
    }
}

/// What the user should know about running hooks in `options.agent`, whatever was written:
/// for Gemini CLI, where it runs project hooks, and a warning when this folder is not trusted.
pub fn notes(options: &InitOptions) -> Vec<String> {
    match options.agent {
        InitAgent::Gemini => {
            let project = std::fs::canonicalize(&options.dir).unwrap_or(options.dir.clone());
            std::iter::once(crate::gemini_trust::NOTE.to_owned())
                .chain(crate::gemini_trust::warning(&project))
                .collect()
        }
        _ => Vec::new(),
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
    if layout == Layout::Commands && settings.get("version").is_none() {
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
        };
        if !present {
            listed.push(match layout {
                Layout::MatcherGroups => Json::object([("hooks", Json::Array(vec![ours]))]),
                Layout::Commands => Json::object([("command", Json::String(command.to_owned()))]),
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
