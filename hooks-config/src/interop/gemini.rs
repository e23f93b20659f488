//! Gemini CLI's hook protocol: its events, its stdin fields and its answers.
//!
//! # Answers (`hooks gemini`)
//!
//! | our merged result | Gemini CLI's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 |
//! | deny | the reason on stderr, exit 2 |
//! | ask_user | exit 2 with the prompt: Gemini CLI has no way to ask (fail closed) |
//! | modified tool input on BeforeTool | `hookSpecificOutput.tool_input`, the whole new input (Gemini merges it over the arguments, so a rewrite that removes an argument blocks instead) |
//! | any other modification | exit 2 with a reason (Gemini CLI cannot apply it, and it is not dropped) |
//! | context injection | `hookSpecificOutput.additionalContext` on AfterTool and BeforeAgent; elsewhere `systemMessage` |
//! | user messages | `systemMessage` |
//! | suppress_output | `suppressOutput: true` |

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value};

pub use crate::agent_protocol::GEMINI;

use super::{AgentAnswer, json_answer, question_of, reason_of};

/// The events whose `hookSpecificOutput.additionalContext` reaches the model.
const TAKES_CONTEXT: &[&str] = &["AfterTool", "BeforeAgent"];

/// Our merged result for Gemini CLI's event `agent_event`, in its protocol (see the
/// [module docs](self)); `input` is the event data as it was emitted.
pub fn answer(agent_event: &str, input: &Value, outcome: &EmitResult) -> AgentAnswer {
    let result = &outcome.result;
    match result.action {
        HookAction::Deny => return AgentAnswer::block(reason_of(outcome)),
        HookAction::AskUser => {
            let prompt = question_of(outcome);
            return AgentAnswer::block(format!(
                "a hook asks for approval, which Gemini CLI cannot ask for: {prompt}"
            ));
        }
        _ => {}
    }
    let mut specific = Map::new();
    if outcome.is_modified() {
        // Of the data of a tool call, Gemini CLI takes only the tool input, merged over the
        // arguments: a rewrite that removes an argument cannot be expressed.
        let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
        let old_input = &input[TOOL_INPUT];
        let keeps_every_argument = |new: &Map<String, Value>| {
            old_input
                .as_object()
                .is_none_or(|old| old.keys().all(|key| new.contains_key(key)))
        };
        match (agent_event, new_input) {
            ("BeforeTool", Some(new_input)) if new_input == old_input => {}
            ("BeforeTool", Some(Value::Object(new))) if keeps_every_argument(new) => {
                specific.insert(TOOL_INPUT.into(), Value::Object(new.clone()));
            }
            _ => {
                return AgentAnswer::block(format!(
                    "a hook rewrites the data of {agent_event}, which Gemini CLI cannot apply \
                     here; blocked rather than ignored"
                ));
            }
        }
    }
    json_answer(
        "Gemini CLI",
        agent_event,
        specific,
        TAKES_CONTEXT.contains(&agent_event),
        outcome,
    )
}
