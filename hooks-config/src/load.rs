//! Loading a hooks YAML file: every problem is collected, each with its file, line and column.

mod kinds;
mod policy;

use std::path::{Path, PathBuf};
use std::time::Duration;

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoadError, Node, Span};
use serde::de::{DeserializeOwned, IntoDeserializer};

use hooks_std::catalog::{ModuleCatalog, ModuleContext};
use hooks_std::config_file::{MAX_CONFIG_BYTES, read_config_file};

use crate::modules::{self, ConfiguredModule};
use crate::schema::{self, FileKeys};
use crate::{
    ConfigError, ConfigErrors, Entry, EventMatcher, HookKind, HooksConfig, MAX_COMMAND_TIMEOUT,
    OnFailure,
};

struct Loader<'c> {
    file: PathBuf,
    errors: Vec<ConfigError>,
    /// Where the `modules:` section's names come from.
    catalog: &'c ModuleCatalog,
    /// Where the modules' relative paths resolve: the file's directory.
    context: ModuleContext,
}

/// Where to point for a problem with a whole mapping: its first key (a mapping's own span may
/// start after it).
fn anchor(mapping: &MarkedMappingNode) -> Span {
    mapping
        .keys()
        .next()
        .map_or(*mapping.span(), |key| *key.span())
}

fn position(span: &Span) -> (usize, usize) {
    span.start()
        .map_or((1, 1), |marker| (marker.line(), marker.column()))
}

/// `a, b or c`.
fn either(values: &[&str]) -> String {
    match values {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl Loader<'_> {
    fn error(&mut self, span: &Span, message: impl Into<String>) {
        let (line, column) = position(span);
        self.errors.push(ConfigError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        });
    }

    /// Reports keys of `mapping` that are not in `allowed`, with the closest allowed key when
    /// one is close (a misspelling).
    fn known_keys(&mut self, mapping: &MarkedMappingNode, allowed: &[&str], context: &str) {
        for key in mapping.keys() {
            if !allowed.contains(&key.as_str()) {
                let suggestion = hooks_core::events::closest(key.as_str(), allowed.iter().copied())
                    .map(|close| format!(" (did you mean `{close}`?)"))
                    .unwrap_or_default();
                self.error(
                    key.span(),
                    format!(
                        "unknown key `{}` in {context}{suggestion}; expected one of {}",
                        key.as_str(),
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    /// The value of `key`, one of the variants of the serde enum `T` (`on_failure: block`);
    /// `None` when absent or wrong (and reported).
    fn choice<T: DeserializeOwned>(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
    ) -> Option<T> {
        let values = either(schema::variants::<T>());
        let scalar = self.scalar(mapping, key, &values, context)?;
        let text = scalar.as_str();
        let read: Result<T, serde::de::value::Error> = T::deserialize(text.into_deserializer());
        read.map_err(|_| {
            self.error(
                scalar.span(),
                format!("`{key}` must be {values}, not `{text}`"),
            );
        })
        .ok()
    }

    fn string(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> Option<String> {
        match mapping.get_node(key)? {
            Node::Scalar(scalar) => Some(scalar.as_str().to_owned()),
            other => {
                self.error(
                    other.span(),
                    format!("`{key}` in {context} must be a string"),
                );
                None
            }
        }
    }

    fn required_string(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
    ) -> Option<String> {
        if mapping.get_node(key).is_none() {
            self.error(&anchor(mapping), format!("{context} is missing `{key}`"));
            return None;
        }
        self.string(mapping, key, context).filter(|value| {
            let empty = value.trim().is_empty();
            if empty {
                let span = *mapping.get_node(key).map_or(mapping.span(), Node::span);
                self.error(&span, format!("`{key}` in {context} must not be empty"));
            }
            !empty
        })
    }

    fn scalar<'n>(
        &mut self,
        mapping: &'n MarkedMappingNode,
        key: &str,
        what: &str,
        context: &str,
    ) -> Option<&'n MarkedScalarNode> {
        match mapping.get_node(key)? {
            Node::Scalar(scalar) => Some(scalar),
            other => {
                self.error(other.span(), format!("`{key}` in {context} must be {what}"));
                None
            }
        }
    }

    fn load(&mut self, root: &Node) -> (Vec<Entry>, Vec<ConfiguredModule>) {
        let Some(top) = root.as_mapping() else {
            self.error(
                root.span(),
                "a hooks file is a mapping with a `hooks:` or a `modules:` key",
            );
            return (Vec::new(), Vec::new());
        };
        self.known_keys(top, schema::fields::<FileKeys>(), "the top level");
        let modules = match top.get_node("modules") {
            Some(modules) => self.modules(modules),
            None => Vec::new(),
        };
        let entries = match top.get_node("hooks") {
            Some(hooks) => self.hooks(hooks),
            None if top.get_node("modules").is_none() => {
                self.error(top.span(), "the file has no `hooks:` and no `modules:` key");
                Vec::new()
            }
            None => Vec::new(),
        };
        (entries, modules)
    }

    /// The `modules:` section: each module built from its settings.
    fn modules(&mut self, node: &Node) -> Vec<ConfiguredModule> {
        let Some(modules) = node.as_mapping() else {
            if !matches!(node, Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty())
            {
                self.error(
                    node.span(),
                    "`modules` maps module names to their settings (`safety: {}`)",
                );
            }
            return Vec::new();
        };
        let mut built = Vec::new();
        for (name, settings) in modules.iter() {
            match modules::build(self.catalog, &self.context, name, settings) {
                Ok(module) => built.push(module),
                Err(problems) => {
                    for problem in problems {
                        self.error(&problem.span, problem.message);
                    }
                }
            }
        }
        built
    }

    /// The `hooks:` section: each entry of each event.
    fn hooks(&mut self, hooks: &Node) -> Vec<Entry> {
        // `hooks:` with nothing after it (or `hooks: {}`) is a file of modules only.
        if matches!(hooks, Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty())
        {
            return Vec::new();
        }
        let Some(hooks) = hooks.as_mapping() else {
            self.error(hooks.span(), "`hooks` maps event names to lists of hooks");
            return Vec::new();
        };
        let mut entries = Vec::new();
        for (event_key, list) in hooks.iter() {
            let event = match crate::interop::event_named(event_key.as_str()) {
                Ok(canonical) => canonical,
                Err(problem) => {
                    self.error(event_key.span(), problem.to_string());
                    continue;
                }
            };
            let Some(list) = list.as_sequence() else {
                self.error(
                    list.span(),
                    format!(
                        "`{}` takes a list of hooks (`- type: ...`)",
                        event_key.as_str()
                    ),
                );
                continue;
            };
            for (index, item) in list.iter().enumerate() {
                let context = format!("hook {} of `{}`", index + 1, event_key.as_str());
                if let Some(entry) = self.entry(item, &event, event_key.as_str(), &context) {
                    entries.push(entry);
                }
            }
        }
        entries
    }

    fn entry(&mut self, item: &Node, event: &str, written: &str, context: &str) -> Option<Entry> {
        let Some(mapping) = item.as_mapping() else {
            self.error(
                item.span(),
                format!("{context} must be a mapping with a `type`"),
            );
            return None;
        };
        // Every key is checked even when one is wrong, so that one run reports every problem
        // of the entry: without a `type` only its own keys are unknown, the shared ones are not.
        let kind = self.required_string(mapping, "type", context);
        let (line, _) = position(&anchor(mapping));
        let name = self.name(mapping, context);
        let priority = self.priority(mapping, context);
        let hook = kind
            .as_deref()
            .and_then(|kind| self.hook(mapping, kind, event, context));
        let matcher = self.event_matcher(mapping, context);
        // A matcher entry runs nothing that could fail or take time; the others share these.
        let runs = kind.as_deref() != Some("matcher");
        let default_timeout = hook
            .as_ref()
            .map_or(crate::DEFAULT_COMMAND_TIMEOUT, HookKind::default_timeout);
        let timeout = if runs {
            self.timeout(mapping, context, default_timeout)
        } else {
            default_timeout
        };
        let on_failure = runs
            .then(|| self.choice(mapping, "on_failure", context))
            .flatten()
            // Policies that cannot decide must not let the call through unnoticed.
            .unwrap_or(if matches!(hook, Some(HookKind::Policy(_))) {
                OnFailure::Block
            } else {
                OnFailure::Warn
            });
        let rewrite = runs
            .then(|| self.choice(mapping, "rewrite", context))
            .flatten()
            .unwrap_or_default();
        let kind = kind?;
        Some(Entry {
            event: event.to_owned(),
            event_as_written: written.to_owned(),
            name: name.unwrap_or_else(|| format!("{}:{line}:{kind}", self.file.display())),
            priority,
            line,
            matcher,
            timeout,
            on_failure,
            rewrite,
            hook: hook?,
        })
    }

    /// The `name` of an entry, if given: not empty, since reports and adapters name hooks by it.
    fn name(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<String> {
        let name = self.string(mapping, "name", context)?;
        if name.trim().is_empty() {
            // At the key: an empty value has no place of its own (`name:` ends the line).
            let span = mapping
                .keys()
                .find(|key| key.as_str() == "name")
                .map_or(*mapping.span(), |key| *key.span());
            self.error(
                &span,
                format!("`name` in {context} must not be empty (leave it out for the default)"),
            );
            return None;
        }
        Some(name)
    }

    /// The `priority` of an entry, 0 when absent.
    fn priority(&mut self, mapping: &MarkedMappingNode, context: &str) -> i32 {
        let Some(scalar) = self.scalar(mapping, "priority", "an integer", context) else {
            return 0;
        };
        scalar.as_i32().unwrap_or_else(|| {
            self.error(
                scalar.span(),
                format!(
                    "`priority` in {context} must be an integer, not `{}`",
                    scalar.as_str()
                ),
            );
            0
        })
    }

    /// What an entry of type `kind` does, its keys checked against those of its type.
    fn hook(
        &mut self,
        mapping: &MarkedMappingNode,
        kind: &str,
        event: &str,
        context: &str,
    ) -> Option<HookKind> {
        let Some(keys) = schema::keys_of(kind) else {
            let span = *mapping.get_node("type").map_or(mapping.span(), Node::span);
            let suggestion = hooks_core::events::closest(kind, schema::TYPES)
                .map(|close| format!(" (did you mean `{close}`?)"))
                .unwrap_or_default();
            self.error(
                &span,
                format!(
                    "unknown hook type `{kind}`{suggestion}; expected {}",
                    either(&schema::TYPES)
                ),
            );
            return None;
        };
        self.known_keys(mapping, &keys, context);
        match kind {
            "command" => self.command(mapping, context).map(HookKind::Command),
            "matcher" => self.matcher(mapping, event, context).map(HookKind::Matcher),
            "http" => self.http(mapping, context).map(HookKind::Http),
            "wasm" => self.wasm(mapping, context).map(HookKind::Wasm),
            "cedar" | "rego" => self
                .policy(mapping, kind, event, context)
                .map(HookKind::Policy),
            _ => self.llm(mapping, context).map(HookKind::Llm),
        }
    }

    /// The `matcher` of a command, HTTP or LLM entry (a matcher entry has its own `match`).
    fn event_matcher(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
    ) -> Option<EventMatcher> {
        let scalar = self.scalar(mapping, "matcher", "a string", context)?;
        match EventMatcher::parse(scalar.as_str()) {
            Ok(matcher) => Some(matcher),
            Err(error) => {
                self.error(
                    scalar.span(),
                    format!("`matcher` in {context} is not a valid regex: {error}"),
                );
                None
            }
        }
    }

    /// A `true`/`false` key, false when absent.
    fn flag(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> bool {
        match self.scalar(mapping, key, "true or false", context) {
            Some(scalar) => scalar.as_bool().unwrap_or_else(|| {
                self.error(
                    scalar.span(),
                    format!("`{key}` must be true or false, not `{}`", scalar.as_str()),
                );
                false
            }),
            None => false,
        }
    }

    fn timeout(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
        default: Duration,
    ) -> Duration {
        let Some(scalar) = self.scalar(
            mapping,
            "timeout_ms",
            "a whole number of milliseconds",
            context,
        ) else {
            return default;
        };
        match scalar.as_u64() {
            Some(ms) if ms >= 1 && Duration::from_millis(ms) <= MAX_COMMAND_TIMEOUT => {
                Duration::from_millis(ms)
            }
            _ => {
                let message = format!(
                    "`timeout_ms` must be from 1 to {} milliseconds, not `{}`",
                    MAX_COMMAND_TIMEOUT.as_millis(),
                    scalar.as_str()
                );
                self.error(scalar.span(), message);
                default
            }
        }
    }

    fn url(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
        default: Option<&str>,
    ) -> Option<String> {
        let url = match default {
            Some(default) => self
                .string(mapping, key, context)
                .unwrap_or_else(|| default.to_owned()),
            None => self.required_string(mapping, key, context)?,
        };
        if url.starts_with("http://") || url.starts_with("https://") {
            return Some(url);
        }
        let span = *mapping.get_node(key).map_or(mapping.span(), Node::span);
        self.error(
            &span,
            format!("`{key}` must be an http:// or https:// URL, not `{url}`"),
        );
        None
    }

    fn positive(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
        default: u64,
        max: u64,
    ) -> u64 {
        let Some(scalar) = self.scalar(mapping, key, "a positive whole number", context) else {
            return default;
        };
        match scalar.as_u64() {
            Some(n) if (1..=max).contains(&n) => n,
            _ => {
                let message = format!("`{key}` must be from 1 to {max}, not `{}`", scalar.as_str());
                self.error(scalar.span(), message);
                default
            }
        }
    }

    /// A list of strings under `key`, empty when absent.
    fn strings(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> Vec<String> {
        match mapping.get_node(key) {
            None => Vec::new(),
            Some(Node::Sequence(items)) => items
                .iter()
                .filter_map(|item| match item {
                    Node::Scalar(scalar) if !scalar.as_str().is_empty() => {
                        Some(scalar.as_str().to_owned())
                    }
                    other => {
                        self.error(
                            other.span(),
                            format!("`{key}` in {context} lists non-empty strings"),
                        );
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.error(other.span(), format!("`{key}` in {context} must be a list"));
                Vec::new()
            }
        }
    }
}

pub(crate) fn load_error_marker(error: &LoadError) -> (usize, usize) {
    use LoadError::*;
    let marker = match error {
        TopLevelMustBeMapping(m)
        | TopLevelMustBeSequence(m)
        | UnexpectedAnchor(m)
        | MappingKeyMustBeScalar(m)
        | UnexpectedTag(m)
        | ScanError(m, _) => Some(*m),
        DuplicateKey(inner) => inner.key.span().start().copied(),
    };
    marker.map_or((1, 1), |m| (m.line(), m.column()))
}

/// How many forbidden characters are reported before the rest of the file is left unchecked.
const MAX_FORBIDDEN: usize = 16;

/// Whether YAML forbids `c` in a stream: a character outside its printable set (C0 controls
/// but tab and line breaks, DEL, C1 controls but NEL, U+FFFE and U+FFFF).
fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}')
}

/// Where `text` holds a character YAML forbids, each located in `file`. Such a character is
/// refused rather than read past: the YAML reader ends the stream at a NUL, even in a comment,
/// and the rules after it would be silently dropped.
fn forbidden_characters(text: &str, file: &Path) -> Vec<ConfigError> {
    text.split('\n')
        .enumerate()
        .flat_map(|(line, content)| {
            content
                .chars()
                .enumerate()
                .filter(|(_, c)| forbidden(*c))
                .map(move |(column, c)| ConfigError {
                    file: file.to_path_buf(),
                    line: line + 1,
                    column: column + 1,
                    message: format!(
                        "the control character U+{:04X} is not allowed in a YAML file; the \
                         file is refused rather than read only up to it",
                        u32::from(c)
                    ),
                })
        })
        .take(MAX_FORBIDDEN)
        .collect()
}

/// Parses YAML keeping what its quotes say: `"true"` and `'12'` are strings, not a boolean
/// and a number (the modules' settings are typed from the nodes).
pub(crate) fn parse(text: &str) -> Result<Node, LoadError> {
    let options = marked_yaml::LoaderOptions::default().prevent_coercion(true);
    marked_yaml::parse_yaml_with_options(0, text, options)
}

/// Loads hooks from YAML `text`, naming `file` in errors; relative paths in it are taken from
/// `project_dir`. Its `modules:` are the standard modules.
pub fn load_str(text: &str, file: &Path, project_dir: &Path) -> Result<HooksConfig, ConfigErrors> {
    load_str_with(text, file, project_dir, &ModuleCatalog::standard())
}

/// [`load_str`] with the modules of `catalog` (the standard ones and an application's own).
pub fn load_str_with(
    text: &str,
    file: &Path,
    project_dir: &Path,
    catalog: &ModuleCatalog,
) -> Result<HooksConfig, ConfigErrors> {
    let forbidden = forbidden_characters(text, file);
    if !forbidden.is_empty() {
        return Err(ConfigErrors(forbidden));
    }
    let root = match parse(text) {
        Ok(root) => root,
        Err(error) => {
            let (line, column) = load_error_marker(&error);
            return Err(ConfigErrors(vec![ConfigError {
                file: file.to_path_buf(),
                line,
                column,
                message: format!("not valid YAML: {error}"),
            }]));
        }
    };
    let mut loader = Loader {
        file: file.to_path_buf(),
        errors: Vec::new(),
        catalog,
        // The file is handed on so that the safety module write-protects it, with what else
        // configures the guard (the agents' settings, the other hooks files: `protection`).
        context: ModuleContext::new(project_dir)
            .with_file(&std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf()))
            .protect(crate::protection::self_protection()),
    };
    let (entries, modules) = loader.load(&root);
    if loader.errors.is_empty() {
        Ok(HooksConfig {
            file: file.to_path_buf(),
            project_dir: project_dir.to_path_buf(),
            modules,
            entries,
        })
    } else {
        loader.errors.sort_by_key(|e| (e.line, e.column));
        Err(ConfigErrors(loader.errors))
    }
}

/// Loads a hooks file: our YAML, or (a `.json` file) a Claude Code settings file or plugin
/// hooks file, whose hooks are converted as `hooks import claude` converts them; a hook with no
/// equivalent here is an error rather than silently missing.
///
/// Command hooks run in the file's directory; for a file in `.claude/`, the project directory
/// above it, as in Claude Code. A plugin's `<plugin>/hooks/hooks.json` is the exception, as in
/// Claude Code: its hooks run in the project (`CLAUDE_PROJECT_DIR`, else the current directory)
/// with `CLAUDE_PLUGIN_ROOT` set to the plugin's directory.
pub fn load_file(path: &Path) -> Result<HooksConfig, ConfigErrors> {
    load_file_with(path, &ModuleCatalog::standard())
}

/// [`load_file`] with the modules of `catalog` (the standard ones and an application's own).
pub fn load_file_with(path: &Path, catalog: &ModuleCatalog) -> Result<HooksConfig, ConfigErrors> {
    let text = read_config_file(path, MAX_CONFIG_BYTES).map_err(|error| {
        ConfigErrors(vec![ConfigError {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            message: format!("cannot read the file: {error}"),
        }])
    })?;
    // Absolute, so that the directory hooks are told (`cwd`, `CLAUDE_PROJECT_DIR`) means the
    // same wherever they `cd`; `--config hooks.yaml` would otherwise give them `.`.
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut project_dir = absolute
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if path
        .extension()
        .is_some_and(|extension| extension == "json")
    {
        let plugin_root = crate::interop::claude::plugin_root_of(&absolute);
        if plugin_root.is_some() {
            project_dir = current_project_dir().unwrap_or(project_dir);
        } else if project_dir
            .file_name()
            .is_some_and(|name| name == ".claude")
        {
            project_dir.pop();
        }
        let mut imported = crate::interop::claude::import_settings(&text, path)?;
        if let Some(root) = &plugin_root {
            crate::interop::claude::with_plugin_root(&mut imported, root);
        }
        if !imported.left_out.is_empty() {
            return Err(ConfigErrors(imported.left_out));
        }
        return Ok(HooksConfig {
            file: path.to_path_buf(),
            project_dir,
            modules: Vec::new(),
            entries: imported.entries,
        });
    }
    load_str_with(&text, path, &project_dir, catalog)
}

/// The project a plugin's hooks run in: Claude Code's `CLAUDE_PROJECT_DIR` when it started us,
/// else the directory we run in.
fn current_project_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}
