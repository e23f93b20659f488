//! The decision of the provider boundary (`provider:request`).

use serde_json::Value;

use super::answer::{Decided, Verdict, decision, replace_field};
use crate::events::fields;
use crate::view::{EventView, ProviderRequest};

decision! {
    /// What a `provider:request` handler decides: proceed, block the model call, rewrite the
    /// request (e.g. redact it), or inject context, each with an optional user message.
    ProviderRequestDecision
}

impl ProviderRequestDecision {
    /// Blocks the model call; the reason is shown instead.
    pub fn deny(reason: impl Into<String>) -> Self {
        ProviderRequestDecision(Decided::new(Verdict::Deny(reason.into())))
    }

    /// Sends `request` instead: the event data with only `request` replaced.
    pub fn rewrite_request(call: &ProviderRequest<'_>, request: Value) -> Self {
        let data = replace_field(call.data(), fields::REQUEST, request);
        ProviderRequestDecision(Decided::new(Verdict::Modify(data)))
    }
}
