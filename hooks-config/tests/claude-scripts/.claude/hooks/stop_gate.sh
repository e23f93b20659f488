#!/bin/bash
# Stop: keep the agent working once, unless it already is because of this hook.
input=$(cat)
if printf '%s' "$input" | grep -q '"stop_hook_active": *true'; then
  exit 0
fi
echo '{"decision": "block", "reason": "Run the test suite before stopping."}'
