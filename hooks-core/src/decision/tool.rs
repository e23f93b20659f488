//! The decisions of the tool boundary: before a tool runs (`tool:pre`) and after
//! (`tool:post`).

use serde_json::Value;

use super::Approval;
use super::answer::{Decided, Verdict, decision, replace_field};
use crate::events::fields;
use crate::view::{EventView, ToolPost, ToolPre};

decision! {
    /// What a `tool:pre` handler decides: proceed, deny, ask the user, rewrite the input, or
    /// inject context, each with an optional user message.
    ///
    /// ```
    /// use hooks_core::decision::ToolPreDecision;
    /// use hooks_core::view::ToolPre;
    ///
    /// async fn confirm_deletes(call: ToolPre<'_>) -> ToolPreDecision {
    ///     match call.tool_input()["command"].as_str() {
    ///         Some(command) if command.starts_with("rm ") => {
    ///             ToolPreDecision::ask(format!("Let the agent run `{command}`?"))
    ///         }
    ///         _ => ToolPreDecision::proceed(),
    ///     }
    /// }
    /// ```
    ToolPreDecision
}

impl ToolPreDecision {
    /// Blocks the call. The reason reaches the agent, so say what to do instead.
    pub fn deny(reason: impl Into<String>) -> Self {
        ToolPreDecision(Decided::new(Verdict::Deny(reason.into())))
    }

    /// Asks the user before the call runs (a question, or an [`Approval`] with options and a
    /// timeout); without an answer the call is denied unless the approval says otherwise.
    pub fn ask(approval: impl Into<Approval>) -> Self {
        ToolPreDecision(Decided::new(Verdict::Ask(approval.into())))
    }

    /// Runs the call with `input` instead of the model's: the event data with only
    /// `tool_input` replaced, which later handlers and the tool see.
    pub fn rewrite_input(call: &ToolPre<'_>, input: Value) -> Self {
        let data = replace_field(call.data(), fields::TOOL_INPUT, input);
        ToolPreDecision(Decided::new(Verdict::Modify(data)))
    }
}

decision! {
    /// What a `tool:post` handler decides: proceed, withhold the result, replace it, or inject
    /// context, each with an optional user message.
    ToolPostDecision
}

impl ToolPostDecision {
    /// Withholds the tool's output from the agent, which reads the reason instead.
    pub fn deny(reason: impl Into<String>) -> Self {
        ToolPostDecision(Decided::new(Verdict::Deny(reason.into())))
    }

    /// Shows the agent `result` instead of the tool's: the event data with only
    /// `tool_result` replaced.
    pub fn replace_result(call: &ToolPost<'_>, result: Value) -> Self {
        let data = replace_field(call.data(), fields::TOOL_RESULT, result);
        ToolPostDecision(Decided::new(Verdict::Modify(data)))
    }
}
