//! The settings format of the agents' hooks files ([`Layout`]): one object that both reads
//! the hooks of a settings file ([`Layout::command_hooks`], what `hooks doctor` checks and
//! [`HookSettings::events_running`](super::HookSettings::events_running) reports) and writes
//! ours into it ([`Layout::merge`], what `hooks init` writes), so that what is written is
//! what is read back.

use serde_json::Value;

use super::ordered_json::{Json, indent_of};
use super::{KeyValue, runs_hooks};

/// How an agent's settings list the commands of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Matcher groups, each with its `hooks` list of commands (Claude Code's shape).
    MatcherGroups,
    /// The commands themselves, in a file that says its `version` (Cursor's shape).
    Commands,
    /// The commands themselves, in a file with no `version` (Windsurf's and Crush's shape:
    /// a key they do not document is not added).
    BareCommands,
    /// A list of named hooks under `hooks`, each with its event as `trigger` and its command
    /// in `action`, in a file that says its `version` (Kiro's shape).
    Triggers,
    /// Matcher groups per event under a hook's name rather than under `hooks`
    /// (`{"<name>": {"PreToolUse": [...]}}`, Antigravity's shape); ours is the name given.
    NamedMatcherGroups(&'static str),
    /// The commands themselves, in a file that says its `version`, each `type: "command"` with
    /// the command line under every one of these fields (GitHub Copilot's `bash`, and the
    /// `command` that the VS Code agent reads from the same file).
    CommandFields(&'static [&'static str]),
    /// No hooks file: an in-process plugin of the agent's own (OpenCode, Amp) that hands each
    /// call to `hooks` itself. `hooks init` writes the whole file, [`project`](super::HookSettings::project),
    /// from this template (see [`plugin`](super::plugin)); it runs on every one of
    /// [`init_events`](super::HookSettings::init_events).
    Plugin(&'static str),
    /// No hooks file: one executable per event, named after the event, in the directory
    /// [`project`](super::HookSettings::project) (Cline's shape). `hooks init` writes one for each of
    /// [`init_events`](super::HookSettings::init_events) from this template (see
    /// [`executables`](super::executables)).
    Executables(&'static str),
}

impl Layout {
    /// The key of the settings that maps events to their hooks: `hooks`, or a hook's name.
    pub fn events_key(self) -> &'static str {
        match self {
            Layout::NamedMatcherGroups(name) => name,
            _ => "hooks",
        }
    }

    /// The fields of a hook entry that hold its command line.
    pub fn command_fields(self) -> &'static [&'static str] {
        match self {
            Layout::MatcherGroups
            | Layout::NamedMatcherGroups(_)
            | Layout::Commands
            | Layout::BareCommands
            | Layout::Triggers
            | Layout::Plugin(_)
            | Layout::Executables(_) => &["command"],
            Layout::CommandFields(fields) => fields,
        }
    }

    /// Every command hook of the settings `settings` laid out so, with its event, in file
    /// order: the reading `hooks doctor` checks and
    /// [`HookSettings::events_running`](super::HookSettings::events_running) filters. A
    /// [`Triggers`](Layout::Triggers) hook's `timeout` is read into its `action`.
    pub fn command_hooks(self, settings: &Value) -> Vec<(String, Value)> {
        if self == Layout::Triggers {
            // Each hook names its event, and holds its command in `action`.
            let hooks = settings.get("hooks").and_then(Value::as_array);
            return hooks
                .into_iter()
                .flatten()
                .filter_map(|hook| {
                    let trigger = hook.get("trigger").and_then(Value::as_str)?;
                    let mut action = hook.get("action")?.clone();
                    if let (Value::Object(fields), Some(timeout)) =
                        (&mut action, hook.get("timeout"))
                    {
                        fields.entry("timeout").or_insert(timeout.clone());
                    }
                    Some((trigger.to_owned(), action))
                })
                .collect();
        }
        let Some(Value::Object(events)) = settings.get(self.events_key()) else {
            return Vec::new();
        };
        let mut hooks = Vec::new();
        for (event, entries) in events {
            for entry in entries.as_array().into_iter().flatten() {
                match self {
                    Layout::Commands
                    | Layout::BareCommands
                    | Layout::Triggers
                    | Layout::CommandFields(_)
                    | Layout::Plugin(_)
                    | Layout::Executables(_) => hooks.push((event.clone(), entry.clone())),
                    Layout::MatcherGroups | Layout::NamedMatcherGroups(_) => {
                        for hook in entry
                            .get("hooks")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            hooks.push((event.clone(), hook.clone()));
                        }
                    }
                }
            }
        }
        hooks
    }

    /// The settings `old` laid out so, with a command hook `ours` on each of `events`: the text
    /// `hooks init` writes,, or `None` when every one
    /// is there already, as it should be. Hooks already there are kept, in their order; an entry
    /// of an earlier `hooks init` for the same hooks file is brought up to date in place.
    pub fn merge(
        self,
        old: Option<&str>,
        events: &[&str],
        ours: &OurEntry,
    ) -> Result<Option<String>, String> {
        let mut settings = match old {
            Some(text) if !text.trim().is_empty() => serde_json::from_str::<Json>(text)
                .map_err(|error| format!("not valid JSON ({error})"))?,
            _ => Json::Object(Vec::new()),
        };
        if !matches!(settings, Json::Object(_)) {
            return Err("not a JSON object".to_owned());
        }
        if self == Layout::Triggers {
            let changed = merge_triggers(&mut settings, events, ours)?;
            return Ok(changed.then(|| settings.to_pretty(indent_of(old.unwrap_or_default()))));
        }
        let mut changed = false;
        let versioned = matches!(self, Layout::Commands | Layout::CommandFields(_));
        if versioned && settings.get("version").is_none() {
            settings.entry("version", Json::Number(1.into()));
            changed = true;
        }
        let key = self.events_key();
        let hooks = settings
            .entry(key, Json::Object(Vec::new()))
            .filter(|hooks| matches!(hooks, Json::Object(_)))
            .ok_or(format!("`{key}` is not an object"))?;
        let is_ours = |hook: &Json| {
            self.command_fields().iter().any(|field| {
                hook.get(field)
                    .and_then(Json::as_str)
                    .is_some_and(|c| ours.is_ours(c))
            })
        };
        for event in events {
            let Some(Json::Array(listed)) = hooks.entry(event, Json::Array(Vec::new())) else {
                return Err(format!("`hooks.{event}` is not a list"));
            };
            let mut present = false;
            for item in listed.iter_mut() {
                let commands: Vec<&mut Json> = match self {
                    Layout::MatcherGroups | Layout::NamedMatcherGroups(_) => match item {
                        Json::Object(_) => match item.entry("hooks", Json::Null) {
                            Some(Json::Array(hooks)) => hooks.iter_mut().collect(),
                            _ => Vec::new(),
                        },
                        _ => Vec::new(),
                    },
                    Layout::Commands
                    | Layout::BareCommands
                    | Layout::Triggers
                    | Layout::CommandFields(_)
                    | Layout::Plugin(_)
                    | Layout::Executables(_) => vec![item],
                };
                for hook in commands.into_iter().filter(|hook| is_ours(hook)) {
                    present = true;
                    changed |= ours.update(hook, self);
                }
            }
            if !present {
                let mut hook = match self {
                    Layout::MatcherGroups
                    | Layout::NamedMatcherGroups(_)
                    | Layout::CommandFields(_) => {
                        Json::object([("type", Json::String("command".to_owned()))])
                    }
                    Layout::Commands
                    | Layout::BareCommands
                    | Layout::Triggers
                    | Layout::Plugin(_)
                    | Layout::Executables(_) => Json::Object(Vec::new()),
                };
                ours.update(&mut hook, self);
                listed.push(match self {
                    Layout::MatcherGroups | Layout::NamedMatcherGroups(_) => {
                        Json::object([("hooks", Json::Array(vec![hook]))])
                    }
                    Layout::Commands
                    | Layout::BareCommands
                    | Layout::Triggers
                    | Layout::CommandFields(_)
                    | Layout::Plugin(_)
                    | Layout::Executables(_) => hook,
                });
                changed = true;
            }
        }
        Ok(changed.then(|| settings.to_pretty(indent_of(old.unwrap_or_default()))))
    }
}

/// The entry `hooks init` writes on each event, which [`Layout::merge`] puts in place.
#[derive(Debug, Clone)]
pub struct OurEntry {
    /// The command: `/path/to/hooks <agent> --config <file>`.
    pub command: String,
    /// The agent's name, to know our entries from an older `hooks init`.
    pub agent: &'static str,
    /// The entry's `timeout`, in the agent's unit.
    pub timeout: u64,
    /// The keys the timeout is written under.
    pub timeout_keys: &'static [&'static str],
    /// The fail-closed key and its value, where the agent takes one.
    pub fail_closed: Option<(&'static str, KeyValue)>,
}

impl OurEntry {
    /// Whether `command` is this entry's, or one an earlier `hooks init` wrote for the same
    /// hooks file (another binary path, or the bare `hooks`).
    pub fn is_ours(&self, command: &str) -> bool {
        let tail = |command: &str| {
            command
                .split_once(" --config ")
                .map(|(_, file)| file.to_owned())
        };
        command == self.command
            || (runs_hooks(command, self.agent) && tail(command) == tail(&self.command))
    }

    /// Sets our fields on `hook`, an entry of ours laid out as `layout` says (the command
    /// under each of its command fields); whether anything changed.
    fn update(&self, hook: &mut Json, layout: Layout) -> bool {
        let mut fields: Vec<(&str, Json)> = layout
            .command_fields()
            .iter()
            .map(|field| (*field, Json::String(self.command.clone())))
            .collect();
        fields.extend(
            self.timeout_keys
                .iter()
                .map(|key| (*key, Json::Number(self.timeout.into()))),
        );
        if let Some((key, value)) = self.fail_closed {
            fields.push((
                key,
                match value {
                    KeyValue::Str(text) => Json::String(text.to_owned()),
                    KeyValue::Bool(flag) => Json::Bool(flag),
                },
            ));
        }
        let mut changed = false;
        for (key, value) in fields {
            if hook.get(key) != Some(&value)
                && let Some(slot) = hook.entry(key, Json::Null)
            {
                *slot = value;
                changed = true;
            }
        }
        changed
    }
}

/// Adds a hook of ours for each of `events` to `settings` laid out as [`Layout::Triggers`]
/// (a `version` and a list of hooks, each naming its `trigger`, with its `timeout` and its
/// command in `action`), or brings an earlier one up to date; whether anything changed.
fn merge_triggers(settings: &mut Json, events: &[&str], ours: &OurEntry) -> Result<bool, String> {
    let mut changed = false;
    if settings.get("version").is_none() {
        settings.entry("version", Json::String("v1".to_owned()));
        changed = true;
    }
    let Some(Json::Array(hooks)) = settings.entry("hooks", Json::Array(Vec::new())) else {
        return Err("`hooks` is not a list".to_owned());
    };
    let timeout = Json::Number(ours.timeout.into());
    let command = Json::String(ours.command.clone());
    for event in events {
        let mut present = false;
        for hook in hooks.iter_mut() {
            let runs_for_event = hook.get("trigger").and_then(Json::as_str) == Some(*event);
            let is_ours = hook
                .get("action")
                .and_then(|action| action.get("command"))
                .and_then(Json::as_str)
                .is_some_and(|command| ours.is_ours(command));
            if !(runs_for_event && is_ours) {
                continue;
            }
            present = true;
            changed |= set(hook, "timeout", &timeout);
            if let Some(action) = hook.entry("action", Json::Null) {
                changed |= set(action, "command", &command);
            }
        }
        if !present {
            hooks.push(Json::object([
                ("name", Json::String(format!("hooks-{event}"))),
                ("trigger", Json::String((*event).to_owned())),
                (
                    "action",
                    Json::object([
                        ("type", Json::String("command".to_owned())),
                        ("command", command.clone()),
                    ]),
                ),
                ("timeout", timeout.clone()),
                ("enabled", Json::Bool(true)),
            ]));
            changed = true;
        }
    }
    Ok(changed)
}

/// Sets `key` of the object `json` to `value`; whether that changed it.
fn set(json: &mut Json, key: &str, value: &Json) -> bool {
    match json.entry(key, Json::Null) {
        Some(slot) if slot != value => {
            *slot = value.clone();
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::AGENTS;

    #[test]
    fn what_merge_writes_is_what_command_hooks_reads_back_for_every_agent() {
        for agent in AGENTS {
            let settings = agent.profile().settings;
            if matches!(settings.layout, Layout::Plugin(_) | Layout::Executables(_)) {
                continue;
            }
            let ours = OurEntry {
                command: agent.command("hooks.yaml"),
                agent: agent.name(),
                timeout: 7,
                timeout_keys: agent.profile().timeout_keys,
                fail_closed: None,
            };
            let text = settings
                .layout
                .merge(None, settings.init_events, &ours)
                .unwrap()
                .unwrap();
            let written: Value = serde_json::from_str(&text).unwrap();
            let read = settings.layout.command_hooks(&written);
            let events: Vec<&str> = read.iter().map(|(event, _)| event.as_str()).collect();
            let mut expected = settings.init_events.to_vec();
            let mut found = events.clone();
            expected.sort_unstable();
            found.sort_unstable();
            assert_eq!(found, expected, "{}", agent.name());
            for (_, hook) in &read {
                for field in settings.layout.command_fields() {
                    assert_eq!(hook[*field], ours.command.as_str(), "{}", agent.name());
                }
            }
            let again = settings
                .layout
                .merge(Some(&text), settings.init_events, &ours);
            assert_eq!(again, Ok(None), "{}: written twice", agent.name());
        }
    }
}
