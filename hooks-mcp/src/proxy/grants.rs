//! The grants of a stateless session: the user's answer to an ask, carried by the client's
//! retry of the call, lets exactly that call through, once.
//!
//! On a 2026-07-28 session the proxy asks by answering the `tools/call` with `input_required`
//! and a request state of its own. The state names a grant the proxy keeps, bound to the tool,
//! a digest of the arguments and a digest of the question the policy asked; the retry that
//! carries the user's acceptance redeems it, and a grant is redeemed once. A retry with other
//! arguments, for another tool, under another question, or with a state already used (or
//! never issued) is refused.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::InputResponses;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The prefix of the request states the proxy issues (any other state is the server's own).
pub(crate) const STATE_PREFIX: &str = "hooks-proxy-grant:";

/// How long a grant waits for its retry.
const GRANT_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// The most grants waiting at once (the oldest is dropped past it).
const MAX_PENDING: usize = 256;

/// What a grant is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// The tool, as the hooks name it.
    pub(crate) tool: String,
    /// SHA-256 of the arguments (their JSON, keys in order).
    pub(crate) arguments: [u8; 32],
    /// SHA-256 of the question the policy asked (the hook, its question and its options).
    pub(crate) policy: [u8; 32],
}

impl Binding {
    /// The binding of a call of `tool` with `arguments` asked by `policy` (the question's
    /// parts, in order).
    pub(crate) fn new(tool: &str, arguments: &Value, policy: &[&str]) -> Binding {
        let mut question = Sha256::new();
        for part in policy {
            // Length-prefixed, so that two questions never run together into one.
            question.update((part.len() as u64).to_be_bytes());
            question.update(part.as_bytes());
        }
        Binding {
            tool: tool.to_owned(),
            arguments: Sha256::digest(arguments.to_string().as_bytes()).into(),
            policy: question.finalize().into(),
        }
    }
}

/// What the call carried for the server when the proxy asked, given back to it on the retry.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ServerInputs {
    /// The server's own request state.
    pub(crate) state: Option<String>,
    /// The answers to the server's own input requests.
    pub(crate) responses: Option<InputResponses>,
}

struct Pending {
    binding: Binding,
    carried: ServerInputs,
    issued: Instant,
}

/// The grants a proxy's session has issued and not yet seen redeemed.
pub(crate) struct Grants {
    pending: Mutex<HashMap<String, Pending>>,
    issued: AtomicU64,
    seed: RandomState,
}

impl Default for Grants {
    fn default() -> Self {
        Grants {
            pending: Mutex::default(),
            issued: AtomicU64::new(0),
            seed: RandomState::new(),
        }
    }
}

impl Grants {
    /// Issues a grant for `binding`, keeping `carried` for the retry: the request state the
    /// client must send back.
    pub(crate) fn issue(&self, binding: Binding, carried: ServerInputs) -> String {
        let count = self.issued.fetch_add(1, Ordering::Relaxed);
        // Unguessable enough for a name the proxy itself looks up (a guessed name would still
        // have to match a pending grant's binding).
        let mut name = Sha256::new();
        name.update(self.seed.hash_one(count).to_be_bytes());
        name.update(count.to_be_bytes());
        name.update(format!("{:?}", Instant::now()).as_bytes());
        let state = format!("{STATE_PREFIX}{}", hex(&name.finalize()[..16]));
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        pending.retain(|_, grant| grant.issued.elapsed() < GRANT_LIFETIME);
        if pending.len() >= MAX_PENDING
            && let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, grant)| grant.issued)
                .map(|(state, _)| state.clone())
        {
            pending.remove(&oldest);
        }
        pending.insert(
            state.clone(),
            Pending {
                binding,
                carried,
                issued: Instant::now(),
            },
        );
        state
    }

    /// Redeems the grant `state` for a call bound as `binding`: what the call carried for
    /// the server when it was issued, or why the retry is refused. A grant is gone once
    /// presented, whether or not it matched.
    pub(crate) fn redeem(&self, state: &str, binding: &Binding) -> Result<ServerInputs, String> {
        let grant = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(state);
        let Some(grant) = grant else {
            return Err(
                "the approval it carries was already used, has expired, or was never \
                 given by this proxy"
                    .to_owned(),
            );
        };
        if grant.issued.elapsed() >= GRANT_LIFETIME {
            return Err("the approval it carries has expired".to_owned());
        }
        if grant.binding.tool != binding.tool {
            return Err(format!(
                "the approval it carries was given for another tool (`{}`)",
                grant.binding.tool
            ));
        }
        if grant.binding.arguments != binding.arguments {
            return Err(
                "the approval it carries was given for other arguments than these".to_owned(),
            );
        }
        if grant.binding.policy != binding.policy {
            return Err("the approval it carries was given to another question".to_owned());
        }
        Ok(grant.carried)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn binding(tool: &str, path: &str) -> Binding {
        Binding::new(tool, &json!({"path": path}), &["hook", "Delete it?"])
    }

    #[test]
    fn a_grant_lets_its_own_call_through_once() {
        let grants = Grants::default();
        let carried = ServerInputs {
            state: Some("server's".to_owned()),
            responses: None,
        };
        let state = grants.issue(binding("mcp__fs__rm", "a"), carried.clone());
        assert!(state.starts_with(STATE_PREFIX));
        assert_eq!(
            grants.redeem(&state, &binding("mcp__fs__rm", "a")),
            Ok(carried)
        );
        let replay = grants.redeem(&state, &binding("mcp__fs__rm", "a"));
        assert!(replay.unwrap_err().contains("already used"));
    }

    #[test]
    fn a_grant_for_other_arguments_another_tool_or_question_is_refused() {
        let grants = Grants::default();
        let state = grants.issue(binding("mcp__fs__rm", "a"), ServerInputs::default());
        let other = grants.redeem(&state, &binding("mcp__fs__rm", "b"));
        assert!(other.unwrap_err().contains("other arguments"));
        // Refused once, gone: the right call cannot use it afterwards either.
        assert!(grants.redeem(&state, &binding("mcp__fs__rm", "a")).is_err());

        let state = grants.issue(binding("mcp__fs__rm", "a"), ServerInputs::default());
        let tool = grants.redeem(&state, &binding("mcp__fs__mv", "a"));
        assert!(tool.unwrap_err().contains("another tool"));

        let state = grants.issue(binding("mcp__fs__rm", "a"), ServerInputs::default());
        let asked_otherwise = Binding::new("mcp__fs__rm", &json!({"path": "a"}), &["hook", "?"]);
        assert!(
            grants
                .redeem(&state, &asked_otherwise)
                .unwrap_err()
                .contains("another question")
        );
    }

    #[test]
    fn states_are_distinct_and_unknown_ones_refused() {
        let grants = Grants::default();
        let one = grants.issue(binding("t", "a"), ServerInputs::default());
        let two = grants.issue(binding("t", "a"), ServerInputs::default());
        assert_ne!(one, two);
        assert!(
            grants
                .redeem("hooks-proxy-grant:forged", &binding("t", "a"))
                .is_err()
        );
    }
}
