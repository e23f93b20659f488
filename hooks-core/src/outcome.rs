//! [`EmitResult`]: the folded answer of every handler of one emit, with nothing lost.
//!
//! The merged [`HookResult`] is what the reference returns; beside it the emit keeps what a
//! single result cannot hold: each injection and user message with the hook that produced it
//! (so audit and budgets apply per injection), and each handler that failed.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::error::HandlerError;
use crate::{HookAction, HookResult, InjectionRole, MessageLevel};

/// The result of [`HookRegistry::emit`](crate::HookRegistry::emit).
///
/// The merged [`HookResult`] is its [`result`](EmitResult::result) (`outcome.result.reason`);
/// [`action`](EmitResult::action), [`data`](EmitResult::data) and
/// [`is_denied`](EmitResult::is_denied) read the commonest parts of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EmitResult {
    /// The merged result: the strongest action, the final data, every injection joined by a
    /// blank line and every user message joined by a newline.
    pub result: HookResult,
    /// Each context injection, in handler order, with its provenance.
    pub injections: Vec<Injection>,
    /// Each user message, in handler order, with its provenance.
    pub messages: Vec<UserMessage>,
    /// Each modification of the event data, in handler order, with its provenance.
    pub modifications: Vec<Modification>,
    /// Each handler that errored, panicked, timed out or answered nonsense, and was skipped.
    pub failures: Vec<HandlerFailure>,
    /// The hook whose deny or ask_user decided the result, if one did.
    pub decided_by: Option<Arc<str>>,
}

impl EmitResult {
    /// Continue with `data`, nothing else: the result of an emit no handler heard, and of a
    /// chain whose every handler answered a plain `continue`.
    #[inline]
    pub(crate) fn proceed(data: Value) -> Self {
        EmitResult {
            result: HookResult {
                data: Some(data),
                ..HookResult::default()
            },
            injections: Vec::new(),
            messages: Vec::new(),
            modifications: Vec::new(),
            failures: Vec::new(),
            decided_by: None,
        }
    }

    /// The merged action.
    pub fn action(&self) -> HookAction {
        self.result.action
    }

    /// Whether any handler replaced the event data.
    pub fn is_modified(&self) -> bool {
        !self.modifications.is_empty()
    }

    /// Whether the operation was denied.
    pub fn is_denied(&self) -> bool {
        self.result.action == HookAction::Deny
    }

    /// The final event data (as the last handler left it); `Null` only if a handler modified
    /// the data to `null`.
    pub fn data(&self) -> &Value {
        self.result.data.as_ref().unwrap_or(&Value::Null)
    }

    /// Takes the final event data.
    pub fn into_data(self) -> Value {
        self.result.data.unwrap_or(Value::Null)
    }

    /// Takes the merged [`HookResult`], dropping the provenance.
    pub fn into_result(self) -> HookResult {
        self.result
    }

    /// Settles an `ask_user` result by an answer given elsewhere (a remembered "… always", an
    /// approval the caller obtained itself); anything else is left as it is.
    ///
    /// Allowed, the result is what the merge makes of the other answers: the strongest of
    /// what the chain did besides asking, ranked as the merge ranks it (inject_context >
    /// modify > continue), a modification's reason with it, and no question or deciding hook
    /// left. Refused, it is a deny by the hook that asked, with the question as its reason.
    pub fn settle_ask(&mut self, allowed: bool) {
        if self.result.action != HookAction::AskUser {
            return;
        }
        if !allowed {
            let question = self.result.approval_prompt.clone();
            self.result.action = HookAction::Deny;
            self.result.reason = question.or_else(|| self.result.reason.take());
            return;
        }
        let asked = std::mem::take(&mut self.result);
        let done = [
            (!self.injections.is_empty()).then_some(HookAction::InjectContext),
            (!self.modifications.is_empty()).then_some(HookAction::Modify),
        ];
        let action = done
            .into_iter()
            .flatten()
            .max_by_key(|action| action.strength())
            .unwrap_or(HookAction::Continue);
        let reason = match (action, self.modifications.last()) {
            (HookAction::Modify, Some(last)) => last.reason.clone(),
            _ => None,
        };
        // What the chain merged besides the question stays: data, injections, messages.
        self.result = HookResult {
            action,
            reason,
            data: asked.data,
            context_injection: asked.context_injection,
            context_injection_role: asked.context_injection_role,
            ephemeral: asked.ephemeral,
            append_to_last_tool_result: asked.append_to_last_tool_result,
            suppress_output: asked.suppress_output,
            user_message: asked.user_message,
            user_message_level: asked.user_message_level,
            ..HookResult::default()
        };
        self.decided_by = None;
    }
}

/// One context injection, as a handler asked for it, with where it came from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Injection {
    /// The text to inject.
    pub text: String,
    /// The role of the injected message.
    pub role: InjectionRole,
    /// Deliver to the next model call only; never store in history.
    pub ephemeral: bool,
    /// Append to the last tool result instead of adding a message.
    pub append_to_last_tool_result: bool,
    /// The name of the hook that injected it.
    pub hook: Arc<str>,
    /// The canonical event it was injected on.
    pub event: Arc<str>,
}

/// One message for the user, with where it came from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UserMessage {
    /// The message.
    pub text: String,
    /// Its severity.
    pub level: MessageLevel,
    /// Whether the hook asked to hide its own output.
    pub suppress_output: bool,
    /// The name of the hook that produced it.
    pub hook: Arc<str>,
    /// The canonical event it was produced on.
    pub event: Arc<str>,
}

/// One replacement of the event data by a handler.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Modification {
    /// Why the handler modified the data, if it said.
    pub reason: Option<String>,
    /// The name of the hook that modified it.
    pub hook: Arc<str>,
}

impl UserMessage {
    /// A message from `hook` on `event` (its own output not suppressed).
    pub fn new(
        text: impl Into<String>,
        level: MessageLevel,
        hook: impl Into<Arc<str>>,
        event: impl Into<Arc<str>>,
    ) -> Self {
        UserMessage {
            text: text.into(),
            level,
            suppress_output: false,
            hook: hook.into(),
            event: event.into(),
        }
    }
}

/// A handler that was skipped because it failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HandlerFailure {
    /// The name of the handler.
    pub hook: Arc<str>,
    /// The canonical event it failed on.
    pub event: Arc<str>,
    /// What went wrong.
    pub kind: FailureKind,
}

/// How a handler failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FailureKind {
    /// It returned an error; the error itself, with its type and sources.
    Error(HandlerError),
    /// It panicked; the panic message, when it was a string.
    Panic(String),
    /// It did not finish within its timeout.
    Timeout(Duration),
    /// Its answer could not be applied (e.g. `modify` without `data`).
    InvalidResult(String),
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::Error(error) => write!(f, "returned an error: {}", error.chain()),
            FailureKind::Panic(message) => write!(f, "panicked: {message}"),
            FailureKind::Timeout(after) => write!(f, "timed out after {after:?}"),
            FailureKind::InvalidResult(why) => write!(f, "returned an unusable result: {why}"),
        }
    }
}

impl fmt::Display for HandlerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook `{}` {}", self.hook, self.kind)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::{EmitResult, HookAction, HookRegistry, HookResult};

    /// The emit of `tool:pre` through one handler per answer, in the order given.
    fn emit(answers: &[HookResult]) -> EmitResult {
        let registry = HookRegistry::new();
        for (index, answer) in answers.iter().enumerate() {
            let answer = answer.clone();
            let priority = -i32::try_from(index).unwrap_or(i32::MAX);
            registry
                .register(
                    "tool:pre",
                    move |_: &str, _: &Value| {
                        let answer = answer.clone();
                        async move { answer }
                    },
                    priority,
                    format!("h{index}"),
                )
                .expect("registered");
        }
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(registry.emit("tool:pre", json!({"tool_input": {"command": "ls"}})))
    }

    fn without_timestamp(data: Option<Value>) -> Option<Value> {
        data.map(|mut data| {
            if let Some(object) = data.as_object_mut() {
                object.remove("timestamp");
            }
            data
        })
    }

    #[test]
    fn an_allowed_question_settles_as_the_merge_of_the_other_answers() {
        let rewrite = HookResult::modify(json!({"tool_input": {"command": "ls -a"}}))
            .with_reason("show hidden files");
        let note = HookResult::inject("the tree is large");
        for others in [
            vec![rewrite.clone(), note.clone()],
            vec![note.clone(), rewrite.clone()],
            vec![rewrite.clone()],
            vec![note.clone()],
            vec![HookResult::cont()],
        ] {
            let mut asked = others.clone();
            asked.push(HookResult::ask("list the files?"));
            let mut settled = emit(&asked);
            assert_eq!(settled.action(), HookAction::AskUser);
            settled.settle_ask(true);
            let unasked = emit(&others);
            // The merge ranks inject_context above modify, and so does the settled answer.
            assert_eq!(settled.action(), unasked.action(), "{others:?}");
            assert_eq!(settled.result.reason, unasked.result.reason, "{others:?}");
            // Each emit stamps its own time; the rest of the data must match.
            assert_eq!(
                without_timestamp(settled.result.data.clone()),
                without_timestamp(unasked.result.data.clone())
            );
            assert_eq!(
                settled.result.context_injection,
                unasked.result.context_injection
            );
            assert_eq!(settled.result.approval_prompt, None);
            assert_eq!(settled.decided_by, None);
        }
        let mut both = emit(&[rewrite, note, HookResult::ask("list the files?")]);
        both.settle_ask(true);
        assert_eq!(both.action(), HookAction::InjectContext);
    }

    #[test]
    fn a_refused_question_is_a_deny_by_the_hook_that_asked() {
        let mut settled = emit(&[
            HookResult::inject("the tree is large"),
            HookResult::ask("list the files?"),
        ]);
        settled.settle_ask(false);
        assert_eq!(settled.action(), HookAction::Deny);
        assert_eq!(settled.result.reason.as_deref(), Some("list the files?"));
        assert_eq!(settled.decided_by.as_deref(), Some("h1"));
    }

    #[test]
    fn only_a_question_is_settled() {
        for answer in [
            HookResult::deny("no"),
            HookResult::inject("note"),
            HookResult::cont(),
        ] {
            let mut outcome = emit(std::slice::from_ref(&answer));
            let before = outcome.clone();
            outcome.settle_ask(true);
            outcome.settle_ask(false);
            assert_eq!(outcome, before);
        }
    }
}
