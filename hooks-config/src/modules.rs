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
use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
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

/// Builds the module `name` (its key in the file) from `node`, its configuration.
pub(crate) fn build(
    catalog: &ModuleCatalog,
    context: &ModuleContext,
    name: &MarkedScalarNode,
    node: &Node,
) -> Result<ConfiguredModule, ModuleProblem> {
    let config = match node {
        // `redaction:` with nothing after it is an empty configuration.
        Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty() => {
            Value::Object(Map::new())
        }
        Node::Mapping(_) => json_of(node),
        other => {
            return Err(ModuleProblem {
                span: *other.span(),
                message: format!(
                    "module `{}` takes a mapping of its settings (`{{}}` for none)",
                    name.as_str()
                ),
            });
        }
    };
    match catalog.build(name.as_str(), &config, context) {
        Ok(module) => Ok(ConfiguredModule {
            name: name.as_str().to_owned(),
            line: name.span().start().map_or(1, |marker| marker.line()),
            config,
            module: Arc::from(module),
        }),
        Err(error) => {
            let span = match (&error, node) {
                (CatalogError::Config { reason, .. }, Node::Mapping(mapping)) => {
                    unknown_field(reason)
                        .and_then(|field| key_span(mapping, field))
                        .unwrap_or(*name.span())
                }
                _ => *name.span(),
            };
            Err(ModuleProblem {
                span,
                message: error.to_string(),
            })
        }
    }
}

/// The field serde names in an "unknown field `x`" error.
fn unknown_field(reason: &str) -> Option<&str> {
    let rest = &reason[reason.find("unknown field `")? + "unknown field `".len()..];
    rest.split('`').next()
}

/// Where the key `field` is, in `mapping` or any mapping inside it.
fn key_span(mapping: &MarkedMappingNode, field: &str) -> Option<Span> {
    mapping.iter().find_map(|(key, value)| {
        if key.as_str() == field {
            return Some(*key.span());
        }
        match value {
            Node::Mapping(inner) => key_span(inner, field),
            Node::Sequence(items) => items.iter().find_map(|item| match item {
                Node::Mapping(inner) => key_span(inner, field),
                _ => None,
            }),
            Node::Scalar(_) => None,
        }
    })
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
