//! [`HookResult`]: what a handler answers, with the reference fields and defaults.
//!
//! The JSON form is the reference's (`snake_case` field names, the same defaults), so a result
//! written by a Python hook or a command script parses here and a result serialised here parses
//! there. Parsing is lenient where the ecosystem is (`block` means deny, `allow` means continue)
//! and strict where a mistake would be silent: an unknown action, role or level is an error that
//! names the field.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Defines a string-valued enum whose parse error names the JSON field it lives in.
///
/// serde's derived error ("unknown variant `x`") does not say which field was wrong; these
/// enums each belong to exactly one field of [`HookResult`], so their own error can name it.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident, field = $field:literal, default = $default:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The canonical JSON spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = InvalidValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text $(| $alias)* => Ok($name::$variant),)+
                    _ => Err(InvalidValue {
                        field: $field,
                        value: s.to_owned(),
                        expected: &[$($text),+],
                    }),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

/// A value that is not one of a field's allowed spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid `{field}`: `{value}` is not one of {}", expected.join(", "))]
pub struct InvalidValue {
    /// The JSON field the value was meant for, e.g. `action`.
    pub field: &'static str,
    /// The value that was given.
    pub value: String,
    /// The canonical spellings the field accepts.
    pub expected: &'static [&'static str],
}

string_enum! {
    /// What a handler asks the registry to do with the event.
    ///
    /// When several handlers answer one event the strongest wins, in the order
    /// deny > ask_user > inject_context > modify > continue (see [`HookAction::strength`]).
    HookAction, field = "action", default = Continue {
        /// Proceed normally (`"continue"`; `"allow"` is accepted when parsing).
        Continue = "continue" | "allow",
        /// Block the operation; stops the chain at once (`"deny"`; `"block"` is accepted).
        Deny = "deny" | "block",
        /// Replace the event data seen by later handlers and by the operation.
        Modify = "modify",
        /// Add text to the agent's context.
        InjectContext = "inject_context",
        /// Ask the user for approval before the operation proceeds.
        AskUser = "ask_user",
    }
}

impl HookAction {
    /// Rank used to fold several answers into one: the higher, the stronger.
    ///
    /// Blocking actions (deny, ask_user) outrank every information-flow action, so a security
    /// gate can never be overridden by a later handler that merely injects or modifies.
    pub const fn strength(self) -> u8 {
        match self {
            HookAction::Continue => 0,
            HookAction::Modify => 1,
            HookAction::InjectContext => 2,
            HookAction::AskUser => 3,
            HookAction::Deny => 4,
        }
    }

    /// Whether the action stops the operation until something else decides (deny, ask_user).
    pub const fn is_blocking(self) -> bool {
        matches!(self, HookAction::Deny | HookAction::AskUser)
    }
}

string_enum! {
    /// The conversation role an injected message takes.
    InjectionRole, field = "context_injection_role", default = System {
        /// Environmental feedback; the default and the usual choice.
        System = "system",
        /// Reads as if the user had said it.
        User = "user",
        /// Reads as the agent's own words.
        Assistant = "assistant",
    }
}

string_enum! {
    /// Severity of a [`HookResult::user_message`].
    MessageLevel, field = "user_message_level", default = Info {
        /// A status update.
        Info = "info",
        /// Something the user should notice but that did not fail.
        Warning = "warning",
        /// A failure.
        Error = "error",
    }
}

string_enum! {
    /// What an approval request resolves to when the user does not answer in time or the
    /// approval machinery fails.
    ApprovalDefault, field = "approval_default", default = Deny {
        /// Let the operation proceed.
        Allow = "allow",
        /// Block the operation; the default, because silence must never grant access.
        Deny = "deny",
    }
}

/// The approval timeout when a result does not set one: five minutes.
pub const DEFAULT_APPROVAL_TIMEOUT_SECS: f64 = 300.0;

/// The approval options offered when a result does not set any.
pub const DEFAULT_APPROVAL_OPTIONS: [&str; 2] = ["Allow", "Deny"];

/// What a hook handler answers: an action plus the fields that qualify it.
///
/// Build one with the constructors and `with_*` methods:
///
/// ```
/// use hooks_core::{HookResult, HookAction, MessageLevel};
///
/// let denied = HookResult::deny("writes to /etc are not allowed; write under ./out instead");
/// assert_eq!(denied.action, HookAction::Deny);
///
/// let feedback = HookResult::inject("lint: unused import on line 3")
///     .with_user_message("linter found 1 issue", MessageLevel::Warning)
///     .with_ephemeral(true);
/// assert!(feedback.ephemeral);
/// ```
///
/// Every field has the reference default, so `{"action": "continue"}` and even `{}` parse; only
/// an object parses (an array or a bare string is an error, never a silent `continue`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, remote = "Self")]
pub struct HookResult {
    /// What to do; see [`HookAction`].
    pub action: HookAction,
    /// The replacement event data, for [`HookAction::Modify`]: later handlers and the
    /// operation see it. `emit` also takes it from a deny (as the data the denial is about) but
    /// ignores it on other actions; `emit_and_collect` collects it whatever the action.
    pub data: Option<Value>,
    /// Why the handler denied or modified; shown to the agent when the operation is blocked.
    pub reason: Option<String>,
    /// Text to add to the agent's context.
    pub context_injection: Option<String>,
    /// The role of the injected message; `system` unless set.
    pub context_injection_role: InjectionRole,
    /// Deliver the injection to the next model call only, never storing it in history.
    pub ephemeral: bool,
    /// The question put to the user, for [`HookAction::AskUser`].
    pub approval_prompt: Option<String>,
    /// The answers offered; `None` means [`DEFAULT_APPROVAL_OPTIONS`].
    pub approval_options: Option<Vec<String>>,
    /// Seconds to wait for the user before applying [`HookResult::approval_default`].
    #[serde(deserialize_with = "deserialize_timeout_secs")]
    pub approval_timeout: f64,
    /// The decision on timeout or error; deny unless set.
    pub approval_default: ApprovalDefault,
    /// Hide the hook's own output from the transcript (never the tool's output).
    pub suppress_output: bool,
    /// A message for the user, separate from anything the agent sees.
    pub user_message: Option<String>,
    /// Severity of [`HookResult::user_message`].
    pub user_message_level: MessageLevel,
    /// Append the injection to the last tool result instead of adding a new message.
    pub append_to_last_tool_result: bool,
}

impl Default for HookResult {
    fn default() -> Self {
        HookResult {
            action: HookAction::Continue,
            data: None,
            reason: None,
            context_injection: None,
            context_injection_role: InjectionRole::System,
            ephemeral: false,
            approval_prompt: None,
            approval_options: None,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT_SECS,
            approval_default: ApprovalDefault::Deny,
            suppress_output: false,
            user_message: None,
            user_message_level: MessageLevel::Info,
            append_to_last_tool_result: false,
        }
    }
}

impl Serialize for HookResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        HookResult::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for HookResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectOnly;

        impl<'de> serde::de::Visitor<'de> for ObjectOnly {
            type Value = HookResult;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hook result object, e.g. {\"action\": \"continue\"}")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<HookResult, A::Error> {
                // The derived (remote) impl also accepts sequences; going through a map first
                // rules them out.
                HookResult::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }

        deserializer.deserialize_map(ObjectOnly)
    }
}

/// Rejects approval timeouts that are negative, NaN or infinite: a typo must not become
/// "wait forever" or "time out at once" without anyone noticing.
fn deserialize_timeout_secs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let secs = f64::deserialize(deserializer)?;
    if secs.is_finite() && secs >= 0.0 {
        Ok(secs)
    } else {
        Err(serde::de::Error::custom(format!(
            "invalid `approval_timeout`: {secs} is not a finite number of seconds >= 0"
        )))
    }
}

impl HookResult {
    /// Proceed normally: the default answer of a hook with nothing to say.
    pub fn cont() -> Self {
        HookResult::default()
    }

    /// Block the operation. The reason reaches the agent, so say what to do instead.
    pub fn deny(reason: impl Into<String>) -> Self {
        HookResult {
            action: HookAction::Deny,
            reason: Some(reason.into()),
            ..HookResult::default()
        }
    }

    /// Replace the event data; later handlers and the operation see `data`.
    pub fn modify(data: Value) -> Self {
        HookResult {
            action: HookAction::Modify,
            data: Some(data),
            ..HookResult::default()
        }
    }

    /// Add `text` to the agent's context (as a system message unless a role is set).
    pub fn inject(text: impl Into<String>) -> Self {
        HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(text.into()),
            ..HookResult::default()
        }
    }

    /// Ask the user `prompt` before the operation proceeds (deny on timeout unless set).
    pub fn ask(prompt: impl Into<String>) -> Self {
        HookResult {
            action: HookAction::AskUser,
            approval_prompt: Some(prompt.into()),
            ..HookResult::default()
        }
    }

    /// Sets the reason.
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Sets the data (the replacement payload for a modify).
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Sets the text to inject, keeping the action as it is.
    #[must_use]
    pub fn with_context_injection(mut self, text: impl Into<String>) -> Self {
        self.context_injection = Some(text.into());
        self
    }

    /// Sets the role of the injected message.
    #[must_use]
    pub fn with_role(mut self, role: InjectionRole) -> Self {
        self.context_injection_role = role;
        self
    }

    /// Marks the injection ephemeral (next model call only, never stored).
    #[must_use]
    pub fn with_ephemeral(mut self, ephemeral: bool) -> Self {
        self.ephemeral = ephemeral;
        self
    }

    /// Sets the answers offered to the user.
    #[must_use]
    pub fn with_approval_options<I, S>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.approval_options = Some(options.into_iter().map(Into::into).collect());
        self
    }

    /// Sets how long to wait for the user.
    #[must_use]
    pub fn with_approval_timeout(mut self, timeout: Duration) -> Self {
        self.approval_timeout = timeout.as_secs_f64();
        self
    }

    /// Sets the decision taken on timeout or error.
    #[must_use]
    pub fn with_approval_default(mut self, default: ApprovalDefault) -> Self {
        self.approval_default = default;
        self
    }

    /// Hides the hook's own output (never the tool's).
    #[must_use]
    pub fn with_suppress_output(mut self, suppress: bool) -> Self {
        self.suppress_output = suppress;
        self
    }

    /// Sets a message for the user and its level.
    #[must_use]
    pub fn with_user_message(mut self, message: impl Into<String>, level: MessageLevel) -> Self {
        self.user_message = Some(message.into());
        self.user_message_level = level;
        self
    }

    /// Appends the injection to the last tool result instead of adding a message.
    #[must_use]
    pub fn with_append_to_last_tool_result(mut self, append: bool) -> Self {
        self.append_to_last_tool_result = append;
        self
    }

    /// The options to offer the user: those set, or [`DEFAULT_APPROVAL_OPTIONS`].
    pub fn effective_approval_options(&self) -> Vec<String> {
        match &self.approval_options {
            Some(options) if !options.is_empty() => options.clone(),
            _ => DEFAULT_APPROVAL_OPTIONS.map(String::from).to_vec(),
        }
    }

    /// The approval timeout as a [`Duration`].
    ///
    /// Out-of-range values (which parsing rejects, but a struct literal can hold) saturate.
    pub fn approval_timeout_duration(&self) -> Duration {
        Duration::try_from_secs_f64(self.approval_timeout.max(0.0)).unwrap_or(Duration::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_enum_round_trips_through_its_text() {
        for action in HookAction::ALL {
            assert_eq!(action.as_str().parse::<HookAction>(), Ok(*action));
        }
        for role in InjectionRole::ALL {
            assert_eq!(role.as_str().parse::<InjectionRole>(), Ok(*role));
        }
        for level in MessageLevel::ALL {
            assert_eq!(level.as_str().parse::<MessageLevel>(), Ok(*level));
        }
        for default in ApprovalDefault::ALL {
            assert_eq!(default.as_str().parse::<ApprovalDefault>(), Ok(*default));
        }
    }

    #[test]
    fn strength_orders_deny_over_ask_over_inject_over_modify_over_continue() {
        let mut actions = HookAction::ALL.to_vec();
        actions.sort_by_key(|a| std::cmp::Reverse(a.strength()));
        assert_eq!(
            actions,
            [
                HookAction::Deny,
                HookAction::AskUser,
                HookAction::InjectContext,
                HookAction::Modify,
                HookAction::Continue
            ]
        );
    }

    #[test]
    fn approval_timeout_duration_saturates_instead_of_panicking() {
        let result = HookResult {
            approval_timeout: f64::INFINITY,
            ..HookResult::default()
        };
        assert_eq!(result.approval_timeout_duration(), Duration::MAX);
        let negative = HookResult {
            approval_timeout: -1.0,
            ..HookResult::default()
        };
        assert_eq!(negative.approval_timeout_duration(), Duration::ZERO);
    }

    #[test]
    fn empty_options_fall_back_to_allow_deny() {
        let result = HookResult::ask("ok?").with_approval_options(Vec::<String>::new());
        assert_eq!(result.effective_approval_options(), ["Allow", "Deny"]);
        let custom = HookResult::ask("ok?").with_approval_options(["Allow once", "Deny"]);
        assert_eq!(custom.effective_approval_options(), ["Allow once", "Deny"]);
        assert_eq!(
            serde_json::to_value(&custom).unwrap()["approval_options"],
            json!(["Allow once", "Deny"])
        );
    }
}
