#!/usr/bin/env bash
# Keeps the agent away from environment files. Registered for PreToolUse and PostToolUse alike,
# as people often do; Claude Code reads permissionDecision on PreToolUse only.
set -euo pipefail
input=$(cat)
path=$(jq -r '.tool_input.file_path // empty' <<<"$input")
case "$(basename "${path:-none}")" in
  .env|.env.*)
    jq -n --arg path "$path" '{
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: ("\($path) holds secrets; edit .env.example instead")
      }
    }'
    ;;
esac
exit 0
