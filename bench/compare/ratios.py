"""Prints the side-by-side table: the reference's time per emit (from reference.py's JSON)
against ours (criterion's median estimate for `emit/noop_handlers/N`), the ratio of the two,
and ours net of the bench's floor (`emit/floor`, the same loop without the registry).

The ratio uses our median as measured, floor included, so it never flatters us."""

import json
import pathlib
import sys

reference = json.loads(pathlib.Path(sys.argv[1]).read_text())
criterion = pathlib.Path(sys.argv[2])


def median(*case: str) -> float:
    estimates = criterion.joinpath(*case, "new", "estimates.json")
    return json.loads(estimates.read_text())["median"]["point_estimate"] * 1e-9


def ours(handlers: str) -> float:
    return median("emit_noop_handlers", handlers)


def shown(seconds: float) -> str:
    for unit, scale in (("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


floor = median("emit_floor")
print(f"floor (the loop without the registry): {shown(floor)}")
print(f"{'handlers':>8}  {'amplifier-core':>14}  {'hooks-core':>10}  {'ratio':>9}  {'net of floor':>12}")
for handlers in ("0", "1", "10", "100"):
    theirs, mine = reference[handlers], ours(handlers)
    net = shown(mine - floor) if mine > floor else "below floor"
    print(f"{handlers:>8}  {shown(theirs):>14}  {shown(mine):>10}  {theirs / mine:>8.0f}x  {net:>12}")
