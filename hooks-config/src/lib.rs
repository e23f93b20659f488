//! Hooks configured in YAML (the enhanced-hooks proposal's shape): `hooks:` maps an event
//! (canonical name or PascalCase alias) to a list of entries, each registered as an ordinary
//! handler, so the kernel's merge rules apply across entries and in-process hooks alike.
//!
//! ```yaml
//! hooks:
//!   PreToolUse:
//!     - type: matcher
//!       match:
//!         tool: "Bash"
//!         args:
//!           command: "rm *"
//!       action: block
//!       message: "Destructive rm commands require confirmation"
//!     - type: command
//!       command: "python ~/.hooks/pre_tool.py"
//!       timeout_ms: 5000
//!       on_failure: warn        # warn | block | ignore
//!       priority: 10
//!       name: pre_tool_policy
//! ```
//!
//! Every entry has `type` (`command`, `matcher`, `http`, `llm`, `wasm`, `cedar` or `rego`), `name` (default:
//! file, line and type; not empty), `priority` (default 0; equal priorities keep file order)
//! and `matcher` (which events it runs for, Claude Code's semantics: see [`EventMatcher`]).
//! Every entry that runs something (all but `matcher` entries) has `timeout_ms` (at most one
//! hour), `on_failure` (`warn`, the default, `block` or `ignore`: what a crash, a timeout or an
//! unusable answer gives) and `rewrite` (see [`Rewrite`]); they apply the same way whatever
//! runs the entry.
//!
//! Command hooks: `command` (run by `sh -c`; `timeout_ms` 60,000 by default), `async`,
//! `persistent` (see below), `protocol` (not with `persistent`, which answers JSON lines). A
//! command hook answers on stdout with nothing (continue) or a JSON answer (exit code 2 blocks,
//! with stderr as the reason); anything else it prints is a failure its `on_failure` decides.
//! `protocol: claude` reads its output as Claude Code reads a hook's instead, plain text being
//! context on `prompt:submit` and `session:start` and transcript text elsewhere: what hooks
//! converted from Claude Code's settings files get (see [`AnswerProtocol`]).
//! Matcher hooks: `match.tool` and `match.args.<field>` (globs, or `regex:...`), `action`
//! (`block`, `allow`, `ask`, `inject`), `message`. HTTP hooks: `url`, `headers` (`${VAR}` is
//! read from the environment), `protocol`. LLM hooks: `model`, `prompt`
//! (`{{event}}`, `{{tool}}`, `{{args}}`, `{{data}}`), `max_tokens` (256), `provider` (`openai`,
//! the default, for any OpenAI-compatible server; or `anthropic`), `base_url`, `api_key_env`,
//! `cache`, `cache_ttl_secs` (300), `cache_size` (256); `timeout_ms` is 30,000 by default.
//! WebAssembly hooks (run by `hooks-wasm` in a sandbox): `path` (the component, relative to
//! the file), `abi` (`hooks`, the default, for the `hooks:guest@0.1.0` world; `amplifier` for
//! amplifier-core's protobuf `hook-handler`), `config` (a mapping handed to the component's
//! `subscriptions`; a component that names its events must name the one it is listed under),
//! `memory_mb` (64), `allow_read` (directories it may read; none by default), `allow_env`
//! (environment variables it may read; none by default); `timeout_ms` is 1,000 by default.
//!
//! ```yaml
//! hooks:
//!   PreToolUse:
//!     - type: wasm
//!       path: policies/no_secrets.wasm
//!       timeout_ms: 50
//!       memory_mb: 16
//!       allow_read: ["policies/data"]
//!       on_failure: block
//! ```
//!
//! A **persistent** command hook (`persistent: true`) keeps one process alive per mounted entry
//! and speaks one JSON object per line: each event's request (the JSON a per-event hook reads,
//! plus a [`REQUEST_ID_FIELD`] it may echo) on its stdin, one answer line (any of the answer
//! protocols; an empty line continues) on its stdout; `HOOKS_PERSISTENT=1` is set for it.
//! Requests go one at a time, in emit order. The process starts at the first event, is
//! restarted at the next event after it dies, and is killed (its process group) at the timeout,
//! when an answer cannot be read or echoes the wrong id, and when the hooks are unmounted;
//! each of those is a failure `on_failure` decides. Exit code 2 has no meaning there: deny in
//! JSON (`{"decision": "block", "reason": "..."}`).
//!
//! ```yaml
//! hooks:
//!   PreToolUse:
//!     - type: command
//!       persistent: true
//!       command: "python3 -u policy_server.py"   # reads lines, prints one JSON line each
//!       timeout_ms: 1000
//!       on_failure: block
//! ```
//!
//! # Modules
//!
//! A `modules:` section mounts modules by name with their settings, beside the entries and on
//! the same registry (so the merge rules apply across both): the standard modules of
//! `hooks-std` (`safety`, `redaction`, `approval`, `logging`, `linter`, `reminder`), or an
//! application's own given to [`load_file_with`]. Relative paths in their settings are relative
//! to the file's directory; an unknown module or setting is an error located in the file.
//!
//! ```yaml
//! modules:
//!   safety: {workspace: "."}
//!   redaction: {}
//!   logging: {path: ".hooks/events.jsonl"}
//! hooks:
//!   PreToolUse: [...]
//! ```
//!
//! [`load_file`] reports every problem at once, each with file, line and column; a file holding
//! a character YAML forbids (a NUL, another control character) is refused, never read only up
//! to it. It also loads a
//! Claude Code settings file (`.json`), converted as
//! [`import_settings`](crate::interop::claude::import_settings) converts it.
//!
//! # Policy layers
//!
//! A team can lock rules: a [`PolicyStack`] applies the managed policy's hooks file (deployed
//! by device management), the user's and the project's on one registry. A lower file adds
//! rules and modules; it cannot remove, rename over or weaken a managed one, and what it tries
//! is reported ([`LayerWarning`]). A managed file that is there but cannot be read or loaded
//! is an error ([`LayersError`]), never a guard running without it. [`PolicyStack`] says where
//! the files are.
//!
//! [`Policy`] is the stack mounted and ready to decide, the one entry point of every front end
//! of the `hooks` binary: the emit, a lower layer's rewrite put to the managed rules again
//! (their deny and their ask stand), and an `ask_user` settled by the session's remembered
//! "… always" answer.
//!
//! # Features
//!
//! `http` and `llm` (both on by default) build the HTTP client that HTTP and LLM hooks need;
//! `wasm` (off by default: wasmtime is a large build) builds the WebAssembly runtime. Without
//! them such entries still load and check; mounting one is a [`MountError`] naming the feature
//! to enable, and [`HooksConfig::check_components`] says the same of a `wasm` entry.
//! `cedar` and `rego` (off by default for their build cost) build the Cedar and Rego engines of
//! `type: cedar` and `type: rego` entries, whose policies compile as the file loads: without
//! the feature such an entry is a load error naming it. See docs/guide/policies.md.
//!
//! [`MountError`]: hooks_core::module::MountError

mod agent_protocol;
mod answer;
mod answer_cache;
pub mod cases;
#[cfg(any(feature = "http", feature = "llm"))]
mod client;
mod command;
mod config_error;
mod decide;
mod entry;
mod event_matcher;
mod failure;
mod http;
pub mod interop;
mod layers;
mod llm;
mod load;
mod matcher;
mod modules;
mod mount;
mod persistent;
mod policy;
pub mod protection;
pub mod replay;
mod request;
mod runner;
mod schema;
pub mod settings;
pub mod trial;
mod wasm;

pub use answer::{AnswerError, AnswerProtocol, decision};
pub use answer_cache::AnswerCache;
pub use config_error::{ConfigError, ConfigErrors};
pub use decide::{ManagedRecheck, Policy, PolicyBuilder, RECORDING_MODULES, SettleRemembered};
pub use entry::{
    CommandHook, ComponentHook, DEFAULT_COMMAND_TIMEOUT, DEFAULT_LLM_TIMEOUT,
    DEFAULT_WASM_MEMORY_MB, DEFAULT_WASM_TIMEOUT, Entry, HookKind, HttpHook, LlmHook,
    MAX_COMMAND_TIMEOUT, Provider, Rewrite, WasmAbi,
};
pub use event_matcher::EventMatcher;
pub use failure::OnFailure;
// What `load_file_with` and `load_str_with` take, so that a caller needs no `hooks-std` import.
pub use hooks_std::catalog::{BoxError, ModuleCatalog, ModuleContext};
pub use hooks_std::process::OUTPUT_CAP;
pub use layers::{
    LAYER_FILE, Layer, LayerPaths, LayerWarning, LayersError, Level, MANAGED_DIR_VAR, Origin,
    PolicyStack,
};
pub use llm::render;
pub use load::{load_file, load_file_with, load_str, load_str_with};
pub use matcher::{Action, MatcherHook, Pattern};
pub use modules::ConfiguredModule;
pub use mount::HooksConfig;
pub use policy::PolicyHook;
pub use request::REQUEST_ID_FIELD;
pub use wasm::one_event_per_process;
#[cfg(feature = "wasm")]
pub use wasm::process_runtime;
