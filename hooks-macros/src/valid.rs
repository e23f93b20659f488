//! Checking the parsed arguments against what they must be, and against the function's shape:
//! event names, integers, names, and the event of a typed hook.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

use crate::args::{Arg, Args};
use crate::errors::Errors;
use crate::signature::Shape;

/// The checked arguments of one `#[hook(...)]`.
pub(crate) struct HookArgs {
    /// The events as written, each a valid name (canonical, alias or custom); empty for a
    /// typed hook whose event is inferred from its view.
    pub events: Vec<LitStr>,
    pub priority: i32,
    pub name: Option<LitStr>,
    pub timeout_ms: Option<u64>,
}

/// Checks `args` for a function of the given shape; every problem is reported in `errors`,
/// each on its own token. The arguments returned are only meaningful when none was.
pub(crate) fn validate(args: &Args, shape: &Shape, errors: &mut Errors) -> HookArgs {
    let mut events = Vec::new();
    if let Some(Arg { value, .. }) = &args.event {
        events.extend(string(value, "event", errors));
    }
    if let Some(Arg { value, .. }) = &args.events {
        events.extend(event_list(value, errors).into_iter().flatten());
    }
    match shape {
        Shape::View { .. } => {
            if let Some(Arg { key, .. }) = &args.events {
                errors.push(
                    key.span(),
                    "a hook taking a typed view handles its view's event only: leave `events` \
                     out (the event is inferred from the view) or give that one `event`",
                );
            }
        }
        Shape::Json | Shape::Invalid => {
            if args.event.is_none() && args.events.is_none() {
                errors.push(
                    Span::call_site(),
                    "missing `event`: name the event this hook handles, e.g. \
                     `#[hook(event = \"tool:pre\")]`, or take a typed view such as \
                     `call: ToolPre<'_>` to infer it",
                );
            }
        }
    }
    for event in &events {
        if let Err(problem) = hooks_events::canonicalize(&event.value()) {
            errors.push(event.span(), problem.to_string());
        }
    }
    check_distinct(&events, errors);

    let mut priority = 0;
    if let Some(Arg { value, .. }) = &args.priority {
        match integer(value) {
            Some(parsed) => priority = parsed,
            None => errors.push(
                value.span(),
                "`priority` must be an integer such as `10` or `-5` (lower runs earlier)",
            ),
        }
    }
    let mut name = None;
    if let Some(Arg { value, .. }) = &args.name
        && let Some(given) = string(value, "name", errors)
    {
        if given.value().trim().is_empty() {
            errors.push(given.span(), "`name` must not be empty");
        } else {
            name = Some(given);
        }
    }
    let mut timeout_ms = None;
    if let Some(Arg { value, .. }) = &args.timeout_ms {
        match integer::<u64>(value) {
            Some(0) | None => errors.push(
                value.span(),
                "`timeout_ms` must be a positive whole number of milliseconds, e.g. `500`",
            ),
            Some(ms) => timeout_ms = Some(ms),
        }
    }
    HookArgs {
        events,
        priority,
        name,
        timeout_ms,
    }
}

/// The expression inside the invisible groups a `macro_rules!` fragment (`$priority:literal`)
/// arrives wrapped in.
fn ungrouped(value: &Expr) -> &Expr {
    match value {
        Expr::Group(group) => ungrouped(&group.expr),
        other => other,
    }
}

fn string(value: &Expr, key: &str, errors: &mut Errors) -> Option<LitStr> {
    match ungrouped(value) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Some(text.clone()),
        other => {
            errors.push(
                other.span(),
                format!("`{key}` must be a string literal, e.g. `{key} = \"...\"`"),
            );
            None
        }
    }
}

fn event_list(value: &Expr, errors: &mut Errors) -> Option<Vec<LitStr>> {
    let Expr::Array(array) = ungrouped(value) else {
        errors.push(
            value.span(),
            "`events` must be a list of strings, e.g. `events = [\"tool:pre\", \"tool:post\"]`",
        );
        return None;
    };
    if array.elems.is_empty() {
        errors.push(array.span(), "`events` must name at least one event");
        return None;
    }
    let names: Vec<LitStr> = array
        .elems
        .iter()
        .filter_map(|element| string(element, "events", errors))
        .collect();
    Some(names)
}

/// An integer literal, possibly negated, that fits `T`.
fn integer<T>(value: &Expr) -> Option<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    match ungrouped(value) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match ungrouped(expr) {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => format!("-{}", int.base10_digits()).parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The canonical form of a written event, or the text itself when it is not a valid name
/// (already reported).
pub(crate) fn canonical(event: &LitStr) -> String {
    let name = event.value();
    hooks_events::canonicalize(&name)
        .map(str::to_owned)
        .unwrap_or(name)
}

/// One function listed twice on the same event (even under an alias) would run twice.
fn check_distinct(events: &[LitStr], errors: &mut Errors) {
    for (index, event) in events.iter().enumerate() {
        if let Some(earlier) = events[..index]
            .iter()
            .find(|earlier| canonical(earlier) == canonical(event))
        {
            errors.push(
                event.span(),
                format!(
                    "`{}` names the same event as `{}`; list each event once",
                    event.value(),
                    earlier.value()
                ),
            );
        }
    }
}
