//! The JSON answer of Claude Code's hook protocol, which Gemini CLI and Codex CLI answer in too
//! (each taking its own part of it): `decision` and `reason`, `hookSpecificOutput`,
//! `systemMessage` and `suppressOutput`.

use serde::Serialize;
#[cfg(any(test, feature = "validate"))]
use serde_json::Map;
use serde_json::Value;

/// A hook's JSON answer in Claude Code's shape; a field left `None` is left out.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HookOutput {
    /// `block` (Claude Code, Codex CLI) or `deny` (Gemini CLI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<Decision>,
    /// The reason of the `decision`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// The event's own answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hook_specific_output: Option<Specific>,
    /// A message for the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) system_message: Option<String>,
    /// Hide the hook's own output from the transcript.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) suppress_output: bool,
}

/// The top-level `decision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Decision {
    /// Claude Code's and Codex CLI's block.
    Block,
    /// Gemini CLI's block.
    Deny,
}

/// `hookSpecificOutput`: the answer of one event.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Specific {
    /// The event, as the agent names it.
    pub(crate) hook_event_name: String,
    /// A tool call's permission (`PreToolUse`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) permission_decision: Option<Permission>,
    /// Its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) permission_decision_reason: Option<String>,
    /// The tool input to run instead (`PreToolUse`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) updated_input: Option<Value>,
    /// The answer to a permission request (`PermissionRequest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<PermissionRequestDecision>,
    /// Gemini CLI's whole replacement tool input (`BeforeTool`).
    #[serde(rename = "tool_input", skip_serializing_if = "Option::is_none")]
    pub(crate) tool_input: Option<Value>,
    /// Context for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) additional_context: Option<String>,
}

impl Specific {
    /// The answer of `agent_event`, empty.
    pub(crate) fn of(agent_event: &str) -> Self {
        Specific {
            hook_event_name: agent_event.to_owned(),
            ..Specific::default()
        }
    }

    /// Whether it says anything besides the event's name.
    pub(crate) fn is_empty(&self) -> bool {
        self.permission_decision.is_none()
            && self.permission_decision_reason.is_none()
            && self.updated_input.is_none()
            && self.decision.is_none()
            && self.tool_input.is_none()
            && self.additional_context.is_none()
    }
}

/// A tool call's `permissionDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Permission {
    /// Run it (with `updatedInput`: the rewrite, unconfirmed).
    Allow,
    /// Refuse it.
    Deny,
    /// Put it to the user.
    Ask,
}

/// The answer to a `PermissionRequest`: only a deny is ever sent.
#[derive(Debug, Serialize)]
pub(crate) struct PermissionRequestDecision {
    /// Always `deny`.
    pub(crate) behavior: Permission,
    /// Why.
    pub(crate) message: String,
}

impl PermissionRequestDecision {
    /// A deny of the request, with `message`.
    pub(crate) fn deny(message: String) -> Self {
        PermissionRequestDecision {
            behavior: Permission::Deny,
            message,
        }
    }
}

impl HookOutput {
    /// An answer with `specific` (when it says anything) and the `system_message`.
    pub(crate) fn with(specific: Specific, system_message: Option<String>) -> Self {
        HookOutput {
            hook_specific_output: (!specific.is_empty()).then_some(specific),
            system_message,
            ..HookOutput::default()
        }
    }
}

/// The JSON object an answer prints, `None` when it prints nothing; an error when stdout is
/// anything else (agents take only an object).
#[cfg(any(test, feature = "validate"))]
pub(crate) fn printed(answer: &super::AgentAnswer) -> Result<Option<Map<String, Value>>, String> {
    if answer.stdout.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(&answer.stdout) {
        Ok(Value::Object(fields)) => Ok(Some(fields)),
        _ => Err(format!("stdout is not a JSON object: {:?}", answer.stdout)),
    }
}

/// Whether `value` is a string with something in it.
#[cfg(any(test, feature = "validate"))]
pub(crate) fn non_empty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
        .map(str::to_owned)
}

/// Which `hookSpecificOutput` answers an agent of Claude Code's shape takes: all that differs
/// between Claude Code's reading and Codex CLI's, as data; [`read`](SpecificRules::read) is
/// the reading they share.
#[derive(Debug)]
#[cfg(any(test, feature = "validate"))]
pub(crate) struct SpecificRules {
    /// The events whose `additionalContext` it reads.
    pub(crate) context_on: &'static [&'static str],
    /// The `permissionDecision`s it takes on `PreToolUse`, of `deny`, `ask` and `allow`.
    pub(crate) decisions: &'static [&'static str],
    /// The `permissionDecision`s an `updatedInput` may come with.
    pub(crate) updated_with: &'static [&'static str],
}

#[cfg(any(test, feature = "validate"))]
impl SpecificRules {
    /// `hookSpecificOutput` of an answer to `agent_event`, read: the decision it makes, if any;
    /// an error for anything the agent does not take there.
    pub(crate) fn read(
        &self,
        agent_event: &str,
        specific: &Value,
    ) -> Result<Option<super::Verdict>, String> {
        use super::Verdict;
        let Some(specific) = specific.as_object() else {
            return Err(format!("hookSpecificOutput is not an object: {specific}"));
        };
        if specific.get("hookEventName") != Some(&Value::from(agent_event)) {
            return Err(format!("hookEventName is not {agent_event}: {specific:?}"));
        }
        let reason = non_empty(specific.get("permissionDecisionReason"));
        let updated = specific
            .get("updatedInput")
            .filter(|input| input.is_object());
        let decision = specific
            .get("permissionDecision")
            .and_then(Value::as_str)
            .filter(|decision| self.decisions.contains(decision));
        let mut verdict = None;
        for (key, value) in specific {
            match (agent_event, key.as_str()) {
                (_, "hookEventName") => {}
                (event, "additionalContext")
                    if self.context_on.contains(&event) && value.is_string() => {}
                ("PreToolUse", "permissionDecision") => {
                    verdict = Some(match (decision, &reason, updated) {
                        (Some("deny"), Some(reason), _) => Verdict::Block(reason.clone()),
                        (Some("ask"), Some(reason), _) => Verdict::Ask(reason.clone()),
                        (Some("allow"), _, Some(input)) => Verdict::RunRewritten(input.clone()),
                        _ => {
                            return Err(format!(
                                "permissionDecision {value} as sent: {specific:?}"
                            ));
                        }
                    });
                }
                ("PreToolUse", "permissionDecisionReason")
                    if specific.contains_key("permissionDecision") => {}
                ("PreToolUse", "updatedInput")
                    if decision.is_some_and(|decision| self.updated_with.contains(&decision)) => {}
                ("PermissionRequest", "decision") => {
                    let message = non_empty(value.get("message"));
                    let only_known = value
                        .as_object()
                        .is_some_and(|d| d.keys().all(|k| k == "behavior" || k == "message"));
                    match message {
                        Some(message) if value["behavior"] == "deny" && only_known => {
                            verdict = Some(Verdict::Block(message));
                        }
                        _ => return Err(format!("PermissionRequest decision {value}")),
                    }
                }
                _ => {
                    return Err(format!(
                        "hookSpecificOutput.{key} is not taken on {agent_event}: {value}"
                    ));
                }
            }
        }
        Ok(verdict)
    }
}
