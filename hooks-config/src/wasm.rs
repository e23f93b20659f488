//! WebAssembly hooks (`type: wasm`): a component run by hooks-wasm in its sandbox. Running (and
//! checking) them needs the `wasm` feature; without it they load, and mounting or checking
//! one is an error naming the feature.

/// Why a WebAssembly entry's component cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ComponentError {
    /// The runtime could not be set up.
    #[cfg(feature = "wasm")]
    #[error(transparent)]
    Runtime(#[from] hooks_wasm::RuntimeError),
    /// The component cannot be loaded, or does not satisfy its world.
    #[cfg(feature = "wasm")]
    #[error(transparent)]
    Load(#[from] hooks_wasm::LoadError),
    /// Its `subscriptions` gave no answer.
    #[cfg(feature = "wasm")]
    #[error("its `subscriptions` {0}")]
    Subscriptions(hooks_wasm::CallFailure),
    /// It names its events, and not the one it is listed under.
    #[cfg(feature = "wasm")]
    #[error("it subscribes to {}, not to `{event}`", .wanted.join(", "))]
    NotSubscribed {
        /// The events it names.
        wanted: Vec<String>,
        /// The event of its entry.
        event: String,
    },
    /// This build cannot load components.
    #[cfg(not(feature = "wasm"))]
    #[error(
        "this build of hooks-config cannot load WebAssembly components: enable its `wasm` \
         feature"
    )]
    Unbuilt,
}

#[cfg(feature = "wasm")]
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this process answers one event and exits ([`one_event_per_process`]).
#[cfg(feature = "wasm")]
static ONE_EVENT: AtomicBool = AtomicBool::new(false);

/// `error`'s message followed by those of its sources, each after `": "`: how it is told to a
/// person, where only text goes.
pub(crate) fn explain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(feature = "wasm")]
mod run {
    use std::sync::OnceLock;
    use std::sync::atomic::Ordering;

    use hooks_core::HookResult;
    use hooks_wasm::{
        Abi, ComponentCache, DEFAULT_SLOTS, Grants, Limits, RuntimeError, WasmHook, WasmRuntime,
    };
    use serde_json::Value;

    use super::ComponentError;
    use crate::failure::Failure;
    use crate::runner::Runner;
    use crate::{ComponentHook, Entry, HookKind, WasmAbi};

    /// The process's runtime, once started.
    static RUNTIME: OnceLock<WasmRuntime> = OnceLock::new();

    /// The WebAssembly runtime every `type: wasm` entry this process mounts is loaded with,
    /// started the first time it is asked for: caching compiled components in
    /// [`ComponentCache::default_dir`], meant to live as long as the process (so a component
    /// named twice is compiled or read once), with one slot once [`one_event_per_process`]
    /// was called, else [`DEFAULT_SLOTS`].
    ///
    /// [`one_event_per_process`]: crate::one_event_per_process
    pub fn process_runtime() -> Result<WasmRuntime, RuntimeError> {
        if let Some(runtime) = RUNTIME.get() {
            return Ok(runtime.clone());
        }
        let mut builder = WasmRuntime::builder();
        if let Some(dir) = ComponentCache::default_dir() {
            builder.cache(ComponentCache::new(dir));
        }
        let one_event = super::ONE_EVENT.load(Ordering::Relaxed);
        let started = builder
            .slots(if one_event { 1 } else { DEFAULT_SLOTS })
            .process_wide(true)
            .build()?;
        // Two threads may both start one: the first kept is everyone's.
        Ok(RUNTIME.get_or_init(|| started).clone())
    }

    /// The component of `hook` (of `entry`), loaded (compiled, or from the disk cache) and
    /// checked against its world, its subscriptions checked against the entry's event.
    pub(crate) fn prepare(entry: &Entry, hook: &ComponentHook) -> Result<WasmHook, ComponentError> {
        let runtime = process_runtime()?;
        let abi = match hook.abi {
            WasmAbi::Hooks => Abi::Hooks,
            WasmAbi::Amplifier => Abi::Amplifier,
        };
        let component = WasmHook::load(&runtime, &hook.path, abi)?
            .with_limits(Limits {
                timeout: entry.timeout,
                memory_bytes: usize::try_from(hook.memory_mb << 20).unwrap_or(usize::MAX),
            })
            .with_grants(Grants {
                read_dirs: hook.read_dirs.clone(),
                env: hook.env.clone(),
            });
        let wanted = component
            .subscriptions(&hook.config)
            .map_err(ComponentError::Subscriptions)?;
        // A component that names its events must name this one; one that names none takes
        // the events it is listed under.
        if !wanted.is_empty() && !wanted.contains(&entry.event) {
            return Err(ComponentError::NotSubscribed {
                wanted,
                event: entry.event.clone(),
            });
        }
        Ok(component)
    }

    /// A loaded component: its call is bounded by its own limits.
    pub(crate) struct WasmRunner(pub(crate) WasmHook);

    impl Runner for WasmRunner {
        async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
            Ok(self.0.call_async(&entry.event, data).await?)
        }
    }

    /// Every problem with the components `entries` name: `(entry, what is wrong)`.
    pub(crate) fn problems(entries: &[Entry]) -> Vec<(&Entry, ComponentError)> {
        entries
            .iter()
            .filter_map(|entry| match &entry.hook {
                HookKind::Wasm(hook) => prepare(entry, hook).err().map(|why| (entry, why)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(feature = "wasm")]
pub use run::process_runtime;
#[cfg(feature = "wasm")]
pub(crate) use run::{WasmRunner, prepare, problems};

/// Tells the hooks this process will mount that it answers one event and exits (a per-event
/// agent hook: `hooks claude` and the like). Its handlers then run in turn, so its WebAssembly
/// hooks make one call at a time, and their runtime reserves one slot instead of several,
/// which it pays for at every start. Call it before mounting: a runtime already started
/// keeps its slots. Without the `wasm` feature there is nothing to tell.
pub fn one_event_per_process() {
    #[cfg(feature = "wasm")]
    ONE_EVENT.store(true, Ordering::Relaxed);
}

/// Without the feature, each WebAssembly entry is a problem naming it.
#[cfg(not(feature = "wasm"))]
pub(crate) fn problems(entries: &[crate::Entry]) -> Vec<(&crate::Entry, ComponentError)> {
    entries
        .iter()
        .filter(|entry| matches!(entry.hook, crate::HookKind::Wasm(_)))
        .map(|entry| (entry, ComponentError::Unbuilt))
        .collect()
}
