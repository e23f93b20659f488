//! Claude Code settings files (`.claude/settings.json`) as hooks files: their `hooks` section
//! converted to our entries (and, for `hooks import`, to our YAML), each event mapped to the canonical one, and what has no equivalent
//! said plainly.
//!
//! | Claude Code | here |
//! |---|---|
//! | `{"matcher": M, "hooks": [...]}` | one entry per hook, each with `matcher: M` (same semantics) |
//! | `type: command`, `command`, `async` | `type: command`, the same command and `async` |
//! | `timeout` (seconds; default 600) | `timeout_ms` |
//! | a failing or timed-out hook proceeds | `on_failure: warn` (proceeds, and tells the user) |
//! | plain stdout: context on UserPromptSubmit and SessionStart, transcript text elsewhere | `protocol: claude` (the same reading; our own hooks' plain stdout is a failure) |
//! | `type: http`, `url`, `headers`, `timeout` | `type: http`, the same |
//! | `type: prompt`, `agent`, `mcp_tool` | no equivalent: left out by `hooks import` with a note, an error when the file is loaded directly |
//! | an event without canonical equivalent (`SubagentStop`) | the custom event `claude:subagent_stop`, which `hooks claude` emits |
//! | other settings (`permissions`, `env`, ...) | not hooks: ignored |
//!
//! Codex CLI's `hooks.json` and the `[hooks]` tables of its `config.toml` have the same shape
//! ([`import_hooks`] with [`CODEX`](crate::interop::codex::CODEX), and
//! [`codex::import_config_toml`](crate::interop::codex::import_config_toml)); their events
//! without a canonical equivalent become `codex:` custom events.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::agent_protocol::Protocol;
use crate::schema;
use crate::{
    AnswerProtocol, CommandHook, ConfigError, ConfigErrors, Entry, EventMatcher, HookKind,
    HttpHook, MAX_COMMAND_TIMEOUT, OnFailure, Rewrite,
};

/// The keys of a Claude Code command hook that the conversion reads; others are noted as
/// ignored.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct ClaudeCommandKeys {
    r#type: String,
    command: String,
    timeout: Option<f64>,
    r#async: Option<bool>,
}

/// The keys of a Claude Code HTTP hook that the conversion reads.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct ClaudeHttpKeys {
    r#type: String,
    url: String,
    headers: Option<Map<String, Value>>,
    timeout: Option<f64>,
}

/// Claude Code's timeout of a command or HTTP hook that gives none, in seconds.
const DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// The unit of an agent's hook `timeout` (defined here, beside the reader of the `timeout`s, and
/// named by each agent's profile in `interop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
}

impl TimeUnit {
    /// `duration` in this unit, rounded up.
    pub fn of(self, duration: std::time::Duration) -> u64 {
        match self {
            TimeUnit::Seconds => duration.as_millis().div_ceil(1000) as u64,
            TimeUnit::Milliseconds => duration.as_millis() as u64,
        }
    }
}

/// A converted settings file.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The settings file.
    pub file: PathBuf,
    /// The hooks, in event-name order and, within an event, in the file's order.
    pub entries: Vec<Entry>,
    /// What the reader should know: events kept as custom events, keys ignored.
    pub notes: Vec<String>,
    /// Hooks with no equivalent here, left out of `entries`, each with its place.
    pub left_out: Vec<ConfigError>,
    /// The agent whose settings these were.
    pub protocol: &'static Protocol,
}

impl Imported {
    /// The entries as a hooks file in our YAML, headed by the notes and what was left out as
    /// comments: what `hooks import claude` writes. It loads back to the same entries.
    pub fn to_yaml(&self) -> String {
        let mut yaml = format!(
            "# Converted from {} by `hooks import {}`.\n",
            self.file.display(),
            self.protocol.agent
        );
        for note in &self.notes {
            let _ = writeln!(yaml, "# - {note}");
        }
        for left_out in &self.left_out {
            let _ = writeln!(yaml, "# - left out: {}", left_out.message);
        }
        if self.entries.is_empty() {
            yaml.push_str("hooks: {}\n");
            return yaml;
        }
        yaml.push_str("hooks:\n");
        let mut event = None;
        for entry in &self.entries {
            if event != Some(&entry.event) {
                event = Some(&entry.event);
                let _ = write!(yaml, "  {}:", quoted(&entry.event));
                match self.protocol.agent_event(&entry.event) {
                    Some(theirs) => {
                        let _ = writeln!(yaml, "  # {theirs}");
                    }
                    None => yaml.push('\n'),
                }
            }
            yaml.push_str(&item(entry));
        }
        yaml
    }
}

/// One entry as a YAML list item.
fn item(entry: &Entry) -> String {
    let (kind, protocol) = match &entry.hook {
        HookKind::Command(hook) => ("command", hook.protocol),
        HookKind::Http(hook) => ("http", hook.protocol),
        // An import makes command and HTTP hooks only.
        HookKind::Matcher(_) | HookKind::Llm(_) | HookKind::Wasm(_) | HookKind::Policy(_) => {
            return format!(
                "    # `{}`: a kind of hook an import does not write\n",
                entry.name
            );
        }
    };
    let mut item = format!("    - type: {kind}\n      name: {}\n", quoted(&entry.name));
    if let Some(matcher) = &entry.matcher {
        let _ = writeln!(item, "      matcher: {}", quoted(&matcher.to_string()));
    }
    match &entry.hook {
        HookKind::Command(hook) => {
            let _ = writeln!(item, "      command: {}", quoted(&hook.command));
            if hook.fire_and_forget {
                item.push_str("      async: true\n");
            }
        }
        HookKind::Http(hook) => {
            let _ = writeln!(item, "      url: {}", quoted(&hook.url));
            if !hook.headers.is_empty() {
                item.push_str("      headers:\n");
            }
            for (name, value) in &hook.headers {
                let _ = writeln!(item, "        {}: {}", quoted(name), quoted(value));
            }
        }
        HookKind::Matcher(_) | HookKind::Llm(_) | HookKind::Wasm(_) | HookKind::Policy(_) => {}
    }
    if protocol == AnswerProtocol::ClaudeCode {
        item.push_str("      protocol: claude\n");
    }
    let _ = writeln!(item, "      timeout_ms: {}", entry.timeout.as_millis());
    let on_failure = match entry.on_failure {
        OnFailure::Warn => "warn",
        OnFailure::Block => "block",
        OnFailure::Ignore => "ignore",
    };
    let _ = writeln!(item, "      on_failure: {on_failure}");
    item
}

/// The line and column of the first `"needle"` (a JSON key) after `from`, or 1:1.
fn locate(text: &str, needle: &str, from: usize) -> (usize, usize, usize) {
    let quoted = format!("\"{needle}\"");
    let Some(at) = text[from.min(text.len())..]
        .find(&quoted)
        .map(|at| at + from)
    else {
        return (1, 1, from);
    };
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column, at)
}

/// A YAML scalar for `text`: a JSON string literal is a valid YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

struct Importer<'a> {
    protocol: &'static Protocol,
    /// The unit of the agent's `timeout`.
    unit: TimeUnit,
    file: &'a Path,
    text: &'a str,
    errors: Vec<ConfigError>,
    left_out: Vec<ConfigError>,
    notes: Vec<String>,
    entries: Vec<Entry>,
}

/// Where a hook is: its place in the settings (`PreToolUse[0].hooks[1]`), and the line and
/// column of its event.
struct Place<'p> {
    name: &'p str,
    at: (usize, usize),
}

impl Importer<'_> {
    fn problem(&self, (line, column): (usize, usize), message: String) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line,
            column,
            message,
        }
    }

    /// Records a problem that makes the file unusable; `None`, for the caller to return.
    fn error<T>(&mut self, at: (usize, usize), message: String) -> Option<T> {
        let problem = self.problem(at, message);
        self.errors.push(problem);
        None
    }

    fn event(&mut self, name: &str, groups: &Value, at: (usize, usize)) {
        let agent = self.protocol.agent;
        let canonical = match self.protocol.canonical_event(name) {
            Ok(canonical) => canonical,
            Err(error) => return self.error(at, error.to_string()).unwrap_or(()),
        };
        if canonical.starts_with(&format!("{agent}:")) {
            self.notes.push(format!(
                "`{name}` has no canonical equivalent: imported as the custom event \
                 `{canonical}`, which `hooks {agent}` emits for it"
            ));
        }
        let Some(groups) = groups.as_array() else {
            return self
                .error(at, format!("`{name}` takes a list of matcher groups"))
                .unwrap_or(());
        };
        for (g, group) in groups.iter().enumerate() {
            let place = format!("{name}[{g}]");
            let Some((matcher, hooks)) = self.group(&place, group, at) else {
                continue;
            };
            for (h, hook) in hooks.iter().enumerate() {
                let name = format!("{place}.hooks[{h}]");
                let place = Place { name: &name, at };
                if let Some((hook, timeout)) = self.hook(&place, hook) {
                    self.entries.push(Entry {
                        event: canonical.clone(),
                        event_as_written: canonical.clone(),
                        name: name.clone(),
                        priority: 0,
                        line: at.0,
                        matcher: matcher.clone(),
                        timeout,
                        // Claude Code proceeds past a failing hook; `warn` does too, and tells
                        // the user.
                        on_failure: OnFailure::Warn,
                        hook,
                        // Claude Code applies an allow's rewrite unasked; we ask (see
                        // `interop::claude`), unless the converted file says otherwise.
                        rewrite: Rewrite::Confirm,
                    });
                }
            }
        }
    }

    /// A matcher group's matcher and hooks.
    fn group<'g>(
        &mut self,
        place: &str,
        group: &'g Value,
        at: (usize, usize),
    ) -> Option<(Option<EventMatcher>, &'g Vec<Value>)> {
        let Some(group) = group.as_object() else {
            return self.error(at, format!("{place} must be an object"));
        };
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(matcher)) => match EventMatcher::parse(matcher) {
                Ok(matcher) => Some(matcher),
                Err(error) => {
                    return self.error(
                        at,
                        format!("{place}: `matcher` is not a valid regex: {error}"),
                    );
                }
            },
            Some(_) => return self.error(at, format!("{place}: `matcher` must be a string")),
        };
        match group.get("hooks").and_then(Value::as_array) {
            Some(hooks) => Some((matcher, hooks)),
            None => self.error(at, format!("{place} has no `hooks` list")),
        }
    }

    /// One hook and its timeout, or `None` (with the problem recorded, or the hook left out).
    fn hook(&mut self, place: &Place<'_>, hook: &Value) -> Option<(HookKind, Duration)> {
        let Some(hook) = hook.as_object() else {
            return self.error(place.at, format!("{} must be an object", place.name));
        };
        let kind = hook
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("command");
        let known = match kind {
            "command" => schema::fields::<ClaudeCommandKeys>(),
            "http" => schema::fields::<ClaudeHttpKeys>(),
            other => {
                let problem = self.problem(
                    place.at,
                    format!(
                        "{}: `type: {other}` hooks have no equivalent here (command and http \
                         hooks do)",
                        place.name
                    ),
                );
                self.left_out.push(problem);
                return None;
            }
        };
        self.note_ignored(place, hook, known);
        let timeout = self.timeout(place, hook)?;
        let kind = match kind {
            "command" => self.command(place, hook).map(HookKind::Command),
            _ => self.http(place, hook).map(HookKind::Http),
        };
        Some((kind?, timeout))
    }

    /// Notes the keys of `hook` that are not in `known`.
    fn note_ignored(&mut self, place: &Place<'_>, hook: &Map<String, Value>, known: &[&str]) {
        let ignored: Vec<String> = hook
            .keys()
            .filter(|key| !known.contains(&key.as_str()))
            .map(|key| format!("`{key}`"))
            .collect();
        if !ignored.is_empty() {
            self.notes
                .push(format!("{}: ignored {}", place.name, ignored.join(", ")));
        }
    }

    /// The `timeout` of a hook (in the agent's unit; Claude Code's default when absent), in
    /// whole milliseconds, at least one.
    fn timeout(&mut self, place: &Place<'_>, hook: &Map<String, Value>) -> Option<Duration> {
        let max = MAX_COMMAND_TIMEOUT.as_secs_f64();
        let (per_second, unit) = match self.unit {
            TimeUnit::Seconds => (1.0, "seconds"),
            TimeUnit::Milliseconds => (1000.0, "milliseconds"),
        };
        let secs = match hook.get("timeout") {
            None => DEFAULT_TIMEOUT_SECS,
            Some(value) => match value
                .as_f64()
                .map(|count| count / per_second)
                .filter(|secs| *secs > 0.0 && *secs <= max)
            {
                Some(secs) => secs,
                None => {
                    return self.error(
                        place.at,
                        format!(
                            "{}: `timeout` must be {unit} from 0 to {}, not `{value}`",
                            place.name,
                            max * per_second
                        ),
                    );
                }
            },
        };
        let millis = ((secs * 1000.0).round() as u64).max(1);
        Some(Duration::from_millis(millis))
    }

    fn command(&mut self, place: &Place<'_>, hook: &Map<String, Value>) -> Option<CommandHook> {
        let Some(command) = hook
            .get("command")
            .and_then(Value::as_str)
            .filter(|command| !command.trim().is_empty())
        else {
            return self.error(place.at, format!("{} has no `command` string", place.name));
        };
        let fire_and_forget = match hook.get("async") {
            None => false,
            Some(Value::Bool(fire_and_forget)) => *fire_and_forget,
            Some(other) => {
                return self.error(
                    place.at,
                    format!(
                        "{}: `async` must be true or false, not `{other}`",
                        place.name
                    ),
                );
            }
        };
        Some(CommandHook {
            command: command.to_owned(),
            // Its output is read as Claude Code reads it (plain text is not a failure).
            protocol: AnswerProtocol::ClaudeCode,
            fire_and_forget,
            persistent: false,
        })
    }

    fn http(&mut self, place: &Place<'_>, hook: &Map<String, Value>) -> Option<HttpHook> {
        let Some(url) = hook.get("url").and_then(Value::as_str) else {
            return self.error(place.at, format!("{} has no `url` string", place.name));
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return self.error(
                place.at,
                format!(
                    "{}: `url` must be an http:// or https:// URL, not `{url}`",
                    place.name
                ),
            );
        }
        let mut headers = Vec::new();
        if let Some(fields) = hook.get("headers") {
            let Some(fields) = fields
                .as_object()
                .filter(|fields| fields.values().all(Value::is_string))
            else {
                return self.error(
                    place.at,
                    format!("{}: `headers` must map names to strings", place.name),
                );
            };
            for (name, value) in fields {
                headers.push((name.clone(), value.as_str().unwrap_or_default().to_owned()));
            }
            headers.sort_unstable();
        }
        Some(HttpHook {
            url: url.to_owned(),
            headers,
            protocol: AnswerProtocol::ClaudeCode,
        })
    }
}

/// Converts the `hooks` section of a JSON settings file in Claude Code's shape, written for the
/// agent of `protocol` (Claude Code's `settings.json`, Codex CLI's `hooks.json`): its events are
/// read as that agent names them. Malformed JSON or a malformed `hooks` section is an error,
/// with its line and column.
pub fn import_hooks(
    protocol: &'static Protocol,
    text: &str,
    file: &Path,
) -> Result<Imported, ConfigErrors> {
    import_hooks_timed(protocol, TimeUnit::Seconds, text, file)
}

/// [`import_hooks`] for an agent whose `timeout` is in `unit`.
pub fn import_hooks_timed(
    protocol: &'static Protocol,
    unit: TimeUnit,
    text: &str,
    file: &Path,
) -> Result<Imported, ConfigErrors> {
    let error = |line, column, message: String| one_error(file, line, column, message);
    let settings: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(settings)) => settings,
        Ok(_) => return Err(error(1, 1, "a settings file is a JSON object".to_owned())),
        Err(e) => return Err(error(e.line(), e.column(), format!("not valid JSON: {e}"))),
    };
    import_section(protocol, unit, &settings, text, file)
}

/// Converts the `hooks` of `settings` (read from `text`, in `file`).
pub(crate) fn import_section(
    protocol: &'static Protocol,
    unit: TimeUnit,
    settings: &Map<String, Value>,
    text: &str,
    file: &Path,
) -> Result<Imported, ConfigErrors> {
    let error = |line, column, message: String| one_error(file, line, column, message);
    let (line, column, hooks_at) = locate(text, "hooks", 0);
    let hooks = match settings.get("hooks") {
        Some(Value::Object(hooks)) => hooks,
        Some(_) => {
            return Err(error(
                line,
                column,
                "`hooks` maps event names to lists".to_owned(),
            ));
        }
        None => {
            return Err(error(
                1,
                1,
                "the settings file has no `hooks` section".to_owned(),
            ));
        }
    };
    let mut importer = Importer {
        protocol,
        unit,
        file,
        text,
        errors: Vec::new(),
        left_out: Vec::new(),
        notes: Vec::new(),
        entries: Vec::new(),
    };
    // Events in name order, whatever order serde_json's map keeps (it keeps the file's when
    // another crate of the build turns on `preserve_order`); each is found after `hooks`.
    let mut events: Vec<_> = hooks.iter().collect();
    events.sort_unstable_by_key(|(name, _)| name.as_str());
    for (name, groups) in events {
        let (line, column, _) = locate(importer.text, name, hooks_at);
        importer.event(name, groups, (line, column));
    }
    if !importer.errors.is_empty() {
        return Err(ConfigErrors(importer.errors));
    }
    Ok(Imported {
        file: file.to_path_buf(),
        entries: importer.entries,
        notes: importer.notes,
        left_out: importer.left_out,
        protocol,
    })
}

/// The one problem that makes `file` unusable, at `line`:`column`.
pub(crate) fn one_error(file: &Path, line: usize, column: usize, message: String) -> ConfigErrors {
    ConfigErrors(vec![ConfigError {
        file: file.to_path_buf(),
        line,
        column,
        message,
    }])
}
