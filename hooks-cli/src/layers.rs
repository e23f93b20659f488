//! The policy layers of a hooks file as `hooks check` and `hooks doctor` show them: which
//! managed, user and project files were looked for and loaded, where each rule comes from,
//! and what a lower file tried that the managed policy did not let it do.

use std::path::PathBuf;

use hooks_config::PolicyStack;
use serde::Serialize;

/// The layers of one hooks file.
#[derive(Debug, Clone, Serialize)]
pub struct LayersView {
    /// The hooks file (the project's layer) they were loaded for.
    pub hooks_file: PathBuf,
    /// Each file looked for or loaded, managed first.
    pub layers: Vec<LayerView>,
    /// What lower files tried against the managed policy, each with its place.
    pub warnings: Vec<String>,
}

/// One level's file.
#[derive(Debug, Clone, Serialize)]
pub struct LayerView {
    /// `managed`, `user` or `project`.
    pub level: &'static str,
    /// The file.
    pub file: PathBuf,
    /// Whether it was there and loaded (a missing managed or user file is no layer).
    pub loaded: bool,
    /// Its modules and hooks, in file order.
    pub rules: Vec<RuleView>,
}

/// One module or hook, and where it is.
#[derive(Debug, Clone, Serialize)]
pub struct RuleView {
    /// `module`, or the hook's type.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Its line in the file.
    pub line: usize,
}

impl LayersView {
    /// The view of `stack`, loaded for `hooks_file`.
    pub fn of(hooks_file: PathBuf, stack: &PolicyStack) -> Self {
        let origins = stack.origins();
        let rules_of = |file: &std::path::Path| -> Vec<RuleView> {
            origins
                .iter()
                .filter(|origin| origin.file == file)
                .map(|origin| RuleView {
                    kind: origin.kind,
                    name: origin.name.to_owned(),
                    line: origin.line,
                })
                .collect()
        };
        let mut layers: Vec<LayerView> = stack
            .searched()
            .filter(|(_, _, found)| !found)
            .map(|(level, file, _)| LayerView {
                level: level.name(),
                file: file.to_path_buf(),
                loaded: false,
                rules: Vec::new(),
            })
            .collect();
        layers.extend(stack.layers().iter().map(|layer| LayerView {
            level: layer.level.name(),
            file: layer.config.file.clone(),
            loaded: true,
            rules: rules_of(&layer.config.file),
        }));
        // Managed, user, project, as they apply.
        let rank = |level: &str| {
            ["managed", "user", "project"]
                .iter()
                .position(|l| *l == level)
        };
        layers.sort_by_key(|layer| rank(layer.level));
        LayersView {
            hooks_file,
            layers,
            warnings: stack.warnings().iter().map(ToString::to_string).collect(),
        }
    }

    /// The layers for a person, each line indented by `indent`.
    pub fn text(&self, indent: &str) -> String {
        let mut text = String::new();
        for layer in &self.layers {
            let state = if layer.loaded { "" } else { " (not present)" };
            text.push_str(&format!(
                "{indent}{:<8} {}{state}\n",
                layer.level,
                layer.file.display()
            ));
            for rule in &layer.rules {
                text.push_str(&format!(
                    "{indent}  {} `{}` (line {})\n",
                    rule.kind, rule.name, rule.line
                ));
            }
        }
        text
    }
}
