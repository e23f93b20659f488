use hooks_core::decision::ToolPreDecision;
use hooks_core::hook;
use hooks_core::view::ToolPre;

#[hook]
async fn view_and_more(_call: ToolPre<'_>, _extra: u8) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

#[hook(event = "tool:pre")]
async fn event_and_view(_event: &str, _call: ToolPre<'_>) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

#[hook]
async fn no_answer(_call: ToolPre<'_>) {}

#[hook]
async fn not_a_view(_call: String) -> ToolPreDecision {
    ToolPreDecision::proceed()
}

fn main() {}
