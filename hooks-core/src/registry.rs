//! [`HookRegistry`]: registration, and lock-free dispatch of events to handlers.
//!
//! Writers (register, unregister) take a mutex, edit the authoritative table and publish an
//! immutable snapshot through an [`ArcSwap`]. Emitters only load the snapshot: they never take
//! a lock and are never blocked by a writer. An emit in flight keeps the snapshot it started
//! with, except that a handler unregistered meanwhile is not started any more.

use std::any::type_name;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use arc_swap::ArcSwap;
use rustc_hash::{FxHashMap, FxHasher};
use serde_json::{Map, Value};

use crate::annotated::{AnnotatedHook, annotated_hooks};
use crate::events::{self, EventNameError};
use crate::guard::{Guarded, JoinAll};
use crate::handler::{Answer, Handler, IntoHandler};
use crate::merge::{Flow, Merge, log_failure};
use crate::observer::{self, EmitObserver};
use crate::outcome::EmitResult;
use crate::result::HookResult;
use crate::state::{StateBackend, StateStore};
use crate::sync::lock;
use crate::timestamp;
use crate::trace;

/// How long a handler may run in [`HookRegistry::emit`] before it is skipped, unless the
/// registry or the registration says otherwise.
pub const DEFAULT_HANDLER_TIMEOUT: Duration = Duration::from_secs(60);

/// The per-handler timeout of [`HookRegistry::emit_and_collect`] in the reference: one second.
pub const DEFAULT_COLLECT_TIMEOUT: Duration = Duration::from_secs(1);

/// The field every event carries with the time of the emit, unless the emitter set it.
pub const TIMESTAMP_FIELD: &str = crate::events::fields::TIMESTAMP;

/// How to register a handler: priority, name and timeout.
///
/// ```
/// use std::time::Duration;
/// use hooks_core::HookOptions;
///
/// let options = HookOptions::new()
///     .priority(-10)
///     .name("audit")
///     .timeout(Duration::from_millis(200));
/// ```
#[derive(Debug, Clone, Default)]
pub struct HookOptions {
    priority: i32,
    name: Option<String>,
    timeout: Option<Duration>,
    fail_closed: bool,
}

impl HookOptions {
    /// Priority 0, the handler's type name as its name, the registry's timeout.
    pub fn new() -> Self {
        HookOptions::default()
    }

    /// Lower runs earlier; equal priorities run in registration order. Negative is allowed.
    #[must_use]
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// The name shown in logs, failures and provenance, and used by
    /// [`HookRegistry::unregister`]. Names need not be unique.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// How long the handler may run before it is skipped.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Whether a failure of the handler (an error, a panic, its timeout, an unusable answer)
    /// denies the operation rather than being skipped: for handlers that enforce a policy,
    /// whose silence must not read as an allow. The failure is reported either way.
    #[must_use]
    pub fn fail_closed(mut self, fail_closed: bool) -> Self {
        self.fail_closed = fail_closed;
        self
    }

    /// Names the handler `default()` unless a name was given: for registrations whose
    /// handler type's name says nothing (an adapter around the user's function).
    pub(crate) fn name_or_else(mut self, default: impl FnOnce() -> String) -> Self {
        self.name.get_or_insert_with(default);
        self
    }
}

/// One registered handler, shared by every snapshot that lists it.
pub(crate) struct Entry {
    id: u64,
    priority: i32,
    name: Arc<str>,
    handler: Handler,
    timeout: Option<Duration>,
    /// A failure denies instead of being skipped.
    fail_closed: bool,
    /// Cleared on unregister so that an emit in flight does not start the handler any more.
    active: AtomicBool,
}

/// The handlers of one event, as emitters see them.
struct Route {
    event: Arc<str>,
    entries: Box<[Arc<Entry>]>,
}

/// What emitters load: every route, keyed by canonical name and by each alias, the default
/// fields and the observers, so that one load serves a whole emit.
#[derive(Default)]
struct Snapshot {
    routes: FxHashMap<Box<str>, Arc<Route>>,
    defaults: Arc<Map<String, Value>>,
    observers: Box<[Arc<dyn EmitObserver>]>,
}

/// The authoritative state, edited under the writer lock and published as a [`Snapshot`].
#[derive(Default)]
struct Table {
    /// Per canonical event, sorted by priority then registration.
    events: BTreeMap<Arc<str>, Vec<Arc<Entry>>>,
    defaults: Arc<Map<String, Value>>,
    observers: Vec<(u64, Arc<dyn EmitObserver>)>,
}

struct Shared {
    /// One bit per routed name's hash: a clear bit proves nobody listens to a name, without
    /// touching the snapshot (the "is anyone listening?" fast path). A set bit may be shared
    /// with another name; the snapshot decides.
    interest: AtomicU64,
    snapshot: ArcSwap<Snapshot>,
    table: Mutex<Table>,
    next_id: AtomicU64,
    handler_timeout: Option<Duration>,
    /// The session states, made at first use: an emit never touches them.
    state: OnceLock<StateStore>,
}

/// The registry of hook handlers and the dispatcher of events to them.
///
/// Cloning is cheap and gives another handle to the same registry, so it can be shared across
/// tasks; registration, unregistration and emission may all happen concurrently.
///
/// # Registering
///
/// One registration, [`register_with`](HookRegistry::register_with)`(event, handler,
/// options)`, which every other comes down to; each returns a [`HookHandle`] whose
/// [`unregister`](HookHandle::unregister) takes that one handler away again:
///
/// - [`register`](HookRegistry::register)`(event, handler, priority, name)`: its positional
///   shorthand, the reference's signature;
/// - [`register_view`](HookRegistry::register_view)`(handler, options)`: a function of a typed
///   [view](crate::view), whose event is the view's;
/// - [`register_annotated`](HookRegistry::register_annotated): one `#[hook]` function (and
///   [`with_annotated`](HookRegistry::with_annotated), every one linked in).
///
/// [`observe`](HookRegistry::observe) is not a handler: an observer sees every emit's outcome
/// and changes nothing; its [`ObserverHandle`] unregisters it the same way.
///
/// ```
/// use hooks_core::{HookRegistry, HookResult, HookAction};
/// use serde_json::{json, Value};
///
/// async fn no_rm(_event: &str, data: &Value) -> HookResult {
///     match data["tool_input"]["command"].as_str() {
///         Some(cmd) if cmd.starts_with("rm ") => HookResult::deny("rm is disabled; move files to ./trash instead"),
///         _ => HookResult::cont(),
///     }
/// }
///
/// # tokio_test_block_on(async {
/// let registry = HookRegistry::new();
/// registry.register("PreToolUse", no_rm, 10, "no_rm")?;
///
/// let outcome = registry
///     .emit("tool:pre", json!({"tool_name": "bash", "tool_input": {"command": "rm -rf build"}}))
///     .await;
/// assert_eq!(outcome.action(), HookAction::Deny);
/// assert_eq!(outcome.decided_by.as_deref(), Some("no_rm"));
/// # Ok::<(), hooks_core::EventNameError>(())
/// # }).unwrap();
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct HookRegistry {
    shared: Arc<Shared>,
}

impl Default for HookRegistry {
    fn default() -> Self {
        HookRegistry::new()
    }
}

impl std::fmt::Debug for HookRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRegistry")
            .field("handlers", &self.list_handlers(None))
            .field("handler_timeout", &self.shared.handler_timeout)
            .finish()
    }
}

impl HookRegistry {
    /// An empty registry whose handlers time out after [`DEFAULT_HANDLER_TIMEOUT`].
    pub fn new() -> Self {
        HookRegistry::with_handler_timeout(Some(DEFAULT_HANDLER_TIMEOUT))
    }

    /// An empty registry with another default handler timeout (`None`: wait for ever).
    pub fn with_handler_timeout(timeout: Option<Duration>) -> Self {
        HookRegistry {
            shared: Arc::new(Shared {
                interest: AtomicU64::new(0),
                snapshot: ArcSwap::from_pointee(Snapshot::default()),
                table: Mutex::new(Table::default()),
                next_id: AtomicU64::new(1),
                handler_timeout: timeout,
                state: OnceLock::new(),
            }),
        }
    }

    /// Registers `handler` for `event` (canonical name, alias or custom `namespace:name`), as
    /// the reference's `register(event, handler, priority, name)`: the positional shorthand of
    /// [`register_with`](HookRegistry::register_with) with a priority and a name.
    ///
    /// Returns a handle that unregisters this one handler, or why the event name is unusable.
    pub fn register<M>(
        &self,
        event: &str,
        handler: impl IntoHandler<M>,
        priority: i32,
        name: impl Into<String>,
    ) -> Result<HookHandle, EventNameError> {
        self.register_with(
            event,
            handler,
            HookOptions::new().priority(priority).name(name),
        )
    }

    /// Alias of [`HookRegistry::register`], as in the reference.
    #[deprecated(
        since = "0.1.0",
        note = "one verb registers: `register_with(event, handler, options)` (or `register`, its \
                positional shorthand)"
    )]
    pub fn on<M>(
        &self,
        event: &str,
        handler: impl IntoHandler<M>,
        priority: i32,
        name: impl Into<String>,
    ) -> Result<HookHandle, EventNameError> {
        self.register(event, handler, priority, name)
    }

    /// Registers `handler` for `event` with the given options: the registration every other
    /// one comes down to. `handler` is any shape (an `async fn(&str, &Value)`, a [`Hook`] or
    /// [`TypedHook`] value, a [`Handler`]); a function taking a [view](crate::view) registers
    /// with [`register_view`](HookRegistry::register_view), which reads the event from the
    /// view. Without a name, the handler's type name (for a function, its path) is used.
    ///
    /// [`Hook`]: crate::Hook
    /// [`TypedHook`]: crate::TypedHook
    pub fn register_with<M, H: IntoHandler<M>>(
        &self,
        event: &str,
        handler: H,
        options: HookOptions,
    ) -> Result<HookHandle, EventNameError> {
        let event = events::canonicalize(event)?;
        let name = options.name.unwrap_or_else(|| type_name::<H>().to_owned());
        let entry = Arc::new(Entry {
            id: self.shared.next_id.fetch_add(1, Ordering::Relaxed),
            priority: options.priority,
            name: name.into(),
            handler: handler.into_handler(),
            timeout: options.timeout.or(self.shared.handler_timeout),
            fail_closed: options.fail_closed,
            active: AtomicBool::new(true),
        });
        let handle = HookHandle {
            registry: Arc::downgrade(&self.shared),
            id: entry.id,
            event: event.into(),
            name: Arc::clone(&entry.name),
        };
        self.shared.edit(|table| {
            let list = table.events.entry(Arc::clone(&handle.event)).or_default();
            // Ids grow with registration, so "after every entry of lower or equal priority"
            // keeps equal priorities in registration order.
            let at = list.partition_point(|e| e.priority <= entry.priority);
            list.insert(at, entry);
        });
        tracing::debug!(event = %handle.event, hook = %handle.name, "hook registered");
        Ok(handle)
    }

    /// A registry (as [`HookRegistry::new`]) holding every `#[hook]` function linked into the
    /// program, in the order of [`annotated_hooks`](crate::annotated_hooks).
    pub fn with_annotated() -> Result<Self, EventNameError> {
        let registry = HookRegistry::new();
        registry.register_annotated(|_| true)?;
        Ok(registry)
    }

    /// Registers the `#[hook]` functions that `filter` accepts (by module path, name, event, ...),
    /// in priority-then-name order; returns their handles.
    ///
    /// ```
    /// use hooks_core::HookRegistry;
    ///
    /// let registry = HookRegistry::new();
    /// let security_hooks = registry
    ///     .register_annotated(|hook| hook.module_path().starts_with("my_app::security"))
    ///     .unwrap();
    /// # assert!(security_hooks.is_empty());
    /// ```
    ///
    /// An error (an event name `#[hook]` would have refused at compile time, so only possible
    /// for a registration built by hand) registers nothing.
    pub fn register_annotated(
        &self,
        filter: impl Fn(&AnnotatedHook) -> bool,
    ) -> Result<Vec<HookHandle>, EventNameError> {
        let chosen: Vec<&AnnotatedHook> = annotated_hooks()
            .iter()
            .copied()
            .filter(|hook| filter(hook))
            .collect();
        for hook in &chosen {
            events::canonicalize(hook.event())?;
        }
        let handles = chosen
            .into_iter()
            .map(|hook| {
                let mut options = HookOptions::new()
                    .priority(hook.priority())
                    .name(hook.name());
                if let Some(timeout) = hook.timeout() {
                    options = options.timeout(timeout);
                }
                self.register_with(hook.event(), hook.handler(), options)
            })
            .collect::<Result<_, _>>()?;
        Ok(handles)
    }

    /// Unregisters every handler named `name` (names need not be unique); returns how many.
    pub fn unregister(&self, name: &str) -> usize {
        self.shared.remove(|entry| &*entry.name == name)
    }

    /// Replaces the fields merged into the data of every emitted event. Event data wins over
    /// a default of the same key.
    pub fn set_default_fields<K: Into<String>>(
        &self,
        defaults: impl IntoIterator<Item = (K, Value)>,
    ) {
        let defaults: Map<String, Value> = defaults
            .into_iter()
            .map(|(key, value)| (key.into(), value))
            .collect();
        self.shared
            .edit(|table| table.defaults = Arc::new(defaults));
    }

    /// The default field `key`, if one is set.
    pub(crate) fn default_field(&self, key: &str) -> Option<Value> {
        self.shared.snapshot.load().defaults.get(key).cloned()
    }

    /// The session states of the hooks on this registry (in memory unless
    /// [`set_state_backend`](HookRegistry::set_state_backend) says otherwise): a hook keeps a
    /// clone, taken when it is built or mounted, and finds an event's state with
    /// [`StateStore::for_event`]. See [`crate::state`].
    pub fn state(&self) -> StateStore {
        self.shared.state.get_or_init(StateStore::in_memory).clone()
    }

    /// Keeps the session states in `backend` (a file store for per-event processes), for the
    /// store [`state`](HookRegistry::state) returns and every clone of it, including those
    /// taken before. What the previous backend held is not carried over.
    pub fn set_state_backend(&self, backend: impl StateBackend) {
        self.state().set_backend(backend);
    }

    /// The handler names per canonical event, in the order they run. With `Some(event)` the
    /// map has exactly that event's key (canonicalised), even when it has no handler.
    pub fn list_handlers(&self, event: Option<&str>) -> BTreeMap<String, Vec<String>> {
        let snapshot = self.shared.snapshot.load();
        let names = |route: &Route| route.entries.iter().map(|e| e.name.to_string()).collect();
        match event {
            Some(event) => {
                let key = events::canonicalize(event).unwrap_or(event);
                let names = snapshot.routes.get(key).map_or_else(Vec::new, |r| names(r));
                BTreeMap::from([(key.to_owned(), names)])
            }
            None => snapshot
                .routes
                .iter()
                .filter(|(key, route)| ***key == *route.event)
                .map(|(key, route)| (key.to_string(), names(route)))
                .collect(),
        }
    }

    /// How many observers are registered.
    pub fn observer_count(&self) -> usize {
        self.shared.snapshot.load().observers.len()
    }

    /// Whether any handler listens to `event` (canonical name or alias): a cheap check an
    /// emitter can make before building an expensive payload.
    pub fn has_handlers(&self, event: &str) -> bool {
        self.shared.may_listen(event) && self.shared.snapshot.load().routes.contains_key(event)
    }

    /// Emits `event` to its handlers in priority order and folds their answers.
    ///
    /// The handlers see `data` with the default fields and a `timestamp` added where absent.
    ///
    /// # The emit rules
    ///
    /// 1. Handlers run one after another by ascending priority; equal priorities run in
    ///    registration order.
    /// 2. `deny` stops the chain at once and is the result, with its reason.
    /// 3. `modify` replaces the data later handlers see; the final data is in the result. The
    ///    merged action is the strongest returned ([`HookAction::strength`]: deny > ask_user >
    ///    inject_context > modify > continue).
    /// 4. `inject_context` texts are merged in order, each kept with its provenance (hook and
    ///    event).
    /// 5. The first `ask_user` wins over everything but a later `deny`.
    /// 6. A handler that errors, panics or exceeds its timeout is logged, recorded in
    ///    [`EmitResult::failures`] and skipped (denied instead when registered
    ///    [`fail_closed`](HookOptions::fail_closed)).
    /// 7. Nothing is lost in the merge: modified data, every injection and every user message
    ///    survive beside an ask or a deny.
    /// 8. With no handler the result is `continue` with `data` exactly as given.
    ///
    /// [`HookAction::strength`]: crate::HookAction::strength
    pub async fn emit(&self, event: &str, mut data: Value) -> EmitResult {
        if !self.shared.may_listen(event) {
            return EmitResult::proceed(data);
        }
        // A guard, not a clone of the `Arc`: the snapshot stays alive without touching its
        // reference count.
        let snapshot = self.shared.snapshot.load();
        let Some(route) = snapshot.routes.get(event) else {
            let outcome = EmitResult::proceed(data);
            if !snapshot.observers.is_empty() {
                let canonical = events::canonicalize(event).unwrap_or(event);
                observer::notify(&snapshot.observers, canonical, &outcome);
            }
            return outcome;
        };
        prepare(&mut data, &snapshot.defaults);
        let outcome = if trace::emits_traced() {
            // Boxed: the span and its wrapper stay out of the future every emit holds (each
            // move of it copies it), and a traced emit pays far more than one allocation for
            // its span anyway.
            let span = trace::emit_span(&route.event, &data, route.entries.len());
            Box::pin(trace::emit(span, run_chain(route, &mut data))).await
        } else {
            run_chain(route, &mut data).await
        };
        if !snapshot.observers.is_empty() {
            observer::notify(&snapshot.observers, &route.event, &outcome);
        }
        outcome
    }

    /// Adds an observer that sees the outcome of every later [`emit`](HookRegistry::emit),
    /// heard or not, after its handlers. Returns the handle that removes it.
    pub fn observe(&self, observer: impl EmitObserver) -> ObserverHandle {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let observer: Arc<dyn EmitObserver> = Arc::new(observer);
        self.shared
            .edit(|table| table.observers.push((id, observer)));
        ObserverHandle {
            registry: Arc::downgrade(&self.shared),
            id,
        }
    }

    /// Emits `event` to all its handlers concurrently, each with `timeout`, and returns the
    /// non-null `data` of their answers in priority order (the reference's
    /// `emit_and_collect`). Failed and timed-out handlers are logged and left out.
    pub async fn emit_and_collect(
        &self,
        event: &str,
        mut data: Value,
        timeout: Duration,
    ) -> Vec<Value> {
        if !self.shared.may_listen(event) {
            return Vec::new();
        }
        let snapshot = self.shared.snapshot.load_full();
        let Some(route) = snapshot.routes.get(event) else {
            return Vec::new();
        };
        prepare(&mut data, &snapshot.defaults);
        let live: Vec<&Arc<Entry>> = route
            .entries
            .iter()
            .filter(|entry| entry.active.load(Ordering::Acquire))
            .collect();
        let calls = live.iter().map(|entry| {
            Guarded::new(
                Box::pin(entry.handler.erased_call(&route.event, &data)),
                Some(timeout),
            )
        });
        let answers = JoinAll::new(calls).await;
        let mut collected = Vec::new();
        for (entry, answer) in live.iter().zip(answers) {
            match answer {
                Answer::Continue => {}
                Answer::Full(answer) => collected.extend(answer.data.filter(|d| !d.is_null())),
                Answer::Failed(failure) => log_failure(&entry.name, &route.event, &failure),
            }
        }
        collected
    }
}

impl Shared {
    /// False when neither a handler nor an observer can hear `event`; true when one may.
    #[inline]
    fn may_listen(&self, event: &str) -> bool {
        self.interest.load(Ordering::Acquire) & interest_bit(event) != 0
    }

    fn lock_table(&self) -> MutexGuard<'_, Table> {
        // The table is only edited by this module's own code, which cannot leave it half
        // edited; a poisoned lock is therefore still consistent.
        lock(&self.table)
    }

    /// Edits the table and publishes the new snapshot, under the writer lock.
    fn edit(&self, change: impl FnOnce(&mut Table)) {
        let mut table = self.lock_table();
        change(&mut table);
        table.events.retain(|_, entries| !entries.is_empty());
        let snapshot = build_snapshot(&table);
        // Observers hear every event, so they open the mask for every name.
        let interest = if snapshot.observers.is_empty() {
            snapshot
                .routes
                .keys()
                .fold(0, |bits, name| bits | interest_bit(name))
        } else {
            u64::MAX
        };
        // Published after the snapshot: a reader that sees a new bit also finds the route.
        self.snapshot.store(Arc::new(snapshot));
        self.interest.store(interest, Ordering::Release);
    }

    /// Removes (and deactivates) every entry matching `doomed`; returns how many.
    fn remove(&self, doomed: impl Fn(&Entry) -> bool) -> usize {
        let mut removed = 0;
        self.edit(|table| {
            for entries in table.events.values_mut() {
                entries.retain(|entry| {
                    let keep = !doomed(entry);
                    if !keep {
                        entry.active.store(false, Ordering::Release);
                        removed += 1;
                    }
                    keep
                });
            }
        });
        removed
    }
}

/// The interest bit of an event name.
#[inline]
fn interest_bit(event: &str) -> u64 {
    let mut hasher = FxHasher::default();
    event.hash(&mut hasher);
    1 << (hasher.finish() % 64)
}

/// Runs the handlers of `route` in order on `data` and folds their answers (the emit rules);
/// the final data is taken from `data` into the result.
///
/// `data` is borrowed from the emit rather than moved in, so that the emit's future holds the
/// event data once, not twice.
async fn run_chain(route: &Route, data: &mut Value) -> EmitResult {
    let mut merge = Merge::new(&route.event);
    let traced = trace::handlers_traced();
    for entry in route.entries.iter() {
        if !entry.active.load(Ordering::Acquire) {
            continue;
        }
        let answer = {
            // Pinned where it is made: the guard only borrows it, so the call is never moved.
            let call = pin!(entry.handler.erased_call(&route.event, data));
            let call = Guarded::new(call, entry.timeout);
            if traced {
                // Boxed for the reason the emit's span is.
                Box::pin(trace::handler(&entry.name, entry.priority, call)).await
            } else {
                call.await
            }
        };
        match answer {
            Answer::Continue => {}
            Answer::Full(answer) => {
                if merge.absorb(&entry.name, answer, data) == Flow::Stop {
                    break;
                }
            }
            Answer::Failed(failure) if entry.fail_closed => {
                let denial = HookResult::deny(format!(
                    "hook `{}` failed and fails closed: it {failure}",
                    entry.name
                ));
                merge.fail(&entry.name, failure);
                if merge.absorb(&entry.name, Box::new(denial), data) == Flow::Stop {
                    break;
                }
            }
            Answer::Failed(failure) => merge.fail(&entry.name, failure),
        }
    }
    merge.finish(std::mem::take(data))
}

/// Adds the default fields and the timestamp the emitter did not set. `null` counts as an
/// empty object; other non-object data is passed on as it is, with a warning.
fn prepare(data: &mut Value, defaults: &Map<String, Value>) {
    if data.is_null() {
        *data = Value::Object(Map::new());
    }
    let Value::Object(fields) = data else {
        tracing::warn!("event data is not a JSON object; default fields and timestamp not added");
        return;
    };
    for (key, value) in defaults {
        if !fields.contains_key(key) {
            fields.insert(key.clone(), value.clone());
        }
    }
    // One search of the map: the key is allocated either way, and is needed when absent.
    fields
        .entry(TIMESTAMP_FIELD)
        .or_insert_with(|| Value::String(timestamp::now()));
}

fn build_snapshot(table: &Table) -> Snapshot {
    let mut routes = FxHashMap::default();
    for (event, entries) in &table.events {
        let route = Arc::new(Route {
            event: Arc::clone(event),
            entries: entries.iter().cloned().collect(),
        });
        for alias in events::aliases_of(event) {
            routes.insert(alias.into(), Arc::clone(&route));
        }
        routes.insert(event.as_ref().into(), route);
    }
    Snapshot {
        routes,
        defaults: Arc::clone(&table.defaults),
        observers: table.observers.iter().map(|(_, o)| Arc::clone(o)).collect(),
    }
}

/// Unregisters the observer it was returned for. Dropping it does nothing: an observer stays
/// until it is unregistered.
#[derive(Debug, Clone)]
pub struct ObserverHandle {
    registry: Weak<Shared>,
    id: u64,
}

impl ObserverHandle {
    /// The former name of [`unregister`](ObserverHandle::unregister).
    #[deprecated(
        since = "0.1.0",
        note = "handles take away what they were returned for with one verb: `unregister`, as \
                `HookHandle::unregister` does"
    )]
    pub fn remove(&self) -> bool {
        self.unregister()
    }

    /// Removes the observer; returns whether it was still there.
    pub fn unregister(&self) -> bool {
        let Some(shared) = self.registry.upgrade() else {
            return false;
        };
        let mut removed = false;
        shared.edit(|table| {
            let before = table.observers.len();
            table.observers.retain(|(id, _)| *id != self.id);
            removed = table.observers.len() < before;
        });
        removed
    }
}

/// Unregisters the one handler it was returned for. Dropping it does nothing: a handler stays
/// registered until it is unregistered.
#[derive(Debug, Clone)]
pub struct HookHandle {
    registry: Weak<Shared>,
    id: u64,
    event: Arc<str>,
    name: Arc<str>,
}

impl HookHandle {
    /// Removes the handler; returns whether it was still registered. Once this returns, no new
    /// call of the handler starts, not even from an emit already in flight.
    pub fn unregister(&self) -> bool {
        match self.registry.upgrade() {
            Some(shared) => shared.remove(|entry| entry.id == self.id) > 0,
            None => false,
        }
    }

    /// The canonical event the handler is registered for.
    pub fn event(&self) -> &str {
        &self.event
    }

    /// The handler's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}
