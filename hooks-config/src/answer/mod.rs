//! The answer protocols of external hooks, read in one place: nothing (continue), the proposal's
//! `{"action", "modified_args", "message"}`, Claude Code's JSON output ([`claude`]), a
//! `HookResult` object, plain text as Claude Code reads it; a persistent hook's answer line with
//! its echoed request id; and an LLM hook's `{"safe", "reason"}`.
//!
//! Every reader returns why an answer cannot be used rather than guessing: the runner hands that
//! to the hook's `on_failure`, so garbage is never read as an allow.

mod claude;

use std::sync::LazyLock;

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::events::{PROMPT_SUBMIT, SESSION_START};
use hooks_core::{HookAction, HookResult, MessageLevel};
use serde_json::{Map, Value};

use crate::request::REQUEST_ID_FIELD;

/// Reads what a command or HTTP hook answered to `event` (canonical name) with event `data`:
/// nothing (continue), the proposal's `{"action", "modified_args", "message"}`, Claude Code's
/// JSON output, or a `HookResult` object.
///
/// Plain text is read as Claude Code reads a successful hook's output: context on
/// `prompt:submit` and `session:start`, transcript text (no decision) elsewhere. Output that
/// starts like JSON but does not parse as an object is an error: the hook meant to answer and
/// its answer is lost, which must not pass for an allow.
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
/// let text = hooks_config::parse_output("checked 3 files", "tool:pre", &data);
/// assert_eq!(text.unwrap().action, HookAction::Continue);
/// assert!(hooks_config::parse_output(r#"{"decision": "block""#, "tool:pre", &data).is_err());
/// ```
pub fn parse_output(stdout: &str, event: &str, data: &Value) -> Result<HookResult, String> {
    parse_stdout(stdout.trim(), event, data)
}

/// Reads a persistent hook's answer line to request `id`: any answer protocol, with an echoed
/// `request_id` checked and removed. A persistent hook speaks JSON lines: a line that is not a
/// JSON object is an error (the process may be out of step with its requests).
pub(crate) fn parse_line(
    line: &str,
    id: u64,
    event: &str,
    data: &Value,
) -> Result<HookResult, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(HookResult::cont());
    }
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(mut answer)) => {
            if let Some(echoed) = answer.remove(REQUEST_ID_FIELD)
                && echoed.as_u64() != Some(id)
            {
                return Err(format!(
                    "answered request {echoed} when request {id} was asked"
                ));
            }
            parse_object(answer, event, data)
        }
        _ => Err(format!(
            "answered a line that is not a JSON object: `{}`",
            cut(line, 120)
        )),
    }
}

/// Parses what a hook printed: nothing, plain text, the proposal's answer, Claude Code's, or a
/// `HookResult` (see [`parse_output`]).
pub(crate) fn parse_stdout(stdout: &str, event: &str, data: &Value) -> Result<HookResult, String> {
    if stdout.is_empty() {
        return Ok(HookResult::cont());
    }
    match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(answer)) => parse_object(answer, event, data),
        _ if stdout.starts_with(['{', '[']) => Err(format!(
            "printed something that starts like JSON but is not a JSON object: `{}`",
            cut(stdout, 120)
        )),
        // Claude Code adds plain output to the context for prompts and session starts, and
        // shows it in the transcript elsewhere: a successful hook, with nothing to decide.
        _ if matches!(event, PROMPT_SUBMIT | SESSION_START) => Ok(HookResult::inject(stdout)),
        _ => Ok(HookResult::cont()),
    }
}

/// The fields of a `HookResult` object, each of which marks an answer as one.
static RESULT_KEYS: LazyLock<Vec<String>> =
    LazyLock::new(|| match serde_json::to_value(HookResult::cont()) {
        Ok(Value::Object(fields)) => fields.keys().cloned().collect(),
        _ => Vec::new(),
    });

/// Reads an answer object in whichever protocol its keys show.
fn parse_object(
    answer: Map<String, Value>,
    event: &str,
    data: &Value,
) -> Result<HookResult, String> {
    // No answer protocol has `hook_event_name`; every hook's input does.
    if answer.contains_key("hook_event_name") {
        return Ok(rejected(
            "a hook answered with its own input echoed back (`hook_event_name`, ...)",
        ));
    }
    if claude::KEYS.iter().any(|key| answer.contains_key(*key)) {
        return Ok(claude::read(&answer, event, data));
    }
    if answer.contains_key("modified_args") || answer.contains_key("message") {
        return proposal(&answer, data);
    }
    if !answer.is_empty() && !answer.keys().any(|key| RESULT_KEYS.contains(key)) {
        // Claude Code rejects an object it cannot read and goes on; so do we, but say so.
        let keys: Vec<&str> = answer.keys().take(4).map(String::as_str).collect();
        return Ok(rejected(&format!(
            "a hook answered a JSON object with no answer field in it (`{}`...)",
            keys.join("`, `")
        )));
    }
    serde_json::from_value::<HookResult>(Value::Object(answer))
        .map_err(|error| format!("printed an answer that is not a hook result: {error}"))
        .and_then(usable)
}

/// An answer Claude Code rejects and goes on from: no decision, and a warning that says why.
fn rejected(what: &str) -> HookResult {
    let warning = format!("{what}; ignored");
    tracing::warn!("{warning}");
    HookResult::cont().with_user_message(warning, MessageLevel::Warning)
}

/// `result` if it can be applied as it says; an answer the kernel could only skip (modify
/// without data, inject_context without text) is a failure of the hook, so that its
/// `on_failure` decides rather than the kernel's skip.
pub(crate) fn usable(result: HookResult) -> Result<HookResult, String> {
    match result.action {
        HookAction::Modify if result.data.is_none() => {
            Err("answered modify without data".to_owned())
        }
        HookAction::InjectContext if result.context_injection.is_none() => {
            Err("answered inject_context without context_injection".to_owned())
        }
        _ => Ok(result),
    }
}

fn cut(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(at, _)| &text[..at])
}

/// `data` with its tool input replaced.
fn with_tool_input(data: &Value, input: Value) -> Value {
    let mut changed = data.clone();
    if let Value::Object(fields) = &mut changed {
        fields.insert(TOOL_INPUT.to_owned(), input);
    }
    changed
}

/// The proposal's `{"action": "allow"|"block"|"modify", "modified_args", "message"}`.
fn proposal(answer: &Map<String, Value>, data: &Value) -> Result<HookResult, String> {
    let message = answer
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let result = match answer.get("action").and_then(Value::as_str) {
        Some("allow" | "continue") | None => HookResult::cont(),
        Some("block") => HookResult::deny(
            message
                .clone()
                .unwrap_or_else(|| "blocked by a hook".to_owned()),
        ),
        Some("modify") => match answer.get("modified_args") {
            Some(args @ Value::Object(_)) => {
                HookResult::modify(with_tool_input(data, args.clone()))
            }
            _ => return Err("answered modify without `modified_args` (an object)".to_owned()),
        },
        Some(other) => return Err(format!("answered the unknown action `{other}`")),
    };
    Ok(match message {
        Some(message) if result.action != HookAction::Deny => {
            result.with_user_message(message, MessageLevel::Info)
        }
        _ => result,
    })
}

/// The decision in a model's answer: `{"safe": bool, "reason"}` or a `HookResult` object,
/// possibly inside a fenced code block.
pub fn decision(answer: &str) -> Result<HookResult, String> {
    let trimmed = answer.trim();
    let json_text = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|inner| inner.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(json_text) else {
        return Err(format!(
            "the model did not answer with a JSON object: `{}`",
            json_text.chars().take(120).collect::<String>()
        ));
    };
    if let Some(safe) = object.get("safe") {
        let reason = object
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
        return match safe {
            Value::Bool(true) => Ok(HookResult::cont()),
            Value::Bool(false) => {
                Ok(HookResult::deny(reason.unwrap_or_else(|| {
                    "the policy model judged this unsafe".to_owned()
                })))
            }
            _ => Err("the model's `safe` is not true or false".to_owned()),
        };
    }
    if object.contains_key("action") {
        return serde_json::from_value(Value::Object(object))
            .map_err(|error| format!("the model's answer is not a hook result: {error}"))
            .and_then(|result| usable(result).map_err(|why| format!("the model {why}")));
    }
    Err("the model's answer has neither `safe` nor `action`".to_owned())
}
