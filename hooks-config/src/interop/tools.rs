//! Canonical tool names: each agent's shell, file-read, file-write, edit and patch tools under
//! one name, so that a rule written once (`tool: Bash`, `tool: Write`) and the safety module's
//! command and path rules apply to every agent's tools alike.
//!
//! The canonical names are Claude Code's: `Bash` (the command line in `tool_input.command`),
//! `Read`, `Write`, `Edit` (the file in `tool_input.file_path` or `tool_input.path`), and
//! `apply_patch` (the patch text in `tool_input.command`, as Codex CLI sends it). An agent's
//! own name is kept beside it as `agent_tool_name`, and its own input fields stay: a field is
//! only ever added under its canonical name, never renamed away.

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use serde_json::{Map, Value};

use super::{InputError, MappedEvent, Protocol};

/// The field that keeps the agent's own name of a tool whose name was made canonical.
pub const AGENT_TOOL_NAME: &str = "agent_tool_name";

/// One agent tool and its canonical name, with the input fields that hold what the rules
/// read under another name: (the agent's field, the canonical field).
#[derive(Debug)]
pub struct ToolName {
    /// The agent's name of the tool.
    pub theirs: &'static str,
    /// The canonical name: `Bash`, `Read`, `Write`, `Edit`, `apply_patch`.
    pub canonical: &'static str,
    /// The input fields copied under their canonical name.
    pub fields: &'static [(&'static str, &'static str)],
}

/// Gemini CLI's tool ids, which Qwen Code keeps: `run_shell_command` is `Bash`, `read_file`
/// `Read` (its `absolute_path` also the `file_path`), `write_file` `Write`, `replace` and
/// `edit` `Edit`.
pub const GEMINI_TOOLS: &[ToolName] = &[
    named("run_shell_command", "Bash"),
    ToolName {
        theirs: "read_file",
        canonical: "Read",
        fields: &[("absolute_path", "file_path")],
    },
    named("write_file", "Write"),
    named("replace", "Edit"),
    named("edit", "Edit"),
];

/// Cursor's tools as its `preToolUse` names them, and the tools its `beforeShellExecution`,
/// `beforeReadFile` and `afterFileEdit` events become: `Shell` is `Bash`, `Read` `Read`,
/// `Write` `Write`, `Edit` and `StrReplace` `Edit` (their `path` or `target_file` also the
/// `file_path`), and `Delete` `Write`, so that the path rules keep it off the files they
/// protect.
pub const CURSOR_TOOLS: &[ToolName] = &[
    named("Shell", "Bash"),
    ToolName {
        theirs: "Read",
        canonical: "Read",
        fields: &[("path", "file_path"), ("target_file", "file_path")],
    },
    ToolName {
        theirs: "Write",
        canonical: "Write",
        fields: &[("path", "file_path"), ("target_file", "file_path")],
    },
    ToolName {
        theirs: "Edit",
        canonical: "Edit",
        fields: &[("path", "file_path"), ("target_file", "file_path")],
    },
    ToolName {
        theirs: "StrReplace",
        canonical: "Edit",
        fields: &[("path", "file_path"), ("target_file", "file_path")],
    },
    ToolName {
        theirs: "Delete",
        canonical: "Write",
        fields: &[("path", "file_path"), ("target_file", "file_path")],
    },
];

/// A tool whose input needs no field copied.
pub const fn named(theirs: &'static str, canonical: &'static str) -> ToolName {
    ToolName {
        theirs,
        canonical,
        fields: &[],
    }
}

/// Makes the tool of the event `data` canonical by `table`: its name becomes the canonical one
/// (its own kept as [`AGENT_TOOL_NAME`]), its input gains the canonical fields. A tool not in
/// the table is left as it is.
pub fn make_canonical(table: &[ToolName], data: &mut Map<String, Value>) {
    let Some(name) = data.get(TOOL_NAME).and_then(Value::as_str) else {
        return;
    };
    let Some(tool) = table.iter().find(|tool| tool.theirs == name) else {
        return;
    };
    data.insert(AGENT_TOOL_NAME.to_owned(), Value::from(tool.theirs));
    data.insert(TOOL_NAME.to_owned(), Value::from(tool.canonical));
    if let Some(Value::Object(input)) = data.get_mut(TOOL_INPUT) {
        for (theirs, ours) in tool.fields {
            if let Some(value) = input.get(*theirs).cloned() {
                input.entry(*ours).or_insert(value);
            }
        }
    }
}

/// `input` as `protocol`'s event, each field of `aliases` (the agent's name, Claude Code's)
/// also under Claude Code's name (`event` as `hook_event_name`), its tools made canonical by
/// `tools`.
pub(crate) fn event_in(
    protocol: &Protocol,
    aliases: &[(&str, &str)],
    tools: &[ToolName],
    input: &str,
) -> Result<MappedEvent, InputError> {
    let text = match serde_json::from_str::<Value>(input) {
        Ok(Value::Object(mut fields)) => {
            for (theirs, claudes) in aliases {
                if let Some(value) = fields.get(*theirs).cloned() {
                    fields.entry(*claudes).or_insert(value);
                }
            }
            Value::Object(fields).to_string()
        }
        // Not an object: the protocol says why.
        _ => input.to_owned(),
    };
    canonical_event(protocol, tools, &text)
}

/// `text` read as `protocol`'s event, its tools made canonical by `tools`: the last step of
/// every adapter whose agent names its tools its own way.
pub(crate) fn canonical_event(
    protocol: &Protocol,
    tools: &[ToolName],
    text: &str,
) -> Result<MappedEvent, InputError> {
    let mut mapped = protocol.event_in(text)?;
    if let Value::Object(data) = &mut mapped.data {
        make_canonical(tools, data);
    }
    Ok(mapped)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_known_tool_is_renamed_and_keeps_its_own_name_and_fields() {
        const TABLE: &[ToolName] = &[ToolName {
            theirs: "view",
            canonical: "Read",
            fields: &[("absolute_path", "file_path")],
        }];
        let mut data = json!({"tool_name": "view", "tool_input": {"absolute_path": "/etc/shadow"}});
        make_canonical(TABLE, data.as_object_mut().unwrap());
        assert_eq!(data["tool_name"], "Read");
        assert_eq!(data[AGENT_TOOL_NAME], "view");
        assert_eq!(data["tool_input"]["file_path"], "/etc/shadow");
        assert_eq!(data["tool_input"]["absolute_path"], "/etc/shadow");

        let mut other = json!({"tool_name": "grep", "tool_input": {}});
        make_canonical(TABLE, other.as_object_mut().unwrap());
        assert_eq!(other, json!({"tool_name": "grep", "tool_input": {}}));
    }
}
