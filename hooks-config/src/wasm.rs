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
mod run {
    use hooks_core::HookResult;
    use hooks_wasm::{Abi, Grants, Limits, WasmHook, WasmRuntime};
    use serde_json::Value;

    use super::ComponentError;
    use crate::failure::Failure;
    use crate::runner::Runner;
    use crate::{ComponentHook, Entry, HookKind, WasmAbi};

    /// The component of `hook` (of `entry`), loaded (compiled, or from the disk cache) and
    /// checked against its world, its subscriptions checked against the entry's event.
    pub(crate) fn prepare(entry: &Entry, hook: &ComponentHook) -> Result<WasmHook, ComponentError> {
        let runtime = WasmRuntime::shared()?;
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
pub(crate) use run::{WasmRunner, prepare, problems};

/// Tells the hooks this process will mount that it answers one event and exits (a per-event
/// agent hook: `hooks claude` and the like). Its handlers then run in turn, so its WebAssembly
/// hooks make one call at a time, and their runtime reserves one slot instead of several,
/// which it pays for at every start. Call it before mounting: a runtime already started
/// keeps its slots. Without the `wasm` feature there is nothing to tell.
pub fn one_event_per_process() {
    #[cfg(feature = "wasm")]
    hooks_wasm::WasmRuntime::set_shared_slots(1);
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
