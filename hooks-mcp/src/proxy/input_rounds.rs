//! A stateless server's `input_required` answered for a client of the handshake era, whose
//! revision has no such result: each of the server's input requests is put to the client as
//! the request it stands for (`elicitation/create`, `sampling/createMessage`, `roots/list`),
//! and the call is retried at the server with the client's answers (`inputResponses`) and the
//! server's `requestState`, until the server answers with a result.
//!
//! A form elicitation that asks for a password, a key or a token is refused as a server's own
//! request is (see [`server_asks`](super::server_asks)): it never reaches the client, and the
//! call ends in an error result. So does a request the client cannot answer (it did not
//! declare the capability): the error says what the server asked. A server that keeps asking
//! is given up on after [`MAX_ROUNDS`] rounds.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    ElicitRequestParams, InputRequest, InputRequests, InputResponses, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer};

use super::server_asks;
use super::upstream::{ProgressTokens, send};

/// The most rounds of the server's questions one call may take (as rmcp's clients allow).
pub(super) const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// Forwards `request` with `forward` and answers each `input_required` of the server through
/// the client of `context`, retrying the call with the answers; the server's final answer,
/// or an error result saying why the call could not be completed. `server` names the server
/// in those errors.
pub(super) async fn answered_by_client<F, Fut>(
    mut request: CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    progress: &ProgressTokens,
    server: &str,
    mut forward: F,
) -> Result<CallToolResponse, McpError>
where
    F: FnMut(CallToolRequestParams) -> Fut,
    Fut: Future<Output = Result<CallToolResponse, McpError>>,
{
    for _ in 0..MAX_ROUNDS {
        let asked = match forward(request.clone()).await? {
            CallToolResponse::InputRequired(asked) => asked,
            answer => return Ok(answer),
        };
        let requests = asked.input_requests.unwrap_or_default();
        let responses = match answers(requests, context, progress, server).await {
            Ok(responses) => responses,
            Err(why) => return Ok(failed(why)),
        };
        request.input_responses = (!responses.is_empty()).then_some(responses);
        request.request_state = asked.request_state;
    }
    Ok(failed(format!(
        "the MCP server `{server}` still asked for input after {MAX_ROUNDS} rounds; the call \
         was given up"
    )))
}

/// The call's answer when the server's questions could not be answered.
fn failed(why: String) -> CallToolResponse {
    tracing::warn!(%why, "an MCP server's input request could not be answered");
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(format!(
        "Tool call failed: {why}."
    ))]))
}

/// The client's answers to `requests`, put to it one at a time; why not, when one cannot be
/// put or is not answered.
async fn answers(
    requests: InputRequests,
    context: &RequestContext<RoleServer>,
    progress: &ProgressTokens,
    server: &str,
) -> Result<InputResponses, String> {
    let capabilities = context
        .peer
        .peer_info()
        .map(|info| info.capabilities.clone())
        .unwrap_or_default();
    let mut responses = InputResponses::new();
    for (key, input) in requests {
        let (method, request) = to_client(input, &capabilities, server)?;
        // A person may be answering: no deadline of the proxy's, only the client's own
        // cancellation of the call.
        let options = PeerRequestOptions::no_options();
        let answer = send(
            &context.peer,
            request,
            options,
            context.ct.cancelled(),
            progress,
            None,
        )
        .await
        .map_err(|error| format!("the MCP client did not answer `{method}`: {error}"))?;
        let answer = serde_json::to_value(answer).map_err(|error| {
            format!("the MCP client's answer to `{method}` is unusable: {error}")
        })?;
        responses.insert(key, answer);
    }
    Ok(responses)
}

/// `input` as the request the client is sent, with its method; why it is not sent, when the
/// proxy refuses it or the client cannot answer it.
fn to_client(
    input: InputRequest,
    capabilities: &ClientCapabilities,
    server: &str,
) -> Result<(&'static str, ServerRequest), String> {
    let cannot = |method: &str, capability: &str, what: String| {
        format!(
            "the MCP server `{server}` needs `{method}` answered, which this client cannot do \
             (it did not declare `{capability}`); {what}"
        )
    };
    match input {
        InputRequest::Elicitation(ask) => {
            if let Some(refusal) = server_asks::refusal(&ask.params) {
                return Err(format!(
                    "the MCP server `{server}` asked for input: {refusal}"
                ));
            }
            if capabilities.elicitation.is_none() {
                let what = match &ask.params {
                    ElicitRequestParams::FormElicitationParams { message, .. } => {
                        format!("the server asked the user: {message}")
                    }
                    ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                        format!("the server asked the user to open {url}: {message}")
                    }
                    other => format!(
                        "the server asked the user: {}",
                        serde_json::to_string(other).unwrap_or_default()
                    ),
                };
                return Err(cannot("elicitation/create", "elicitation", what));
            }
            Ok(("elicitation/create", ServerRequest::ElicitRequest(ask)))
        }
        InputRequest::CreateMessage(ask) => {
            if capabilities.sampling.is_none() {
                let what = "the server asked for a completion of the model".to_owned();
                return Err(cannot("sampling/createMessage", "sampling", what));
            }
            Ok((
                "sampling/createMessage",
                ServerRequest::CreateMessageRequest(ask),
            ))
        }
        InputRequest::ListRoots(ask) => {
            if capabilities.roots.is_none() {
                let what = "the server asked for the client's roots".to_owned();
                return Err(cannot("roots/list", "roots", what));
            }
            Ok(("roots/list", ServerRequest::ListRootsRequest(ask)))
        }
        other => Err(format!(
            "the MCP server `{server}` asked for input the proxy cannot put to the client: {}",
            serde_json::to_string(&other).unwrap_or_default()
        )),
    }
}
