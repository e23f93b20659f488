//! The answer parsers of the external runners: a command or HTTP hook's output (nothing, the
//! proposal's answer, Claude Code's JSON, a `HookResult`, plain text) and an LLM hook's model
//! answer. Any text is an answer or an error, never a panic, and an answer is always one the
//! kernel can apply (a `modify` carries data, an `inject_context` its text).

#![no_main]

use hooks_core::HookAction;
use hooks_config::{decision, parse_output};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const EVENTS: [&str; 4] = ["tool:pre", "tool:post", "prompt:submit", "session:start"];

fuzz_target!(|bytes: &[u8]| {
    let Some((&selector, rest)) = bytes.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let event = EVENTS[usize::from(selector) % EVENTS.len()];
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "prompt": "hi"});
    for result in [parse_output(&text, event, &data), decision(&text)]
        .into_iter()
        .flatten()
    {
        // Anything the kernel could only skip must have been a failure of the hook here, so
        // that its on_failure decides.
        assert!(
            result.action != HookAction::Modify || result.data.is_some(),
            "modify without data from {text:?}"
        );
        assert!(
            result.action != HookAction::InjectContext || result.context_injection.is_some(),
            "inject_context without text from {text:?}"
        );
    }
});
