//! A policy change judged on recorded events: the tool calls and prompts that the logging
//! module wrote (`hooks_std::logging`, one JSON object a line: `time`, `event`, `data`,
//! `result` with its `action`) decided again by a new hooks file, and each decision that would
//! change listed, before anyone deploys the change. What `hooks replay` prints.
//!
//! The decision made at the time is the line's `result.action`; with a baseline hooks file
//! the baseline decides the "before" instead (a log that lacks the decisions, or a comparison
//! of two files on the same events). Nothing is left out unsaid: a line that is not a logged
//! event, an event that is neither a tool call nor a prompt, an event whose data a hook
//! rewrote before it was logged (the original is gone) or whose data the log redacted (a
//! decision on the masked text would not be the one on the real text) is counted under its
//! reason, never re-decided on a guess.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use hooks_core::events::fields::{PROMPT, TOOL_INPUT, TOOL_NAME};
use hooks_core::events::{PROMPT_SUBMIT, TOOL_PRE};

use crate::trial::{Trial, Verdict};

/// The events a replay decides again: the ones a policy decides on.
pub const REPLAYED_EVENTS: &[&str] = &[TOOL_PRE, PROMPT_SUBMIT];

/// How the redaction module masks a secret; data holding it is not the data the agent sent.
const REDACTED: &str = "[REDACTED";

/// How long an event's summary grows before it is cut.
const SUMMARY_CHARS: usize = 80;

/// One logged event, ready to decide again.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEvent {
    /// The log file.
    pub file: PathBuf,
    /// Its line there.
    pub line: usize,
    /// The canonical event.
    pub event: String,
    /// Its data as logged.
    pub data: Value,
    /// The decision logged with it, if the line has one.
    pub recorded: Option<Verdict>,
}

/// A line of a log that is not decided again, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotReplayed {
    /// The log file.
    pub file: PathBuf,
    /// Its line there.
    pub line: usize,
    /// Why.
    pub why: String,
}

/// Reads the logged events of `text` (the log `file`): the events to decide again, and every
/// other non-empty line with why it is not decided again.
pub fn read_log(text: &str, file: &Path) -> (Vec<LoggedEvent>, Vec<NotReplayed>) {
    let mut events = Vec::new();
    let mut skipped = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_number = index + 1;
        match read_line(line) {
            Ok((event, data, recorded)) => events.push(LoggedEvent {
                file: file.to_path_buf(),
                line: line_number,
                event,
                data,
                recorded,
            }),
            Err(why) => skipped.push(NotReplayed {
                file: file.to_path_buf(),
                line: line_number,
                why,
            }),
        }
    }
    (events, skipped)
}

/// One line as an event to decide again, or why it is not one.
fn read_line(line: &str) -> Result<(String, Value, Option<Verdict>), String> {
    let record: Value = serde_json::from_str(line)
        .map_err(|error| format!("not a logged event (not JSON: {error})"))?;
    let event = record
        .get("event")
        .and_then(Value::as_str)
        .ok_or("not a logged event (no `event`)")?;
    let data = record
        .get("data")
        .filter(|data| data.is_object())
        .ok_or("not a logged event (no `data` object)")?;
    if !REPLAYED_EVENTS.contains(&event) {
        return Err(format!("`{event}` is neither a tool call nor a prompt"));
    }
    let result = record.get("result");
    let rewritten = result
        .and_then(|result| result.get("modified_by"))
        .and_then(Value::as_array)
        .is_some_and(|hooks| !hooks.is_empty());
    if rewritten {
        return Err(
            "a hook rewrote its data before it was logged: the original cannot be re-created"
                .to_owned(),
        );
    }
    if holds_redaction(data) {
        return Err(
            "the log redacted a secret in its data: the original cannot be re-created".to_owned(),
        );
    }
    let recorded = result
        .and_then(|result| result.get("action"))
        .and_then(Value::as_str)
        .and_then(Verdict::named);
    Ok((event.to_owned(), data.clone(), recorded))
}

fn holds_redaction(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains(REDACTED),
        Value::Array(items) => items.iter().any(holds_redaction),
        Value::Object(fields) => fields.values().any(holds_redaction),
        _ => false,
    }
}

/// A short account of an event for a person: the tool and its command or path, or the prompt.
pub fn summary(event: &str, data: &Value) -> String {
    let text = if event == PROMPT_SUBMIT {
        let prompt = data.get(PROMPT).and_then(Value::as_str).unwrap_or_default();
        format!("prompt {prompt:?}")
    } else {
        let tool = data
            .get(TOOL_NAME)
            .and_then(Value::as_str)
            .unwrap_or("a tool");
        let input = data.get(TOOL_INPUT);
        let main = ["command", "file_path", "path", "url", "pattern"]
            .iter()
            .find_map(|key| {
                input
                    .and_then(|input| input.get(*key))
                    .and_then(Value::as_str)
            })
            .map(str::to_owned)
            .or_else(|| input.map(Value::to_string))
            .unwrap_or_default();
        format!("{tool} {main}")
    };
    if text.chars().count() > SUMMARY_CHARS {
        let cut: String = text.chars().take(SUMMARY_CHARS).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// One decision that would change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The log file.
    pub file: PathBuf,
    /// Its line there.
    pub line: usize,
    /// The event.
    pub event: String,
    /// A short account of it.
    pub summary: String,
    /// The decision before (recorded, or the baseline's).
    pub before: Verdict,
    /// The new hooks file's decision.
    pub after: Verdict,
    /// The new decision's reason, if it gives one.
    pub reason: Option<String>,
    /// The hook that made the new decision, if one did.
    pub decided_by: Option<String>,
}

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReplayReport {
    /// The events decided again.
    pub replayed: usize,
    /// The decisions that would change, in log order.
    pub changed: Vec<Change>,
    /// How many of each change (`allow → deny`: 3).
    pub transitions: BTreeMap<String, usize>,
    /// The lines not decided again, with why.
    pub not_replayed: Vec<NotReplayed>,
}

impl ReplayReport {
    /// The report for a person: each change, then the counts, then what was not decided again
    /// (counted by reason, with the first lines of each).
    pub fn text(&self) -> String {
        let mut text = String::new();
        for change in &self.changed {
            let reason = change
                .reason
                .as_ref()
                .map(|reason| format!(": {reason}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "{}:{}: {} {}: {} → {}{reason}\n",
                change.file.display(),
                change.line,
                change.event,
                change.summary,
                change.before,
                change.after
            ));
        }
        text.push_str(&format!(
            "{} events decided again: {} would change, {} would not\n",
            self.replayed,
            self.changed.len(),
            self.replayed - self.changed.len()
        ));
        for (transition, count) in &self.transitions {
            text.push_str(&format!("  {transition}: {count}\n"));
        }
        let mut by_why: BTreeMap<&str, Vec<&NotReplayed>> = BTreeMap::new();
        for skipped in &self.not_replayed {
            by_why.entry(&skipped.why).or_default().push(skipped);
        }
        if !by_why.is_empty() {
            text.push_str(&format!(
                "{} lines not decided again:\n",
                self.not_replayed.len()
            ));
        }
        for (why, lines) in by_why {
            let first: Vec<String> = lines
                .iter()
                .take(3)
                .map(|skipped| format!("{}:{}", skipped.file.display(), skipped.line))
                .collect();
            let more = if lines.len() > first.len() {
                ", …"
            } else {
                ""
            };
            text.push_str(&format!(
                "  {}: {why} ({}{more})\n",
                lines.len(),
                first.join(", ")
            ));
        }
        text
    }
}

/// Decides `events` again with `new`; the decision before is `baseline`'s when given, else
/// the one recorded. An event with neither is not decided again, and said.
pub async fn replay(
    events: &[LoggedEvent],
    mut not_replayed: Vec<NotReplayed>,
    new: &Trial,
    baseline: Option<&Trial>,
) -> ReplayReport {
    let mut report = ReplayReport::default();
    for logged in events {
        let before = match (baseline, logged.recorded) {
            (Some(baseline), _) => Some(Verdict::of(
                &baseline.emit(&logged.event, logged.data.clone()).await,
            )),
            (None, recorded) => recorded,
        };
        let Some(before) = before else {
            not_replayed.push(NotReplayed {
                file: logged.file.clone(),
                line: logged.line,
                why: "the log holds no decision for it, and no baseline hooks file was given"
                    .to_owned(),
            });
            continue;
        };
        let outcome = new.emit(&logged.event, logged.data.clone()).await;
        let after = Verdict::of(&outcome);
        report.replayed += 1;
        if before != after {
            *report
                .transitions
                .entry(format!("{before} → {after}"))
                .or_default() += 1;
            report.changed.push(Change {
                file: logged.file.clone(),
                line: logged.line,
                event: logged.event.clone(),
                summary: summary(&logged.event, &logged.data),
                before,
                after,
                reason: outcome.result.reason.clone(),
                decided_by: outcome.decided_by.as_deref().map(str::to_owned),
            });
        }
    }
    not_replayed.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    report.not_replayed = not_replayed;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_line_is_read_or_said() {
        let log = [
            json!({"event": "tool:pre", "data": {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "result": {"action": "continue", "modified_by": []}}).to_string(),
            String::new(),
            "not json".to_owned(),
            json!({"event": "session:start", "data": {}}).to_string(),
            json!({"event": "tool:pre", "data": {"tool_name": "Bash"}, "result": {"action": "modify", "modified_by": ["fix"]}}).to_string(),
            json!({"event": "prompt:submit", "data": {"prompt": "key [REDACTED:openai_key]"}, "result": {"action": "continue"}}).to_string(),
            json!({"event": "prompt:submit", "data": {"prompt": "hi"}}).to_string(),
        ]
        .join("\n");
        let (events, skipped) = read_log(&log, Path::new("events.jsonl"));
        let read: Vec<(usize, Option<Verdict>)> =
            events.iter().map(|e| (e.line, e.recorded)).collect();
        assert_eq!(read, [(1, Some(Verdict::Allow)), (7, None)]);
        let lines: Vec<usize> = skipped.iter().map(|s| s.line).collect();
        assert_eq!(lines, [3, 4, 5, 6]);
        assert!(skipped[1].why.contains("neither a tool call nor a prompt"));
        assert!(skipped[2].why.contains("rewrote"));
        assert!(skipped[3].why.contains("redacted"));
    }

    #[test]
    fn summaries_name_the_tool_and_what_it_acts_on() {
        let call = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}});
        assert_eq!(summary(TOOL_PRE, &call), "Bash rm -rf build");
        let long = json!({"prompt": "x".repeat(200)});
        assert!(summary(PROMPT_SUBMIT, &long).ends_with('…'));
    }
}
