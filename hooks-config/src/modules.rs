//! The `modules:` section of a hooks file: modules mounted by name with their configuration.
//!
//! ```yaml
//! modules:
//!   safety: {workspace: "."}
//!   redaction: {}
//!   logging: {path: ".hooks/events.jsonl"}
//! ```
//!
//! Names come from a [`ModuleCatalog`] (the standard modules, and whatever an application adds
//! to [`load_file_with`](crate::load_file_with)'s catalog). Each configuration is the module's
//! own serde configuration, read from YAML as YAML reads it (`true`, `12` and `~` are a
//! boolean, a number and null; quoted, they are strings). Modules are built when the file is
//! loaded, so that `hooks check` reports their mistakes with the file's other problems; they
//! write nothing until mounted.

use std::fmt;
use std::sync::Arc;

use hooks_core::HookModule;
use hooks_std::catalog::{CatalogError, ModuleCatalog, ModuleContext};
use marked_yaml::types::MarkedScalarNode;
use marked_yaml::{Node, Span};
use serde_json::{Map, Number, Value};

/// One module of a hooks file, built and ready to mount.
#[derive(Clone)]
pub struct ConfiguredModule {
    /// The module's name in the catalog (and the file).
    pub name: String,
    /// The line of its name in the file.
    pub line: usize,
    /// Its configuration, as JSON.
    pub config: Value,
    module: Arc<dyn HookModule>,
}

impl ConfiguredModule {
    /// The module itself.
    pub fn module(&self) -> &dyn HookModule {
        &*self.module
    }
}

impl fmt::Debug for ConfiguredModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfiguredModule")
            .field("name", &self.name)
            .field("line", &self.line)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A problem with one module, and where in the file it is.
pub(crate) struct ModuleProblem {
    pub(crate) span: Span,
    pub(crate) message: String,
}

/// How many problems of one module are reported before the rest of its settings are left
/// unchecked.
const MAX_PROBLEMS: usize = 16;

/// Builds the module `name` (its key in the file) from `node`, its configuration; every
/// problem found is reported.
///
/// A module's serde configuration stops at its first problem, and an unknown key (often a
/// misspelt one) would hide the rest: each unknown key is reported and left out, and the
/// configuration built again, so that a field it leaves missing is reported in the same run;
/// the setting that holds a mapping with a missing field is then left out in its turn, so
/// that the other settings are checked too.
pub(crate) fn build(
    catalog: &ModuleCatalog,
    context: &ModuleContext,
    name: &MarkedScalarNode,
    node: &Node,
) -> Result<ConfiguredModule, Vec<ModuleProblem>> {
    let mut config = match node {
        // `redaction:` with nothing after it is an empty configuration.
        Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty() => {
            Value::Object(Map::new())
        }
        Node::Mapping(_) => json_of(node),
        other => {
            return Err(vec![ModuleProblem {
                span: *other.span(),
                message: format!(
                    "module `{}` takes a mapping of its settings (`{{}}` for none)",
                    name.as_str()
                ),
            }]);
        }
    };
    let mut problems = Vec::new();
    // The mapping the last unknown key was left out of: a field missing next is missing there.
    let mut left_out_of: Option<Found> = None;
    while problems.len() < MAX_PROBLEMS {
        let error = match catalog.build(name.as_str(), &config, context) {
            Ok(module) if problems.is_empty() => {
                return Ok(ConfiguredModule {
                    name: name.as_str().to_owned(),
                    line: name.span().start().map_or(1, |marker| marker.line()),
                    config,
                    module: Arc::from(module),
                });
            }
            Ok(_) => break,
            Err(error) => error,
        };
        let message = error.to_string();
        let CatalogError::Config { reason, .. } = &error else {
            problems.push(ModuleProblem {
                span: *name.span(),
                message,
            });
            break;
        };
        if let Some(found) = unknown_field(reason)
            .and_then(|field| remove_key(&mut config, node, field, &mut Vec::new()))
        {
            problems.push(ModuleProblem {
                span: found.key,
                message,
            });
            left_out_of = Some(found);
            continue;
        }
        match left_out_of.take() {
            Some(found) if reason.contains("missing field") => {
                problems.push(ModuleProblem {
                    span: found.mapping,
                    message,
                });
                if !drop_setting(&mut config, &found.place) {
                    break;
                }
            }
            _ => {
                problems.push(ModuleProblem {
                    span: *name.span(),
                    message,
                });
                break;
            }
        }
    }
    Err(problems)
}

/// The field serde names in an "unknown field `x`" error.
fn unknown_field(reason: &str) -> Option<&str> {
    let rest = &reason[reason.find("unknown field `")? + "unknown field `".len()..];
    rest.split('`').next()
}

/// One step from a module's settings to a value inside them.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Item(usize),
}

/// A key left out of a module's settings.
struct Found {
    /// The key.
    key: Span,
    /// The mapping that held it (its first key).
    mapping: Span,
    /// Where that mapping is in the settings.
    place: Vec<Step>,
}

/// Removes the first key `field` still in `config` (walked with `node`, the YAML it was read
/// from, from `place`). Only keys are ever removed, so list items stay where the YAML has them.
fn remove_key(
    config: &mut Value,
    node: &Node,
    field: &str,
    place: &mut Vec<Step>,
) -> Option<Found> {
    match (config, node) {
        (Value::Object(object), Node::Mapping(mapping)) => {
            if object.contains_key(field) {
                let key = mapping.keys().find(|key| key.as_str() == field)?;
                object.remove(field);
                return Some(Found {
                    key: *key.span(),
                    mapping: mapping.keys().next().map_or(*key.span(), |k| *k.span()),
                    place: place.clone(),
                });
            }
            mapping.iter().find_map(|(key, value)| {
                place.push(Step::Key(key.as_str().to_owned()));
                let found = remove_key(object.get_mut(key.as_str())?, value, field, place);
                place.pop();
                found
            })
        }
        (Value::Array(items), Node::Sequence(nodes)) => items
            .iter_mut()
            .zip(nodes.iter())
            .enumerate()
            .find_map(|(index, (item, node))| {
                place.push(Step::Item(index));
                let found = remove_key(item, node, field, place);
                place.pop();
                found
            }),
        _ => None,
    }
}

/// Removes the setting that holds the value at `place` (its nearest enclosing key); false when
/// `place` is the settings themselves.
fn drop_setting(config: &mut Value, place: &[Step]) -> bool {
    let Some(last_key) = place.iter().rposition(|step| matches!(step, Step::Key(_))) else {
        return false;
    };
    let mut holder = &mut *config;
    for step in &place[..last_key] {
        let next = match step {
            Step::Key(key) => holder.get_mut(key.as_str()),
            Step::Item(index) => holder.get_mut(*index),
        };
        let Some(next) = next else { return false };
        holder = next;
    }
    match (&place[last_key], holder) {
        (Step::Key(key), Value::Object(object)) => object.remove(key).is_some(),
        _ => false,
    }
}

/// A YAML node as JSON, its plain scalars typed as YAML's core schema types them.
pub(crate) fn json_of(node: &Node) -> Value {
    match node {
        Node::Scalar(scalar) => scalar_of(scalar),
        Node::Sequence(items) => Value::Array(items.iter().map(json_of).collect()),
        Node::Mapping(mapping) => Value::Object(
            mapping
                .iter()
                .map(|(key, value)| (key.as_str().to_owned(), json_of(value)))
                .collect(),
        ),
    }
}

fn scalar_of(scalar: &MarkedScalarNode) -> Value {
    let text = scalar.as_str();
    if !scalar.may_coerce() {
        return Value::from(text);
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Some(boolean) = scalar.as_bool() {
        return Value::Bool(boolean);
    }
    if let Ok(integer) = text.parse::<i64>() {
        return Value::from(integer);
    }
    if let Ok(integer) = text.parse::<u64>() {
        return Value::from(integer);
    }
    let looks_numeric = text
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if looks_numeric && let Some(number) = text.parse::<f64>().ok().and_then(Number::from_f64) {
        return Value::Number(number);
    }
    Value::from(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(yaml: &str) -> Value {
        json_of(&crate::load::parse(yaml).expect("valid YAML"))
    }

    #[test]
    fn plain_scalars_are_typed_and_quoted_ones_stay_strings() {
        assert_eq!(
            json(
                "a: true\nb: 12\nc: -1.5\nd: ~\ne: text\nf: \"12\"\ng: 'true'\nh: [1, x]\ni: .inf\nj: 1e3\n"
            ),
            serde_json::json!({
                "a": true, "b": 12, "c": -1.5, "d": null, "e": "text",
                "f": "12", "g": "true", "h": [1, "x"], "i": ".inf", "j": 1000.0
            })
        );
    }

    #[test]
    fn the_unknown_field_of_a_serde_error_is_found() {
        assert_eq!(
            unknown_field("unknown field `workspase`, expected one of `workspace`"),
            Some("workspase")
        );
        assert_eq!(unknown_field("invalid type: string"), None);
    }
}
