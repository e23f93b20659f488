//! Checking the annotated function's signature: `async fn name(event: &str, data: &Value)
//! -> HookResult` (or `-> Result<HookResult, E>`), with no generics and no `self`.
//!
//! The checks are by shape, so that the common mistakes get a message that says how to fix
//! them; whatever slips through (a type alias, say) is still checked by rustc when the
//! function is registered.

use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, ItemFn, PathArguments, ReturnType, Type, TypePath};

use crate::errors::Errors;

const SHAPE: &str = "async fn name(event: &str, data: &Value) -> HookResult";

pub(crate) fn check(function: &ItemFn) -> syn::Result<()> {
    let signature = &function.sig;
    let mut errors = Errors::default();

    if signature.asyncness.is_none() {
        errors.push(
            signature.fn_token.span(),
            format!("a hook must be an `async fn`: `{SHAPE}`"),
        );
    }
    if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        errors.push_spanned(
            &signature.generics,
            "a hook cannot have generic or lifetime parameters: it is registered as one \
             concrete function (elided lifetimes in `&str` and `&Value` are enough)",
        );
    }
    if let Some(receiver) = signature.receiver() {
        errors.push_spanned(
            receiver,
            "a hook cannot take `self`: write a free `async fn`, or implement the `Hook` trait \
             for a type that carries state",
        );
    } else if signature.inputs.len() != 2 {
        let message = format!(
            "a hook takes exactly two parameters, `(event: &str, data: &Value)`; found {}",
            signature.inputs.len()
        );
        if signature.inputs.is_empty() {
            errors.push(signature.paren_token.span.join(), message);
        } else {
            errors.push_spanned(&signature.inputs, message);
        }
    } else {
        let mut types = signature.inputs.iter().filter_map(|input| match input {
            FnArg::Typed(typed) => Some(&*typed.ty),
            FnArg::Receiver(_) => None,
        });
        if let Some(event) = types.next().filter(|ty| !is_shared_ref_to(ty, "str")) {
            errors.push_spanned(
                event,
                "the first parameter is the event name and must be `&str`",
            );
        }
        if let Some(data) = types.next().filter(|ty| !is_shared_ref_to(ty, "Value")) {
            errors.push_spanned(
                data,
                "the second parameter is the event data and must be `&serde_json::Value`",
            );
        }
    }
    match &signature.output {
        ReturnType::Default => errors.push(
            signature.paren_token.span.close(),
            "a hook returns `HookResult` (or `Result<HookResult, E>`): add `-> HookResult`",
        ),
        ReturnType::Type(_, ty) if !returns_hook_result(ty) => errors.push_spanned(
            ty,
            "a hook returns `HookResult` or `Result<HookResult, E>` (an error is logged and the \
             hook skipped)",
        ),
        ReturnType::Type(..) => {}
    }
    errors.finish()
}

/// `&T` (not `&mut T`) where the path of `T` ends in `name`.
fn is_shared_ref_to(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Reference(reference) if reference.mutability.is_none() => {
            last_segment_is(&reference.elem, name)
        }
        _ => false,
    }
}

fn last_segment_is(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(TypePath { path, qself: None })
        if path.segments.last().is_some_and(|segment| segment.ident == name))
}

/// `HookResult`, or `Result<HookResult, E>` (any path ending in those names).
fn returns_hook_result(ty: &Type) -> bool {
    if last_segment_is(ty, "HookResult") {
        return true;
    }
    let Type::Path(TypePath { path, qself: None }) = ty else {
        return false;
    };
    let Some(last) = path.segments.last() else {
        return false;
    };
    if last.ident != "Result" {
        return false;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return false;
    };
    matches!(arguments.args.first(), Some(GenericArgument::Type(ok)) if last_segment_is(ok, "HookResult"))
}
