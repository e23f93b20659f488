//! The checks of `cargo xtask validate`, as a library, so that an application's own `xtask`
//! gets the same command in a few lines.
//!
//! A [`Validation`] runs four [parts](Part) and returns a [`Report`] of ✓/✗ findings:
//!
//! 1. **config**: every hooks file of the workspace (`hooks.yaml`, `hooks.yml`, `*.hooks.yaml`,
//!    `*.hooks.yml`; hidden directories, `target` and nested workspaces left out), or the paths
//!    given, loaded as `hooks check` loads them: each problem with file, line and column;
//! 2. **annotated**: every `#[hook]` linked into the running binary, listed with its event,
//!    priority and location; unknown events, names used twice and hooks whose order is decided
//!    only by their names fail; hooks-core's canary proves that registration works at all;
//! 3. **behaviour**: the behavioural suite of `hooks-testing` on the modules of hooks-std, on
//!    the modules the hooks files mount and on the modules given;
//! 4. **hygiene**: `cargo fmt --check`, `cargo clippy -D warnings` and any command added.
//!
//! ```no_run
//! // xtask/src/main.rs of an application: `cargo xtask validate [--json] [--only ...] [PATH...]`
//! use std::process::ExitCode;
//!
//! use hooks_std::redaction::{RedactionConfig, RedactionModule};
//! use hooks_validate::Validation;
//!
//! fn main() -> ExitCode {
//!     let mut args = std::env::args().skip(1);
//!     if args.next().as_deref() != Some("validate") {
//!         eprintln!("usage: cargo xtask validate [--help]");
//!         return ExitCode::from(2);
//!     }
//!     // my_hooks::link(); // keep the crate of your #[hook] functions in this binary
//!     let redaction = RedactionModule::new(RedactionConfig::default()).expect("a valid config");
//!     Validation::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
//!         .module(redaction)
//!         .main(args)
//! }
//! ```
//!
//! The annotated part also reads the workspace's library sources: a `#[hook]` they define that
//! the binary does not hold (a forgotten `link()`) fails, naming the call to add. The behaviour
//! part runs the suite on the modules the hooks files mount, built from the
//! [`catalog`](Validation::catalog) given, so that an application's own modules are checked as its files
//! configure them.
//!
//! [`run`](Validation::run) blocks (the suite drives its own runtimes): call it from `main`, not
//! from inside an async runtime.

mod annotated;
mod behaviour;
mod cli;
mod configs;
mod hygiene;
mod report;
mod sources;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

pub use behaviour::{ModuleUnderTest, std_modules};
pub use cli::{Args, USAGE, UsageError};
pub use configs::{discover, is_hooks_file};
pub use hooks_core::HookModule;
pub use hooks_std::catalog::ModuleCatalog;
pub use hygiene::HygieneStep;
pub use report::{Finding, Part, Report, UnknownPart};
pub use sources::{SourceHook, hooks_in};

/// A validation of one workspace: which parts run, on what. See the [crate docs](crate).
pub struct Validation {
    root: PathBuf,
    config_paths: Option<Vec<PathBuf>>,
    parts: BTreeSet<Part>,
    std_modules: bool,
    modules: Vec<ModuleUnderTest>,
    module_filter: Option<String>,
    hygiene: Vec<HygieneStep>,
    catalog: ModuleCatalog,
    elsewhere: Vec<PathBuf>,
    colour: bool,
}

impl Validation {
    /// Every part on the workspace at `root`: its hooks files, the annotated hooks of this
    /// binary, the modules of hooks-std, `cargo fmt --check` and `cargo clippy -D warnings`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Validation {
            root: root.into(),
            config_paths: None,
            parts: Part::ALL.into_iter().collect(),
            std_modules: true,
            modules: Vec::new(),
            module_filter: None,
            hygiene: vec![HygieneStep::fmt(), HygieneStep::clippy()],
            catalog: ModuleCatalog::standard(),
            elsewhere: Vec::new(),
            colour: hooks_std::terminal::colour_for(&std::io::stdout()),
        }
    }

    /// The modules hooks files may mount by name: the application's catalog (the standard
    /// modules and its own), so that a file naming one of its modules loads, and the suite runs
    /// on that module as the file configures it.
    #[must_use]
    pub fn catalog(mut self, catalog: ModuleCatalog) -> Self {
        self.catalog = catalog;
        self
    }

    /// `#[hook]` functions under `path` (relative to the root) belong to another binary: the
    /// annotated part does not ask for them to be linked into this one.
    #[must_use]
    pub fn elsewhere(mut self, path: impl Into<PathBuf>) -> Self {
        self.elsewhere.push(path.into());
        self
    }

    /// Applies a parsed command line: `--only`, `--module`, and the paths (relative to `cwd`)
    /// instead of the discovered hooks files.
    #[must_use]
    pub fn args(mut self, args: &Args, cwd: &std::path::Path) -> Self {
        if !args.paths.is_empty() {
            self = self.config_paths(args.paths.iter().map(|path| cwd.join(path)));
        }
        if let Some(parts) = &args.only {
            self = self.only(parts.iter().copied());
        }
        if let Some(filter) = &args.module {
            self = self.modules_matching(filter.clone());
        }
        self
    }

    /// A whole `validate` command: parses `args` (those after the command's name), runs, prints
    /// the report (as JSON with `--json`) and returns the exit code: 0 if everything passed, 1
    /// if something failed, 2 for a wrong command line (the usage on stderr). Blocks.
    ///
    /// ```no_run
    /// // xtask/src/main.rs: `cargo xtask validate [--json] [--only ...] [PATH...]`
    /// use std::process::ExitCode;
    ///
    /// fn main() -> ExitCode {
    ///     let mut args = std::env::args().skip(1);
    ///     match args.next().as_deref() {
    ///         Some("validate") => {
    ///             let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    ///             hooks_validate::Validation::new(root).main(args)
    ///         }
    ///         _ => {
    ///             eprintln!("usage: cargo xtask validate [--help]");
    ///             ExitCode::from(2)
    ///         }
    ///     }
    /// }
    /// ```
    pub fn main<I>(self, args: I) -> ExitCode
    where
        I: IntoIterator,
        I::Item: Into<std::ffi::OsString>,
    {
        let args = match Args::parse(args) {
            Ok(args) if args.help => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            Ok(args) => args,
            Err(error) => {
                eprintln!("validate: {error}\n\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| self.root.clone());
        let mut validation = self.args(&args, &cwd);
        if args.json {
            // Colour codes have no place in JSON, whatever stdout is.
            validation = validation.colour(false);
        }
        let report = validation.run();
        if args.json {
            println!("{}", report.to_json());
        } else {
            println!("{report}");
        }
        if report.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }

    /// Check these files (relative to the root; a directory stands for the hooks files under
    /// it) instead of discovering them.
    #[must_use]
    pub fn config_paths(mut self, paths: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self.config_paths = Some(paths.into_iter().map(Into::into).collect());
        self
    }

    /// Run only these parts.
    #[must_use]
    pub fn only(mut self, parts: impl IntoIterator<Item = Part>) -> Self {
        self.parts = parts.into_iter().collect();
        self
    }

    /// Run the behavioural suite on `module` too, with the suite's default budget.
    #[must_use]
    pub fn module(self, module: impl HookModule + 'static) -> Self {
        self.module_under_test(ModuleUnderTest::new(module))
    }

    /// Run the behavioural suite on `module` too, with its own budget.
    #[must_use]
    pub fn module_under_test(mut self, module: ModuleUnderTest) -> Self {
        self.modules.push(module);
        self
    }

    /// Leave the modules of hooks-std out of the behaviour part.
    #[must_use]
    pub fn without_std_modules(mut self) -> Self {
        self.std_modules = false;
        self
    }

    /// In the behaviour part, only the modules whose name contains `filter`.
    #[must_use]
    pub fn modules_matching(mut self, filter: impl Into<String>) -> Self {
        self.module_filter = Some(filter.into());
        self
    }

    /// Add a command to the hygiene part (for example the UI tests of a macro crate).
    #[must_use]
    pub fn hygiene_step(mut self, step: HygieneStep) -> Self {
        self.hygiene.push(step);
        self
    }

    /// Whether the hygiene commands' output in the report keeps its colour. By default it does
    /// when standard output, where a report is printed, is a terminal (and neither `NO_COLOR`
    /// nor `CLICOLOR_FORCE` says otherwise); turn it off for a report printed elsewhere or as
    /// JSON.
    #[must_use]
    pub fn colour(mut self, colour: bool) -> Self {
        self.colour = colour;
        self
    }

    /// Runs the parts, in the order of [`Part::ALL`]. Blocks.
    pub fn run(&self) -> Report {
        let mut report = Report::default();
        for part in &self.parts {
            match part {
                Part::Config => report.findings.extend(configs::check(
                    &self.root,
                    self.config_paths.as_deref(),
                    &self.catalog,
                )),
                Part::Annotated => report
                    .findings
                    .extend(annotated::check_linked(&self.root, &self.elsewhere)),
                Part::Behaviour => report.findings.extend(self.behaviour()),
                Part::Hygiene => report.findings.extend(
                    self.hygiene
                        .iter()
                        .map(|step| step.check_with_colour(&self.root, self.colour)),
                ),
            }
        }
        report
    }

    fn behaviour(&self) -> Vec<Finding> {
        let selected = |name: &str| {
            self.module_filter
                .as_deref()
                .is_none_or(|filter| name.contains(filter))
        };
        // One directory per run, so that validations in parallel tests do not share a log.
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let scratch = std::env::temp_dir().join(format!(
            "hooks-validate-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        ));
        let mut findings = Vec::new();
        if let Err(error) = std::fs::create_dir_all(&scratch) {
            findings.push(Finding::fail(
                Part::Behaviour,
                "modules",
                format!("cannot create {}: {error}", scratch.display()),
            ));
            return findings;
        }
        let std_modules = if self.std_modules {
            std_modules(&scratch)
        } else {
            Vec::new()
        };
        for module in std_modules {
            match module {
                Ok(module) if selected(module.module.name()) => {
                    findings.push(behaviour::check(&module));
                }
                Ok(_) => {}
                Err(finding) if selected(&finding.subject) => findings.push(finding),
                Err(_) => {}
            }
        }
        // The modules the hooks files mount, as they configure them (relative paths in the
        // scratch directory, so that the suite's events land nowhere real).
        let mounted =
            configs::mounted_modules(&self.root, self.config_paths.as_deref(), &self.catalog);
        for (file, module) in mounted.iter().filter(|(_, m)| selected(&m.name)) {
            let subject = format!("{} ({file}:{})", module.name, module.line);
            let context = hooks_std::catalog::ModuleContext::new(&scratch);
            findings.push(
                match self.catalog.build(&module.name, &module.config, &context) {
                    Ok(built) => {
                        behaviour::check_as(&subject, &behaviour::for_catalog_module(built))
                    }
                    Err(error) => Finding::fail(Part::Behaviour, subject, error.to_string()),
                },
            );
        }
        findings.extend(
            self.modules
                .iter()
                .filter(|module| selected(module.module.name()))
                .map(behaviour::check),
        );
        let _ = std::fs::remove_dir_all(&scratch);
        if findings.is_empty() {
            let reason = match &self.module_filter {
                Some(filter) => format!("no module's name contains `{filter}`"),
                None => "no module to check".to_owned(),
            };
            findings.push(Finding::fail(Part::Behaviour, "modules", reason));
        }
        findings
    }
}
