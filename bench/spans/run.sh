#!/usr/bin/env bash
# What hooks-core's spans cost when no subscriber listens: the same emit benchmarks built with
# the `spans` feature (the default) and without it (`--no-default-features`, the spans
# compiled out), side by side in one run.
#
# - instruction counts (callgrind, `--bench instructions`; needs valgrind): exact, the load of
#   the machine does not move them;
# - wall time (criterion, `--bench emit`), in two interleaved rounds (on, off, on, off) so
#   that a change of load shows as a difference between the rounds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

cases=(floor emit/unknown_event emit/noop_handlers/0 emit/noop_handlers/1 emit/noop_handlers/10
       emit/noop_handlers/100 emit/deny_of_100/first)
for mode in on off; do
  features=(); [ "$mode" = off ] && features=(--no-default-features)
  echo "==> instructions, spans $mode"
  cargo bench -q -p hooks-core --bench instructions "${features[@]}" -- "${cases[@]}"
done

filter='emit/noop_handlers/(1|10|100)$|emit/unknown_event'
for round in 1 2; do
  for mode in on off; do
    features=(); [ "$mode" = off ] && features=(--no-default-features)
    echo "==> criterion round $round, spans $mode"
    cargo bench -q -p hooks-core --bench emit "${features[@]}" -- --noplot --discard-baseline "$filter" \
      2>/dev/null | grep -E "^emit|time:"
  done
done
