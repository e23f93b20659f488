//! Gathering several spanned errors, so that one compile shows every problem at once.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, span: Span, message: impl Display) {
        self.combine(syn::Error::new(span, message));
    }

    pub(crate) fn combine(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// An error over all of `tokens` (on stable Rust a single span covers only one token).
    pub(crate) fn push_spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.combine(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.combined.map_or(Ok(()), Err)
    }
}
