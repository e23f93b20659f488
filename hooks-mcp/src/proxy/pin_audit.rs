//! The audit trail of the pins: a call the pins hold back never reaches the server nor the
//! tool-call gate, so it is emitted as an event of its own, [`HELD_BACK_EVENT`], which the
//! logging module (it observes every event) records like any other.

use hooks_core::events::fields::{REASON, TOOL_INPUT, TOOL_NAME};
use hooks_core::session::HookSession;
use rmcp::model::JsonObject;
use serde_json::{Map, Value};

use crate::server::SERVER_FIELD;

/// The event of a `tools/call` refused because the pins hold the tool back. Its data: the
/// tool (`tool_name`, `mcp__<server>__<tool>`), the call's arguments (`tool_input`), why the
/// tool is held back (`reason`: a changed description, a new tool, ...), and `mcp_server`.
/// Hooks may observe it; what they answer changes nothing (the call is refused all the same).
pub const HELD_BACK_EVENT: &str = "mcp:held_back";

/// Emits [`HELD_BACK_EVENT`] for a call of `tool` of `server` with `arguments`, held back for
/// `why`.
pub(crate) async fn record_held_back(
    session: &HookSession,
    server: &str,
    tool: &str,
    arguments: Option<&JsonObject>,
    why: &str,
) {
    let mut data = Map::new();
    data.insert(TOOL_NAME.to_owned(), Value::from(tool));
    data.insert(
        TOOL_INPUT.to_owned(),
        Value::Object(arguments.cloned().unwrap_or_default()),
    );
    data.insert(REASON.to_owned(), Value::from(why));
    data.insert(SERVER_FIELD.to_owned(), Value::from(server));
    let _ = session.emit(HELD_BACK_EVENT, Value::Object(data)).await;
}
