//! `hooks doctor`: whether each agent of [`AGENTS`] on this
//! machine runs the guard as `hooks init` sets it up, for the project and for the user.
//!
//! Per agent: whether it is installed (an executable of its on the `PATH`) or configured (a
//! settings file of its there), and for each settings file whose hooks run `hooks <agent>`:
//! - it runs on the events that matter: the tool-call-before and prompt events `hooks init`
//!   hooks (a guard that only sees results stops nothing);
//! - it fails closed: the agent's fail-closed key with the value it takes (for Claude Code,
//!   only where the installed version takes it), or a warning where the agent fails open and
//!   nothing can be set;
//! - the binary it names is an absolute path that exists and prints this version;
//! - the hooks file it names loads, with the managed and user hooks files over it (the policy
//!   layers, shown once per hooks file with where each rule comes from); what a lower file
//!   tries against the managed policy is a warning;
//! - the agent's trust step, where it has one and its records can be read;
//! - nothing of the agent's own overrides ours. A setting that turns every hook off
//!   (`disableAllHooks`, Codex CLI's `[features] hooks = false`) is a problem. Another hook on
//!   the same events is a warning, listed for review: agents take a block from any hook, so it
//!   cannot allow what ours denies, but its rewrite of the tool input (Claude Code's
//!   `updatedInput`) can replace the input ours checked.
//!
//! Settings written by `hooks init --serve` (HTTP hooks asking `hooks serve` on a loopback
//! address) are checked the same way, their hooks file named by the URL; then whether the
//! server answers there (a warning when only the `SessionStart` hook starts it, a problem when
//! nothing does), and the report says where the token file is and whether `$HOOKS_SERVE_TOKEN`
//! here holds its token.
//!
//! An agent that is installed but not set up is said, not counted as a problem; every ✗ is,
//! and makes the exit status 1.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use hooks_config::interop::executables;
use hooks_config::interop::plugin::PluginCommand;
use hooks_config::interop::{
    AGENTS, Agent, KeyValue, Layout, OnFailure, ProjectDir, runs_hooks, shell_word,
};
use serde::Serialize;
use serde_json::Value;

use crate::init::{AGENT_TIMEOUT, installed_version};
use crate::layers::LayersView;
use crate::modules::{load_layers, unloadable};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// As it should be.
    Ok,
    /// Worth knowing; not counted as a problem.
    Warning,
    /// A call can get past the guard, or the guard does not run: exit status 1.
    Problem,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `project` or `user`.
    pub scope: &'static str,
    /// What was checked: `events`, `fail_closed`, `timeout`, `binary`, `hooks_file`, `trust`,
    /// `overrides`, `settings`, `layers`.
    pub check: &'static str,
    /// How it came out.
    pub level: Level,
    /// What was found, for a person.
    pub message: String,
}

/// What `hooks doctor` found for one agent.
#[derive(Debug, Clone, Serialize)]
pub struct AgentReport {
    /// Its name: `claude`.
    pub agent: &'static str,
    /// Its name for people.
    pub name: &'static str,
    /// Its executable found on the `PATH`, if any.
    pub installed: Option<PathBuf>,
    /// What its `--version` printed, when installed.
    pub version: Option<String>,
    /// Its settings files that exist.
    pub configured: Vec<PathBuf>,
    /// What was checked.
    pub findings: Vec<Finding>,
}

/// Everything `hooks doctor` found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Whether no check found a problem.
    pub ok: bool,
    /// The agents, in the order of the command line.
    pub agents: Vec<AgentReport>,
    /// The policy layers of each hooks file the agents' settings name.
    pub layers: Vec<LayersView>,
    /// `hooks serve`: on the address the settings ask (else the default), and which settings
    /// files ask it. `None` in a build without the `serve` feature.
    pub server: Option<ServerReport>,
}

/// What `hooks doctor` says of `hooks serve`.
#[cfg(feature = "serve")]
pub type ServerReport = crate::serve::status::ServerStatus;

/// What `hooks doctor` says of `hooks serve`: nothing, in a build without it.
#[cfg(not(feature = "serve"))]
pub type ServerReport = ();

/// Checks every agent for the project in `project` and the user whose home is `home`.
pub fn examine(project: &Path, home: Option<&Path>) -> Report {
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let mut layers = Vec::new();
    let mut wired = Vec::new();
    let agents: Vec<AgentReport> = AGENTS
        .iter()
        .map(|agent| examine_agent(*agent, &project, home, &mut layers, &mut wired))
        .collect();
    let ok = agents
        .iter()
        .flat_map(|agent| &agent.findings)
        .all(|finding| finding.level != Level::Problem);
    Report {
        ok,
        agents,
        layers,
        server: server_report(wired),
    }
}

/// The server the settings in `wired` ask (the first address named), else the default one.
#[cfg(feature = "serve")]
fn server_report(wired: Vec<(PathBuf, SocketAddr)>) -> Option<ServerReport> {
    let address = wired
        .first()
        .map(|(_, address)| *address)
        .unwrap_or_else(|| {
            crate::serve::DEFAULT_LISTEN
                .parse()
                .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8787)))
        });
    let mut files: Vec<PathBuf> = wired.into_iter().map(|(file, _)| file).collect();
    files.dedup();
    Some(crate::serve::status::ServerStatus::of(address, files))
}

#[cfg(not(feature = "serve"))]
fn server_report(_wired: Vec<(PathBuf, SocketAddr)>) -> Option<ServerReport> {
    None
}

/// The first of `names` found as an executable file on the `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    })
}

/// Whether `path` is a file this user may run.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

fn examine_agent(
    agent: &'static dyn Agent,
    project: &Path,
    home: Option<&Path>,
    layers: &mut Vec<LayersView>,
    wired: &mut Vec<(PathBuf, SocketAddr)>,
) -> AgentReport {
    let installed = on_path(agent.profile().binaries);
    let version = installed
        .as_ref()
        .and_then(|binary| installed_version(&binary.display().to_string()))
        .map(|printed| printed.trim().to_owned());
    let settings = agent.profile().settings;
    let mut files = vec![("project", project.join(settings.project))];
    if let Some(home) = home {
        let user = home.join(settings.user);
        if user != files[0].1 {
            files.push(("user", user));
        }
    }
    let mut report = AgentReport {
        agent: agent.name(),
        name: agent.profile().display_name,
        installed,
        version,
        configured: Vec::new(),
        findings: Vec::new(),
    };
    let mut guarded = false;
    for (scope, file) in files {
        let text = match settings.layout {
            // A directory of scripts: each is read by the check itself.
            Layout::Executables(_) if file.is_dir() => String::new(),
            _ => match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(_) => continue,
            },
        };
        report.configured.push(file.clone());
        let mut check = Checker {
            agent,
            scope,
            project,
            version: report.version.as_deref(),
            findings: &mut report.findings,
            layers: &mut *layers,
            wired: &mut *wired,
        };
        guarded |= check.settings_file(&file, &text);
        if guarded && scope == "project" {
            check.trust();
        }
    }
    if guarded && let Some(why) = agent.hooks_switched_off(project, home.unwrap_or(project)) {
        report.findings.push(Finding {
            scope: "project",
            check: "overrides",
            level: Level::Problem,
            message: format!(
                "{} runs no hook at all: {why}",
                agent.profile().display_name
            ),
        });
    }
    report
}

/// The checks of one settings file.
struct Checker<'a> {
    agent: &'static dyn Agent,
    scope: &'static str,
    project: &'a Path,
    version: Option<&'a str>,
    findings: &'a mut Vec<Finding>,
    /// The policy layers of the hooks files seen so far.
    layers: &'a mut Vec<LayersView>,
    /// The settings files seen so far whose hooks ask `hooks serve`, and its address.
    wired: &'a mut Vec<(PathBuf, SocketAddr)>,
}

impl Checker<'_> {
    /// Adds a finding, once: the same finding for several entries is one line.
    fn say(&mut self, check: &'static str, level: Level, message: String) {
        let finding = Finding {
            scope: self.scope,
            check,
            level,
            message,
        };
        let same = |seen: &Finding| {
            seen.scope == finding.scope && seen.check == check && seen.message == finding.message
        };
        if !self.findings.iter().any(same) {
            self.findings.push(finding);
        }
    }

    /// Checks the settings file `file`; whether its hooks run `hooks <agent>`.
    fn settings_file(&mut self, file: &Path, text: &str) -> bool {
        let agent = self.agent;
        let shown = file.display();
        let hooks = match agent.profile().settings.layout {
            Layout::Plugin(_) => plugin_hooks(agent, file, text),
            Layout::Executables(_) => {
                executables::hooks_in(agent.profile().settings, agent.name(), file)
            }
            layout => match serde_json::from_str::<Value>(text) {
                Ok(settings @ Value::Object(_)) => layout.command_hooks(&settings),
                _ => {
                    self.say(
                        "settings",
                        Level::Problem,
                        format!(
                            "{shown} is not a JSON object: {} ignores it",
                            agent.profile().display_name
                        ),
                    );
                    return false;
                }
            },
        };
        let ours: Vec<&(String, Value)> = hooks
            .iter()
            .filter(|(_, hook)| command_of(hook).is_some_and(|c| runs_hooks(c, agent.name())))
            .collect();
        let served: Vec<&(String, Value)> = hooks
            .iter()
            .filter(|(_, hook)| served_by(hook, agent.name()).is_some())
            .collect();
        if ours.is_empty() && served.is_empty() {
            self.say(
                "events",
                Level::Warning,
                format!(
                    "{shown} runs no `hooks {}`: run `hooks init {}` to guard {}",
                    agent.name(),
                    agent.name(),
                    agent.profile().display_name
                ),
            );
            return false;
        }
        let guard: Vec<&(String, Value)> = ours.iter().chain(&served).copied().collect();
        self.events(&shown.to_string(), &hooks, &guard);
        let mut asked = Vec::new();
        for (_, hook) in &served {
            self.fail_closed(hook);
            self.timeout(hook);
            if let Some(served) = served_by(hook, agent.name())
                && !asked.contains(&served)
            {
                asked.push(served.clone());
                let (address, config) = served;
                self.server(address, starts_server(&hooks));
                self.hooks_file_at(self.project.join(config));
                self.wired.push((file.to_path_buf(), address));
            }
        }
        let mut seen = Vec::new();
        for (_, hook) in &ours {
            self.fail_closed(hook);
            self.timeout(hook);
            if let Some(command) = command_of(hook)
                && !seen.contains(&command)
            {
                seen.push(command);
                self.binary(command);
                self.hooks_file(command);
            }
        }
        true
    }

    /// Our hooks run on every event that matters, and only on events the agent has; other
    /// hooks on those events are listed.
    fn events(&mut self, file: &str, hooks: &[(String, Value)], ours: &[&(String, Value)]) {
        let agent = self.agent;
        let protocol = agent.profile().protocol;
        let matter: Vec<&str> = agent
            .profile()
            .settings
            .init_events
            .iter()
            .copied()
            .filter(|event| {
                protocol
                    .canonical_event(event)
                    .is_ok_and(|canonical| canonical == "tool:pre" || canonical == "prompt:submit")
            })
            .collect();
        let runs_on = |event: &str| ours.iter().any(|(on, _)| on == event);
        let missing: Vec<&str> = matter.iter().copied().filter(|e| !runs_on(e)).collect();
        if missing.is_empty() {
            self.say(
                "events",
                Level::Ok,
                format!("{file} runs the guard on {}", matter.join(", ")),
            );
        } else {
            self.say(
                "events",
                Level::Problem,
                format!(
                    "{file} does not run the guard on {}: those calls are not checked \
                     (`hooks init {}` adds them)",
                    missing.join(", "),
                    agent.name()
                ),
            );
        }
        let mut unknown: Vec<&str> = ours
            .iter()
            .map(|(event, _)| event.as_str())
            .filter(|event| !protocol.events.iter().any(|(theirs, _)| theirs == event))
            .collect();
        unknown.dedup();
        if !unknown.is_empty() {
            self.say(
                "events",
                Level::Problem,
                format!(
                    "{file} runs the guard on {}, which {} does not have: it never runs there",
                    unknown.join(", "),
                    agent.profile().display_name
                ),
            );
        }
        let others: Vec<String> = hooks
            .iter()
            .filter(|(event, hook)| {
                matter.contains(&event.as_str()) && !ours.iter().any(|(_, guard)| guard == hook)
            })
            .map(|(event, hook)| {
                let what = command_of(hook)
                    .map(|command| format!("`{command}`"))
                    .unwrap_or_else(|| hook.to_string());
                format!("{what} on {event}")
            })
            .collect();
        if !others.is_empty() {
            self.say(
                "overrides",
                Level::Warning,
                format!(
                    "other hooks run next to the guard: {}. A block from any hook stands, but a \
                     rewrite of the tool input by one of them can replace the input the guard \
                     checked; review them",
                    others.join(", ")
                ),
            );
        }
    }

    /// The entry sets the agent's fail-closed key, with a value it takes.
    fn fail_closed(&mut self, hook: &Value) {
        let agent = self.agent;
        let name = agent.profile().display_name;
        let setting = match agent.profile().on_failure {
            OnFailure::Closed => return,
            OnFailure::Open => {
                let message = format!(
                    "{name} fails open: when `hooks` is missing, crashes or hangs, the call runs \
                     (no setting changes this)"
                );
                self.say("fail_closed", Level::Warning, message);
                return;
            }
            OnFailure::Settable(setting) => setting,
        };
        let wanted = setting.value.to_json();
        let shown = match setting.value {
            KeyValue::Str(text) => format!("\"{text}\""),
            KeyValue::Bool(flag) => flag.to_string(),
        };
        let key = setting.key;
        let supported = setting
            .since
            .map(|since| self.version.and_then(|printed| since.met_by(printed)));
        match hook.get(key) {
            Some(value) if *value == wanted => match supported {
                Some(Some(false)) => self.say(
                    "fail_closed",
                    Level::Problem,
                    format!(
                        "`{key}: {shown}` is set, but the installed {name} ({}) ignores it: \
                         upgrade it",
                        self.version.unwrap_or_default()
                    ),
                ),
                _ => self.say(
                    "fail_closed",
                    Level::Ok,
                    format!("fails closed (`{key}: {shown}`)"),
                ),
            },
            Some(value) => self.say(
                "fail_closed",
                Level::Problem,
                format!(
                    "`{key}` is {value}, which {name} does not take (it wants {shown}); an \
                     invalid value can make it skip the whole settings file"
                ),
            ),
            None => {
                let fixable = Level::Problem;
                let run_init = format!("run `hooks init {}` to set it", agent.name());
                let (level, why) = match setting.since {
                    None => (fixable, run_init),
                    Some(_) if supported == Some(Some(true)) => (fixable, run_init),
                    Some(since) => (
                        Level::Warning,
                        format!(
                            "{name} takes it from {} on, and the installed one is older or \
                             unknown: upgrade it, then run `hooks init {}`",
                            since.display(),
                            agent.name()
                        ),
                    ),
                };
                self.say(
                    "fail_closed",
                    level,
                    format!(
                        "fails open: no `{key}: {shown}`, so a missing, crashed or hung `hooks` \
                         lets the call run; {why}"
                    ),
                );
            }
        }
    }

    /// A timeout the entry sets is above our own deadline.
    fn timeout(&mut self, hook: &Value) {
        let least = self.agent.profile().timeout_unit.of(AGENT_TIMEOUT);
        if let Some(timeout) = hook.get("timeout").and_then(Value::as_f64)
            && timeout < least as f64
        {
            self.say(
                "timeout",
                Level::Warning,
                format!(
                    "the entry's timeout {timeout} is below the guard's own deadline ({least}): \
                     a slow policy is cut off by {}",
                    self.agent.profile().display_name
                ),
            );
        }
    }

    /// The binary the command names is an absolute path to this version of `hooks`.
    fn binary(&mut self, command: &str) {
        // The program is the first word: what the arguments expand to does not matter here.
        let Some(program) =
            words(command, &|_| Some(String::new())).and_then(|words| words.into_iter().next())
        else {
            self.say(
                "binary",
                Level::Problem,
                format!("cannot read the program of `{command}`"),
            );
            return;
        };
        let path = Path::new(&program);
        if !path.is_absolute() {
            self.say(
                "binary",
                Level::Problem,
                format!(
                    "`{program}` is looked up on the PATH {} runs with, which may not have it \
                     (then the call runs unchecked): run `hooks init {}` to name it by its \
                     absolute path",
                    self.agent.profile().display_name,
                    self.agent.name()
                ),
            );
            return;
        }
        if !is_executable(path) {
            self.say(
                "binary",
                Level::Problem,
                format!("{program} does not exist or cannot be run"),
            );
            return;
        }
        let ours = format!("hooks {}", env!("CARGO_PKG_VERSION"));
        match installed_version(&program) {
            Some(printed) if printed.trim() == ours => {
                self.say("binary", Level::Ok, format!("{program} is {ours}"))
            }
            printed => self.say(
                "binary",
                Level::Problem,
                format!(
                    "{program} is not this version ({ours}): it says `{}`",
                    printed.unwrap_or_default().trim()
                ),
            ),
        }
    }

    /// `hooks serve` answers on `address`; `started` whether a `SessionStart` hook starts it.
    fn server(&mut self, address: SocketAddr, started: bool) {
        #[cfg(feature = "serve")]
        let (level, message) = if crate::serve::answers(address) {
            (Level::Ok, format!("hooks serve answers on {address}"))
        } else if started {
            (
                Level::Warning,
                format!(
                    "no hooks serve answers on {address} now; the SessionStart hook starts it,                      and until then every call is blocked"
                ),
            )
        } else {
            (
                Level::Problem,
                format!(
                    "no hooks serve answers on {address}, and no SessionStart hook starts it:                      every call is blocked (run `hooks serve --install`, or `hooks init {}                      --serve` again)",
                    self.agent.name()
                ),
            )
        };
        #[cfg(not(feature = "serve"))]
        let (level, message) = (
            Level::Warning,
            format!(
                "the hooks ask hooks serve on {address} (started: {started}), and this build                  of `hooks` has no `serve` feature to check it"
            ),
        );
        self.say("serve", level, message);
    }

    /// The hooks file the command names loads.
    fn hooks_file(&mut self, command: &str) {
        let Some(file) = self.config_of(command) else {
            self.say(
                "hooks_file",
                Level::Problem,
                format!("cannot tell which hooks file `{command}` reads"),
            );
            return;
        };
        let file = if file.is_absolute() {
            file
        } else {
            self.project.join(file)
        };
        self.hooks_file_at(file);
    }

    /// The hooks file `file` loads, with the layers over it.
    fn hooks_file_at(&mut self, file: PathBuf) {
        let loaded = load_layers(&file).and_then(|stack| match stack.check() {
            Ok(()) => Ok(stack),
            Err(errors) => Err(hooks_config::LayersError::Broken {
                level: hooks_config::Level::Project,
                errors,
            }),
        });
        match loaded {
            Ok(stack) => {
                self.say(
                    "hooks_file",
                    Level::Ok,
                    format!("{} loads ({})", file.display(), stack.summary()),
                );
                for warning in stack.warnings() {
                    self.say("layers", Level::Warning, warning.to_string());
                }
                if !self.layers.iter().any(|seen| seen.hooks_file == file) {
                    self.layers.push(LayersView::of(file, &stack));
                }
            }
            Err(error) => self.say(
                "hooks_file",
                Level::Problem,
                format!(
                    "{} does not load, so every call is blocked: {}",
                    file.display(),
                    unloadable(&error)
                ),
            ),
        }
    }

    /// The file after `--config` in `command`, with the project directory put where the
    /// agent puts it.
    fn config_of(&self, command: &str) -> Option<PathBuf> {
        let project = self.project.display().to_string();
        let git_root = || {
            let output = std::process::Command::new("git")
                .args(["rev-parse", "--show-toplevel"])
                .current_dir(self.project)
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            output
                .status
                .success()
                .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        };
        let var = match self.agent.profile().settings.project_dir {
            ProjectDir::Var(var) | ProjectDir::BracedVar(var) => Some(var),
            ProjectDir::GitRoot | ProjectDir::Cwd => None,
        };
        let expand = |name: &str| match name {
            "$(git rev-parse --show-toplevel)" => git_root(),
            name if Some(name) == var => Some(project.clone()),
            _ => None,
        };
        let words = words(command, &expand)?;
        let at = words.iter().position(|word| word == "--config")?;
        words.get(at + 1).map(PathBuf::from)
    }

    /// The agent's trust step for the project.
    fn trust(&mut self) {
        let agent = self.agent;
        match agent.trust(self.project) {
            Some(hooks_config::interop::Trust::Trusted(why)) => {
                self.say("trust", Level::Ok, format!("the folder is trusted ({why})"))
            }
            Some(hooks_config::interop::Trust::Untrusted(why)) => self.say(
                "trust",
                Level::Problem,
                format!(
                    "{} will not run this project's hooks until the folder is trusted ({why})",
                    agent.profile().display_name
                ),
            ),
            None if agent.profile().trust_note.is_some() => self.say(
                "trust",
                Level::Warning,
                format!(
                    "{} keeps its trust where `hooks` cannot read it: make sure it trusts these \
                     hooks (see `hooks init {}`)",
                    agent.profile().display_name,
                    agent.name()
                ),
            ),
            None => {}
        }
    }
}

/// The hooks a plugin file written by `hooks init` runs: its command on each event the agent's
/// plugin hooks, named as a command line with the hooks file's absolute path (the plugin finds
/// the project from its own directory), with its timeout in seconds. None when `text` is not
/// such a plugin, or one for another agent.
fn plugin_hooks(agent: &dyn Agent, file: &Path, text: &str) -> Vec<(String, Value)> {
    let Some(command) = PluginCommand::read(text).filter(|c| c.agent == agent.name()) else {
        return Vec::new();
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    let config = dir.join(&command.root).join(&command.config);
    let line = format!(
        "{} {} --config {}",
        shell_word(&command.binary),
        command.agent,
        shell_word(&config.display().to_string())
    );
    let hook = serde_json::json!({
        "command": line,
        "timeout": command.timeout_ms.div_ceil(1000),
    });
    agent
        .profile()
        .settings
        .init_events
        .iter()
        .map(|event| ((*event).to_owned(), hook.clone()))
        .collect()
}

/// The address of `hooks serve` and the hooks file (relative to the project) an HTTP hook of
/// `hooks init --serve` asks for `agent`: a POST to `http://<loopback>/<agent>`, with the file
/// in `?config=` when it is not `hooks.yaml`. `None` for any other hook.
fn served_by(hook: &Value, agent: &str) -> Option<(SocketAddr, PathBuf)> {
    if hook.get("type").and_then(Value::as_str) != Some("http") {
        return None;
    }
    let url = hook.get("url").and_then(Value::as_str)?;
    let (authority, rest) = url.strip_prefix("http://")?.split_once('/')?;
    let address: SocketAddr = authority.parse().ok()?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if path != agent || !address.ip().is_loopback() {
        return None;
    }
    let config = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("config="))
        .unwrap_or("hooks.yaml");
    Some((address, PathBuf::from(config)))
}

/// Whether a `SessionStart` command hook of `hooks` starts the server (`hooks serve --ensure`).
fn starts_server(hooks: &[(String, Value)]) -> bool {
    hooks.iter().any(|(event, hook)| {
        event == "SessionStart" && command_of(hook).is_some_and(|c| c.contains("serve --ensure"))
    })
}

/// A hook's command.
fn command_of(hook: &Value) -> Option<&str> {
    hook.get("command").and_then(Value::as_str)
}

/// `command` split into words as `sh` splits it, for the forms `hooks init` writes: single
/// and double quotes, backslashes inside double quotes and out, and `$NAME`, `${NAME}` and
/// `$(...)` replaced by what `expand` gives for `NAME` or `$(...)`. `None` when something
/// cannot be expanded.
fn words(command: &str, expand: &dyn Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' if !quoted => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' if !quoted => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => text.push(c),
                    }
                }
            }
            '"' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '$' => {
                let name = match chars.peek() {
                    Some('(') => {
                        let mut inner = String::from("$");
                        for c in chars.by_ref() {
                            inner.push(c);
                            if c == ')' {
                                break;
                            }
                        }
                        inner
                    }
                    Some('{') => {
                        chars.next();
                        let mut name = String::new();
                        for c in chars.by_ref() {
                            if c == '}' {
                                break;
                            }
                            name.push(c);
                        }
                        name
                    }
                    _ => {
                        let mut name = String::new();
                        while let Some(c) =
                            chars.next_if(|c| c.is_ascii_alphanumeric() || *c == '_')
                        {
                            name.push(c);
                        }
                        name
                    }
                };
                word.get_or_insert_with(String::new)
                    .push_str(&expand(&name)?);
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quoted {
        return None;
    }
    words.extend(word);
    Some(words)
}

/// The report for a person: a line per agent, then a ✓, ✗ or ! line per check.
pub fn human(report: &Report) -> String {
    let mut text = String::new();
    for agent in &report.agents {
        let installed = match (&agent.installed, &agent.version) {
            (Some(path), Some(version)) => format!("installed ({}, {version})", path.display()),
            (Some(path), None) => format!("installed ({})", path.display()),
            (None, _) => "not installed".to_owned(),
        };
        let configured = if agent.configured.is_empty() {
            "not configured".to_owned()
        } else {
            let files: Vec<String> = agent
                .configured
                .iter()
                .map(|file| file.display().to_string())
                .collect();
            format!("configured ({})", files.join(", "))
        };
        text.push_str(&format!("{}: {installed}, {configured}\n", agent.name));
        for finding in &agent.findings {
            let mark = match finding.level {
                Level::Ok => "✓",
                Level::Warning => "!",
                Level::Problem => "✗",
            };
            text.push_str(&format!(
                "  {mark} [{}] {}\n",
                finding.scope, finding.message
            ));
        }
    }
    #[cfg(feature = "serve")]
    if let Some(server) = &report.server {
        text.push_str(&server.text());
    }
    for view in &report.layers {
        text.push_str(&format!(
            "policy layers of {} (managed first):\n{}",
            view.hooks_file.display(),
            view.text("  ")
        ));
    }
    text.push_str(if report.ok {
        "no problem found\n"
    } else {
        "problems found (✗)\n"
    });
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_of_the_commands_init_writes_are_read_back() {
        let expand = |name: &str| match name {
            "CLAUDE_PROJECT_DIR" | "GEMINI_PROJECT_DIR" => Some("/p q".to_owned()),
            "$(git rev-parse --show-toplevel)" => Some("/repo".to_owned()),
            _ => None,
        };
        let read = |command: &str| words(command, &expand);
        assert_eq!(
            read("/bin/hooks claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml").unwrap(),
            ["/bin/hooks", "claude", "--config", "/p q/hooks.yaml"]
        );
        assert_eq!(
            read("'/my bin/hooks' gemini --config \"${GEMINI_PROJECT_DIR}/team hooks.yaml\"")
                .unwrap(),
            [
                "/my bin/hooks",
                "gemini",
                "--config",
                "/p q/team hooks.yaml"
            ]
        );
        assert_eq!(
            read("hooks codex --config \"$(git rev-parse --show-toplevel)/a/h.yaml\"").unwrap(),
            ["hooks", "codex", "--config", "/repo/a/h.yaml"]
        );
        assert_eq!(read("hooks x --config \"$OTHER/h.yaml\""), None);
        assert_eq!(read("hooks x --config \"open"), None);
    }
}
