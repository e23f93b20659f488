//! [`Dialect`]: one family of hook protocols, shared by the agents that speak it. An agent is
//! a row (its [`Profile`]) naming its dialect; the dialect writes our merged result as the
//! agent's answer, writes the answer when the policy cannot decide, and reads an answer back
//! as the agent would, with what differs between its speakers read from their rows.

use hooks_core::EmitResult;
use serde_json::Value;

#[cfg(any(test, feature = "validate"))]
use super::Verdict;
use super::{AgentAnswer, Profile, Rewrites};

/// What a dialect answers: the agent's row, its event, the event's data and the merged result.
#[derive(Debug, Clone, Copy)]
pub struct Answering<'a> {
    /// The agent it answers for.
    pub profile: &'static Profile,
    /// The event, as the agent names it (`PreToolUse`).
    pub agent_event: &'a str,
    /// The event data as it was emitted.
    pub input: &'a Value,
    /// The merged result of the hooks.
    pub outcome: &'a EmitResult,
    /// The hooks whose rewrites run unconfirmed.
    pub rewrites: &'a Rewrites,
}

/// What a dialect's validator reads: the agent's row, its event, and the answer to it.
#[cfg(any(test, feature = "validate"))]
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// The agent that reads it.
    pub profile: &'static Profile,
    /// The event, as the agent names it.
    pub agent_event: &'a str,
    /// What `hooks` printed and how it exited.
    pub answer: &'a AgentAnswer,
}

/// How a family of agents takes a hook's answer: Claude Code's JSON, exit 2, Cursor's,
/// GitHub Copilot's, Gemini CLI's, Codex CLI's, an in-process plugin's. Each method is given
/// the row of the agent it speaks for, so that its names, events and capabilities are read
/// where they are written down once.
pub trait Dialect: std::fmt::Debug + Sync {
    /// Our merged result, in the protocol of the agent [`answering`](Answering) for it. A
    /// question or a rewrite it cannot take is a deny whose reason says what would have been
    /// asked or run, never an allow.
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer;

    /// The answer when the policy cannot decide (unreadable input, a broken hooks file): a
    /// block with `reason` wherever the agent lets a hook block; `agent_event` is `None` when
    /// the input could not be read. By default exit 2 with the reason on stderr. What the
    /// answer is does not depend on the agent's row: a block is a block.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        let _ = agent_event;
        AgentAnswer::block(reason)
    }

    /// What the agent does with the answer of a [`Reading`], read by its documented rules; an error when it would reject the answer (and count the hook as
    /// failed, which most agents take as "go on"). Narrowed to what a guard may say: the
    /// validator every answer in the tests goes through, built with the `validate` feature.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String>;
}
