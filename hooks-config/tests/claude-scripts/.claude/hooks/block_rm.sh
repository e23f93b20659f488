#!/bin/bash
# PreToolUse on Bash: block recursive deletes (exit 2, the reason on stderr).
input=$(cat)
if printf '%s' "$input" | grep -q '"command": *"[^"]*rm -rf'; then
  echo "Blocked: rm -rf is not allowed here" >&2
  exit 2
fi
exit 0
