//! The exit-two dialect ([`ExitTwo`]): agents whose one way to block is exit 2 with the reason
//! on stderr, and that take no question, no rewrite and no context from a hook (Augment Auggie,
//! Goose, Windsurf, Kiro); what our merged result becomes there, and how they read it back.
//! Its [`refusal`] and [`notes`] are also what Cline and Antigravity CLI, which answer in JSON
//! but take no more than a block, say.
//!
//! What differs between its speakers is a row of two facts: which events exit 2 blocks
//! ([`Blocking`]), and whether stdout's `{"decision": "block", "reason"}` is read
//! ([`StdoutBlock`]).

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde::Serialize;
use serde_json::Value;

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::reasons::{context_of, messages_of, modifiers, question_of, reason_of, would_run};
use super::{AgentAnswer, Answering, Capabilities, Dialect, RewriteSupport};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::non_empty, hook_output::printed};

/// The exit-two dialect, as one agent speaks it.
#[derive(Debug)]
pub(crate) struct ExitTwo {
    /// The events on which exit 2 stops what the event is about.
    pub(crate) blocks: Blocking,
    /// What it reads on stdout.
    pub(crate) stdout: StdoutBlock,
}

/// The events of an exit-two agent that a hook can block.
#[derive(Debug)]
pub(crate) enum Blocking {
    /// These events.
    Events(&'static [&'static str]),
    /// The events whose names start so (Windsurf's `pre_*` actions).
    Prefix(&'static str),
}

/// Whether an exit-two agent reads a JSON block on stdout.
#[derive(Debug)]
pub(crate) enum StdoutBlock {
    /// It reads no JSON answer: a JSON deny would be ignored.
    Unread,
    /// On these events (beside the ones that block by exit 2) `{"decision": "block",
    /// "reason"}` on exit 0 blocks, and is our answer there (Auggie's `Stop`).
    Answered(&'static [&'static str]),
    /// On the events that block, `{"decision": "block", "reason"}` blocks whatever the exit
    /// code; our answer stays exit 2 (Goose).
    Read,
}

/// What an agent of this family takes from a hook: a block, and nothing else; `blocks_prompt`
/// is the event that submits a prompt, when it can be blocked.
pub(crate) const fn capabilities(blocks_prompt: Option<&'static str>) -> Capabilities {
    Capabilities {
        asks_on: &[],
        rewrite: RewriteSupport::None,
        context_on: &[],
        blocks_prompt,
    }
}

/// `{"decision", "reason"}`: the JSON answer of the agents of this family that read one (and of
/// Antigravity CLI), the one model of it both written and, by the validator, read.
#[derive(Debug, Serialize)]
#[cfg_attr(
    any(test, feature = "validate"),
    derive(serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct DecisionAnswer {
    /// `block` here; Antigravity CLI's `allow`, `deny`, `ask` or `force_ask`.
    pub(crate) decision: String,
    /// Why, which the model reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
}

impl DecisionAnswer {
    /// The answer `decision`, with `reason` where there is one, exit 0.
    pub(crate) fn answer(decision: &str, reason: Option<String>) -> AgentAnswer {
        AgentAnswer::json(&DecisionAnswer {
            decision: decision.to_owned(),
            reason,
        })
    }

    /// `answer`'s stdout as this answer; an error for anything else in it.
    #[cfg(any(test, feature = "validate"))]
    pub(crate) fn read(fields: serde_json::Map<String, Value>) -> Result<Self, String> {
        serde_json::from_value(Value::Object(fields)).map_err(|error| error.to_string())
    }

    /// Its reason, when it says something.
    #[cfg(any(test, feature = "validate"))]
    pub(crate) fn reason(&self) -> Option<String> {
        self.reason
            .clone()
            .filter(|reason| !reason.trim().is_empty())
    }
}

impl ExitTwo {
    /// Whether exit 2 blocks `agent_event`.
    fn blocks(&self, agent_event: &str) -> bool {
        match self.blocks {
            Blocking::Events(events) => events.contains(&agent_event),
            Blocking::Prefix(prefix) => agent_event.starts_with(prefix),
        }
    }

    /// Whether our answer to `agent_event` is the JSON block.
    fn answers_json(&self, agent_event: &str) -> bool {
        matches!(self.stdout, StdoutBlock::Answered(events) if events.contains(&agent_event))
    }
}

impl Dialect for ExitTwo {
    /// Exit 2 with the [`refusal`] where the agent lets a hook block; the JSON block where it
    /// takes one instead; elsewhere exit 0, with what a hook would have stopped and the
    /// [`notes`] on stderr, where the user sees them. Stderr of a block is the reason the model
    /// reads: the user's messages stay out of it.
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            profile,
            agent_event,
            input,
            outcome,
            ..
        } = *answering;
        let agent = profile.display_name;
        let refused = refusal(agent, input, outcome);
        match refused {
            Some(reason) if self.answers_json(agent_event) => AgentAnswer {
                stderr: notes(outcome).join("\n"),
                ..DecisionAnswer::answer("block", Some(reason))
            },
            Some(reason) if self.blocks(agent_event) => AgentAnswer::block(reason),
            refused => AgentAnswer {
                stderr: refused
                    .map(|reason| {
                        format!("{agent} cannot stop {agent_event}; a hook would have: {reason}")
                    })
                    .into_iter()
                    .chain(notes(outcome))
                    .collect::<Vec<_>>()
                    .join("\n"),
                ..AgentAnswer::silent()
            },
        }
    }

    /// Exit 2 with the reason; the JSON block where that is the answer.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        match agent_event {
            Some(event) if self.answers_json(event) => {
                DecisionAnswer::answer("block", Some(reason))
            }
            _ => AgentAnswer::block(reason),
        }
    }

    /// The family's reading of an answer: exit 2 with a reason blocks the events that block
    /// and is no decision elsewhere; exit 0 with nothing goes on; stdout's JSON block is read
    /// where [`StdoutBlock`] says. Refused: any other exit code (a failed hook: the call runs),
    /// exit 2 without a reason, JSON where it is not read, a block without a reason, any
    /// `decision` but `block`, and any other key.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let Reading {
            profile,
            agent_event,
            answer,
        } = *reading;
        let agent = profile.display_name;
        let unread = || format!("{agent} reads no JSON answer: the call would run");
        let printed = match (&self.stdout, printed(answer)) {
            (StdoutBlock::Unread, Err(_)) => return Err(unread()),
            (_, printed) => printed?,
        };
        if let Some(fields) = printed {
            let blocks = match self.stdout {
                StdoutBlock::Unread => return Err(unread()),
                StdoutBlock::Answered(_) if answer.exit_code != 0 => {
                    return Err(format!("exit {} with JSON on stdout", answer.exit_code));
                }
                StdoutBlock::Answered(events) if !events.contains(&agent_event) => {
                    return Err(format!("{agent} takes no JSON on {agent_event}"));
                }
                StdoutBlock::Answered(_) => true,
                StdoutBlock::Read => self.blocks(agent_event),
            };
            let block = DecisionAnswer::read(fields)?;
            return match (block.decision.as_str(), block.reason()) {
                ("block", Some(reason)) if blocks => Ok(Verdict::Block(reason)),
                ("block", Some(_)) => Ok(Verdict::Proceed),
                other => Err(format!("{agent}'s answer {other:?}")),
            };
        }
        match answer.exit_code {
            0 => Ok(Verdict::Proceed),
            2 => {
                let reason = non_empty(Some(&Value::from(answer.stderr.as_str())))
                    .ok_or_else(|| "exit 2 without a reason on stderr".to_owned())?;
                Ok(if self.blocks(agent_event) {
                    Verdict::Block(reason)
                } else {
                    Verdict::Proceed
                })
            }
            code => Err(format!(
                "exit code {code}: {agent} counts it a failed hook and runs the call"
            )),
        }
    }
}

/// Why `agent` must stop the call, if it must: a deny's reason, a question it cannot put, or a
/// rewrite of the tool input it cannot apply (saying what would have run).
pub(crate) fn refusal(agent: &str, input: &Value, outcome: &EmitResult) -> Option<String> {
    let result = &outcome.result;
    let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
    let rewritten = outcome.is_modified() && new_input.is_some_and(|new| *new != input[TOOL_INPUT]);
    match result.action {
        HookAction::Deny => Some(reason_of(outcome)),
        HookAction::AskUser => Some(format!(
            "a hook asks for approval, which {agent} cannot ask for from a hook: {}",
            question_of(outcome)
        )),
        _ if rewritten => Some(format!(
            "a hook rewrites this call ({}) to run `{}` instead, which {agent} cannot apply; \
             blocked rather than run unchanged",
            modifiers(outcome),
            new_input.map(would_run).unwrap_or_default()
        )),
        _ => None,
    }
}

/// What the hooks said that the agent has no channel for (messages, context), one a line.
pub(crate) fn notes(outcome: &EmitResult) -> Vec<String> {
    let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
    notes.extend(context_of(outcome));
    notes
}
