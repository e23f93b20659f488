use hooks_core::decision::ToolPreDecision;
use hooks_core::hook;
use hooks_core::view::ToolPre;

#[hook(event = "tool:post")]
async fn disagreeing(_call: ToolPre<'_>) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

#[hook(event = "PostToolUse")]
async fn disagreeing_alias(_call: ToolPre<'_>) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

#[hook(events = ["tool:pre", "tool:post"])]
async fn several_events(_call: ToolPre<'_>) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

fn main() {}
