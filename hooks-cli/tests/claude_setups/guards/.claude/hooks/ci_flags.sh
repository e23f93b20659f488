#!/usr/bin/env bash
# Runs the test suite the way CI does: `npm test` gets `-- --ci`, approved on the spot.
input=$(cat)
command=$(jq -r '.tool_input.command // empty' <<<"$input")
if [[ "$command" == "npm test" ]]; then
  jq -n --arg command "npm test -- --ci" '{
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "CI flags added",
      updatedInput: {command: $command}
    }
  }'
fi
