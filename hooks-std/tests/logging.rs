//! The logging module: one line per event with its result, secrets redacted, no line lost or
//! interleaved under concurrency, debug events gated, rotation, config errors, and the suite.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hooks_core::{HookModule, HookRegistry, HookResult};
use hooks_std::logging::{LoggingConfig, LoggingModule};
use hooks_testing::hook_behaviour_tests;
use serde_json::{Value, json};

/// A fresh directory for one test's log files.
fn scratch(test: &str) -> PathBuf {
    hooks_testing::scratch_dir("logging", test)
}

fn logging(path: &Path, extra: Value) -> LoggingModule {
    let mut config = json!({ "path": path });
    config
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    LoggingModule::new(serde_json::from_value::<LoggingConfig>(config).unwrap()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not one JSON object per line: {e}: {line}"))
        })
        .collect()
}

#[tokio::test]
async fn a_line_records_every_part_of_the_result() {
    let dir = scratch("parts");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({})).mount(&registry).unwrap();
    registry
        .register(
            "prompt:submit",
            |_: &str, _: &Value| async {
                HookResult::modify(json!({"prompt": "tidied"}))
                    .with_user_message("prompt tidied", hooks_core::MessageLevel::Warning)
            },
            0,
            "tidier",
        )
        .unwrap();
    registry
        .register(
            "prompt:submit",
            |_: &str, _: &Value| async { HookResult::inject("remember the tests") },
            1,
            "reminder",
        )
        .unwrap();

    registry
        .emit("prompt:submit", json!({"prompt": "untidy"}))
        .await;

    let logged = lines(&path);
    let [line] = logged.as_slice() else {
        panic!("one line expected: {logged:?}")
    };
    let keys: Vec<&str> = line
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["data", "event", "result", "time"]);
    assert_eq!(line["data"]["prompt"], "tidied");
    let result = &line["result"];
    assert_eq!(result["modified_by"], json!(["tidier"]));
    assert_eq!(
        result["messages"],
        json!([{"hook": "tidier", "level": "warning", "text": "prompt tidied"}])
    );
    assert_eq!(
        result["injections"],
        json!([{"hook": "reminder", "bytes": 18, "ephemeral": false}])
    );
    assert_eq!(result["failures"], json!([]));
    assert_eq!(result["reason"], Value::Null);
    assert!(
        line["time"]
            .as_str()
            .is_some_and(|time| time.ends_with('Z'))
    );
}

#[tokio::test]
async fn every_emit_is_one_line_with_its_result_denials_included() {
    let dir = scratch("lines");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({})).mount(&registry).unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::deny("no rm") },
            0,
            "guard",
        )
        .unwrap();

    registry
        .emit("session:start", json!({"source": "startup"}))
        .await;
    registry
        .emit(
            "PreToolUse",
            json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
        )
        .await;
    registry.emit("app:custom", json!({"n": 1})).await;

    let logged = lines(&path);
    assert_eq!(logged.len(), 3);
    assert_eq!(logged[0]["event"], "session:start");
    assert_eq!(logged[0]["result"]["action"], "continue");
    assert_eq!(logged[1]["event"], "tool:pre");
    assert_eq!(logged[1]["result"]["action"], "deny");
    assert_eq!(logged[1]["result"]["decided_by"], "guard");
    assert_eq!(logged[1]["data"]["tool_input"]["command"], "rm -rf /");
    assert_eq!(logged[2]["data"], json!({"n": 1}));
    assert!(
        logged
            .iter()
            .all(|line| line["time"].as_str().is_some_and(|t| t.len() == 24))
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn secrets_in_the_data_are_redacted_before_writing() {
    let dir = scratch("redact");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({"secret_keys": ["session_cookie"]}))
        .mount(&registry)
        .unwrap();

    registry
        .emit(
            "provider:request",
            json!({"request": {
                "headers": {"authorization": "Bearer abcdefghijklmnop", "session_cookie": "s3cr3t"},
                "messages": [{"content": "key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"}]
            }}),
        )
        .await;

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("abcdefghijklmnop")
            && !text.contains("s3cr3t")
            && !text.contains("sk-ant-api03"),
        "{text}"
    );
    let logged = lines(&path);
    assert_eq!(
        logged[0]["data"]["request"]["headers"]["session_cookie"],
        "[REDACTED]"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn concurrent_emits_never_interleave_or_lose_a_line() {
    let dir = scratch("concurrent");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({})).mount(&registry).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();

    runtime.block_on(async {
        let tasks: Vec<_> = (0..8)
            .map(|task| {
                let registry = registry.clone();
                tokio::spawn(async move {
                    for n in 0..250 {
                        let payload = "x".repeat(100 + n);
                        registry
                            .emit(
                                "tool:post",
                                json!({"task": task, "n": n, "payload": payload}),
                            )
                            .await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });

    let logged = lines(&path);
    assert_eq!(logged.len(), 2000);
    for task in 0..8 {
        let mine: Vec<i64> = logged
            .iter()
            .filter(|line| line["data"]["task"] == task)
            .map(|line| line["data"]["n"].as_i64().unwrap())
            .collect();
        assert_eq!(
            mine,
            (0..250).collect::<Vec<_>>(),
            "task {task}: every line, in its order"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn debug_events_are_written_only_at_debug_level_and_filters_apply() {
    let dir = scratch("levels");
    let (info, debug, filtered) = (
        dir.join("info.jsonl"),
        dir.join("debug.jsonl"),
        dir.join("filtered.jsonl"),
    );
    let registry = HookRegistry::new();
    let _a = logging(&info, json!({})).mount(&registry).unwrap();
    let _b = logging(&debug, json!({"level": "debug"}))
        .mount(&registry)
        .unwrap();
    let _c = logging(&filtered, json!({"events": ["PreToolUse"]}))
        .mount(&registry)
        .unwrap();

    registry
        .emit("llm:request:debug", json!({"raw": "..."}))
        .await;
    registry.emit("tool:pre", json!({})).await;
    registry.emit("tool:post", json!({})).await;

    let events = |path: &Path| {
        lines(path)
            .iter()
            .map(|l| l["event"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(events(&info), ["tool:pre", "tool:post"]);
    assert_eq!(
        events(&debug),
        ["llm:request:debug", "tool:pre", "tool:post"]
    );
    assert_eq!(events(&filtered), ["tool:pre"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn the_file_rotates_by_size_and_no_line_is_lost() {
    let dir = scratch("rotate");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({"max_bytes": 2000, "keep": 50}))
        .mount(&registry)
        .unwrap();

    for n in 0..100 {
        registry.emit("tool:post", json!({"n": n})).await;
    }

    let mut all = Vec::new();
    for rotated in (1..=50).rev() {
        all.extend(lines(&PathBuf::from(format!(
            "{}.{rotated}",
            path.display()
        ))));
    }
    all.extend(lines(&path));
    let numbers: Vec<i64> = all
        .iter()
        .map(|line| line["data"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(
        numbers,
        (0..100).collect::<Vec<_>>(),
        "every line, oldest file first"
    );
    for file in std::fs::read_dir(&dir).unwrap() {
        let size = file.unwrap().metadata().unwrap().len();
        assert!(size <= 2000, "a file grew past max_bytes: {size}");
    }
    assert!(PathBuf::from(format!("{}.2", path.display())).exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn rotation_keeps_only_the_newest_files() {
    let dir = scratch("keep");
    let path = dir.join("events.jsonl");
    let registry = HookRegistry::new();
    let _log = logging(&path, json!({"max_bytes": 1000, "keep": 2}))
        .mount(&registry)
        .unwrap();

    for n in 0..100 {
        registry.emit("tool:post", json!({"n": n})).await;
    }

    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".lock"))
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    let newest = lines(&path);
    assert_eq!(newest.last().unwrap()["data"]["n"], 99);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn config_errors_name_the_key() {
    let unknown = serde_json::from_value::<LoggingConfig>(json!({"file": "x.jsonl"})).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown field `file`"),
        "{unknown}"
    );
    let level = serde_json::from_value::<LoggingConfig>(json!({"level": "verbose"})).unwrap_err();
    assert!(level.to_string().contains("verbose"), "{level}");
    let event: LoggingConfig = serde_json::from_value(json!({"events": ["tool:prre"]})).unwrap();
    assert!(
        LoggingModule::new(event)
            .unwrap_err()
            .to_string()
            .contains("did you mean `tool:pre`")
    );
    // A directory that cannot be created (its parent is a file), even by root.
    let blocker = scratch("config_errors").join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let nowhere = blocker.join("x/events.jsonl");
    let config: LoggingConfig = serde_json::from_value(json!({ "path": nowhere })).unwrap();
    let error = LoggingModule::new(config)
        .unwrap()
        .mount(&HookRegistry::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`path`") && error.contains(&*nowhere.to_string_lossy()),
        "{error}"
    );
}

#[test]
fn a_configuration_is_checked_without_writing_anything_until_it_is_mounted() {
    let path = scratch("check_only").join("logs/events.jsonl");
    let module = logging(&path, json!({}));
    assert!(!path.parent().unwrap().exists(), "new() wrote something");
    let _mounted = module.mount(&HookRegistry::new()).unwrap();
    assert!(path.exists());
}

#[tokio::test]
async fn the_log_directory_is_created_when_missing() {
    let path = scratch("missing_directory").join(".hooks/nested/events.jsonl");
    let registry = HookRegistry::new();
    let _mounted = logging(&path, json!({})).mount(&registry).unwrap();
    registry.emit("session:start", json!({})).await;
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1);
}

fn suite_logging() -> LoggingModule {
    let dir = scratch("suite");
    logging(&dir.join("events.jsonl"), json!({}))
}

hook_behaviour_tests!(logging_behaviour, suite_logging());

/// Set in the processes [`many_processes_append_whole_lines_through_rotations`] starts: which
/// writer this process is, and the log it writes to.
const WRITER: &str = "HOOKS_LOGGING_TEST_WRITER";
const WRITER_LOG: &str = "HOOKS_LOGGING_TEST_LOG";
const PROCESSES: usize = 32;
const LINES_PER_PROCESS: usize = 60;

/// An agent runs `hooks claude` once per event, so many processes append to one log at once
/// and rotate it under each other. This test starts its own binary 32 times as writers (the
/// environment tells a started copy that it is one) and then checks that every line of every
/// writer is in the log or a rotated file, exactly once and whole.
#[tokio::test]
async fn many_processes_append_whole_lines_through_rotations() {
    if let (Ok(writer), Ok(path)) = (std::env::var(WRITER), std::env::var(WRITER_LOG)) {
        let registry = HookRegistry::new();
        // Small files, so that the writers rotate the log under each other many times.
        let module = logging(
            Path::new(&path),
            json!({"max_bytes": 64 * 1024, "keep": 1000}),
        );
        let _mounted = module.mount(&registry).unwrap();
        let padding = "x".repeat(400);
        for seq in 0..LINES_PER_PROCESS {
            registry
                .emit(
                    "tool:post",
                    json!({"writer": writer, "seq": seq, "padding": padding}),
                )
                .await;
        }
        assert_eq!(module.write_errors(), 0);
        return;
    }

    let dir = scratch("processes");
    let path = dir.join("events.jsonl");
    let writers: Vec<_> = (0..PROCESSES)
        .map(|writer| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "many_processes_append_whole_lines_through_rotations",
                    "--test-threads=1",
                ])
                .env(WRITER, writer.to_string())
                .env(WRITER_LOG, &path)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut writer in writers {
        assert!(writer.wait().unwrap().success(), "a writer failed");
    }

    let mut seen = std::collections::HashSet::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().is_some_and(|ext| ext == "lock") {
            continue;
        }
        files += 1;
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let record: Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("a torn line in {}: {error}", file.display()));
            let data = &record["data"];
            let key = (
                data["writer"].as_str().unwrap().to_owned(),
                data["seq"].as_u64().unwrap(),
            );
            assert!(seen.insert(key.clone()), "{key:?} was written twice");
        }
    }
    assert_eq!(seen.len(), PROCESSES * LINES_PER_PROCESS, "lines were lost");
    assert!(
        files > 5,
        "the log should have been rotated many times, not {files}"
    );
}
