//! The injection policy: how much text hooks may add to the agent's context, and the audit
//! record of every injection.
//!
//! Each injection is checked against a size limit (default 10 KB; over it, the text is
//! truncated or rejected by policy) and against the turn's token budget (default 10,000
//! estimated tokens, reset when a prompt is submitted). Nothing is dropped silently: every
//! injection gets an [`InjectionAudit`], and every truncation or rejection a warning for the
//! user.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::InjectionRole;
use crate::text::truncate_bytes;

/// The default size limit of one injection: 10 KB.
pub const DEFAULT_INJECTION_SIZE_LIMIT: usize = 10 * 1024;

/// The default injection budget of one turn, in estimated tokens.
pub const DEFAULT_INJECTION_BUDGET_PER_TURN: usize = 10_000;

/// The marker that ends a truncated injection.
pub const TRUNCATION_MARKER: &str = "\n[truncated: over the injection size limit]";

/// What happens to an injection over the size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Oversize {
    /// Keep its beginning, up to the limit, marked as truncated.
    #[default]
    Truncate,
    /// Refuse it whole.
    Reject,
}

/// How much hooks may inject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectionPolicy {
    /// The most bytes one injection may have; `None` for no limit.
    pub size_limit: Option<usize>,
    /// What happens to an injection over the limit.
    pub oversize: Oversize,
    /// The most estimated tokens all injections of one turn may have; `None` for no budget.
    pub budget_per_turn: Option<usize>,
}

impl Default for InjectionPolicy {
    fn default() -> Self {
        InjectionPolicy {
            size_limit: Some(DEFAULT_INJECTION_SIZE_LIMIT),
            oversize: Oversize::default(),
            budget_per_turn: Some(DEFAULT_INJECTION_BUDGET_PER_TURN),
        }
    }
}

impl InjectionPolicy {
    /// No size limit and no budget.
    pub fn unlimited() -> Self {
        InjectionPolicy {
            size_limit: None,
            oversize: Oversize::default(),
            budget_per_turn: None,
        }
    }
}

/// The tokens a text is estimated to cost: one per four bytes, rounded up.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Where a delivered injection went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A new message in the stored history.
    NewMessage,
    /// Appended to the last tool result in the history.
    AppendedToToolResult,
    /// Held for the next model call only, never stored (an ephemeral injection).
    NextModelCall,
    /// Nowhere: the injection was rejected.
    Rejected,
}

/// What the policy did with an injection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// Delivered as the hook wrote it.
    Delivered,
    /// Delivered, cut down to the size limit.
    Truncated {
        /// Its size before truncation, in bytes.
        original_bytes: usize,
    },
    /// Over the size limit, and the policy rejects such injections.
    RejectedTooLarge {
        /// Its size, in bytes.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The turn's budget could not pay for it.
    RejectedBudgetSpent {
        /// Its estimated cost.
        tokens: usize,
        /// What was left of the budget.
        remaining: usize,
    },
}

impl Disposition {
    /// Whether the injection reached the agent (whole or truncated).
    pub fn delivered(&self) -> bool {
        matches!(self, Disposition::Delivered | Disposition::Truncated { .. })
    }

    /// The warning the user sees, if the injection was not delivered whole.
    pub(crate) fn warning(&self, hook: &str) -> Option<String> {
        match self {
            Disposition::Delivered => None,
            Disposition::Truncated { original_bytes } => Some(format!(
                "context injection from `{hook}` was truncated: {original_bytes} bytes is over \
                 the size limit"
            )),
            Disposition::RejectedTooLarge { bytes, limit } => Some(format!(
                "context injection from `{hook}` was rejected: {bytes} bytes is over the \
                 {limit}-byte limit"
            )),
            Disposition::RejectedBudgetSpent { tokens, remaining } => Some(format!(
                "context injection from `{hook}` was rejected: it needs about {tokens} tokens and \
                 only {remaining} are left of this turn's injection budget"
            )),
        }
    }
}

/// The audit record of one injection: where it came from, what it said and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct InjectionAudit {
    /// The hook that injected it.
    pub hook: Arc<str>,
    /// The event it was injected on.
    pub event: Arc<str>,
    /// When it was applied (RFC 3339).
    pub at: String,
    /// Its role.
    pub role: InjectionRole,
    /// Whether it was ephemeral.
    pub ephemeral: bool,
    /// The text as delivered (after truncation), or as written when rejected.
    pub text: String,
    /// The estimated tokens of the delivered text (0 when rejected).
    pub tokens: usize,
    /// Where it went.
    pub placement: Placement,
    /// What the policy did with it.
    pub disposition: Disposition,
}

impl InjectionAudit {
    /// The record as event data (for the [`INJECTION_AUDIT_EVENT`] event).
    pub fn to_json(&self) -> Value {
        let disposition = match &self.disposition {
            Disposition::Delivered => json!({"kind": "delivered"}),
            Disposition::Truncated { original_bytes } => {
                json!({"kind": "truncated", "original_bytes": original_bytes})
            }
            Disposition::RejectedTooLarge { bytes, limit } => {
                json!({"kind": "rejected_too_large", "bytes": bytes, "limit": limit})
            }
            Disposition::RejectedBudgetSpent { tokens, remaining } => {
                json!({"kind": "rejected_budget_spent", "tokens": tokens, "remaining": remaining})
            }
        };
        json!({
            "hook": &*self.hook,
            "event": &*self.event,
            "at": self.at,
            "role": self.role.as_str(),
            "ephemeral": self.ephemeral,
            "text": self.text,
            "tokens": self.tokens,
            "placement": format!("{:?}", self.placement),
            "disposition": disposition,
        })
    }
}

/// The event every injection audit is emitted on (a custom event of this crate).
pub const INJECTION_AUDIT_EVENT: &str = "injection:audit";

/// The policy's verdict on one text: what to deliver (if anything) and the disposition.
pub(crate) fn admit(
    policy: &InjectionPolicy,
    turn_tokens: &mut usize,
    text: &str,
) -> (Option<String>, Disposition) {
    let (text, truncated_from) = match policy.size_limit {
        Some(limit) if text.len() > limit => match policy.oversize {
            Oversize::Reject => {
                let disposition = Disposition::RejectedTooLarge {
                    bytes: text.len(),
                    limit,
                };
                return (None, disposition);
            }
            Oversize::Truncate => (truncate(text, limit), Some(text.len())),
        },
        _ => (text.to_owned(), None),
    };
    let tokens = estimate_tokens(&text);
    if let Some(budget) = policy.budget_per_turn {
        let remaining = budget.saturating_sub(*turn_tokens);
        if tokens > remaining {
            return (None, Disposition::RejectedBudgetSpent { tokens, remaining });
        }
    }
    *turn_tokens += tokens;
    let disposition = match truncated_from {
        Some(original_bytes) => Disposition::Truncated { original_bytes },
        None => Disposition::Delivered,
    };
    (Some(text), disposition)
}

/// The beginning of `text` that fits in `limit` bytes with the marker, cut on a character
/// boundary.
fn truncate(text: &str, limit: usize) -> String {
    let marker = if limit > TRUNCATION_MARKER.len() {
        TRUNCATION_MARKER
    } else {
        ""
    };
    format!("{}{marker}", truncate_bytes(text, limit - marker.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_stays_within_the_limit_and_on_a_character_boundary() {
        let text = "é".repeat(100); // 200 bytes, two per character
        for limit in [0, 1, 2, 3, 10, 43, 44, 45, 101, 199] {
            let cut = truncate(&text, limit);
            assert!(cut.len() <= limit, "limit {limit}: {} bytes", cut.len());
        }
        assert!(truncate(&text, 100).ends_with(TRUNCATION_MARKER));
    }

    #[test]
    fn the_budget_is_spent_and_refuses_what_it_cannot_pay() {
        let policy = InjectionPolicy {
            size_limit: None,
            oversize: Oversize::Reject,
            budget_per_turn: Some(10),
        };
        let mut used = 0;
        assert_eq!(
            admit(&policy, &mut used, &"a".repeat(32)).1,
            Disposition::Delivered
        );
        assert_eq!(used, 8);
        assert_eq!(
            admit(&policy, &mut used, &"a".repeat(12)).1,
            Disposition::RejectedBudgetSpent {
                tokens: 3,
                remaining: 2
            }
        );
        assert_eq!(used, 8, "a refused injection costs nothing");
        assert!(admit(&policy, &mut used, "abcdefgh").1.delivered());
        assert_eq!(used, 10);
    }

    #[test]
    fn no_limit_and_no_budget_deliver_everything() {
        let mut used = 0;
        let huge = "x".repeat(1_000_000);
        let (text, disposition) = admit(&InjectionPolicy::unlimited(), &mut used, &huge);
        assert_eq!(disposition, Disposition::Delivered);
        assert_eq!(text.map(|t| t.len()), Some(1_000_000));
    }
}
