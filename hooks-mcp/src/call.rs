//! One `tools/call` through the session's tool-call gate: the gate's `before` step, the
//! tool (a wrapped server's `call_tool`, or the proxy's forward to an upstream server), the
//! gate's `after` step, and the outcome turned back into an MCP answer.

use hooks_core::events::TOOL_POST;
use hooks_core::session::ToolCallOutcome;
use hooks_core::session::gate::BeforeTool;
use hooks_core::session::injection::InjectionAudit;
use hooks_core::session::{HookSession, ToolCallStatus, ToolError};
use hooks_core::text::json_kind;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Runs `request` through `session`'s tool-call gate, the inner server's `call_tool` being
/// the tool; the hooks see the tool by its MCP name.
pub(crate) async fn gated_call<S: ServerHandler>(
    inner: &S,
    session: &HookSession,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let name = request.name.clone();
    gate_call(session, &name, request, context, |request, context| {
        inner.call_tool(request, context)
    })
    .await
}

/// Runs `request` through `session`'s tool-call gate, `tool` being the tool and `hook_name`
/// the name the hooks see it by (`tool_name`).
pub(crate) async fn gate_call<F, Fut>(
    session: &HookSession,
    hook_name: &str,
    mut request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
    tool: F,
) -> Result<CallToolResponse, McpError>
where
    F: FnOnce(CallToolRequestParams, RequestContext<RoleServer>) -> Fut,
    Fut: Future<Output = Result<CallToolResponse, McpError>>,
{
    // Each call is a turn of its own: the injection budget is per call, and the ephemeral
    // queue (nobody else drains it in a server) is emptied after it.
    session.start_turn();
    let had_arguments = request.arguments.is_some();
    let input = Value::Object(request.arguments.take().unwrap_or_default());
    let mut gate = session.tool_call_gate(hook_name);
    let (outcome, answer) = match gate.before(input).await {
        BeforeTool::Proceed { input, .. } => {
            // Nobody to read the result (no tool:post handler, no observer): it is not
            // converted at all.
            let registry = session.registry();
            let heard = registry.has_handlers(TOOL_POST) || registry.observer_count() > 0;
            let call = InnerCall {
                request,
                context,
                had_arguments,
                heard,
            };
            let (result, answer) = call.run(tool, input.clone()).await;
            (gate.after(input, result).await, answer)
        }
        BeforeTool::Blocked { blocked, input } => {
            let outcome = ToolCallOutcome {
                status: ToolCallStatus::Blocked(blocked),
                input,
                injections: gate.into_injections(),
                output_rewritten: false,
            };
            (outcome, None)
        }
    };
    drop(session.take_ephemeral());
    answer_of(outcome, answer)
}

/// What the inner server answered, kept aside so that it reaches the client as it was
/// unless a hook changed it.
enum Answer {
    /// A complete result that is not an error, and how the hooks were given it.
    Complete(CallToolResult, Given),
    /// A result marked `isError`, or a protocol error.
    Failed(Result<CallToolResult, McpError>),
    /// An interim answer (input required, a task): the tool has not finished.
    Interim(CallToolResponse),
}

/// How the hooks were given a complete result as `tool_result`.
#[derive(Clone, Copy)]
enum Given {
    /// As the text of its only content block.
    SoleText,
    /// As its MCP JSON.
    Json,
    /// Not at all (as `null`): no hook or observer was there to read it.
    Unheard,
}

/// The inner server's `call_tool` for one request, with what the gate needs to know of it.
struct InnerCall {
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
    had_arguments: bool,
    /// Whether anyone will read the result in `tool:post`.
    heard: bool,
}

impl InnerCall {
    /// Calls the inner server with `input` (as the `tool:pre` hooks left it): what the hooks
    /// are given of its answer, and the answer itself, kept aside (`None` when the server was
    /// not called).
    async fn run<F, Fut>(
        mut self,
        tool: F,
        input: Value,
    ) -> (Result<Value, ToolError>, Option<Answer>)
    where
        F: FnOnce(CallToolRequestParams, RequestContext<RoleServer>) -> Fut,
        Fut: Future<Output = Result<CallToolResponse, McpError>>,
    {
        self.request.arguments = match arguments(input, self.had_arguments) {
            Ok(arguments) => arguments,
            Err(error) => return (Err(error), None),
        };
        let (result, answer) = match tool(self.request, self.context).await {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                let message = error_text(&result.content);
                (Err(ToolError::new(message)), Answer::Failed(Ok(result)))
            }
            Ok(CallToolResponse::Complete(result)) if !self.heard => {
                (Ok(Value::Null), Answer::Complete(result, Given::Unheard))
            }
            Ok(CallToolResponse::Complete(result)) => match sole_text(&result) {
                Some(text) => {
                    let value = Value::from(text);
                    (Ok(value), Answer::Complete(result, Given::SoleText))
                }
                None => match to_json(&result) {
                    Ok(value) => (Ok(value), Answer::Complete(result, Given::Json)),
                    Err(error) => return (Err(error), None),
                },
            },
            Ok(interim) => match to_json(&ServerResult::from(interim.clone())) {
                Ok(value) => (Ok(value), Answer::Interim(interim)),
                Err(error) => return (Err(error), None),
            },
            Err(error) => {
                let message = error.message.to_string();
                (Err(ToolError::new(message)), Answer::Failed(Err(error)))
            }
        };
        (result, Some(answer))
    }
}

/// The MCP arguments for `input`: an object, and absent again when the client sent none and
/// no hook added any.
fn arguments(input: Value, had_arguments: bool) -> Result<Option<Map<String, Value>>, ToolError> {
    match input {
        Value::Object(map) if map.is_empty() && !had_arguments => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        other => Err(ToolError::new(format!(
            "a tool:pre hook left `tool_input` as {}, but MCP tool arguments must be a JSON \
             object; the tool was not called",
            json_kind(&other)
        ))),
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<Value, ToolError> {
    serde_json::to_value(value)
        .map_err(|error| ToolError::new(format!("the tool's result is not valid JSON: {error}")))
}

/// The text of an error result's content, for `tool:error`'s `error` field.
fn error_text(content: &[ContentBlock]) -> String {
    let text: Vec<&str> = content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    if text.is_empty() {
        "the tool reported an error".to_owned()
    } else {
        text.join("\n")
    }
}

/// The MCP answer to the client for what the gate did.
fn answer_of(
    outcome: ToolCallOutcome,
    answer: Option<Answer>,
) -> Result<CallToolResponse, McpError> {
    let result = match (&outcome.status, answer) {
        // No tool:post hook touched it: the server's own result, with nothing to compare.
        (ToolCallStatus::Ran { .. }, Some(Answer::Complete(original, _)))
            if !outcome.output_rewritten =>
        {
            original
        }
        (ToolCallStatus::Ran { output }, Some(Answer::Complete(original, given))) => {
            ran(output, original, given)
        }
        (ToolCallStatus::Ran { .. }, Some(Answer::Interim(interim))) => {
            undeliverable(
                &outcome.injections,
                "the tool's answer was not a final result",
            );
            return Ok(interim);
        }
        // A tool:error hook rewrote the error: the agent reads its text, as in any integration.
        (ToolCallStatus::Errored { error }, Some(Answer::Failed(Ok(mut result))))
            if outcome.output_rewritten =>
        {
            result.content = vec![ContentBlock::text(error.as_str())];
            result
        }
        (ToolCallStatus::Errored { .. }, Some(Answer::Failed(Ok(result)))) => result,
        (ToolCallStatus::Errored { error: text }, Some(Answer::Failed(Err(mut error)))) => {
            if outcome.output_rewritten {
                error.message = text.clone().into();
            }
            undeliverable(&outcome.injections, "the tool answered a protocol error");
            return Err(error);
        }
        // Blocked, withheld, or failed before the inner server was called: the agent reads
        // why, as a tool error.
        _ => CallToolResult::error(vec![ContentBlock::text(outcome.agent_message())]),
    };
    Ok(CallToolResponse::Complete(with_injections(
        result,
        &outcome.injections,
    )))
}

/// The text of a result made of one text block and nothing else of substance, which is what
/// the hooks see as `tool_result` (as from any other tool); `None` for any other result, which
/// they see as its MCP JSON.
fn sole_text(result: &CallToolResult) -> Option<&str> {
    match (result.content.as_slice(), &result.structured_content) {
        ([ContentBlock::Text(block)], None) => Some(&block.text),
        _ => None,
    }
}

/// The complete result to send after `tool:post`: the original unless a hook changed what
/// it was given, otherwise the hooks' version.
fn ran(output: &Value, mut original: CallToolResult, given: Given) -> CallToolResult {
    match (output, given) {
        // The sole text, perhaps rewritten: the block keeps its annotations.
        (Value::String(text), Given::SoleText) => {
            if let [ContentBlock::Text(block)] = original.content.as_mut_slice()
                && block.text != *text
            {
                block.text.clone_from(text);
            }
            return original;
        }
        // Comparing costs much less than parsing the JSON back.
        (output, Given::Json) if is_json_of(output, &original) => return original,
        // Still nothing: nobody read it, nobody changed it. (A handler registered since the
        // tool ran may have put something there; that is read below as any rewrite is.)
        (Value::Null, Given::Unheard) => return original,
        _ => {}
    }
    if let Value::Object(_) = output
        && let Ok(rewritten) = CallToolResult::deserialize(output)
    {
        return rewritten;
    }
    // A hook replaced the result by something that is not an MCP result: its text becomes
    // the content, and the rest of the original stays.
    let text = match output {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    original.content = vec![ContentBlock::text(text)];
    original.structured_content = None;
    original
}

/// Whether `output` still is the MCP JSON of `result`, checked field by field against the
/// result rather than against a kept copy of its JSON (which would cost a deep clone per
/// call). A false "no" only costs parsing the JSON back.
fn is_json_of(output: &Value, result: &CallToolResult) -> bool {
    let Value::Object(fields) = output else {
        return false;
    };
    let same = |key: &str, part: Option<Value>| fields.get(key) == part.as_ref();
    let present = 1
        + usize::from(result.result_type.is_some())
        + usize::from(result.structured_content.is_some())
        + usize::from(result.is_error.is_some())
        + usize::from(result.meta.is_some());
    let Some(Value::Array(blocks)) = fields.get("content") else {
        return false;
    };
    fields.len() == present
        && blocks.len() == result.content.len()
        && blocks
            .iter()
            .zip(&result.content)
            .all(|(json, block)| is_block_json(json, block))
        && fields.get("structuredContent") == result.structured_content.as_ref()
        && same("isError", result.is_error.map(Value::Bool))
        && (result.result_type.is_none()
            || same("resultType", serde_json::to_value(&result.result_type).ok()))
        && (result.meta.is_none() || same("_meta", serde_json::to_value(&result.meta).ok()))
}

/// Whether `json` still is the MCP JSON of `block`: a plain text block is checked in place,
/// any other is serialized to compare.
fn is_block_json(json: &Value, block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Text(text) if text.meta.is_none() && text.annotations.is_none() => {
            json.as_object().is_some_and(|fields| {
                fields.len() == 2
                    && fields.get("type").and_then(Value::as_str) == Some("text")
                    && fields.get("text").and_then(Value::as_str) == Some(text.text.as_str())
            })
        }
        other => serde_json::to_value(other).is_ok_and(|expected| expected == *json),
    }
}

/// `result` with the text of each delivered injection appended to its content, in order.
fn with_injections(mut result: CallToolResult, injections: &[InjectionAudit]) -> CallToolResult {
    result.content.extend(
        injections
            .iter()
            .filter(|audit| audit.disposition.delivered())
            .map(|audit| ContentBlock::text(audit.text.clone())),
    );
    result
}

/// Says (in the log) that delivered injections could not reach the client with this answer.
fn undeliverable(injections: &[InjectionAudit], why: &str) {
    for audit in injections
        .iter()
        .filter(|audit| audit.disposition.delivered())
    {
        tracing::warn!(
            hook = &*audit.hook,
            event = &*audit.event,
            "context injection not delivered to the MCP client: {why}"
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rmcp::model::{MetaObject, TextContent};
    use serde_json::json;

    use super::*;

    fn samples() -> Vec<CallToolResult> {
        let text = CallToolResult::success(vec![ContentBlock::text("hello")]);
        let mut structured = CallToolResult::success(vec![ContentBlock::text("42 items")]);
        structured.structured_content = Some(json!({"count": 42, "items": [1, 2]}));
        let mut mixed = CallToolResult::success(vec![
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::embedded_text("file:///notes.txt", "notes"),
            ContentBlock::text("two attachments"),
        ]);
        mixed.meta = Some(MetaObject(
            json!({"trace": "abc"}).as_object().unwrap().clone(),
        ));
        let mut with_block_meta = TextContent::new("annotated");
        with_block_meta.meta = Some(MetaObject(
            json!({"source": "cache"}).as_object().unwrap().clone(),
        ));
        let mut bare = CallToolResult::success(vec![ContentBlock::Text(with_block_meta)]);
        bare.result_type = None;
        bare.is_error = None;
        let empty = CallToolResult::success(Vec::new());
        vec![text, structured, mixed, bare, empty]
    }

    #[test]
    fn a_result_is_recognised_in_its_own_json_and_in_no_changed_one() {
        for result in samples() {
            let json = serde_json::to_value(&result).unwrap();
            assert!(is_json_of(&json, &result), "{json}");

            let mut changes = Vec::new();
            let mut text = json.clone();
            if let Some(first) = text["content"].get_mut(0) {
                first["text"] = json!("changed");
                changes.push(text);
            }
            let mut dropped = json.clone();
            dropped["content"].as_array_mut().unwrap().clear();
            dropped["content"]
                .as_array_mut()
                .unwrap()
                .push(json!({"type": "text", "text": "only"}));
            changes.push(dropped);
            let mut extra = json.clone();
            extra["extra"] = json!(1);
            changes.push(extra);
            let mut flipped = json.clone();
            flipped["isError"] = json!(true);
            changes.push(flipped);
            let mut structured = json.clone();
            structured["structuredContent"] = json!({"count": 7});
            changes.push(structured);
            let mut meta = json.clone();
            meta["_meta"] = json!({"trace": "other"});
            changes.push(meta);
            changes.push(json!("hello"));
            for changed in changes {
                assert!(!is_json_of(&changed, &result), "{changed} taken for {json}");
            }
        }
    }
}
