//! Soak: several tasks emit through the logging module while handlers are registered and
//! removed under them. Every event must be in the log exactly once, no line torn (each parses
//! as one JSON object), rotation included, and the resident memory must stay flat.
//!
//! The short form (20,000 events) runs with `cargo test`. The long form:
//!
//! ```sh
//! HOOKS_SOAK_EVENTS=1000000 cargo test -p hooks-std --test soak -- --nocapture
//! ```

#![allow(clippy::unwrap_used, missing_docs)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hooks_core::{HookModule, HookRegistry, HookResult};
use hooks_std::logging::{LoggingConfig, LoggingModule};
use serde_json::{Value, json};

const TASKS: u64 = 8;

/// How much the resident set may grow between the end of the warm-up and the end of the run.
/// The log itself goes to disk; what stays in memory is the registry, the file handle and
/// the allocator's pools, none of which grows with the number of events.
const RSS_BUDGET_KIB: u64 = 32 * 1024;

fn events() -> u64 {
    std::env::var("HOOKS_SOAK_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000)
}

/// The resident set size of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmRSS:")
                    .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

fn log_files(path: &Path) -> Vec<PathBuf> {
    let mut files = vec![path.to_path_buf()];
    for n in 1.. {
        let rotated = PathBuf::from(format!("{}.{n}", path.display()));
        if !rotated.exists() {
            break;
        }
        files.push(rotated);
    }
    files
}

#[test]
fn every_event_is_logged_once_whole_while_handlers_come_and_go() {
    let total = events();
    let per_task = total / TASKS;
    let dir = hooks_testing::scratch_dir("soak", "run");
    let path = dir.join("events.jsonl");
    let config = LoggingConfig {
        path: path.clone(),
        // Rotation under load, keeping every file so that every line can be counted.
        max_bytes: Some(1024 * 1024),
        keep: 10_000,
        ..LoggingConfig::default()
    };
    let logging = LoggingModule::new(config).unwrap();
    let registry = HookRegistry::new();
    let _mounted = logging.mount(&registry).unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::cont() },
            0,
            "resident",
        )
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();

    let warm_rss = Arc::new(AtomicU64::new(0));
    let peak_rss = Arc::new(AtomicU64::new(0));
    let churned = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    runtime.block_on(async {
        let done = Arc::new(AtomicBool::new(false));
        // Registers and removes handlers for as long as the emitters run, from a thread of its
        // own so that it really runs beside them.
        let churn = {
            let (registry, done, churned) = (registry.clone(), done.clone(), churned.clone());
            std::thread::spawn(move || {
                let mut k = 0_u64;
                while !done.load(Ordering::Relaxed) {
                    let name = format!("churn{}", k % 4);
                    registry.unregister(&name);
                    registry
                        .register(
                            "tool:post",
                            |_: &str, _: &Value| async { HookResult::inject("churn") },
                            i32::try_from(k % 7).unwrap() - 3,
                            name,
                        )
                        .unwrap();
                    k += 1;
                    churned.store(k, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_micros(200));
                }
            })
        };
        let emitters: Vec<_> = (0..TASKS)
            .map(|task| {
                let (registry, warm_rss, peak_rss) =
                    (registry.clone(), warm_rss.clone(), peak_rss.clone());
                tokio::spawn(async move {
                    for n in 0..per_task {
                        let payload = "x".repeat(usize::try_from(n % 97).unwrap());
                        registry
                            .emit(
                                "tool:post",
                                json!({"tool_name": "bash", "task": task, "n": n, "payload": payload}),
                            )
                            .await;
                        if task == 0 && n == per_task / 10 {
                            warm_rss.store(rss_kib(), Ordering::Relaxed);
                        }
                        if task == 0 && n % 1000 == 0 {
                            peak_rss.fetch_max(rss_kib(), Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        for emitter in emitters {
            emitter.await.unwrap();
        }
        done.store(true, Ordering::Relaxed);
        churn.join().unwrap();
    });
    let elapsed = started.elapsed();
    let end_rss = rss_kib();
    peak_rss.fetch_max(end_rss, Ordering::Relaxed);

    assert_eq!(logging.write_errors(), 0);
    let files = log_files(&path);
    let mut seen = vec![vec![false; usize::try_from(per_task).unwrap()]; TASKS as usize];
    let mut lines = 0_u64;
    for file in &files {
        for line in BufReader::new(std::fs::File::open(file).unwrap()).lines() {
            let line = line.unwrap();
            let record: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("torn line in {}: {e}: {line}", file.display()));
            let task = usize::try_from(record["data"]["task"].as_u64().unwrap()).unwrap();
            let n = usize::try_from(record["data"]["n"].as_u64().unwrap()).unwrap();
            assert!(!seen[task][n], "task {task} event {n} logged twice");
            seen[task][n] = true;
            lines += 1;
        }
    }
    assert_eq!(lines, per_task * TASKS, "every event logged");
    let warm = warm_rss.load(Ordering::Relaxed);
    println!(
        "soak: {} events by {TASKS} tasks in {elapsed:.1?} ({:.0} events/s), {} handler \
         registrations meanwhile, {} log files; RSS after warm-up {warm} KiB, at the end \
         {end_rss} KiB, peak {} KiB",
        per_task * TASKS,
        (per_task * TASKS) as f64 / elapsed.as_secs_f64(),
        churned.load(Ordering::Relaxed),
        files.len(),
        peak_rss.load(Ordering::Relaxed),
    );
    assert!(churned.load(Ordering::Relaxed) > 0);
    assert!(
        end_rss <= warm + RSS_BUDGET_KIB,
        "memory grew from {warm} KiB to {end_rss} KiB"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
