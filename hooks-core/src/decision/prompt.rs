//! The decision of the prompt boundary (`prompt:submit`).

use super::answer::{Decided, Verdict, decision, replace_field};
use crate::events::fields;
use crate::view::{EventView, PromptSubmit};

decision! {
    /// What a `prompt:submit` handler decides: proceed, drop the prompt, rewrite it, or inject
    /// context, each with an optional user message.
    PromptSubmitDecision
}

impl PromptSubmitDecision {
    /// Drops the prompt; the reason is shown instead of an answer.
    pub fn deny(reason: impl Into<String>) -> Self {
        PromptSubmitDecision(Decided::new(Verdict::Deny(reason.into())))
    }

    /// Sends `prompt` instead of the user's: the event data with only `prompt` replaced.
    pub fn rewrite(submitted: &PromptSubmit<'_>, prompt: impl Into<String>) -> Self {
        let data = replace_field(submitted.data(), fields::PROMPT, prompt.into().into());
        PromptSubmitDecision(Decided::new(Verdict::Modify(data)))
    }
}
