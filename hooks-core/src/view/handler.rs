//! Typed handlers: a function taking a view, registered as an ordinary [`Handler`].
//!
//! The registry still calls every handler with `(&str, &Value)`; the adapter builds the view
//! from the payload it is lent (no copy) and calls the function with it, inside the same one
//! call future a JSON handler costs. Data the view refuses is the handler's failure.

use std::future::Future;
use std::marker::PhantomData;

use serde_json::Value;

use super::EventView;
use crate::handler::{Answer, Answered, CallFuture, ErasedHook};
use crate::{
    EventNameError, Handler, HookHandle, HookOptions, HookRegistry, HookResult, IntoHookResult,
};

/// The signature of a typed handler: an `async fn` (or closure) taking one view of an event,
/// general over the view's lifetime. `View` is the view at `'static`, which only says which
/// view the function takes; it is inferred, never written.
///
/// Implemented for every `Fn(V<'a>) -> impl Future<Output: IntoHookResult>` that is
/// `Send + Sync + 'static`, for every view `V` (an [`EventView`], the built-in ones and an
/// application's own); never implement it by hand.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a typed hook function",
    label = "expected an `async fn` taking one event view, such as `ToolPre<'_>`",
    note = "a typed hook is `async fn name(call: ToolPre<'_>) -> ToolPreDecision` (any type \
            implementing `hooks_core::view::EventView`, any answer implementing `IntoHookResult`)"
)]
pub trait ViewFn<'a, View>: Send + Sync + 'static {
    /// The view the function takes, at `'a`.
    type View: EventView<'a>;
    /// What the future resolves to.
    type Output: IntoHookResult;
    /// The future the call returns.
    type Future: Future<Output = Self::Output> + Send + 'a;

    /// Calls the function.
    fn call(&self, view: Self::View) -> Self::Future;
}

/// Implemented by every function taking `V`: it names the view a function takes at
/// `'static`, the lifetime the marker of [`ViewFn`] is inferred at. Not a public API.
#[doc(hidden)]
pub trait TakesView<V> {}

impl<F: Fn(V) -> R, V, R> TakesView<V> for F {}

// `TakesView` infers the view at `'static` from the function's type, and `V::At<'a>` gives it
// at every other lifetime: a projection alone could not be inferred.
impl<'a, F, V, Fut> ViewFn<'a, V> for F
where
    V: EventView<'static>,
    F: TakesView<V> + Fn(V::At<'a>) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
    Fut::Output: IntoHookResult,
{
    type View = V::At<'a>;
    type Output = Fut::Output;
    type Future = Fut;

    fn call(&self, view: V::At<'a>) -> Fut {
        self(view)
    }
}

/// A typed function as the registry stores it.
struct ViewHook<F, V> {
    function: F,
    view: PhantomData<fn() -> V>,
}

impl<F, V> ErasedHook for ViewHook<F, V>
where
    F: for<'a> ViewFn<'a, V>,
    V: 'static,
{
    fn call<'a>(&'a self, _event: &'a str, data: &'a Value) -> CallFuture<'a> {
        match <F as ViewFn<'a, V>>::View::from_data(data) {
            Ok(view) => {
                // The refusal is decided before the future is built, so that the future holds
                // only the function's own and stays small enough to be stored in place.
                CallFuture::from_or_box(Answered::new(self.function.call(view)))
            }
            // The registry's usual failure path: logged and skipped, or a deny when the
            // handler fails closed.
            Err(refused) => CallFuture::from_or_box(std::future::ready(Answer::from_output(
                Err::<HookResult, _>(refused),
            ))),
        }
    }
}

impl Handler {
    /// Erases a typed function: one taking a view such as [`ToolPre`](crate::view::ToolPre).
    ///
    /// The handler builds the view from each event's data; data the view refuses (a required
    /// field absent, null or of the wrong kind) is a failure of the handler, which never runs
    /// on it.
    pub fn from_view<V, F>(function: F) -> Self
    where
        F: for<'a> ViewFn<'a, V>,
        V: 'static,
    {
        Handler::from_erased(ViewHook {
            function,
            view: PhantomData,
        })
    }
}

/// The canonical event of the view a typed function takes. `#[hook]` uses it to infer the
/// event of a typed hook; it is `const` so that a registration can be built at compile time.
pub const fn view_event<V, F>(_function: &F) -> &'static str
where
    V: EventView<'static>,
    F: for<'a> ViewFn<'a, V>,
{
    V::EVENT
}

/// Whether two canonical event names are the same, at compile time (`#[hook]` checks that a
/// typed hook's `event` agrees with its view); not a public API.
#[doc(hidden)]
pub const fn same_event(left: &str, right: &str) -> bool {
    let (left, right) = (left.as_bytes(), right.as_bytes());
    if left.len() != right.len() {
        return false;
    }
    let mut index = 0;
    while index < left.len() {
        if left[index] != right[index] {
            return false;
        }
        index += 1;
    }
    true
}

impl HookRegistry {
    /// Registers a typed function for the event of the view it takes, with the given options.
    ///
    /// ```
    /// use hooks_core::decision::ToolPreDecision;
    /// use hooks_core::view::ToolPre;
    /// use hooks_core::{HookOptions, HookRegistry};
    /// use serde_json::json;
    ///
    /// async fn no_sudo(call: ToolPre<'_>) -> ToolPreDecision {
    ///     match call.tool_input()["command"].as_str() {
    ///         Some(command) if command.starts_with("sudo ") => {
    ///             ToolPreDecision::deny("sudo is not available; run without it")
    ///         }
    ///         _ => ToolPreDecision::proceed(),
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let registry = HookRegistry::new();
    /// let handle = registry.register_view(no_sudo, HookOptions::new().name("no_sudo"))?;
    /// assert_eq!(handle.event(), "tool:pre");
    /// let outcome = registry
    ///     .emit("tool:pre", json!({"tool_name": "bash", "tool_input": {"command": "sudo rm x"}}))
    ///     .await;
    /// assert!(outcome.is_denied());
    /// # Ok::<(), hooks_core::EventNameError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// The event is the view's [`EVENT`](EventView::EVENT): a built-in view's is always
    /// canonical; an application's view whose event is not a valid name is refused with the
    /// error of [`HookRegistry::register_with`].
    pub fn register_view<V, F>(
        &self,
        function: F,
        options: HookOptions,
    ) -> Result<HookHandle, EventNameError>
    where
        F: for<'a> ViewFn<'a, V>,
        V: EventView<'static> + 'static,
    {
        let options = options.name_or_else(|| std::any::type_name::<F>().to_owned());
        self.register_with(V::EVENT, Handler::from_view(function), options)
    }
}
