"""Prints the side-by-side table: the reference's time per emit (from reference.py's JSON)
against ours (criterion's median estimate for `emit/noop_handlers/N`), and the ratio."""

import json
import pathlib
import sys

reference = json.loads(pathlib.Path(sys.argv[1]).read_text())
criterion = pathlib.Path(sys.argv[2])


def ours(handlers: str) -> float:
    estimates = criterion / "emit_noop_handlers" / handlers / "new" / "estimates.json"
    return json.loads(estimates.read_text())["median"]["point_estimate"] * 1e-9


def shown(seconds: float) -> str:
    for unit, scale in (("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


print(f"{'handlers':>8}  {'amplifier-core':>14}  {'hooks-core':>10}  {'ratio':>9}")
for handlers in ("0", "1", "10", "100"):
    theirs, mine = reference[handlers], ours(handlers)
    print(f"{handlers:>8}  {shown(theirs):>14}  {shown(mine):>10}  {theirs / mine:>8.0f}x")
