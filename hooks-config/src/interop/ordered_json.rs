//! A JSON document that keeps its keys in the order the file has them.
//!
//! `hooks init` edits the user's own settings files: rewriting them with their keys sorted
//! (what `serde_json::Value` does without its `preserve_order` feature, which would change the
//! maps of the whole binary) would make the diff it prints, and the user's next review, noisy.

use std::fmt::{self, Write};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// A JSON value whose objects keep their order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in file order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of `key` in an object, inserted (at the end) as `default` when missing; `None`
    /// when `self` is not an object.
    pub fn entry(&mut self, key: &str, default: Json) -> Option<&mut Json> {
        let Json::Object(entries) = self else {
            return None;
        };
        let index = match entries.iter().position(|(k, _)| k == key) {
            Some(index) => index,
            None => {
                entries.push((key.to_owned(), default));
                entries.len() - 1
            }
        };
        Some(&mut entries[index].1)
    }

    /// The text, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// An object from `(key, value)` pairs.
    pub fn object<const N: usize>(entries: [(&str, Json); N]) -> Json {
        Json::Object(
            entries
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    /// The document as JSON text, indented by `indent` per level, ending with a newline.
    pub fn to_pretty(&self, indent: &str) -> String {
        let mut text = String::new();
        self.write(&mut text, indent, 0);
        text.push('\n');
        text
    }

    fn write(&self, out: &mut String, unit: &str, depth: usize) {
        let indent = |out: &mut String, depth: usize| out.push_str(&unit.repeat(depth));
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(number) => {
                let _ = write!(out, "{number}");
            }
            Json::String(text) => out.push_str(&quoted(text)),
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push_str("[\n");
                for (index, item) in items.iter().enumerate() {
                    indent(out, depth + 1);
                    item.write(out, unit, depth + 1);
                    out.push_str(if index + 1 < items.len() { ",\n" } else { "\n" });
                }
                indent(out, depth);
                out.push(']');
            }
            Json::Object(entries) if entries.is_empty() => out.push_str("{}"),
            Json::Object(entries) => {
                out.push_str("{\n");
                for (index, (key, value)) in entries.iter().enumerate() {
                    indent(out, depth + 1);
                    out.push_str(&quoted(key));
                    out.push_str(": ");
                    value.write(out, unit, depth + 1);
                    out.push_str(if index + 1 < entries.len() {
                        ",\n"
                    } else {
                        "\n"
                    });
                }
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

/// The indentation unit of a JSON text: that of its first indented line (two spaces when
/// nothing is indented), so that a rewritten file keeps its style.
pub fn indent_of(text: &str) -> &str {
    text.lines()
        .map(|line| &line[..line.len() - line.trim_start().len()])
        .find(|indent| !indent.is_empty())
        .unwrap_or("  ")
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Json, E> {
        Number::from_f64(value)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            // A repeated key: the last one wins, as in serde_json, in the first one's place.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_comes_back_in_its_own_order() {
        let text = "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null,\n    \"x\\\"y\"\n  ],\n  \"mid\": {},\n  \"n\": -2.5\n}\n";
        let json: Json = serde_json::from_str(text).expect("valid JSON");
        assert_eq!(json.to_pretty("  "), text);
    }

    #[test]
    fn entry_inserts_at_the_end_and_finds_what_is_there() {
        let mut json: Json = serde_json::from_str(r#"{"b": 1, "a": 2}"#).expect("valid JSON");
        json.entry("c", Json::Null);
        assert_eq!(
            json.entry("a", Json::Null),
            Some(&mut Json::Number(2.into()))
        );
        assert_eq!(
            json.to_pretty("\t"),
            "{\n\t\"b\": 1,\n\t\"a\": 2,\n\t\"c\": null\n}\n"
        );
        assert_eq!(Json::Bool(true).entry("x", Json::Null), None);
    }
}
