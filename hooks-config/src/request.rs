//! The request an external hook receives: the JSON a command hook reads on stdin, a persistent
//! hook reads as a line, and an HTTP hook receives as its body.

use std::path::Path;

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use serde_json::{Map, Value, json};

use crate::Entry;
use crate::agent_protocol::CLAUDE;

/// The field of a request that a persistent hook may echo in its answer.
pub const REQUEST_ID_FIELD: &str = "request_id";

/// The proposal's fields, and the event data with Claude Code's names and event name, so that
/// its scripts run unchanged.
pub(crate) fn request(entry: &Entry, project_dir: &Path, data: &Value) -> Map<String, Value> {
    let mut input = CLAUDE.script_input(&entry.event, data);
    if !input.contains_key("hook_event_name") {
        // An event Claude Code does not have: our alias, or the name as written.
        let name = hooks_core::events::aliases_of(&entry.event)
            .next()
            .unwrap_or(&entry.event_as_written);
        input.insert("hook_event_name".to_owned(), json!(name));
    }
    let ours = json!({
        "event": entry.event_as_written,
        "canonical_event": entry.event,
        "tool": data.get(TOOL_NAME),
        "args": data.get(TOOL_INPUT),
        "data": data,
        "session_id": data.get("session_id"),
        "timestamp": data.get("timestamp"),
        TOOL_NAME: data.get(TOOL_NAME),
        TOOL_INPUT: data.get(TOOL_INPUT),
        "cwd": project_dir,
    });
    if let Value::Object(ours) = ours {
        input.extend(ours);
    }
    input
}
