#!/usr/bin/env bash
# The agent guard's start, build against build, in one run: `hooks claude` with the `hooks init`
# starter policy (safety, redaction, logging) on a Bash PreToolUse, beside spawning /bin/true.
#
#   bench/agent-start/builds.sh            # the two builds docs/install.md offers
#
# Builds, each into a scratch root:
#   dist-dynamic  cargo install --path hooks-cli --profile dist --no-default-features
#   guard         cargo install-guard   (the same, glibc linked statically as a static PIE)
#   dist-http     its companion hooks-full, installed with it: cargo install --path hooks-cli
#                 --profile dist (the default build: the HTTP client, the MCP proxy, the server)
# then runs ratio.py three times over all of them, interleaved with /bin/true.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "==> building" >&2
cargo install --quiet --path hooks-cli --profile dist --no-default-features --root "$scratch/dist-dynamic"
cargo install-guard --quiet --root "$scratch/guard"
mkdir -p "$scratch/dist-http/bin"
ln -s "$scratch/guard/bin/hooks-full" "$scratch/dist-http/bin/hooks"

mkdir "$scratch/project"
cd "$scratch/project"
"$scratch/guard/bin/hooks" init claude >/dev/null
for bin in dist-http dist-dynamic guard; do
    ln -s "$scratch/$bin/bin/hooks" "$bin"
done
uptime >&2
for round in 1 2 3; do
    echo "==> round $round" >&2
    python3 "$repo/bench/agent-start/ratio.py" hooks.yaml ./dist-http ./dist-dynamic ./guard
done
