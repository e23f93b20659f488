//! WebAssembly hooks (`type: wasm`): a component run by hooks-wasm in its sandbox. Running (and
//! checking) them needs the `wasm` feature; without it they load, and mounting or checking
//! one is an error naming the feature.

#[cfg(feature = "wasm")]
mod run {
    use hooks_core::HookResult;
    use hooks_wasm::{Abi, Grants, Limits, WasmHook, WasmRuntime};
    use serde_json::Value;

    use crate::{ComponentHook, Entry, HookKind, WasmAbi};

    /// The component of `hook` (of `entry`), loaded (compiled, or from the disk cache) and
    /// checked against its world, its subscriptions checked against the entry's event.
    pub(crate) fn prepare(entry: &Entry, hook: &ComponentHook) -> Result<WasmHook, String> {
        let runtime = WasmRuntime::shared().map_err(|error| error.to_string())?;
        let abi = match hook.abi {
            WasmAbi::Hooks => Abi::Hooks,
            WasmAbi::Amplifier => Abi::Amplifier,
        };
        let component = WasmHook::load(&runtime, &hook.path, abi)
            .map_err(|error| error.to_string())?
            .with_limits(Limits {
                timeout: hook.timeout,
                memory_bytes: usize::try_from(hook.memory_mb << 20).unwrap_or(usize::MAX),
            })
            .with_grants(Grants {
                read_dirs: hook.read_dirs.clone(),
                env: hook.env.clone(),
            });
        let wanted = component
            .subscriptions(&hook.config)
            .map_err(|failure| format!("its `subscriptions` {failure}"))?;
        // A component that names its events must name this one; one that names none takes
        // the events it is listed under.
        if !wanted.is_empty() && !wanted.contains(&entry.event) {
            return Err(format!(
                "it subscribes to {}, not to `{}`",
                wanted.join(", "),
                entry.event
            ));
        }
        Ok(component)
    }

    /// The answer of a WebAssembly hook to one event, `on_failure` applied.
    pub(crate) async fn answer(
        hook: &ComponentHook,
        component: &WasmHook,
        entry: &Entry,
        event: &str,
        data: &Value,
    ) -> HookResult {
        component
            .call_async(event, data)
            .await
            .unwrap_or_else(|failure| hook.on_failure.apply(&entry.name, &failure))
    }

    /// Every problem with the components `entries` name: `(entry, what is wrong)`.
    pub(crate) fn problems(entries: &[Entry]) -> Vec<(&Entry, String)> {
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
pub(crate) use run::{answer, prepare, problems};

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
pub(crate) fn problems(entries: &[crate::Entry]) -> Vec<(&crate::Entry, String)> {
    entries
        .iter()
        .filter(|entry| matches!(entry.hook, crate::HookKind::Wasm(_)))
        .map(|entry| {
            (
                entry,
                "this build of hooks-config cannot load WebAssembly components: enable its \
                 `wasm` feature"
                    .to_owned(),
            )
        })
        .collect()
}
