//! Code generation: the function as written and one `inventory` registration per event.
//!
//! The registration goes through `Handler::from_fn` (or `Handler::from_view` for a typed
//! hook), whose bound requires a `Send` future: when a hook holds something that is not `Send`
//! across an `.await`, rustc itself reports "future cannot be sent between threads safely" on
//! the function's name, with a note at that `.await`.
//!
//! A typed hook's event is its view's, read at compile time (`view_event`); when the attribute
//! also names one, a constant assertion on that literal makes a disagreement a compile error.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Ident, ItemFn, LitStr};

use crate::signature::Shape;
use crate::valid::{HookArgs, canonical};

pub(crate) fn expand(args: &HookArgs, shape: &Shape, function: &ItemFn) -> TokenStream {
    let ident = &function.sig.ident;
    let fn_name = ident.to_string();
    let name = match &args.name {
        Some(name) => quote!(#name),
        None => quote!(::core::concat!(::core::module_path!(), "::", #fn_name)),
    };
    let priority = args.priority;
    let timeout_ms = match args.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let (handler, events, checks) = match shape {
        Shape::View { view } => {
            let handler = quote!(::hooks_core::__private::Handler::from_view(#ident));
            let inferred = quote!(::hooks_core::__private::view_event(&#ident));
            let events = if args.events.is_empty() {
                vec![inferred]
            } else {
                args.events.iter().map(|event| quote!(#event)).collect()
            };
            let checks = args
                .events
                .iter()
                .map(|event| agreement(event, view, ident))
                .collect();
            (handler, events, checks)
        }
        Shape::Json | Shape::Invalid => (
            quote!(::hooks_core::__private::Handler::from_fn(#ident)),
            args.events.iter().map(|event| quote!(#event)).collect(),
            Vec::new(),
        ),
    };
    let registrations = events.iter().map(|event| {
        quote! {
            ::hooks_core::__private::inventory::submit! {
                ::hooks_core::__private::AnnotatedHook::__new(
                    #event,
                    #priority,
                    #name,
                    #timeout_ms,
                    ::core::module_path!(),
                    ::core::file!(),
                    ::core::line!(),
                    __hooks_handler,
                )
            }
        }
    });
    quote! {
        #function

        #[doc(hidden)]
        const _: () = {
            #(#checks)*

            fn __hooks_handler() -> ::hooks_core::__private::Handler {
                #handler
            }

            #(#registrations)*
        };
    }
}

/// A constant that fails to evaluate, on the `event` literal, when the written event (an alias
/// is canonicalised first) is not the event of the view the function takes.
fn agreement(event: &LitStr, view: &Ident, function: &Ident) -> TokenStream {
    let written = canonical(event);
    let message = format!(
        "`{}` is not the event of `{view}`, the view this hook takes: leave `event` out (it is \
         inferred from the view) or take the view of `{written}`",
        event.value()
    );
    quote_spanned! {event.span()=>
        const _: () = if !::hooks_core::__private::same_event(
            ::hooks_core::__private::view_event(&#function),
            #written,
        ) {
            ::core::panic!(#message)
        };
    }
}
