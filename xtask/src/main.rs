//! Workspace automation, run as `cargo xtask <task>`.
//!
//! - `validate`: proves the workspace's hooks are sound (hooks files, annotated hooks,
//!   behavioural suites, hygiene) with a ✓/✗ report; `--json` for CI, `--only` for a part.
//! - `ci`: runs `.ci/run`, what CI runs (its one definition).
//! - `safety-corpus`: measures the safety checker against other guards' expectations in
//!   `../shared/peer/` (dcg, and the agent guards): caught/kept per corpus and category, raw
//!   and after the policy differences SAFETY.md lists, every miss listed.
//! - `secrets-corpus`: measures the redaction module against secret scanners' test data in
//!   `../shared/peer/secrets/` (secrets masked and look-alikes kept per provider and class).
//! - `bench`: runs the criterion benchmarks and refreshes the generated tables of BENCHMARKS.md
//!   and `docs/perf/criterion-cases.md`.
//! - `install-guard`: installs the agent guard, `hooks`, and its companion `hooks-full` beside
//!   it (`cargo install-guard` is this task).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod ci;
mod install_guard;
mod safety_corpus;
mod secrets_corpus;
mod validate;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  validate [--json] [--only PART,...] [--module NAME] [PATH...]
            check hooks files (PATHs, or every one in the workspace), the #[hook] functions
            linked in, the behavioural suite of every hook module, and hygiene (fmt, clippy);
            PART is config, annotated, behaviour or hygiene; --module runs the suite only on
            modules whose name contains NAME; WebAssembly components are loaded only when
            built with `cargo run -p xtask --features wasm -- validate`
  ci        run .ci/run, what CI runs: fmt --check, clippy -D warnings, validate, the demo,
            docs, the guard's install and one denial, the tests
  safety-corpus [--packs LIST] [--json] [--policy] [--quiet] [--peer DIR]
            measure the safety checker against other guards' test expectations read from
            ../shared/peer/ (dcg/ and agent-guards/): blocks caught and allows kept per corpus
            and category, raw and after the listed policy differences, misses listed
            (--packs: these packs for every case instead of each case's own; --policy: list
            the cases where our listed policy differs; --peer: the folder holding the corpora)
  secrets-corpus [--json] [--quiet] [--corpus DIR]
            measure the redaction module against secret scanners' test data read from
            ../shared/peer/secrets/: secrets masked and look-alikes kept per provider and
            class, on a prompt and on a tool result, misses listed (--corpus: its folder)
  bench [--tables-only]
            run the benchmarks and refresh their generated tables
            (--tables-only: from the results already in target/criterion)
  install-guard [--root DIR] [cargo install options...]
            install the agent guard `hooks` (static, without HTTP client, MCP proxy or server)
            and beside it its companion `hooks-full` (the default build), which runs the
            guard's `mcp-proxy`, `mcp` and `serve`; `cargo install-guard` is this task";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((task, rest)) => (task.as_str(), rest),
        None => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = match task {
        "validate" => return validate::run(rest),
        "ci" => no_arguments(task, rest).and_then(|()| ci::run()),
        "bench" => bench::run(rest),
        "install-guard" => install_guard::run(rest),
        "safety-corpus" => safety_corpus::run(rest),
        "secrets-corpus" => secrets_corpus::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => Err(Failure::Usage(format!("unknown task `{other}`"))),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(problem)) => {
            eprintln!("xtask: {problem}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Failed(problem)) => {
            if !problem.is_empty() {
                eprintln!("xtask: {problem}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Why a task did not succeed.
#[derive(Debug)]
enum Failure {
    /// The command line is wrong: exit 2 with the usage.
    Usage(String),
    /// The task ran and found a problem (already reported if the text is empty): exit 1.
    Failed(String),
}

fn no_arguments(task: &str, rest: &[String]) -> Result<(), Failure> {
    match rest.first() {
        Some(arg) => Err(Failure::Usage(format!(
            "`{task}` takes no argument `{arg}`"
        ))),
        None => Ok(()),
    }
}

/// The workspace root: where this crate's manifest is, one level up.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The cargo that runs us, when there is one, so that the toolchain is the same.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}
