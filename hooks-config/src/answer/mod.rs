//! The answer protocols of external hooks, read in one place: nothing (continue), the proposal's
//! `{"action", "modified_args", "message"}`, Claude Code's JSON output ([`claude`]), a
//! `HookResult` object; a persistent hook's answer line with its echoed request id; and an LLM
//! hook's `{"safe", "reason"}`.
//!
//! Two readers of a command or HTTP hook's output ([`AnswerProtocol`]), chosen by where the
//! entry came from: ours, for a hooks file's entries, where output that is not a JSON answer is
//! a failure; and Claude Code's, for hooks converted from its settings, where plain text is a
//! successful hook's context or transcript line, as Claude Code reads it.
//!
//! Every reader returns why an answer cannot be used ([`AnswerError`]) rather than guessing: the
//! runner hands that to the hook's `on_failure`, so garbage is never read as an allow.

mod claude;

use std::sync::LazyLock;

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::events::{PROMPT_SUBMIT, SESSION_START};
use hooks_core::text::truncate_chars;
use hooks_core::{HookAction, HookResult, MessageLevel};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::request::REQUEST_ID_FIELD;

/// How long an excerpt of an unusable answer may be, in characters.
const EXCERPT: usize = 120;

/// Which rules a command or HTTP hook's output is read by: where the entry came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum AnswerProtocol {
    /// Ours (`protocol: hooks`, the default of a hooks file's entries): nothing, or a JSON
    /// answer in one of the protocols above. Anything else is a failure `on_failure` decides.
    #[default]
    #[serde(rename = "hooks")]
    Hooks,
    /// Claude Code's (`protocol: claude`; hooks converted from its settings files): its JSON
    /// output, and plain text as Claude Code reads a successful hook's output: context on
    /// `prompt:submit` and `session:start`, transcript text (no decision) elsewhere.
    #[serde(rename = "claude")]
    ClaudeCode,
}

/// Why a hook's answer cannot be used: a failure of the hook, which its `on_failure` decides.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// Output that is not a JSON answer, from a hook that speaks our protocol.
    #[error("printed something that is not a JSON answer: `{0}`")]
    NotJson(String),
    /// Output that starts like JSON but is not a JSON object: its answer is lost.
    #[error("printed something that starts like JSON but is not a JSON object: `{0}`")]
    NotAnObject(String),
    /// Output that is not UTF-8 text at all.
    #[error("printed bytes that are not UTF-8 text: `{0}`")]
    NotText(String),
    /// A persistent hook's answer line that is not a JSON object.
    #[error("answered a line that is not a JSON object: `{0}`")]
    LineNotAnObject(String),
    /// A persistent hook echoed another request's id.
    #[error("answered request {echoed} when request {asked} was asked")]
    OutOfStep {
        /// The id it echoed.
        echoed: Value,
        /// The id it was asked.
        asked: u64,
    },
    /// An object with answer fields that do not make a hook result.
    #[error("printed an answer that is not a hook result: {0}")]
    NotAHookResult(serde_json::Error),
    /// `modify` without the data to apply.
    #[error("answered modify without data")]
    ModifyWithoutData,
    /// `inject_context` without the text to inject.
    #[error("answered inject_context without context_injection")]
    InjectWithoutText,
    /// The proposal's `modify` without its `modified_args`.
    #[error("answered modify without `modified_args` (an object)")]
    ModifyWithoutArgs,
    /// The proposal's `action` with a value it does not have.
    #[error("answered the unknown action `{0}`")]
    UnknownAction(String),
    /// A model's answer that is not a JSON object.
    #[error("the model did not answer with a JSON object: `{0}`")]
    ModelNotJson(String),
    /// A model's `safe` that is not a boolean.
    #[error("the model's `safe` is not true or false")]
    ModelSafeNotBool,
    /// A model's `HookResult`-shaped answer that does not parse as one.
    #[error("the model's answer is not a hook result: {0}")]
    ModelNotAHookResult(serde_json::Error),
    /// A model's object with neither of the fields that decide.
    #[error("the model's answer has neither `safe` nor `action`")]
    ModelUndecided,
    /// A model's hook result that cannot be applied (modify without data, ...).
    #[error("the model {0}")]
    Model(Box<AnswerError>),
}

impl AnswerProtocol {
    /// Reads what a command or HTTP hook answered to `event` (canonical name) with event
    /// `data`: nothing (continue), the proposal's `{"action", "modified_args", "message"}`,
    /// Claude Code's JSON output, or a `HookResult` object; plain text by this protocol's rule.
    ///
    /// The error says what was wrong; the runners hand it to the hook's `on_failure`. This is
    /// the reader the runners use, public so that it can be tested and fuzzed on its own.
    ///
    /// ```
    /// use hooks_config::AnswerProtocol;
    /// use hooks_core::HookAction;
    /// use serde_json::json;
    ///
    /// let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    /// let block = r#"{"decision": "block", "reason": "no"}"#;
    /// let ours = AnswerProtocol::Hooks.read(block, "tool:pre", &data);
    /// assert_eq!(ours.unwrap().action, HookAction::Deny);
    /// // Plain text: a failure from our hooks, a transcript line from Claude Code's.
    /// assert!(AnswerProtocol::Hooks.read("checked 3 files", "tool:pre", &data).is_err());
    /// let text = AnswerProtocol::ClaudeCode.read("checked 3 files", "tool:pre", &data);
    /// assert_eq!(text.unwrap().action, HookAction::Continue);
    /// assert!(AnswerProtocol::ClaudeCode.read(r#"{"decision": "block""#, "tool:pre", &data).is_err());
    /// ```
    pub fn read(self, stdout: &str, event: &str, data: &Value) -> Result<HookResult, AnswerError> {
        let stdout = stdout.trim();
        if stdout.is_empty() {
            return Ok(HookResult::cont());
        }
        match serde_json::from_str::<Value>(stdout) {
            Ok(Value::Object(answer)) => parse_object(answer, event, data),
            _ if stdout.starts_with(['{', '[']) => Err(AnswerError::NotAnObject(
                truncate_chars(stdout, EXCERPT).to_owned(),
            )),
            _ => match self {
                AnswerProtocol::Hooks => Err(AnswerError::NotJson(
                    truncate_chars(stdout, EXCERPT).to_owned(),
                )),
                // Claude Code adds plain output to the context for prompts and session starts,
                // and shows it in the transcript elsewhere: a successful hook, with nothing to
                // decide.
                AnswerProtocol::ClaudeCode if matches!(event, PROMPT_SUBMIT | SESSION_START) => {
                    Ok(HookResult::inject(stdout))
                }
                AnswerProtocol::ClaudeCode => Ok(HookResult::cont()),
            },
        }
    }
}

/// Reads a persistent hook's answer line to request `id`: any answer protocol, with an echoed
/// `request_id` checked and removed. A persistent hook speaks JSON lines: a line that is not a
/// JSON object is an error (the process may be out of step with its requests).
pub(crate) fn parse_line(
    line: &str,
    id: u64,
    event: &str,
    data: &Value,
) -> Result<HookResult, AnswerError> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(HookResult::cont());
    }
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(mut answer)) => {
            if let Some(echoed) = answer.remove(REQUEST_ID_FIELD)
                && echoed.as_u64() != Some(id)
            {
                return Err(AnswerError::OutOfStep { echoed, asked: id });
            }
            parse_object(answer, event, data)
        }
        _ => Err(AnswerError::LineNotAnObject(
            truncate_chars(line, EXCERPT).to_owned(),
        )),
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
) -> Result<HookResult, AnswerError> {
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
        .map_err(AnswerError::NotAHookResult)
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
pub(crate) fn usable(result: HookResult) -> Result<HookResult, AnswerError> {
    match result.action {
        HookAction::Modify if result.data.is_none() => Err(AnswerError::ModifyWithoutData),
        HookAction::InjectContext if result.context_injection.is_none() => {
            Err(AnswerError::InjectWithoutText)
        }
        _ => Ok(result),
    }
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
fn proposal(answer: &Map<String, Value>, data: &Value) -> Result<HookResult, AnswerError> {
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
            _ => return Err(AnswerError::ModifyWithoutArgs),
        },
        Some(other) => return Err(AnswerError::UnknownAction(other.to_owned())),
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
pub fn decision(answer: &str) -> Result<HookResult, AnswerError> {
    let trimmed = answer.trim();
    let json_text = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|inner| inner.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(json_text) else {
        return Err(AnswerError::ModelNotJson(
            truncate_chars(json_text, EXCERPT).to_owned(),
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
            _ => Err(AnswerError::ModelSafeNotBool),
        };
    }
    if object.contains_key("action") {
        return serde_json::from_value(Value::Object(object))
            .map_err(AnswerError::ModelNotAHookResult)
            .and_then(|result| usable(result).map_err(|why| AnswerError::Model(Box::new(why))));
    }
    Err(AnswerError::ModelUndecided)
}
