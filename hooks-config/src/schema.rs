//! The keys of a hooks file's entries, as serde types: one source for what the loader accepts
//! (its unknown-key errors and their suggestions list these fields) and for the values its
//! enumerations take (their variants).
//!
//! The loader reads each value itself, so that one run reports every problem of a file, each
//! at its line and column; these types say which keys there are. An entry is the keys every
//! entry has ([`EntryKeys`]), those of an entry that runs something outside the process
//! ([`RunnerKeys`]: everything but `matcher` entries), and its kind's own.

// The fields are the schema; nothing reads them once deserialized.
#![allow(dead_code)]

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

/// The keys of every entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntryKeys {
    /// `command`, `matcher`, `http`, `llm`, `wasm`, `cedar` or `rego`.
    r#type: String,
    /// Default: the file, line and type.
    name: Option<String>,
    /// Default 0; equal priorities keep file order.
    priority: Option<i32>,
    /// Which events it runs for, with Claude Code's semantics.
    matcher: Option<String>,
}

/// The keys of an entry that runs something: a command, a service, a model, a component.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunnerKeys {
    /// Its deadline.
    timeout_ms: Option<u64>,
    /// What a failure gives: `warn`, `block` or `ignore`.
    on_failure: Option<String>,
    /// What an adapter does with its rewrite of a tool call: `confirm` or `apply`.
    rewrite: Option<String>,
}

/// A command hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandKeys {
    /// Run by `sh -c`.
    command: String,
    /// How its output is read: `hooks` or `claude`.
    protocol: Option<String>,
    /// Fire and forget.
    r#async: Option<bool>,
    /// One process answering a JSON line per event.
    persistent: Option<bool>,
}

/// A matcher hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatcherKeys {
    /// `tool` and `args` patterns.
    r#match: MatchKeys,
    /// `block`, `allow`, `ask` or `inject`.
    action: String,
    /// The reason, question or context.
    message: Option<String>,
}

/// The conditions of a matcher hook.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatchKeys {
    /// The tool's name: a glob or `regex:...`.
    tool: Option<String>,
    /// Input fields and their patterns.
    args: Option<Value>,
}

/// An HTTP hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HttpKeys {
    /// Where to POST.
    url: String,
    /// Extra headers (`${VAR}` read from the environment).
    headers: Option<Value>,
    /// How its answer is read: `hooks` or `claude`.
    protocol: Option<String>,
}

/// An LLM hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LlmKeys {
    /// The model's name.
    model: String,
    /// The prompt template.
    prompt: String,
    /// The answer's token limit.
    max_tokens: Option<u32>,
    /// `openai` or `anthropic`.
    provider: Option<String>,
    /// The API's base URL.
    base_url: Option<String>,
    /// The environment variable holding the API key.
    api_key_env: Option<String>,
    /// Whether identical prompts are answered from memory.
    cache: Option<bool>,
    /// How long a remembered answer lasts.
    cache_ttl_secs: Option<u64>,
    /// How many answers are remembered.
    cache_size: Option<u64>,
}

/// A WebAssembly hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WasmKeys {
    /// The component's file.
    path: String,
    /// `hooks` or `amplifier`.
    abi: Option<String>,
    /// Handed to its `subscriptions`.
    config: Option<Value>,
    /// Its memory limit.
    memory_mb: Option<u64>,
    /// Directories it may read.
    allow_read: Option<Vec<String>>,
    /// Environment variables it may read.
    allow_env: Option<Vec<String>>,
}

/// A Cedar hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CedarKeys {
    /// A `.cedar` file, or the policies themselves.
    policies: String,
    /// A Cedar schema file (`.cedarschema`, or its JSON form) the policies are checked against.
    schema: Option<String>,
    /// A file of entities in Cedar's JSON form.
    entities: Option<String>,
}

/// A Rego hook's own keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegoKeys {
    /// A `.rego` file, or a directory of them.
    policies: String,
    /// The package whose `deny` and `ask` decide; the only one declared when absent.
    package: Option<String>,
}

/// The keys of the top level of a hooks file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileKeys {
    /// Modules by name, with their settings.
    modules: Option<Value>,
    /// Events and their entries.
    hooks: Option<Value>,
}

/// The fields of the serde struct `T`, as its derived `Deserialize` names them.
pub(crate) fn fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    match T::deserialize(Probe) {
        Err(Probed::Fields(fields)) => fields,
        _ => &[],
    }
}

/// The variants of the serde enum `T` (unit variants, as a file writes them).
pub(crate) fn variants<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    match T::deserialize(Probe) {
        Err(Probed::Variants(variants)) => variants,
        _ => &[],
    }
}

/// The keys an entry of type `kind` may have; `None` for an unknown type.
pub(crate) fn keys_of(kind: &str) -> Option<Vec<&'static str>> {
    let own = match kind {
        "command" => fields::<CommandKeys>(),
        "matcher" => fields::<MatcherKeys>(),
        "http" => fields::<HttpKeys>(),
        "llm" => fields::<LlmKeys>(),
        "wasm" => fields::<WasmKeys>(),
        "cedar" => fields::<CedarKeys>(),
        "rego" => fields::<RegoKeys>(),
        _ => return None,
    };
    let runs = if kind == "matcher" {
        &[][..]
    } else {
        fields::<RunnerKeys>()
    };
    Some(
        fields::<EntryKeys>()
            .iter()
            .chain(runs)
            .chain(own)
            .copied()
            .collect(),
    )
}

/// The hook types, as `type` names them.
pub(crate) const TYPES: [&str; 7] = ["command", "matcher", "http", "llm", "wasm", "cedar", "rego"];

/// A deserializer that reads nothing and reports the shape serde asked it for.
struct Probe;

/// What a [`Probe`] was asked for.
#[derive(Debug)]
enum Probed {
    Fields(&'static [&'static str]),
    Variants(&'static [&'static str]),
    Other,
}

impl fmt::Display for Probed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a schema probe")
    }
}

impl std::error::Error for Probed {}

impl de::Error for Probed {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Probed::Other
    }
}

impl<'de> Deserializer<'de> for Probe {
    type Error = Probed;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Probed> {
        Err(Probed::Other)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Probed> {
        Err(Probed::Fields(fields))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Probed> {
        Err(Probed::Variants(variants))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnswerProtocol, Provider, Rewrite};

    #[test]
    fn the_keys_are_the_fields_of_the_serde_types() {
        assert_eq!(
            fields::<EntryKeys>(),
            ["type", "name", "priority", "matcher"]
        );
        let command = keys_of("command").unwrap();
        for key in [
            "type",
            "timeout_ms",
            "on_failure",
            "rewrite",
            "command",
            "async",
        ] {
            assert!(command.contains(&key), "{key} in {command:?}");
        }
        let matcher = keys_of("matcher").unwrap();
        assert!(!matcher.contains(&"on_failure"), "{matcher:?}");
        assert!(matcher.contains(&"match"), "{matcher:?}");
        assert_eq!(keys_of("telepathy"), None);
        for kind in TYPES {
            assert!(keys_of(kind).is_some(), "{kind}");
        }
    }

    #[test]
    fn the_values_of_an_enumeration_are_its_variants() {
        assert_eq!(variants::<Rewrite>(), ["confirm", "apply"]);
        assert_eq!(variants::<Provider>(), ["openai", "anthropic"]);
        assert_eq!(variants::<AnswerProtocol>(), ["hooks", "claude"]);
    }
}
