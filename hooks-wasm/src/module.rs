//! A WebAssembly hook as a module: mounted on the events it subscribes to, its failures
//! decided by its `on_failure` like those of every other runner.

use std::time::Duration;

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookOptions, HookRegistry, HookResult, OnFailure};
use serde_json::Value;

use crate::WasmHook;

/// A [`WasmHook`] to mount: on the events its `subscriptions(config)` names (or those given
/// with [`WasmModule::events`]), with a priority and an `on_failure`.
///
/// ```no_run
/// use hooks_core::{HookRegistry, OnFailure};
/// use hooks_core::module::HookModule;
/// use hooks_wasm::{Abi, WasmHook, WasmModule, WasmRuntime};
///
/// let runtime = WasmRuntime::builder().build()?;
/// let hook = WasmHook::load(&runtime, "policy.wasm".as_ref(), Abi::Hooks)?;
/// let registry = HookRegistry::new();
/// let mounted = WasmModule::new(hook)
///     .config(serde_json::json!({"strict": true}))
///     .on_failure(OnFailure::Block)
///     .mount(&registry)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct WasmModule {
    hook: WasmHook,
    config: Value,
    events: Option<Vec<String>>,
    on_failure: OnFailure,
    priority: i32,
}

impl WasmModule {
    /// `hook`, with an empty config, `on_failure: warn` and priority 0.
    pub fn new(hook: WasmHook) -> Self {
        WasmModule {
            hook,
            config: Value::Object(serde_json::Map::new()),
            events: None,
            on_failure: OnFailure::Warn,
            priority: 0,
        }
    }

    /// The configuration handed to `subscriptions`.
    #[must_use]
    pub fn config(mut self, config: Value) -> Self {
        self.config = config;
        self
    }

    /// Mounts on these events instead of asking the component (the only way for a component
    /// of the amplifier ABI, which declares none).
    #[must_use]
    pub fn events<I, S>(mut self, events: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.events = Some(events.into_iter().map(Into::into).collect());
        self
    }

    /// What a failure (trap, timeout, memory, unreadable answer) gives.
    #[must_use]
    pub fn on_failure(mut self, on_failure: OnFailure) -> Self {
        self.on_failure = on_failure;
        self
    }

    /// The handlers' priority.
    #[must_use]
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }
}

/// The registered handler.
pub(crate) struct WasmHandler {
    pub(crate) hook: WasmHook,
    pub(crate) on_failure: OnFailure,
}

impl Hook for WasmHandler {
    async fn handle(&self, event: &str, data: &Value) -> HookResult {
        self.hook
            .call_async(event, data)
            .await
            .unwrap_or_else(|failure| self.on_failure.apply(self.hook.name(), &failure))
    }
}

impl HookModule for WasmModule {
    fn name(&self) -> &str {
        self.hook.name()
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let module = self.hook.name().to_owned();
        let events = match &self.events {
            Some(events) => events.clone(),
            None => {
                self.hook
                    .subscriptions(&self.config)
                    .map_err(|failure| MountError::Config {
                        module: module.clone(),
                        reason: format!("its subscriptions cannot be read: it {failure}"),
                    })?
            }
        };
        let mut mounted = Mounted::new(module.clone());
        for event in events {
            let handler = WasmHandler {
                hook: self.hook.clone(),
                on_failure: self.on_failure,
            };
            let options = HookOptions::new()
                .priority(self.priority)
                .name(module.clone())
                // The deadline decides; the registry's timeout is a backstop that, for a hook
                // that blocks on failure, blocks too.
                .timeout(self.hook.limits().timeout + Duration::from_secs(5))
                .fail_closed(self.on_failure == OnFailure::Block);
            match registry.register_with(&event, handler, options) {
                Ok(handle) => mounted.adopt(handle),
                Err(source) => {
                    mounted.unmount();
                    return Err(MountError::Event { module, source });
                }
            }
        }
        Ok(mounted)
    }
}
