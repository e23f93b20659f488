//! `cargo xtask safety-corpus`: the safety checker measured against other guards' test
//! expectations, read at run time from `../shared/peer/` (beside the repository; never copied
//! into it): dcg's corpus (`dcg/`) and the agent guards' one (`agent-guards/`: CC Safety Net,
//! Continue, goose). Prints, per corpus and per category, how many expected blocks are caught
//! and how many expected allows are kept, raw and after the policy differences SAFETY.md
//! lists, and lists every miss.
//!
//! A difference is "listed" when it is one of the kinds in SAFETY.md: a block let through by
//! a documented allowance (deleting inside the workspace or a temporary directory, text that
//! is data), or a case of a kind in [`DIFFERENCES`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_safety::{Evaluation, Guard, SafetyConfig};
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
    /// Where the peer corpora are, when not in `../shared/peer`.
    peer: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => options.json = true,
            "--policy" => options.policy = true,
            "--quiet" => options.quiet = true,
            "--peer" => {
                let dir = args
                    .next()
                    .ok_or_else(|| Failure::Usage("`--peer` needs a value".to_owned()))?;
                options.peer = Some(PathBuf::from(dir));
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

/// The directory a case's command runs in, as the peer's test asserted it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cwd {
    /// The project (the workspace).
    Project,
    /// The system's temporary directory.
    Temp,
}

/// One expectation of a peer.
struct Case {
    command: String,
    block: bool,
    group: String,
    packs: Vec<String>,
    cwd: Cwd,
}

fn read_rows(path: &Path) -> Result<Vec<Value>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))?;
    let mut rows = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        rows.push(
            serde_json::from_str(line)
                .map_err(|e| Failure::Failed(format!("{}:{}: {e}", path.display(), number + 1)))?,
        );
    }
    Ok(rows)
}

/// dcg's rows: grouped by pack, or by the first part of the category.
fn dcg_cases(path: &Path) -> Result<Vec<Case>, Failure> {
    Ok(read_rows(path)?
        .iter()
        .map(|row| {
            let pack = row["pack"].as_str().map(str::to_owned);
            let category = row["category"].as_str().unwrap_or("?");
            Case {
                command: row["command"].as_str().unwrap_or_default().to_owned(),
                block: row["expect"] == "block",
                group: pack
                    .clone()
                    .unwrap_or_else(|| category.split('.').next().unwrap_or("?").to_owned()),
                packs: pack
                    .map(|p| p.split(',').map(str::to_owned).collect())
                    .unwrap_or_default(),
                cwd: Cwd::Project,
            }
        })
        .collect())
}

/// The agent guards' rows: grouped by category; a row asserted with the temporary directory
/// as the working directory runs there (its note says so).
fn agent_guard_cases(path: &Path) -> Result<Vec<Case>, Failure> {
    Ok(read_rows(path)?
        .iter()
        .map(|row| {
            let note = row["note"].as_str().unwrap_or_default();
            Case {
                command: row["command"].as_str().unwrap_or_default().to_owned(),
                block: row["expect"] == "block",
                group: row["category"].as_str().unwrap_or("?").to_owned(),
                packs: Vec::new(),
                cwd: if note.contains("cwd = /tmp") {
                    Cwd::Temp
                } else {
                    Cwd::Project
                },
            }
        })
        .collect())
}

/// A kind of case where our policy differs from a peer's on purpose, as SAFETY.md lists it.
struct Difference {
    /// The kind's name, as SAFETY.md's table gives it.
    kind: &'static str,
    /// Whether the peer expects a block (we allow) or an allow (we deny).
    peer_blocks: bool,
    /// Whether a case the checker judged against the peer is of this kind.
    applies: fn(&str, &Evaluation) -> bool,
}

/// The listed differences besides the allowances the checker itself reports (which list
/// the blocks it lets through on purpose).
const DIFFERENCES: &[Difference] = &[Difference {
    kind: "temp-root",
    peer_blocks: false,
    applies: |_, evaluation| {
        evaluation
            .denial
            .as_ref()
            .is_some_and(|denial| denial.id() == "filesystem:rm-temp-root")
    },
}];

/// Tallies for one group of cases.
#[derive(Default)]
struct Tally {
    blocks: usize,
    caught: usize,
    /// Expected blocks let through by a listed difference.
    policy_blocks: usize,
    allows: usize,
    kept: usize,
    /// Expected allows denied by a listed difference.
    policy_allows: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.blocks += other.blocks;
        self.caught += other.caught;
        self.policy_blocks += other.policy_blocks;
        self.allows += other.allows;
        self.kept += other.kept;
        self.policy_allows += other.policy_allows;
    }

    fn raw_caught(&self) -> f64 {
        percent(self.caught, self.blocks)
    }

    fn raw_kept(&self) -> f64 {
        percent(self.kept, self.allows)
    }

    fn caught_percent(&self) -> f64 {
        percent(self.caught, self.blocks - self.policy_blocks)
    }

    fn kept_percent(&self) -> f64 {
        percent(self.kept, self.allows - self.policy_allows)
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// A case the checker judged differently.
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

/// The listed difference a case judged against the peer falls under, if any.
fn listed_difference(case: &Case, evaluation: &Evaluation) -> Option<String> {
    if case.block && !evaluation.allowances.is_empty() {
        return Some(evaluation.allowances.join(", "));
    }
    DIFFERENCES
        .iter()
        .find(|d| d.peer_blocks == case.block && (d.applies)(&case.command, evaluation))
        .map(|d| format!("policy:{}", d.kind))
}

fn measure(
    name: &'static str,
    cases: &[Case],
    workspace: &Path,
    packs_for: impl Fn(&Case) -> Vec<String>,
) -> Result<Report, Failure> {
    let mut guards: BTreeMap<Vec<String>, Guard> = BTreeMap::new();
    let mut report = Report {
        name,
        groups: BTreeMap::new(),
        missed_blocks: Vec::new(),
        denied_allows: Vec::new(),
        by_policy: Vec::new(),
    };
    let temp = std::env::temp_dir();
    for case in cases {
        let packs = packs_for(case);
        if !guards.contains_key(&packs) {
            // Exactly these packs: `--packs` may leave the default ones out.
            let config = SafetyConfig {
                workspace: Some(workspace.to_path_buf()),
                packs: packs.clone(),
                replace_defaults: vec!["packs".to_owned()],
                ..SafetyConfig::default()
            };
            // As a hooks file's `safety` module is built: what the loader protects with it.
            let guard = Guard::new(config, &hooks_config::protection::self_protection())
                .map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
            guards.insert(packs.clone(), guard);
        }
        let guard = &guards[&packs];
        let cwd = match case.cwd {
            Cwd::Project => workspace,
            Cwd::Temp => temp.as_path(),
        };
        let evaluation = guard.evaluate(&case.command, cwd);
        let tally = report.groups.entry(case.group.clone()).or_default();
        let miss = |verdict: String| Miss {
            group: case.group.clone(),
            command: case.command.clone(),
            verdict,
        };
        if case.block {
            tally.blocks += 1;
        } else {
            tally.allows += 1;
        }
        match (case.block, &evaluation.denial) {
            (true, Some(_)) => tally.caught += 1,
            (false, None) => tally.kept += 1,
            (_, denial) => match listed_difference(case, &evaluation) {
                Some(kind) => {
                    if case.block {
                        tally.policy_blocks += 1;
                    } else {
                        tally.policy_allows += 1;
                    }
                    let verdict = match denial {
                        Some(denial) => format!("{kind}: denied by {}", denial.id()),
                        None => kind,
                    };
                    report.by_policy.push(miss(verdict));
                }
                None => match denial {
                    Some(denial) => report.denied_allows.push(miss(denial.id())),
                    None => report.missed_blocks.push(miss("allowed".to_owned())),
                },
            },
        }
    }
    Ok(report)
}

fn print(report: &Report, options: &Options) {
    if options.policy {
        println!(
            "## {}: cases where our listed policy differs from the peer's",
            report.name
        );
        for miss in &report.by_policy {
            println!("  [{}] {:?}  ({})", miss.group, miss.command, miss.verdict);
        }
        println!();
        return;
    }
    println!("## {}", report.name);
    println!(
        "{:<32} {:>15} {:>15} {:>8} {:>18} {:>18}",
        "group", "raw caught", "raw kept", "policy", "caught after", "kept after"
    );
    let line = |group: &str, tally: &Tally| {
        println!(
            "{group:<32} {:>8} {:>5.1}% {:>8} {:>5.1}% {:>8} {:>10} {:>5.1}% {:>10} {:>5.1}%",
            format!("{}/{}", tally.caught, tally.blocks),
            tally.raw_caught(),
            format!("{}/{}", tally.kept, tally.allows),
            tally.raw_kept(),
            format!("{}+{}", tally.policy_blocks, tally.policy_allows),
            format!("{}/{}", tally.caught, tally.blocks - tally.policy_blocks),
            tally.caught_percent(),
            format!("{}/{}", tally.kept, tally.allows - tally.policy_allows),
            tally.kept_percent()
        );
    };
    for (group, tally) in &report.groups {
        line(group, tally);
    }
    line("OVERALL", &report.total());
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
            "blocks": t.blocks, "caught": t.caught, "policy_blocks": t.policy_blocks,
            "allows": t.allows, "kept": t.kept, "policy_allows": t.policy_allows,
            "raw_caught_percent": t.raw_caught(), "raw_kept_percent": t.raw_kept(),
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
        "groups": report.groups.iter().map(|(g, t)| (g.clone(), tally(t))).collect::<serde_json::Map<_, _>>(),
        "missed_blocks": misses(&report.missed_blocks),
        "denied_allows": misses(&report.denied_allows),
        "by_policy": misses(&report.by_policy),
    })
}

/// Where the peer corpora are: `../shared/peer` from the repository root.
fn peer_dir() -> PathBuf {
    project_root()
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
        .join("shared/peer")
}

/// The dcg corpus's two reports: the default packs, and each optional pack's cases.
fn dcg_reports(dir: &Path, workspace: &Path, options: &Options) -> Result<Vec<Report>, Failure> {
    let default_cases = dcg_cases(&dir.join("dcg_cases.jsonl"))?;
    let optional_cases = dcg_cases(&dir.join("dcg_cases_nondefault.jsonl"))?;
    let chosen = options.packs.clone();
    let default_report = measure("dcg: default corpus", &default_cases, workspace, |_| {
        chosen.clone().unwrap_or_else(|| vec!["default".to_owned()])
    })?;
    let chosen = options.packs.clone();
    let known: Vec<&str> = hooks_safety::packs::all_packs()
        .iter()
        .map(|pack| pack.name)
        .collect();
    let optional_report = measure(
        "dcg: optional packs corpus",
        &optional_cases,
        workspace,
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
    Ok(vec![default_report, optional_report])
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let options = parse(args)?;
    let peer = options.peer.clone().unwrap_or_else(peer_dir);
    // A workspace where developers keep theirs, not under /tmp: there, deleting `/tmp/*`
    // would take the workspace with it, and is refused as such.
    let workspace = project_root()
        .join("target")
        .join(format!("hooks-safety-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&workspace)
        .map_err(|e| Failure::Failed(format!("cannot create {}: {e}", workspace.display())))?;
    let outcome = (|| {
        let mut reports = Vec::new();
        let dcg = peer.join("dcg");
        if dcg.is_dir() {
            reports.extend(dcg_reports(&dcg, &workspace, &options)?);
        } else {
            println!("safety-corpus: dcg skipped: no corpus at {}", dcg.display());
        }
        let guards = peer.join("agent-guards");
        if guards.is_dir() {
            let cases = agent_guard_cases(&guards.join("cases.jsonl"))?;
            let chosen = options.packs.clone();
            reports.push(measure(
                "agent guards (CC Safety Net, Continue, goose)",
                &cases,
                &workspace,
                |_| chosen.clone().unwrap_or_else(|| vec!["default".to_owned()]),
            )?);
        } else {
            println!(
                "safety-corpus: agent-guards skipped: no corpus at {}",
                guards.display()
            );
        }
        if options.json {
            let all: Vec<Value> = reports.iter().map(as_json).collect();
            println!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
        } else {
            for report in &reports {
                print(report, &options);
            }
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
        let args: Vec<String> = ["--json", "--packs", "all,git", "--peer", "elsewhere"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let options = parse(&args).unwrap_or_default();
        assert!(options.json);
        assert_eq!(
            options.packs,
            Some(vec!["all".to_owned(), "git".to_owned()])
        );
        assert_eq!(options.peer, Some(PathBuf::from("elsewhere")));
        assert!(parse(&["--nope".to_owned()]).is_err());
    }

    #[test]
    fn raw_and_after_policy_figures_differ_by_the_listed_cases() {
        let tally = Tally {
            blocks: 10,
            caught: 8,
            policy_blocks: 2,
            allows: 4,
            kept: 3,
            policy_allows: 1,
        };
        assert_eq!(tally.raw_caught(), 80.0);
        assert_eq!(tally.caught_percent(), 100.0);
        assert_eq!(tally.raw_kept(), 75.0);
        assert_eq!(tally.kept_percent(), 100.0);
    }
}
