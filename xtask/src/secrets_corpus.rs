//! `cargo xtask secrets-corpus`: the redaction module measured against secret scanners' own
//! test data, read at run time from `../shared/peer/secrets/` (beside the repository; never
//! copied into it). Each row is a text, the substring that must disappear (`redact`) or
//! survive (`keep`), and the provider it belongs to. Prints, per provider and per class and
//! overall, how many secrets are caught and how many look-alikes kept, on a prompt and on a
//! tool result, and lists every miss. The rows the scanners disagree on (`disputed.jsonl`)
//! are measured apart, never in the totals.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_std::redaction::{RedactionConfig, RedactionModule};
use serde_json::{Value, json};

use crate::{Failure, project_root};

/// What the command line asks for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    json: bool,
    /// Totals only, no miss listed.
    quiet: bool,
    /// Where the corpus is, when not in `../shared/peer/secrets`.
    corpus: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => options.json = true,
            "--quiet" => options.quiet = true,
            "--corpus" => {
                let dir = args
                    .next()
                    .ok_or_else(|| Failure::Usage("`--corpus` needs a value".to_owned()))?;
                options.corpus = Some(PathBuf::from(dir));
            }
            other => {
                return Err(Failure::Usage(format!(
                    "`secrets-corpus` has no option `{other}`"
                )));
            }
        }
    }
    Ok(options)
}

/// One row of the corpus.
struct Case {
    text: String,
    secret: String,
    redact: bool,
    provider: String,
}

/// Providers whose secrets are found by their name or place, not by a format of their own.
const FOUND_BY_NAME: &[&str] = &[
    "generic-keyword",
    "http-api-key-header",
    "http-basic-auth",
    "http-bearer-token",
    "uri-basic-auth",
    "jdbc",
    "sqlserver",
    "postgres",
    "mongodb",
    "redis",
    "rabbitmq",
    "ftp",
    "sidekiq",
];

impl Case {
    /// The class a row measures: a secret found by its provider's format, one found by its
    /// name or place, or a look-alike to keep.
    fn class(&self) -> &'static str {
        if !self.redact {
            "look-alike (keep)"
        } else if FOUND_BY_NAME.contains(&self.provider.as_str()) {
            "found by name or place"
        } else {
            "provider format"
        }
    }
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
        let field = |name: &str| {
            row[name].as_str().map(str::to_owned).ok_or_else(|| {
                Failure::Failed(format!(
                    "{}:{}: no `{name}` string",
                    path.display(),
                    number + 1
                ))
            })
        };
        cases.push(Case {
            text: field("text")?,
            secret: field("secret")?,
            redact: field("expect")? == "redact",
            provider: field("provider")?,
        });
    }
    Ok(cases)
}

/// Tallies for one group of rows.
#[derive(Default, Clone, Copy)]
struct Tally {
    secrets: usize,
    caught: usize,
    lookalikes: usize,
    kept: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.secrets += other.secrets;
        self.caught += other.caught;
        self.lookalikes += other.lookalikes;
        self.kept += other.kept;
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Where a text is redacted: the event data it arrives in.
struct Surface {
    name: &'static str,
    wrap: fn(&str) -> Value,
    unwrap: fn(&Value) -> Option<&str>,
}

const SURFACES: &[Surface] = &[
    Surface {
        name: "prompt:submit",
        wrap: |text| json!({ "prompt": text }),
        unwrap: |data| data["prompt"].as_str(),
    },
    Surface {
        name: "tool:post",
        wrap: |text| json!({ "tool_name": "Bash", "tool_response": { "stdout": text } }),
        unwrap: |data| data["tool_response"]["stdout"].as_str(),
    },
];

/// A row the module judged differently.
struct Miss {
    provider: String,
    secret: String,
    text: String,
}

struct Report {
    surface: &'static str,
    by_provider: BTreeMap<String, Tally>,
    by_class: BTreeMap<&'static str, Tally>,
    missed: Vec<Miss>,
    masked: Vec<Miss>,
}

impl Report {
    fn total(&self) -> Tally {
        let mut total = Tally::default();
        for tally in self.by_class.values() {
            total.add(*tally);
        }
        total
    }
}

fn measure(module: &RedactionModule, surface: &'static Surface, cases: &[Case]) -> Report {
    let mut report = Report {
        surface: surface.name,
        by_provider: BTreeMap::new(),
        by_class: BTreeMap::new(),
        missed: Vec::new(),
        masked: Vec::new(),
    };
    for case in cases {
        let data = (surface.wrap)(&case.text);
        let redacted = module.redact(&data).map(|(clean, _)| clean);
        let text = redacted
            .as_ref()
            .and_then(surface.unwrap)
            .unwrap_or(&case.text);
        let present = text.contains(&case.secret);
        let mut tally = Tally::default();
        if case.redact {
            tally.secrets = 1;
            tally.caught = usize::from(!present);
        } else {
            tally.lookalikes = 1;
            tally.kept = usize::from(present);
        }
        report
            .by_provider
            .entry(case.provider.clone())
            .or_default()
            .add(tally);
        report.by_class.entry(case.class()).or_default().add(tally);
        let miss = || Miss {
            provider: case.provider.clone(),
            secret: case.secret.clone(),
            text: text.to_owned(),
        };
        if case.redact && present {
            report.missed.push(miss());
        } else if !case.redact && !present {
            report.masked.push(miss());
        }
    }
    report
}

fn row(name: &str, tally: Tally) -> String {
    format!(
        "{name:<28} {:>6}/{:<4} {:>5.1}% {:>8}/{:<4} {:>5.1}%",
        tally.caught,
        tally.secrets,
        percent(tally.caught, tally.secrets),
        tally.kept,
        tally.lookalikes,
        percent(tally.kept, tally.lookalikes)
    )
}

fn shorten(text: &str, limit: usize) -> String {
    let mut short: String = text.chars().take(limit).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

fn print(report: &Report, options: &Options, by_provider: bool) {
    println!("## {}", report.surface);
    let header = format!(
        "{:<28} {:>18} {:>21}",
        "", "secrets masked", "look-alikes kept"
    );
    if by_provider {
        println!("{header}");
        for (provider, tally) in &report.by_provider {
            println!("{}", row(provider, *tally));
        }
        println!();
    }
    println!("{header}");
    for (class, tally) in &report.by_class {
        println!("{}", row(class, *tally));
    }
    println!("{}", row("OVERALL", report.total()));
    if !options.quiet {
        for (title, misses) in [
            ("secrets left in the text", &report.missed),
            ("look-alikes masked", &report.masked),
        ] {
            println!("\n### {title} ({})", misses.len());
            for miss in misses {
                println!(
                    "  [{}] {:?}\n      in {:?}",
                    miss.provider,
                    shorten(&miss.secret, 80),
                    shorten(&miss.text, 160)
                );
            }
        }
    }
    println!();
}

fn as_json(report: &Report) -> Value {
    let tally = |t: &Tally| {
        json!({
            "secrets": t.secrets, "caught": t.caught,
            "lookalikes": t.lookalikes, "kept": t.kept,
            "caught_percent": percent(t.caught, t.secrets),
            "kept_percent": percent(t.kept, t.lookalikes),
        })
    };
    let misses = |list: &[Miss]| {
        list.iter()
            .map(|m| json!({"provider": m.provider, "secret": m.secret}))
            .collect::<Vec<_>>()
    };
    json!({
        "surface": report.surface,
        "overall": tally(&report.total()),
        "classes": report.by_class.iter().map(|(c, t)| ((*c).to_owned(), tally(t))).collect::<serde_json::Map<_, _>>(),
        "providers": report.by_provider.iter().map(|(p, t)| (p.clone(), tally(t))).collect::<serde_json::Map<_, _>>(),
        "missed": misses(&report.missed),
        "masked": misses(&report.masked),
    })
}

/// Where the corpus is: `../shared/peer/secrets` from the repository root.
fn corpus_dir() -> PathBuf {
    project_root()
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
        .join("shared/peer/secrets")
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let options = parse(args)?;
    let dir = options.corpus.clone().unwrap_or_else(corpus_dir);
    if !dir.is_dir() {
        println!(
            "secrets-corpus: skipped: the corpus is not at {} (it lives beside the \
             repository, in ../shared/peer/secrets)",
            dir.display()
        );
        return Ok(());
    }
    let cases = read_cases(&dir.join("cases.jsonl"))?;
    let disputed_path = dir.join("disputed.jsonl");
    let disputed = if disputed_path.is_file() {
        read_cases(&disputed_path)?
    } else {
        Vec::new()
    };
    let module = RedactionModule::new(RedactionConfig::default())
        .map_err(|e| Failure::Failed(e.to_string()))?;
    let reports: Vec<Report> = SURFACES
        .iter()
        .map(|surface| measure(&module, surface, &cases))
        .collect();
    let disputed_report = measure(&module, &SURFACES[0], &disputed);
    if options.json {
        let mut all: Vec<Value> = reports.iter().map(as_json).collect();
        let mut disputed_json = as_json(&disputed_report);
        disputed_json["surface"] = json!("disputed rows (prompt:submit), not in the totals");
        all.push(disputed_json);
        println!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
        return Ok(());
    }
    for (index, report) in reports.iter().enumerate() {
        // The providers' table once: the surfaces differ only in their totals, if at all.
        print(report, &options, index == 0);
    }
    if !disputed.is_empty() {
        println!("## disputed rows (the scanners disagree; prompt:submit, not in the totals)");
        for (case, redacted) in disputed.iter().map(|case| {
            let data = (SURFACES[0].wrap)(&case.text);
            let clean = module.redact(&data).map(|(clean, _)| clean);
            let text = clean
                .as_ref()
                .and_then(SURFACES[0].unwrap)
                .unwrap_or(&case.text)
                .to_owned();
            (case, !text.contains(&case.secret))
        }) {
            println!(
                "  [{}] {:?}: {} (the row says {})",
                case.provider,
                shorten(&case.secret, 60),
                if redacted { "masked" } else { "kept" },
                if case.redact { "redact" } else { "keep" }
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_parsed() {
        let args: Vec<String> = ["--json", "--quiet", "--corpus", "somewhere"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let options = parse(&args).unwrap_or_default();
        assert!(options.json && options.quiet);
        assert_eq!(options.corpus, Some(PathBuf::from("somewhere")));
        assert!(parse(&["--nope".to_owned()]).is_err());
    }

    #[test]
    fn a_secret_is_caught_when_it_leaves_the_text() {
        let module =
            RedactionModule::new(RedactionConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        let cases = [
            Case {
                text: "postgres://app:Tq8vLm2x@db/prod".to_owned(),
                secret: "Tq8vLm2x".to_owned(),
                redact: true,
                provider: "postgres".to_owned(),
            },
            Case {
                text: "see the build log".to_owned(),
                secret: "build".to_owned(),
                redact: false,
                provider: "none".to_owned(),
            },
        ];
        for surface in SURFACES {
            let report = measure(&module, surface, &cases);
            let total = report.total();
            assert_eq!((total.caught, total.secrets), (1, 1), "{}", surface.name);
            assert_eq!((total.kept, total.lookalikes), (1, 1), "{}", surface.name);
        }
    }
}
