"""The Claude Agent SDK adapter, driven through the SDK's own control protocol (no CLI, no
model): the SDK registers the callbacks at initialize and answers `hook_callback` requests."""

import asyncio
import json
import textwrap

import pytest

claude_agent_sdk = pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk._internal.query import Query  # noqa: E402
from claude_agent_sdk.types import _hooks_to_internal_format  # noqa: E402

from hooks import HookRegistry, HookResult  # noqa: E402
from hooks.claude import agent_hooks  # noqa: E402


class FakeCli:
    """A transport standing in for the CLI: answers initialize, then sends what a test asks."""

    def __init__(self):
        self.incoming: asyncio.Queue = asyncio.Queue()
        self.responses: dict[str, dict] = {}
        self.initialize = None
        self.answered = asyncio.Event()
        # What a current CLI answers: it honours `onFailure` and applied the hooks.
        self.capabilities = {"hook_on_failure_supported": True, "hooks_applied": True}

    async def connect(self):
        pass

    async def write(self, data: str):
        message = json.loads(data)
        if message.get("type") == "control_request" and message["request"]["subtype"] == "initialize":
            self.initialize = message["request"]
            await self.incoming.put(
                {
                    "type": "control_response",
                    "response": {"subtype": "success", "request_id": message["request_id"], "response": self.capabilities},
                }
            )
        elif message.get("type") == "control_response":
            self.responses[message["response"]["request_id"]] = message["response"]
            self.answered.set()

    async def read_messages(self):
        while True:
            message = await self.incoming.get()
            if message is None:
                return
            yield message

    async def close(self):
        await self.incoming.put(None)

    def is_ready(self):
        return True

    async def end_input(self):
        pass


async def call_hook(options_hooks, event, input_data, tool_use_id="toolu_1"):
    cli = FakeCli()
    query = Query(transport=cli, is_streaming_mode=True, hooks=_hooks_to_internal_format(options_hooks))
    await query.start()
    await query.initialize()
    [matcher] = cli.initialize["hooks"][event]
    [callback_id] = matcher["hookCallbackIds"]
    await cli.incoming.put(
        {
            "type": "control_request",
            "request_id": "req_1",
            "request": {
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": input_data,
                "tool_use_id": tool_use_id,
            },
        }
    )
    await asyncio.wait_for(cli.answered.wait(), 5)
    await query.close()
    return matcher, cli.responses["req_1"]


def bash(command):
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def test_a_hooks_file_denies_through_pre_tool_use(tmp_path, run):
    path = tmp_path / "hooks.yaml"
    path.write_text(
        textwrap.dedent(
            f"""
            modules:
              safety:
                workspace: "{tmp_path}"
            hooks: {{}}
            """
        )
    )
    matcher, response = run(call_hook(agent_hooks(path), "PreToolUse", bash("rm -rf ~/")))
    assert matcher["onFailure"] == "block"
    assert response["subtype"] == "success"
    specific = response["response"]["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"]


def test_an_allowed_call_answers_no_decision(tmp_path, run):
    registry = HookRegistry()
    seen = []

    async def audit(event, data):
        seen.append((data["tool_name"], data["tool_input"], data["tool_call_id"], data["session_id"]))
        return HookResult()

    registry.register("tool:pre", audit)
    _, response = run(call_hook(agent_hooks(registry), "PreToolUse", bash("ls")))
    assert response["response"] == {}
    assert seen == [("Bash", {"command": "ls"}, "toolu_1", "s1")]


def test_modify_ask_and_context_map_to_the_sdks_fields(run):
    registry = HookRegistry()

    async def rewrite(event, data):
        return HookResult(action="modify", data={**data, "tool_input": {"command": "ls -la"}})

    async def ask(event, data):
        return HookResult(action="ask_user", approval_prompt="List everything?", user_message="asked")

    async def note(event, data):
        return HookResult(action="inject_context", context_injection="listing is cheap")

    registry.register("tool:pre", rewrite, priority=1)
    registry.register("tool:pre", ask, priority=2)
    registry.register("tool:pre", note, priority=3)
    _, response = run(call_hook(agent_hooks(registry), "PreToolUse", bash("ls")))
    output = response["response"]
    assert output["systemMessage"] == "asked"
    specific = output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "ask"
    assert specific["permissionDecisionReason"] == "List everything?"
    assert specific["updatedInput"] == {"command": "ls -la"}
    assert specific["additionalContext"] == "listing is cheap"


def test_post_tool_use_blocks_and_sees_the_tool_response(run):
    registry = HookRegistry()
    seen = []

    async def leak_check(event, data):
        seen.append(data["tool_result"])
        return HookResult(action="deny", reason="the output holds a secret")

    registry.register("tool:post", leak_check)
    post = {**bash("cat .env"), "hook_event_name": "PostToolUse", "tool_response": {"stdout": "KEY=1"}}
    _, response = run(call_hook(agent_hooks(registry), "PostToolUse", post))
    assert response["response"]["decision"] == "block"
    assert response["response"]["reason"] == "the output holds a secret"
    assert seen == [{"stdout": "KEY=1"}]
