//! The behaviour part: the behavioural suite of `hooks-testing` on every hook module, those of
//! hooks-std (with the configuration a project would start from) and the user's own.

use std::path::Path;
use std::time::Duration;

use hooks_core::HookModule;
use hooks_std::approval::{ApprovalConfig, ApprovalModule};
use hooks_std::linter::{LinterConfig, LinterModule};
use hooks_std::logging::{LoggingConfig, LoggingModule};
use hooks_std::prompt_gate::{PromptGateConfig, PromptGateModule, PromptGateRule};
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use hooks_std::reminder::{ReminderConfig, ReminderModule};
use hooks_std::safety::{SafetyConfig, SafetyModule};
use hooks_testing::behaviour::{DEFAULT_BUDGET, Suite};

use crate::report::{Finding, Part};

/// A module to run the suite on, with the time one emit may take.
pub struct ModuleUnderTest {
    /// The module.
    pub module: Box<dyn HookModule>,
    /// The time budget per emit.
    pub budget: Duration,
}

impl ModuleUnderTest {
    /// `module` with the suite's default budget.
    pub fn new(module: impl HookModule + 'static) -> Self {
        ModuleUnderTest {
            module: Box::new(module),
            budget: DEFAULT_BUDGET,
        }
    }

    /// A module already boxed (as a [`ModuleCatalog`](hooks_std::catalog::ModuleCatalog)
    /// builds them), with the suite's default budget.
    pub fn boxed(module: Box<dyn HookModule>) -> Self {
        ModuleUnderTest {
            module,
            budget: DEFAULT_BUDGET,
        }
    }

    /// Another budget per emit (a module that spawns processes needs more).
    #[must_use]
    pub fn budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }
}

/// The modules of hooks-std, each in a configuration a project would start from; `scratch` is
/// a directory they may write to (the log file, the linter's workspace). A module whose
/// configuration is rejected is reported as a failure, not left out.
pub fn std_modules(scratch: &Path) -> Vec<Result<ModuleUnderTest, Finding>> {
    let rejected = |name: &str, error: &dyn std::fmt::Display| {
        Finding::fail(
            Part::Behaviour,
            name,
            format!("the configuration is rejected: {error}"),
        )
    };
    let safety = SafetyModule::new(
        SafetyConfig {
            workspace: Some(scratch.to_path_buf()),
            ..SafetyConfig::default()
        },
        &hooks_config::protection::self_protection(),
    );
    let approval = ApprovalModule::new(ApprovalConfig {
        tools: vec!["bash".to_owned(), "write_file".to_owned()],
        ..ApprovalConfig::default()
    });
    let logging = LoggingModule::new(LoggingConfig {
        path: scratch.join("events.jsonl"),
        ..LoggingConfig::default()
    });
    // A linter made of `sh`, so that the suite needs no linter installed: it reports lines
    // holding TODO in the Rust files the scripted session writes.
    let todo_linter = [
        "sh",
        "-c",
        "if grep -n TODO \"$1\"; then exit 1; fi",
        "lint",
        "{file}",
    ];
    let linter = LinterModule::new(LinterConfig {
        linters: [("rs".to_owned(), todo_linter.map(String::from).to_vec())].into(),
        // Only this linter: the built-in ones would need `ruff` and `rustfmt` installed.
        replace_defaults: vec!["linters".to_owned()],
        workspace: Some(scratch.to_path_buf()),
        ..LinterConfig::default()
    });
    // The rule of its docs: a migration is written only once a prompt asked for one.
    let prompt_gate = PromptGateModule::new(PromptGateConfig {
        rules: vec![PromptGateRule {
            name: "migrations".to_owned(),
            paths: vec!["**/migrations/**".to_owned()],
            prompt: "(?i)\\bmigration".to_owned(),
            message: None,
        }],
        ..PromptGateConfig::default()
    });
    vec![
        safety
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("safety", &e)),
        RedactionModule::new(RedactionConfig::default())
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("redaction", &e)),
        approval
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("approval", &e)),
        ReminderModule::new(ReminderConfig::default())
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("reminder", &e)),
        logging
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("logging", &e)),
        linter
            .map(|linter| ModuleUnderTest::new(linter).budget(SPAWNING_BUDGET))
            .map_err(|e| rejected("linter", &e)),
        prompt_gate
            .map(ModuleUnderTest::new)
            .map_err(|e| rejected("prompt_gate", &e)),
    ]
}

/// Each lint spawns a process: allow for a loaded machine.
const SPAWNING_BUDGET: Duration = Duration::from_secs(5);

/// A module a hooks file mounts, with the budget its kind needs.
pub(crate) fn for_catalog_module(module: Box<dyn HookModule>) -> ModuleUnderTest {
    let spawns = module.name() == "linter";
    let module = ModuleUnderTest::boxed(module);
    if spawns {
        module.budget(SPAWNING_BUDGET)
    } else {
        module
    }
}

/// Runs every check of the suite on `module`: one finding, listing each failed check.
pub fn check(module: &ModuleUnderTest) -> Finding {
    check_as(module.module.name(), module)
}

/// The same, reported under `subject`. A module that panics fails the checks it panics in
/// (the suite catches it); the validation goes on.
pub(crate) fn check_as(subject: &str, module: &ModuleUnderTest) -> Finding {
    let name = subject.to_owned();
    let suite = Suite::new(&module.module).budget(module.budget);
    let failures = suite.check_all();
    let total = hooks_testing::behaviour::Check::ALL.len();
    if failures.is_empty() {
        Finding::pass(
            Part::Behaviour,
            name,
            format!("passes the {total} checks of the suite"),
        )
    } else {
        Finding::fail(
            Part::Behaviour,
            name,
            format!(
                "fails {} of the {total} checks of the suite",
                failures.len()
            ),
        )
        .with_details(
            failures
                .iter()
                .map(|failure| format!("{:?}: {}", failure.check, failure.problem))
                .collect(),
        )
    }
}
