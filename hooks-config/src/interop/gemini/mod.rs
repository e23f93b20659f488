//! Gemini CLI ([`GeminiCli`]): its events, its stdin fields, its answers, its settings
//! (`.gemini/settings.json` in the project and in the home directory; commands name the
//! project `"${GEMINI_PROJECT_DIR}/file"`: Gemini CLI replaces `$GEMINI_PROJECT_DIR` in the
//! text with the path quoted by itself, which inside our quotes would keep its quotes; the
//! braced form is left to the shell) and its folder trust.
//!
//! # Answers (`hooks gemini`)
//!
//! | our merged result | Gemini CLI's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 |
//! | deny | exit 0 with `{"decision": "deny", "reason": ...}`, the form Gemini CLI documents (an exit code 2 blocks too, but Gemini CLI reports it as a failed hook). On `SessionStart`, `SessionEnd`, `PreCompress` and `Notification`, which Gemini CLI does not let a hook stop, the reason is also the `systemMessage`, so the user sees it |
//! | ask_user | a deny with the prompt: Gemini CLI has no documented way to ask (its undocumented `decision: "ask"` waits forever in a headless run), so fail closed |
//! | modified tool input on BeforeTool, every entry that modified it with `rewrite: apply` | `hookSpecificOutput.tool_input`, the whole new input, which Gemini CLI runs without asking anyone (0.61 replaces the arguments with it) |
//! | modified tool input on BeforeTool, otherwise | a deny whose reason says what would have run and how to opt in |
//! | any other modification | a deny with a reason (Gemini CLI cannot apply it, and it is not dropped) |
//! | context injection | `hookSpecificOutput.additionalContext` on AfterTool and BeforeAgent; elsewhere `systemMessage` |
//! | user messages | `systemMessage` |
//! | suppress_output | `suppressOutput: true` |
//!
//! A policy that cannot decide (a broken hooks file, unreadable input) denies the same way
//! ([`Agent::fail_closed`]).
//!
//! # Trust
//!
//! Gemini CLI runs a project's hooks (`.gemini/settings.json`) only in a trusted folder; with
//! `--skip-trust` it drops them silently. `GEMINI_CLI_TRUST_WORKSPACE=true`, a trusted folder
//! (`~/.gemini/trustedFolders.json`), or the hooks in the user's own settings keep them; see
//! [`trust`].

use std::path::Path;

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, PROVIDER_REQUEST, PROVIDER_RESPONSE,
    SESSION_END, SESSION_START, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};
use hooks_core::{EmitResult, HookAction};
use serde_json::Value;

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::hook_output::{Decision, HookOutput, Specific};
use super::reasons::{
    inapplicable, json_answer, messages_of, question_of, reason_of, unconfirmed_rewrite,
};
use super::tools::GEMINI_TOOLS;
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, Layout, Profile,
    ProjectDir, Protocol, RewriteSupport, Trust,
};
use crate::interop::TimeUnit;
#[cfg(any(test, feature = "validate"))]
use {super::Verdict, super::hook_output::non_empty, super::hook_output::printed, serde_json::Map};

pub mod trust;

/// Gemini CLI.
#[derive(Debug, Clone, Copy)]
pub struct GeminiCli;

/// Gemini CLI's hook protocol: its events, and its fields the taxonomy names otherwise.
pub const GEMINI: Protocol = Protocol {
    agent: "gemini",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("BeforeAgent", Some(PROMPT_SUBMIT)),
        ("AfterAgent", Some(PROMPT_COMPLETE)),
        ("BeforeModel", Some(PROVIDER_REQUEST)),
        ("AfterModel", Some(PROVIDER_RESPONSE)),
        ("BeforeTool", Some(TOOL_PRE)),
        ("AfterTool", Some(TOOL_POST)),
        ("PreCompress", Some(CONTEXT_PRE_COMPACT)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("BeforeToolSelection", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("llm_request", "request"),
        ("llm_response", "response"),
    ],
};

/// What Gemini CLI takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::AppliedOnly,
    // The events whose `hookSpecificOutput.additionalContext` reaches the model.
    context_on: &["AfterTool", "BeforeAgent"],
    blocks_prompt: Some("BeforeAgent"),
};

/// Gemini CLI's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".gemini/settings.json",
    user: ".gemini/settings.json",
    project_dir: ProjectDir::BracedVar("GEMINI_PROJECT_DIR"),
    layout: Layout::MatcherGroups,
    init_events: &["BeforeTool", "AfterTool", "BeforeAgent"],
};

/// The events whose `decision` Gemini CLI ignores: a hook there is advisory.
const ADVISORY: &[&str] = &["SessionStart", "SessionEnd", "PreCompress", "Notification"];

/// What Gemini CLI is, as data.
static PROFILE: Profile = Profile::new(
    &GEMINI,
    "Gemini CLI",
    &GeminiDialect,
    &CAPABILITIES,
    &SETTINGS,
)
.tools(GEMINI_TOOLS)
.binaries(&["gemini"])
// Gemini CLI's hook `timeout` is in milliseconds.
.timeout_unit(TimeUnit::Milliseconds)
// Run headless against the real CLI, offline, by this project's end-to-end tests
// (`hooks-cli/tests/gemini_cli_e2e.rs`, when `HOOKS_E2E_GEMINI` names the binary).
.tested_against_real_program()
.trust_note(trust::NOTE);

/// Gemini CLI's answers: Claude Code's JSON with `deny`, and its whole replacement tool input.
#[derive(Debug)]
pub(crate) struct GeminiDialect;

impl Agent for GeminiCli {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    fn trust(&self, project: &Path) -> Option<Trust> {
        Some(trust::of(project))
    }
}

impl Dialect for GeminiDialect {
    /// Our merged result for Gemini CLI's event `agent_event`, in its protocol (see the
    /// [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            rewrites,
            ..
        } = *answering;
        let result = &outcome.result;
        match result.action {
            HookAction::Deny => return deny(Some(agent_event), reason_of(outcome), outcome),
            HookAction::AskUser => {
                let prompt = question_of(outcome);
                let reason =
                    format!("a hook asks for approval, which Gemini CLI cannot ask for: {prompt}");
                return deny(Some(agent_event), reason, outcome);
            }
            _ => {}
        }
        let mut specific = Specific::of(agent_event);
        if outcome.is_modified() {
            // Of the data of a tool call, Gemini CLI takes only the tool input.
            let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
            match (agent_event, new_input) {
                ("BeforeTool", Some(new_input)) if *new_input == input[TOOL_INPUT] => {}
                ("BeforeTool", Some(new @ Value::Object(_))) if rewrites.all_applied(outcome) => {
                    specific.tool_input = Some(new.clone());
                }
                ("BeforeTool", Some(new_input @ Value::Object(_))) => {
                    let reason = unconfirmed_rewrite("Gemini CLI", new_input, outcome);
                    return deny(Some(agent_event), reason, outcome);
                }
                _ => {
                    let reason = inapplicable("Gemini CLI", agent_event, outcome);
                    return deny(Some(agent_event), reason, outcome);
                }
            }
        }
        json_answer(
            "Gemini CLI",
            specific,
            CAPABILITIES.context_on.contains(&agent_event),
            outcome,
        )
    }

    /// A deny, in the documented form.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        let advisory = agent_event.is_none_or(|event| ADVISORY.contains(&event));
        AgentAnswer::json(&HookOutput {
            decision: Some(Decision::Deny),
            system_message: advisory.then(|| reason.clone()),
            reason: Some(reason),
            ..HookOutput::default()
        })
    }

    /// Gemini CLI's reading of an answer: exit 0 with nothing proceeds; exit 0 with JSON is
    /// read (`decision: "deny"` or `"block"` with a reason blocks, except on the events where
    /// Gemini CLI ignores decisions; `hookSpecificOutput.tool_input` on `BeforeTool` runs the
    /// call with that input, unconfirmed); exit 2 blocks with stderr (shown as a failed hook).
    /// Refused, as a guard must not say them: `decision: "ask"` (it waits forever in a headless
    /// run), `"allow"`, a decision without a reason, any other exit code (a failed hook: the
    /// call runs), and any field it does not know.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        match answer.exit_code {
            2 if answer.stderr.trim().is_empty() => Err("exit 2 without a reason on stderr".into()),
            2 => Ok(Verdict::Block(answer.stderr.trim().to_owned())),
            0 => match printed(answer)? {
                None => Ok(Verdict::Proceed),
                Some(fields) => read_json(agent_event, &fields),
            },
            code => Err(format!(
                "exit code {code}: Gemini CLI counts it a failed hook and runs the call"
            )),
        }
    }
}

/// Gemini CLI's JSON answer to `agent_event`, read.
#[cfg(any(test, feature = "validate"))]
fn read_json(agent_event: &str, fields: &Map<String, Value>) -> Result<Verdict, String> {
    let mut verdict = Verdict::Proceed;
    for (key, value) in fields {
        match key.as_str() {
            "systemMessage" if value.is_string() => {}
            "suppressOutput" if value.is_boolean() => {}
            "decision" if value == "deny" || value == "block" => {
                let reason = non_empty(fields.get("reason"))
                    .ok_or_else(|| format!("`decision: {value}` without a reason"))?;
                if !ADVISORY.contains(&agent_event) {
                    verdict = Verdict::Block(reason);
                }
            }
            "reason" if fields.contains_key("decision") => {}
            "hookSpecificOutput" => {
                let Some(specific) = value.as_object() else {
                    return Err(format!("hookSpecificOutput is not an object: {value}"));
                };
                for (key, value) in specific {
                    match (agent_event, key.as_str()) {
                        (_, "hookEventName") if value == agent_event => {}
                        (event, "additionalContext")
                            if CAPABILITIES.context_on.contains(&event) && value.is_string() => {}
                        ("BeforeTool", "tool_input") if value.is_object() => {
                            if !matches!(verdict, Verdict::Block(_)) {
                                verdict = Verdict::RunRewritten(value.clone());
                            }
                        }
                        _ => {
                            return Err(format!(
                                "hookSpecificOutput.{key} is not taken on {agent_event}: {value}"
                            ));
                        }
                    }
                }
            }
            other => return Err(format!("`{other}` is not taken on {agent_event}: {value}")),
        }
    }
    Ok(verdict)
}

/// A deny with `reason`: `{"decision": "deny", "reason"}`, the user messages (and, where
/// Gemini CLI ignores the decision, the reason) in `systemMessage`.
fn deny(agent_event: Option<&str>, reason: String, outcome: &EmitResult) -> AgentAnswer {
    let advisory = agent_event.is_none_or(|event| ADVISORY.contains(&event));
    let system_message = match (advisory, messages_of(outcome)) {
        (true, Some(messages)) => Some(format!("{messages}\n{reason}")),
        (true, None) => Some(reason.clone()),
        (false, messages) => messages,
    };
    AgentAnswer::json(&HookOutput {
        decision: Some(Decision::Deny),
        reason: Some(reason),
        system_message,
        ..HookOutput::default()
    })
}
