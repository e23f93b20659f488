//! Tables of test cases for a hooks file: events with the decision expected of the policy,
//! what `hooks test` runs and [`hooks-testing`](https://docs.rs/hooks-testing) asserts.
//!
//! ```yaml
//! config: hooks.yaml           # the hooks file, relative to the table (default: hooks.yaml beside it)
//! cases:
//!   - name: deleting the home directory
//!     tool: Bash               # a tool call: PreToolUse with tool_name and tool_input
//!     input: {command: "rm -rf ~"}
//!     expect: deny             # allow | deny | ask
//!     reason: home             # optional: a piece of the reason given
//!   - name: only codex is kept from writing
//!     agent: codex             # the agent, in the event's `agent` field
//!     tool: Write
//!     input: {file_path: notes.md, content: "hi"}
//!     expect: deny
//!   - name: a prompt
//!     event: UserPromptSubmit  # any event, with its data
//!     data: {prompt: "hello"}
//!     expect: allow
//!   - name: Claude Code's own input
//!     agent: claude            # mapped as `hooks claude` maps it
//!     hook: {hook_event_name: PreToolUse, tool_name: Bash, tool_input: {command: ls}}
//!     expect: allow
//! ```
//!
//! Each case is decided as the guard decides it ([`Trial`], the guard's
//! [`Policy`](crate::Policy)), without the recording modules: by [`CaseTable::run`], through the
//! hooks file alone (a library's tests, the same on every machine); by
//! [`CaseTable::run_with`], under the managed and user files of the machine and with the
//! sessions' state, as `hooks test` runs it. The merged action is the case's verdict: deny, ask
//! (`ask_user`) or allow (anything else). A mistake in the table is an error at its line and
//! column, like a mistake in a hooks file; a table with no cases is one too, since it would
//! pass while testing nothing.

use std::path::{Path, PathBuf};

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use serde::Serialize;
use serde_json::{Map, Value};

use hooks_core::StateBackend;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::state::MemoryState;
use hooks_std::catalog::ModuleCatalog;

use crate::{LayerPaths, LayersError, Level, PolicyStack};

use crate::modules::json_of;
use crate::trial::{Trial, Verdict};
use crate::{ConfigError, ConfigErrors};

/// The hooks file a table tests when it names none: `hooks.yaml` beside it.
pub const DEFAULT_CONFIG: &str = "hooks.yaml";

/// The keys of a case.
const CASE_KEYS: &[&str] = &[
    "name", "tool", "input", "event", "data", "agent", "hook", "expect", "reason",
];

/// The event of a case, ready to emit.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseEvent {
    /// The canonical (or custom) event.
    pub event: String,
    /// Its data.
    pub data: Value,
}

/// One case of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Its name (`case N` when the table gives none).
    pub name: String,
    /// The line it starts at in the table.
    pub line: usize,
    /// The event.
    pub event: CaseEvent,
    /// The verdict expected.
    pub expect: Verdict,
    /// A piece of text the reason must hold, if the table asks for one.
    pub reason: Option<String>,
}

/// A table of cases and the hooks file it tests.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseTable {
    /// The table's file.
    pub file: PathBuf,
    /// The hooks file it tests.
    pub config: PathBuf,
    /// Its cases, in file order.
    pub cases: Vec<Case>,
}

/// Why a table could not run.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The table has mistakes (each at its line and column), or cannot be read.
    #[error("{0}")]
    Table(ConfigErrors),
    /// The hooks file it tests does not load.
    #[error("the hooks file does not load:\n{0}")]
    Config(ConfigErrors),
    /// A managed or user hooks file over it cannot be read or does not load: the guard would
    /// refuse to run.
    #[error("{0}")]
    Layers(LayersError),
    /// The hooks file loads but does not mount.
    #[error("the hooks file `{}` does not mount: {problem}", .file.display())]
    Mount {
        /// The hooks file.
        file: PathBuf,
        /// Why.
        problem: String,
    },
}

/// What one case gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// Its line in the table.
    pub line: usize,
    /// The verdict expected.
    pub expected: Verdict,
    /// The piece of reason expected, if any.
    pub expected_reason: Option<String>,
    /// The verdict the policy gave.
    pub got: Verdict,
    /// The reason it gave, if any.
    pub reason: Option<String>,
    /// The hook that decided, if one did.
    pub decided_by: Option<String>,
    /// The hooks that failed on the way (their `on_failure` decided for them).
    pub failures: Vec<String>,
    /// Whether the verdict (and the reason, when asked) is the one expected.
    pub passed: bool,
}

/// What a table gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableReport {
    /// The table's file.
    pub table: PathBuf,
    /// The hooks file it tested.
    pub config: PathBuf,
    /// Each case's result, in table order.
    pub cases: Vec<CaseResult>,
}

impl TableReport {
    /// Whether every case passed.
    pub fn passed(&self) -> bool {
        self.cases.iter().all(|case| case.passed)
    }

    /// The cases that did not pass.
    pub fn failed(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases.iter().filter(|case| !case.passed)
    }

    /// The report for a person: each failed case as a diff of what was expected and what
    /// came, then the counts.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for case in self.failed() {
            text.push_str(&format!(
                "FAIL {} ({}:{})\n",
                case.name,
                self.table.display(),
                case.line
            ));
            let expected_reason = case
                .expected_reason
                .as_ref()
                .map(|piece| format!(", reason containing {piece:?}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "  - expected: {}{expected_reason}\n",
                case.expected
            ));
            let reason = case
                .reason
                .as_ref()
                .map(|reason| format!(", reason {reason:?}"))
                .unwrap_or_default();
            let by = case
                .decided_by
                .as_ref()
                .map(|hook| format!(", decided by `{hook}`"))
                .unwrap_or_default();
            text.push_str(&format!("  + got:      {}{reason}{by}\n", case.got));
            for failure in &case.failures {
                text.push_str(&format!("    a hook failed: {failure}\n"));
            }
        }
        let failed = self.failed().count();
        text.push_str(&format!(
            "{}: {} passed, {failed} failed (against {})\n",
            self.table.display(),
            self.cases.len() - failed,
            self.config.display()
        ));
        text
    }
}

/// Collects the mistakes of one table.
struct Reader {
    file: PathBuf,
    errors: Vec<ConfigError>,
}

impl Reader {
    fn error(&mut self, node_span: &marked_yaml::Span, message: impl Into<String>) {
        let (line, column) = node_span
            .start()
            .map_or((1, 1), |marker| (marker.line(), marker.column()));
        self.errors.push(ConfigError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        });
    }

    fn text(&mut self, case: &MarkedMappingNode, key: &str) -> Option<String> {
        let node = case.get_node(key)?;
        match node.as_scalar() {
            Some(scalar) => Some(scalar.as_str().to_owned()),
            None => {
                self.error(node.span(), format!("`{key}` is a text"));
                None
            }
        }
    }

    fn object(&mut self, case: &MarkedMappingNode, key: &str) -> Option<Map<String, Value>> {
        let node = case.get_node(key)?;
        match json_of(node) {
            Value::Object(object) => Some(object),
            _ => {
                self.error(node.span(), format!("`{key}` is a mapping"));
                None
            }
        }
    }

    fn case(&mut self, index: usize, node: &Node) -> Option<Case> {
        let line = node.span().start().map_or(1, |marker| marker.line());
        let Some(case) = node.as_mapping() else {
            self.error(node.span(), "a case is a mapping (`tool:`, `expect:` ...)");
            return None;
        };
        let before = self.errors.len();
        for (key, _) in case.iter() {
            if !CASE_KEYS.contains(&key.as_str()) {
                self.error(
                    key.span(),
                    format!(
                        "unknown key `{}` in a case (known: {})",
                        key.as_str(),
                        CASE_KEYS.join(", ")
                    ),
                );
            }
        }
        let name = self
            .text(case, "name")
            .unwrap_or_else(|| format!("case {}", index + 1));
        let expect = match case.get_node("expect") {
            None => {
                self.error(
                    case.span(),
                    "the case has no `expect:` (allow, deny or ask)",
                );
                None
            }
            Some(node) => {
                let written = node.as_scalar().map(|scalar| scalar.as_str());
                // Only the three names: the log's action names are not a table's words.
                match written
                    .filter(|written| Verdict::NAMES.contains(written))
                    .and_then(Verdict::named)
                {
                    Some(verdict) => Some(verdict),
                    None => {
                        self.error(
                            node.span(),
                            format!(
                                "`expect` is allow, deny or ask, not `{}`",
                                written.unwrap_or("a collection")
                            ),
                        );
                        None
                    }
                }
            }
        };
        let reason = self.text(case, "reason");
        let event = self.event(case);
        if self.errors.len() > before {
            return None;
        }
        Some(Case {
            name,
            line,
            event: event?,
            expect: expect?,
            reason,
        })
    }

    /// The case's event: a tool call, an event with its data, or an agent's own hook input.
    fn event(&mut self, case: &MarkedMappingNode) -> Option<CaseEvent> {
        let agent_name = self.text(case, "agent");
        let agent = match &agent_name {
            Some(name) => match crate::interop::agent(name) {
                Some(agent) => Some(agent),
                None => {
                    let known: Vec<&str> = crate::interop::AGENTS
                        .iter()
                        .map(|agent| agent.name())
                        .collect();
                    let span = case.get_node("agent").map_or(*case.span(), |n| *n.span());
                    self.error(
                        &span,
                        format!("unknown agent `{name}` (known: {})", known.join(", ")),
                    );
                    return None;
                }
            },
            None => None,
        };
        if let Some(hook) = case.get_node("hook") {
            for key in ["tool", "input", "event", "data"] {
                if let Some(node) = case.get_node(key) {
                    self.error(
                        node.span(),
                        format!("`{key}` and `hook` do not go together: `hook` is the whole input"),
                    );
                }
            }
            let input = self.object(case, "hook")?;
            let Some(agent) = agent else {
                self.error(
                    hook.span(),
                    "`hook` is an agent's own hook input: name the agent (`agent: claude`)",
                );
                return None;
            };
            return match agent.event_in(&Value::Object(input).to_string()) {
                Ok(mut mapped) => {
                    mapped.name_agent(agent.name());
                    Some(CaseEvent {
                        event: mapped.event,
                        data: mapped.data,
                    })
                }
                Err(error) => {
                    self.error(
                        hook.span(),
                        format!(
                            "`hook`: {} cannot read it: {error}",
                            agent.profile().display_name
                        ),
                    );
                    None
                }
            };
        }
        let tool = self.text(case, "tool");
        let mut data = self.object(case, "data").unwrap_or_default();
        if let Some(tool) = tool {
            data.insert(TOOL_NAME.to_owned(), Value::from(tool));
            let input = self.object(case, "input").unwrap_or_default();
            data.insert(TOOL_INPUT.to_owned(), Value::Object(input));
        } else if let Some(node) = case.get_node("input") {
            self.error(node.span(), "`input` is a tool's input: name the `tool`");
        }
        if let Some(agent) = agent {
            data.insert(
                crate::interop::AGENT_FIELD.to_owned(),
                Value::from(agent.name()),
            );
        }
        let event = match case.get_node("event") {
            Some(node) => {
                let written = node.as_scalar().map(|scalar| scalar.as_str());
                match written.map(crate::interop::event_named) {
                    Some(Ok(event)) => event,
                    Some(Err(error)) => {
                        self.error(node.span(), format!("`event`: {error}"));
                        return None;
                    }
                    None => {
                        self.error(node.span(), "`event` is an event's name");
                        return None;
                    }
                }
            }
            None if data.contains_key(TOOL_NAME) => hooks_core::events::TOOL_PRE.to_owned(),
            None => {
                self.error(
                    case.span(),
                    "the case names no event: give `tool:` (a tool call), `event:` or `hook:`",
                );
                return None;
            }
        };
        Some(CaseEvent {
            event,
            data: Value::Object(data),
        })
    }
}

impl CaseTable {
    /// Reads the table in `text`, naming `file` in its errors; its `config:` is relative to
    /// `file`'s directory.
    pub fn parse(text: &str, file: &Path) -> Result<Self, ConfigErrors> {
        let mut reader = Reader {
            file: file.to_path_buf(),
            errors: Vec::new(),
        };
        let whole = |message: String| {
            ConfigErrors(vec![ConfigError {
                file: file.to_path_buf(),
                line: 1,
                column: 1,
                message,
            }])
        };
        let root = crate::load::parse(text).map_err(|error| {
            let mut errors = whole(format!("not valid YAML: {error}"));
            (errors.0[0].line, errors.0[0].column) = crate::load::load_error_marker(&error);
            errors
        })?;
        let Some(root) = root.as_mapping() else {
            return Err(whole(
                "a table of cases is a mapping with `cases:` (and `config:`)".to_owned(),
            ));
        };
        for (key, _) in root.iter() {
            if !["config", "cases"].contains(&key.as_str()) {
                reader.error(
                    key.span(),
                    format!(
                        "unknown key `{}` in a table of cases (known: config, cases)",
                        key.as_str()
                    ),
                );
            }
        }
        let dir = file.parent().unwrap_or(Path::new(""));
        let config = match root.get_node("config") {
            Some(node) => match node.as_scalar() {
                Some(scalar) if !scalar.as_str().is_empty() => dir.join(scalar.as_str()),
                _ => {
                    reader.error(node.span(), "`config` is the hooks file's path");
                    dir.join(DEFAULT_CONFIG)
                }
            },
            None => dir.join(DEFAULT_CONFIG),
        };
        let mut cases = Vec::new();
        match root.get_node("cases") {
            None => reader.error(
                root.span(),
                "the table has no `cases:`: a table that tests nothing would pass anyway",
            ),
            Some(node) => match node.as_sequence() {
                Some(items) if items.is_empty() => reader.error(
                    node.span(),
                    "`cases` is empty: a table that tests nothing would pass anyway",
                ),
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if let Some(case) = reader.case(index, item) {
                            cases.push(case);
                        }
                    }
                }
                None if node.as_scalar().is_some_and(|s| s.as_str().is_empty()) => reader.error(
                    node.span(),
                    "`cases` is empty: a table that tests nothing would pass anyway",
                ),
                None => reader.error(
                    node.span(),
                    "`cases` is a list of cases (`- tool: Bash ...`)",
                ),
            },
        }
        if reader.errors.is_empty() {
            Ok(CaseTable {
                file: file.to_path_buf(),
                config,
                cases,
            })
        } else {
            reader
                .errors
                .sort_by_key(|error| (error.line, error.column));
            Err(ConfigErrors(reader.errors))
        }
    }

    /// Reads the table in `file`.
    pub fn load(file: &Path) -> Result<Self, ConfigErrors> {
        let text = std::fs::read_to_string(file).map_err(|error| {
            ConfigErrors(vec![ConfigError {
                file: file.to_path_buf(),
                line: 1,
                column: 1,
                message: format!("cannot read the table: {error}"),
            }])
        })?;
        CaseTable::parse(&text, file)
    }

    /// Runs every case through the hooks file alone, loaded with the modules of `catalog`.
    pub async fn run(&self, catalog: &ModuleCatalog) -> Result<TableReport, TableError> {
        self.run_with(&LayerPaths::none(), catalog, None::<MemoryState>)
            .await
    }

    /// Runs every case as the guard decides it: the hooks file under the managed and user
    /// files of `layers`, loaded with the modules of `catalog`, with the sessions' state in
    /// `sessions` (read, never written).
    pub async fn run_with(
        &self,
        layers: &LayerPaths,
        catalog: &ModuleCatalog,
        sessions: Option<impl StateBackend>,
    ) -> Result<TableReport, TableError> {
        let stack =
            PolicyStack::load(layers, &self.config, catalog).map_err(|error| match error {
                LayersError::Broken {
                    level: Level::Project,
                    errors,
                } => TableError::Config(errors),
                other => TableError::Layers(other),
            })?;
        let trial = Trial::mount(&stack, sessions).map_err(|problem| TableError::Mount {
            file: self.config.clone(),
            problem,
        })?;
        let mut results = Vec::with_capacity(self.cases.len());
        for case in &self.cases {
            let outcome = trial.emit(&case.event.event, case.event.data.clone()).await;
            let got = Verdict::of(&outcome);
            let reason = outcome.result.reason.clone();
            let reason_matches = match (&case.reason, &reason) {
                (None, _) => true,
                (Some(piece), Some(reason)) => reason.contains(piece.as_str()),
                (Some(_), None) => false,
            };
            results.push(CaseResult {
                name: case.name.clone(),
                line: case.line,
                expected: case.expect,
                expected_reason: case.reason.clone(),
                got,
                reason,
                decided_by: outcome.decided_by.as_deref().map(str::to_owned),
                failures: outcome.failures.iter().map(ToString::to_string).collect(),
                passed: got == case.expect && reason_matches,
            });
        }
        Ok(TableReport {
            table: self.file.clone(),
            config: self.config.clone(),
            cases: results,
        })
    }
}

/// The tables at `path`: the file itself, or in a directory every `*.test.yaml` and
/// `*.test.yml` file, sorted by name.
pub fn tables_at(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut tables: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|file| {
            file.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(".test.yaml") || name.ends_with(".test.yml"))
        })
        .collect();
    tables.sort();
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CaseTable, ConfigErrors> {
        CaseTable::parse(text, Path::new("dir/policy.test.yaml"))
    }

    #[test]
    fn a_tool_case_is_a_pre_tool_call() {
        let table = parse(
            "cases:\n  - tool: Bash\n    input: {command: ls}\n    agent: codex\n    expect: allow\n",
        )
        .unwrap();
        assert_eq!(table.config, Path::new("dir/hooks.yaml"));
        let case = &table.cases[0];
        assert_eq!((case.name.as_str(), case.line), ("case 1", 2));
        assert_eq!(case.event.event, "tool:pre");
        assert_eq!(case.event.data["tool_input"]["command"], "ls");
        assert_eq!(case.event.data["agent"], "codex");
    }

    #[test]
    fn an_agents_input_is_mapped_as_its_adapter_maps_it() {
        let table = parse(
            "config: other.yaml\ncases:\n  - agent: claude\n    hook: {hook_event_name: UserPromptSubmit, prompt: hi}\n    expect: ask\n",
        )
        .unwrap();
        assert_eq!(table.config, Path::new("dir/other.yaml"));
        assert_eq!(table.cases[0].event.event, "prompt:submit");
        assert_eq!(table.cases[0].event.data["agent"], "claude");
    }

    #[test]
    fn mistakes_are_placed() {
        let errors = parse(
            "cases:\n  - tool: Bash\n    expect: maybe\n  - event: NoSuchEvent\n    expect: deny\n    colour: red\n",
        )
        .unwrap_err();
        let places: Vec<(usize, usize)> = errors.0.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(places, [(3, 13), (4, 12), (6, 5)], "{errors}");
        assert!(errors.0[0].message.contains("not `maybe`"), "{errors}");
        assert!(
            errors.0[2].message.contains("unknown key `colour`"),
            "{errors}"
        );
    }

    #[test]
    fn a_table_without_cases_is_refused() {
        for text in ["cases: []\n", "config: hooks.yaml\n", "cases:\n"] {
            let errors = parse(text).unwrap_err();
            assert!(
                errors.to_string().contains("tests nothing"),
                "{text}: {errors}"
            );
        }
    }
}
