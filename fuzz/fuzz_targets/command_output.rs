//! The answer parsers of the external runners: a command or HTTP hook's output (nothing, the
//! proposal's answer, Claude Code's JSON, a `HookResult`, plain text), read by our protocol and
//! by Claude Code's, and an LLM hook's model answer. Any text is an answer or an error, never a panic, and an answer is always one the
//! kernel can apply (a `modify` carries data, an `inject_context` its text).

#![no_main]

use hooks_core::HookAction;
use hooks_config::{AnswerProtocol, decision};
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
    let ours = AnswerProtocol::Hooks.read(&text, event, &data);
    let claude = AnswerProtocol::ClaudeCode.read(&text, event, &data);
    // Ours accepts no more than Claude Code's: plain text is an answer there, a failure here.
    assert!(ours.is_err() || claude.is_ok(), "ours accepted what Claude Code's refused: {text:?}");
    for result in [ours, claude, decision(&text)]
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
