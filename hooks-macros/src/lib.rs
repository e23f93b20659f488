//! The `#[hook]` attribute: annotate an async fn to register it as a hook of `hooks-core`,
//! checked at compile time. Use it as `hooks_core::hook`.
//!
//! ```
//! use hooks_core::{hook, HookRegistry, HookResult};
//! use serde_json::{json, Value};
//!
//! #[hook(event = "tool:pre", priority = 10, name = "file_security")]
//! async fn file_security(_event: &str, data: &Value) -> HookResult {
//!     match data["tool_input"]["file_path"].as_str() {
//!         Some(path) if path.starts_with("/etc/") => HookResult::deny("system files are protected"),
//!         _ => HookResult::cont(),
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! registry.register_annotated(|hook| hook.name() == "file_security").unwrap();
//! let outcome = registry.emit("tool:pre", json!({"tool_input": {"file_path": "/etc/hosts"}})).await;
//! assert_eq!(outcome.decided_by.as_deref(), Some("file_security"));
//! # });
//! ```
//!
//! Arguments, in any order: `event = "..."` (a canonical name, a PascalCase alias or a custom
//! `namespace:name`) or `events = ["...", ...]`; `priority = N` (default 0, lower runs
//! earlier); `name = "..."` (default: the function's path); `timeout_ms = N`.
//!
//! The function is kept as written. Beside it the attribute emits one registration per event,
//! collected by `hooks_core::annotated_hooks()` and registered by
//! `HookRegistry::with_annotated()` or `register_annotated(filter)`. Mistakes are compile
//! errors on the offending token: a missing or unknown key, a key given twice, a priority that
//! is not an integer, an unknown event (with a suggestion), a function that is not `async`,
//! takes the wrong parameters, returns something else than `HookResult`, is generic or takes
//! `self`, or whose future is not `Send`.

mod args;
mod errors;
mod expand;
mod signature;

use proc_macro::TokenStream;
use quote::quote;
use syn::ItemFn;

/// Registers an `async fn(&str, &Value) -> HookResult` as a hook; see the crate docs.
#[proc_macro_attribute]
pub fn hook(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match try_hook(args.into(), item.clone()) {
        Ok(expanded) => expanded.into(),
        // The function is emitted even when the attribute is wrong, so that the rest of the
        // crate (and the IDE) still sees it.
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#item #error).into()
        }
    }
}

fn try_hook(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let function: ItemFn = syn::parse2(item).map_err(|error| {
        syn::Error::new(
            error.span(),
            "#[hook] goes on an `async fn(event: &str, data: &Value) -> HookResult`",
        )
    })?;
    // Both the arguments and the signature are checked, so that one compile shows all.
    match (args::parse(args), signature::check(&function)) {
        (Ok(args), Ok(())) => Ok(expand::expand(&args, &function)),
        (Err(mut error), Err(more)) => {
            error.combine(more);
            Err(error)
        }
        (Err(error), Ok(())) | (Ok(_), Err(error)) => Err(error),
    }
}
