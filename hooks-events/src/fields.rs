//! The names of the data fields events carry, and the canonical field set of each event group.
//!
//! Emitters and handlers read and write event data by these constants rather than by string
//! literals, so that one spelling is used everywhere (the tool call's id is [`TOOL_CALL_ID`],
//! whoever emits the event). The [`GROUPS`] say which event carries which field and which of
//! them an emitter must always set; [`data_fields`](crate::data_fields) and the typed views of
//! `hooks-core` are derived from them.

use crate::{
    APPROVAL_DENIED, APPROVAL_GRANTED, APPROVAL_REQUIRED, CONTEXT_COMPACTION, CONTEXT_POST_COMPACT,
    CONTEXT_PRE_COMPACT, ERROR_RAISED, LLM_REQUEST, LLM_REQUEST_DEBUG, LLM_RESPONSE,
    LLM_RESPONSE_DEBUG, PROMPT_COMPLETE, PROMPT_SUBMIT, PROVIDER_ERROR, PROVIDER_REQUEST,
    PROVIDER_RESPONSE, PROVIDER_RETRY, PROVIDER_THROTTLE, SESSION_END, SESSION_FORK,
    SESSION_RESUME, SESSION_START, TOOL_ERROR, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};

/// The tool's name (tool events), a string.
pub const TOOL_NAME: &str = "tool_name";
/// The tool's input as the model gave it (tool events), usually an object.
pub const TOOL_INPUT: &str = "tool_input";
/// The id of the model's tool call, linking `tool:pre` to its `tool:post` or `tool:error`.
pub const TOOL_CALL_ID: &str = "tool_call_id";
/// What the tool returned (`tool:post`).
pub const TOOL_RESULT: &str = "tool_result";
/// What went wrong (`tool:error`, provider errors, `error:raised`), usually a string.
pub const ERROR: &str = "error";
/// The user's prompt (prompt events, approval events: the question asked), a string.
pub const PROMPT: &str = "prompt";
/// The model's or the agent's answer (`prompt:complete`, provider and llm responses).
pub const RESPONSE: &str = "response";
/// The request sent to the model provider (provider and llm requests).
pub const REQUEST: &str = "request";
/// The provider call's attempt number (`provider:retry`).
pub const ATTEMPT: &str = "attempt";
/// The session's id: session events, and every event whose emitter sets it as a default.
pub const SESSION_ID: &str = "session_id";
/// The id of the session a fork was made from (`session:fork`).
pub const PARENT_ID: &str = "parent_id";
/// Why a session started (`startup`, `resume`, ...), for `session:start`.
pub const SOURCE: &str = "source";
/// Why a session ended, for `session:end`.
pub const REASON: &str = "reason";
/// What started a compaction (`auto` or `manual`).
pub const TRIGGER: &str = "trigger";
/// The context's size in tokens before a compaction.
pub const TOKENS_BEFORE: &str = "tokens_before";
/// The context's size in tokens after a compaction.
pub const TOKENS_AFTER: &str = "tokens_after";
/// The answers offered in an approval request.
pub const OPTIONS: &str = "options";
/// How long an approval request waits for the user, in seconds.
pub const TIMEOUT_SECS: &str = "timeout_secs";
/// What an approval request resolves to on timeout or error (`allow` or `deny`).
pub const DEFAULT: &str = "default";
/// The hook that asked for an approval.
pub const HOOK: &str = "hook";
/// The event during which a hook asked for an approval.
pub const EVENT: &str = "event";
/// The answer an approval resolved to.
pub const CHOICE: &str = "choice";
/// Who decided an approval (the user, the default, a remembered answer).
pub const DECIDED_BY: &str = "decided_by";
/// A notification's text (`user:notification`).
pub const MESSAGE: &str = "message";
/// A notification's level (`user:notification`).
pub const LEVEL: &str = "level";
/// The directory the agent runs the event in (an absolute path), where the agent reports it:
/// Claude Code's, Gemini CLI's and Cursor's `cwd`, which follows the `cd`s of the agent's shell.
pub const CWD: &str = "cwd";
/// The time of the emit (RFC 3339); every event carries it unless the emitter set one.
pub const TIMESTAMP: &str = "timestamp";

/// The fields one event carries: the required ones first, then the optional ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventFields {
    event: &'static str,
    fields: &'static [&'static str],
    required: usize,
}

impl EventFields {
    const fn new(event: &'static str, required: usize, fields: &'static [&'static str]) -> Self {
        EventFields {
            event,
            fields,
            required,
        }
    }

    /// The canonical event name.
    pub const fn event(&self) -> &'static str {
        self.event
    }

    /// Every field, required ones first.
    pub const fn fields(&self) -> &'static [&'static str] {
        self.fields
    }

    /// The fields an emitter always sets (a typed view refuses data without them).
    pub fn required(&self) -> &'static [&'static str] {
        &self.fields[..self.required]
    }

    /// The fields an emitter sets when it knows them.
    pub fn optional(&self) -> &'static [&'static str] {
        &self.fields[self.required..]
    }

    /// Whether `field` is one an emitter always sets.
    pub fn is_required(&self, field: &str) -> bool {
        self.required().contains(&field)
    }
}

/// A family of events sharing one canonical set of data fields, such as the tool events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldGroup {
    name: &'static str,
    fields: &'static [&'static str],
    events: &'static [EventFields],
}

impl FieldGroup {
    /// The group's name, e.g. `tool`.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The group's canonical field set: every field any of its events carries.
    pub const fn fields(&self) -> &'static [&'static str] {
        self.fields
    }

    /// The group's events with their fields, in taxonomy order.
    pub const fn events(&self) -> &'static [EventFields] {
        self.events
    }

    /// The fields of one of the group's events.
    pub fn event(&self, canonical: &str) -> Option<&'static EventFields> {
        self.events.iter().find(|fields| fields.event == canonical)
    }
}

/// Tool calls: `tool:pre`, `tool:post`, `tool:error`.
pub const TOOL_GROUP: FieldGroup = FieldGroup {
    name: "tool",
    fields: &[TOOL_NAME, TOOL_INPUT, TOOL_CALL_ID, TOOL_RESULT, ERROR],
    events: &[
        EventFields::new(TOOL_PRE, 2, &[TOOL_NAME, TOOL_INPUT, TOOL_CALL_ID]),
        EventFields::new(
            TOOL_POST,
            3,
            &[TOOL_NAME, TOOL_INPUT, TOOL_RESULT, TOOL_CALL_ID],
        ),
        EventFields::new(TOOL_ERROR, 3, &[TOOL_NAME, TOOL_INPUT, ERROR, TOOL_CALL_ID]),
    ],
};

/// The user's prompts: `prompt:submit`, `prompt:complete` (which carries the response, or the
/// error that ended the turn).
pub const PROMPT_GROUP: FieldGroup = FieldGroup {
    name: "prompt",
    fields: &[PROMPT, RESPONSE, ERROR],
    events: &[
        EventFields::new(PROMPT_SUBMIT, 1, &[PROMPT]),
        EventFields::new(PROMPT_COMPLETE, 0, &[RESPONSE, PROMPT, ERROR]),
    ],
};

/// Model calls: the `provider:` events and their raw `llm:` forms.
pub const PROVIDER_GROUP: FieldGroup = FieldGroup {
    name: "provider",
    fields: &[REQUEST, RESPONSE, ERROR, ATTEMPT],
    events: &[
        EventFields::new(PROVIDER_REQUEST, 1, &[REQUEST]),
        EventFields::new(PROVIDER_RESPONSE, 1, &[RESPONSE, REQUEST]),
        EventFields::new(PROVIDER_RETRY, 1, &[ERROR, REQUEST, ATTEMPT]),
        EventFields::new(PROVIDER_ERROR, 1, &[ERROR, REQUEST]),
        EventFields::new(PROVIDER_THROTTLE, 1, &[ERROR]),
        EventFields::new(LLM_REQUEST, 1, &[REQUEST]),
        EventFields::new(LLM_RESPONSE, 1, &[RESPONSE]),
        EventFields::new(LLM_REQUEST_DEBUG, 1, &[REQUEST]),
        EventFields::new(LLM_RESPONSE_DEBUG, 1, &[RESPONSE]),
    ],
};

/// The session's life: `session:start`, `session:end`, `session:fork`, `session:resume`.
pub const SESSION_GROUP: FieldGroup = FieldGroup {
    name: "session",
    fields: &[SESSION_ID, SOURCE, REASON, PARENT_ID],
    events: &[
        EventFields::new(SESSION_START, 1, &[SESSION_ID, SOURCE]),
        EventFields::new(SESSION_END, 1, &[SESSION_ID, REASON]),
        EventFields::new(SESSION_FORK, 2, &[SESSION_ID, PARENT_ID]),
        EventFields::new(SESSION_RESUME, 1, &[SESSION_ID]),
    ],
};

/// Context compaction: `context:pre_compact`, `context:post_compact`, `context:compaction`.
pub const COMPACTION_GROUP: FieldGroup = FieldGroup {
    name: "compaction",
    fields: &[TRIGGER, TOKENS_BEFORE, TOKENS_AFTER],
    events: &[
        EventFields::new(CONTEXT_PRE_COMPACT, 0, &[TRIGGER, TOKENS_BEFORE]),
        EventFields::new(
            CONTEXT_POST_COMPACT,
            0,
            &[TRIGGER, TOKENS_BEFORE, TOKENS_AFTER],
        ),
        EventFields::new(
            CONTEXT_COMPACTION,
            0,
            &[TRIGGER, TOKENS_BEFORE, TOKENS_AFTER],
        ),
    ],
};

/// Approvals asked of the user: `approval:required`, `approval:granted`, `approval:denied`.
pub const APPROVAL_GROUP: FieldGroup = FieldGroup {
    name: "approval",
    fields: &[
        PROMPT,
        OPTIONS,
        TIMEOUT_SECS,
        DEFAULT,
        HOOK,
        EVENT,
        CHOICE,
        DECIDED_BY,
    ],
    events: &[
        EventFields::new(
            APPROVAL_REQUIRED,
            1,
            &[PROMPT, OPTIONS, TIMEOUT_SECS, DEFAULT, HOOK, EVENT],
        ),
        EventFields::new(
            APPROVAL_GRANTED,
            1,
            &[
                PROMPT,
                OPTIONS,
                TIMEOUT_SECS,
                DEFAULT,
                HOOK,
                EVENT,
                CHOICE,
                DECIDED_BY,
            ],
        ),
        EventFields::new(
            APPROVAL_DENIED,
            1,
            &[
                PROMPT,
                OPTIONS,
                TIMEOUT_SECS,
                DEFAULT,
                HOOK,
                EVENT,
                CHOICE,
                DECIDED_BY,
            ],
        ),
    ],
};

/// Notifications for the user: `user:notification`.
pub const NOTIFICATION_GROUP: FieldGroup = FieldGroup {
    name: "notification",
    fields: &[MESSAGE, LEVEL],
    events: &[EventFields::new(USER_NOTIFICATION, 1, &[MESSAGE, LEVEL])],
};

/// Errors raised anywhere in the agent: `error:raised`.
pub const ERROR_GROUP: FieldGroup = FieldGroup {
    name: "error",
    fields: &[ERROR],
    events: &[EventFields::new(ERROR_RAISED, 1, &[ERROR])],
};

/// Every event group, in taxonomy order. An event belongs to at most one group; events in
/// none carry no documented field beside the defaults and [`TIMESTAMP`].
pub const GROUPS: &[FieldGroup] = &[
    TOOL_GROUP,
    PROMPT_GROUP,
    PROVIDER_GROUP,
    SESSION_GROUP,
    COMPACTION_GROUP,
    APPROVAL_GROUP,
    NOTIFICATION_GROUP,
    ERROR_GROUP,
];

/// The group a canonical event belongs to, if any.
pub fn group_of(canonical: &str) -> Option<&'static FieldGroup> {
    GROUPS.iter().find(|group| group.event(canonical).is_some())
}

/// The fields of a canonical event, if its group documents any.
///
/// ```
/// use hooks_events::{TOOL_PRE, fields};
///
/// let pre = fields::of(TOOL_PRE).unwrap();
/// assert_eq!(pre.required(), [fields::TOOL_NAME, fields::TOOL_INPUT]);
/// assert_eq!(pre.optional(), [fields::TOOL_CALL_ID]);
/// ```
pub fn of(canonical: &str) -> Option<&'static EventFields> {
    GROUPS.iter().find_map(|group| group.event(canonical))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CANONICAL, is_canonical};

    #[test]
    fn every_grouped_event_is_canonical_and_in_one_group_only() {
        let mut seen = Vec::new();
        for group in GROUPS {
            for fields in group.events() {
                assert!(is_canonical(fields.event()), "{}", fields.event());
                assert!(!seen.contains(&fields.event()), "{} twice", fields.event());
                seen.push(fields.event());
            }
        }
        assert!(seen.len() < CANONICAL.len());
    }

    #[test]
    fn an_event_carries_only_fields_of_its_group_and_each_once() {
        for group in GROUPS {
            for fields in group.events() {
                for (index, field) in fields.fields().iter().enumerate() {
                    assert!(
                        group.fields().contains(field),
                        "{} has {field}, not in the {} group",
                        fields.event(),
                        group.name()
                    );
                    assert!(!fields.fields()[..index].contains(field), "{field} twice");
                }
                assert!(fields.required().len() <= fields.fields().len());
            }
        }
    }

    #[test]
    fn every_field_of_a_group_is_carried_by_one_of_its_events() {
        for group in GROUPS {
            for field in group.fields() {
                assert!(
                    group.events().iter().any(|e| e.fields().contains(field)),
                    "{field} of {} is never carried",
                    group.name()
                );
            }
        }
    }

    #[test]
    fn tool_events_share_one_call_id_field() {
        for event in [TOOL_PRE, TOOL_POST, TOOL_ERROR] {
            let fields = of(event).unwrap();
            assert!(fields.optional().contains(&TOOL_CALL_ID), "{event}");
            assert!(fields.is_required(TOOL_NAME) && fields.is_required(TOOL_INPUT));
        }
        assert!(of(TOOL_POST).unwrap().is_required(TOOL_RESULT));
        assert!(of(TOOL_ERROR).unwrap().is_required(ERROR));
        assert_eq!(group_of(TOOL_ERROR).map(FieldGroup::name), Some("tool"));
        assert_eq!(group_of(crate::PLAN_START), None);
    }
}
