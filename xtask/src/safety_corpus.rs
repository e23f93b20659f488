//! `cargo xtask safety-corpus`: the safety module measured against a peer guard's test
//! expectations, read at run time from `../shared/peer/dcg/` (beside the repository; never
//! copied into it). Prints, per pack and overall, how many expected blocks are caught and how
//! many expected allows are kept, and lists every miss.
//!
//! A block missed only because of our documented policy (deleting inside the workspace or a
//! temporary directory is allowed) is counted apart, with the allowance that let it through.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_safety::{Guard, SafetyConfig};
use serde_json::{Value, json};

use crate::{Failure, project_root};

/// What the command line asks for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    json: bool,
    /// `None`: each optional-pack case with its own pack on; `Some`: these packs for all.
    packs: Option<Vec<String>>,
    /// Print only the policy differences.
    policy: bool,
    quiet: bool,
    /// Where the corpus is, when not in `../shared/peer/dcg`.
    corpus: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => options.json = true,
            "--policy" => options.policy = true,
            "--quiet" => options.quiet = true,
            "--corpus" => {
                let dir = args
                    .next()
                    .ok_or_else(|| Failure::Usage("`--corpus` needs a value".to_owned()))?;
                options.corpus = Some(PathBuf::from(dir));
            }
            "--packs" => {
                let list = args
                    .next()
                    .ok_or_else(|| Failure::Usage("`--packs` needs a value".to_owned()))?;
                options.packs = Some(list.split(',').map(|p| p.trim().to_owned()).collect());
            }
            other => {
                return Err(Failure::Usage(format!(
                    "`safety-corpus` has no option `{other}`"
                )));
            }
        }
    }
    Ok(options)
}

/// One expectation of the peer.
struct Case {
    command: String,
    block: bool,
    group: String,
    packs: Vec<String>,
}

fn read_cases(path: &Path) -> Result<Vec<Case>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))?;
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Value = serde_json::from_str(line)
            .map_err(|e| Failure::Failed(format!("{}:{}: {e}", path.display(), number + 1)))?;
        let pack = row["pack"].as_str().map(str::to_owned);
        let category = row["category"].as_str().unwrap_or("?");
        cases.push(Case {
            command: row["command"].as_str().unwrap_or_default().to_owned(),
            block: row["expect"] == "block",
            group: pack
                .clone()
                .unwrap_or_else(|| category.split('.').next().unwrap_or("?").to_owned()),
            packs: pack
                .map(|p| p.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
        });
    }
    Ok(cases)
}

/// Tallies for one group of cases.
#[derive(Default)]
struct Tally {
    blocks: usize,
    caught: usize,
    policy: usize,
    allows: usize,
    kept: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.blocks += other.blocks;
        self.caught += other.caught;
        self.policy += other.policy;
        self.allows += other.allows;
        self.kept += other.kept;
    }

    fn caught_percent(&self) -> f64 {
        percent(self.caught, self.blocks - self.policy)
    }

    fn kept_percent(&self) -> f64 {
        percent(self.kept, self.allows)
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// A case the module judged differently.
struct Miss {
    group: String,
    command: String,
    verdict: String,
}

struct Report {
    name: &'static str,
    groups: BTreeMap<String, Tally>,
    missed_blocks: Vec<Miss>,
    denied_allows: Vec<Miss>,
    by_policy: Vec<Miss>,
}

impl Report {
    fn total(&self) -> Tally {
        let mut total = Tally::default();
        for tally in self.groups.values() {
            total.add(tally);
        }
        total
    }
}

fn measure(
    name: &'static str,
    cases: &[Case],
    workspace: &Path,
    packs_for: impl Fn(&Case) -> Vec<String>,
) -> Result<Report, Failure> {
    let mut modules: BTreeMap<Vec<String>, Guard> = BTreeMap::new();
    let mut report = Report {
        name,
        groups: BTreeMap::new(),
        missed_blocks: Vec::new(),
        denied_allows: Vec::new(),
        by_policy: Vec::new(),
    };
    for case in cases {
        let packs = packs_for(case);
        if !modules.contains_key(&packs) {
            // Exactly these packs: `--packs` may leave the default ones out.
            let config = SafetyConfig {
                workspace: Some(workspace.to_path_buf()),
                packs: packs.clone(),
                replace_defaults: vec!["packs".to_owned()],
                ..SafetyConfig::default()
            };
            let module = Guard::new(config).map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
            modules.insert(packs.clone(), module);
        }
        let module = &modules[&packs];
        let evaluation = module.evaluate(&case.command, workspace);
        let tally = report.groups.entry(case.group.clone()).or_default();
        let miss = |verdict: String| Miss {
            group: case.group.clone(),
            command: case.command.clone(),
            verdict,
        };
        match (case.block, &evaluation.denial) {
            (true, Some(_)) => {
                tally.blocks += 1;
                tally.caught += 1;
            }
            (true, None) => {
                tally.blocks += 1;
                if evaluation.allowances.is_empty() {
                    report.missed_blocks.push(miss("allowed".to_owned()));
                } else {
                    tally.policy += 1;
                    report
                        .by_policy
                        .push(miss(evaluation.allowances.join(", ")));
                }
            }
            (false, None) => {
                tally.allows += 1;
                tally.kept += 1;
            }
            (false, Some(denial)) => {
                tally.allows += 1;
                report.denied_allows.push(miss(denial.id()));
            }
        }
    }
    Ok(report)
}

fn print(report: &Report, options: &Options) {
    if options.policy {
        println!(
            "## {}: blocks the peer expects that our policy allows",
            report.name
        );
        for miss in &report.by_policy {
            println!("  [{}] {:?}  ({})", miss.group, miss.command, miss.verdict);
        }
        return;
    }
    println!("## {}", report.name);
    println!(
        "{:<32} {:>16} {:>8} {:>14}",
        "pack", "blocks caught", "policy", "allows kept"
    );
    for (group, tally) in &report.groups {
        println!(
            "{group:<32} {:>7}/{:<4} {:>3.0}% {:>8} {:>6}/{:<4} {:>3.0}%",
            tally.caught,
            tally.blocks - tally.policy,
            tally.caught_percent(),
            tally.policy,
            tally.kept,
            tally.allows,
            tally.kept_percent()
        );
    }
    let total = report.total();
    println!(
        "{:<32} {:>7}/{:<4} {:>4.1}% {:>7} {:>6}/{:<4} {:>4.1}%",
        "OVERALL",
        total.caught,
        total.blocks - total.policy,
        total.caught_percent(),
        total.policy,
        total.kept,
        total.allows,
        total.kept_percent()
    );
    if !options.quiet {
        for (title, misses) in [
            ("missed blocks", &report.missed_blocks),
            ("denied allows", &report.denied_allows),
        ] {
            println!("\n### {title} ({})", misses.len());
            for miss in misses {
                println!("  [{}] {:?}  -> {}", miss.group, miss.command, miss.verdict);
            }
        }
    }
    println!();
}

fn as_json(report: &Report) -> Value {
    let tally = |t: &Tally| {
        json!({
            "blocks": t.blocks, "caught": t.caught, "policy": t.policy,
            "allows": t.allows, "kept": t.kept,
            "caught_percent": t.caught_percent(), "kept_percent": t.kept_percent(),
        })
    };
    let misses = |list: &[Miss]| {
        list.iter()
            .map(|m| json!({"group": m.group, "command": m.command, "verdict": m.verdict}))
            .collect::<Vec<_>>()
    };
    json!({
        "corpus": report.name,
        "overall": tally(&report.total()),
        "packs": report.groups.iter().map(|(g, t)| (g.clone(), tally(t))).collect::<serde_json::Map<_, _>>(),
        "missed_blocks": misses(&report.missed_blocks),
        "denied_allows": misses(&report.denied_allows),
        "by_policy": misses(&report.by_policy),
    })
}

/// Where the peer corpus is: `../shared/peer/dcg` from the repository root.
fn corpus_dir() -> PathBuf {
    project_root()
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
        .join("shared/peer/dcg")
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let options = parse(args)?;
    let dir = options.corpus.clone().unwrap_or_else(corpus_dir);
    if !dir.is_dir() {
        println!(
            "safety-corpus: skipped: the peer corpus is not at {} (it lives beside the \
             repository, in ../shared/peer/dcg)",
            dir.display()
        );
        return Ok(());
    }
    // A workspace where developers keep theirs, not under /tmp: there, deleting `/tmp/*`
    // would take the workspace with it, and is refused as such.
    let workspace = project_root()
        .join("target")
        .join(format!("hooks-safety-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&workspace)
        .map_err(|e| Failure::Failed(format!("cannot create {}: {e}", workspace.display())))?;
    let outcome = (|| {
        let default_cases = read_cases(&dir.join("dcg_cases.jsonl"))?;
        let optional_cases = read_cases(&dir.join("dcg_cases_nondefault.jsonl"))?;
        let chosen = options.packs.clone();
        let default_report = measure("default corpus", &default_cases, &workspace, |_| {
            chosen.clone().unwrap_or_else(|| vec!["default".to_owned()])
        })?;
        let chosen = options.packs.clone();
        let known: Vec<&str> = hooks_safety::packs::all_packs()
            .iter()
            .map(|pack| pack.name)
            .collect();
        let optional_report = measure(
            "optional packs corpus",
            &optional_cases,
            &workspace,
            |case| {
                chosen.clone().unwrap_or_else(|| {
                    let mut packs = vec!["default".to_owned()];
                    // A pack not written yet is measured with the default packs alone.
                    packs.extend(
                        case.packs
                            .iter()
                            .filter(|p| known.contains(&p.as_str()))
                            .cloned(),
                    );
                    packs
                })
            },
        )?;
        if options.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&json!([
                    as_json(&default_report),
                    as_json(&optional_report)
                ]))
                .unwrap_or_default()
            );
        } else {
            print(&default_report, &options);
            print(&optional_report, &options);
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&workspace);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_parsed() {
        let args: Vec<String> = ["--json", "--packs", "all,git"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let options = parse(&args).unwrap_or_default();
        assert!(options.json);
        assert_eq!(
            options.packs,
            Some(vec!["all".to_owned(), "git".to_owned()])
        );
        assert!(parse(&["--nope".to_owned()]).is_err());
    }
}
