//! Instructions per emit, counted by callgrind: unlike wall time, the count does not move with
//! the load of a shared machine, so a regression of a few percent is visible.
//!
//! Run with `cargo bench -p hooks-core --bench instructions [FILTER...]` (valgrind must be
//! installed). For each case the binary runs itself under `valgrind --tool=callgrind` twice,
//! with a few and with a thousand more iterations, and divides the difference: set-up, start-up
//! and tear-down cancel out, and what is left is the cost of one iteration. `floor` is the
//! iteration without the registry (build the payload, drop it); the `net` column subtracts it
//! (`floor/1KB` for the 1 KB cases, `floor/tool_call` for the typed-versus-JSON ones).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::process::{Command, ExitCode};
use std::time::Duration;

use hooks_core::HookRegistry;
use serde_json::Value;

mod support;
use support::{
    collectors, deny_at, json_policy_registry, modify_chain, payload, ready, small, tool_call,
    typed_policy_registry, with_noops,
};

/// Set in the child: which case to run and how many times.
const CASE_VAR: &str = "HOOKS_INSTRUCTIONS_CASE";
const FEW: u64 = 10;
const MORE: u64 = 1010;

/// A prepared case: a closure running one iteration.
type Case = Box<dyn FnMut()>;

fn emit_with(registry: HookRegistry, event: &'static str, data: fn() -> Value) -> Case {
    Box::new(move || drop(black_box(ready(registry.emit(black_box(event), data())))))
}

/// Every case, by name, in the order of the table.
const CASES: &[&str] = &[
    "floor",
    "floor/1KB",
    "emit/noop_handlers/0",
    "emit/unknown_event",
    "emit/noop_handlers/1",
    "emit/noop_handlers/10",
    "emit/noop_handlers/100",
    "emit/deny_of_100/first",
    "emit/deny_of_100/last",
    "emit/modify_chain_10_handlers_1KB",
    "emit_and_collect/10_handlers",
    "has_handlers/unknown_event",
    "floor/tool_call",
    "emit/typed_vs_json/json",
    "emit/typed_vs_json/typed",
];

fn case(name: &str) -> Option<Case> {
    let case: Case = match name {
        "floor" => Box::new(|| drop(black_box(small()))),
        "floor/1KB" => Box::new(|| drop(black_box(payload(1024)))),
        "emit/noop_handlers/0" => emit_with(with_noops(0), "tool:pre", small),
        "emit/unknown_event" => emit_with(with_noops(10), "app:nobody_listens", small),
        "emit/noop_handlers/1" => emit_with(with_noops(1), "tool:pre", small),
        "emit/noop_handlers/10" => emit_with(with_noops(10), "tool:pre", small),
        "emit/noop_handlers/100" => emit_with(with_noops(100), "tool:pre", small),
        "emit/deny_of_100/first" => emit_with(deny_at(0), "tool:pre", small),
        "emit/deny_of_100/last" => emit_with(deny_at(99), "tool:pre", small),
        "emit/modify_chain_10_handlers_1KB" => {
            emit_with(modify_chain(), "tool:pre", || payload(1024))
        }
        "emit_and_collect/10_handlers" => {
            let registry = collectors();
            Box::new(move || {
                let collected = ready(registry.emit_and_collect(
                    "app:collect",
                    small(),
                    Duration::from_secs(1),
                ));
                drop(black_box(collected));
            })
        }
        "has_handlers/unknown_event" => {
            let registry = with_noops(10);
            Box::new(move || {
                black_box(registry.has_handlers(black_box("app:nobody_listens")));
            })
        }
        "floor/tool_call" => Box::new(|| drop(black_box(tool_call()))),
        "emit/typed_vs_json/json" => emit_with(json_policy_registry(), "tool:pre", tool_call),
        "emit/typed_vs_json/typed" => emit_with(typed_policy_registry(), "tool:pre", tool_call),
        _ => return None,
    };
    Some(case)
}

/// In the child: run `name` `iterations` times.
fn run_child(spec: &str) -> ExitCode {
    let Some((name, iterations)) = spec.rsplit_once('@') else {
        eprintln!("{CASE_VAR} must be CASE@ITERATIONS, not `{spec}`");
        return ExitCode::FAILURE;
    };
    let (Some(mut case), Ok(iterations)) = (case(name), iterations.parse::<u64>()) else {
        eprintln!("unknown case or iteration count in `{spec}`");
        return ExitCode::FAILURE;
    };
    for _ in 0..iterations {
        case();
    }
    ExitCode::SUCCESS
}

/// The total instruction count of one run of `name` under callgrind.
fn count(name: &str, iterations: u64) -> Result<u64, String> {
    let out = std::env::temp_dir().join(format!(
        "hooks-callgrind-{}-{}.out",
        std::process::id(),
        iterations
    ));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--quiet"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .env(CASE_VAR, format!("{name}@{iterations}"))
        .output()
        .map_err(|e| format!("cannot run valgrind ({e}); install it (Debian: valgrind)"))?;
    if !output.status.success() {
        return Err(format!(
            "{name} failed under valgrind: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let profile =
        std::fs::read_to_string(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    profile
        .lines()
        .find_map(|line| {
            line.strip_prefix("totals:")
                .or(line.strip_prefix("summary:"))
        })
        .and_then(|total| total.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no instruction total in callgrind's output for {name}"))
}

fn main() -> ExitCode {
    if let Ok(spec) = std::env::var(CASE_VAR) {
        return run_child(&spec);
    }
    // `cargo bench` passes `--bench`; other words are filters, as criterion takes them.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let chosen: Vec<&str> = CASES
        .iter()
        .copied()
        .filter(|name| {
            *name == "floor"
                || (*name == "floor/tool_call" && filters.iter().any(|f| f.contains("typed")))
                || filters.is_empty()
                || filters.iter().any(|f| name.contains(f.as_str()))
        })
        .collect();
    let mut per_iteration = BTreeMap::new();
    for name in &chosen {
        let counted = count(name, FEW).and_then(|few| Ok((few, count(name, MORE)?)));
        match counted {
            Ok((few, more)) => {
                let each = more.saturating_sub(few) as f64 / (MORE - FEW) as f64;
                per_iteration.insert(*name, each);
            }
            Err(error) => {
                eprintln!("instructions: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    // The payload each case builds, which the net column takes out.
    let floor_of = |name: &str| {
        let floor = if name.ends_with("1KB") {
            "floor/1KB"
        } else if name.starts_with("emit/typed_vs_json") {
            "floor/tool_call"
        } else {
            "floor"
        };
        per_iteration.get(floor).copied().unwrap_or(0.0)
    };
    println!("| case | instructions per iteration | net of floor |");
    println!("|---|---:|---:|");
    for name in &chosen {
        let each = per_iteration[name];
        let net = if name.starts_with("floor") || name.starts_with("has_handlers") {
            "—".to_owned()
        } else {
            format!("{:.0}", each - floor_of(name))
        };
        println!("| `{name}` | {each:.0} | {net} |");
    }
    ExitCode::SUCCESS
}
