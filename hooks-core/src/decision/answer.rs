//! What every decision is made of: the verdict, the extras legal on any answer, and the
//! parts an ask or an injection needs; plus the macro that gives each decision type its
//! shared methods and conversions.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::{ApprovalDefault, HookAction, HookResult, InjectionRole, MessageLevel};

/// A question for the user, for a decision that asks before the operation proceeds.
///
/// ```
/// use std::time::Duration;
/// use hooks_core::ApprovalDefault;
/// use hooks_core::decision::Approval;
///
/// let approval = Approval::new("Run `git push --force`?")
///     .options(["Allow once", "Deny"])
///     .timeout(Duration::from_secs(60))
///     .on_timeout(ApprovalDefault::Deny);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Approval {
    prompt: String,
    options: Option<Vec<String>>,
    timeout: Option<Duration>,
    default: ApprovalDefault,
}

impl Approval {
    /// Asks `prompt`, offering Allow and Deny, denying after five minutes without an answer.
    pub fn new(prompt: impl Into<String>) -> Self {
        Approval {
            prompt: prompt.into(),
            options: None,
            timeout: None,
            default: ApprovalDefault::Deny,
        }
    }

    /// The answers offered (an empty list means the default Allow and Deny).
    pub fn options<I, S>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options = Some(options.into_iter().map(Into::into).collect());
        self
    }

    /// How long to wait for the user.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// What the request resolves to on timeout or error (deny unless set).
    pub fn on_timeout(mut self, default: ApprovalDefault) -> Self {
        self.default = default;
        self
    }

    fn into_result(self) -> HookResult {
        let mut result = HookResult::ask(self.prompt).with_approval_default(self.default);
        result.approval_options = self.options;
        if let Some(timeout) = self.timeout {
            result = result.with_approval_timeout(timeout);
        }
        result
    }
}

impl From<&str> for Approval {
    fn from(prompt: &str) -> Self {
        Approval::new(prompt)
    }
}

impl From<String> for Approval {
    fn from(prompt: String) -> Self {
        Approval::new(prompt)
    }
}

/// Text for the agent's context, for a decision that injects.
///
/// ```
/// use hooks_core::InjectionRole;
/// use hooks_core::decision::ContextInjection;
///
/// let note = ContextInjection::new("lint: unused import on line 3")
///     .role(InjectionRole::User)
///     .ephemeral();
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct ContextInjection {
    text: String,
    role: InjectionRole,
    ephemeral: bool,
    append_to_last_tool_result: bool,
}

impl ContextInjection {
    /// Injects `text` as a system message, kept in the history.
    pub fn new(text: impl Into<String>) -> Self {
        ContextInjection {
            text: text.into(),
            role: InjectionRole::System,
            ephemeral: false,
            append_to_last_tool_result: false,
        }
    }

    /// The role the injected message takes.
    pub fn role(mut self, role: InjectionRole) -> Self {
        self.role = role;
        self
    }

    /// Delivers the text to the next model call only, never storing it in the history.
    pub fn ephemeral(mut self) -> Self {
        self.ephemeral = true;
        self
    }

    /// Appends the text to the last tool result instead of adding a message.
    pub fn append_to_last_tool_result(mut self) -> Self {
        self.append_to_last_tool_result = true;
        self
    }

    fn into_result(self) -> HookResult {
        HookResult::inject(self.text)
            .with_role(self.role)
            .with_ephemeral(self.ephemeral)
            .with_append_to_last_tool_result(self.append_to_last_tool_result)
    }
}

impl From<&str> for ContextInjection {
    fn from(text: &str) -> Self {
        ContextInjection::new(text)
    }
}

impl From<String> for ContextInjection {
    fn from(text: String) -> Self {
        ContextInjection::new(text)
    }
}

/// What a decision says, each variant with everything its action needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Proceed,
    Deny(String),
    Ask(Approval),
    /// The whole replacement data (the kernel's modify replaces the payload).
    Modify(Value),
    Inject(ContextInjection),
}

/// A verdict with the extras legal on every answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decided {
    verdict: Verdict,
    user_message: Option<(String, MessageLevel)>,
    suppress_output: bool,
}

impl Decided {
    pub(crate) fn new(verdict: Verdict) -> Self {
        Decided {
            verdict,
            user_message: None,
            suppress_output: false,
        }
    }

    pub(crate) fn action(&self) -> HookAction {
        match self.verdict {
            Verdict::Proceed => HookAction::Continue,
            Verdict::Deny(_) => HookAction::Deny,
            Verdict::Ask(_) => HookAction::AskUser,
            Verdict::Modify(_) => HookAction::Modify,
            Verdict::Inject(_) => HookAction::InjectContext,
        }
    }

    pub(crate) fn with_user_message(mut self, message: String, level: MessageLevel) -> Self {
        self.user_message = Some((message, level));
        self
    }

    pub(crate) fn with_suppress_output(mut self) -> Self {
        self.suppress_output = true;
        self
    }

    // Inlined into the handler's call, so that a plain proceed folds into the `continue` tag
    // there as a JSON handler's `HookResult::cont()` does.
    #[inline]
    pub(crate) fn into_result(self) -> HookResult {
        let mut result = match self.verdict {
            Verdict::Proceed => HookResult::cont(),
            Verdict::Deny(reason) => HookResult::deny(reason),
            Verdict::Ask(approval) => approval.into_result(),
            Verdict::Modify(data) => HookResult::modify(data),
            Verdict::Inject(injection) => injection.into_result(),
        };
        // Set in place: a result is large, and most answers are a plain proceed.
        result.suppress_output = self.suppress_output;
        if let Some((message, level)) = self.user_message {
            result.user_message = Some(message);
            result.user_message_level = level;
        }
        result
    }
}

/// The payload `data` with `field` set to `value`, copying every other field but not the old
/// value of `field`. `data` comes from a view, so it is an object.
pub(crate) fn replace_field(data: &Value, field: &str, value: Value) -> Value {
    let mut object: Map<String, Value> = data
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| *key != field)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    object.insert(field.to_owned(), value);
    Value::Object(object)
}

/// Declares a decision type: the newtype, its shared constructors and extras, and its
/// conversions into [`HookResult`] and [`IntoHookResult`](crate::IntoHookResult).
macro_rules! decision {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[must_use]
        pub struct $name($crate::decision::answer::Decided);

        impl $name {
            /// Proceed normally: nothing to say.
            pub fn proceed() -> Self {
                $name($crate::decision::answer::Decided::new(
                    $crate::decision::answer::Verdict::Proceed,
                ))
            }

            /// Adds `text` to the agent's context (a string, or a
            /// [`ContextInjection`](crate::decision::ContextInjection) with a role).
            pub fn inject(text: impl Into<$crate::decision::ContextInjection>) -> Self {
                $name($crate::decision::answer::Decided::new(
                    $crate::decision::answer::Verdict::Inject(text.into()),
                ))
            }

            /// Adds a message for the user, separate from anything the agent sees.
            pub fn with_user_message(
                self,
                message: impl Into<String>,
                level: $crate::MessageLevel,
            ) -> Self {
                $name(self.0.with_user_message(message.into(), level))
            }

            /// Hides the hook's own output from the transcript (never the tool's).
            pub fn with_suppress_output(self) -> Self {
                $name(self.0.with_suppress_output())
            }

            /// The action the decision becomes.
            pub fn action(&self) -> $crate::HookAction {
                self.0.action()
            }
        }

        impl From<$name> for $crate::HookResult {
            #[inline]
            fn from(decision: $name) -> Self {
                decision.0.into_result()
            }
        }

        impl $crate::IntoHookResult for $name {
            #[inline]
            fn into_hook_result(self) -> Result<$crate::HookResult, $crate::BoxError> {
                $crate::HookResult::from(self).into_hook_result()
            }
        }

        impl<E> $crate::IntoHookResult for Result<$name, E>
        where
            Result<$crate::HookResult, E>: $crate::IntoHookResult,
        {
            fn into_hook_result(self) -> Result<$crate::HookResult, $crate::BoxError> {
                self.map($crate::HookResult::from).into_hook_result()
            }
        }
    };
}

pub(crate) use decision;
