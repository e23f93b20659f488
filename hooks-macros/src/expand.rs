//! Code generation: the function as written and one `inventory` registration per event.
//!
//! The registration goes through `Handler::from_fn`, whose bound requires a `Send` future: when
//! a hook holds something that is not `Send` across an `.await`, rustc itself reports "future
//! cannot be sent between threads safely" on the function's name, with a note at that `.await`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::args::HookArgs;

pub(crate) fn expand(args: &HookArgs, function: &ItemFn) -> TokenStream {
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
    let registrations = args.events.iter().map(|event| {
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
            fn __hooks_handler() -> ::hooks_core::__private::Handler {
                ::hooks_core::__private::Handler::from_fn(#ident)
            }

            #(#registrations)*
        };
    }
}
