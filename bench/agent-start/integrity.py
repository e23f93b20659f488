#!/usr/bin/env python3
"""Same-run cost of the session snapshot (hooks-cli's `integrity`) in `hooks claude`.

Usage: python3 bench/agent-start/integrity.py HOOKS_FILE BINARY

Runs BINARY `claude --config HOOKS_FILE` on one Bash PreToolUse event with a `session_id` (the
snapshot is read and compared) and on the same event without one (nothing to compare with),
interleaved with /bin/true, 300 times each; prints the medians and their ratios to the floor.
Run it from a scratch directory set up by `hooks init claude`.
"""
import statistics
import subprocess
import sys
import time

CALL = b'"cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash", ' \
       b'"tool_input": {"command": "cargo test --workspace"}'
WITH_SESSION = b'{"session_id": "integrity-bench", ' + CALL + b'}'
WITHOUT_SESSION = b'{' + CALL + b'}'
RUNS = 300


def timed(command, data):
    started = time.perf_counter()
    subprocess.run(command, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    hooks_file, binary = sys.argv[1:]
    guard = [binary, "claude", "--config", hooks_file]
    checked, unchecked, floor = [], [], []
    for _ in range(RUNS):
        checked.append(timed(guard, WITH_SESSION))
        unchecked.append(timed(guard, WITHOUT_SESSION))
        floor.append(timed(["/bin/true"], b""))
    base = statistics.median(floor)
    for name, runs in (("with a session (snapshot compared)", checked),
                       ("without a session (nothing to compare)", unchecked),
                       ("/bin/true", floor)):
        median = statistics.median(runs)
        print(f"{name}: {median * 1000:.3f} ms ({median / base:.2f}x the floor)")


if __name__ == "__main__":
    main()
