//! Claude Code's JSON output, read as Claude Code reads it for the event it answers.
//!
//! Which fields count depends on the event: `hookSpecificOutput.permissionDecision` and
//! `updatedInput` on PreToolUse only, `hookSpecificOutput.decision.behavior` on
//! PermissionRequest only, the top-level `decision: "block"` everywhere it blocks. A field
//! Claude Code would ignore or reject is not acted on here either: it becomes a warning for the
//! user (and the log), never a decision. A deny answered on PostToolUse would otherwise tell the
//! agent "denied" about a command that already ran.

use hooks_core::events::{APPROVAL_REQUIRED, TOOL_PRE};
use hooks_core::{HookResult, MessageLevel};
use serde_json::{Map, Value};

use super::with_tool_input;
use crate::interop::claude::CLAUDE;

/// The top-level keys that mark an answer as Claude Code's.
pub(super) const KEYS: [&str; 6] = [
    "hookSpecificOutput",
    "decision",
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
];

/// Claude Code's answer `answer` to the canonical `event` with event `data`.
pub(super) fn read(answer: &Map<String, Value>, event: &str, data: &Value) -> HookResult {
    let mut reader = Reader {
        answer,
        specific: answer.get("hookSpecificOutput").and_then(Value::as_object),
        event,
        warnings: Vec::new(),
    };
    let mut result = reader.decision(data);
    if let Some(context) = text(reader.specific_field("additionalContext")) {
        result = result.with_context_injection(context);
    }
    let mut messages: Vec<String> = text(answer.get("systemMessage")).into_iter().collect();
    for warning in &reader.warnings {
        tracing::warn!("{warning}");
    }
    messages.extend(reader.warnings);
    if !messages.is_empty() {
        result = result.with_user_message(messages.join("\n"), MessageLevel::Warning);
    }
    if answer.get("suppressOutput") == Some(&Value::Bool(true)) {
        result = result.with_suppress_output(true);
    }
    result
}

fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}

struct Reader<'a> {
    answer: &'a Map<String, Value>,
    specific: Option<&'a Map<String, Value>>,
    event: &'a str,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn specific_field(&self, key: &str) -> Option<&Value> {
        self.specific.and_then(|specific| specific.get(key))
    }

    /// Claude Code's name for the event, for the warnings.
    fn event_name(&self) -> &str {
        CLAUDE.agent_event(self.event).unwrap_or(self.event)
    }

    fn warn(&mut self, warning: String) {
        self.warnings.push(format!(
            "a hook answered {warning} on {}, which Claude Code does not accept; ignored",
            self.event_name()
        ));
    }

    /// `continue: false`, then the top-level `decision`, then the event's own decision.
    fn decision(&mut self, data: &Value) -> HookResult {
        if self.answer.get("continue") == Some(&Value::Bool(false)) {
            return HookResult::deny(
                text(self.answer.get("stopReason"))
                    .unwrap_or_else(|| "stopped by a hook".to_owned()),
            );
        }
        match self.answer.get("decision") {
            None | Some(Value::Null) => {}
            Some(Value::String(decision)) if decision == "block" => {
                return HookResult::deny(
                    text(self.answer.get("reason"))
                        .unwrap_or_else(|| "blocked by a hook".to_owned()),
                );
            }
            // The older spelling of PreToolUse's allow: no decision of ours to take.
            Some(Value::String(decision)) if decision == "approve" => {}
            Some(other) => self.warn(format!(
                "`decision: {other}` (it takes \"block\" or \"approve\")"
            )),
        }
        match self.event {
            TOOL_PRE => self.permission_decision(data),
            APPROVAL_REQUIRED => self.permission_request(data),
            _ => {
                for key in ["permissionDecision", "updatedInput", "decision"] {
                    if self.specific_field(key).is_some() {
                        self.warn(format!("`hookSpecificOutput.{key}`"));
                    }
                }
                HookResult::cont()
            }
        }
    }

    /// PreToolUse's `permissionDecision`, `permissionDecisionReason` and `updatedInput`.
    fn permission_decision(&mut self, data: &Value) -> HookResult {
        let reason = text(self.specific_field("permissionDecisionReason"));
        let rewrite = match self.specific_field("updatedInput") {
            None | Some(Value::Null) => None,
            Some(input @ Value::Object(_)) => Some(input.clone()),
            Some(other) => {
                self.warn(format!("`updatedInput: {other}` (it takes an object)"));
                None
            }
        };
        let rewritten = |rewrite: Option<Value>| match rewrite {
            Some(input) => HookResult::modify(with_tool_input(data, input)),
            None => HookResult::cont(),
        };
        match self.specific_field("permissionDecision") {
            Some(Value::String(decision)) if decision == "deny" => {
                HookResult::deny(reason.unwrap_or_else(|| "denied by a hook".to_owned()))
            }
            Some(Value::String(decision)) if decision == "ask" => HookResult::ask(
                reason.unwrap_or_else(|| "A hook asks for your approval".to_owned()),
            ),
            None | Some(Value::Null) => rewritten(rewrite),
            Some(Value::String(decision)) if decision == "allow" => rewritten(rewrite),
            Some(other) => {
                self.warn(format!(
                    "`permissionDecision: {other}` (it takes \"allow\", \"deny\" or \"ask\")"
                ));
                rewritten(rewrite)
            }
        }
    }

    /// PermissionRequest's `decision: {behavior, message, updatedInput}`.
    fn permission_request(&mut self, data: &Value) -> HookResult {
        let Some(decision) = self.specific_field("decision") else {
            return HookResult::cont();
        };
        let behavior = decision.get("behavior").and_then(Value::as_str);
        match behavior {
            Some("deny") => HookResult::deny(
                text(decision.get("message")).unwrap_or_else(|| "denied by a hook".to_owned()),
            ),
            Some("allow") => match decision.get("updatedInput") {
                Some(input @ Value::Object(_)) => {
                    HookResult::modify(with_tool_input(data, input.clone()))
                }
                _ => HookResult::cont(),
            },
            _ => {
                let decision = decision.to_string();
                self.warn(format!(
                    "`hookSpecificOutput.decision: {decision}` (its `behavior` is \"allow\" or \
                     \"deny\")"
                ));
                HookResult::cont()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_core::HookAction;
    use serde_json::json;

    fn answer(event: &str, answer: Value) -> HookResult {
        let data = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}});
        read(answer.as_object().unwrap(), event, &data)
    }

    #[test]
    fn a_permission_decision_counts_on_pre_tool_use_only() {
        let deny = json!({"hookSpecificOutput": {"permissionDecision": "deny",
            "permissionDecisionReason": "no"}});
        assert_eq!(answer("tool:pre", deny.clone()).action, HookAction::Deny);
        let after = answer("tool:post", deny);
        assert_eq!(after.action, HookAction::Continue);
        let warning = after.user_message.unwrap();
        assert!(warning.contains("PostToolUse"), "{warning}");
        assert!(warning.contains("permissionDecision"), "{warning}");
    }

    #[test]
    fn a_rewrite_counts_on_pre_tool_use_only() {
        let rewrite = json!({"hookSpecificOutput": {"permissionDecision": "allow",
            "updatedInput": {"command": "ls"}}});
        let before = answer("tool:pre", rewrite.clone());
        assert_eq!(before.action, HookAction::Modify);
        assert_eq!(before.data.unwrap()["tool_input"]["command"], "ls");
        assert_eq!(answer("tool:post", rewrite).action, HookAction::Continue);
    }

    #[test]
    fn permission_request_reads_its_own_shape() {
        let deny = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "not on main"}}});
        let denied = answer("approval:required", deny);
        assert_eq!(denied.action, HookAction::Deny);
        assert_eq!(denied.reason.as_deref(), Some("not on main"));
        let allow = json!({"hookSpecificOutput": {"decision": {"behavior": "allow",
            "updatedInput": {"command": "ls"}}}});
        assert_eq!(
            answer("approval:required", allow).action,
            HookAction::Modify
        );
        // PreToolUse's shape on PermissionRequest decides nothing.
        let wrong = json!({"hookSpecificOutput": {"permissionDecision": "deny"}});
        assert_eq!(
            answer("approval:required", wrong).action,
            HookAction::Continue
        );
    }

    #[test]
    fn an_unknown_decision_is_a_warning_not_a_decision() {
        let ask = answer("tool:pre", json!({"decision": "ask"}));
        assert_eq!(ask.action, HookAction::Continue);
        assert!(ask.user_message.unwrap().contains("decision"));
        let block = answer("tool:post", json!({"decision": "block", "reason": "lint"}));
        assert_eq!(block.action, HookAction::Deny);
    }

    #[test]
    fn the_system_message_and_warnings_are_kept_together() {
        let both = answer(
            "tool:post",
            json!({"systemMessage": "see the docs", "hookSpecificOutput": {"updatedInput": {}}}),
        );
        let message = both.user_message.unwrap();
        assert!(message.starts_with("see the docs\n"), "{message}");
        assert!(message.contains("updatedInput"), "{message}");
    }
}
