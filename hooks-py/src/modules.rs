//! The standard modules as plain functions: the safety checker and the redaction.

use std::path::PathBuf;
use std::sync::OnceLock;

use hooks_safety::Guard;
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;

/// Why the safety checker refuses a command.
#[pyclass(module = "hooks.safety", name = "Denial", frozen, get_all)]
pub struct Denial {
    /// The rule pack that fired (`core.filesystem`, `core.git`, ...).
    pack: String,
    /// The rule within the pack.
    rule: String,
    /// `critical`, `high` or `medium`.
    severity: String,
    /// What the agent is told: what was refused, why, and what to do instead.
    message: String,
}

#[pymethods]
impl Denial {
    fn __repr__(&self) -> String {
        format!(
            "Denial(pack={:?}, rule={:?}, severity={:?})",
            self.pack, self.rule, self.severity
        )
    }

    fn __str__(&self) -> String {
        self.message.clone()
    }
}

/// The guard with the built-in rules, compiled once, keeping from the agent what a hooks file's
/// `safety` module keeps (the agents' settings, the hooks files, the hooks' own state).
fn guard() -> PyResult<&'static Guard> {
    static GUARD: OnceLock<Result<Guard, String>> = OnceLock::new();
    GUARD
        .get_or_init(|| {
            Guard::with_defaults(&hooks_config::protection::self_protection())
                .map_err(|error| error.to_string())
        })
        .as_ref()
        .map_err(|error| {
            PyRuntimeError::new_err(format!("the safety rules do not compile: {error}"))
        })
}

/// Checks a shell command as the safety module does (its built-in rules): `None` when it may
/// run, else a `Denial`. `cwd` is where it would run (default: the current directory).
#[pyfunction]
#[pyo3(signature = (command, cwd = None))]
pub fn safety_check(command: &str, cwd: Option<PathBuf>) -> PyResult<Option<Denial>> {
    let cwd = match cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir()
            .map_err(|error| PyOSError::new_err(format!("no current directory: {error}")))?,
    };
    Ok(guard()?.check(command, &cwd).map(|denial| Denial {
        pack: denial.pack,
        rule: denial.rule,
        severity: denial.severity.to_string(),
        message: denial.message,
    }))
}

/// The redaction module with its built-in rules, compiled once.
fn redactor() -> PyResult<&'static RedactionModule> {
    static REDACTOR: OnceLock<Result<RedactionModule, String>> = OnceLock::new();
    REDACTOR
        .get_or_init(|| RedactionModule::new(RedactionConfig::default()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|error| {
            PyRuntimeError::new_err(format!("the redaction rules do not compile: {error}"))
        })
}

/// `text` with every secret the redaction module finds (API keys, tokens, passwords in URLs,
/// private keys, ...) replaced by a placeholder naming its kind; unchanged if it holds none.
#[pyfunction]
pub fn redact(text: &str) -> PyResult<String> {
    Ok(match redactor()?.redact_text(text) {
        Some((clean, _count)) => clean,
        None => text.to_owned(),
    })
}
