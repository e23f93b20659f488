//! `hooks replay EVENTS.jsonl... --config NEW.yaml [--baseline OLD.yaml] [--json]`: the tool
//! calls and prompts the logging module recorded, decided again by NEW.yaml
//! (`hooks_config::replay`): each decision that would change, the counts, and every line not
//! decided again with why. Each hooks file is decided as the guard decides it (under the
//! managed and user files, with the `#[hook]`s and the sessions' remembered answers), without
//! its recording modules and never writing the sessions' state, so the replay writes nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hooks_config::replay::{read_log, replay};
use hooks_config::trial::Trial;

use hooks_std::state_file::FileState;

use crate::modules::{load_layers, unloadable};

/// What `hooks replay` was asked.
pub struct ReplayArgs {
    /// The logs, oldest first.
    pub events: Vec<PathBuf>,
    /// The hooks file to judge.
    pub config: PathBuf,
    /// The hooks file whose decisions are "before", instead of the recorded ones.
    pub baseline: Option<PathBuf>,
    /// Print the report as JSON.
    pub json: bool,
}

/// `file` under the machine's managed and user files, decided as the guard decides, with the
/// sessions' state read and never written.
fn mount(file: &Path) -> Result<Trial, String> {
    let stack = load_layers(file).map_err(|error| unloadable(&error))?;
    Trial::mount(&stack, FileState::from_env())
        .map_err(|problem| format!("`{}` does not mount: {problem}", file.display()))
}

/// Runs the replay; exit 1 when a log or a hooks file cannot be read.
pub fn run(args: &ReplayArgs) -> ExitCode {
    let fail = |message: String| {
        eprintln!("hooks: {message}");
        ExitCode::from(1)
    };
    let mut events = Vec::new();
    let mut not_replayed = Vec::new();
    for log in &args.events {
        let text = match std::fs::read_to_string(log) {
            Ok(text) => text,
            Err(error) => return fail(format!("cannot read `{}`: {error}", log.display())),
        };
        let (read, skipped) = read_log(&text, log);
        events.extend(read);
        not_replayed.extend(skipped);
    }
    let new = match mount(&args.config) {
        Ok(trial) => trial,
        Err(problem) => return fail(problem),
    };
    let baseline = match args.baseline.as_deref().map(mount).transpose() {
        Ok(trial) => trial,
        Err(problem) => return fail(problem),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(format!("cannot start the runtime: {error}")),
    };
    let report = runtime.block_on(replay(&events, not_replayed, &new, baseline.as_ref()));
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(error) => return fail(format!("cannot print the report: {error}")),
        }
    } else {
        print!("{}", report.text());
    }
    ExitCode::SUCCESS
}
