#!/usr/bin/env python3
"""Denies the commands listed in the plugin's patterns file. Runs in the project directory."""
import json
import os
import sys

data = json.load(sys.stdin)
if not os.path.isdir(".claude"):
    sys.exit(f"rm-guard: expected to run in the project, not in {os.getcwd()}")
with open(os.path.join(os.environ["CLAUDE_PLUGIN_ROOT"], "hooks", "patterns.txt")) as listed:
    patterns = [line.strip() for line in listed if line.strip()]
command = data.get("tool_input", {}).get("command", "")
for pattern in patterns:
    if pattern in command:
        print(json.dumps({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": f"rm-guard: `{pattern}` is not allowed",
            }
        }))
        break
