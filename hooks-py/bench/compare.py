"""`emit` from Python, this package against amplifier-core, on one interpreter in one run.

    pip install amplifier-core==2.0.2 && (cd hooks-py && maturin develop --release)
    python hooks-py/bench/compare.py

For 0, 1, 10 and 100 no-op `async def` handlers (each returns a prebuilt continue result of its
own package), the time of one `await registry.emit("tool:pre", data)` on one asyncio loop: the
best of several rounds of many emits. Then `hooks.safety.check` on a typical command.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time

SIZES = (0, 1, 10, 100)
ROUNDS = 7
DATA = {"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "session_id": "s1"}


def registry_of(package: str, handlers: int):
    if package == "hooks":
        from hooks import HookRegistry, HookResult
    else:
        from amplifier_core import HookRegistry
        from amplifier_core.models import HookResult
    registry = HookRegistry()
    result = HookResult(action="continue")

    async def noop(event, data):
        return result

    for index in range(handlers):
        registry.register("tool:pre", noop, priority=index, name=f"noop{index}")
    return registry


async def per_emit(registry, emits: int) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(emits):
            await registry.emit("tool:pre", DATA)
        best = min(best, (time.perf_counter() - start) / emits)
    return best


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs" if seconds >= 1e-6 else f"{seconds * 1e9:.0f} ns"


async def main() -> None:
    # Neither package's logging is part of the measure.
    logging.disable(logging.CRITICAL)
    from importlib.metadata import version

    print(f"Python {sys.version.split()[0]}; hooks {version('hooks')}, amplifier-core {version('amplifier-core')}")
    print()
    print("| handlers | hooks | amplifier-core 2.0.2 | ratio |")
    print("|---:|---:|---:|---:|")
    for size in SIZES:
        emits = max(200, 20000 // max(size, 1))
        ours = await per_emit(registry_of("hooks", size), emits)
        theirs = await per_emit(registry_of("amplifier_core", size), emits)
        print(f"| {size} | {fmt(ours)} | {fmt(theirs)} | {theirs / ours:.1f}× |")

    from hooks import safety

    calls = 20000
    for command in ("git status", "rm -rf build/ && cargo build --release"):
        best = float("inf")
        for _ in range(ROUNDS):
            start = time.perf_counter()
            for _ in range(calls):
                safety.check(command, "/tmp/project")
            best = min(best, (time.perf_counter() - start) / calls)
        print(f"\nhooks.safety.check({command!r}): {fmt(best)} per call")


if __name__ == "__main__":
    asyncio.run(main())
