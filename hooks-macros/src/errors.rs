//! Gathering several spanned errors, so that one compile shows every problem at once.

use std::fmt::Display;

use proc_macro2::Span;

#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, span: Span, message: impl Display) {
        let error = syn::Error::new(span, message);
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.combined.map_or(Ok(()), Err)
    }
}
