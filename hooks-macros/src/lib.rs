//! The `#[hook]` attribute: annotate an async fn to register it as a hook of `hooks-core`,
//! checked at compile time. Use it as `hooks_core::hook`.
//!
//! ```
//! use hooks_core::decision::ToolPreDecision;
//! use hooks_core::view::ToolPre;
//! use hooks_core::{hook, HookRegistry};
//! use serde_json::json;
//!
//! // The event is the view's: `tool:pre`.
//! #[hook(priority = 10, name = "file_security")]
//! async fn file_security(call: ToolPre<'_>) -> ToolPreDecision {
//!     match call.tool_input()["file_path"].as_str() {
//!         Some(path) if path.starts_with("/etc/") => ToolPreDecision::deny("system files are protected"),
//!         _ => ToolPreDecision::proceed(),
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! registry.register_annotated(|hook| hook.name() == "file_security").unwrap();
//! let outcome = registry
//!     .emit("tool:pre", json!({"tool_name": "write_file", "tool_input": {"file_path": "/etc/hosts"}}))
//!     .await;
//! assert_eq!(outcome.decided_by.as_deref(), Some("file_security"));
//! # });
//! ```
//!
//! The function takes either one typed view of `hooks_core::view` (the event is inferred from
//! it) or the JSON form `(event: &str, data: &Value)`, which needs the event named:
//!
//! ```
//! use hooks_core::{hook, HookResult};
//! use serde_json::Value;
//!
//! #[hook(event = "PreToolUse", priority = -5)]
//! async fn audit(_event: &str, data: &Value) -> HookResult {
//!     HookResult::inject(format!("about to run {}", data["tool_name"]))
//! }
//! ```
//!
//! Arguments, in any order: `event = "..."` (a canonical name, a PascalCase alias or a custom
//! `namespace:name`) or, for a JSON hook, `events = ["...", ...]`; `priority = N` (default 0,
//! lower runs earlier); `name = "..."` (default: the function's path); `timeout_ms = N`. On a
//! typed hook `event` may be left out; given, it must name the view's event (an alias is
//! fine), or the build fails on it.
//!
//! The function is kept as written. Beside it the attribute emits one registration per event,
//! collected by `hooks_core::annotated_hooks()` and registered by
//! `HookRegistry::with_annotated()` or `register_annotated(filter)`. Mistakes are compile
//! errors on the offending token: a missing or unknown key, a key given twice, a priority that
//! is not an integer, an unknown event (with a suggestion), an event that is not the view's, a
//! function that is not `async`, takes the wrong parameters, returns something else than a
//! decision or `HookResult`, is generic or takes `self`, or whose future is not `Send`.
//!
//! Inside, the arguments are parsed as written (`args`), then checked against what they must
//! be and against the function's shape (`valid`, `signature`), then expanded (`expand`).

mod args;
mod errors;
mod expand;
mod signature;
mod valid;

use proc_macro::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::errors::Errors;

/// Registers an `async fn(&str, &Value) -> HookResult`, or an `async fn` taking one typed
/// view, as a hook; see the crate docs.
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
            "#[hook] goes on an `async fn(event: &str, data: &Value) -> HookResult`, or an \
             `async fn` taking one typed view such as `ToolPre<'_>`",
        )
    })?;
    // The arguments and the signature are both checked, so that one compile shows all.
    let mut errors = Errors::default();
    let parsed = args::parse(args, &mut errors);
    let shape = signature::check(&function, &mut errors);
    let checked = parsed.map(|parsed| valid::validate(&parsed, &shape, &mut errors));
    if let Err(syntax) = &checked {
        errors.combine(syntax.clone());
    }
    errors.finish()?;
    Ok(expand::expand(&checked?, &shape, &function))
}
