//! [`Agent`]: everything `hooks` knows of one coding agent's hooks, in one place: its events,
//! its hook settings, how its stdin becomes an event, how a merged result becomes its answer,
//! what it does when the policy cannot decide, what it accepts, and what it can and cannot do.

use std::path::Path;

use hooks_core::EmitResult;
use serde_json::Value;

use super::tools::ToolName;
use super::{AgentAnswer, Answering, Dialect, Layout, Rewrites};
use crate::ConfigErrors;
use crate::agent_protocol::{InputError, MappedEvent, Protocol};
use crate::settings::Imported;
pub use crate::settings::TimeUnit;

/// One coding agent whose hooks `hooks` serves (`hooks <name> --config FILE`) and sets up
/// (`hooks init <name>`). Each agent is one file of [`interop`](super) with a unit struct
/// implementing this trait, listed in [`AGENTS`](super::AGENTS); the command line iterates that
/// list, so adding an agent adds its subcommands. What the agent is (its constants) is its
/// [`Profile`]; the methods it implements are what it does.
pub trait Agent: std::fmt::Debug + Sync {
    /// What it is, as data: its protocol, names, dialect, capabilities, settings, tools,
    /// binaries and failure mode (see [`Profile`]); what it is is read there, not through a
    /// method of its own.
    fn profile(&self) -> &'static Profile;

    /// Its name: the subcommand (`hooks claude`), lowercase.
    fn name(&self) -> &'static str {
        self.profile().protocol.agent
    }

    /// Its hook input (what it writes on stdin) as our event: by default its row's
    /// [`aliases`](Profile::aliases) read under Claude Code's names, then its
    /// [`protocol`](Profile::protocol)'s events and fields, its [`tools`](Profile::tools) made
    /// canonical. An agent whose input has another shape reads it itself.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let profile = self.profile();
        super::tools::event_in(profile.protocol, profile.aliases, profile.tools, input)
    }

    /// Our merged result for its event `agent_event`, in its protocol, as its
    /// [dialect](Profile::dialect) writes it; `input` is the event data as it was emitted,
    /// `rewrites` the hooks whose rewrites run unconfirmed. A question or a rewrite it cannot
    /// take is a deny whose reason says what would have been asked or run, never an allow.
    fn answer(
        &self,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        rewrites: &Rewrites,
    ) -> AgentAnswer {
        let profile = self.profile();
        profile.dialect.answer(&Answering {
            profile,
            agent_event,
            input,
            outcome,
            rewrites,
        })
    }

    /// The answer when the policy cannot decide (unreadable input, a broken hooks file):
    /// a block with `reason` wherever it lets a hook block; `agent_event` is `None` when the
    /// input could not be read.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        self.profile().dialect.fail_closed(agent_event, reason)
    }

    /// What it does with `answer` to its event `agent_event`, as its dialect's validator reads
    /// it (see [`Dialect::accepts`]).
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
        let profile = self.profile();
        profile.dialect.accepts(&super::Reading {
            profile,
            agent_event,
            answer,
        })
    }

    /// Converts a hooks file of its own into our entries (`hooks import <name>`); `None` when
    /// it has no hooks file to import.
    fn importer(&self) -> Option<Importer> {
        None
    }

    /// Whether it will run the hooks of the project in `project` (some agents run project
    /// hooks only in a folder the user trusted); `None` when it has no such step.
    fn trust(&self, project: &Path) -> Option<Trust> {
        let _ = project;
        None
    }

    /// The command its settings run: `hooks <name> --config <file>`, with `file` (relative to
    /// the project) named from the project directory as it runs the command.
    fn command(&self, file: &str) -> String {
        format!(
            "hooks {} --config {}",
            self.name(),
            self.profile().settings.project_dir.argument(file)
        )
    }

    /// [`command`](Agent::command) with the `hooks` binary named by its absolute path
    /// `binary`, so that the agent runs this binary whatever its own `PATH` is.
    fn command_with(&self, binary: &Path, file: &str) -> String {
        let binary = shell_word(&binary.display().to_string());
        match self.command(file).strip_prefix("hooks ") {
            Some(rest) => format!("{binary} {rest}"),
            None => self.command(file),
        }
    }

    /// Where a setting of its own turns every hook off for the project in `project` and the
    /// user whose home is `home` (Claude Code's `disableAllHooks`), with the file that says
    /// so; `None` when nothing does (by default, nothing is read).
    fn hooks_switched_off(&self, project: &Path, home: &Path) -> Option<String> {
        let _ = (project, home);
        None
    }
}

/// What one agent is, as data: its row, kept in a `static` by its file. Every fact of the
/// agent is a field here, read by whoever needs it (`init`, `doctor`, `--help`, the docs'
/// tables); its file holds only what it does that no row can say (how an unusual input is
/// read). What its answers are is its [`dialect`](Profile::dialect)'s.
///
/// Built in a const context from [`Profile::new`] and the setters, each of which names what
/// differs from the common case.
#[derive(Debug)]
#[non_exhaustive]
pub struct Profile {
    /// Its events, its field names and its name (`claude`: the subcommand and the namespace of
    /// its events that have no canonical equivalent).
    pub protocol: &'static Protocol,
    /// Its name for people: `Claude Code`.
    pub display_name: &'static str,
    /// The family of protocols its answers are in: how a merged result becomes its answer,
    /// what it says when the policy cannot decide, how it reads an answer back.
    pub dialect: &'static dyn Dialect,
    /// What it can take from a hook, and what our answer becomes where it cannot.
    pub capabilities: &'static Capabilities,
    /// Its hook settings: where they are, and what `hooks init` writes into them.
    pub settings: &'static HookSettings,
    /// Its shell, file and patch tools under their canonical names (see
    /// [`tools`](super::tools)), as its [`event_in`](Agent::event_in) maps them; empty where
    /// its tools already have the canonical names or it has no tool events.
    pub tools: &'static [ToolName],
    /// Fields of its stdin that are read under Claude Code's names too (`event` as
    /// `hook_event_name`), before its events and tools are read.
    pub aliases: &'static [(&'static str, &'static str)],
    /// The names of its executables, looked up on the `PATH` to tell whether it is installed.
    pub binaries: &'static [&'static str],
    /// What it does when a hook fails (crashes, hangs past its timeout, is not found), and
    /// what a hook entry sets to make that a block.
    pub on_failure: OnFailure,
    /// The unit of the `timeout` of its hook entries.
    pub timeout_unit: TimeUnit,
    /// The keys its hook entries take their timeout under; `init` writes each, so that one
    /// entry read by two programs is bounded in both.
    pub timeout_keys: &'static [&'static str],
    /// Whether this adapter was run against the agent's real program (rather than against its
    /// documentation only); stated in `docs/agents.md`.
    pub tested_against_real_program: bool,
    /// What it cannot do that its capabilities do not say (a failure mode, a version that
    /// differs), for `hooks <agent> --help`; `None` when nothing.
    pub limits: Option<&'static str>,
    /// What every `hooks init` of it tells the user about its trust step, if it has one.
    pub trust_note: Option<&'static str>,
    /// Files beyond its two settings files that configure its hooks, as globs relative to a
    /// project or the home directory (see [`Profile::guard_globs`]).
    pub also_guarded: &'static [&'static str],
}

impl Profile {
    /// The agent that speaks `protocol`, is called `display_name`, answers in `dialect`,
    /// takes what `capabilities` says and keeps its hooks as `settings` says; as the common
    /// case has it until a setter says otherwise: its tools have the canonical names, no
    /// executable is known, it runs a call whose hook failed ([`OnFailure::Open`]), its
    /// timeouts are seconds under `timeout`, and it was checked against its documentation only.
    pub const fn new(
        protocol: &'static Protocol,
        display_name: &'static str,
        dialect: &'static dyn Dialect,
        capabilities: &'static Capabilities,
        settings: &'static HookSettings,
    ) -> Self {
        Profile {
            protocol,
            display_name,
            dialect,
            capabilities,
            settings,
            tools: &[],
            aliases: &[],
            binaries: &[],
            on_failure: OnFailure::Open,
            timeout_unit: TimeUnit::Seconds,
            timeout_keys: &["timeout"],
            tested_against_real_program: false,
            limits: None,
            trust_note: None,
            also_guarded: &[],
        }
    }

    /// Its shell, file and patch tools under their canonical names ([`Profile::tools`]).
    pub const fn tools(mut self, tools: &'static [ToolName]) -> Self {
        self.tools = tools;
        self
    }

    /// The fields of its stdin read under Claude Code's names ([`Profile::aliases`]).
    pub const fn aliases(mut self, aliases: &'static [(&'static str, &'static str)]) -> Self {
        self.aliases = aliases;
        self
    }

    /// The names of its executables ([`Profile::binaries`]).
    pub const fn binaries(mut self, binaries: &'static [&'static str]) -> Self {
        self.binaries = binaries;
        self
    }

    /// What it does when a hook fails ([`Profile::on_failure`]).
    pub const fn on_failure(mut self, on_failure: OnFailure) -> Self {
        self.on_failure = on_failure;
        self
    }

    /// The unit of its hook timeouts ([`Profile::timeout_unit`]).
    pub const fn timeout_unit(mut self, unit: TimeUnit) -> Self {
        self.timeout_unit = unit;
        self
    }

    /// The keys of its hook timeouts ([`Profile::timeout_keys`]).
    pub const fn timeout_keys(mut self, keys: &'static [&'static str]) -> Self {
        self.timeout_keys = keys;
        self
    }

    /// It was run against its real program ([`Profile::tested_against_real_program`]).
    pub const fn tested_against_real_program(mut self) -> Self {
        self.tested_against_real_program = true;
        self
    }

    /// What it cannot do that its capabilities do not say ([`Profile::limits`]).
    pub const fn limits(mut self, limits: &'static str) -> Self {
        self.limits = Some(limits);
        self
    }

    /// What `hooks init` tells the user about its trust step ([`Profile::trust_note`]).
    pub const fn trust_note(mut self, note: &'static str) -> Self {
        self.trust_note = Some(note);
        self
    }

    /// The other files that configure its hooks besides its settings (a local settings
    /// file, a hooks folder, its plugins), as globs relative to a project or the home
    /// directory: write-protected with them ([`Profile::guard_globs`]).
    pub const fn also_guards(mut self, globs: &'static [&'static str]) -> Self {
        self.also_guarded = globs;
        self
    }

    /// The globs of every file that configures its hooks, in a project or the home directory
    /// (`**/` matches both): its settings, project and user (a folder with all under it, for
    /// an [`Executables`](Layout::Executables) layout), and the files
    /// [`also_guards`](Profile::also_guards) names. The guard write-protects them: an agent
    /// that edits its own hook settings switches the guard off.
    pub fn guard_globs(&self) -> Vec<String> {
        let folder = matches!(self.settings.layout, Layout::Executables(_));
        let mut globs: Vec<String> = Vec::new();
        let settings = [self.settings.project, self.settings.user];
        let named = settings.iter().map(|path| {
            let path = path.trim_end_matches('/');
            if folder {
                format!("**/{path}/**")
            } else {
                format!("**/{path}")
            }
        });
        let also = self.also_guarded.iter().map(|glob| format!("**/{glob}"));
        for glob in named.chain(also) {
            if !globs.contains(&glob) {
                globs.push(glob);
            }
        }
        globs
    }
}

/// Whether `command` runs `hooks <agent>`: its first word is `hooks` or a path to a file
/// named `hooks` (quoted or not), its second `agent`.
pub fn runs_hooks(command: &str, agent: &str) -> bool {
    let command = command.trim_start();
    let (program, rest) = match command.strip_prefix('\'') {
        Some(quoted) => match quoted.split_once('\'') {
            Some((program, rest)) => (program, rest),
            None => return false,
        },
        None => command.split_once(' ').unwrap_or((command, "")),
    };
    let named_hooks = program == "hooks" || program.ends_with("/hooks");
    named_hooks && rest.split_whitespace().next() == Some(agent)
}

/// `word` as one word of `sh`: as it is when it has nothing the shell reads, else quoted.
pub fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/+:@%,=".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What an agent does with a hook that fails: crashes, exits with an unexpected code, hangs
/// past its timeout, or cannot be started because its binary is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnFailure {
    /// It runs the tool call as if the hook had not been there, and nothing can change that
    /// (Codex CLI). Also the reading for an agent seen to block on some failures only (Gemini
    /// CLI blocks when the hook cannot start, a crash is untested): `init` and `doctor` then
    /// warn rather than promise.
    Open,
    /// It blocks the call when the hook's entry sets this key; otherwise it runs it.
    Settable(FailClosedKey),
    /// It blocks the call by itself.
    Closed,
}

/// The key of a hook entry that makes an agent block when the hook fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailClosedKey {
    /// The key (`onFailure`, `failClosed`).
    pub key: &'static str,
    /// The value that blocks.
    pub value: KeyValue,
    /// The first version of the agent that takes the key, when older ones reject it (and
    /// with it the whole settings file); `None` when every version with hooks takes it.
    pub since: Option<MinVersion>,
}

/// A value of a settings key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyValue {
    /// A string.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
}

impl KeyValue {
    /// The value as JSON.
    pub fn to_json(self) -> Value {
        match self {
            KeyValue::Str(text) => Value::String(text.to_owned()),
            KeyValue::Bool(flag) => Value::Bool(flag),
        }
    }
}

/// The first version of an agent that takes a setting, and how to ask the installed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinVersion {
    /// The executable that prints its version with `--version` (`claude`).
    pub binary: &'static str,
    /// The first version that takes the setting, `major.minor.patch`.
    pub version: [u64; 3],
}

impl MinVersion {
    /// Whether the version `printed` by `<binary> --version` (its first `x.y.z` word) is this
    /// one or later; `None` when it names no version.
    pub fn met_by(&self, printed: &str) -> Option<bool> {
        let found = parse_version(printed)?;
        Some(found >= self.version)
    }

    /// The version as text: `2.1.295`.
    pub fn display(&self) -> String {
        let [major, minor, patch] = self.version;
        format!("{major}.{minor}.{patch}")
    }
}

/// The first `x.y.z` word of `text` (a trailing `-beta` or `+build` is ignored).
pub fn parse_version(text: &str) -> Option<[u64; 3]> {
    text.split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .find_map(|word| {
            let word = word.trim_start_matches('v');
            let core = word.split(['-', '+']).next()?;
            let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
            let version = [parts.next()??, parts.next()??, parts.next()??];
            parts.next().is_none().then_some(version)
        })
}

/// Reads one of an agent's hooks files (`hooks import <agent> FILE`).
pub type Importer = fn(&Path) -> Result<Imported, ConfigErrors>;

/// What an agent does with an answer to one of its events.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// It goes on as it would without the hook (its own permission rules still apply).
    Proceed,
    /// It stops what the event is about (the tool call, the prompt, the stop), with the
    /// reason it reads.
    Block(String),
    /// It puts the question to the user.
    Ask(String),
    /// It runs the call with this tool input instead, without asking anyone.
    RunRewritten(Value),
}

/// What an agent can take from a hook: stated once, used by its answers, shown in
/// `hooks <agent> --help`.
#[derive(Debug)]
pub struct Capabilities {
    /// The events on which a question (`ask_user`) reaches the user, by the hook's answer or by
    /// the agent's own prompt; elsewhere a question is a deny whose reason is the question.
    pub asks_on: &'static [&'static str],
    /// How it takes a rewritten tool input.
    pub rewrite: RewriteSupport,
    /// The events whose context reaches the model; elsewhere the user is shown the context.
    pub context_on: &'static [&'static str],
    /// The event that submits a prompt, when a hook can stop it.
    pub blocks_prompt: Option<&'static str>,
}

/// How an agent takes a rewritten tool input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RewriteSupport {
    /// It shows the rewrite to the user to confirm, or runs it unconfirmed when every hook that
    /// rewrote the call says `rewrite: apply` (Claude Code).
    ConfirmedOrApplied,
    /// It runs a rewrite without asking anyone: applied when every hook that rewrote the call
    /// says `rewrite: apply`, a deny saying what would have run otherwise.
    AppliedOnly,
    /// It cannot take one: a deny saying so.
    None,
}

impl Capabilities {
    /// The capabilities as lines for a person (`hooks <agent> --help`).
    pub fn describe(&self, agent: &str) -> String {
        let list = |events: &[&str]| {
            if events.is_empty() {
                "no event".to_owned()
            } else {
                events.join(", ")
            }
        };
        let ask = if self.asks_on.is_empty() {
            format!("{agent} cannot ask: a question is a deny whose reason is the question")
        } else {
            format!(
                "questions reach the user on {}; elsewhere a question is a deny whose reason is \
                 the question",
                list(self.asks_on)
            )
        };
        let rewrite = match self.rewrite {
            RewriteSupport::ConfirmedOrApplied => {
                "a rewritten tool input is shown to the user to confirm, or runs unconfirmed \
                 when every hook that rewrote it says `rewrite: apply`"
            }
            RewriteSupport::AppliedOnly => {
                "a rewritten tool input runs unconfirmed when every hook that rewrote it says \
                 `rewrite: apply`; otherwise the call is denied, saying what would have run"
            }
            RewriteSupport::None => {
                "a rewritten tool input cannot be applied: the call is denied, saying so"
            }
        };
        let prompt = match self.blocks_prompt {
            Some(event) => format!("a prompt can be blocked ({event})"),
            None => "a prompt cannot be blocked".to_owned(),
        };
        format!(
            "Asking: {ask}.\nRewrites: {rewrite}.\nContext reaches the model on {}; elsewhere \
             the user is shown it.\nPrompts: {prompt}.\nWhen the policy cannot decide (a broken \
             hooks file, unreadable input), the call is blocked.",
            list(self.context_on)
        )
    }
}

/// An agent's hook settings: where they are, how a command in them names the project, and
/// what `hooks init` adds.
#[derive(Debug)]
pub struct HookSettings {
    /// The project's settings file, relative to the project directory.
    pub project: &'static str,
    /// The user's settings file, relative to the home directory.
    pub user: &'static str,
    /// How a command in them names the project directory.
    pub project_dir: ProjectDir,
    /// How they list an event's commands.
    pub layout: Layout,
    /// The events `hooks init` runs `hooks` on: tool calls before and after, prompts.
    pub init_events: &'static [&'static str],
}

/// How a hook's command names the project directory, as the agent runs it (`sh -c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectDir {
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

impl ProjectDir {
    /// `file` (relative to the project) after the project directory, quoted so that spaces
    /// and quotes in either stay one argument of the agent's shell.
    pub fn argument(self, file: &str) -> String {
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
        match self {
            ProjectDir::Var(var) if plain => format!("\"${var}\"/{file}"),
            ProjectDir::Var(var) => format!("\"${var}\"/\"{escaped}\""),
            ProjectDir::BracedVar(var) => format!("\"${{{var}}}/{escaped}\""),
            ProjectDir::GitRoot => format!("\"$(git rev-parse --show-toplevel)/{escaped}\""),
            ProjectDir::Cwd if plain => file.to_owned(),
            ProjectDir::Cwd => format!("'{}'", file.replace('\'', "'\\''")),
        }
    }
}

impl HookSettings {
    /// The events whose hooks run `hooks <agent>` in the settings at `path` (a file, or the
    /// directory of an [`Executables`](Layout::Executables) layout), as
    /// [`events_running`](HookSettings::events_running) reads them; none when nothing is there.
    pub fn events_running_at(&self, agent: &str, path: &Path) -> Vec<String> {
        if let Layout::Executables(_) = self.layout {
            return super::executables::events_running(self, agent, path);
        }
        std::fs::read_to_string(path)
            .map(|text| self.events_running(agent, &text))
            .unwrap_or_default()
    }

    /// The events of the settings `text` whose hooks run `hooks <agent>` (any `--config`),
    /// in the file's order: what a check of the settings reads. Text that is not a settings
    /// file has none.
    pub fn events_running(&self, agent: &str, text: &str) -> Vec<String> {
        if let Layout::Plugin(_) = self.layout {
            return match super::plugin::PluginCommand::read(text) {
                Some(command) if command.agent == agent => {
                    self.init_events.iter().map(|e| (*e).to_owned()).collect()
                }
                _ => Vec::new(),
            };
        }
        let Ok(settings @ Value::Object(_)) = serde_json::from_str::<Value>(text) else {
            return Vec::new();
        };
        let runs_us = |hook: &Value| {
            self.layout.command_fields().iter().any(|field| {
                hook.get(*field)
                    .and_then(Value::as_str)
                    .is_some_and(|command| runs_hooks(command, agent))
            })
        };
        let mut events: Vec<String> = Vec::new();
        for (event, hook) in self.layout.command_hooks(&settings) {
            if runs_us(&hook) && !events.contains(&event) {
                events.push(event);
            }
        }
        events
    }
}

/// Whether an agent will run a project's hooks, by its own records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Its hooks run; the reason says why.
    Trusted(String),
    /// Its hooks do not run; the reason says why.
    Untrusted(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_read_from_what_the_agent_prints() {
        let since = MinVersion {
            binary: "claude",
            version: [2, 1, 295],
        };
        assert_eq!(since.met_by("2.1.295 (Claude Code)\n"), Some(true));
        assert_eq!(since.met_by("2.1.332 (Claude Code)"), Some(true));
        assert_eq!(since.met_by("2.1.197 (Claude Code)"), Some(false));
        assert_eq!(since.met_by("claude v2.2.0-beta.1"), Some(true));
        assert_eq!(since.met_by("1.0.3"), Some(false));
        assert_eq!(since.met_by("unknown"), None);
    }

    #[test]
    fn our_command_is_known_by_any_path_to_hooks() {
        for command in [
            "hooks claude --config x.yaml",
            "/usr/local/bin/hooks claude --config x.yaml",
            "'/home/me/my tools/hooks' claude --config x.yaml",
        ] {
            assert!(runs_hooks(command, "claude"), "{command}");
        }
        for command in [
            "hooks gemini --config x.yaml",
            "/usr/bin/myhooks claude",
            "./guard.sh hooks claude",
        ] {
            assert!(!runs_hooks(command, "claude"), "{command}");
        }
        assert_eq!(shell_word("/opt/hooks"), "/opt/hooks");
        assert_eq!(shell_word("/my dir/it's"), "'/my dir/it'\\''s'");
    }
}
