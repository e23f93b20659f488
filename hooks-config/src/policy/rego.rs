//! Rego policies (`type: rego`) on `regorus`: the event is the `input` document (its data,
//! with `event` set to the canonical event name), and the package's `deny` and `ask` rules,
//! sets of messages, decide: a message in `deny` denies, one in `ask` asks the user, both
//! empty or undefined is no opinion.

use std::path::Path;
use std::sync::Mutex;

use hooks_core::HookResult;
use regorus::{Engine, Value as RegoValue};
use serde_json::Value;

use super::PolicyEngine;

/// A mistake in a Rego entry's policies, at its file, line and column where regorus says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The policy file it is in, as it was added (`None`: the entry as a whole).
    pub(crate) file: Option<String>,
    /// Its line and column in that file, when known.
    pub(crate) place: Option<(usize, usize)>,
    /// What is wrong.
    pub(crate) message: String,
}

/// Compiled Rego policies and the rules that decide.
#[derive(Debug)]
pub(crate) struct RegoPolicies {
    engine: Engine,
    /// Copies of `engine` that earlier calls used and gave back: cloning the compiled policies
    /// for each call cost more than evaluating them, and one shared engine would make
    /// concurrent calls wait for each other.
    spare: Mutex<Vec<Engine>>,
    /// `data.<package>.deny`, when the package defines it.
    deny: Option<String>,
    /// `data.<package>.ask`, when the package defines it.
    ask: Option<String>,
}

/// How many spare engines are kept: about one per call running at once.
const SPARE_ENGINES: usize = 16;

/// A problem from one of regorus's errors, placed by its `--> file:line:column` line.
fn problem(error: &dyn std::fmt::Display, fallback: Option<&str>) -> Problem {
    let text = error.to_string();
    let place = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("--> "))
        .and_then(|at| {
            let mut parts = at.rsplitn(3, ':');
            let column = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            Some((parts.next()?.to_owned(), (line, column)))
        });
    let message = text
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(&text)
        .trim()
        .to_owned();
    match place {
        Some((file, place)) => Problem {
            file: Some(file),
            place: Some(place),
            message,
        },
        None => Problem {
            file: fallback.map(str::to_owned),
            place: None,
            message,
        },
    }
}

impl RegoPolicies {
    /// Compiles `files` (each a name and its text) and reads which of `deny` and `ask` the
    /// package defines: `package` (`hooks.guard`, or `data.hooks.guard`), or the one package
    /// the files declare.
    pub(crate) fn compile(
        files: &[(String, String)],
        package: Option<&str>,
    ) -> Result<Self, Vec<Problem>> {
        let mut engine = Engine::new();
        let mut problems = Vec::new();
        for (name, text) in files {
            if let Err(error) = engine.add_policy(name.clone(), text.clone()) {
                problems.push(problem(&error, Some(name)));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let whole = |message: String| {
            vec![Problem {
                file: None,
                place: None,
                message,
            }]
        };
        let package = match package {
            Some(package) if package.starts_with("data.") => package.to_owned(),
            Some(package) => format!("data.{package}"),
            None => {
                let mut packages = engine
                    .get_packages()
                    .map_err(|error| whole(error.to_string()))?;
                packages.sort();
                packages.dedup();
                match packages.as_slice() {
                    [one] => one.clone(),
                    [] => return Err(whole("the policies declare no package".to_owned())),
                    many => {
                        return Err(whole(format!(
                            "the policies declare several packages ({}): say which decides with \
                             `package`",
                            many.join(", ")
                        )));
                    }
                }
            }
        };
        // A rule the package does not define is an error of regorus's: it then has no say.
        let mut probe = engine.clone();
        probe.set_input(RegoValue::new_object());
        let mut defined = |rule: &str| {
            let path = format!("{package}.{rule}");
            probe.eval_rule(path.clone()).is_ok().then_some(path)
        };
        let deny = defined("deny");
        let ask = defined("ask");
        if deny.is_none() && ask.is_none() {
            return Err(whole(format!(
                "`{package}` defines neither `deny` nor `ask`: its policies could decide nothing"
            )));
        }
        Ok(RegoPolicies {
            engine,
            spare: Mutex::new(Vec::new()),
            deny,
            ask,
        })
    }

    /// The messages of the set rule `rule` for `input`.
    pub(crate) fn messages(engine: &mut Engine, rule: &str) -> Result<Vec<String>, String> {
        let value = engine
            .eval_rule(rule.to_owned())
            .map_err(|error| problem(&error, None).message)?;
        if value == RegoValue::Undefined {
            return Ok(Vec::new());
        }
        let set = value
            .as_set()
            .map_err(|_| format!("`{rule}` must be a set of messages"))?;
        Ok(set
            .iter()
            .map(|message| match message.as_string() {
                Ok(text) => text.to_string(),
                Err(_) => message.to_json_str().unwrap_or_default(),
            })
            .collect())
    }

    /// The engine with the event as its input.
    pub(crate) fn with_input(&self, event: &str, data: &Value) -> Engine {
        let mut input = data.clone();
        if let Value::Object(fields) = &mut input {
            fields
                .entry("event")
                .or_insert_with(|| Value::String(event.to_owned()));
        }
        let mut engine = self
            .spare
            .lock()
            .ok()
            .and_then(|mut spare| spare.pop())
            .unwrap_or_else(|| self.engine.clone());
        engine.set_input(RegoValue::from(input));
        engine
    }

    /// Keeps `engine`, which [`with_input`](Self::with_input) gave, for a later call.
    fn give_back(&self, engine: Engine) {
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < SPARE_ENGINES
        {
            spare.push(engine);
        }
    }
}

impl RegoPolicies {
    /// The answer of `engine`, its input set: a deny message, else an ask message.
    fn decide_with(&self, engine: &mut Engine) -> Result<HookResult, String> {
        if let Some(rule) = &self.deny {
            let messages = Self::messages(engine, rule)?;
            if !messages.is_empty() {
                return Ok(HookResult::deny(messages.join("; ")));
            }
        }
        if let Some(rule) = &self.ask {
            let messages = Self::messages(engine, rule)?;
            if !messages.is_empty() {
                return Ok(HookResult::ask(messages.join("; ")));
            }
        }
        Ok(HookResult::cont())
    }
}

impl PolicyEngine for RegoPolicies {
    fn decide(&self, event: &str, data: &Value) -> Result<HookResult, String> {
        let mut engine = self.with_input(event, data);
        let decided = self.decide_with(&mut engine);
        // An engine whose evaluation failed is dropped, not reused.
        if decided.is_ok() {
            self.give_back(engine);
        }
        decided
    }
}

/// The Rego files of `path`: the file itself, or the `.rego` files of the directory (and its
/// subdirectories), in name order.
pub(crate) fn files(path: &Path) -> std::io::Result<Vec<(String, String)>> {
    if !path.is_dir() {
        let text = std::fs::read_to_string(path)?;
        return Ok(vec![(path.display().to_string(), text)]);
    }
    let mut found = Vec::new();
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for item in std::fs::read_dir(&dir)? {
            let item = item?.path();
            if item.is_dir() {
                pending.push(item);
            } else if item.extension().is_some_and(|ext| ext == "rego") {
                found.push(item);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|file| Ok((file.display().to_string(), std::fs::read_to_string(&file)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_core::HookAction;
    use serde_json::json;

    const GUARD: &str = r#"
package hooks.guard

deny contains msg if {
    input.tool_name == "Bash"
    regex.match(`rm\s+-rf\s+/`, input.tool_input.command)
    msg := "rm -rf of the root"
}

ask contains msg if {
    input.tool_name == "Bash"
    startswith(input.tool_input.command, "git push")
    msg := sprintf("push from %s?", [input.event])
}
"#;

    fn compiled(text: &str) -> Result<RegoPolicies, Vec<Problem>> {
        RegoPolicies::compile(&[("guard.rego".to_owned(), text.to_owned())], None)
    }

    fn bash(command: &str) -> Value {
        json!({"tool_name": "Bash", "tool_input": {"command": command}})
    }

    #[test]
    fn deny_and_ask_messages_decide() {
        let policies = compiled(GUARD).unwrap();
        let denied = policies.decide("tool:pre", &bash("rm -rf /")).unwrap();
        assert_eq!(denied.action, HookAction::Deny);
        assert_eq!(denied.reason.as_deref(), Some("rm -rf of the root"));
        let asked = policies.decide("tool:pre", &bash("git push")).unwrap();
        assert_eq!(asked.action, HookAction::AskUser);
        assert_eq!(
            asked.approval_prompt.as_deref(),
            Some("push from tool:pre?"),
            "the event is in the input"
        );
        let quiet = policies.decide("tool:pre", &bash("ls")).unwrap();
        assert_eq!(quiet.action, HookAction::Continue);
        let other = policies
            .decide("prompt:submit", &json!({"prompt": "x"}))
            .unwrap();
        assert_eq!(other.action, HookAction::Continue);
        // The engines are reused from call to call: nothing of an earlier input remains.
        let again = policies.decide("tool:pre", &bash("rm -rf /")).unwrap();
        assert_eq!(again.action, HookAction::Deny);
        let quiet_again = policies.decide("tool:pre", &bash("ls")).unwrap();
        assert_eq!(quiet_again.action, HookAction::Continue);
    }

    #[test]
    fn mistakes_are_placed_and_a_package_must_decide_something() {
        let problems = compiled("package p\n\ndeny contains x if {\n  x := \n}\n").unwrap_err();
        assert_eq!(problems[0].file.as_deref(), Some("guard.rego"));
        assert!(
            problems[0].place.is_some_and(|(line, _)| line >= 4),
            "{problems:?}"
        );
        let silent = compiled("package p\n\nallow := true\n").unwrap_err();
        assert!(silent[0].message.contains("neither"), "{silent:?}");
        let two = RegoPolicies::compile(
            &[
                (
                    "a.rego".to_owned(),
                    "package a\ndeny contains 1 if false".to_owned(),
                ),
                (
                    "b.rego".to_owned(),
                    "package b\ndeny contains 1 if false".to_owned(),
                ),
            ],
            None,
        )
        .unwrap_err();
        assert!(two[0].message.contains("several packages"), "{two:?}");
    }
}
