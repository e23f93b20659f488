//! A loaded component: compiled once, checked against its world, and instantiated afresh from
//! its template for every call, so that no state survives from one event to the next and each
//! call has its own deadline and memory.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use hooks_core::{ApprovalDefault, HookAction, HookResult, InjectionRole, MessageLevel};
use prost::Message as _;
use serde_json::Value;
use wasmtime::component::Component;
use wasmtime::{Store, Trap};

use crate::bindings::amplifier::HookModulePre;
use crate::bindings::guest::GuestPre;
use crate::bindings::guest::exports::hooks::guest::hook as wit;
use crate::blocking;
use crate::cache::{self, Compiled, Key};
use crate::proto;
use crate::runtime::FileFailure;
use crate::sandbox::{self, State};
use crate::{CallFailure, Grants, Limits, LoadError, WasmRuntime};

/// The interface a component speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Abi {
    /// Ours: `hooks:guest/hook@0.1.0` (`wit/guest.wit`), a WIT record in and out.
    #[default]
    Hooks,
    /// amplifier-core's `amplifier:modules/hook-handler@1.0.0` (`wit/amplifier.wit`),
    /// protobuf bytes in and out.
    Amplifier,
}

impl Abi {
    /// The interface the component must export.
    pub const fn world(self) -> &'static str {
        match self {
            Abi::Hooks => "hooks:guest/hook@0.1.0",
            Abi::Amplifier => "amplifier:modules/hook-handler@1.0.0",
        }
    }

    /// Its name in hooks files: `hooks` or `amplifier`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Abi::Hooks => "hooks",
            Abi::Amplifier => "amplifier",
        }
    }
}

impl FromStr for Abi {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "hooks" => Ok(Abi::Hooks),
            "amplifier" => Ok(Abi::Amplifier),
            other => Err(format!(
                "unknown abi `{other}`; expected hooks or amplifier"
            )),
        }
    }
}

/// The template of each ABI's instances, its exports already looked up.
enum Template {
    Hooks(GuestPre<State>),
    Amplifier(HookModulePre<State>),
}

/// Where in a call an error came.
#[derive(Clone, Copy)]
enum Stage {
    Start,
    Call,
}

/// A WebAssembly hook, ready to be called. Cloning is cheap (the compiled code is shared).
#[derive(Clone)]
pub struct WasmHook {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    abi: Abi,
    runtime: WasmRuntime,
    template: Template,
    limits: Limits,
    grants: Grants,
    compiled: Compiled,
    /// The component's cache key, which its remembered subscriptions are kept under.
    key: Key,
}

impl std::fmt::Debug for WasmHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmHook")
            .field("name", &self.inner.name)
            .field("abi", &self.inner.abi)
            .field("limits", &self.inner.limits)
            .field("grants", &self.inner.grants)
            .finish_non_exhaustive()
    }
}

impl WasmHook {
    /// Loads the component at `path`, speaking `abi`, with the default limits and no grants.
    pub fn load(runtime: &WasmRuntime, path: &Path, abi: Abi) -> Result<Self, LoadError> {
        let name = path.display().to_string();
        let found = runtime
            .compile_file(path, |path| std::fs::read(path))
            .map_err(|failure| match failure {
                FileFailure::Read(source) => LoadError::Read {
                    path: path.to_path_buf(),
                    source,
                },
                FileFailure::Compile(source) => LoadError::Invalid {
                    name: name.clone(),
                    source,
                },
            })?;
        Self::from_compiled(runtime, name, found, abi)
    }

    /// Loads a component from its bytes (the binary format); `name`
    /// names it in errors and failures.
    pub fn from_bytes(
        runtime: &WasmRuntime,
        name: &str,
        bytes: &[u8],
        abi: Abi,
    ) -> Result<Self, LoadError> {
        let found = runtime
            .compile(bytes)
            .map_err(|source| LoadError::Invalid {
                name: name.to_owned(),
                source,
            })?;
        Self::from_compiled(runtime, name.to_owned(), found, abi)
    }

    /// The hook of a component compiled (or loaded) as `found`.
    fn from_compiled(
        runtime: &WasmRuntime,
        name: String,
        (component, compiled, key): (Component, Compiled, Key),
        abi: Abi,
    ) -> Result<Self, LoadError> {
        let world = |source: wasmtime::Error| LoadError::World {
            name: name.clone(),
            world: abi.world(),
            source,
        };
        let pre = runtime.instantiate_pre(&component).map_err(world)?;
        let template = match abi {
            Abi::Hooks => Template::Hooks(GuestPre::new(pre).map_err(world)?),
            Abi::Amplifier => Template::Amplifier(HookModulePre::new(pre).map_err(world)?),
        };
        Ok(WasmHook {
            inner: Arc::new(Inner {
                name,
                abi,
                runtime: runtime.clone(),
                template,
                limits: Limits::default(),
                grants: Grants::none(),
                compiled,
                key,
            }),
        })
    }

    /// This hook with other limits.
    #[must_use]
    pub fn with_limits(self, limits: Limits) -> Self {
        self.rebuilt(|inner| inner.limits = limits)
    }

    /// This hook with capabilities granted.
    #[must_use]
    pub fn with_grants(self, grants: Grants) -> Self {
        self.rebuilt(|inner| inner.grants = grants)
    }

    fn rebuilt(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                name: shared.name.clone(),
                abi: shared.abi,
                runtime: shared.runtime.clone(),
                template: match &shared.template {
                    Template::Hooks(pre) => Template::Hooks(pre.clone()),
                    Template::Amplifier(pre) => Template::Amplifier(pre.clone()),
                },
                limits: shared.limits,
                grants: shared.grants.clone(),
                compiled: shared.compiled,
                key: shared.key,
            },
        };
        change(&mut inner);
        WasmHook {
            inner: Arc::new(inner),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its ABI.
    pub fn abi(&self) -> Abi {
        self.inner.abi
    }

    /// Its limits.
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// Whether its compiled code came from the disk cache.
    pub fn from_cache(&self) -> bool {
        self.inner.compiled == Compiled::FromCache
    }

    /// Its answer to `event` with `data`, on this thread: it blocks for as long as the call
    /// runs (at most the timeout). From async code, use [`WasmHook::call_async`].
    pub fn call(&self, event: &str, data: &Value) -> Result<HookResult, CallFailure> {
        blocking::block_on(self.call_async(event, data))
            .unwrap_or_else(|why| Err(CallFailure::Setup(why)))
    }

    /// Its answer to `event` with `data`, run on the calling task: the guest yields to it every
    /// few microseconds of work, and the call ends at its timeout. A call that has to wait (for
    /// a slot, or past the guest's first yield) needs tokio's timer: a runtime built with
    /// `enable_time`.
    pub async fn call_async(&self, event: &str, data: &Value) -> Result<HookResult, CallFailure> {
        let text = data.to_string();
        // Declared before the store, so dropped after it: the store's instance goes back to
        // the pool before the slot is given up.
        let _slot = self.slot().await?;
        let (mut store, output) = self.store()?;
        let answered = self.bounded(self.handle(&mut store, event, &text)).await;
        self.log(&output.contents());
        self.settle(&store, answered).and_then(|answer| answer)
    }

    /// The events this hook subscribes to given `config`; a component of the amplifier ABI
    /// declares none (its events are given where it is mounted). It blocks, like
    /// [`WasmHook::call`].
    ///
    /// With a disk cache, an answer is remembered there for the component and this
    /// configuration, and a later process reads it instead of instantiating the component to
    /// ask again (`hooks claude` loads its hooks at every event): a component's subscriptions
    /// must depend on its configuration alone, as its world says. It is asked twice before
    /// its answer is remembered, and an answer that differs is not; nor is a failure.
    pub fn subscriptions(&self, config: &Value) -> Result<Vec<String>, CallFailure> {
        let Template::Hooks(pre) = &self.inner.template else {
            return Ok(Vec::new());
        };
        let config = config.to_string();
        let memo = self
            .inner
            .runtime
            .cache()
            .map(|cache| (cache, cache::subscriptions_key(&self.inner.key, &config)));
        if let Some((cache, key)) = &memo
            && let Some(events) = cache.remembered_subscriptions(key)
        {
            return Ok(events);
        }
        let events = self.ask_subscriptions(pre, &config)?;
        if let Some((cache, key)) = &memo {
            // Asked again before it is remembered: an answer that changes from one instance to
            // the next (read from the clock or random numbers, against the world) is asked in
            // every process instead of one of them being kept for good.
            if self.ask_subscriptions(pre, &config).as_ref() == Ok(&events) {
                cache.remember_subscriptions(key, &events);
            } else {
                tracing::warn!(
                    hook = %self.inner.name,
                    "the component answers `subscriptions` differently from one call to the next; its answer is not remembered"
                );
            }
        }
        Ok(events)
    }

    /// The component's own answer to `subscriptions(config)`, from a fresh instance.
    fn ask_subscriptions(
        &self,
        pre: &GuestPre<State>,
        config: &str,
    ) -> Result<Vec<String>, CallFailure> {
        let asked = async {
            // Dropped after the store, as in `call_async`.
            let _slot = self.slot().await?;
            let (mut store, output) = self.store()?;
            let subscribed = async {
                let guest = pre
                    .instantiate_async(&mut store)
                    .await
                    .map_err(|error| (error, Stage::Start))?;
                guest
                    .hooks_guest_hook()
                    .call_subscriptions(&mut store, config)
                    .await
                    .map_err(|error| (error, Stage::Call))
            };
            let outcome = self.bounded(subscribed).await;
            self.log(&output.contents());
            self.settle(&store, outcome)
        };
        blocking::block_on(asked).unwrap_or_else(|why| Err(CallFailure::Setup(why)))
    }

    /// A slot of the runtime's pool, waiting for one at most the call's timeout.
    async fn slot(&self) -> Result<crate::runtime::Slot<'_>, CallFailure> {
        let wait = self.inner.limits.timeout;
        self.inner
            .runtime
            .slot(wait)
            .await
            .ok_or(CallFailure::Busy {
                slots: self.inner.runtime.slots(),
                waited: wait,
            })
    }

    fn store(
        &self,
    ) -> Result<(Store<State>, wasmtime_wasi::p2::pipe::MemoryOutputPipe), CallFailure> {
        sandbox::store(
            self.inner.runtime.engine(),
            &self.inner.limits,
            &self.inner.grants,
        )
        .map_err(CallFailure::Setup)
    }

    /// `work`, stopped at the call's timeout (`None`). Dropping a guest's future mid-run
    /// unwinds its stack; its store is dropped after.
    async fn bounded<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        let deadline = tokio::time::Instant::now() + self.inner.limits.timeout;
        let mut work = std::pin::pin!(work);
        // Most calls end within their first poll: the timer is armed only for one that does not,
        // so those need no timer at all.
        let first = std::future::poll_fn(|context| {
            Poll::Ready(match work.as_mut().poll(context) {
                Poll::Ready(done) => Some(done),
                Poll::Pending => None,
            })
        })
        .await;
        match first {
            Some(done) => Some(done),
            None => tokio::time::timeout_at(deadline, work).await.ok(),
        }
    }

    /// What a call on `store` came to, its error classified now that the call no longer holds
    /// the store.
    fn settle<T>(
        &self,
        store: &Store<State>,
        outcome: Option<Result<T, (wasmtime::Error, Stage)>>,
    ) -> Result<T, CallFailure> {
        match outcome {
            Some(Ok(answer)) => Ok(answer),
            Some(Err((error, stage))) => Err(self.failure(store, &error, stage)),
            None => Err(CallFailure::Timeout(self.inner.limits.timeout)),
        }
    }

    /// The answer of a fresh instance in `store` to `event` with data given as JSON text.
    async fn handle(
        &self,
        store: &mut Store<State>,
        event: &str,
        data: &str,
    ) -> Result<Result<HookResult, CallFailure>, (wasmtime::Error, Stage)> {
        Ok(match &self.inner.template {
            Template::Hooks(pre) => {
                let guest = pre
                    .instantiate_async(&mut *store)
                    .await
                    .map_err(|error| (error, Stage::Start))?;
                guest
                    .hooks_guest_hook()
                    .call_handle(&mut *store, event, data)
                    .await
                    .map_err(|error| (error, Stage::Call))?
                    .map_err(CallFailure::Guest)
                    .and_then(from_record)
            }
            Template::Amplifier(pre) => {
                let module = pre
                    .instantiate_async(&mut *store)
                    .await
                    .map_err(|error| (error, Stage::Start))?;
                let request = proto::HookHandleRequest {
                    event: event.to_owned(),
                    data_json: data.to_owned(),
                }
                .encode_to_vec();
                module
                    .amplifier_modules_hook_handler()
                    .call_handle(&mut *store, &request)
                    .await
                    .map_err(|error| (error, Stage::Call))?
                    .map_err(CallFailure::Guest)
                    .and_then(from_proto)
            }
        })
    }

    /// What an error of this call was: memory refused, the deadline, a trap; past those, an
    /// error while calling is the answer failing to lift (an enum value out of range, text
    /// that is not UTF-8), and one while instantiating a failed start.
    fn failure(&self, store: &Store<State>, error: &wasmtime::Error, stage: Stage) -> CallFailure {
        if let Some(asked) = sandbox::refused_memory(store) {
            return CallFailure::Memory {
                asked,
                limit: self.inner.limits.memory_bytes,
            };
        }
        let text = || cut(&format!("{error:#}"), 400).to_owned();
        match (error.downcast_ref::<Trap>(), stage) {
            (Some(Trap::OutOfFuel), _) => CallFailure::Timeout(self.inner.limits.timeout),
            (Some(_), _) | (None, Stage::Start) => CallFailure::Trap(text()),
            (None, Stage::Call) => CallFailure::Unreadable(text()),
        }
    }

    /// Sends what the component printed to the log.
    fn log(&self, output: &[u8]) {
        if !output.is_empty() {
            tracing::info!(
                hook = %self.inner.name,
                output = %String::from_utf8_lossy(output),
                "a WebAssembly hook printed"
            );
        }
    }
}

fn cut(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(at, _)| &text[..at])
}

/// The kernel's result for a record answered by a component of our world.
fn from_record(record: wit::HookResult) -> Result<HookResult, CallFailure> {
    let unreadable = |why: &str| CallFailure::Unreadable(why.to_owned());
    let data = match record.data {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(object @ Value::Object(_)) => Some(object),
            _ => return Err(unreadable("its `data` is not a JSON object")),
        },
    };
    let mut result = HookResult {
        action: match record.action {
            wit::Action::Continue => HookAction::Continue,
            wit::Action::Deny => HookAction::Deny,
            wit::Action::Modify => HookAction::Modify,
            wit::Action::InjectContext => HookAction::InjectContext,
            wit::Action::AskUser => HookAction::AskUser,
        },
        data,
        reason: record.reason,
        context_injection: record.context_injection,
        context_injection_role: match record.context_injection_role {
            wit::Role::System => InjectionRole::System,
            wit::Role::User => InjectionRole::User,
            wit::Role::Assistant => InjectionRole::Assistant,
        },
        ephemeral: record.ephemeral,
        approval_prompt: record.approval_prompt,
        approval_options: record.approval_options,
        approval_default: match record.approval_default {
            wit::ApprovalDefault::Allow => ApprovalDefault::Allow,
            wit::ApprovalDefault::Deny => ApprovalDefault::Deny,
        },
        suppress_output: record.suppress_output,
        user_message: record.user_message,
        user_message_level: match record.user_message_level {
            wit::Level::Info => MessageLevel::Info,
            wit::Level::Warning => MessageLevel::Warning,
            wit::Level::Error => MessageLevel::Error,
        },
        append_to_last_tool_result: record.append_to_last_tool_result,
        ..HookResult::default()
    };
    if let Some(ms) = record.approval_timeout_ms {
        result = result.with_approval_timeout(Duration::from_millis(ms));
    }
    usable(result)
}

/// The kernel's result for protobuf bytes answered by an amplifier component.
fn from_proto(bytes: Vec<u8>) -> Result<HookResult, CallFailure> {
    let message = proto::HookResult::decode(bytes.as_slice())
        .map_err(|error| CallFailure::Unreadable(format!("not a protobuf HookResult: {error}")))?;
    message
        .into_kernel()
        .map_err(CallFailure::Unreadable)
        .and_then(usable)
}

/// `result` if the kernel can apply it as it says: modify needs data, inject_context needs
/// text (otherwise the kernel would skip it, and `on_failure` should decide instead).
fn usable(result: HookResult) -> Result<HookResult, CallFailure> {
    match result.action {
        HookAction::Modify if result.data.is_none() => {
            Err(CallFailure::Unreadable("modify without data".to_owned()))
        }
        HookAction::InjectContext if result.context_injection.is_none() => Err(
            CallFailure::Unreadable("inject_context without context_injection".to_owned()),
        ),
        _ => Ok(result),
    }
}
