//! Hooks registered at compile time with [`#[hook]`](crate::hook), gathered through
//! `inventory`.
//!
//! Each annotated function submits one [`AnnotatedHook`] per event; [`annotated_hooks`] lists
//! them all, sorted by priority then name, because link order is not deterministic.
//!
//! # The linker pitfall
//!
//! A registration lives in the crate that defines the function. If nothing in a crate is
//! referenced from the final binary, the linker drops the crate, and its registrations with
//! it, without a word. A crate whose only job is to provide hooks should therefore export a
//! function that the application calls (or `use the_crate as _;`), for example:
//!
//! ```ignore
//! // in the hook crate
//! pub fn link() {}
//! // in the application, before building the registry
//! my_hooks::link();
//! ```
//!
//! [`registration_works`] tells whether registrations reach this program at all (it looks for
//! a canary that `hooks-core` registers itself); [`expect_hooks`] lets an application check at
//! start-up that the hooks it counts on are there, and stop with a clear error if one is not.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use crate::{Handler, HookResult};

/// One `#[hook]` registration: an annotated function on one event.
#[derive(Debug)]
pub struct AnnotatedHook {
    event: &'static str,
    priority: i32,
    name: &'static str,
    timeout_ms: Option<u64>,
    module_path: &'static str,
    file: &'static str,
    line: u32,
    handler: fn() -> Handler,
}

inventory::collect!(AnnotatedHook);

impl AnnotatedHook {
    /// Used by the code `#[hook]` generates; not a public API.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __new(
        event: &'static str,
        priority: i32,
        name: &'static str,
        timeout_ms: Option<u64>,
        module_path: &'static str,
        file: &'static str,
        line: u32,
        handler: fn() -> Handler,
    ) -> Self {
        AnnotatedHook {
            event,
            priority,
            name,
            timeout_ms,
            module_path,
            file,
            line,
            handler,
        }
    }

    /// The event as written in the attribute (canonical name, alias or custom event).
    pub fn event(&self) -> &'static str {
        self.event
    }

    /// The canonical event the hook is registered for.
    pub fn canonical_event(&self) -> &'static str {
        crate::events::canonicalize(self.event).unwrap_or(self.event)
    }

    /// The priority (lower runs earlier).
    pub fn priority(&self) -> i32 {
        self.priority
    }

    /// The name: the one given, or the function's path.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The handler timeout given with `timeout_ms`, if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_ms.map(Duration::from_millis)
    }

    /// The module the function is defined in.
    pub fn module_path(&self) -> &'static str {
        self.module_path
    }

    /// The source file of the attribute.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line of the attribute.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// A fresh handler for the function.
    pub fn handler(&self) -> Handler {
        (self.handler)()
    }

    fn is_canary(&self) -> bool {
        self.event == CANARY_EVENT && self.name == CANARY_NAME
    }
}

/// Every annotated hook linked into this program, sorted by priority, then name, then event
/// (the canary left out). The list is built once, on first use.
pub fn annotated_hooks() -> &'static [&'static AnnotatedHook] {
    static SORTED: OnceLock<Vec<&'static AnnotatedHook>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut hooks: Vec<&'static AnnotatedHook> = inventory::iter::<AnnotatedHook>
            .into_iter()
            .filter(|hook| !hook.is_canary())
            .collect();
        hooks.sort_by_key(|hook| (hook.priority, hook.name, hook.event, hook.file, hook.line));
        hooks
    })
}

/// Whether compile-time registrations reach this program at all: `hooks-core` registers a
/// canary of its own, and this says whether it is seen. When it is false, no `#[hook]` will be
/// found either (the platform's linker does not keep `inventory`'s registrations).
pub fn registration_works() -> bool {
    inventory::iter::<AnnotatedHook>
        .into_iter()
        .any(AnnotatedHook::is_canary)
}

/// Checks that every hook named in `names` is linked into this program (a name is the one
/// given with `name = "..."`, or the function's path `crate::module::function`); call it at
/// start-up, so that a forgotten `link()` stops the application instead of silently running it
/// unguarded.
///
/// ```
/// let missing = hooks_core::annotated::expect_hooks(["my_hooks::deny_rm"]).unwrap_err();
/// assert_eq!(missing.names, ["my_hooks::deny_rm"]);
/// assert!(missing.to_string().contains("link()"));
/// ```
pub fn expect_hooks<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), MissingHooks> {
    let hooks = annotated_hooks();
    let missing: Vec<String> = names
        .into_iter()
        .filter(|name| !hooks.iter().any(|hook| hook.name == *name))
        .map(str::to_owned)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(MissingHooks {
            names: missing,
            registration_works: registration_works(),
        })
    }
}

/// Hooks that [`expect_hooks`] expected and this program does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingHooks {
    /// The names not found, in the order they were asked for.
    pub names: Vec<String>,
    /// Whether registrations reach this program at all (see [`registration_works`]).
    pub registration_works: bool,
}

impl std::fmt::Display for MissingHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.names.iter().map(|name| format!("`{name}`")).collect();
        write!(
            f,
            "expected hooks are not linked in: {}; ",
            names.join(", ")
        )?;
        if self.registration_works {
            let known: Vec<&str> = annotated_hooks().iter().map(|hook| hook.name).collect();
            write!(
                f,
                "call the `link()` of the crate that defines them from main (the linker drops a \
                 crate nothing uses, with its hooks); linked: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        } else {
            f.write_str(
                "no #[hook] reaches this program at all: this platform's linker drops \
                 `inventory` registrations; register the hooks by hand",
            )
        }
    }
}

impl std::error::Error for MissingHooks {}

const CANARY_EVENT: &str = "hooks:canary";
const CANARY_NAME: &str = "hooks_core::annotated::canary";

async fn canary(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn canary_handler() -> Handler {
    Handler::from_fn(canary)
}

inventory::submit! {
    AnnotatedHook::__new(
        CANARY_EVENT,
        0,
        CANARY_NAME,
        None,
        module_path!(),
        file!(),
        line!(),
        canary_handler,
    )
}
