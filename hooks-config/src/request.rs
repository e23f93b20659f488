//! The request an external hook receives: the JSON a command hook reads on stdin, a persistent
//! hook reads as a line, and an HTTP hook receives as its body.

use std::path::Path;

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use serde_json::{Map, Value};

use crate::Entry;
use crate::interop::claude::CLAUDE;

/// The field of a request that a persistent hook may echo in its answer.
pub const REQUEST_ID_FIELD: &str = "request_id";

/// The proposal's fields, and the event data with Claude Code's names and event name, so that
/// its scripts run unchanged.
///
/// A field the event does not carry is left out rather than sent as `null`: Claude Code's
/// scripts read `data.get('tool_input', {})`, which gives `None` for a `null` and crashes a
/// Stop rule. The event's own `cwd` is kept (Claude Code's session directory may be a package
/// below the project); only an event without one gets the project directory.
pub(crate) fn request(entry: &Entry, project_dir: &Path, data: &Value) -> Map<String, Value> {
    let mut input = CLAUDE.script_input(&entry.event, data);
    if !input.contains_key("hook_event_name") {
        // An event Claude Code does not have: our alias, or the name as written.
        let name = hooks_core::events::aliases_of(&entry.event)
            .next()
            .unwrap_or(&entry.event_as_written);
        input.insert("hook_event_name".to_owned(), Value::from(name));
    }
    input.insert(
        "event".to_owned(),
        Value::from(entry.event_as_written.as_str()),
    );
    input.insert(
        "canonical_event".to_owned(),
        Value::from(entry.event.as_str()),
    );
    input.insert("data".to_owned(), data.clone());
    // The proposal's short names for the tool call, where there is one.
    for (short, field) in [("tool", TOOL_NAME), ("args", TOOL_INPUT)] {
        if let Some(value) = data.get(field) {
            input.insert(short.to_owned(), value.clone());
        }
    }
    if !input.contains_key("cwd") {
        input.insert(
            "cwd".to_owned(),
            Value::from(project_dir.to_string_lossy().as_ref()),
        );
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnswerProtocol, CommandHook, HookKind, OnFailure, Rewrite};
    use serde_json::json;
    use std::time::Duration;

    fn entry(event: &str) -> Entry {
        Entry {
            event: event.to_owned(),
            event_as_written: event.to_owned(),
            name: "test".to_owned(),
            priority: 0,
            line: 1,
            matcher: None,
            timeout: Duration::from_secs(1),
            on_failure: OnFailure::Block,
            rewrite: Rewrite::Confirm,
            hook: HookKind::Command(CommandHook {
                command: "true".to_owned(),
                protocol: AnswerProtocol::Hooks,
                fire_and_forget: false,
                persistent: false,
            }),
        }
    }

    #[test]
    fn fields_the_event_lacks_are_absent_not_null() {
        let data = json!({"session_id": "s1", "timestamp": "t"});
        let input = request(&entry("prompt:complete"), Path::new("/p"), &data);
        for absent in ["tool", "args", "tool_name", "tool_input"] {
            assert!(!input.contains_key(absent), "{absent} in {input:?}");
        }
        assert_eq!(input["hook_event_name"], "Stop");
        assert_eq!(input["session_id"], "s1");
    }

    #[test]
    fn a_tool_call_carries_both_names() {
        let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        let input = request(&entry("tool:pre"), Path::new("/p"), &data);
        assert_eq!(input["tool"], "Bash");
        assert_eq!(input["args"]["command"], "ls");
        assert_eq!(input["tool_name"], "Bash");
    }

    #[test]
    fn the_event_cwd_is_kept_and_the_project_fills_in() {
        let data = json!({"cwd": "/p/packages/web"});
        let input = request(&entry("tool:pre"), Path::new("/p"), &data);
        assert_eq!(input["cwd"], "/p/packages/web");
        let input = request(&entry("tool:pre"), Path::new("/p"), &json!({}));
        assert_eq!(input["cwd"], "/p");
    }
}
