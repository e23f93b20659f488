//! An agent's answer ([`AgentAnswer`], what `hooks <agent>` prints and how it exits) as the
//! reply to its HTTP hook.
//!
//! Claude Code and Qwen Code read a 2xx reply's JSON body as a command hook's stdout, and
//! nothing else decides: a status code cannot block, and a non-2xx reply is an error that
//! blocks only under `onFailure: "block"`. So an answer on stdout is sent as it is (200), and a
//! block (exit 2, the reason on stderr) is sent as the event's JSON block where the event has
//! one, so the reason reaches the model; elsewhere as 403 with the reason as the body, which
//! the wiring of `hooks init --serve` (`onFailure: "block"`) makes a block.

use hooks_config::interop::AgentAnswer;
use serde_json::{Value, json};

/// The events of Claude Code (and Qwen Code) that a JSON `decision: "block"` stops.
const BLOCKS_BY_DECISION: &[&str] = &["UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"];

/// The agents whose HTTP hooks read Claude Code's JSON answers.
const CLAUDE_SHAPED: &[&str] = &["claude", "qwen"];

/// An HTTP reply: status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body: JSON when `json`, else plain text.
    pub body: String,
    /// Whether the body is JSON.
    pub json: bool,
}

impl Reply {
    /// A plain-text reply.
    pub fn text(status: u16, body: impl Into<String>) -> Self {
        Reply {
            status,
            body: body.into(),
            json: false,
        }
    }
}

/// `answer`, from `agent` to its event `agent_event` (`None`: the input was not read), as an
/// HTTP reply.
pub fn of(agent: &str, agent_event: Option<&str>, answer: &AgentAnswer) -> Reply {
    if answer.exit_code == 0 {
        return Reply {
            status: 200,
            json: !answer.stdout.is_empty(),
            body: answer.stdout.clone(),
        };
    }
    let reason = answer.stderr.trim();
    let block = match agent_event {
        Some(event) if CLAUDE_SHAPED.contains(&agent) => json_block(event, reason),
        _ => None,
    };
    match block {
        Some(block) => Reply {
            status: 200,
            body: block.to_string(),
            json: true,
        },
        None => Reply::text(403, reason),
    }
}

/// The JSON that blocks `event` with `reason` in Claude Code's protocol, where it has one.
fn json_block(event: &str, reason: &str) -> Option<Value> {
    match event {
        "PreToolUse" => Some(json!({"hookSpecificOutput": {
            "hookEventName": event,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }})),
        "PermissionRequest" => Some(json!({"hookSpecificOutput": {
            "hookEventName": event,
            "decision": {"behavior": "deny", "message": reason},
        }})),
        _ if BLOCKS_BY_DECISION.contains(&event) => {
            Some(json!({"decision": "block", "reason": reason}))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use hooks_config::interop::{AGENTS, Verdict, agent};

    use super::*;

    /// The reply, read back as the agent reads a command hook's output: a 2xx body as stdout,
    /// anything else as a failure, which `onFailure: "block"` makes a block.
    fn as_read(reply: &Reply) -> AgentAnswer {
        if reply.status / 100 == 2 {
            AgentAnswer {
                stdout: reply.body.clone(),
                stderr: String::new(),
                exit_code: 0,
            }
        } else {
            AgentAnswer::block(reply.body.clone())
        }
    }

    #[test]
    fn a_block_reads_as_the_same_block_on_every_event() {
        for name in CLAUDE_SHAPED {
            let agent = agent(name).unwrap();
            for (event, _) in agent.profile().protocol.events {
                let answer = AgentAnswer::block("no: the rule says so");
                let reply = of(name, Some(event), &answer);
                let by_stdin = agent.accepts(event, &answer);
                let by_http = agent.accepts(event, &as_read(&reply));
                assert_eq!(by_http, by_stdin, "{name} {event}: {reply:?}");
                assert_eq!(by_http, Ok(Verdict::Block("no: the rule says so".into())));
            }
        }
    }

    #[test]
    fn an_answer_on_stdout_is_the_body_as_it_is() {
        let answer = AgentAnswer::json(&json!({"systemMessage": "hi"}));
        for agent in AGENTS {
            let reply = of(agent.name(), Some("PreToolUse"), &answer);
            assert_eq!(reply.status, 200);
            assert_eq!(reply.body, answer.stdout);
            assert!(reply.json);
        }
        let silent = of("claude", Some("PreToolUse"), &AgentAnswer::silent());
        assert_eq!((silent.status, silent.body.as_str()), (200, ""));
    }

    #[test]
    fn other_agents_and_unread_input_block_by_status() {
        let answer = AgentAnswer::block("why");
        assert_eq!(of("codex", Some("PreToolUse"), &answer).status, 403);
        assert_eq!(of("claude", None, &answer), Reply::text(403, "why"));
    }
}
