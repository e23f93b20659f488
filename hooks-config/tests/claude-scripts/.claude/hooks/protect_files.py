#!/usr/bin/env python3
"""PreToolUse on Edit|Write: deny writes to secrets, ask before lock files (JSON answer)."""
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
decision = None
if path.endswith(".env") or "/secrets/" in path:
    decision = ("deny", f"{path} holds secrets")
elif path.endswith(".lock"):
    decision = ("ask", f"{path} is generated; edit it anyway?")
if decision:
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": data["hook_event_name"],
        "permissionDecision": decision[0],
        "permissionDecisionReason": decision[1],
    }}))
sys.exit(0)
