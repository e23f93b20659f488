//! Parsing the attribute's arguments as written: `key = value` pairs, each known key at most
//! once. What the values must be is checked afterwards, in [`valid`](crate::valid).

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::{Expr, Ident};

use crate::errors::Errors;

/// The keys the attribute takes, as listed in error messages.
pub(crate) const KEYS: &str = "`event`, `events`, `priority`, `name` or `timeout_ms`";

/// One `key = value` as written.
pub(crate) struct Arg {
    pub key: Ident,
    pub value: Expr,
}

/// The arguments of one `#[hook(...)]` as written, each known key at most once.
#[derive(Default)]
pub(crate) struct Args {
    pub event: Option<Arg>,
    pub events: Option<Arg>,
    pub priority: Option<Arg>,
    pub name: Option<Arg>,
    pub timeout_ms: Option<Arg>,
}

impl Args {
    fn slot(&mut self, key: &str) -> Option<&mut Option<Arg>> {
        match key {
            "event" => Some(&mut self.event),
            "events" => Some(&mut self.events),
            "priority" => Some(&mut self.priority),
            "name" => Some(&mut self.name),
            "timeout_ms" => Some(&mut self.timeout_ms),
            _ => None,
        }
    }
}

/// Parses `tokens` as `key = value, ...`. Unknown and repeated keys are reported in `errors`
/// (each on its own token) and parsing goes on; only malformed syntax is an `Err`.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> syn::Result<Args> {
    let mut args = Args::default();
    syn::meta::parser(|meta| {
        let value: Expr = meta.value()?.parse()?;
        let Some(key) = meta.path.get_ident().cloned() else {
            errors.push_spanned(&meta.path, format!("expected one of {KEYS}"));
            return Ok(());
        };
        let name = key.to_string();
        let other_event_form = match name.as_str() {
            "event" => args.events.is_some(),
            "events" => args.event.is_some(),
            _ => false,
        };
        if other_event_form {
            errors.push(
                key.span(),
                "give either `event = \"...\"` or `events = [...]`, not both",
            );
            return Ok(());
        }
        match args.slot(&name) {
            None => errors.push(
                key.span(),
                format!("unknown argument `{name}`; expected {KEYS}"),
            ),
            Some(Some(_)) => errors.push(key.span(), format!("`{name}` is given twice; keep one")),
            Some(slot) => *slot = Some(Arg { key, value }),
        }
        Ok(())
    })
    .parse2(tokens)?;
    Ok(args)
}
