//! Factory Droid ([`FactoryDroid`]): Claude Code's hook protocol (event names, exit codes,
//! answers) with its own tool names, in `.factory/settings.json` (project and home directory);
//! commands name the project `"$FACTORY_PROJECT_DIR"`.
//!
//! Factory's hooks reference gives Claude Code's answers, so [`FactoryDroid`] answers as
//! [`ClaudeCode`](super::claude::ClaudeCode) does and reads answers by Claude Code's rules. Where it differs:
//!
//! - **Tools**: `Execute` is `Bash`, `Create` is `Write`, `ApplyPatch` is `apply_patch`;
//!   `Read` and `Edit` keep their names (see [`tools`]).
//! - **Edit and patch fields**: Factory's hooks reference names the tools but not their input
//!   fields, so the safe reading is taken. A patch tool's text is read from `input`, `patch` or
//!   `command`, path by path (a patch tool with none of them is refused by the path rules). A
//!   tool whose name says it writes (`Create`, `Edit`, and any other name with `edit`, `write`,
//!   `create` or `patch` in it, such as a `MultiEdit`) has its path read from `file_path`, else
//!   from `path` or any field whose name ends in `path` or `file` (`filePath`, `target_file`),
//!   copied to `file_path`; a write tool naming no file at all is blocked, since the rules
//!   cannot tell what it changes.
//! - **Input casing**: sources disagree on whether Droid sends `session_id` or `sessionId`
//!   (and `hook_event_name` or `hookEventName`); both are read, the snake_case name kept.
//! - **Settings file**: Droid reads `.factory/hooks.json` too, but `droid exec` (0.186) was
//!   reported to run only the hooks of `settings.json`; `hooks init droid` writes those, which
//!   both read (the safe reading).

use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST,
    TOOL_PRE, USER_NOTIFICATION,
};
use serde_json::Value;

use super::claude::ClaudeDialect;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};

use super::tools::{self, AGENT_TOOL_NAME, ToolName, named};
use super::{
    Agent, Capabilities, HookSettings, Importer, InputError, Layout, MappedEvent, Profile,
    ProjectDir, Protocol, RewriteSupport,
};
use crate::settings::{import_hooks, one_error};

/// Factory Droid.
#[derive(Debug, Clone, Copy)]
pub struct FactoryDroid;

/// Factory Droid's hook protocol: Claude Code's event names and fields.
pub const DROID: Protocol = Protocol {
    agent: "droid",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("SubagentStop", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("tool_use_id", "tool_call_id"),
    ],
};

/// Droid's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("Execute", "Bash"),
    named("Create", "Write"),
    named("Read", "Read"),
    named("Edit", "Edit"),
    named("ApplyPatch", "apply_patch"),
];

/// The camelCase names some Droid versions are reported to send, and the snake_case ones.
const CAMEL_FIELDS: &[(&str, &str)] = &[
    ("hookEventName", "hook_event_name"),
    ("sessionId", "session_id"),
    ("toolName", "tool_name"),
    ("toolInput", "tool_input"),
    ("toolResponse", "tool_response"),
    ("transcriptPath", "transcript_path"),
    ("permissionMode", "permission_mode"),
];

/// The events whose `additionalContext` reaches Droid's model.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
];

/// What Droid takes from a hook: Claude Code's answers.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &["PreToolUse"],
    rewrite: RewriteSupport::ConfirmedOrApplied,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// It speaks Claude Code's protocol; its reasons name it.
static DIALECT: ClaudeDialect = ClaudeDialect {
    headless: "`droid exec`",
    foreign_callers: false,
};

/// Droid's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".factory/settings.json",
    user: ".factory/settings.json",
    project_dir: ProjectDir::Var("FACTORY_PROJECT_DIR"),
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// What Factory Droid is, as data.
static PROFILE: Profile = Profile::new(&DROID, "Factory Droid", &DIALECT, &CAPABILITIES, &SETTINGS)
    .tools(TOOLS)
    // Its hooks file and folder beside its settings.
    .also_guards(&[".factory/hooks.json", ".factory/hooks/**"]);

impl Agent for FactoryDroid {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Claude Code's stdin in either casing, its tools made canonical, a write tool's path
    /// found (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut mapped = tools::event_in(&DROID, CAMEL_FIELDS, TOOLS, input)?;
        if let Value::Object(data) = &mut mapped.data {
            written_path(data)?;
        }
        Ok(mapped)
    }

    fn importer(&self) -> Option<Importer> {
        Some(import_file)
    }
}

/// Whether Droid's tool `name` may change files, by its name.
fn writes(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["edit", "write", "create", "patch"]
        .iter()
        .any(|verb| name.contains(verb))
}

/// Makes a write tool's file the `file_path` the path rules read (see the [module docs](self)):
/// an unknown patch tool becomes `apply_patch`; a write tool naming no file is an error.
fn written_path(data: &mut serde_json::Map<String, Value>) -> Result<(), InputError> {
    let Some(name) = data
        .get(TOOL_NAME)
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Ok(());
    };
    if name == "apply_patch" || !writes(&name) {
        return Ok(());
    }
    if name.to_ascii_lowercase().contains("patch") {
        data.insert(AGENT_TOOL_NAME.to_owned(), Value::from(name));
        data.insert(TOOL_NAME.to_owned(), Value::from("apply_patch"));
        return Ok(());
    }
    let unchecked = |why: &str| InputError::Unchecked {
        tool: name.clone(),
        why: why.to_owned(),
    };
    let Some(Value::Object(input)) = data.get_mut(TOOL_INPUT) else {
        return Err(unchecked("it has no input naming a file"));
    };
    if input.get("file_path").is_some_and(Value::is_string) {
        return Ok(());
    }
    let found = input
        .iter()
        .find(|(key, value)| {
            let key = key.to_ascii_lowercase();
            value.is_string() && (key == "path" || key.ends_with("path") || key.ends_with("file"))
        })
        .map(|(_, value)| value.clone());
    match found {
        Some(path) => {
            input.insert("file_path".to_owned(), path);
            Ok(())
        }
        None => Err(unchecked(
            "it may change a file, and its input names none for the path rules to check",
        )),
    }
}

/// `hooks import droid`: the `hooks` of a `.factory/settings.json` or `hooks.json`.
fn import_file(path: &std::path::Path) -> Result<crate::settings::Imported, crate::ConfigErrors> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| one_error(path, 1, 1, format!("cannot read the file: {error}")))?;
    import_hooks(&DROID, &text, path)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn mapped(tool: &str, input: Value) -> Result<MappedEvent, InputError> {
        let event =
            json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input});
        FactoryDroid.event_in(&event.to_string())
    }

    #[test]
    fn a_write_tools_path_is_found_under_another_name() {
        let edit = mapped("MultiEdit", json!({"filePath": "/etc/passwd", "edits": []})).unwrap();
        assert_eq!(edit.data["tool_input"]["file_path"], "/etc/passwd");
        let create = mapped("Create", json!({"file_path": "a.txt", "content": ""})).unwrap();
        assert_eq!(create.data["tool_name"], "Write");
        assert_eq!(create.data["tool_input"]["file_path"], "a.txt");
    }

    #[test]
    fn a_write_tool_naming_no_file_cannot_be_checked() {
        let error = mapped("Edit", json!({"old_str": "a", "new_str": "b"})).unwrap_err();
        assert!(matches!(error, InputError::Unchecked { .. }), "{error}");
        // Reading and shell tools need no path.
        assert!(mapped("Execute", json!({"command": "ls"})).is_ok());
        assert!(mapped("Grep", json!({"pattern": "x"})).is_ok());
    }

    #[test]
    fn a_patch_tool_is_read_as_a_patch() {
        let patch = "*** Begin Patch\n*** Add File: ../x\n+y\n*** End Patch\n";
        let known = mapped("ApplyPatch", json!({"input": patch})).unwrap();
        assert_eq!(known.data["tool_name"], "apply_patch");
        let other = mapped("PatchFiles", json!({"patch": patch})).unwrap();
        assert_eq!(other.data["tool_name"], "apply_patch");
        assert_eq!(other.data["agent_tool_name"], "PatchFiles");
    }
}
