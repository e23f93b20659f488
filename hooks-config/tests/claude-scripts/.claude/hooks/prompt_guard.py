#!/usr/bin/env python3
"""UserPromptSubmit: block prompts with a password; otherwise add the date as context."""
import json
import sys

data = json.load(sys.stdin)
if "password" in data.get("prompt", "").lower():
    print(json.dumps({"decision": "block", "reason": "prompts must not hold passwords"}))
else:
    print("Today is the day of the test run.")
