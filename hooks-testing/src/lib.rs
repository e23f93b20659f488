//! The test kit for hook authors.
//!
//! - [`EventRecorder`]: every emit of a registry with its outcome, and assertions that say what
//!   was recorded when they fail;
//! - [`MockTool`]: a tool with a scripted output, failure or delay that records its inputs;
//! - [`TestCoordinator`]: an isolated registry, scripted approvals, in-memory context and
//!   display and a recorder, wired into a `HookSession`;
//! - [`ScriptedSession`]: a realistic turn of canonical events with plausible data;
//! - [`gate_policies`]: one [`GatePolicy`] per decision of the tool-call gate, for holding an
//!   integration to the answer `HookSession::run_tool` gives;
//! - [`behaviour`] and [`hook_behaviour_tests!`]: the behavioural suite every hook module runs;
//! - [`strategies`]: proptest strategies for event names, event data and results;
//! - [`scratch_dir`]: a fresh directory per test for hooks files and logs;
//! - `tables` (the `tables` feature): a hooks file's table of cases, the one `hooks test`
//!   runs, asserted from a Rust test.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use hooks_core::HookResult;
//! use hooks_testing::{MockTool, TestCoordinator};
//! use serde_json::{json, Value};
//!
//! let test = TestCoordinator::new();
//! test.registry()
//!     .register("tool:pre", |_: &str, data: &Value| {
//!         let mut data = data.clone();
//!         data["tool_input"]["path"] = json!("sandbox/out.txt");
//!         async move { HookResult::modify(data) }
//!     }, 0, "sandbox")
//!     .unwrap();
//! let write = MockTool::new("write_file");
//!
//! test.run_tool(&write, json!({"path": "/tmp/out.txt"})).await;
//!
//! assert_eq!(write.last_input().unwrap()["path"], "sandbox/out.txt");
//! test.recorder().assert_sequence(&["tool:pre", "tool:post"]);
//! # });
//! ```

pub mod behaviour;
mod coordinator;
mod gate_policies;
mod mock_tool;
mod recorder;
mod scratch;
mod scripted;
pub mod strategies;
#[cfg(feature = "tables")]
pub mod tables;

pub use behaviour::{BehaviourFailure, Check, Suite};
pub use coordinator::TestCoordinator;
pub use gate_policies::{GatePolicy, gate_policies};
pub use mock_tool::MockTool;
pub use recorder::{EventRecorder, Recorded};
pub use scratch::scratch_dir;
pub use scripted::{ScriptedSession, Step};

pub use hooks_core as core;
