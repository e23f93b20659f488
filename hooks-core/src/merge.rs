//! The fold of a handler chain's answers into one [`EmitResult`] (the emit rules 2-7 of [`HookRegistry::emit`](crate::HookRegistry::emit)).
//!
//! - deny stops the chain and decides;
//! - modify replaces the data later handlers see;
//! - every injection is kept, in order, with its provenance;
//! - the first ask_user decides unless a later handler denies;
//! - every user message is kept;
//! - the merged action is the strongest seen, ranked by [`HookAction::strength`]: deny >
//!   ask_user > inject_context > modify > continue.

use std::sync::Arc;

use serde_json::Value;

use crate::outcome::{
    EmitResult, FailureKind, HandlerFailure, Injection, Modification, UserMessage,
};
use crate::{HookAction, HookResult, MessageLevel};

/// Whether the chain goes on after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// The state of a chain between handlers.
///
/// It allocates nothing and counts no reference until an answer has something to record, so a
/// chain of plain `continue`s costs nothing here; and it is two words until then, which keeps
/// the emit's future small (every move of that future copies it).
pub(crate) struct Merge<'e> {
    event: &'e Arc<str>,
    record: Option<Box<Record>>,
}

/// What the answers of a chain left to merge.
#[derive(Default)]
struct Record {
    injections: Vec<Injection>,
    messages: Vec<UserMessage>,
    failures: Vec<HandlerFailure>,
    /// The deny that ended the chain, or the first ask_user, with the hook that answered it.
    decision: Option<(Box<HookResult>, Arc<str>)>,
    modifications: Vec<Modification>,
    suppress_output: bool,
}

impl<'e> Merge<'e> {
    pub(crate) fn new(event: &'e Arc<str>) -> Self {
        Merge {
            event,
            record: None,
        }
    }

    fn record(&mut self) -> &mut Record {
        self.record.get_or_insert_with(Box::default)
    }

    /// Records a handler that failed and was skipped.
    pub(crate) fn fail(&mut self, hook: &Arc<str>, kind: FailureKind) {
        log_failure(hook, self.event, &kind);
        let event = Arc::clone(self.event);
        self.record().failures.push(HandlerFailure {
            hook: Arc::clone(hook),
            event,
            kind,
        });
    }

    /// Folds one answer in; `data` is the chain's current event data.
    pub(crate) fn absorb(
        &mut self,
        hook: &Arc<str>,
        mut answer: Box<HookResult>,
        data: &mut Value,
    ) -> Flow {
        let event = self.event;
        let record = self.record();
        record.suppress_output |= answer.suppress_output;
        if let Some(text) = answer.user_message.take() {
            record.messages.push(UserMessage {
                text,
                level: answer.user_message_level,
                suppress_output: answer.suppress_output,
                hook: Arc::clone(hook),
                event: Arc::clone(event),
            });
        }
        // An injection is honoured whatever the action: text a hook wrote for the agent is
        // never dropped just because the hook also denied or modified.
        if let Some(text) = answer.context_injection.take() {
            record.injections.push(Injection {
                text,
                role: answer.context_injection_role,
                ephemeral: answer.ephemeral,
                append_to_last_tool_result: answer.append_to_last_tool_result,
                hook: Arc::clone(hook),
                event: Arc::clone(event),
            });
        } else if answer.action == HookAction::InjectContext {
            self.fail(
                hook,
                FailureKind::InvalidResult("inject_context without context_injection".into()),
            );
        }

        let record = self.record();
        match answer.action {
            HookAction::Deny => {
                if let Some(replacement) = answer.data.take() {
                    *data = replacement;
                }
                record.decision = Some((answer, Arc::clone(hook)));
                return Flow::Stop;
            }
            HookAction::AskUser => match &record.decision {
                // Only a stronger answer replaces a decision: a later ask_user does not.
                Some((first, by)) if first.action.strength() >= answer.action.strength() => {
                    tracing::debug!(
                        hook = %hook, first = %by, event = %event,
                        "a later ask_user is superseded by the first"
                    );
                }
                _ => record.decision = Some((answer, Arc::clone(hook))),
            },
            HookAction::Modify => match answer.data.take() {
                Some(replacement) => {
                    *data = replacement;
                    record.modifications.push(Modification {
                        reason: answer.reason.take(),
                        hook: Arc::clone(hook),
                    });
                }
                None => self.fail(
                    hook,
                    FailureKind::InvalidResult("modify without data".into()),
                ),
            },
            HookAction::InjectContext | HookAction::Continue => {}
        }
        Flow::Continue
    }

    /// The merged result, carrying `data` as the final event data.
    #[inline]
    pub(crate) fn finish(self, data: Value) -> EmitResult {
        match self.record {
            // Nothing recorded (every handler answered a plain continue): the merge below
            // would build this very result field by field.
            None => EmitResult::proceed(data),
            Some(record) => record.finish(data),
        }
    }
}

impl Record {
    #[cold]
    fn finish(self, data: Value) -> EmitResult {
        let (mut result, decided_by) = match self.decision {
            Some((decided, hook)) => (*decided, Some(hook)),
            None => (HookResult::default(), None),
        };
        // What was done besides a decision counts too: the strongest action of all wins.
        let done = [
            (!self.injections.is_empty()).then_some(HookAction::InjectContext),
            (!self.modifications.is_empty()).then_some(HookAction::Modify),
        ];
        if let Some(action) = done.into_iter().flatten().max_by_key(|a| a.strength())
            && action.strength() > result.action.strength()
        {
            result.action = action;
            if let (HookAction::Modify, Some(last)) = (action, self.modifications.last()) {
                result.reason.clone_from(&last.reason);
            }
        }
        // As in the reference, the merged injection takes the first injection's settings;
        // `injections` keeps each one's own.
        if let Some(first) = self.injections.first() {
            result.context_injection_role = first.role;
            result.ephemeral = first.ephemeral;
            result.append_to_last_tool_result = first.append_to_last_tool_result;
        }
        result.data = Some(data);
        result.context_injection = join(self.injections.iter().map(|i| i.text.as_str()), "\n\n");
        result.user_message = join(self.messages.iter().map(|m| m.text.as_str()), "\n");
        result.user_message_level = self
            .messages
            .iter()
            .map(|m| m.level)
            .max_by_key(|level| level_rank(*level))
            .unwrap_or(MessageLevel::Info);
        result.suppress_output = self.suppress_output;
        EmitResult {
            result,
            injections: self.injections,
            messages: self.messages,
            modifications: self.modifications,
            failures: self.failures,
            decided_by,
        }
    }
}

/// Logs a handler that failed and is skipped.
pub(crate) fn log_failure(hook: &str, event: &str, kind: &FailureKind) {
    tracing::warn!(hook, event, "hook handler skipped: {kind}");
}

fn level_rank(level: MessageLevel) -> u8 {
    match level {
        MessageLevel::Info => 0,
        MessageLevel::Warning => 1,
        MessageLevel::Error => 2,
    }
}

fn join<'a>(mut parts: impl Iterator<Item = &'a str>, separator: &str) -> Option<String> {
    let first = parts.next()?;
    let mut joined = first.to_owned();
    for part in parts {
        joined.push_str(separator);
        joined.push_str(part);
    }
    Some(joined)
}
