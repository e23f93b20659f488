"""Times the reference implementation's HookRegistry.emit (amplifier-core, from PyPI) with 0, 1,
10 and 100 no-op handlers, and prints one JSON object: {"0": seconds_per_emit, ...}.

Each case runs batches of emits on one asyncio loop and reports the median batch's time per
emit, so a noisy batch does not decide.
"""

import asyncio
import json
import statistics
import sys
import time

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult


async def noop(event, data):
    return HookResult(action="continue")


async def time_case(handlers: int, batches: int = 7, per_batch: int = 0) -> float:
    registry = HookRegistry()
    for i in range(handlers):
        registry.register("tool:pre", noop, priority=i, name=f"noop_{i}")
    data = {"tool_name": "bash"}
    per_batch = per_batch or max(20, 2000 // max(handlers, 1))
    for _ in range(per_batch):  # warm up
        await registry.emit("tool:pre", data)
    samples = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(per_batch):
            await registry.emit("tool:pre", data)
        samples.append((time.perf_counter() - start) / per_batch)
    return statistics.median(samples)


async def main() -> None:
    results = {str(n): await time_case(n) for n in (0, 1, 10, 100)}
    json.dump(results, sys.stdout)
    print()


asyncio.run(main())
