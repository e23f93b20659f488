#!/bin/sh
# Runs every fuzz target for a bounded time and prints, per target, the executions and the
# findings (crash, leak or timeout inputs saved under artifacts/<target>/).
#
#   fuzz/run.sh [seconds-per-target] [target...]     (default: 60 s, every target)
#
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 enables them on a stable toolchain.
# SANITIZER=address (or another cargo-fuzz sanitizer) trades speed for memory checks; the
# default is none, as the fuzzed code forbids unsafe.
set -eu
cd "$(dirname "$0")"
seconds="${1:-60}"
[ "$#" -gt 0 ] && shift
export RUSTC_BOOTSTRAP=1
sanitizer="${SANITIZER:-none}"
targets="${*:-$(cargo fuzz list)}"

mkdir -p artifacts
if ! cargo fuzz build --sanitizer "$sanitizer" >artifacts/build.log 2>&1; then
    cat artifacts/build.log
    exit 2
fi
found=0
for target in $targets; do
    mkdir -p "corpus/$target" "artifacts/$target"
    before=$(ls "artifacts/$target" | wc -l)
    log="artifacts/$target.log"
    status=0
    cargo fuzz run --sanitizer "$sanitizer" "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    corpus=$(ls "corpus/$target" | wc -l)
    new=$(( $(ls "artifacts/$target" | wc -l) - before ))
    echo "$target: ${execs:-?} executions in ${seconds} s, corpus $corpus inputs, $new findings (exit $status)"
    if [ "$new" -gt 0 ] || [ "$status" -ne 0 ]; then
        found=1
        grep -m 3 -E "panicked|ERROR|SUMMARY" "$log" || true
        echo "  log: fuzz/$log; inputs: fuzz/artifacts/$target/"
    fi
done
exit "$found"
