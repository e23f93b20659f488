//! What a validation found: one [`Finding`] per thing checked, printed as ✓/✗ lines or as JSON.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A part of the validation, runnable alone (`--only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Hooks YAML files, with the loader of `hooks check`.
    Config,
    /// The `#[hook]` functions linked into the validating binary.
    Annotated,
    /// The behavioural suite of `hooks-testing`, on every hook module.
    Behaviour,
    /// `cargo fmt --check`, `cargo clippy -D warnings` and any other command given.
    Hygiene,
}

impl Part {
    /// Every part, in the order they run.
    pub const ALL: [Part; 4] = [
        Part::Config,
        Part::Annotated,
        Part::Behaviour,
        Part::Hygiene,
    ];

    /// The name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Config => "config",
            Part::Annotated => "annotated",
            Part::Behaviour => "behaviour",
            Part::Hygiene => "hygiene",
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A part name that is not one of [`Part::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPart(pub String);

impl fmt::Display for UnknownPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown part `{}`; the parts are config, annotated, behaviour and hygiene",
            self.0
        )
    }
}

impl std::error::Error for UnknownPart {}

impl FromStr for Part {
    type Err = UnknownPart;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Part::ALL
            .into_iter()
            .find(|part| part.as_str() == name)
            // The American spelling, for users who type it.
            .or((name == "behavior").then_some(Part::Behaviour))
            .ok_or_else(|| UnknownPart(name.to_owned()))
    }
}

/// One thing checked, and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The part it belongs to.
    pub part: Part,
    /// What was checked: a file, a hook, a module, a command.
    pub subject: String,
    /// Whether it passed.
    pub passed: bool,
    /// One line: what was found, or why it failed.
    pub reason: String,
    /// Every problem, one per line (for example each error of a hooks file, with its location).
    pub details: Vec<String>,
}

impl Finding {
    /// A finding that passed.
    pub fn pass(part: Part, subject: impl Into<String>, reason: impl Into<String>) -> Self {
        Finding {
            part,
            subject: subject.into(),
            passed: true,
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    /// A finding that failed.
    pub fn fail(part: Part, subject: impl Into<String>, reason: impl Into<String>) -> Self {
        Finding {
            part,
            subject: subject.into(),
            passed: false,
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    /// The same, with every problem listed.
    #[must_use]
    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// Everything a validation found, in the order the parts ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The findings.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether every finding passed.
    pub fn passed(&self) -> bool {
        self.findings.iter().all(|finding| finding.passed)
    }

    /// The findings that failed.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|finding| !finding.passed)
    }

    /// The report as JSON: `passed`, `counts` (`passed`, `failed`) and `findings`.
    pub fn to_json(&self) -> serde_json::Value {
        let failed = self.failures().count();
        serde_json::json!({
            "passed": self.passed(),
            "counts": { "passed": self.findings.len() - failed, "failed": failed },
            "findings": self.findings,
        })
    }
}

/// ✓/✗ lines grouped by part, every problem indented below its line, then a count.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut part = None;
        for finding in &self.findings {
            if part != Some(finding.part) {
                part = Some(finding.part);
                writeln!(f, "{}", finding.part)?;
            }
            let mark = if finding.passed { '✓' } else { '✗' };
            writeln!(f, "  {mark} {}: {}", finding.subject, finding.reason)?;
            for detail in &finding.details {
                writeln!(f, "      {detail}")?;
            }
        }
        let failed = self.failures().count();
        write!(
            f,
            "validate: {} passed, {failed} failed",
            self.findings.len() - failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_parse_by_name_and_unknown_ones_list_the_choices() {
        for part in Part::ALL {
            assert_eq!(part.as_str().parse::<Part>(), Ok(part));
        }
        assert_eq!("behavior".parse::<Part>(), Ok(Part::Behaviour));
        let error = "lint".parse::<Part>().unwrap_err().to_string();
        assert!(
            error.contains("`lint`") && error.contains("hygiene"),
            "{error}"
        );
    }

    #[test]
    fn the_text_report_marks_each_finding_and_counts_them() {
        let report = Report {
            findings: vec![
                Finding::pass(Part::Config, "a.hooks.yaml", "2 hooks"),
                Finding::fail(Part::Config, "hooks.yaml", "1 problem")
                    .with_details(vec!["hooks.yaml:3:5: unknown event".into()]),
            ],
        };
        assert!(!report.passed());
        assert_eq!(
            report.to_string(),
            "config\n  ✓ a.hooks.yaml: 2 hooks\n  ✗ hooks.yaml: 1 problem\n      \
             hooks.yaml:3:5: unknown event\nvalidate: 1 passed, 1 failed"
        );
        let json = report.to_json();
        assert_eq!(json["passed"], false);
        assert_eq!(json["counts"]["failed"], 1);
        assert_eq!(json["findings"][1]["part"], "config");
        assert_eq!(
            json["findings"][1]["details"][0],
            "hooks.yaml:3:5: unknown event"
        );
    }
}
