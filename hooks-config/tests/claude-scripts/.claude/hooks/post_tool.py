#!/usr/bin/env python3
"""PostToolUse: feed failing test output back to the model as context."""
import json
import sys

data = json.load(sys.stdin)
response = data.get("tool_response") or {}
if "FAILED" in json.dumps(response):
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        "additionalContext": "Tests failed: fix them before going on.",
    }}))
