//! Approvals: putting an `ask_user` result to the user, safely.
//!
//! An [`ApprovalProvider`] asks (a terminal, a UI, a chat message) and returns the option the
//! user chose. [`Approvals`] wraps it with the rules every application needs and easily gets
//! wrong: a timeout, an error, an absent provider or an answer that is none of the options
//! offered all resolve to the request's default, which is deny unless the hook said otherwise;
//! "… always" answers are remembered for the session, keyed on what was asked, in the
//! session's [state](crate::state) (so that, kept in a file store, they outlast the process);
//! every decision is emitted as `approval:granted` or `approval:denied`.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Value, json};

use crate::events::fields::SESSION_ID;
use crate::events::{APPROVAL_DENIED, APPROVAL_GRANTED, APPROVAL_REQUIRED};
use crate::handler::BoxFuture;
use crate::panic::panic_message;
use crate::state::{SessionState, StateStore};
use crate::sync::lock;
use crate::{ApprovalDefault, HookRegistry, HookResult};

/// What is put to the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// The question.
    pub prompt: String,
    /// The answers offered (Allow/Deny unless the hook set others).
    pub options: Vec<String>,
    /// How long to wait for an answer.
    pub timeout: Duration,
    /// The decision when no usable answer comes.
    pub default: ApprovalDefault,
    /// Why the hook asks, if it said.
    pub reason: Option<String>,
    /// The hook that asked, if known.
    pub hook: Option<Arc<str>>,
    /// The event being decided.
    pub event: String,
}

impl ApprovalRequest {
    /// The request an `ask_user` result makes on `event`. Without a prompt, the reason (or a
    /// generic question naming the event) is asked.
    pub fn from_result(result: &HookResult, event: &str, hook: Option<Arc<str>>) -> Self {
        let prompt = result
            .approval_prompt
            .clone()
            .or_else(|| result.reason.clone())
            .unwrap_or_else(|| format!("Allow `{event}` to proceed?"));
        ApprovalRequest {
            prompt,
            options: result.effective_approval_options(),
            timeout: result.approval_timeout_duration(),
            default: result.approval_default,
            reason: result.reason.clone(),
            hook,
            event: event.to_owned(),
        }
    }
}

/// Why a provider could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("approval provider failed: {0}")]
pub struct ApprovalError(pub String);

/// Something that can ask the user: a terminal, a UI, a chat message, a script in tests.
pub trait ApprovalProvider: Send + Sync {
    /// Asks `request.prompt`, offering `request.options`; returns the option chosen. It need
    /// not enforce the timeout: [`Approvals`] does.
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>>;
}

/// How a decision was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecisionSource {
    /// The user chose an option.
    User,
    /// An earlier "… always" answer to the same question.
    Remembered,
    /// No answer within the timeout: the default applied.
    Timeout,
    /// The provider failed: the default applied.
    ProviderError(String),
    /// No provider is configured: the default applied.
    NoProvider,
    /// The answer was none of the options offered, or neither allow nor deny: the default
    /// applied.
    UnusableAnswer(String),
}

impl fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecisionSource::User => f.write_str("the user"),
            DecisionSource::Remembered => f.write_str("an earlier \"always\" answer"),
            DecisionSource::Timeout => f.write_str("the default, after the timeout"),
            DecisionSource::ProviderError(error) => {
                write!(f, "the default, as the approval provider failed ({error})")
            }
            DecisionSource::NoProvider => f.write_str("the default, as no one can be asked"),
            DecisionSource::UnusableAnswer(answer) => {
                write!(f, "the default, as the answer `{answer}` was not an option")
            }
        }
    }
}

/// The decision on one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalDecision {
    /// Whether the operation may proceed.
    pub allowed: bool,
    /// The option chosen, when the user chose one.
    pub choice: Option<String>,
    /// How the decision was reached.
    pub source: DecisionSource,
}

/// The key of a session's [state](crate::state) that holds its "… always" answers: an object
/// from each question asked to whether it was allowed.
pub const REMEMBERED_KEY: &str = "hooks.approval.remembered";

/// Approvals for one session: a provider (or none), the "… always" answers given so far (in
/// the session's state), and the registry that hears `approval:*` events.
pub struct Approvals {
    provider: Option<Arc<dyn ApprovalProvider>>,
    remembered: SessionState,
    /// The session id added to the `approval:*` events, when they belong to a session.
    session_id: Option<Arc<str>>,
    registry: HookRegistry,
}

impl fmt::Debug for Approvals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approvals")
            .field("provider", &self.provider.is_some())
            .field(
                "remembered",
                &self.remembered.get(REMEMBERED_KEY).ok().flatten(),
            )
            .finish_non_exhaustive()
    }
}

impl Approvals {
    /// Approvals asked through `provider` (`None`: every request gets its default), with
    /// decisions emitted on `registry` and "… always" answers kept in memory for the life of
    /// this value: the rules on their own, e.g. to test a provider. A session's approvals are
    /// set on its builder,
    /// [`HookSessionBuilder::approvals`](crate::session::HookSessionBuilder::approvals).
    pub fn new(provider: Option<Arc<dyn ApprovalProvider>>, registry: HookRegistry) -> Self {
        let remembered = StateStore::in_memory().private_session("approvals");
        Approvals {
            provider,
            remembered,
            session_id: None,
            registry,
        }
    }

    /// Keeps the "… always" answers in `state` (under [`REMEMBERED_KEY`]), and names its
    /// session in the `approval:*` events.
    #[must_use]
    pub fn remembering_in(mut self, state: SessionState) -> Self {
        self.session_id = Some(state.id().into());
        self.remembered = state;
        self
    }

    /// The remembered answer to `prompt`, if an earlier "… always" gave one. A state that
    /// cannot be read remembers nothing (the user is asked again), with a warning.
    pub fn remembered(&self, prompt: &str) -> Option<bool> {
        match self.remembered.get(REMEMBERED_KEY) {
            Ok(answers) => answers?.get(prompt)?.as_bool(),
            Err(error) => {
                tracing::warn!(%error, "remembered approvals unavailable; asking again");
                None
            }
        }
    }

    /// Remembers `allowed` as the answer to `prompt` for the rest of the session.
    pub fn remember(&self, prompt: &str, allowed: bool) {
        let stored = self.remembered.update(REMEMBERED_KEY, |answers| {
            if !answers.is_object() {
                *answers = Value::Object(serde_json::Map::new());
            }
            if let Value::Object(answers) = answers {
                answers.insert(prompt.to_owned(), Value::Bool(allowed));
            }
        });
        if let Err(error) = stored {
            tracing::warn!(%error, "an \"always\" answer could not be remembered");
        }
    }

    /// Decides `request`: from memory, from the provider, or by its default; emits the
    /// decision as `approval:granted` or `approval:denied`.
    pub async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let decision = match self.remembered(&request.prompt) {
            Some(allowed) => ApprovalDecision {
                allowed,
                choice: None,
                source: DecisionSource::Remembered,
            },
            None => self.ask(request).await,
        };
        self.announce(request, &decision).await;
        decision
    }

    async fn ask(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let default = |source| ApprovalDecision {
            allowed: request.default == ApprovalDefault::Allow,
            choice: None,
            source,
        };
        let Some(provider) = &self.provider else {
            return default(DecisionSource::NoProvider);
        };
        self.registry
            .emit(APPROVAL_REQUIRED, self.request_data(request))
            .await;
        // A provider that panics (a crashed dialog) is a failed provider: the default
        // decides, and the caller's tool call is not unwound with it.
        let asked = CatchPanic::new(|| provider.ask(request));
        let answer = match tokio::time::timeout(request.timeout, asked).await {
            Err(_elapsed) => return default(DecisionSource::Timeout),
            Ok(Err(ApprovalError(error))) => return default(DecisionSource::ProviderError(error)),
            Ok(Ok(answer)) => answer,
        };
        let Some(allowed) = interpret(&answer, &request.options) else {
            return default(DecisionSource::UnusableAnswer(answer));
        };
        if answer.to_ascii_lowercase().contains("always") {
            self.remember(&request.prompt, allowed);
        }
        ApprovalDecision {
            allowed,
            choice: Some(answer),
            source: DecisionSource::User,
        }
    }

    async fn announce(&self, request: &ApprovalRequest, decision: &ApprovalDecision) {
        let event = if decision.allowed {
            APPROVAL_GRANTED
        } else {
            APPROVAL_DENIED
        };
        let mut data = self.request_data(request);
        data["choice"] = json!(decision.choice);
        data["decided_by"] = json!(decision.source.to_string());
        self.registry.emit(event, data).await;
    }

    fn request_data(&self, request: &ApprovalRequest) -> Value {
        let mut data = json!({
            "prompt": request.prompt,
            "options": request.options,
            "timeout_secs": request.timeout.as_secs_f64(),
            "default": request.default.as_str(),
            "hook": request.hook.as_deref(),
            "event": request.event,
        });
        if let Some(id) = &self.session_id {
            data[SESSION_ID] = Value::from(&**id);
        }
        data
    }
}

/// Whether an answer allows (`Some(true)`) or denies (`Some(false)`); `None` when it is not
/// one of the options offered, or says neither. Any word of refusal or negation wins, so
/// "Don't allow" denies.
fn interpret(answer: &str, options: &[String]) -> Option<bool> {
    if !options.iter().any(|option| option == answer) {
        return None;
    }
    let answer = answer.to_ascii_lowercase();
    let says = |words: &[&str]| words.iter().any(|word| answer.contains(word));
    if answer == "no"
        || says(&[
            "deny", "reject", "block", "never", "don't", "do not", "not ",
        ])
    {
        Some(false)
    } else if answer == "yes" || says(&["allow", "approve", "accept"]) {
        Some(true)
    } else {
        None
    }
}

/// An approval provider's answer with panic isolation: a panic, when the call is made or
/// while it is polled, becomes an [`ApprovalError`] carrying the panic message.
struct CatchPanic<'a> {
    call: Result<BoxFuture<'a, Result<String, ApprovalError>>, Option<String>>,
}

impl<'a> CatchPanic<'a> {
    fn new(start: impl FnOnce() -> BoxFuture<'a, Result<String, ApprovalError>>) -> Self {
        CatchPanic {
            call: catch_unwind(AssertUnwindSafe(start))
                .map_err(|payload| Some(panic_message(&*payload))),
        }
    }
}

impl Future for CatchPanic<'_> {
    type Output = Result<String, ApprovalError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let message = match &mut self.call {
            Err(message) => message.take().unwrap_or_default(),
            Ok(call) => match catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx))) {
                Ok(poll) => return poll,
                Err(payload) => panic_message(&*payload),
            },
        };
        Poll::Ready(Err(ApprovalError(format!("it panicked: {message}"))))
    }
}

/// One scripted answer of [`ScriptedApprovals`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptedAnswer {
    /// Choose this option.
    Choose(String),
    /// Fail with this error.
    Fail(String),
    /// Never answer (the request times out).
    Hang,
}

/// An [`ApprovalProvider`] that plays answers from a script, for tests and demos, and records
/// every request it was asked.
#[derive(Debug, Default)]
pub struct ScriptedApprovals {
    script: Mutex<std::collections::VecDeque<ScriptedAnswer>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl ScriptedApprovals {
    /// A provider choosing `answers` in turn; once they run out it fails (so the default
    /// applies).
    pub fn choosing<I, S>(answers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ScriptedApprovals::new(
            answers
                .into_iter()
                .map(|a| ScriptedAnswer::Choose(a.into())),
        )
    }

    /// A provider playing `script` in turn.
    pub fn new(script: impl IntoIterator<Item = ScriptedAnswer>) -> Self {
        ScriptedApprovals {
            script: Mutex::new(script.into_iter().collect()),
            asked: Mutex::new(Vec::new()),
        }
    }

    /// Adds an answer at the end of the script.
    pub fn push(&self, answer: ScriptedAnswer) {
        lock(&self.script).push_back(answer);
    }

    /// Every request asked so far.
    pub fn asked(&self) -> Vec<ApprovalRequest> {
        lock(&self.asked).clone()
    }
}

impl ApprovalProvider for ScriptedApprovals {
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>> {
        lock(&self.asked).push(request.clone());
        let next = lock(&self.script).pop_front();
        Box::pin(async move {
            match next {
                Some(ScriptedAnswer::Choose(option)) => Ok(option),
                Some(ScriptedAnswer::Fail(error)) => Err(ApprovalError(error)),
                Some(ScriptedAnswer::Hang) => std::future::pending().await,
                None => Err(ApprovalError("the script has no more answers".into())),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::interpret;

    fn options(list: &[&str]) -> Vec<String> {
        list.iter().map(|o| (*o).to_owned()).collect()
    }

    #[test]
    fn answers_are_read_as_allow_or_deny_only_when_offered_and_clear() {
        let offered = options(&["Allow once", "Allow always", "Deny", "Deny always"]);
        assert_eq!(interpret("Allow once", &offered), Some(true));
        assert_eq!(interpret("Allow always", &offered), Some(true));
        assert_eq!(interpret("Deny always", &offered), Some(false));
        assert_eq!(interpret("allow", &offered), None, "not an option offered");
        let yes_no = options(&["Yes", "No", "Maybe"]);
        assert_eq!(interpret("Yes", &yes_no), Some(true));
        assert_eq!(interpret("No", &yes_no), Some(false));
        assert_eq!(interpret("Maybe", &yes_no), None, "neither allow nor deny");
        let negated = options(&["Don't allow", "Never allow", "Allow"]);
        assert_eq!(interpret("Don't allow", &negated), Some(false));
        assert_eq!(interpret("Never allow", &negated), Some(false));
    }
}
