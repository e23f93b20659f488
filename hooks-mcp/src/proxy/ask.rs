//! Asking the user through the MCP client: the proxy's approval provider puts an `ask_user`
//! to the client of the call being gated, in the way of the client's era:
//!
//! - a client of the handshake era gets an `elicitation/create` request that names the call,
//!   and the call waits for the answer;
//! - a client of the stateless era (2026-07-28) gets the call answered with `input_required`,
//!   holding the same question and a grant of the proxy's (see [`grants`](super::grants));
//!   its retry carrying the user's acceptance lets that one call through.
//!
//! The gate asks its provider with the hook's question only; which call it is about (and which
//! client can answer) is known to the proxy's handler of that call, which runs the gate inside
//! [`asking_about`], so that the provider finds it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hooks_core::BoxFuture;
use hooks_core::session::approval::{ApprovalError, ApprovalProvider, ApprovalRequest};
use hooks_core::sync::lock;
use hooks_core::text::truncate_bytes;
use rmcp::RoleServer;
use rmcp::model::{
    BooleanSchema, CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult,
    PrimitiveSchemaDefinition,
};
use rmcp::service::Peer;
use serde_json::Value;

use super::era::Era;
use super::grants::{Binding, Grants, STATE_PREFIX, ServerInputs};

/// The key of the proxy's own question among a call's input requests and responses.
pub(crate) const APPROVAL_KEY: &str = "hooks-proxy/approval";

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
    /// The era the client speaks on this call.
    pub(crate) era: Era,
    /// Whether the client declared that it can be asked (elicitation).
    pub(crate) can_elicit: bool,
    /// The session's grants (stateless era).
    pub(crate) grants: Arc<Grants>,
    /// What the ask made of this call (stateless era), shared with the call's handler.
    pub(crate) asking: Arc<Mutex<Asking>>,
}

/// The stateless era's ask, for one call.
#[derive(Debug, Default)]
pub(crate) struct Asking {
    /// The proxy's grant the call came back with, and the client's answer to it.
    retry: Option<Retry>,
    /// What the call carries for the server (kept in a grant when the proxy asks).
    for_server: ServerInputs,
    /// What a redeemed grant had kept for the server: the forwarded call carries it.
    redeemed: Option<ServerInputs>,
    /// What stops the call whatever the hooks' defaults: the client is being asked (the call
    /// is answered with this `input_required`), or a retry was refused (the reason).
    stop: Option<Stop>,
}

/// Why a call of a stateless client must not reach the server on this trip.
#[derive(Debug, Clone)]
pub(crate) enum Stop {
    /// The client is asked: the call is answered with this.
    Ask(InputRequiredResult),
    /// The retry's grant was refused, for this reason.
    Refused(String),
}

/// A retry of a call the proxy asked about.
#[derive(Debug)]
struct Retry {
    /// The request state the proxy issued.
    state: String,
    /// The client's answer to the proxy's question, when it sent one.
    answer: Option<Value>,
}

impl Asking {
    /// Takes the proxy's own parts out of a call of a stateless client (its grant and the
    /// answer to its question); the rest of the call's inputs are the server's.
    pub(crate) fn take_from(request: &mut CallToolRequestParams) -> Asking {
        let answer = request
            .input_responses
            .as_mut()
            .and_then(|responses| responses.remove(APPROVAL_KEY));
        if request
            .input_responses
            .as_ref()
            .is_some_and(|responses| responses.is_empty())
        {
            request.input_responses = None;
        }
        let state = request
            .request_state
            .take_if(|state| state.starts_with(STATE_PREFIX));
        Asking {
            // An answer to the proxy's question without its grant proves nothing.
            retry: state.map(|state| Retry { state, answer }),
            for_server: ServerInputs {
                state: request.request_state.clone(),
                responses: request.input_responses.clone(),
            },
            redeemed: None,
            stop: None,
        }
    }

    /// What stops the call on this trip, if anything does.
    pub(crate) fn stop(asking: &Mutex<Asking>) -> Option<Stop> {
        lock(asking).stop.clone()
    }

    /// What a redeemed grant kept for the server, which the forwarded call carries instead
    /// of what the retry carried.
    pub(crate) fn redeemed(asking: &Mutex<Asking>) -> Option<ServerInputs> {
        lock(asking).redeemed.clone()
    }
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

/// The proxy's [`ApprovalProvider`]: the client asked in the way of its era when it can
/// answer, a provider error (the hook's default decides: deny unless it said allow) saying
/// what would have been asked when it cannot.
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
            if !call.can_elicit {
                return Err(ApprovalError(format!(
                    "the MCP client cannot be asked (it did not declare the elicitation \
                     capability); it would have been asked: {question}"
                )));
            }
            match call.era {
                Era::Handshake => elicit(&call, request, question).await,
                Era::Stateless => ask_by_retry(&call, request, question),
            }
        })
    }
}

/// Asks the client of a handshake session with an `elicitation/create`, and waits.
async fn elicit(
    call: &CallUnderGate,
    request: &ApprovalRequest,
    question: String,
) -> Result<String, ApprovalError> {
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question,
        requested_schema: approval_form(),
    };
    let answer = call
        .client
        .create_elicitation(params)
        .await
        .map_err(|error| ApprovalError(format!("the MCP client could not be asked: {error}")))?;
    answer_of(request, &answer)
}

/// The option an elicitation's answer picks.
fn answer_of(request: &ApprovalRequest, answer: &ElicitResult) -> Result<String, ApprovalError> {
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
}

/// Asks the client of a stateless session. On the first trip the call is to be answered with
/// `input_required` (recorded for the call's handler, which then never forwards it; the gate
/// is told that no answer came yet). On the retry, the grant it carries is redeemed and the
/// client's answer decides; a grant that does not redeem stops the call.
fn ask_by_retry(
    call: &CallUnderGate,
    request: &ApprovalRequest,
    question: String,
) -> Result<String, ApprovalError> {
    let options = request.options.join("\n");
    let hook = request.hook.as_deref().unwrap_or_default();
    let binding = Binding::new(
        &call.tool,
        &call.arguments,
        &[hook, &request.event, &request.prompt, &options],
    );
    let mut asking = lock(&call.asking);
    if asking.stop.is_some() {
        // One question per trip: the call is already stopped by another.
        return Err(ApprovalError(format!(
            "the call is already stopped on this trip; it would also have been asked: \
             {question}"
        )));
    }
    if let Some(retry) = asking.retry.take() {
        let answer = retry
            .answer
            .and_then(|answer| serde_json::from_value::<ElicitResult>(answer).ok());
        let redeemed = match (call.grants.redeem(&retry.state, &binding), answer) {
            (Ok(redeemed), Some(answer)) => (redeemed, answer),
            (Ok(_), None) => {
                let why = "the retried call carries no answer to the proxy's question";
                return Err(stop(&mut asking, why.to_owned()));
            }
            (Err(why), _) => {
                return Err(stop(
                    &mut asking,
                    format!("the retried call was refused: {why}"),
                ));
            }
        };
        asking.redeemed = Some(redeemed.0);
        return answer_of(request, &redeemed.1);
    }
    let state = call.grants.issue(binding, asking.for_server.clone());
    let elicitation = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.clone(),
        requested_schema: approval_form(),
    });
    let requests = BTreeMap::from([(
        APPROVAL_KEY.to_owned(),
        InputRequest::Elicitation(elicitation),
    )]);
    let ask = InputRequiredResult::new(Some(requests), Some(state));
    asking.stop = Some(Stop::Ask(ask));
    Err(ApprovalError(format!(
        "the MCP client is asked (input_required); the call goes ahead only when it is \
         retried with the user's approval: {question}"
    )))
}

/// Stops the call for `why` (whatever the hook's default: an error alone would let a hook
/// whose default is allow pass a replayed or altered grant).
fn stop(asking: &mut Asking, why: String) -> ApprovalError {
    asking.stop = Some(Stop::Refused(why.clone()));
    ApprovalError(why)
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
