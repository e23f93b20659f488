//! The test kit for hook authors.
//!
//! - [`EventRecorder`]: every emit of a registry with its outcome, and assertions that say what
//!   was recorded when they fail;
//! - [`MockTool`]: a tool with a scripted output, failure or delay that records its inputs;
//! - [`TestCoordinator`]: an isolated registry, scripted approvals, in-memory context and
//!   display and a recorder, wired into a `HookSession`;
//! - [`ScriptedSession`]: a realistic turn of canonical events with plausible data;
//! - [`behaviour`] and [`hook_behaviour_tests!`]: the behavioural suite every hook module runs;
//! - [`strategies`]: proptest strategies for event names, event data and results.

pub mod behaviour;
mod coordinator;
mod mock_tool;
mod recorder;
mod scripted;
pub mod strategies;

pub use coordinator::TestCoordinator;
pub use mock_tool::MockTool;
pub use recorder::{EventRecorder, Recorded};
pub use scripted::{ScriptedSession, Step};

pub use hooks_core as core;
