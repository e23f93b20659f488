//! Which hook did what in one emit: the deciding hook, the hooks that rewrote the data, and
//! the hook behind each injection, message and failure. `hooks eval` prints it for a person
//! (stderr) and, with `--provenance`, as JSON; `hooks demo --json` records it per event.

use hooks_core::EmitResult;
use serde::Serialize;

/// Which hook did what in one emit, as `hooks eval --provenance` prints it.
#[derive(Debug, Serialize)]
pub struct Provenance<'a> {
    /// The hook whose deny or ask_user decided, if one did.
    decided_by: Option<&'a str>,
    /// The hooks that rewrote the data, in order.
    modified_by: Vec<&'a str>,
    /// Each injection and its hook.
    injections: Vec<InjectionBy<'a>>,
    /// Each user message and its hook.
    messages: Vec<MessageBy<'a>>,
    /// Each hook that failed, and how.
    failures: Vec<FailureOf<'a>>,
}

/// The merged result beside its provenance: `{"result": ..., "provenance": ...}`.
#[derive(Debug, Serialize)]
pub struct WithResult<'a> {
    /// The merged result.
    pub result: &'a hooks_core::HookResult,
    /// Which hook did what.
    pub provenance: Provenance<'a>,
}

/// One injection and the hook behind it.
#[derive(Debug, Serialize)]
struct InjectionBy<'a> {
    hook: &'a str,
    text: &'a str,
    ephemeral: bool,
}

/// One user message and the hook behind it.
#[derive(Debug, Serialize)]
struct MessageBy<'a> {
    hook: &'a str,
    level: &'static str,
    text: &'a str,
}

/// One hook that failed, and how.
#[derive(Debug, Serialize)]
struct FailureOf<'a> {
    hook: &'a str,
    error: String,
}

/// The provenance of `outcome`: `decided_by`, `modified_by`, `injections`, `messages` and
/// `failures`, each naming its hook.
pub fn of(outcome: &EmitResult) -> Provenance<'_> {
    Provenance {
        decided_by: outcome.decided_by.as_deref(),
        modified_by: outcome.modifications.iter().map(|m| &*m.hook).collect(),
        injections: outcome
            .injections
            .iter()
            .map(|i| InjectionBy {
                hook: &i.hook,
                text: &i.text,
                ephemeral: i.ephemeral,
            })
            .collect(),
        messages: outcome
            .messages
            .iter()
            .map(|m| MessageBy {
                hook: &m.hook,
                level: m.level.as_str(),
                text: &m.text,
            })
            .collect(),
        failures: outcome
            .failures
            .iter()
            .map(|f| FailureOf {
                hook: &f.hook,
                error: f.kind.to_string(),
            })
            .collect(),
    }
}

/// The provenance of `outcome` as a JSON object, for a record that carries it beside other
/// fields (`hooks demo --json`); `null` if it cannot be written.
pub fn to_json(outcome: &EmitResult) -> serde_json::Value {
    serde_json::to_value(of(outcome)).unwrap_or(serde_json::Value::Null)
}

/// The provenance of `outcome` as lines for a person, one per fact; none when no hook did
/// anything but continue.
pub fn lines(outcome: &EmitResult) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(hook) = &outcome.decided_by {
        let reason = outcome
            .result
            .reason
            .as_deref()
            .map(|reason| format!(": {reason}"))
            .unwrap_or_default();
        lines.push(format!(
            "decided by `{hook}` ({}){reason}",
            outcome.action().as_str()
        ));
    }
    for modification in &outcome.modifications {
        let reason = modification
            .reason
            .as_deref()
            .map(|reason| format!(": {reason}"))
            .unwrap_or_default();
        lines.push(format!("modified by `{}`{reason}", modification.hook));
    }
    for injection in &outcome.injections {
        lines.push(format!(
            "injected by `{}`: {}",
            injection.hook,
            one_line(&injection.text)
        ));
    }
    for message in &outcome.messages {
        lines.push(format!(
            "message ({}) from `{}`: {}",
            message.level.as_str(),
            message.hook,
            one_line(&message.text)
        ));
    }
    for failure in &outcome.failures {
        lines.push(format!("failed: {failure}"));
    }
    lines
}

/// `text` on one line, so that each line of the report is one fact.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use hooks_core::{HookRegistry, HookResult};
    use serde_json::{Value, json};

    use super::*;

    /// An emit where `guard` denies, `note` injects, `rewrite` modifies and `crashy` panics.
    fn emit() -> EmitResult {
        let registry = HookRegistry::new();
        let answer = |name: &'static str, priority: i32, answer: HookResult| {
            registry
                .register(
                    "tool:pre",
                    move |_: &str, _: &Value| {
                        let answer = answer.clone();
                        async move { answer }
                    },
                    priority,
                    name,
                )
                .expect("registered");
        };
        answer("note", 0, HookResult::inject("remember\nthe tests"));
        answer(
            "rewrite",
            1,
            HookResult::modify(json!({"tool_name": "Write", "tool_input": {}}))
                .with_reason("sandboxed"),
        );
        answer("guard", 3, HookResult::deny("no"));
        registry
            .register(
                "tool:pre",
                |_: &str, _: &Value| async move {
                    panic!("boom");
                    #[allow(unreachable_code)]
                    HookResult::cont()
                },
                2,
                "crashy",
            )
            .expect("registered");
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(registry.emit("tool:pre", json!({"tool_name": "Write", "tool_input": {}})))
    }

    #[test]
    fn every_part_of_the_result_names_its_hook() {
        let outcome = emit();

        assert_eq!(
            lines(&outcome),
            [
                "decided by `guard` (deny): no",
                "modified by `rewrite`: sandboxed",
                "injected by `note`: remember the tests",
                "failed: hook `crashy` panicked: boom",
            ]
        );
        let json = serde_json::to_value(of(&outcome)).expect("serialised");
        assert_eq!(json["decided_by"], "guard");
        assert_eq!(json["modified_by"], json!(["rewrite"]));
        assert_eq!(json["injections"][0]["hook"], "note");
        assert_eq!(json["failures"][0]["hook"], "crashy");
    }
}
