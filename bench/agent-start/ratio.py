#!/usr/bin/env python3
"""Same-run comparison of `hooks claude` builds against the spawn floor (/bin/true).

Usage: python3 bench/agent-start/ratio.py HOOKS_FILE BINARY[=FILE] [BINARY[=FILE]...]

Each binary runs `claude --config HOOKS_FILE` (or `--config FILE` where given, so that one binary
can be measured on several files in one run) on a Bash PreToolUse event as Claude Code sends it,
interleaved with /bin/true, 400 times each; prints the medians and their ratio to the floor.
Run it from a scratch directory: the starter policy's logging writes .hooks/events.jsonl there.

Each binary is first copied to a fresh file, and the copies are run: how a binary's pages sit in
the page cache (written just now, or read back from disk) moved the same binary by 0.3 to 0.7x
the floor here, so binaries built at different times only compare fairly as copies made
together (BENCHMARKS.md, "An agent's per-event hook").
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EVENT = (b'{"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", '
         b'"hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash", '
         b'"tool_input": {"command": "cargo test --workspace"}, "tool_use_id": "toolu_01"}')
RUNS = 400


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    hooks_file, binaries = sys.argv[1], sys.argv[2:]
    copies = tempfile.mkdtemp(prefix="ratio-")
    fresh = {}
    commands = {"/bin/true": ["/bin/true"]}
    for spec in binaries:
        binary, _, own_file = spec.partition("=")
        if binary not in fresh:
            fresh[binary] = os.path.join(copies, str(len(fresh)))
            shutil.copy2(binary, fresh[binary])
        commands[spec] = [fresh[binary], "claude", "--config", own_file or hooks_file]
    times = {name: [] for name in commands}
    for _ in range(RUNS):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, input=EVENT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["/bin/true"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name}: {median * 1000:.3f} ms ({median / floor:.2f}x the floor)")
    shutil.rmtree(copies)


if __name__ == "__main__":
    main()
