//! Parsing and checking the attribute's arguments:
//! `event = "..."` or `events = [...]`, `priority = N`, `name = "..."`, `timeout_ms = N`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, MetaNameValue, Token, UnOp};

use crate::errors::Errors;

const KEYS: &str = "`event`, `events`, `priority`, `name` or `timeout_ms`";

/// The checked arguments of one `#[hook(...)]`.
pub(crate) struct HookArgs {
    /// The events, as written, each a valid name (canonical, alias or custom).
    pub events: Vec<LitStr>,
    pub priority: i32,
    pub name: Option<LitStr>,
    pub timeout_ms: Option<u64>,
}

/// Parses `args`; every problem is reported, each on its own token.
pub(crate) fn parse(args: TokenStream) -> syn::Result<HookArgs> {
    let pairs = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(args)?;
    let mut errors = Errors::default();
    let mut seen: Vec<String> = Vec::new();
    let mut events: Option<Vec<LitStr>> = None;
    let mut priority = 0;
    let mut name = None;
    let mut timeout_ms = None;

    for pair in pairs {
        let Some(key) = pair.path.get_ident().map(ToString::to_string) else {
            errors.push(pair.path.span(), format!("expected one of {KEYS}"));
            continue;
        };
        if seen.contains(&key) {
            errors.push(
                pair.path.span(),
                format!("`{key}` is given twice; keep one"),
            );
            continue;
        }
        let both_event_forms = matches!(key.as_str(), "event" | "events")
            && seen.iter().any(|k| k == "event" || k == "events");
        seen.push(key.clone());
        if both_event_forms {
            errors.push(
                pair.path.span(),
                "give either `event = \"...\"` or `events = [...]`, not both",
            );
            continue;
        }
        let value = &pair.value;
        match key.as_str() {
            "event" => match string(value, "event", &mut errors) {
                Some(event) => events = Some(vec![event]),
                None => continue,
            },
            "events" => events = event_list(value, &mut errors),
            "priority" => match integer(value) {
                Some(parsed) => priority = parsed,
                None => errors.push(
                    value.span(),
                    "`priority` must be an integer such as `10` or `-5` (lower runs earlier)",
                ),
            },
            "name" => {
                if let Some(given) = string(value, "name", &mut errors) {
                    if given.value().trim().is_empty() {
                        errors.push(given.span(), "`name` must not be empty");
                    } else {
                        name = Some(given);
                    }
                }
            }
            "timeout_ms" => match integer::<u64>(value) {
                Some(0) | None => errors.push(
                    value.span(),
                    "`timeout_ms` must be a positive whole number of milliseconds, e.g. `500`",
                ),
                Some(ms) => timeout_ms = Some(ms),
            },
            other => errors.push(
                pair.path.span(),
                format!("unknown argument `{other}`; expected {KEYS}"),
            ),
        }
    }

    let events = match events {
        Some(events) => events,
        None if seen.iter().any(|k| k == "event" || k == "events") => Vec::new(),
        None => {
            errors.push(
                Span::call_site(),
                "missing `event`: name the event this hook handles, e.g. \
                 `#[hook(event = \"tool:pre\")]`",
            );
            Vec::new()
        }
    };
    for event in &events {
        if let Err(problem) = hooks_events::canonicalize(&event.value()) {
            errors.push(event.span(), problem.to_string());
        }
    }
    check_distinct(&events, &mut errors);
    errors.finish()?;
    Ok(HookArgs {
        events,
        priority,
        name,
        timeout_ms,
    })
}

fn string(value: &Expr, key: &str, errors: &mut Errors) -> Option<LitStr> {
    match value {
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
    let Expr::Array(array) = value else {
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
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => format!("-{}", int.base10_digits()).parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// One function listed twice on the same event (even under an alias) would run twice.
fn check_distinct(events: &[LitStr], errors: &mut Errors) {
    let canonical = |lit: &LitStr| {
        let name = lit.value();
        hooks_events::canonicalize(&name)
            .map(str::to_owned)
            .unwrap_or(name)
    };
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
