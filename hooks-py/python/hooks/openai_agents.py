"""The hooks of a registry (or a hooks file) as OpenAI Agents SDK tool guardrails.

>>> from agents import function_tool
>>> from hooks.openai_agents import tool_input_guardrail
>>> guard = tool_input_guardrail("hooks.yaml")
>>> @function_tool(tool_input_guardrails=[guard])
... def run_shell(command: str) -> str: ...

The input guardrail emits ``tool:pre`` with the call (``tool_name``, ``tool_input`` parsed
from the call's JSON arguments, ``tool_call_id``): a deny or an ask_user (there is nobody to
ask inside a guardrail: it fails closed) rejects the call, and the model is told the reason.
The output guardrail emits ``tool:post`` with ``tool_result``; a deny replaces the output
with the reason. Arguments that are not JSON are rejected.
"""

from __future__ import annotations

import json
from typing import Any

from . import HookRegistry
from .claude import _registry

__all__ = ["tool_input_guardrail", "tool_output_guardrail"]


def _call_data(context: Any) -> dict[str, Any] | str:
    try:
        arguments = json.loads(context.tool_arguments or "{}")
    except json.JSONDecodeError as error:
        return f"the arguments of {context.tool_name} are not JSON ({error})"
    if not isinstance(arguments, dict):
        arguments = {"input": arguments}
    return {
        "tool_name": context.tool_name,
        "tool_input": arguments,
        "tool_call_id": context.tool_call_id,
    }


def tool_input_guardrail(source: Any, *, name: str = "hooks") -> Any:
    """A ``ToolInputGuardrail`` running ``tool:pre`` of ``source`` (a ``HookRegistry`` or a
    hooks file's path)."""
    from agents import ToolGuardrailFunctionOutput, ToolInputGuardrail

    registry: HookRegistry = _registry(source)

    async def guardrail(data: Any) -> Any:
        event = _call_data(data.context)
        if isinstance(event, str):
            return ToolGuardrailFunctionOutput.reject_content(event)
        result = await registry.emit("tool:pre", event)
        if result.action == "deny":
            return ToolGuardrailFunctionOutput.reject_content(
                result.reason or "denied by a hook", output_info=result.model_dump()
            )
        if result.action == "ask_user":
            prompt = result.approval_prompt or result.reason or "approval required"
            return ToolGuardrailFunctionOutput.reject_content(
                f"needs the user's approval, which a guardrail cannot ask for: {prompt}",
                output_info=result.model_dump(),
            )
        return ToolGuardrailFunctionOutput.allow(output_info=result.model_dump())

    return ToolInputGuardrail(guardrail_function=guardrail, name=name)


def tool_output_guardrail(source: Any, *, name: str = "hooks") -> Any:
    """A ``ToolOutputGuardrail`` running ``tool:post`` of ``source``."""
    from agents import ToolGuardrailFunctionOutput, ToolOutputGuardrail

    registry: HookRegistry = _registry(source)

    async def guardrail(data: Any) -> Any:
        event = _call_data(data.context)
        if isinstance(event, str):
            return ToolGuardrailFunctionOutput.reject_content(event)
        event["tool_result"] = data.output if isinstance(data.output, (str, int, float, bool, list, dict)) else str(data.output)
        result = await registry.emit("tool:post", event)
        if result.action == "deny":
            return ToolGuardrailFunctionOutput.reject_content(
                result.reason or "blocked by a hook", output_info=result.model_dump()
            )
        return ToolGuardrailFunctionOutput.allow(output_info=result.model_dump())

    return ToolOutputGuardrail(guardrail_function=guardrail, name=name)
