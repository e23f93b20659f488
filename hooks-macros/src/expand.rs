//! Code generation: the function as written, one `inventory` registration per event, and a
//! hidden check that makes rustc itself say "future cannot be sent between threads safely" at
//! the offending `.await` when the hook's future is not `Send`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
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
    // Spanned on the function's name, so that rustc's "not `Send`" error points there and its
    // notes point at the `.await` that holds the offending value.
    let send_check = quote_spanned! {ident.span()=>
        #[allow(dead_code)]
        fn __hooks_future_must_be_send(
            event: &str,
            data: &::hooks_core::__private::serde_json::Value,
        ) {
            fn hook_future_is_send<F: ::core::marker::Send>(_: F) {}
            hook_future_is_send(#ident(event, data));
        }
    };
    quote! {
        #function

        #[doc(hidden)]
        const _: () = {
            fn __hooks_handler() -> ::hooks_core::__private::Handler {
                ::hooks_core::__private::Handler::from_fn(#ident)
            }

            #send_check

            #(#registrations)*
        };
    }
}
