//! `hooks init <agent>`: a starter hooks file, and the agent's settings entries that run
//! `hooks <agent> --config <file>` on it, for every agent of
//! [`AGENTS`](hooks_config::interop::AGENTS): where its settings are, how its commands name the
//! project directory and which events to hook are its [`HookSettings`].
//!
//! The command names the hooks file so that it survives a project path with spaces, as each
//! agent runs it (`sh -c`; see [`ProjectDir`]).
//!
//! The settings file is merged, never replaced: every hook already there stays, the file keeps
//! its order, an entry already present is not added twice (so a second run changes nothing),
//! the old file is kept as a backup, and the change is printed as a diff first. `--dry-run`
//! prints the diff and writes nothing. A settings file that is not a JSON object, or whose
//! `hooks` have an unexpected shape, is an error that leaves it untouched.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hooks_config::interop::executables;
use hooks_config::interop::plugin::PluginCommand;
use hooks_config::interop::{
    Agent, HookSettings, KeyValue, Layout, MinVersion, OnFailure, OurEntry, ProjectDir, TimeUnit,
    Trust,
};

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
    /// The `hooks` binary the settings run: an absolute path.
    pub binary: PathBuf,
    /// Wire the agent's HTTP hooks to `hooks serve` on this address instead of a command
    /// per event (`hooks init --serve`).
    pub serve: Option<std::net::SocketAddr>,
}

/// The agents whose HTTP hooks `hooks init --serve` can wire: the variable naming the project
/// directory in their hooks' environment.
const HTTP_HOOKS: &[(&str, &str)] = &[
    ("claude", "CLAUDE_PROJECT_DIR"),
    ("qwen", "QWEN_PROJECT_DIR"),
];

/// The environment variable the agent's HTTP hooks read the token of `hooks serve` from.
pub const TOKEN_ENV: &str = "HOOKS_SERVE_TOKEN";

/// The `type: "http"` entry of `hooks init --serve` for `agent`, and the command of its
/// `SessionStart` hook, which starts the server when it is not running.
fn http_hook(
    options: &InitOptions,
    address: std::net::SocketAddr,
) -> Result<(Json, String), InitError> {
    let agent = options.agent;
    let Some((_, project_var)) = HTTP_HOOKS.iter().find(|(name, _)| *name == agent.name()) else {
        return Err(InitError::NoHttpHooks(agent.profile().display_name));
    };
    let config = options.config.display().to_string();
    let query = if config == "hooks.yaml" {
        String::new()
    } else {
        format!("?config={config}")
    };
    let string = |text: String| Json::String(text);
    let mut hook = Json::object([
        ("type", string("http".to_owned())),
        (
            "url",
            string(format!("http://{address}/{}{query}", agent.name())),
        ),
        (
            "headers",
            Json::object([
                ("Authorization", string(format!("Bearer ${{{TOKEN_ENV}}}"))),
                ("X-Hooks-Project", string(format!("${{{project_var}}}"))),
            ]),
        ),
        (
            "allowedEnvVars",
            Json::Array(vec![
                string(TOKEN_ENV.to_owned()),
                string((*project_var).to_owned()),
            ]),
        ),
        ("timeout", Json::Number(AGENT_TIMEOUT.as_secs().into())),
    ]);
    if let FailClosed::Set { key, value } = fail_closed(agent) {
        let value = match value {
            KeyValue::Str(text) => Json::String(text.to_owned()),
            KeyValue::Bool(flag) => Json::Bool(flag),
        };
        hook.entry(key, value);
    }
    let binary = hooks_config::interop::shell_word(&options.binary.display().to_string());
    let start = format!("{binary} serve --ensure --listen {address}");
    Ok((hook, start))
}

/// The `timeout` `hooks init` gives each entry: above the longest a call of `hooks <agent>`
/// takes by default (a handler's own deadline, then the collection of late answers), so that
/// the agent's timeout is never what ends a call the policy is still deciding.
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(
    hooks_core::DEFAULT_HANDLER_TIMEOUT.as_secs()
        + hooks_core::DEFAULT_COLLECT_TIMEOUT.as_secs()
        + 29,
);

/// How `hooks init` makes a failed `hooks` (missing, crashed, hung) count for the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum FailClosed {
    /// The entry sets `key: value`, and the agent then blocks.
    Set {
        /// The key.
        key: &'static str,
        /// Its value.
        value: KeyValue,
    },
    /// The agent has the key, but not the version installed here: nothing is set, and why.
    NotSet(String),
    /// The agent fails open whatever the entry says.
    Open,
    /// The agent fails closed by itself.
    Closed,
}

/// What `hooks init` sets for a failed hook of `agent`: its fail-closed key where the agent
/// (in the version installed, when that matters) takes it.
pub fn fail_closed(agent: &dyn Agent) -> FailClosed {
    match agent.profile().on_failure {
        OnFailure::Open => FailClosed::Open,
        OnFailure::Closed => FailClosed::Closed,
        OnFailure::Settable(setting) => match setting.since {
            None => FailClosed::Set {
                key: setting.key,
                value: setting.value,
            },
            Some(since) => match installed_version(since.binary) {
                Some(printed) if since.met_by(&printed) == Some(true) => FailClosed::Set {
                    key: setting.key,
                    value: setting.value,
                },
                found => FailClosed::NotSet(too_old(agent, setting.key, &since, found)),
            },
        },
    }
}

/// Why the fail-closed key is left out for the version `found` (`None`: not installed).
fn too_old(agent: &dyn Agent, key: &str, since: &MinVersion, found: Option<String>) -> String {
    let name = agent.profile().display_name;
    let which = match found {
        Some(printed) => format!("the installed {name} says `{}`", printed.trim()),
        None => format!("`{} --version` did not run here", since.binary),
    };
    format!(
        "`{key}` is not written: {name} takes it from {} on, and {which} (a value {name} does \
         not know makes it skip the whole settings file). Until then {name} runs the tool when \
         `hooks` is missing, crashes or hangs; after upgrading, run `hooks init` again.",
        since.display()
    )
}

/// What `binary --version` prints, when it runs within a few seconds and exits 0.
pub fn installed_version(binary: &str) -> Option<String> {
    let mut child = Command::new(binary)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if started.elapsed() > Duration::from_secs(10) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut printed).ok()?;
    Some(printed)
}

/// The `hooks` binary this process runs from, as an absolute path without symbolic links; from
/// the companion of a guard install, the guard beside it (`crate::companion`).
pub fn this_binary() -> Result<PathBuf, InitError> {
    let io = |error| InitError::Binary(error);
    let exe = std::fs::canonicalize(std::env::current_exe().map_err(io)?).map_err(io)?;
    Ok(crate::companion::guard_beside(&exe).unwrap_or(exe))
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
    /// `--serve` for an agent without HTTP hooks.
    #[error("{0} has no HTTP hooks: `--serve` wires Claude Code and Qwen Code only")]
    NoHttpHooks(&'static str),
    /// The path of this binary cannot be found.
    #[error("cannot find the path of this `hooks` binary to write into the settings: {0}")]
    Binary(std::io::Error),
    /// The agent's command finds the hooks file from the git repository, and there is none.
    #[error(
        "{agent} sets no project variable for its hooks, so the command finds the hooks file \
         from the root of the git repository, and {dir} is not in one (`git rev-parse \
         --show-toplevel` fails there: the command would read `/{config}`). Run `git init` \
         there first, or run `hooks init` in the repository's directory"
    )]
    NotInGit {
        /// The agent.
        agent: &'static str,
        /// The project directory.
        dir: PathBuf,
        /// The hooks file.
        config: PathBuf,
    },
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
    let setup: &HookSettings = agent.profile().settings;
    if let Layout::Executables(template) = setup.layout {
        let file = named_file(options)?;
        changes.extend(script_changes(options, setup, template, &file)?);
        return Ok(changes);
    }
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
    let file = named_file(options)?;
    if let Layout::Plugin(template) = setup.layout {
        let new = plugin_text(options, setup, template, &file);
        if old.as_deref() != Some(new.as_str()) {
            if let Some(text) = &old
                && PluginCommand::read(text).is_none()
            {
                return Err(InitError::Settings {
                    path: settings,
                    problem: "this plugin file was not written by `hooks init`".to_owned(),
                });
            }
            changes.push(FileChange {
                path: settings,
                old,
                new,
            });
        }
        return Ok(changes);
    }
    let ours = OurEntry {
        command: agent.command_with(&options.binary, &file),
        agent: agent.name(),
        timeout: agent.profile().timeout_unit.of(AGENT_TIMEOUT),
        timeout_keys: agent.profile().timeout_keys,
        fail_closed: match fail_closed(agent) {
            FailClosed::Set { key, value } => Some((key, value)),
            _ => None,
        },
    };
    let problem = |problem| InitError::Settings {
        path: settings.clone(),
        problem,
    };
    let merged = match options.serve {
        None => setup
            .layout
            .merge(old.as_deref(), setup.init_events, &ours)
            .map_err(problem)?,
        Some(address) => {
            let (http, start) = http_hook(options, address)?;
            let starter = OurEntry {
                command: start,
                timeout: agent
                    .profile()
                    .timeout_unit
                    .of(std::time::Duration::from_secs(30)),
                fail_closed: None,
                ..ours.clone()
            };
            merge_serve(old.as_deref(), setup.init_events, &ours, &http, &starter)
                .map_err(problem)?
        }
    };
    if let Some(new) = merged {
        changes.push(FileChange {
            path: settings,
            old,
            new,
        });
    }
    Ok(changes)
}

/// The scripts of an agent whose hooks are one executable per event, in the directory
/// `setup.project`: one per event `hooks init` hooks, from `template` (see
/// [`executables`]), each that differs from what is there.
/// A script of that name that `hooks init` did not write is an error that leaves all of
/// them untouched.
fn script_changes(
    options: &InitOptions,
    setup: &HookSettings,
    template: &str,
    file: &str,
) -> Result<Vec<FileChange>, InitError> {
    let dir = options.dir.join(setup.project);
    // Every script is in the directory: the project is as far from each.
    let a_script = Path::new(setup.project).join("script");
    let command = plugin_command(options, &a_script, file, SCRIPT_DEADLINE);
    let mut changes = Vec::new();
    for event in setup.init_events {
        let path = executables::script(&dir, event);
        let old = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(InitError::Io { path, error }),
        };
        if let Some(text) = &old
            && executables::read(text).is_none()
        {
            return Err(InitError::Settings {
                path,
                problem: format!(
                    "this {event} hook was not written by `hooks init`; {} runs one per event                      here, so move it (to the user's hooks directory, `~/{}`, where it still                      runs)",
                    options.agent.profile().display_name,
                    setup.user
                ),
            });
        }
        let new = executables::render(template, event, &command);
        if old.as_deref() != Some(new.as_str()) {
            changes.push(FileChange { path, old, new });
        }
    }
    Ok(changes)
}

/// How long a script of an agent with one executable per event waits for `hooks` before it
/// blocks: under Cline's own 30 s timeout, past which Cline would run the call.
const SCRIPT_DEADLINE: Duration = Duration::from_secs(25);

/// What a plugin or a script at `written` (relative to the project) runs: this binary, the
/// hooks file `file`, the project directory seen from the file's own, and the deadline.
fn plugin_command(
    options: &InitOptions,
    written: &Path,
    file: &str,
    deadline: Duration,
) -> PluginCommand {
    let depth = written.parent().map_or(0, |dir| dir.components().count());
    let root = vec![".."; depth].join("/");
    PluginCommand {
        binary: options.binary.display().to_string(),
        agent: options.agent.name().to_owned(),
        config: file.to_owned(),
        root: if root.is_empty() {
            ".".to_owned()
        } else {
            root
        },
        timeout_ms: TimeUnit::Milliseconds.of(deadline),
    }
}

/// The plugin file of an agent whose hooks are a plugin: `template` with the command filled in
/// (the binary, the hooks file `file`, and the project directory seen from the plugin's own).
fn plugin_text(options: &InitOptions, setup: &HookSettings, template: &str, file: &str) -> String {
    plugin_command(options, Path::new(setup.project), file, AGENT_TIMEOUT).render(template)
}

/// The hooks file as the agent's command names it: relative to the project directory, or, for
/// an agent whose command starts from the git repository's root, relative to that root.
fn named_file(options: &InitOptions) -> Result<String, InitError> {
    let config = options.config.display().to_string();
    if options.agent.profile().settings.project_dir != ProjectDir::GitRoot {
        return Ok(config);
    }
    let not_in_git = || InitError::NotInGit {
        agent: options.agent.profile().display_name,
        dir: options.dir.clone(),
        config: options.config.clone(),
    };
    let output = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&options.dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|_| not_in_git())?;
    let root = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || root.is_empty() {
        return Err(not_in_git());
    }
    let root = std::fs::canonicalize(&root).map_err(|_| not_in_git())?;
    let dir = std::fs::canonicalize(&options.dir).map_err(|_| not_in_git())?;
    let inside = dir.strip_prefix(&root).map_err(|_| not_in_git())?;
    Ok(inside.join(&options.config).display().to_string())
}

/// What the user should know about running hooks in `options.agent`, whatever was written:
/// how a failed `hooks` counts, the agent's trust step, and a warning when this folder is not
/// trusted.
pub fn notes(options: &InitOptions) -> Vec<String> {
    let project = std::fs::canonicalize(&options.dir).unwrap_or(options.dir.clone());
    let agent = options.agent;
    let name = agent.profile().display_name;
    let failure = match fail_closed(agent) {
        FailClosed::Set { key, .. } => format!(
            "{name} blocks the call when `hooks` is missing, crashes or runs past {} s \
             (`{key}` is set)",
            AGENT_TIMEOUT.as_secs()
        ),
        FailClosed::NotSet(why) => format!("warning: {why}"),
        FailClosed::Open => format!(
            "warning: {name} fails open: when `hooks` is missing, crashes or runs past its \
             timeout, {name} runs the tool call anyway, and it has no setting that changes this. \
             Keep the binary at {} (the settings name it) and run `hooks doctor` after changes",
            options.binary.display()
        ),
        FailClosed::Closed => {
            format!("{name} blocks the call when `hooks` is missing, crashes or hangs")
        }
    };
    let serve = options.serve.map(|address| {
        format!(
            "{name} asks `hooks serve` on {address} (started by the SessionStart hook when it is \
             not running) and sends the token from ${TOKEN_ENV}: set it where {name} starts, \
             e.g. `export {TOKEN_ENV}=\"$(cat ~/.local/state/hooks/serve-token)\"` (the file \
             `hooks serve` creates); without it every call is refused. {}",
            match fail_closed(agent) {
                FailClosed::Set { .. } | FailClosed::Closed => {
                    "A server that is down or refuses blocks the call.".to_owned()
                }
                FailClosed::NotSet(_) => format!(
                    "Until its fail-closed key is written (above), {name} runs the call when \
                     the server is down"
                ),
                FailClosed::Open => format!(
                    "warning: {name} has no fail-closed setting for HTTP hooks: when the \
                     server is down it runs the call anyway"
                ),
            }
        )
    });
    std::iter::once(failure)
        .chain(serve)
        .chain(agent.profile().trust_note.map(str::to_owned))
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
            agent.profile().display_name,
            project.display()
        )),
    }
}

/// The settings text with the `type: "http"` entry `http` on each of `events` in place of the
/// command entries of `ours` (an earlier `hooks init` without `--serve`), and `starter` on
/// `SessionStart`; `None` when nothing changes. Only for agents laid out as Claude Code
/// (matcher groups).
fn merge_serve(
    old: Option<&str>,
    events: &[&str],
    ours: &OurEntry,
    http: &Json,
    starter: &OurEntry,
) -> Result<Option<String>, String> {
    let base = Layout::MatcherGroups.merge(old, &["SessionStart"], starter)?;
    let text = base.as_deref().or(old);
    let mut settings = match text {
        Some(text) if !text.trim().is_empty() => serde_json::from_str::<Json>(text)
            .map_err(|error| format!("not valid JSON ({error})"))?,
        _ => Json::Object(Vec::new()),
    };
    let mut changed = base.is_some();
    let hooks = settings
        .entry("hooks", Json::Object(Vec::new()))
        .filter(|hooks| matches!(hooks, Json::Object(_)))
        .ok_or("`hooks` is not an object")?;
    let url = http.get("url");
    for event in events {
        let Some(Json::Array(listed)) = hooks.entry(event, Json::Array(Vec::new())) else {
            return Err(format!("`hooks.{event}` is not a list"));
        };
        let mut present = false;
        for group in listed.iter_mut() {
            let Some(Json::Array(entries)) = (match group {
                Json::Object(_) => group.entry("hooks", Json::Null),
                _ => None,
            }) else {
                continue;
            };
            let before = entries.len();
            // Our command entries give way to the HTTP one: one decision per event.
            entries.retain(|hook| {
                !hook
                    .get("command")
                    .and_then(Json::as_str)
                    .is_some_and(|command| ours.is_ours(command))
            });
            changed |= entries.len() != before;
            for hook in entries.iter_mut().filter(|hook| hook.get("url") == url) {
                present = true;
                if hook != http {
                    *hook = http.clone();
                    changed = true;
                }
            }
        }
        // Groups left empty by the removal go too.
        listed.retain(
            |group| !matches!(group.get("hooks"), Some(Json::Array(entries)) if entries.is_empty()),
        );
        if !present {
            listed.push(Json::object([("hooks", Json::Array(vec![http.clone()]))]));
            changed = true;
        }
    }
    Ok(changed.then(|| settings.to_pretty(indent_of(old.unwrap_or_default()))))
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
        if change.new.starts_with("#!") {
            // A script: the agent runs it as a program.
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(&change.path, mode).map_err(io(&change.path))?;
        }
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

    const COMMAND: &str = "/opt/bin/hooks claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml";

    fn ours() -> OurEntry {
        OurEntry {
            command: COMMAND.to_owned(),
            agent: "claude",
            timeout: 90,
            timeout_keys: &["timeout"],
            fail_closed: Some(("onFailure", KeyValue::Str("block"))),
        }
    }

    #[test]
    fn an_existing_hook_is_kept_and_ours_is_added_once() {
        let old = r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#;
        let new = Layout::MatcherGroups
            .merge(Some(old), &["PreToolUse", "Stop"], &ours())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(value["model"], "x");
        let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "./mine.sh");
        assert_eq!(pre[1]["hooks"][0]["command"], COMMAND);
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["command"], COMMAND);
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["onFailure"], "block");
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["timeout"], 90);
        assert_eq!(
            Layout::MatcherGroups
                .merge(Some(&new), &["PreToolUse", "Stop"], &ours())
                .unwrap(),
            None
        );
    }

    #[test]
    fn bare_commands_get_no_version_key() {
        let new = Layout::BareCommands
            .merge(None, &["pre_run_command"], &ours())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert!(value.get("version").is_none(), "{new}");
        assert_eq!(value["hooks"]["pre_run_command"][0]["command"], COMMAND);
        assert!(value["hooks"]["pre_run_command"][0].get("type").is_none());
        let versioned = Layout::Commands
            .merge(None, &["stop"], &ours())
            .unwrap()
            .unwrap();
        assert!(versioned.contains("\"version\""), "{versioned}");
    }

    #[test]
    fn triggers_are_a_list_of_named_hooks_with_their_command_in_action() {
        let old = r#"{"version": "v1", "hooks": [{"name": "lint", "trigger": "PostFileSave", "action": {"type": "command", "command": "npm run lint"}}]}"#;
        let new = Layout::Triggers
            .merge(Some(old), &["PreToolUse"], &ours())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        let hooks = value["hooks"].as_array().unwrap();
        assert_eq!(hooks.len(), 2, "{new}");
        assert_eq!(hooks[0]["name"], "lint");
        assert_eq!(hooks[1]["trigger"], "PreToolUse");
        assert_eq!(hooks[1]["action"]["type"], "command");
        assert_eq!(hooks[1]["action"]["command"], COMMAND);
        assert_eq!(hooks[1]["timeout"], 90);
        assert_eq!(
            Layout::Triggers
                .merge(Some(&new), &["PreToolUse"], &ours())
                .unwrap(),
            None
        );
    }

    #[test]
    fn serve_puts_the_http_hook_in_place_of_ours_and_keeps_the_rest() {
        let old = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "./mine.sh"}}]}}, {{"hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
            serde_json::Value::from(COMMAND)
        );
        let http = Json::object([
            ("type", Json::String("http".to_owned())),
            (
                "url",
                Json::String("http://127.0.0.1:8787/claude".to_owned()),
            ),
        ]);
        let starter = OurEntry {
            command: "/opt/bin/hooks serve --ensure".to_owned(),
            ..ours()
        };
        let events = ["PreToolUse", "Stop"];
        let new = merge_serve(Some(&old), &events, &ours(), &http, &starter)
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{new}");
        assert_eq!(pre[0]["hooks"][0]["command"], "./mine.sh");
        assert_eq!(pre[1]["hooks"][0]["type"], "http");
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["type"], "http");
        assert_eq!(
            value["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            "/opt/bin/hooks serve --ensure"
        );
        assert_eq!(
            merge_serve(Some(&new), &events, &ours(), &http, &starter).unwrap(),
            None,
            "a second run changes nothing"
        );
    }

    #[test]
    fn named_matcher_groups_sit_under_our_hooks_name() {
        let old = r#"{"lint": {"PostToolUse": [{"hooks": [{"type": "command", "command": "./lint.sh"}]}]}}"#;
        let layout = Layout::NamedMatcherGroups("hooks-guard");
        let new = layout
            .merge(Some(old), &["PreToolUse"], &ours())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(
            value["lint"]["PostToolUse"][0]["hooks"][0]["command"],
            "./lint.sh"
        );
        assert_eq!(
            value["hooks-guard"]["PreToolUse"][0]["hooks"][0]["command"],
            COMMAND
        );
        assert!(value.get("hooks").is_none(), "{new}");
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused() {
        for (text, problem) in [
            ("[1]", "not a JSON object"),
            ("{\"hooks\": []}", "`hooks` is not an object"),
            ("{\"hooks\": {\"Stop\": {}}}", "`hooks.Stop` is not a list"),
            ("{\"hooks\": ", "not valid JSON"),
        ] {
            let error = Layout::MatcherGroups
                .merge(Some(text), &["Stop"], &ours())
                .unwrap_err();
            assert!(error.starts_with(problem), "{text}: {error}");
        }
    }

    #[test]
    fn an_entry_of_an_earlier_init_is_brought_up_to_date_in_place() {
        let old = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "hooks claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml"}]}, {"hooks": [{"type": "command", "command": "hooks claude --config other.yaml"}]}]}}"#;
        let new = Layout::MatcherGroups
            .merge(Some(old), &["Stop"], &ours())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&new).unwrap();
        let stop = value["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2, "updated, not added: {new}");
        assert_eq!(stop[0]["hooks"][0]["command"], COMMAND);
        assert_eq!(stop[0]["hooks"][0]["onFailure"], "block");
        assert_eq!(
            stop[1]["hooks"][0]["command"], "hooks claude --config other.yaml",
            "an entry for another hooks file is not ours to change"
        );
    }
}
