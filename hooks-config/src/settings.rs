//! Claude Code settings files (`.claude/settings.json`) as hooks files: their `hooks` section
//! converted to our YAML, each event mapped to the canonical one, and what has no equivalent
//! said plainly.
//!
//! | Claude Code | here |
//! |---|---|
//! | `{"matcher": M, "hooks": [...]}` | one entry per hook, each with `matcher: M` (same semantics) |
//! | `type: command`, `command`, `async` | `type: command`, the same command and `async` |
//! | `timeout` (seconds; default 600) | `timeout_ms` |
//! | a failing or timed-out hook proceeds | `on_failure: warn` (proceeds, and tells the user) |
//! | `type: http`, `url`, `headers`, `timeout` | `type: http`, the same |
//! | `type: prompt`, `agent`, `mcp_tool` | no equivalent: left out by `hooks import` with a note, an error when the file is loaded directly |
//! | an event without canonical equivalent (`SubagentStop`) | the custom event `claude:subagent_stop`, which `hooks claude` emits |
//! | other settings (`permissions`, `env`, ...) | not hooks: ignored |

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};

use crate::agent_protocol::CLAUDE;
use crate::{ConfigError, ConfigErrors, EventMatcher};

/// Claude Code's timeout of a command or HTTP hook that gives none, in seconds.
const DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// A converted settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The hooks file, in our YAML.
    pub yaml: String,
    /// What the reader should know: events kept as custom events, keys ignored.
    pub notes: Vec<String>,
    /// Hooks with no equivalent here, left out of `yaml`, each with its place.
    pub left_out: Vec<ConfigError>,
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
    file: &'a Path,
    text: &'a str,
    errors: Vec<ConfigError>,
    left_out: Vec<ConfigError>,
    notes: Vec<String>,
    yaml: String,
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

    fn event(&mut self, name: &str, groups: &Value, at: (usize, usize)) {
        let canonical = match CLAUDE.canonical_event(name) {
            Ok(canonical) => canonical,
            Err(error) => {
                let problem = self.problem(at, error.to_string());
                self.errors.push(problem);
                return;
            }
        };
        if canonical.starts_with("claude:") {
            self.notes.push(format!(
                "`{name}` has no canonical equivalent: imported as the custom event \
                 `{canonical}`, which `hooks claude` emits for it"
            ));
        }
        let Some(groups) = groups.as_array() else {
            let problem = self.problem(at, format!("`{name}` takes a list of matcher groups"));
            self.errors.push(problem);
            return;
        };
        let mut entries = String::new();
        for (g, group) in groups.iter().enumerate() {
            let place = format!("{name}[{g}]");
            let Some(group) = group.as_object() else {
                let problem = self.problem(at, format!("{place} must be an object"));
                self.errors.push(problem);
                continue;
            };
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(matcher)) => match EventMatcher::parse(matcher) {
                    Ok(_) => Some(matcher.as_str()),
                    Err(error) => {
                        let problem = self.problem(
                            at,
                            format!("{place}: `matcher` is not a valid regex: {error}"),
                        );
                        self.errors.push(problem);
                        continue;
                    }
                },
                Some(_) => {
                    let problem = self.problem(at, format!("{place}: `matcher` must be a string"));
                    self.errors.push(problem);
                    continue;
                }
            };
            let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
                let problem = self.problem(at, format!("{place} has no `hooks` list"));
                self.errors.push(problem);
                continue;
            };
            for (h, hook) in hooks.iter().enumerate() {
                let place = format!("{place}.hooks[{h}]");
                if let Some(entry) = self.hook(&place, matcher, hook, at) {
                    entries.push_str(&entry);
                }
            }
        }
        if !entries.is_empty() {
            let _ = writeln!(self.yaml, "  {}:  # {name}", quoted(&canonical));
            self.yaml.push_str(&entries);
        }
    }

    /// One hook as a YAML list item, or `None` (with the problem recorded).
    fn hook(
        &mut self,
        place: &str,
        matcher: Option<&str>,
        hook: &Value,
        at: (usize, usize),
    ) -> Option<String> {
        let Some(hook) = hook.as_object() else {
            let problem = self.problem(at, format!("{place} must be an object"));
            self.errors.push(problem);
            return None;
        };
        let kind = hook
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("command");
        let known: &[&str] = match kind {
            "command" => &["type", "command", "timeout", "async"],
            "http" => &["type", "url", "headers", "timeout"],
            other => {
                let problem = self.problem(
                    at,
                    format!(
                        "{place}: `type: {other}` hooks have no equivalent here (command and \
                         http hooks do)"
                    ),
                );
                self.left_out.push(problem);
                return None;
            }
        };
        let ignored: Vec<&str> = hook
            .keys()
            .map(String::as_str)
            .filter(|key| !known.contains(key))
            .collect();
        if !ignored.is_empty() {
            self.notes.push(format!(
                "{place}: ignored {}",
                ignored
                    .iter()
                    .map(|key| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let timeout = match hook.get("timeout") {
            None => DEFAULT_TIMEOUT_SECS,
            Some(value) => match value.as_f64().filter(|secs| *secs > 0.0 && *secs <= 3600.0) {
                Some(secs) => secs,
                None => {
                    let problem = self.problem(
                        at,
                        format!("{place}: `timeout` must be seconds from 0 to 3600, not `{value}`"),
                    );
                    self.errors.push(problem);
                    return None;
                }
            },
        };
        let mut item = format!("    - type: {kind}\n      name: {}\n", quoted(place));
        if let Some(matcher) = matcher {
            let _ = writeln!(item, "      matcher: {}", quoted(matcher));
        }
        match kind {
            "command" => {
                let Some(command) = hook.get("command").and_then(Value::as_str) else {
                    let problem = self.problem(at, format!("{place} has no `command` string"));
                    self.errors.push(problem);
                    return None;
                };
                let _ = writeln!(item, "      command: {}", quoted(command));
                match hook.get("async") {
                    None => {}
                    Some(Value::Bool(fire_and_forget)) => {
                        let _ = writeln!(item, "      async: {fire_and_forget}");
                    }
                    Some(other) => {
                        let problem = self.problem(
                            at,
                            format!("{place}: `async` must be true or false, not `{other}`"),
                        );
                        self.errors.push(problem);
                        return None;
                    }
                }
            }
            _ => {
                let Some(url) = hook.get("url").and_then(Value::as_str) else {
                    let problem = self.problem(at, format!("{place} has no `url` string"));
                    self.errors.push(problem);
                    return None;
                };
                let _ = writeln!(item, "      url: {}", quoted(url));
                if let Some(headers) = hook.get("headers") {
                    let Some(headers) = headers
                        .as_object()
                        .filter(|h| h.values().all(Value::is_string))
                    else {
                        let problem = self
                            .problem(at, format!("{place}: `headers` must map names to strings"));
                        self.errors.push(problem);
                        return None;
                    };
                    item.push_str("      headers:\n");
                    let mut headers: Vec<_> = headers.iter().collect();
                    headers.sort_unstable_by_key(|(name, _)| name.as_str());
                    for (name, value) in headers {
                        let value = value.as_str().unwrap_or_default();
                        let _ = writeln!(item, "        {}: {}", quoted(name), quoted(value));
                    }
                }
            }
        }
        // Whole milliseconds, at least one.
        let timeout_ms = ((timeout * 1000.0).round() as u64).max(1);
        let _ = writeln!(item, "      timeout_ms: {timeout_ms}");
        item.push_str("      on_failure: warn\n");
        Some(item)
    }
}

/// Converts the `hooks` section of a Claude Code settings file (see the [module docs](self)).
/// Malformed JSON or a malformed `hooks` section is an error, with its line and column.
pub fn import_settings(text: &str, file: &Path) -> Result<Imported, ConfigErrors> {
    let error = |line, column, message: String| {
        ConfigErrors(vec![ConfigError {
            file: file.to_path_buf(),
            line,
            column,
            message,
        }])
    };
    let settings: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(settings)) => settings,
        Ok(_) => return Err(error(1, 1, "a settings file is a JSON object".to_owned())),
        Err(e) => return Err(error(e.line(), e.column(), format!("not valid JSON: {e}"))),
    };
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
        file,
        text,
        errors: Vec::new(),
        left_out: Vec::new(),
        notes: Vec::new(),
        yaml: String::new(),
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
    let mut yaml = format!(
        "# Converted from {} by `hooks import claude`.\n",
        file.display()
    );
    for note in &importer.notes {
        let _ = writeln!(yaml, "# - {note}");
    }
    for left_out in &importer.left_out {
        let _ = writeln!(yaml, "# - left out: {}", left_out.message);
    }
    if importer.yaml.is_empty() {
        yaml.push_str("hooks: {}\n");
    } else {
        yaml.push_str("hooks:\n");
        yaml.push_str(&importer.yaml);
    }
    Ok(Imported {
        yaml,
        notes: importer.notes,
        left_out: importer.left_out,
    })
}
