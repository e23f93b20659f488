//! The pins at work in a proxy's session: each `tools/list` page the server answers is
//! compared with the pins (held-back tools are left out of what the client sees), and each
//! `tools/call` is let through only for a tool whose listing matched its pin.
//!
//! The check at call time is what enforces the pins: a client that calls a tool it never
//! listed, or listed before it changed, is refused all the same.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::Tool;
use serde_json::Value;

use super::pins::{PinStore, ServerPins, Verdict, definition_of};

/// What the pins say of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallVerdict {
    /// The tool is as pinned.
    Pinned,
    /// The tool is held back, for this reason.
    Held(String),
    /// No listing of the tool was seen in this session.
    Unlisted,
}

/// One server's pins, for one session.
pub(crate) struct PinGuard {
    store: PinStore,
    server: String,
    state: Mutex<Seen>,
}

/// What the session has seen of the server's tools.
#[derive(Default)]
struct Seen {
    /// Each tool of the last listing: its definition and its verdict.
    tools: HashMap<String, (Value, Verdict)>,
    /// The pins are being taken in this session, from a listing whose pages are not all in.
    baseline_open: bool,
}

impl PinGuard {
    pub(crate) fn new(store: PinStore, server: String) -> Self {
        PinGuard {
            store,
            server,
            state: Mutex::default(),
        }
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reviews one page of the server's `tools/list` answer (`last_page`: it has no next
    /// cursor); returns the tools the client may see.
    pub(crate) fn review(&self, tools: Vec<Tool>, last_page: bool) -> Vec<Tool> {
        let mut seen = self.seen();
        let loaded = self.store.load(&self.server);
        let (mut pins, baseline) = match loaded {
            Ok(Some(pins)) => (pins, seen.baseline_open),
            Ok(None) => (
                ServerPins {
                    server: self.server.clone(),
                    ..ServerPins::default()
                },
                true,
            ),
            Err(error) => {
                // Pins that cannot be read hold every tool back: nothing unpinned gets through.
                tracing::error!(%error, server = %self.server, "the MCP pins cannot be read");
                let why = error.to_string();
                for tool in &tools {
                    let held = (definition_of(tool), Verdict::Held(why.clone()));
                    seen.tools.insert(tool.name.to_string(), held);
                }
                return Vec::new();
            }
        };
        let mut changed = false;
        let verdicts: Vec<(Tool, Value, Verdict)> = tools
            .into_iter()
            .map(|tool| {
                let definition = definition_of(&tool);
                let (verdict, this_changed) = pins.check(&definition, baseline);
                changed |= this_changed;
                (tool, definition, verdict)
            })
            .collect();
        let saved = if changed {
            self.store.save(&pins)
        } else {
            Ok(())
        };
        seen.baseline_open = baseline && !last_page;
        let mut shown = Vec::new();
        for (tool, definition, mut verdict) in verdicts {
            if let Err(error) = &saved {
                // Pins that cannot be kept would be taken again next time: hold instead.
                verdict = Verdict::Held(error.to_string());
            }
            match &verdict {
                Verdict::Pinned => shown.push(tool.clone()),
                Verdict::Held(why) => tracing::warn!(
                    server = %self.server,
                    tool = %tool.name,
                    why = %why,
                    "an MCP tool is held back until it is approved (`hooks mcp approve`)"
                ),
            }
            seen.tools
                .insert(tool.name.to_string(), (definition, verdict));
        }
        if let Err(error) = saved {
            tracing::error!(%error, server = %self.server, "the MCP pins cannot be written");
        }
        shown
    }

    /// What the pins say of a call of `tool`. A held tool is looked up again in the pin file,
    /// so that an approval given meanwhile counts at once.
    pub(crate) fn verdict(&self, tool: &str) -> CallVerdict {
        let mut seen = self.seen();
        let Some((definition, verdict)) = seen.tools.get_mut(tool) else {
            return CallVerdict::Unlisted;
        };
        let Verdict::Held(why) = verdict else {
            return CallVerdict::Pinned;
        };
        let approved = matches!(
            self.store.load(&self.server),
            Ok(Some(pins)) if pins.tools.get(tool) == Some(definition)
        );
        if approved {
            *verdict = Verdict::Pinned;
            CallVerdict::Pinned
        } else {
            CallVerdict::Held(why.clone())
        }
    }

    /// The server said its tools changed: what was seen is no longer what it offers.
    pub(crate) fn forget(&self) {
        self.seen().tools.clear();
    }
}
