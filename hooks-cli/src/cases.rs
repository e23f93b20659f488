//! `hooks test PATH [--json]`: the tables of cases at PATH (a table, or a directory's
//! `*.test.yaml` files) run against their hooks files (`hooks_config::cases`), decided as the
//! guard decides (under the managed and user files, with the sessions' state read). Each failed
//! case is shown as the decision expected and the one given; exit 1 when a case fails or a
//! table or hooks file cannot run.

use std::path::Path;
use std::process::ExitCode;

use hooks_config::LayerPaths;
use hooks_config::cases::{CaseTable, TableError, TableReport, tables_at};
use hooks_std::state_file::FileState;
use serde::Serialize;

use crate::modules::catalog;

/// The `--json` form: every table's report, and the problems of those that could not run.
#[derive(Serialize)]
struct Printed<'a> {
    passed: bool,
    tables: &'a [TableReport],
    errors: &'a [String],
}

/// Runs the tables at `path`; prints their reports (`json`: as one JSON object).
pub fn run(path: &Path, json: bool) -> ExitCode {
    let tables = match tables_at(path) {
        Ok(tables) if tables.is_empty() => {
            eprintln!(
                "hooks: `{}` holds no table of cases (`*.test.yaml`)",
                path.display()
            );
            return ExitCode::from(1);
        }
        Ok(tables) => tables,
        Err(error) => {
            eprintln!("hooks: cannot read `{}`: {error}", path.display());
            return ExitCode::from(1);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hooks: cannot start the runtime: {error}");
            return ExitCode::from(1);
        }
    };
    let catalog = catalog();
    let layers = LayerPaths::from_env();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for table in &tables {
        let report = CaseTable::load(table)
            .map_err(TableError::Table)
            .and_then(|loaded| {
                runtime.block_on(loaded.run_with(&layers, &catalog, FileState::from_env()))
            });
        match report {
            Ok(report) => reports.push(report),
            // A table's own mistakes name it already, at their lines.
            Err(error @ TableError::Table(_)) => errors.push(error.to_string()),
            Err(error) => errors.push(format!("{}: {error}", table.display())),
        }
    }
    let passed = errors.is_empty() && reports.iter().all(TableReport::passed);
    if json {
        let printed = Printed {
            passed,
            tables: &reports,
            errors: &errors,
        };
        match serde_json::to_string_pretty(&printed) {
            Ok(text) => println!("{text}"),
            Err(error) => {
                eprintln!("hooks: cannot print the report: {error}");
                return ExitCode::from(1);
            }
        }
    } else {
        for report in &reports {
            print!("{}", report.text());
        }
        for error in &errors {
            eprintln!("{error}");
        }
    }
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
