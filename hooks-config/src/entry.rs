//! What a hooks file says: each configured hook is a common part (its event, name, priority,
//! place, event matcher, deadline, `on_failure` and rewrite policy) and its kind, with what that
//! kind needs to run. The runners read these; nothing here runs anything.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::{AnswerCache, AnswerProtocol, EventMatcher, MatcherHook, OnFailure, PolicyHook};

/// The kind of a configured hook.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum HookKind {
    /// Runs a command.
    Command(CommandHook),
    /// Matches rules.
    Matcher(MatcherHook),
    /// Asks a policy service over HTTP.
    Http(HttpHook),
    /// Asks a model.
    Llm(LlmHook),
    /// Runs a WebAssembly component in a sandbox.
    Wasm(ComponentHook),
    /// Asks policies in a policy language (Cedar, Rego), compiled when the file loaded.
    Policy(PolicyHook),
}

/// One configured hook: what every kind shares, and its kind ([`hook`](Entry::hook)).
///
/// Every entry runs in the same layer: its `matcher` is checked, then its runner runs within
/// its `timeout`, and a failure of the runner (it crashed, hung, or answered garbage) is decided
/// by its `on_failure`.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The canonical event.
    pub event: String,
    /// The event as written in the file.
    pub event_as_written: String,
    /// The name.
    pub name: String,
    /// The priority.
    pub priority: i32,
    /// The line of the entry in its file.
    pub line: usize,
    /// Which events the entry runs for (`matcher`, Claude Code's semantics); `None` for all.
    pub matcher: Option<EventMatcher>,
    /// How long its runner may take (`timeout_ms`; the kind's default when absent): past it,
    /// the call is a failure that `on_failure` decides.
    pub timeout: Duration,
    /// What a failure of its runner gives (`on_failure`; `warn` when absent).
    pub on_failure: OnFailure,
    /// What an agent adapter does with this entry's rewrite of a tool call.
    pub rewrite: Rewrite,
    /// What it does.
    pub hook: HookKind,
}

impl HookKind {
    /// The name of the kind, as a hooks file's `type` says it.
    pub fn type_name(&self) -> &'static str {
        match self {
            HookKind::Command(_) => "command",
            HookKind::Matcher(_) => "matcher",
            HookKind::Http(_) => "http",
            HookKind::Llm(_) => "llm",
            HookKind::Wasm(_) => "wasm",
            HookKind::Policy(policy) => policy.language(),
        }
    }

    /// The deadline of an entry of this kind that gives none.
    pub fn default_timeout(&self) -> Duration {
        match self {
            HookKind::Command(_)
            | HookKind::Http(_)
            | HookKind::Matcher(_)
            | HookKind::Policy(_) => DEFAULT_COMMAND_TIMEOUT,
            HookKind::Llm(_) => DEFAULT_LLM_TIMEOUT,
            HookKind::Wasm(_) => DEFAULT_WASM_TIMEOUT,
        }
    }
}

/// What an agent adapter (`hooks claude`, ...) does with an entry's rewrite of a tool call
/// (`rewrite:` in a hooks file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Rewrite {
    /// The agent's user confirms the rewritten call (Claude Code's `ask`); where the agent
    /// cannot ask, the call is blocked with what would have run. The default: a rewrite nobody
    /// sees could turn a harmless call into anything.
    #[default]
    Confirm,
    /// The rewritten call runs without anyone confirming it, and without the agent's own
    /// permission prompt (Claude Code's `allow` with `updatedInput`). For rewriters that are
    /// trusted as much as the agent itself; headless agents need it to run rewrites at all.
    Apply,
}

/// A command hook's timeout when the entry gives none.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// An LLM hook's timeout when the entry gives none.
pub const DEFAULT_LLM_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest timeout an entry may have.
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(3600);

/// A command hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The shell command (`sh -c`).
    pub command: String,
    /// How its output is read: ours, or Claude Code's for hooks from its settings.
    pub protocol: AnswerProtocol,
    /// Fire and forget: the emit does not wait.
    pub fire_and_forget: bool,
    /// One long-lived process answering a JSON line per event (`persistent: true`), rather
    /// than a process per event.
    pub persistent: bool,
}

/// An HTTP hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHook {
    /// Where to POST.
    pub url: String,
    /// Extra headers; `${VAR}` in a value is replaced by that environment variable.
    pub headers: Vec<(String, String)>,
    /// How its answer is read: ours, or Claude Code's for hooks from its settings.
    pub protocol: AnswerProtocol,
}

/// Which API an LLM hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, ...).
    OpenAi,
    /// The Anthropic messages API.
    Anthropic,
}

/// An LLM hook.
#[derive(Debug, Clone)]
pub struct LlmHook {
    /// The model name.
    pub model: String,
    /// The prompt template (`{{event}}`, `{{tool}}`, `{{args}}`, `{{data}}`).
    pub prompt: String,
    /// The answer's token limit.
    pub max_tokens: u32,
    /// Which API.
    pub provider: Provider,
    /// The API's base URL.
    pub base_url: String,
    /// The environment variable holding the API key, if any.
    pub api_key_env: Option<String>,
    /// Identical rendered prompts answered from memory, when set.
    pub cache: Option<Arc<AnswerCache>>,
}

/// A WebAssembly hook's deadline when the entry gives none.
pub const DEFAULT_WASM_TIMEOUT: Duration = Duration::from_secs(1);

/// A WebAssembly hook's memory limit, in MiB, when the entry gives none.
pub const DEFAULT_WASM_MEMORY_MB: u64 = 64;

/// The interface a WebAssembly component speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WasmAbi {
    /// Ours, `hooks:guest@0.1.0` (`abi: hooks`, the default).
    Hooks,
    /// amplifier-core's `hook-handler` with protobuf messages (`abi: amplifier`).
    Amplifier,
}

/// A WebAssembly hook (`type: wasm`): a component run with no capabilities but those granted,
/// a deadline and a memory limit.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentHook {
    /// The component's file (relative paths are taken from the hooks file's directory).
    pub path: PathBuf,
    /// The interface it speaks.
    pub abi: WasmAbi,
    /// Its configuration, handed to its `subscriptions` (an object; `{}` when none).
    pub config: Value,
    /// The most memory it may take, in MiB.
    pub memory_mb: u64,
    /// Directories it may read (`allow_read`).
    pub read_dirs: Vec<PathBuf>,
    /// Environment variables it may read (`allow_env`).
    pub env: Vec<String>,
}
