//! Asking the user through the MCP client: the proxy's approval provider puts an `ask_user`
//! to the client of the call being gated, as an `elicitation/create` that names the call.
//!
//! The gate asks its provider with the hook's question only; which call it is about (and which
//! client can answer) is known to the proxy's handler of that call, which runs the gate inside
//! [`asking_about`], so that the provider finds it.

use std::collections::BTreeMap;

use hooks_core::BoxFuture;
use hooks_core::session::approval::{ApprovalError, ApprovalProvider, ApprovalRequest};
use hooks_core::text::truncate_bytes;
use rmcp::RoleServer;
use rmcp::model::{
    BooleanSchema, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    PrimitiveSchemaDefinition,
};
use rmcp::service::Peer;
use serde_json::Value;

/// The name of the one field of the form: whether the user allows the call.
const APPROVE_FIELD: &str = "approve";

/// The longest rendering of the arguments put in a question.
const MAX_ARGUMENTS_SHOWN: usize = 2000;

/// The call being gated, and the client who made it.
#[derive(Clone)]
pub(crate) struct CallUnderGate {
    /// The client.
    pub(crate) client: Peer<RoleServer>,
    /// The tool, as the hooks name it (`mcp__<server>__<tool>`).
    pub(crate) tool: String,
    /// The call's arguments, as the client sent them.
    pub(crate) arguments: Value,
}

tokio::task_local! {
    static CALL: CallUnderGate;
}

/// Runs `gate` (one call's trip through the gate) with `call` as what an `ask_user` is about.
pub(crate) async fn asking_about<T>(
    call: CallUnderGate,
    gate: impl std::future::Future<Output = T>,
) -> T {
    CALL.scope(call, gate).await
}

/// The proxy's [`ApprovalProvider`]: an elicitation to the client when it can answer one, a
/// provider error (the hook's default decides: deny unless it said allow) saying what would
/// have been asked when it cannot.
pub(crate) struct ElicitingApprovals;

impl ApprovalProvider for ElicitingApprovals {
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>> {
        Box::pin(async move {
            let Ok(call) = CALL.try_with(CallUnderGate::clone) else {
                return Err(ApprovalError(format!(
                    "no MCP call is being gated, so no client can be asked: {}",
                    request.prompt
                )));
            };
            let question = question(&call, request);
            let can_elicit = call
                .client
                .peer_info()
                .is_some_and(|info| info.capabilities.elicitation.is_some());
            if !can_elicit {
                return Err(ApprovalError(format!(
                    "the MCP client cannot be asked (it did not declare the elicitation \
                     capability); it would have been asked: {question}"
                )));
            }
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question,
                requested_schema: approval_form(),
            };
            let answer = call
                .client
                .create_elicitation(params)
                .await
                .map_err(|error| {
                    ApprovalError(format!("the MCP client could not be asked: {error}"))
                })?;
            let allowed = answer.action == ElicitationAction::Accept
                && answer
                    .content
                    .as_ref()
                    .and_then(|content| content.get(APPROVE_FIELD))
                    .is_none_or(|approve| approve != &Value::Bool(false));
            choose(&request.options, allowed).ok_or_else(|| {
                ApprovalError(format!(
                    "the client answered, but none of the options {:?} means {}",
                    request.options,
                    if allowed { "allow once" } else { "deny" }
                ))
            })
        })
    }
}

/// The question for `request` about `call`: the hook's question, the tool and its arguments.
fn question(call: &CallUnderGate, request: &ApprovalRequest) -> String {
    let arguments = call.arguments.to_string();
    let kept = truncate_bytes(&arguments, MAX_ARGUMENTS_SHOWN);
    let arguments = if kept.len() < arguments.len() {
        format!("{kept}...")
    } else {
        arguments
    };
    format!(
        "{} (tool `{}` with arguments {arguments})",
        request.prompt, call.tool
    )
}

/// The form of the question: one boolean, checked to allow.
fn approval_form() -> ElicitationSchema {
    let approve = BooleanSchema::new()
        .title("Allow this call")
        .with_default(false);
    ElicitationSchema::new(BTreeMap::from([(
        APPROVE_FIELD.to_owned(),
        PrimitiveSchemaDefinition::Boolean(approve),
    )]))
}

/// The option that says `allowed` for this one call: an allow that is not "… always" (a grant
/// is for the exact call, never remembered), or a deny.
fn choose(options: &[String], allowed: bool) -> Option<String> {
    let says = |option: &str, words: &[&str]| {
        let option = option.to_ascii_lowercase();
        words.iter().any(|word| option.contains(word))
    };
    let denies = |option: &str| {
        option.eq_ignore_ascii_case("no")
            || says(
                option,
                &["deny", "reject", "block", "never", "don't", "not "],
            )
    };
    let allows = |option: &str| {
        !denies(option)
            && !says(option, &["always"])
            && (option.eq_ignore_ascii_case("yes") || says(option, &["allow", "approve", "accept"]))
    };
    options
        .iter()
        .find(|option| {
            if allowed {
                allows(option)
            } else {
                denies(option)
            }
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(list: &[&str]) -> Vec<String> {
        list.iter().map(|option| (*option).to_owned()).collect()
    }

    #[test]
    fn an_accept_picks_an_allow_that_is_not_remembered() {
        let offered = options(&["Allow always", "Allow once", "Deny"]);
        assert_eq!(choose(&offered, true).as_deref(), Some("Allow once"));
        assert_eq!(choose(&offered, false).as_deref(), Some("Deny"));
    }

    #[test]
    fn no_option_for_the_answer_is_none() {
        assert_eq!(choose(&options(&["Allow always", "Deny"]), true), None);
        assert_eq!(choose(&options(&["Allow"]), false), None);
    }
}
