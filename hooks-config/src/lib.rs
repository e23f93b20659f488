//! Hooks configured in YAML (the enhanced-hooks proposal's shape): `hooks:` maps an event
//! (canonical name or PascalCase alias) to a list of entries, each registered as an ordinary
//! handler, so the kernel's merge rules apply across entries and in-process hooks alike.
//!
//! ```yaml
//! hooks:
//!   PreToolUse:
//!     - type: matcher
//!       match:
//!         tool: "Bash"
//!         args:
//!           command: "rm *"
//!       action: block
//!       message: "Destructive rm commands require confirmation"
//!     - type: command
//!       command: "python ~/.hooks/pre_tool.py"
//!       timeout_ms: 5000
//!       on_failure: warn        # warn | block | ignore
//!       priority: 10
//!       name: pre_tool_policy
//! ```
//!
//! Entry keys: `type` (`command`, `matcher`, `http` or `llm`), `name` (default: file, line and
//! type), `priority` (default 0; equal priorities keep file order), and for command, HTTP and
//! LLM entries `matcher` (Claude Code's semantics: see [`EventMatcher`]). Command hooks: `command`
//! (run by `sh -c`), `timeout_ms` (default 60,000; at most one hour), `on_failure`, `async`,
//! `persistent` (see below).
//! Matcher hooks: `match.tool` and `match.args.<field>` (globs, or `regex:...`), `action`
//! (`block`, `allow`, `ask`, `inject`), `message`. HTTP hooks: `url`, `headers` (`${VAR}` is
//! read from the environment), `timeout_ms`, `on_failure`. LLM hooks: `model`, `prompt`
//! (`{{event}}`, `{{tool}}`, `{{args}}`, `{{data}}`), `max_tokens` (256), `provider` (`openai`,
//! the default, for any OpenAI-compatible server; or `anthropic`), `base_url`, `api_key_env`,
//! `cache`, `cache_ttl_secs` (300), `cache_size` (256), `timeout_ms` (30,000), `on_failure`.
//!
//! A **persistent** command hook (`persistent: true`) keeps one process alive per mounted entry
//! and speaks one JSON object per line: each event's request (the JSON a per-event hook reads,
//! plus a [`REQUEST_ID_FIELD`] it may echo) on its stdin, one answer line (any of the answer
//! protocols; an empty line continues) on its stdout; `HOOKS_PERSISTENT=1` is set for it.
//! Requests go one at a time, in emit order. The process starts at the first event, is
//! restarted at the next event after it dies, and is killed (its process group) at the timeout,
//! when an answer cannot be read or echoes the wrong id, and when the hooks are unmounted;
//! each of those is a failure `on_failure` decides. Exit code 2 has no meaning there: deny in
//! JSON (`{"decision": "block", "reason": "..."}`).
//!
//! ```yaml
//! hooks:
//!   PreToolUse:
//!     - type: command
//!       persistent: true
//!       command: "python3 -u policy_server.py"   # reads lines, prints one JSON line each
//!       timeout_ms: 1000
//!       on_failure: block
//! ```
//!
//! [`load_file`] reports every problem at once, each with file, line and column. It also loads a
//! Claude Code settings file (`.json`), converted as
//! [`import_settings`](crate::interop::claude::import_settings) converts it.

mod command;
mod event_matcher;
pub mod interop;
mod load;
mod persistent;
mod remote;

use std::path::PathBuf;
use std::time::Duration;

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookOptions, HookRegistry, HookResult};
use regex::Regex;
use serde_json::Value;

pub use command::{CommandOutcome, OUTPUT_CAP, run_command};
pub use event_matcher::EventMatcher;
pub use load::{ConfigError, ConfigErrors, load_file, load_str};
pub use persistent::REQUEST_ID_FIELD;
pub use remote::{AnswerCache, HttpHook, LlmHook, Provider, decision, render};

/// Reads what a command or HTTP hook answered to `event` (canonical name) with event `data`:
/// nothing (continue), the proposal's `{"action", "modified_args", "message"}`, Claude Code's
/// JSON output, or a `HookResult` object; plain text is context on `prompt:submit` and
/// `session:start`, as in Claude Code, and an error elsewhere.
///
/// The error says what was wrong; the runners hand it to the hook's `on_failure`. This is the
/// parser the runners use, public so that it can be tested and fuzzed on its own.
///
/// ```
/// use hooks_core::HookAction;
/// use serde_json::json;
///
/// let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
/// let answer = hooks_config::parse_output(r#"{"decision": "block", "reason": "no"}"#, "tool:pre", &data);
/// assert_eq!(answer.unwrap().action, HookAction::Deny);
/// assert!(hooks_config::parse_output("yes, fine", "tool:pre", &data).is_err());
/// ```
pub fn parse_output(stdout: &str, event: &str, data: &Value) -> Result<HookResult, String> {
    command::parse_stdout(stdout.trim(), event, data)
}

/// A command hook's timeout when the entry gives none.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest timeout a command hook may have.
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(3600);

/// What a failing external hook gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnFailure {
    /// Continue, with a warning for the user naming the hook and the failure.
    Warn,
    /// Deny, with the failure as the reason (fail closed).
    Block,
    /// Continue silently.
    Ignore,
}

/// A command hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The shell command (`sh -c`).
    pub command: String,
    /// When the whole process group is killed.
    pub timeout: Duration,
    /// What a failure gives.
    pub on_failure: OnFailure,
    /// Fire and forget: the emit does not wait.
    pub fire_and_forget: bool,
    /// One long-lived process answering a JSON line per event (`persistent: true`), rather
    /// than a process per event.
    pub persistent: bool,
}

/// A pattern of a matcher hook.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// A glob without wildcards: the whole text.
    Exact(String),
    /// A glob `literal*`.
    Prefix(String),
    /// A glob `*literal`.
    Suffix(String),
    /// A glob (`**` spans directories), compiled to the regex it means: matched on the string
    /// directly, without building a path candidate per check.
    Glob(regex::bytes::Regex),
    /// A regex (`regex:` prefix).
    Regex(Regex),
}

impl Pattern {
    /// The literal fast path for a glob that has one, as globset's own strategies do: most
    /// rules name a tool or an extension, and a string comparison is ten times cheaper than
    /// a regex search.
    pub(crate) fn literal(glob: &str) -> Option<Pattern> {
        let wild = |text: &str| text.contains(['*', '?', '[', ']', '{', '}', '\\']);
        if !wild(glob) {
            Some(Pattern::Exact(glob.to_owned()))
        } else if let Some(prefix) = glob.strip_suffix('*').filter(|rest| !wild(rest)) {
            Some(Pattern::Prefix(prefix.to_owned()))
        } else {
            glob.strip_prefix('*')
                .filter(|rest| !wild(rest))
                .map(|suffix| Pattern::Suffix(suffix.to_owned()))
        }
    }

    fn matches(&self, text: &str) -> bool {
        match self {
            Pattern::Exact(literal) => text == literal,
            Pattern::Prefix(literal) => text.starts_with(literal.as_str()),
            Pattern::Suffix(literal) => text.ends_with(literal.as_str()),
            Pattern::Glob(glob) => glob.is_match(text.as_bytes()),
            Pattern::Regex(regex) => regex.is_match(text),
        }
    }
}

/// What a matcher hook does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Deny, with the message as the reason.
    Block,
    /// Continue.
    Allow,
    /// Ask the user, with the message as the prompt.
    Ask,
    /// Inject the message as context.
    Inject,
}

/// A matcher hook.
#[derive(Debug, Clone)]
pub struct MatcherHook {
    /// The tool-name pattern, if any.
    pub tool: Option<Pattern>,
    /// Tool-input field patterns; all must match.
    pub args: Vec<(String, Pattern)>,
    /// What to do on a match.
    pub action: Action,
    /// The reason, prompt or injected text.
    pub message: Option<String>,
}

impl MatcherHook {
    /// Whether the event data matches every given condition.
    pub fn matches(&self, data: &Value) -> bool {
        let tool_matches = self.tool.as_ref().is_none_or(|pattern| {
            data["tool_name"]
                .as_str()
                .is_some_and(|tool| pattern.matches(tool))
        });
        tool_matches
            && self.args.iter().all(|(field, pattern)| {
                data["tool_input"][field]
                    .as_str()
                    .is_some_and(|value| pattern.matches(value))
            })
    }

    /// The answer to one event.
    pub fn decide(&self, name: &str, data: &Value) -> HookResult {
        if !self.matches(data) {
            return HookResult::cont();
        }
        let message = self.message.clone();
        match self.action {
            Action::Block => HookResult::deny(
                message.unwrap_or_else(|| format!("blocked by the matcher `{name}`")),
            ),
            Action::Allow => HookResult::cont(),
            Action::Ask => HookResult::ask(message.unwrap_or_default()),
            Action::Inject => HookResult::inject(message.unwrap_or_default()),
        }
    }
}

/// The kind of a configured hook.
#[derive(Debug, Clone)]
pub enum HookKind {
    /// Runs a command.
    Command(CommandHook),
    /// Matches rules.
    Matcher(MatcherHook),
    /// Asks a policy service over HTTP.
    Http(HttpHook),
    /// Asks a model.
    Llm(LlmHook),
}

/// One configured hook.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The canonical event.
    pub event: String,
    /// The event as written in the file.
    pub event_as_written: String,
    /// The name.
    pub name: String,
    /// The priority.
    pub priority: i32,
    /// The line of the entry in its file.
    pub line: usize,
    /// Which events the entry runs for (`matcher`, Claude Code's semantics); `None` for all.
    pub matcher: Option<EventMatcher>,
    /// What it does.
    pub hook: HookKind,
}

/// A loaded hooks file: mount it to register every entry.
#[derive(Debug, Clone)]
pub struct HooksConfig {
    /// The file it was loaded from.
    pub file: PathBuf,
    /// Where command hooks run.
    pub project_dir: PathBuf,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// One entry as a registered handler.
struct Configured {
    entry: Entry,
    project_dir: PathBuf,
    /// The long-lived process of a persistent command hook; killed when the handler goes.
    process: Option<persistent::PersistentProcess>,
}

impl Hook for Configured {
    async fn handle(&self, _event: &str, data: &Value) -> HookResult {
        if let Some(matcher) = &self.entry.matcher {
            if !matcher.matches(&self.entry.event, data) {
                return HookResult::cont();
            }
        }
        match &self.entry.hook {
            HookKind::Matcher(matcher) => matcher.decide(&self.entry.name, data),
            HookKind::Command(command) => {
                command::answer(
                    command,
                    self.process.as_ref(),
                    &self.entry,
                    &self.project_dir,
                    data,
                )
                .await
            }
            HookKind::Http(http) => {
                remote::http_answer(http, &self.entry, &self.project_dir, data).await
            }
            HookKind::Llm(llm) => remote::llm_answer(llm, &self.entry, data).await,
        }
    }
}

impl HookModule for HooksConfig {
    fn name(&self) -> &str {
        "configured hooks"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.file.display().to_string());
        for entry in &self.entries {
            let mut options = HookOptions::new()
                .priority(entry.priority)
                .name(entry.name.clone());
            let external = match &entry.hook {
                HookKind::Command(command) => Some((command.timeout, command.on_failure)),
                HookKind::Http(http) => Some((http.timeout, http.on_failure)),
                HookKind::Llm(llm) => Some((llm.timeout, llm.on_failure)),
                HookKind::Matcher(_) => None,
            };
            if let Some((timeout, on_failure)) = external {
                // The hook's own timeout decides; the registry's is only a backstop, and for a
                // hook that blocks on failure the backstop must block too, not skip it.
                options = options
                    .timeout(timeout + Duration::from_secs(5))
                    .fail_closed(on_failure == OnFailure::Block);
            }
            let process = match &entry.hook {
                HookKind::Command(command) if command.persistent => Some(
                    persistent::PersistentProcess::new(&command.command, &self.project_dir),
                ),
                _ => None,
            };
            let handler = Configured {
                entry: entry.clone(),
                project_dir: self.project_dir.clone(),
                process,
            };
            let handle = registry
                .register_with(&entry.event, handler, options)
                .map_err(|source| MountError::Event {
                    module: self.file.display().to_string(),
                    source,
                })?;
            mounted.adopt(handle);
        }
        Ok(mounted)
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn kind(glob: &str) -> &'static str {
        match Pattern::literal(glob) {
            Some(Pattern::Exact(_)) => "exact",
            Some(Pattern::Prefix(_)) => "prefix",
            Some(Pattern::Suffix(_)) => "suffix",
            _ => "glob",
        }
    }

    #[test]
    fn only_plain_literals_take_the_fast_path() {
        assert_eq!(kind("Bash"), "exact");
        assert_eq!(kind("mcp__github__*"), "prefix");
        assert_eq!(kind("*.py"), "suffix");
        assert_eq!(kind("*"), "prefix");
        for glob in [
            "Tool?",
            "a*b",
            "{Write,Edit}",
            "**/.env*",
            "[ab]*",
            "*.p[yx]",
            "\\*x",
        ] {
            assert_eq!(kind(glob), "glob", "{glob}");
        }
        let suffix = Pattern::literal("*.py").unwrap();
        assert!(suffix.matches("src/a.py") && !suffix.matches("a.pyc"));
        assert!(Pattern::literal("*").unwrap().matches(""));
    }
}
