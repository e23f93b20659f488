#!/usr/bin/env bash
# Side by side, in one run: the reference implementation (amplifier-core from PyPI, in a
# throwaway virtual environment) against hooks-core's criterion bench, emit with 0, 1, 10 and
# 100 no-op handlers; prints the ratios. Needs python3 with venv and network access to PyPI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "==> installing amplifier-core into a throwaway virtual environment" >&2
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet amplifier-core
"$scratch/venv/bin/python" -c 'import importlib.metadata as m; print("amplifier-core", m.version("amplifier-core"))' >&2

echo "==> timing the reference" >&2
"$scratch/venv/bin/python" bench/compare/reference.py > "$scratch/reference.json"

echo "==> timing hooks-core (criterion)" >&2
# The floor (the same loop without the registry) runs too, for the net column.
cargo bench -p hooks-core --bench emit -- 'emit/noop_handlers/|emit/floor' >&2

python3 bench/compare/ratios.py "$scratch/reference.json" target/criterion
