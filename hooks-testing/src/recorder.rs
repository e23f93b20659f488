//! [`EventRecorder`]: every emit of a registry, with its outcome, and assertions on them.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use hooks_core::{EmitResult, HookAction, HookRegistry, ObserverHandle, events};
use serde_json::Value;

use hooks_core::sync::lock;

/// One recorded emit.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The canonical event.
    pub event: String,
    /// The merged outcome (its data is the final event data).
    pub outcome: EmitResult,
}

impl Recorded {
    /// The merged action.
    pub fn action(&self) -> HookAction {
        self.outcome.action()
    }

    /// The final event data.
    pub fn data(&self) -> &Value {
        self.outcome.data()
    }
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {}", self.event, self.outcome.action())?;
        if let Some(hook) = &self.outcome.decided_by {
            write!(f, " by {hook}")?;
        }
        Ok(())
    }
}

/// Records every emit of the registries it is attached to, in order, with its outcome.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use hooks_core::HookRegistry;
/// use hooks_testing::EventRecorder;
/// use serde_json::json;
///
/// let registry = HookRegistry::new();
/// let recorder = EventRecorder::new();
/// recorder.attach(&registry);
/// registry.emit("SessionStart", json!({})).await;
/// registry.emit("tool:pre", json!({"tool_name": "bash"})).await;
///
/// recorder.assert_sequence(&["session:start", "PreToolUse"]);
/// recorder.assert_not_emitted("tool:post");
/// assert_eq!(recorder.count("tool:pre"), 1);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct EventRecorder {
    log: Arc<Mutex<Vec<Recorded>>>,
}

impl fmt::Debug for EventRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventRecorder")
            .field("recorded", &self.events())
            .finish()
    }
}

/// The canonical form of a name a test writes (aliases allowed).
fn canonical(event: &str) -> &str {
    events::canonicalize(event).unwrap_or(event)
}

impl EventRecorder {
    /// A recorder that has recorded nothing.
    pub fn new() -> Self {
        EventRecorder::default()
    }

    fn log(&self) -> MutexGuard<'_, Vec<Recorded>> {
        lock(&self.log)
    }

    /// Starts recording every emit of `registry`; the handle stops it.
    pub fn attach(&self, registry: &HookRegistry) -> ObserverHandle {
        let log = Arc::clone(&self.log);
        registry.observe(move |event: &str, outcome: &EmitResult| {
            lock(&log).push(Recorded {
                event: event.to_owned(),
                outcome: outcome.clone(),
            });
        })
    }

    /// Everything recorded, in order.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.log().clone()
    }

    /// The events recorded, in order.
    pub fn events(&self) -> Vec<String> {
        self.log().iter().map(|r| r.event.clone()).collect()
    }

    /// The emits of `event` (a canonical name or an alias), in order.
    pub fn of(&self, event: &str) -> Vec<Recorded> {
        let event = canonical(event);
        self.log()
            .iter()
            .filter(|r| r.event == event)
            .cloned()
            .collect()
    }

    /// How many times `event` was emitted.
    pub fn count(&self, event: &str) -> usize {
        let event = canonical(event);
        self.log().iter().filter(|r| r.event == event).count()
    }

    /// The last emit of `event`, if any.
    pub fn last(&self, event: &str) -> Option<Recorded> {
        self.of(event).pop()
    }

    /// Forgets everything recorded so far.
    pub fn clear(&self) {
        self.log().clear();
    }

    fn summary(&self) -> String {
        let log = self.log();
        if log.is_empty() {
            return "nothing was recorded".to_owned();
        }
        let lines: Vec<String> = log
            .iter()
            .enumerate()
            .map(|(i, r)| format!("  {i}: {r}"))
            .collect();
        format!("recorded:\n{}", lines.join("\n"))
    }

    /// Asserts that `event` was emitted; returns its first emit.
    #[track_caller]
    pub fn assert_emitted(&self, event: &str) -> Recorded {
        match self.of(event).into_iter().next() {
            Some(first) => first,
            None => panic!(
                "expected `{}` to be emitted; {}",
                canonical(event),
                self.summary()
            ),
        }
    }

    /// Asserts that `event` was not emitted.
    #[track_caller]
    pub fn assert_not_emitted(&self, event: &str) {
        if self.count(event) > 0 {
            panic!(
                "expected `{}` not to be emitted; {}",
                canonical(event),
                self.summary()
            );
        }
    }

    /// Asserts that `event` was emitted exactly `times` times.
    #[track_caller]
    pub fn assert_count(&self, event: &str, times: usize) {
        let count = self.count(event);
        if count != times {
            panic!(
                "expected `{}` {times} time(s), it was emitted {count} time(s); {}",
                canonical(event),
                self.summary()
            );
        }
    }

    /// Asserts that `sequence` was emitted in this order (other events may come between).
    #[track_caller]
    pub fn assert_sequence(&self, sequence: &[&str]) {
        let recorded = self.events();
        let mut position = 0;
        for (index, wanted) in sequence.iter().enumerate() {
            let wanted = canonical(wanted);
            match recorded[position..]
                .iter()
                .position(|event| event == wanted)
            {
                Some(offset) => position += offset + 1,
                None => panic!(
                    "expected the sequence {sequence:?}; step {index} (`{wanted}`) was not \
                     emitted after step {}; {}",
                    index.saturating_sub(1),
                    self.summary()
                ),
            }
        }
    }
}
