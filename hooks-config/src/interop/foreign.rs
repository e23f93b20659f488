//! Other agents that run the hooks of Claude Code's settings files (`.claude/settings*.json`)
//! with their own payloads and tool names: a project set up with `hooks init claude` and opened
//! in one of them stays guarded. `hooks claude` tells such a caller by the shape of its payload
//! ([`ForeignCaller::of`]) and reads its input as that agent's; its tools get their canonical
//! names, so the same rules apply.
//!
//! - **Cursor** (its payload has `cursor_version`, or `conversation_id` with
//!   `generation_id`): it may name its own events (`preToolUse`, `beforeShellExecution`), read
//!   as [`Cursor`] reads them; its shell is `Shell`. How it reads a
//!   Claude Code hook's JSON answer is second-hand knowledge, and it does not enforce a
//!   question, so the answer is the one form both agents read as a block: exit 2 with the
//!   reason on stderr. A question or a rewrite is such a block, saying what would have been
//!   asked or run; anything else is no output (its messages on stderr).
//! - **The VS Code agent** (its payload has `hookEventName` and no `hook_event_name`):
//!   Claude Code's events and answers, camelCase `hookEventName` and `sessionId`, and VS Code's
//!   tool names (`runInTerminal`, `editFiles`, `readFile`, `createFile`). It is answered in
//!   Claude Code's protocol, which it documents as its own.

use hooks_core::EmitResult;
use hooks_core::HookAction;
use hooks_core::events::fields::TOOL_INPUT;
use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::reasons::{context_of, messages_of, modifiers, question_of, reason_of, would_run};
use super::tools::{ToolName, make_canonical, named};
use super::{Agent, AgentAnswer, InputError, MappedEvent};

/// The field of the event data that names a foreign caller of `hooks claude`.
pub const FOREIGN_CALLER: &str = "foreign_caller";

/// An agent other than Claude Code running the hooks of Claude Code's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForeignCaller {
    /// Cursor (and `cursor-agent`).
    Cursor,
    /// The VS Code agent (GitHub Copilot Chat).
    VsCode,
}

/// Cursor's and the VS Code agent's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("Shell", "Bash"),
    named("runInTerminal", "Bash"),
    named("run_in_terminal", "Bash"),
    ToolName {
        theirs: "readFile",
        canonical: "Read",
        fields: &[("filePath", "file_path")],
    },
    ToolName {
        theirs: "createFile",
        canonical: "Write",
        fields: &[("filePath", "file_path")],
    },
    named("editFiles", "Edit"),
];

impl ForeignCaller {
    /// The foreign caller whose payload `fields` is, if it is one.
    pub fn of(fields: &Map<String, Value>) -> Option<Self> {
        let has = |name: &str| fields.contains_key(name);
        if has("cursor_version") || (has("conversation_id") && has("generation_id")) {
            Some(ForeignCaller::Cursor)
        } else if has("hookEventName") && !has("hook_event_name") {
            Some(ForeignCaller::VsCode)
        } else {
            None
        }
    }

    /// Its name, as the event data records it.
    pub fn name(self) -> &'static str {
        match self {
            ForeignCaller::Cursor => "cursor",
            ForeignCaller::VsCode => "vscode",
        }
    }

    /// The caller that `data` (an event mapped by [`ForeignCaller::event_in`]) came from.
    pub fn recorded_in(data: &Value) -> Option<Self> {
        match data.get(FOREIGN_CALLER).and_then(Value::as_str) {
            Some("cursor") => Some(ForeignCaller::Cursor),
            Some("vscode") => Some(ForeignCaller::VsCode),
            _ => None,
        }
    }

    /// Its payload `fields` as our event: its events read as it names them, where they are not
    /// Claude Code's; its tools made canonical; itself recorded in [`FOREIGN_CALLER`].
    pub fn event_in(
        self,
        mut fields: Map<String, Value>,
        claude: impl Fn(&str) -> Result<MappedEvent, InputError>,
        is_claude_event: impl Fn(&str) -> bool,
    ) -> Result<MappedEvent, InputError> {
        for (camel, snake) in [
            ("hookEventName", "hook_event_name"),
            ("sessionId", "session_id"),
        ] {
            if let Some(value) = fields.get(camel).cloned() {
                fields.entry(snake).or_insert(value);
            }
        }
        let text = Value::Object(fields.clone()).to_string();
        let event = fields.get("hook_event_name").and_then(Value::as_str);
        let mut mapped = match (self, event) {
            (ForeignCaller::Cursor, Some(event)) if !is_claude_event(event) => {
                Cursor.event_in(&text)?
            }
            _ => claude(&text)?,
        };
        if let Value::Object(data) = &mut mapped.data {
            make_canonical(TOOLS, data);
            data.insert(FOREIGN_CALLER.to_owned(), Value::from(self.name()));
        }
        Ok(mapped)
    }
}

/// The answer to Cursor running `hooks claude`: exit 2 with the reason for anything that must
/// not go ahead (a deny, a question, a rewrite), else nothing (see the [module docs](self)).
pub fn cursor_answer(input: &Value, outcome: &EmitResult) -> AgentAnswer {
    let result = &outcome.result;
    let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
    let rewritten = outcome.is_modified() && new_input.is_some_and(|new| *new != input[TOOL_INPUT]);
    let block = match result.action {
        HookAction::Deny => Some(reason_of(outcome)),
        HookAction::AskUser => Some(format!(
            "a hook asks for approval, which Cursor does not enforce from a Claude Code hook: {}",
            question_of(outcome)
        )),
        _ if rewritten => Some(format!(
            "a hook rewrites this call ({}) to run `{}` instead, which Cursor cannot apply from \
             a Claude Code hook; blocked rather than run unchanged",
            modifiers(outcome),
            new_input.map(would_run).unwrap_or_default()
        )),
        _ => None,
    };
    let mut notes: Vec<String> = block.into_iter().collect();
    let blocks = !notes.is_empty();
    notes.extend(messages_of(outcome));
    notes.extend(context_of(outcome));
    AgentAnswer {
        stdout: String::new(),
        stderr: notes.join("\n"),
        exit_code: if blocks { 2 } else { 0 },
    }
}
