//! Hook modules: a reusable set of hooks with its configuration, mounted on a registry and
//! unmounted as a whole (the reference's `mount(coordinator, config) -> cleanup`).

use std::fmt;

use crate::{EmitObserver, EventNameError, HookHandle, HookRegistry, ObserverHandle};

/// Why a module could not be mounted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MountError {
    /// A handler names an unusable event.
    #[error("module `{module}`: {source}")]
    Event {
        /// The module.
        module: String,
        /// The problem with the event name.
        source: EventNameError,
    },
    /// The module's configuration is unusable.
    #[error("module `{module}`: {reason}")]
    Config {
        /// The module.
        module: String,
        /// What is wrong, and how to fix it.
        reason: String,
    },
}

/// A set of hooks that mounts on a registry.
///
/// ```
/// use hooks_core::module::{HookModule, Mounted, MountError};
/// use hooks_core::{HookRegistry, HookResult};
/// use serde_json::Value;
///
/// struct Audit;
///
/// async fn note(_event: &str, _data: &Value) -> HookResult {
///     HookResult::cont()
/// }
///
/// impl HookModule for Audit {
///     fn name(&self) -> &str {
///         "audit"
///     }
///
///     fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
///         let mut mounted = Mounted::new(self.name());
///         mounted.register(registry, "tool:post", note, 100, "audit.note")?;
///         Ok(mounted)
///     }
/// }
///
/// let registry = HookRegistry::new();
/// let mounted = Audit.mount(&registry).unwrap();
/// assert_eq!(mounted.unmount(), 1);
/// ```
pub trait HookModule: Send + Sync {
    /// The module's name, for reports and errors.
    fn name(&self) -> &str;

    /// Registers the module's handlers on `registry`; what it returns unmounts them.
    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError>;
}

// Modules chosen at run time (a list of standard modules, a user's plugins) are boxed or shared.
impl<M: HookModule + ?Sized> HookModule for Box<M> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        (**self).mount(registry)
    }
}

impl<M: HookModule + ?Sized> HookModule for &M {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        (**self).mount(registry)
    }
}

impl<M: HookModule + ?Sized> HookModule for std::sync::Arc<M> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        (**self).mount(registry)
    }
}

/// The handlers and observers one mount registered; [`Mounted::unmount`] removes exactly those.
#[must_use = "keep it to unmount the module later"]
pub struct Mounted {
    module: String,
    handles: Vec<HookHandle>,
    observers: Vec<ObserverHandle>,
}

impl fmt::Debug for Mounted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mounted")
            .field("module", &self.module)
            .field("handlers", &self.handles.len())
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl Mounted {
    /// Nothing mounted yet, for `module`.
    pub fn new(module: impl Into<String>) -> Self {
        Mounted {
            module: module.into(),
            handles: Vec::new(),
            observers: Vec::new(),
        }
    }

    /// Registers a handler as part of this mount (see [`HookRegistry::register`]).
    pub fn register<M>(
        &mut self,
        registry: &HookRegistry,
        event: &str,
        handler: impl crate::IntoHandler<M>,
        priority: i32,
        name: impl Into<String>,
    ) -> Result<(), MountError> {
        let handle = registry
            .register(event, handler, priority, name)
            .map_err(|source| MountError::Event {
                module: self.module.clone(),
                source,
            })?;
        self.handles.push(handle);
        Ok(())
    }

    /// Adds an observer (see [`HookRegistry::observe`]) as part of this mount.
    pub fn observe(&mut self, registry: &HookRegistry, observer: impl EmitObserver) {
        self.observers.push(registry.observe(observer));
    }

    /// Adds a handle registered some other way to this mount.
    pub fn adopt(&mut self, handle: HookHandle) {
        self.handles.push(handle);
    }

    /// Takes over everything `other` mounted, so that unmounting this mount removes it too
    /// (a hooks file that mounts modules is unmounted as one).
    pub fn absorb(&mut self, other: Mounted) {
        self.handles.extend(other.handles);
        self.observers.extend(other.observers);
    }

    /// The module's name.
    pub fn module(&self) -> &str {
        &self.module
    }

    /// The handlers registered.
    pub fn handles(&self) -> &[HookHandle] {
        &self.handles
    }

    /// The observers added.
    pub fn observers(&self) -> &[ObserverHandle] {
        &self.observers
    }

    /// Removes every handler and observer of this mount; returns how many were still there.
    pub fn unmount(self) -> usize {
        let handlers = self
            .handles
            .iter()
            .filter(|handle| handle.unregister())
            .count();
        let observers = self
            .observers
            .iter()
            .filter(|observer| observer.unregister())
            .count();
        handlers + observers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HookResult;

    async fn noop(_event: &str, _data: &serde_json::Value) -> HookResult {
        HookResult::cont()
    }

    #[test]
    fn an_absorbed_mount_is_unmounted_with_the_one_that_took_it() {
        let registry = HookRegistry::new();
        let mut file = Mounted::new("hooks.yaml");
        file.register(&registry, "tool:pre", noop, 0, "entry")
            .expect("registers");
        let mut module = Mounted::new("logging");
        module
            .register(&registry, "tool:post", noop, 0, "module")
            .expect("registers");
        module.observe(&registry, |_: &str, _: &crate::EmitResult| {});
        file.absorb(module);
        assert_eq!((file.handles().len(), file.observers().len()), (2, 1));
        assert_eq!(file.unmount(), 3);
        assert!(registry.list_handlers(None).is_empty());
        assert_eq!(registry.observer_count(), 0);
    }
}
