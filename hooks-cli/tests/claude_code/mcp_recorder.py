#!/usr/bin/env python3
"""A minimal MCP server on stdio for the end-to-end tests: one tool, `record`, which appends its
`text` argument as a line to the file named by this script's first argument, so that a test
can tell which calls reached the server. With a second argument, it also appends the W3C
`traceparent` each call carried in its `_meta` (an empty line for none) to the file it names."""
import json
import sys

LOG = sys.argv[1]
TRACES = sys.argv[2] if len(sys.argv) > 2 else None
TOOL = {
    "name": "record",
    "description": "Records a line of text",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


def answer(message):
    method = message.get("method")
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "recorder", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        text = message.get("params", {}).get("arguments", {}).get("text", "")
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(text + "\n")
        if TRACES:
            meta = message.get("params", {}).get("_meta") or {}
            with open(TRACES, "a", encoding="utf-8") as traces:
                traces.write(str(meta.get("traceparent", "")) + "\n")
        return {"content": [{"type": "text", "text": "recorded"}]}
    if method == "ping":
        return {}
    return None


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        continue
    result = answer(message)
    if result is None:
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 "error": {"code": -32601, "message": "method not found"}}
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    print(json.dumps(reply), flush=True)
