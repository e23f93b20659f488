//! A hooks file's table of cases (`hooks_config::cases`: events with the decision expected),
//! the one `hooks test` runs, asserted from a Rust test.
//!
//! ```no_run
//! #[test]
//! fn the_policy_decides_as_its_table_says() {
//!     hooks_testing::tables::assert_table("policies/guard.test.yaml");
//! }
//! ```

use std::path::Path;

use hooks_config::ModuleCatalog;
pub use hooks_config::cases::{CaseTable, TableError, TableReport};

/// Runs the table at `path` against its hooks file, with the standard modules.
pub async fn run_table(path: impl AsRef<Path>) -> Result<TableReport, TableError> {
    let table = CaseTable::load(path.as_ref()).map_err(TableError::Table)?;
    table.run(&ModuleCatalog::standard()).await
}

/// Panics, with each failed case's expected and given decision, unless every case of the
/// table at `path` passes; also when the table or its hooks file cannot run. Runs on a
/// runtime of its own (in a thread of its own), so that a test with or without a runtime can
/// call it.
pub fn assert_table(path: impl AsRef<Path>) {
    let path = path.as_ref();
    let report = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start a runtime: {error}"))
                    .and_then(|runtime| {
                        runtime
                            .block_on(run_table(path))
                            .map_err(|error| error.to_string())
                    })
            })
            .join()
    });
    match report {
        Ok(Ok(report)) if report.passed() => {}
        Ok(Ok(report)) => panic!("the table's cases failed:\n{}", report.text()),
        Ok(Err(problem)) => panic!("{}: cannot run: {problem}", path.display()),
        Err(_) => panic!("{}: running the table panicked", path.display()),
    }
}
