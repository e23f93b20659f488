use hooks_core::decision::{ToolPostDecision, ToolPreDecision};
use hooks_core::view::{PromptSubmit, ToolPost, ToolPre};
use hooks_core::{HookResult, hook};

// The event is inferred from the view.
#[hook(priority = 10)]
async fn inferred(call: ToolPre<'_>) -> ToolPreDecision {
    if call.tool_name() == "bash" {
        ToolPreDecision::deny("no shell")
    } else {
        ToolPreDecision::proceed()
    }
}

// An alias of the view's event agrees with it.
#[hook(event = "PostToolUse", name = "agreeing_alias")]
async fn agreeing_alias(call: ToolPost<'_>) -> ToolPostDecision {
    ToolPostDecision::inject(format!("{} ran", call.tool_name()))
}

// So does the canonical name.
#[hook(event = "tool:pre")]
async fn agreeing_canonical(_call: ToolPre<'_>) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

// Any answer the kernel accepts: a HookResult, or a Result of a decision.
#[hook]
async fn plain_result(prompt: PromptSubmit<'_>) -> HookResult {
    HookResult::inject(prompt.prompt().to_owned())
}

#[hook(timeout_ms = 100)]
async fn fallible(call: ToolPost<'_>) -> Result<ToolPostDecision, String> {
    call.tool_result().as_str().ok_or("not text")?;
    Ok(ToolPostDecision::proceed())
}

fn main() {
    let _ = (inferred, agreeing_alias, agreeing_canonical, plain_result, fallible);
}
