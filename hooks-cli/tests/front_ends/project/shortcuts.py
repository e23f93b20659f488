"""A project's shortcuts: a few words the agent may call, rewritten into the command they stand for."""

import json
import sys

SHORTCUTS = {
    "fetch-example": "curl https://example.com",
    "ship": "deploy now",
    "tidy": "ls -la",
}

event = json.load(sys.stdin)
command = (event.get("tool_input") or {}).get("command", "")
if command in SHORTCUTS:
    print(json.dumps({"action": "modify", "modified_args": {"command": SHORTCUTS[command]}}))
