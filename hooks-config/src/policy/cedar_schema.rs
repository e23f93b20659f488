//! The Cedar schemas a `type: cedar` entry can name instead of writing one: `builtin`, the
//! built-in tools' calls (shipped with the crate, `schemas/builtin.cedarschema`), and
//! `mcp:<server>`, an MCP server's tools generated from the tool list the MCP proxy pinned for
//! it (`.hooks/mcp-pins/<server>.json` beside the hooks file). Both sit on the entity types
//! every request uses (`schemas/base.cedarschema`).
//!
//! An MCP tool becomes the action `mcp__<server>__<tool>` (the name the tool calls carry),
//! whose `context.input` is a record typed from the tool's `inputSchema`: `string` (and
//! `enum`s of strings) as `String`, `integer` and `number` as `Long` (a fractional argument
//! makes a policy that reads it undecided: Cedar has no decimals), `boolean` as `Bool`, arrays
//! as sets, objects with `properties` as records; a required property is a required
//! attribute. A property of another type (an object without `properties`, a union) is left
//! out, so a policy that reads it is reported as naming an unknown attribute.
//!
//! The official `cedar-policy-mcp-schema-generator` crate is not used: it pins another
//! version of `cedar-policy-core` than `cedar-policy` brings, needs a newer Rust than this
//! workspace, and names the principal, resource and context its own way, not as our requests
//! do.

use std::path::Path;

use serde_json::{Map, Value, json};

/// The entity types of every request.
pub(crate) const BASE: &str = include_str!("schemas/base.cedarschema");

/// The built-in tools' calls.
pub(crate) const BUILTIN: &str = include_str!("schemas/builtin.cedarschema");

/// Where a project's MCP pins are, under the directory of its hooks file (as the MCP proxy
/// keeps them).
pub(crate) const PINS_DIR: &str = ".hooks/mcp-pins";

/// The pin file of `server` in `dir`: its name with every character other than a letter, a
/// digit, `_`, `-` or `.` made `_` (as the MCP proxy names it).
pub(crate) fn pin_file(dir: &Path, server: &str) -> std::path::PathBuf {
    let stem: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{}.json", stem.trim_start_matches('.')))
}

/// The name the hooks see the MCP tool `tool` of `server` by: `mcp__<server>__<tool>`, the
/// server's name with every character other than a letter, a digit, `_` or `-` made `_`.
fn hook_tool_name(server: &str, tool: &str) -> String {
    let server: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("mcp__{server}__{tool}")
}

/// A JSON Schema `schema` as a Cedar type (in Cedar's JSON schema form); `None` when it has
/// no Cedar equivalent.
fn cedar_type(schema: &Value) -> Option<Value> {
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        // `["string", "null"]`: the one type besides null.
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|kind| *kind != "null")
                .collect();
            match named.as_slice() {
                [one] => *one,
                _ => return None,
            }
        }
        _ if schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(Value::is_string)) =>
        {
            "string"
        }
        _ => return None,
    };
    Some(match kind {
        "string" => json!({"type": "String"}),
        "integer" | "number" => json!({"type": "Long"}),
        "boolean" => json!({"type": "Boolean"}),
        "array" => json!({"type": "Set", "element": cedar_type(schema.get("items")?)?}),
        "object" => record(schema)?,
        _ => return None,
    })
}

/// An object schema with `properties` as a Cedar record; `None` without them.
fn record(schema: &Value) -> Option<Value> {
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let attributes: Map<String, Value> = properties
        .iter()
        .filter_map(|(name, property)| {
            let mut typed = cedar_type(property)?;
            if let Value::Object(fields) = &mut typed {
                fields.insert(
                    "required".to_owned(),
                    Value::Bool(required.contains(&name.as_str())),
                );
            }
            Some((name.clone(), typed))
        })
        .collect();
    Some(json!({"type": "Record", "attributes": attributes}))
}

/// The schema fragment (Cedar's JSON form) of the MCP server `server` from its pin file's
/// text: an action for each pinned tool (not those held back); the problem when the text is
/// not a pin file.
pub(crate) fn mcp_fragment(server: &str, pins: &str) -> Result<Value, String> {
    let pins: Value =
        serde_json::from_str(pins).map_err(|error| format!("not a pin file: {error}"))?;
    let tools = pins
        .get("tools")
        .and_then(Value::as_object)
        .ok_or("not a pin file: it has no `tools`")?;
    let empty = json!({"type": "Record", "attributes": {}});
    let actions: Map<String, Value> = tools
        .iter()
        .map(|(name, definition)| {
            let input = definition
                .get("inputSchema")
                .and_then(record)
                .unwrap_or_else(|| empty.clone());
            let applies = json!({
                "appliesTo": {
                    "principalTypes": ["Agent"],
                    "resourceTypes": ["Tool"],
                    "context": {"type": "Record", "attributes": {"input": input}},
                }
            });
            (hook_tool_name(server, name), applies)
        })
        .collect();
    Ok(json!({"": {"entityTypes": {}, "actions": actions}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_tool_becomes_an_action_typed_from_its_input_schema() {
        let pins = json!({"server": "my.docs", "tools": {"search": {"name": "search", "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["fast", "full"]},
                "extra": {"type": "object"},
            },
            "required": ["query"],
        }}}, "pending": {"evil": {"definition": {}, "why": "new"}}});
        let fragment = mcp_fragment("my.docs", &pins.to_string()).unwrap();
        let actions = fragment[""]["actions"].as_object().unwrap();
        assert_eq!(
            actions.keys().collect::<Vec<_>>(),
            ["mcp__my_docs__search"],
            "held-back tools are not in it"
        );
        let input = &actions["mcp__my_docs__search"]["appliesTo"]["context"]["attributes"]["input"]
            ["attributes"];
        assert_eq!(input["query"], json!({"type": "String", "required": true}));
        assert_eq!(input["limit"], json!({"type": "Long", "required": false}));
        assert_eq!(input["tags"]["element"], json!({"type": "String"}));
        assert_eq!(input["mode"]["type"], "String");
        assert!(
            input.get("extra").is_none(),
            "an untyped object has no equivalent"
        );
    }

    #[test]
    fn a_file_that_is_not_pins_is_said() {
        assert!(mcp_fragment("x", "[]").unwrap_err().contains("no `tools`"));
        assert!(
            mcp_fragment("x", "{")
                .unwrap_err()
                .contains("not a pin file")
        );
    }

    #[test]
    fn pin_files_are_named_as_the_proxy_names_them() {
        assert_eq!(
            pin_file(Path::new("p"), "my server/1"),
            Path::new("p/my_server_1.json")
        );
    }
}
