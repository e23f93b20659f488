//! The policy entries (`type: cedar`, `type: rego`): their files are read and their policies
//! compiled while the hooks file loads, so that a mistake in a policy is reported like every
//! other mistake of the file, at its file, line and column.

#[cfg(any(feature = "cedar", feature = "rego"))]
use std::path::{Path, PathBuf};

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;

use hooks_core::events::fields::TOOL_NAME;

use super::Loader;
use crate::PolicyHook;
#[cfg(any(feature = "cedar", feature = "rego"))]
use {super::position, crate::ConfigError};

impl Loader<'_> {
    /// The policies of a `cedar` or `rego` entry, compiled.
    pub(super) fn policy(
        &mut self,
        mapping: &MarkedMappingNode,
        kind: &str,
        event: &str,
        context: &str,
    ) -> Option<PolicyHook> {
        self.carries_tool_calls(mapping, kind, event);
        match kind {
            #[cfg(feature = "cedar")]
            "cedar" => self.cedar(mapping, context),
            #[cfg(feature = "rego")]
            "rego" => self.rego(mapping, context),
            _ => {
                let _ = context;
                let span = *mapping.get_node("type").map_or(mapping.span(), Node::span);
                self.error(
                    &span,
                    format!(
                        "`type: {kind}` needs the `{kind}` feature of hooks-config, which this \
                         build lacks"
                    ),
                );
                None
            }
        }
    }

    /// Policies decide on tool calls: under an event that never carries one they would never
    /// say anything, and a guard that never fires must not pass as one.
    fn carries_tool_calls(&mut self, mapping: &MarkedMappingNode, kind: &str, event: &str) {
        let Some(fields) = hooks_core::events::fields::of(event) else {
            return;
        };
        if fields.fields().contains(&TOOL_NAME) || event == hooks_core::events::APPROVAL_REQUIRED {
            return;
        }
        let span = *mapping.get_node("type").map_or(mapping.span(), Node::span);
        self.error(
            &span,
            format!(
                "a `{kind}` hook decides on tool calls, and `{event}` carries none: list it \
                 under a tool event (PreToolUse)"
            ),
        );
    }

    /// An error in `file` (not the hooks file) at `place`.
    #[cfg(any(feature = "cedar", feature = "rego"))]
    fn error_in(&mut self, file: PathBuf, place: (usize, usize), message: String) {
        self.errors.push(ConfigError {
            file,
            line: place.0,
            column: place.1,
            message,
        });
    }

    /// The text of the file named by `key`, and its path; `None` when absent or unreadable
    /// (reported).
    #[cfg(any(feature = "cedar", feature = "rego"))]
    fn policy_file(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
    ) -> Option<(PathBuf, String)> {
        let node = mapping.get_node(key)?;
        let name = self.string(mapping, key, context)?;
        let path = self.context.resolve(Path::new(&name));
        match std::fs::read_to_string(&path) {
            Ok(text) => Some((path, text)),
            Err(error) => {
                self.error(
                    node.span(),
                    format!("`{key}`: cannot read `{}`: {error}", path.display()),
                );
                None
            }
        }
    }

    #[cfg(feature = "cedar")]
    fn cedar(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<PolicyHook> {
        use crate::policy::cedar::{CedarPolicies, Part, Sources};

        let written = self.required_string(mapping, "policies", context)?;
        let policies_node = mapping.get_node("policies")?;
        let (start_line, start_column) = position(policies_node.span());
        // Policies are text with parentheses and semicolons; a file name has neither.
        let inline = written.contains(['(', ';', '\n']);
        let (policies_file, policies) = if inline {
            (None, written)
        } else {
            let (path, text) = self.policy_file(mapping, "policies", context)?;
            (Some(path), text)
        };
        let schema = match mapping.get_node("schema") {
            Some(_) => Some(self.policy_file(mapping, "schema", context)?),
            None => None,
        };
        let entities = match mapping.get_node("entities") {
            Some(_) => Some(self.policy_file(mapping, "entities", context)?),
            None => None,
        };
        let compiled = CedarPolicies::compile(Sources {
            policies: &policies,
            schema: schema.as_ref().map(|(_, text)| text.as_str()),
            entities: entities.as_ref().map(|(_, text)| text.as_str()),
        });
        match compiled {
            Ok(compiled) => {
                let origin = policies_file.map_or_else(
                    || format!("{} inline policies", compiled.len()),
                    |path| path.display().to_string(),
                );
                Some(PolicyHook::new("cedar", origin, compiled))
            }
            Err(problems) => {
                for problem in problems {
                    let message = format!("{context}: Cedar: {}", problem.message);
                    let file = match problem.part {
                        Part::Policies => policies_file.clone(),
                        Part::Schema => schema.as_ref().map(|(path, _)| path.clone()),
                        Part::Entities => entities.as_ref().map(|(path, _)| path.clone()),
                    };
                    match (file, problem.place) {
                        (Some(file), place) => {
                            self.error_in(file, place.unwrap_or((1, 1)), message)
                        }
                        // Inline policies: the scalar's text starts at its place (a block
                        // scalar's on the line after its key, its indentation removed from
                        // every line alike).
                        (None, Some((line, column))) => {
                            let place = (start_line + line - 1, start_column + column - 1);
                            let file = self.file.clone();
                            self.error_in(file, place, message);
                        }
                        (None, None) => {
                            let file = self.file.clone();
                            self.error_in(file, (start_line, start_column), message);
                        }
                    }
                }
                None
            }
        }
    }

    #[cfg(feature = "rego")]
    fn rego(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<PolicyHook> {
        use crate::policy::rego::{RegoPolicies, files};

        let package = self.string(mapping, "package", context);
        let written = self.required_string(mapping, "policies", context)?;
        let span = *mapping.get_node("policies")?.span();
        let path = self.context.resolve(Path::new(&written));
        let files = match files(&path) {
            Ok(files) if files.is_empty() => {
                self.error(
                    &span,
                    format!("`policies`: `{}` holds no `.rego` file", path.display()),
                );
                return None;
            }
            Ok(files) => files,
            Err(error) => {
                self.error(
                    &span,
                    format!("`policies`: cannot read `{}`: {error}", path.display()),
                );
                return None;
            }
        };
        match RegoPolicies::compile(&files, package.as_deref()) {
            Ok(compiled) => Some(PolicyHook::new(
                "rego",
                path.display().to_string(),
                compiled,
            )),
            Err(problems) => {
                for problem in problems {
                    let message = format!("{context}: Rego: {}", problem.message);
                    match problem.file {
                        Some(file) => self.error_in(
                            PathBuf::from(file),
                            problem.place.unwrap_or((1, 1)),
                            message,
                        ),
                        None => self.error(&span, message),
                    }
                }
                None
            }
        }
    }
}

#[cfg(all(test, not(feature = "cedar")))]
mod tests {
    use std::path::Path;

    #[test]
    fn a_build_without_the_feature_names_it() {
        let yaml = "hooks:\n  PreToolUse:\n    - type: cedar\n      policies: guard.cedar\n";
        let errors = crate::load_str(yaml, Path::new("hooks.yaml"), Path::new(".")).unwrap_err();
        assert_eq!((errors.0[0].line, errors.0[0].column), (3, 13), "{errors}");
        assert!(
            errors.0[0].message.contains("the `cedar` feature"),
            "{errors}"
        );
    }
}
