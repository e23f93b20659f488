//! Checking the annotated function's signature, and telling its two shapes apart:
//! `async fn name(event: &str, data: &Value) -> HookResult` (or `-> Result<HookResult, E>`),
//! and the typed form `async fn name(call: ToolPre<'_>) -> ToolPreDecision` (any view, any
//! answer the kernel accepts); either with no generics and no `self`.
//!
//! The checks are by shape, so that the common mistakes get a message that says how to fix
//! them; whatever slips through (a type alias, say) is still checked by rustc when the
//! function is registered.

use syn::spanned::Spanned;
use syn::{
    FnArg, GenericArgument, Ident, ItemFn, PathArguments, ReturnType, Signature, Type, TypePath,
};

use crate::errors::Errors;

const SHAPE: &str = "async fn name(event: &str, data: &Value) -> HookResult";
const TYPED_SHAPE: &str = "async fn name(call: ToolPre<'_>) -> ToolPreDecision";

/// Which of the two handler shapes the function has.
pub(crate) enum Shape {
    /// `(event: &str, data: &Value)`.
    Json,
    /// One typed view; `view` is the last segment of its type's path (e.g. `ToolPre`).
    View { view: Ident },
    /// Neither; the problems are reported.
    Invalid,
}

/// Checks the function, reporting every problem in `errors`, and says which shape its
/// parameters have (the shape is known even when, say, `async` is missing).
pub(crate) fn check(function: &ItemFn, errors: &mut Errors) -> Shape {
    let signature = &function.sig;

    if signature.asyncness.is_none() {
        errors.push(
            signature.fn_token.span(),
            format!("a hook must be an `async fn`: `{SHAPE}` or `{TYPED_SHAPE}`"),
        );
    }
    if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        errors.push_spanned(
            &signature.generics,
            "a hook cannot have generic or lifetime parameters: it is registered as one \
             concrete function (elided lifetimes in `&str`, `&Value` and `ToolPre<'_>` are \
             enough)",
        );
    }
    let shape = if let Some(receiver) = signature.receiver() {
        errors.push_spanned(
            receiver,
            "a hook cannot take `self`: write a free `async fn`, or implement the `Hook` trait \
             for a type that carries state",
        );
        Shape::Invalid
    } else {
        parameters(signature, errors)
    };
    check_output(signature, &shape, errors);
    shape
}

fn parameters(signature: &Signature, errors: &mut Errors) -> Shape {
    let types: Vec<&Type> = signature
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => Some(&*typed.ty),
            FnArg::Receiver(_) => None,
        })
        .collect();
    if let [single] = types[..]
        && let Some(view) = view_type(single)
    {
        return Shape::View { view };
    }
    let views = types
        .iter()
        .copied()
        .filter(|ty| is_lifetime_generic_path(ty));
    if let Some(view) = views
        .filter_map(view_type)
        .next()
        .filter(|_| types.len() > 1)
    {
        errors.push_spanned(
            &signature.inputs,
            "a hook taking a typed view takes only the view, e.g. `(call: ToolPre<'_>)`: the \
             event is the view's, and the whole data is `call.data()`",
        );
        // Still a typed hook: the event and the answer are checked as such.
        return Shape::View { view };
    }
    if types.len() != 2 {
        let message = format!(
            "a hook takes `(event: &str, data: &Value)` or one typed view such as \
             `(call: ToolPre<'_>)`; found {}",
            types.len()
        );
        if signature.inputs.is_empty() {
            errors.push(signature.paren_token.span.join(), message);
        } else {
            errors.push_spanned(&signature.inputs, message);
        }
        return Shape::Invalid;
    }
    let mut shape = Shape::Json;
    if !is_shared_ref_to(types[0], "str") {
        errors.push_spanned(
            types[0],
            "the first parameter is the event name and must be `&str`",
        );
        shape = Shape::Invalid;
    }
    if !is_shared_ref_to(types[1], "Value") {
        errors.push_spanned(
            types[1],
            "the second parameter is the event data and must be `&serde_json::Value`",
        );
        shape = Shape::Invalid;
    }
    shape
}

fn check_output(signature: &Signature, shape: &Shape, errors: &mut Errors) {
    match (&signature.output, shape) {
        (ReturnType::Default, Shape::View { view }) => errors.push(
            signature.paren_token.span.close(),
            format!(
                "a typed hook returns its decision (e.g. `-> {view}Decision`), a `HookResult`, \
                 or a `Result` of either"
            ),
        ),
        (ReturnType::Default, _) => errors.push(
            signature.paren_token.span.close(),
            "a hook returns `HookResult` (or `Result<HookResult, E>`): add `-> HookResult`",
        ),
        // What a typed hook returns is checked by rustc (`IntoHookResult`): decisions are
        // types of their own.
        (ReturnType::Type(..), Shape::View { .. }) => {}
        (ReturnType::Type(_, ty), _) if !returns_hook_result(ty) => errors.push_spanned(
            ty,
            "a hook returns `HookResult` or `Result<HookResult, E>` (an error is logged and the \
             hook skipped)",
        ),
        (ReturnType::Type(..), _) => {}
    }
}

/// The view's name when `ty` is a path to a type that may be a view (not a reference, not
/// the JSON data itself).
fn view_type(ty: &Type) -> Option<Ident> {
    let Type::Path(TypePath { path, qself: None }) = ty else {
        return None;
    };
    let last = path.segments.last()?;
    (last.ident != "Value" && last.ident != "str").then(|| last.ident.clone())
}

/// A path type with a lifetime argument, such as `ToolPre<'_>`: what a view looks like.
fn is_lifetime_generic_path(ty: &Type) -> bool {
    let Type::Path(TypePath { path, qself: None }) = ty else {
        return false;
    };
    path.segments.last().is_some_and(|segment| {
        matches!(&segment.arguments, PathArguments::AngleBracketed(arguments)
            if arguments.args.iter().any(|arg| matches!(arg, GenericArgument::Lifetime(_))))
    })
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
