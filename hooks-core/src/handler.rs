//! Handlers: what can be registered, and the one erased form the registry stores.
//!
//! Three shapes register directly:
//! - an `async fn(&str, &Value) -> HookResult` (or `-> Result<HookResult, E>` with `E` any
//!   error that converts into a [`BoxError`], where an error is logged and the handler skipped);
//! - a closure with the same signature returning a future (annotate the argument types so the
//!   closure is general over their lifetimes: `|event: &str, data: &Value| async move { .. }`);
//! - a value of a type implementing [`Hook`].
//!
//! A closure whose future uses both the event data and captured state registers through
//! [`owned_fn`].
//!
//! Each is erased once, at registration, into a [`Handler`]. A call's future is stored in place
//! when it is small (an `async fn` that answers without waiting on anything big), and boxed
//! otherwise, as in tower: most handlers cost no allocation per call.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;
use stackfuture::StackFuture;

use crate::error::BoxError;
use crate::outcome::FailureKind;
use crate::{HookAction, HookResult};

/// A boxed, sendable future, as returned by [`Tool::call`](crate::session::Tool::call) and
/// [`ApprovalProvider::ask`](crate::session::ApprovalProvider::ask).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a handler's future may resolve to: a [`HookResult`], or a `Result` whose error makes
/// the registry log the failure and skip the handler.
pub trait IntoHookResult {
    /// Converts into a result, or the error of a failed handler.
    fn into_hook_result(self) -> Result<HookResult, BoxError>;
}

impl IntoHookResult for HookResult {
    fn into_hook_result(self) -> Result<HookResult, BoxError> {
        Ok(self)
    }
}

impl<E: Into<BoxError>> IntoHookResult for Result<HookResult, E> {
    fn into_hook_result(self) -> Result<HookResult, BoxError> {
        self.map_err(Into::into)
    }
}

/// A hook written as a type, for hooks that carry configuration or state.
///
/// A hook that remembers across the events of a session holds the registry's
/// [`StateStore`](crate::state::StateStore) (from [`HookRegistry::state`](crate::HookRegistry::state))
/// and finds each event's [`SessionState`](crate::state::SessionState) with `for_event`; the
/// README's "State across events" shows the whole pattern.
///
/// ```
/// use hooks_core::{Hook, HookResult};
/// use serde_json::Value;
///
/// struct BlockTool(&'static str);
///
/// impl Hook for BlockTool {
///     async fn handle(&self, _event: &str, data: &Value) -> HookResult {
///         if data["tool_name"] == self.0 {
///             HookResult::deny(format!("{} is disabled in this workspace", self.0))
///         } else {
///             HookResult::cont()
///         }
///     }
/// }
/// ```
pub trait Hook: Send + Sync + 'static {
    /// Handles one event. `data` is the event data as the previous handlers left it.
    fn handle(&self, event: &str, data: &Value) -> impl Future<Output = HookResult> + Send;
}

/// The signature of a handler function, general over the lifetimes of its arguments.
///
/// Implemented for every `Fn(&str, &Value) -> impl Future<Output: IntoHookResult>` that is
/// `Send + Sync + 'static`, which includes plain `async fn`s; never implement it by hand.
pub trait HookFn<'a>: Send + Sync + 'static {
    /// What the future resolves to.
    type Output: IntoHookResult;
    /// The future the call returns.
    type Future: Future<Output = Self::Output> + Send + 'a;

    /// Calls the handler.
    fn call(&self, event: &'a str, data: &'a Value) -> Self::Future;
}

impl<'a, F, Fut> HookFn<'a> for F
where
    F: Fn(&'a str, &'a Value) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
    Fut::Output: IntoHookResult,
{
    type Output = Fut::Output;
    type Future = Fut;

    fn call(&self, event: &'a str, data: &'a Value) -> Fut {
        self(event, data)
    }
}

/// A handler's answer as the registry carries it.
///
/// A plain `continue` (no data, reason, message or injection) is by far the most common
/// answer; it travels as a tag instead of a whole [`HookResult`], and any other answer as one
/// pointer, so a chain of observers moves and drops almost nothing.
pub(crate) enum Answer {
    Continue,
    Full(Box<HookResult>),
    Failed(FailureKind),
}

impl Answer {
    #[inline(always)]
    pub(crate) fn from_output(output: impl IntoHookResult) -> Answer {
        match output.into_hook_result() {
            Ok(result) => Answer::from_result(result),
            Err(error) => Answer::Failed(FailureKind::Error(error.into())),
        }
    }

    /// A plain `continue` (nothing to merge, show or inject) as the tag, anything else boxed.
    #[inline(always)]
    fn from_result(result: HookResult) -> Answer {
        // Taken apart field by field, exhaustively (a new field must be placed here): once each
        // field that owns memory is seen to be `None` the compiler drops nothing, so the
        // `continue` a handler builds costs no drop glue and usually folds away entirely.
        let HookResult {
            action,
            data,
            reason,
            context_injection,
            context_injection_role,
            ephemeral,
            approval_prompt,
            approval_options,
            approval_timeout,
            approval_default,
            suppress_output,
            user_message,
            user_message_level,
            append_to_last_tool_result,
        } = result;
        if action == HookAction::Continue
            && data.is_none()
            && reason.is_none()
            && context_injection.is_none()
            && user_message.is_none()
            && !suppress_output
            && approval_prompt.is_none()
            && approval_options.is_none()
        {
            return Answer::Continue;
        }
        Answer::Full(Box::new(HookResult {
            action,
            data,
            reason,
            context_injection,
            context_injection_role,
            ephemeral,
            approval_prompt,
            approval_options,
            approval_timeout,
            approval_default,
            suppress_output,
            user_message,
            user_message_level,
            append_to_last_tool_result,
        }))
    }
}

pin_project_lite::pin_project! {
    /// A handler's future, its output turned into an [`Answer`].
    ///
    /// A struct rather than `async move { Answer::from_output(future.await) }`: such a block
    /// keeps the future it captured beside the one it awaits, twice the handler's size, which
    /// pushes ordinary handlers past [`INLINE_CALL_BYTES`] into a box.
    pub(crate) struct Answered<F> {
        #[pin]
        future: F,
    }
}

impl<F> Answered<F> {
    #[inline]
    pub(crate) fn new(future: F) -> Self {
        Answered { future }
    }
}

impl<F> Future for Answered<F>
where
    F: Future,
    F::Output: IntoHookResult,
{
    type Output = Answer;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        self.project().future.poll(cx).map(Answer::from_output)
    }
}

/// The bytes a call's future may take to be stored in place rather than boxed.
///
/// A handler that answers without awaiting anything big holds little more than its arguments:
/// the call of a no-op `async fn` takes 32 bytes, one taking a typed view 56. The call is
/// pinned where the chain makes it and never moved, but the room is part of the emit's future,
/// which is copied when the caller moves it; so it is kept small, and a handler that holds more
/// across an await (a buffer, a spawned process) pays an allocation instead.
const INLINE_CALL_BYTES: usize = 96;

/// The future of one erased call: in place when it fits [`INLINE_CALL_BYTES`], boxed otherwise.
pub(crate) type CallFuture<'a> = StackFuture<'a, Answer, INLINE_CALL_BYTES>;

/// The erased call every handler is turned into.
pub(crate) trait ErasedHook: Send + Sync {
    fn call<'a>(&'a self, event: &'a str, data: &'a Value) -> CallFuture<'a>;
}

struct FnHook<F>(F);

impl<F> ErasedHook for FnHook<F>
where
    F: for<'a> HookFn<'a>,
{
    fn call<'a>(&'a self, event: &'a str, data: &'a Value) -> CallFuture<'a> {
        CallFuture::from_or_box(Answered::new(self.0.call(event, data)))
    }
}

struct TraitHook<H>(H);

impl<H: Hook> ErasedHook for TraitHook<H> {
    fn call<'a>(&'a self, event: &'a str, data: &'a Value) -> CallFuture<'a> {
        CallFuture::from_or_box(Answered::new(self.0.handle(event, data)))
    }
}

struct OwnedFnHook<F>(F);

impl<F, Fut> ErasedHook for OwnedFnHook<F>
where
    F: Fn(String, Value) -> Fut + Send + Sync,
    Fut: Future + Send + 'static,
    Fut::Output: IntoHookResult,
{
    fn call<'a>(&'a self, event: &'a str, data: &'a Value) -> CallFuture<'a> {
        CallFuture::from_or_box(Answered::new((self.0)(event.to_owned(), data.clone())))
    }
}

/// A handler from a closure that takes the event name and a copy of its data by value, so
/// that its future may also use what the closure captured (clone it into the future):
/// `owned_fn(move |event, data| { let state = state.clone(); async move { .. } })`.
///
/// A closure whose future uses the event data *and* captured state (a counter, a shared
/// store) cannot be registered as a plain `|event: &str, data: &Value|` closure: its future
/// would borrow both the closure and the arguments, which a closure's return type cannot express, and `async` closures cannot
/// promise a `Send` future on stable Rust. `owned_fn` takes such a closure: it gets the event
/// and a copy of its data by value, so its future owns everything it uses:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use hooks_core::{HookRegistry, HookResult, owned_fn};
///
/// let calls = Arc::new(AtomicUsize::new(0));
/// let counted = Arc::clone(&calls);
/// let registry = HookRegistry::new();
/// registry.register("tool:pre", owned_fn(move |_event, data| {
///     let calls = Arc::clone(&counted);
///     async move {
///         if calls.fetch_add(1, Ordering::Relaxed) >= 100 {
///             HookResult::deny(format!("too many tool calls ({})", data["tool_name"]))
///         } else {
///             HookResult::cont()
///         }
///     }
/// }), 0, "call_budget").unwrap();
/// ```
///
/// The copy of the data costs a clone per call; a [`Hook`] on a struct holding the state
/// (see [`Hook`]'s docs) costs none.
pub fn owned_fn<F, Fut>(handler: F) -> Handler
where
    F: Fn(String, Value) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoHookResult,
{
    Handler::from_erased(OwnedFnHook(handler))
}

/// A handler ready to register: any supported shape, erased.
///
/// Cloning is cheap (the handler is shared), so one handler can serve several events.
#[derive(Clone)]
pub struct Handler {
    inner: Arc<dyn ErasedHook>,
}

impl Handler {
    /// Erases a handler function or closure.
    pub fn from_fn<F>(handler: F) -> Self
    where
        F: for<'a> HookFn<'a>,
    {
        Handler {
            inner: Arc::new(FnHook(handler)),
        }
    }

    /// Erases a [`Hook`] value.
    pub fn from_hook<H: Hook>(hook: H) -> Self {
        Handler {
            inner: Arc::new(TraitHook(hook)),
        }
    }

    /// Wraps a handler shape defined elsewhere in the crate (the typed views' adapter).
    pub(crate) fn from_erased(hook: impl ErasedHook + 'static) -> Self {
        Handler {
            inner: Arc::new(hook),
        }
    }

    /// Calls the handler directly, without the registry's timeout and panic isolation: the
    /// answer, or the error the handler returned (a [`HandlerError`](crate::HandlerError)
    /// holding it).
    pub async fn call(&self, event: &str, data: &Value) -> Result<HookResult, BoxError> {
        match self.erased_call(event, data).await {
            Answer::Continue => Ok(HookResult::cont()),
            Answer::Full(result) => Ok(*result),
            Answer::Failed(FailureKind::Error(error)) => Err(Box::new(error)),
            Answer::Failed(other) => Err(other.to_string().into()),
        }
    }

    pub(crate) fn erased_call<'a>(&'a self, event: &'a str, data: &'a Value) -> CallFuture<'a> {
        self.inner.call(event, data)
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handler").finish_non_exhaustive()
    }
}

/// Anything that can be registered as a handler. `Marker` only tells the shapes apart; it is
/// inferred, never written.
pub trait IntoHandler<Marker> {
    /// Erases `self` into a [`Handler`].
    fn into_handler(self) -> Handler;
}

/// Marker types that let [`IntoHandler`] cover every handler shape without overlapping impls.
/// Public in a private module: they appear in the impls, and nobody names them.
pub mod marker {
    /// A function or closure handler.
    #[derive(Debug)]
    pub enum FnHandler {}
    /// A [`Hook`](crate::Hook) value.
    #[derive(Debug)]
    pub enum HookValue {}
    /// An already erased [`Handler`](crate::Handler).
    #[derive(Debug)]
    pub enum Erased {}
}

impl<F> IntoHandler<marker::FnHandler> for F
where
    F: for<'a> HookFn<'a>,
{
    fn into_handler(self) -> Handler {
        Handler::from_fn(self)
    }
}

impl<H: Hook> IntoHandler<marker::HookValue> for H {
    fn into_handler(self) -> Handler {
        Handler::from_hook(self)
    }
}

impl IntoHandler<marker::Erased> for Handler {
    fn into_handler(self) -> Handler {
        self
    }
}
