#!/usr/bin/env python3
"""Gives every subagent the house rules."""
import json
import sys

data = json.load(sys.stdin)
print(json.dumps({
    "hookSpecificOutput": {
        "hookEventName": "SubagentStart",
        "additionalContext": f"House rules for the {data.get('agent_type', 'agent')}: no force pushes.",
    }
}))
