#!/usr/bin/env python3
"""Refuses to stop while the transcript says the tests fail."""
import json
import sys

data = json.load(sys.stdin)
try:
    tool_input = data.get("tool_input", {})
    if tool_input.get("command", "").startswith("git commit"):
        sys.exit(0)
    with open(data.get("transcript_path", "")) as transcript:
        if "tests failing" in transcript.read():
            print(json.dumps({"decision": "block", "reason": "the tests are failing: fix them first"}))
except Exception as error:  # never break the session over the guard itself
    print(f"stop guard: {error}", file=sys.stderr)
sys.exit(0)
