//! The event taxonomy of the hooks workspace: canonical names, PascalCase aliases and custom
//! `namespace:name` events.
//!
//! It is its own small crate so that the `#[hook]` attribute checks event names at compile
//! time with the very code the registry uses at run time; applications reach it as
//! `hooks_core::events`.
//!
//! Canonical names are those of the reference kernel, Amplifier's (`tool:pre`,
//! `session:start`, ...). The aliases of the enhanced-hooks proposal (`PreToolUse`,
//! `SessionStart`, ...) name the same events: a handler registered under an alias is
//! registered under the canonical name, and handlers and results only ever see canonical
//! names. Applications add their own events as
//! `namespace:name` with lowercase ASCII letters, digits and `_` in each segment; the
//! namespaces of the canonical events are reserved, so a typo such as `tool:prre` is an error
//! with a suggestion rather than a silently unheard custom event.
//!
//! The data fields events carry are named in [`fields`]: one constant per field name, and one
//! canonical field set per event group (tool, prompt, provider, session, compaction, approval,
//! ...), saying which fields each event always carries and which only when known.

use std::fmt;

pub mod fields;

macro_rules! canonical_events {
    ($( $(#[$doc:meta])* $konst:ident = $name:literal; )+) => {
        $( $(#[$doc])* pub const $konst: &str = $name; )+

        /// Every canonical event name, in taxonomy order.
        pub const CANONICAL: &[&str] = &[$($konst),+];
    };
}

canonical_events! {
    /// A session begins. Data: `session_id`, and the session's configuration where known.
    SESSION_START = "session:start";
    /// A session ends. Data: `session_id`, the reason where known.
    SESSION_END = "session:end";
    /// A session is forked into a child session. Data: `session_id`, `parent_id`.
    SESSION_FORK = "session:fork";
    /// A stored session is resumed. Data: `session_id`.
    SESSION_RESUME = "session:resume";
    /// The user submits a prompt. Data: `prompt`. Modify rewrites it; deny drops it.
    PROMPT_SUBMIT = "prompt:submit";
    /// The agent has finished answering a prompt. Data: `prompt`, `response`.
    PROMPT_COMPLETE = "prompt:complete";
    /// The agent starts a plan.
    PLAN_START = "plan:start";
    /// The agent finishes a plan.
    PLAN_END = "plan:end";
    /// A request is about to go to the model provider. Data: `request`.
    PROVIDER_REQUEST = "provider:request";
    /// The provider answered. Data: `request`, `response`.
    PROVIDER_RESPONSE = "provider:response";
    /// A provider call is retried. Data: `request`, `error`, the attempt number.
    PROVIDER_RETRY = "provider:retry";
    /// A provider call failed. Data: `request`, `error`.
    PROVIDER_ERROR = "provider:error";
    /// The provider throttled the caller (rate limit). Data: `error`, the delay where known.
    PROVIDER_THROTTLE = "provider:throttle";
    /// A provider was chosen for a request.
    PROVIDER_RESOLVE = "provider:resolve";
    /// The tool-call sequence sent to the provider was repaired (e.g. orphaned results).
    PROVIDER_TOOL_SEQUENCE_REPAIRED = "provider:tool_sequence_repaired";
    /// A raw model request (summary form). Data: `request`.
    LLM_REQUEST = "llm:request";
    /// A raw model response (summary form). Data: `response`.
    LLM_RESPONSE = "llm:response";
    /// A streamed content block starts.
    CONTENT_BLOCK_START = "content_block:start";
    /// A streamed content block grows.
    CONTENT_BLOCK_DELTA = "content_block:delta";
    /// A streamed content block ends.
    CONTENT_BLOCK_END = "content_block:end";
    /// A streamed piece of the model's thinking.
    THINKING_DELTA = "thinking:delta";
    /// The model's thinking for this response is complete.
    THINKING_FINAL = "thinking:final";
    /// A tool is about to run. Data: `tool_name`, `tool_input`, `tool_call_id`. Deny blocks it; modify
    /// rewrites the input; ask_user asks first.
    TOOL_PRE = "tool:pre";
    /// A tool ran. Data: `tool_name`, `tool_input`, `tool_result`, `tool_call_id`.
    TOOL_POST = "tool:post";
    /// A tool failed. Data: `tool_name`, `tool_input`, `error`, `tool_call_id`.
    TOOL_ERROR = "tool:error";
    /// The context is about to be compacted.
    CONTEXT_PRE_COMPACT = "context:pre_compact";
    /// The context was compacted.
    CONTEXT_POST_COMPACT = "context:post_compact";
    /// A compaction happened (summary of what was removed or summarised).
    CONTEXT_COMPACTION = "context:compaction";
    /// Content is being included in the context (e.g. a file or memory).
    CONTEXT_INCLUDE = "context:include";
    /// The orchestrator finished its loop for a prompt.
    ORCHESTRATOR_COMPLETE = "orchestrator:complete";
    /// An execution (one run of the agent loop) starts.
    EXECUTION_START = "execution:start";
    /// An execution ends.
    EXECUTION_END = "execution:end";
    /// A notification for the user. Data: `message`, `level`.
    USER_NOTIFICATION = "user:notification";
    /// An artifact is written. Data: the path or id, the content where small.
    ARTIFACT_WRITE = "artifact:write";
    /// An artifact is read.
    ARTIFACT_READ = "artifact:read";
    /// A policy was violated (emitted by policy hooks for audit).
    POLICY_VIOLATION = "policy:violation";
    /// An approval is required from the user.
    APPROVAL_REQUIRED = "approval:required";
    /// The user (or the default) granted an approval.
    APPROVAL_GRANTED = "approval:granted";
    /// The user (or the default) denied an approval.
    APPROVAL_DENIED = "approval:denied";
    /// Cancellation of the running work was requested.
    CANCEL_REQUESTED = "cancel:requested";
    /// Cancellation completed.
    CANCEL_COMPLETED = "cancel:completed";
    /// A module failed to load.
    MODULE_LOAD_FAILED = "module:load_failed";
    /// A module's session-ready callback failed.
    MODULE_ON_SESSION_READY_FAILED = "module:on_session_ready_failed";
    /// A raw model request in full, for debugging (may hold secrets: log with care).
    LLM_REQUEST_DEBUG = "llm:request:debug";
    /// A raw model response in full, for debugging.
    LLM_RESPONSE_DEBUG = "llm:response:debug";
    /// A checkpoint of the session was created.
    CHECKPOINT_CREATED = "checkpoint:created";
    /// The model in use changed. Data: the old and new model.
    MODEL_SWITCHED = "model:switched";
    /// A memory file changed.
    MEMORY_UPDATED = "memory:updated";
    /// An error was raised somewhere in the agent. Data: `error`.
    ERROR_RAISED = "error:raised";
}

/// The PascalCase aliases of the enhanced-hooks proposal and the canonical event each names.
pub const ALIASES: &[(&str, &str)] = &[
    ("PreToolUse", TOOL_PRE),
    ("PostToolUse", TOOL_POST),
    ("SessionStart", SESSION_START),
    ("SessionStop", SESSION_END),
    ("PromptSubmit", PROMPT_SUBMIT),
    ("ResponseComplete", PROMPT_COMPLETE),
    ("Error", ERROR_RAISED),
    ("Checkpoint", CHECKPOINT_CREATED),
    ("ModelSwitch", MODEL_SWITCHED),
    ("MemoryUpdate", MEMORY_UPDATED),
    ("Notification", USER_NOTIFICATION),
];

/// The data fields an event usually carries (beside the registry's default fields and
/// `timestamp`), required ones first, for documentation and tools; empty where the taxonomy
/// names none. Derived from the event's [`fields::FieldGroup`].
pub fn data_fields(canonical: &str) -> &'static [&'static str] {
    fields::of(canonical).map_or(&[], fields::EventFields::fields)
}

/// Why a string is not a usable event name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventNameError {
    /// The name is empty.
    #[error("event name is empty")]
    Empty,
    /// Neither a canonical name, an alias nor `namespace:name`.
    #[error(
        "unknown event `{name}`: use a canonical name such as `tool:pre`, an alias such as \
         `PreToolUse`, or a custom `namespace:name`{}",
        did_you_mean(*.suggestion)
    )]
    NotNamespaced {
        /// The name given.
        name: String,
        /// The closest known name, if one is close.
        suggestion: Option<&'static str>,
    },
    /// A custom name with a character outside `[a-z0-9_]` in a segment.
    #[error(
        "invalid event `{name}`: `{character}` is not allowed; segments of a custom event use \
         lowercase letters, digits and `_`, separated by `:`{}",
        did_you_mean(*.suggestion)
    )]
    InvalidCharacter {
        /// The name given.
        name: String,
        /// The first offending character.
        character: char,
        /// The closest known name, if one is close.
        suggestion: Option<&'static str>,
    },
    /// A name with an empty segment, such as `tool:` or `:pre`.
    #[error("invalid event `{name}`: a segment between `:` is empty")]
    EmptySegment {
        /// The name given.
        name: String,
    },
    /// A name in a reserved namespace (`tool:`, `session:`, ...) that is not a canonical event.
    #[error(
        "unknown event `{name}`: the `{namespace}` namespace is reserved for canonical events{}",
        did_you_mean(*.suggestion)
    )]
    UnknownInReservedNamespace {
        /// The name given.
        name: String,
        /// Its reserved namespace.
        namespace: String,
        /// The closest canonical name, if one is close.
        suggestion: Option<&'static str>,
    },
}

impl EventNameError {
    /// The closest known name to the one rejected, if any is close enough to be a typo.
    pub fn suggestion(&self) -> Option<&'static str> {
        match self {
            EventNameError::NotNamespaced { suggestion, .. }
            | EventNameError::InvalidCharacter { suggestion, .. }
            | EventNameError::UnknownInReservedNamespace { suggestion, .. } => *suggestion,
            EventNameError::Empty | EventNameError::EmptySegment { .. } => None,
        }
    }
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"))
}

/// Whether `name` is one of the [`CANONICAL`] names.
pub fn is_canonical(name: &str) -> bool {
    CANONICAL.contains(&name)
}

/// The canonical name behind a PascalCase alias, if `name` is one.
pub fn alias_target(name: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find_map(|(alias, canonical)| (*alias == name).then_some(*canonical))
}

/// The aliases that name `canonical`, e.g. `["PreToolUse"]` for `tool:pre`.
pub fn aliases_of(canonical: &str) -> impl Iterator<Item = &'static str> + '_ {
    ALIASES
        .iter()
        .filter(move |(_, target)| *target == canonical)
        .map(|(alias, _)| *alias)
}

/// Whether `name` is a canonical name or an alias of one (custom events are not "known").
pub fn is_known(name: &str) -> bool {
    is_canonical(name) || alias_target(name).is_some()
}

/// Resolves `name` to the name handlers see: aliases map to their canonical name, canonical
/// and valid custom names are returned as they are.
///
/// ```
/// use hooks_events::{canonicalize, EventNameError};
///
/// assert_eq!(canonicalize("PreToolUse"), Ok("tool:pre"));
/// assert_eq!(canonicalize("tool:pre"), Ok("tool:pre"));
/// assert_eq!(canonicalize("billing:quota_checked"), Ok("billing:quota_checked"));
/// let typo = canonicalize("tool:prre").unwrap_err();
/// assert_eq!(typo.suggestion(), Some("tool:pre"));
/// ```
pub fn canonicalize(name: &str) -> Result<&str, EventNameError> {
    if let Some(canonical) = CANONICAL.iter().find(|c| **c == name) {
        return Ok(canonical);
    }
    if let Some(canonical) = alias_target(name) {
        return Ok(canonical);
    }
    validate_custom(name).map(|()| name)
}

/// Checks a name that is neither canonical nor an alias against the custom-event rules.
fn validate_custom(name: &str) -> Result<(), EventNameError> {
    if name.is_empty() {
        return Err(EventNameError::Empty);
    }
    let Some((namespace, _)) = name.split_once(':') else {
        return Err(EventNameError::NotNamespaced {
            name: name.to_owned(),
            suggestion: suggest(name),
        });
    };
    if name.split(':').any(str::is_empty) {
        return Err(EventNameError::EmptySegment {
            name: name.to_owned(),
        });
    }
    if let Some(character) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == ':'))
    {
        return Err(EventNameError::InvalidCharacter {
            name: name.to_owned(),
            character,
            suggestion: suggest(name),
        });
    }
    if is_reserved_namespace(namespace) {
        return Err(EventNameError::UnknownInReservedNamespace {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            suggestion: suggest(name),
        });
    }
    Ok(())
}

/// Whether a namespace belongs to the canonical taxonomy (custom events may not use it).
pub fn is_reserved_namespace(namespace: &str) -> bool {
    CANONICAL
        .iter()
        .any(|c| c.split(':').next() == Some(namespace))
}

/// The known name (canonical or alias) closest to `name`, if it is close enough to be a typo.
pub fn suggest(name: &str) -> Option<&'static str> {
    let names = CANONICAL
        .iter()
        .copied()
        .chain(ALIASES.iter().map(|(alias, _)| *alias));
    closest(name, names)
}

/// The candidate closest to `name` (ignoring ASCII case), if it is close enough to be a typo:
/// at most two edits, or a third of the candidate's length for long names. The suggestion of
/// every "did you mean" of the workspace (events, module names).
///
/// ```
/// let modules = ["safety", "logging", "redaction"];
/// assert_eq!(hooks_events::closest("loging", modules), Some("logging"));
/// assert_eq!(hooks_events::closest("kubernetes", modules), None);
/// ```
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|known| (edit_distance(&wanted, &known.to_ascii_lowercase()), known))
        .filter(|(distance, known)| *distance <= (known.len() / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// Levenshtein distance over bytes (names are ASCII; a non-ASCII name is never close anyway).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// A validated, canonical event name, for APIs that want the check done once.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventName(String);

impl EventName {
    /// Validates and canonicalises `name` (see [`canonicalize`]).
    pub fn new(name: &str) -> Result<Self, EventNameError> {
        canonicalize(name).map(|canonical| EventName(canonical.to_owned()))
    }

    /// The canonical name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for EventName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taxonomy_has_the_reference_43_plus_debug_plus_proposal_events() {
        assert_eq!(CANONICAL.len(), 43 + 2 + 4);
        let mut sorted = CANONICAL.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), CANONICAL.len(), "duplicate canonical name");
        for name in CANONICAL {
            assert_eq!(canonicalize(name), Ok(*name));
        }
    }

    #[test]
    fn every_alias_maps_to_a_canonical_event() {
        assert_eq!(ALIASES.len(), 11);
        for (alias, canonical) in ALIASES {
            assert!(is_canonical(canonical), "{alias} -> {canonical}");
            assert_eq!(canonicalize(alias), Ok(*canonical));
            assert!(is_known(alias));
        }
        assert_eq!(canonicalize("SessionStop"), Ok(SESSION_END));
        assert_eq!(canonicalize("Notification"), Ok(USER_NOTIFICATION));
        assert_eq!(aliases_of(TOOL_PRE).collect::<Vec<_>>(), ["PreToolUse"]);
    }

    #[test]
    fn custom_events_are_namespace_colon_name() {
        assert_eq!(canonicalize("billing:charged"), Ok("billing:charged"));
        assert_eq!(canonicalize("my_app:step_2:done"), Ok("my_app:step_2:done"));
        assert!(!is_known("billing:charged"));
    }

    #[test]
    fn malformed_names_are_rejected_with_a_reason() {
        assert_eq!(canonicalize(""), Err(EventNameError::Empty));
        assert!(matches!(
            canonicalize("billing:"),
            Err(EventNameError::EmptySegment { .. })
        ));
        assert!(matches!(
            canonicalize("Billing:Charged"),
            Err(EventNameError::InvalidCharacter { character: 'B', .. })
        ));
        assert!(matches!(
            canonicalize("context:pre-compact"),
            Err(EventNameError::InvalidCharacter {
                character: '-',
                suggestion: Some("context:pre_compact"),
                ..
            })
        ));
        assert!(matches!(
            canonicalize("nonsense"),
            Err(EventNameError::NotNamespaced {
                suggestion: None,
                ..
            })
        ));
    }

    #[test]
    fn typos_get_a_suggestion() {
        let err = canonicalize("tool:prre").unwrap_err();
        assert_eq!(err.suggestion(), Some(TOOL_PRE));
        assert!(err.to_string().contains("did you mean `tool:pre`"), "{err}");
        assert_eq!(
            canonicalize("PreToolUsee").unwrap_err().suggestion(),
            Some("PreToolUse")
        );
        assert_eq!(
            canonicalize("session:strat").unwrap_err().suggestion(),
            Some(SESSION_START)
        );
        assert_eq!(suggest("completely:different_thing"), None);
    }

    #[test]
    fn tool_events_name_their_data_fields() {
        assert_eq!(
            data_fields(TOOL_POST),
            ["tool_name", "tool_input", "tool_result", "tool_call_id"]
        );
        assert_eq!(data_fields(PROMPT_SUBMIT), ["prompt"]);
        assert!(data_fields(PLAN_START).is_empty());
    }

    #[test]
    fn event_name_holds_the_canonical_form() {
        assert_eq!(EventName::new("PostToolUse").unwrap().as_str(), TOOL_POST);
        assert!(EventName::new("tool:nope").is_err());
    }
}
