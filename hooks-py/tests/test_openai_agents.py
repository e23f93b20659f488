"""The OpenAI Agents SDK adapter, run by the SDK's own Runner with a scripted model (no
network): the model asks for a tool call, the guardrail decides, the model sees the answer."""

import json

import pytest

agents = pytest.importorskip("agents")

from agents import Agent, ModelResponse, Runner, Usage, function_tool  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from hooks import HookRegistry, HookResult  # noqa: E402
from hooks.openai_agents import tool_input_guardrail, tool_output_guardrail  # noqa: E402

# Offline: no trace export either.
agents.set_tracing_disabled(True)


class ScriptedModel(Model):
    """Calls `run_shell` with `command` once, then answers with what the tool returned."""

    def __init__(self, command):
        self.command = command
        self.inputs = []

    async def get_response(self, system_instructions, input, *args, **kwargs):
        self.inputs.append(input)
        if len(self.inputs) == 1:
            call = ResponseFunctionToolCall(
                id="fc_1",
                call_id="call_1",
                name="run_shell",
                arguments=json.dumps({"command": self.command}),
                type="function_call",
                status="completed",
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        tool_output = next(item for item in input if isinstance(item, dict) and item.get("type") == "function_call_output")
        text = ResponseOutputText(text=str(tool_output["output"]), type="output_text", annotations=[])
        message = ResponseOutputMessage(id="msg_1", content=[text], role="assistant", status="completed", type="message")
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def run_agent(run, command, **guardrails):
    ran = []

    @function_tool(**guardrails)
    def run_shell(command: str) -> str:
        """Runs a shell command."""
        ran.append(command)
        return f"ran {command}"

    agent = Agent(name="shell", model=ScriptedModel(command), tools=[run_shell])
    result = run(Runner.run(agent, "go"))
    return ran, result.final_output


def test_a_hooks_file_rejects_a_destructive_call(tmp_path, run):
    path = tmp_path / "hooks.yaml"
    path.write_text(f'modules:\n  safety:\n    workspace: "{tmp_path}"\nhooks: {{}}\n')
    guard = tool_input_guardrail(path)
    ran, answer = run_agent(run, "rm -rf ~/", tool_input_guardrails=[guard])
    assert ran == []
    assert "~/" in answer  # the model is told why


def test_an_allowed_call_runs_and_the_hook_sees_it(run):
    registry = HookRegistry()
    seen = []

    async def audit(event, data):
        seen.append((data["tool_name"], data["tool_input"], data["tool_call_id"]))
        return HookResult()

    registry.register("tool:pre", audit)
    ran, answer = run_agent(run, "ls", tool_input_guardrails=[tool_input_guardrail(registry)])
    assert ran == ["ls"]
    assert answer == "ran ls"
    assert seen == [("run_shell", {"command": "ls"}, "call_1")]


def test_ask_user_fails_closed_in_a_guardrail(run):
    registry = HookRegistry()
    registry.register("tool:pre", lambda e, d: HookResult(action="ask_user", approval_prompt="Really?"))
    ran, answer = run_agent(run, "ls", tool_input_guardrails=[tool_input_guardrail(registry)])
    assert ran == []
    assert "Really?" in answer


def test_the_output_guardrail_replaces_a_blocked_output(run):
    registry = HookRegistry()

    async def no_leaks(event, data):
        if "ran" in data["tool_result"]:
            return HookResult(action="deny", reason="output withheld")
        return HookResult()

    registry.register("tool:post", no_leaks)
    ran, answer = run_agent(run, "ls", tool_output_guardrails=[tool_output_guardrail(registry)])
    assert ran == ["ls"]
    assert answer == "output withheld"
