//! Where injected messages go in a rig request.
//!
//! rig's `RequestPatch` replaces the history of one model call and never touches the run's
//! committed history. Persistent injections are therefore kept here, per run, each anchored
//! at the position in rig's history where it was first delivered, and woven into the history
//! of every later model call of the run; ephemeral ones are woven into one call only.
//!
//! The anchor is the end of the history, except when the history ends with the assistant
//! turn whose tool calls the prompt answers: providers require tool results to follow their
//! calls directly, so the injection goes just before that assistant turn.

use std::collections::HashMap;
use std::sync::Mutex;

use hooks_core::InjectionRole;
use hooks_core::session::sinks::{ContextMessage, ContextSink};
use hooks_core::sync::lock;
use rig_agent::agent::RunId;
use rig_agent::core::message::{AssistantContent, Message};

/// The [`ContextSink`] the session delivers persistent injections to: they wait here for the
/// next model call, which anchors them in its run.
#[derive(Debug, Default)]
pub(crate) struct PendingInjections {
    messages: Mutex<Vec<ContextMessage>>,
}

impl PendingInjections {
    /// Takes the persistent injections waiting for the next model call.
    pub(crate) fn take(&self) -> Vec<ContextMessage> {
        std::mem::take(&mut *lock(&self.messages))
    }
}

impl ContextSink for PendingInjections {
    fn add_message(&self, message: ContextMessage) {
        lock(&self.messages).push(message);
    }

    fn append_to_last_tool_result(&self, _text: &str) -> bool {
        // rig owns its tool results; the session then adds the text as a message instead.
        false
    }

    fn keeps_history(&self) -> bool {
        // rig keeps the conversation, tool results included; only injections wait here.
        false
    }
}

/// A message woven into rig's history before the message at `anchor`.
#[derive(Debug, Clone)]
struct Anchored {
    anchor: usize,
    message: Message,
}

/// The persistent injections of every running run.
#[derive(Debug, Default)]
pub(crate) struct RunInjections {
    runs: Mutex<HashMap<RunId, Vec<Anchored>>>,
}

impl RunInjections {
    /// The history of one model call of `run`: `history` with the run's persistent
    /// injections, then `persistent` (kept for the rest of the run) and `ephemeral` (this
    /// call only) at the anchor. `None` when there is nothing to weave in.
    pub(crate) fn weave(
        &self,
        run: RunId,
        history: &[Message],
        persistent: Vec<ContextMessage>,
        ephemeral: Vec<ContextMessage>,
    ) -> Option<Vec<Message>> {
        let anchor = anchor(history);
        let mut runs = lock(&self.runs);
        let kept = if persistent.is_empty() {
            match runs.get(&run) {
                Some(kept) => kept.as_slice(),
                None => &[],
            }
        } else {
            let kept = runs.entry(run).or_default();
            kept.extend(persistent.into_iter().map(|message| Anchored {
                anchor,
                message: to_message(message),
            }));
            kept.as_slice()
        };
        if kept.is_empty() && ephemeral.is_empty() {
            return None;
        }
        let mut woven = Vec::with_capacity(history.len() + kept.len() + ephemeral.len());
        let mut kept = kept.iter().peekable();
        let mut ephemeral = Some(ephemeral);
        for position in 0..=history.len() {
            while let Some(entry) =
                kept.next_if(|entry| entry.anchor.min(history.len()) <= position)
            {
                woven.push(entry.message.clone());
            }
            if position == anchor
                && let Some(ephemeral) = ephemeral.take()
            {
                woven.extend(ephemeral.into_iter().map(to_message));
            }
            if let Some(message) = history.get(position) {
                woven.push(message.clone());
            }
        }
        Some(woven)
    }

    /// Forgets a finished run.
    pub(crate) fn finish(&self, run: RunId) {
        lock(&self.runs).remove(&run);
    }
}

/// Where injections go in `history` (see the module docs).
fn anchor(history: &[Message]) -> usize {
    match history.last() {
        Some(Message::Assistant(turn))
            if turn
                .content
                .iter()
                .any(|content| matches!(content, AssistantContent::ToolCall(_))) =>
        {
            history.len() - 1
        }
        _ => history.len(),
    }
}

/// An injected message as rig's message of its role.
fn to_message(message: ContextMessage) -> Message {
    match message.role {
        InjectionRole::System => Message::system(message.content),
        InjectionRole::User => Message::user(message.content),
        InjectionRole::Assistant => Message::assistant(message.content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_core::session::sinks::ContextMessage;
    use rig_agent::core::message::{ToolCall, ToolFunction, ToolName};

    fn injected(role: InjectionRole, text: &str) -> ContextMessage {
        ContextMessage::injection(role, text, "test".into())
    }

    fn text(message: &Message) -> String {
        serde_json::to_value(message)
            .map(|value| value.to_string())
            .unwrap_or_default()
    }

    fn tool_call_turn() -> Message {
        let name = ToolName::new("read_file".to_owned()).unwrap_or_else(|_| unreachable!());
        Message::Assistant(rig_agent::core::message::AssistantMessage::new(vec![
            AssistantContent::ToolCall(ToolCall::from_wire(
                "c1",
                ToolFunction::new(name, serde_json::json!({})),
            )),
        ]))
    }

    #[test]
    fn injections_go_before_the_turn_whose_calls_the_prompt_answers() {
        let history = [Message::user("hello"), tool_call_turn()];
        assert_eq!(anchor(&history), 1);
        assert_eq!(anchor(&history[..1]), 1);
        assert_eq!(anchor(&[]), 0);
    }

    #[test]
    fn persistent_injections_stay_for_the_run_and_ephemeral_ones_for_one_call() {
        let runs = RunInjections::default();
        let run = RunId::new();
        let first = [Message::user("hello")];
        let woven = runs
            .weave(
                run,
                &first,
                vec![injected(InjectionRole::System, "kept")],
                vec![injected(InjectionRole::User, "once")],
            )
            .unwrap_or_default();
        let texts: Vec<String> = woven.iter().map(text).collect();
        assert_eq!(texts.len(), 3);
        assert!(texts[0].contains("hello") && texts[1].contains("kept"));
        assert!(texts[2].contains("once") && texts[2].contains("user"));

        let later = [Message::user("hello"), Message::assistant("hi")];
        let woven = runs
            .weave(run, &later, Vec::new(), Vec::new())
            .unwrap_or_default();
        let texts: Vec<String> = woven.iter().map(text).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[1].contains("kept"), "at its place: {texts:?}");

        assert!(
            runs.weave(RunId::new(), &later, Vec::new(), Vec::new())
                .is_none(),
            "another run has nothing to weave"
        );
        runs.finish(run);
        assert!(runs.weave(run, &later, Vec::new(), Vec::new()).is_none());
    }

    #[test]
    fn a_shorter_history_keeps_every_injection() {
        let runs = RunInjections::default();
        let run = RunId::new();
        let long = [Message::user("a"), Message::user("b"), Message::user("c")];
        runs.weave(
            run,
            &long,
            vec![injected(InjectionRole::System, "kept")],
            Vec::new(),
        );
        let short = [Message::user("a")];
        let woven = runs
            .weave(run, &short, Vec::new(), Vec::new())
            .unwrap_or_default();
        assert_eq!(
            woven.len(),
            2,
            "nothing dropped when a hook shortened the history"
        );
    }
}
