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
        use crate::policy::cedar::{CedarPolicies, Part, SchemaText, Sources};

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
        let (schema, generated) = match mapping.get_node("schema") {
            Some(node) => match self.generated_schema(node, context) {
                Some(parts) => (None, Some(parts?)),
                None => (Some(self.policy_file(mapping, "schema", context)?), None),
            },
            None => (None, None),
        };
        let schema_place = mapping.get_node("schema").map(|node| position(node.span()));
        let entities = match mapping.get_node("entities") {
            Some(_) => Some(self.policy_file(mapping, "entities", context)?),
            None => None,
        };
        let schema_text = match (&schema, generated) {
            (Some((_, text)), _) => Some(SchemaText::Written(text)),
            (None, Some(parts)) => Some(SchemaText::Generated(parts)),
            (None, None) => None,
        };
        let compiled = CedarPolicies::compile(Sources {
            policies: &policies,
            schema: schema_text,
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
                            // A generated schema's problem is the `schema:` key's.
                            let place = match problem.part {
                                Part::Schema => schema_place.unwrap_or((start_line, start_column)),
                                _ => (start_line, start_column),
                            };
                            let file = self.file.clone();
                            self.error_in(file, place, message);
                        }
                    }
                }
                None
            }
        }
    }

    /// The fragments of a `schema:` that names generated schemas (`builtin`, `mcp:<server>`,
    /// or a list of them): `None` when it names a file instead, `Some(None)` when it has a
    /// mistake (reported).
    #[cfg(feature = "cedar")]
    fn generated_schema(&mut self, node: &Node, context: &str) -> Option<Option<Vec<String>>> {
        use crate::policy::cedar_schema::{BASE, BUILTIN, PINS_DIR, mcp_fragment, pin_file};

        let generated = |name: &str| name == "builtin" || name.starts_with("mcp:");
        let names: Vec<&marked_yaml::types::MarkedScalarNode> = match node {
            Node::Scalar(scalar) if generated(scalar.as_str()) => vec![scalar],
            Node::Scalar(_) => return None,
            Node::Sequence(items) => {
                let scalars: Vec<_> = items.iter().filter_map(Node::as_scalar).collect();
                let all_generated = scalars.len() == items.len()
                    && !scalars.is_empty()
                    && scalars.iter().all(|name| generated(name.as_str()));
                if !all_generated {
                    self.error(
                        node.span(),
                        format!(
                            "{context}: a `schema:` list names generated schemas (`builtin`, \
                             `mcp:<server>`); a schema file stands alone"
                        ),
                    );
                    return Some(None);
                }
                scalars
            }
            Node::Mapping(_) => {
                self.error(
                    node.span(),
                    format!(
                        "{context}: `schema` is a file, `builtin`, `mcp:<server>` or a list of \
                         those two"
                    ),
                );
                return Some(None);
            }
        };
        let mut parts = vec![BASE.to_owned()];
        let mut broken = false;
        for name in names {
            let text = name.as_str();
            if text == "builtin" {
                parts.push(BUILTIN.to_owned());
                continue;
            }
            let server = text.trim_start_matches("mcp:");
            let file = pin_file(&self.context.resolve(Path::new(PINS_DIR)), server);
            let fragment = std::fs::read_to_string(&file)
                .map_err(|error| {
                    format!(
                        "cannot read the pins of `{server}` (`{}`): {error}; the MCP proxy \
                         writes them at the server's first tool listing",
                        file.display()
                    )
                })
                .and_then(|pins| {
                    mcp_fragment(server, &pins)
                        .map_err(|problem| format!("`{}`: {problem}", file.display()))
                });
            match fragment {
                Ok(fragment) => parts.push(fragment.to_string()),
                Err(problem) => {
                    broken = true;
                    self.error(
                        name.span(),
                        format!("{context}: `schema: {text}`: {problem}"),
                    );
                }
            }
        }
        Some((!broken).then_some(parts))
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
