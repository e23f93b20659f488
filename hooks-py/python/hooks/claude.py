"""The hooks of a registry (or a hooks file) as Claude Agent SDK hooks.

>>> from claude_agent_sdk import ClaudeAgentOptions
>>> from hooks.claude import agent_hooks
>>> options = ClaudeAgentOptions(hooks=agent_hooks("hooks.yaml"))

``PreToolUse`` runs ``tool:pre`` (deny → ``permissionDecision: deny``, ask_user → ``ask``,
modify → ``updatedInput``, injections → ``additionalContext``); ``PostToolUse`` runs
``tool:post`` (deny → ``decision: block``). A callback that fails blocks the tool call: the
matchers are registered with ``on_failure="block"``.
"""

from __future__ import annotations

import os
from typing import Any

from . import HookRegistry, HookResult, load

__all__ = ["agent_hooks", "post_tool_use", "pre_tool_use"]


def _registry(source: Any) -> HookRegistry:
    if isinstance(source, HookRegistry):
        return source
    if isinstance(source, (str, os.PathLike)):
        return load(source)
    raise TypeError(f"expected a HookRegistry or a hooks file path, not {type(source).__name__}")


def _event_data(input_data: dict[str, Any], tool_use_id: str | None) -> dict[str, Any]:
    data = {
        "tool_name": input_data.get("tool_name"),
        "tool_input": input_data.get("tool_input") or {},
        "tool_call_id": tool_use_id or input_data.get("tool_use_id"),
    }
    for key in ("session_id", "cwd", "transcript_path", "permission_mode"):
        if input_data.get(key) is not None:
            data[key] = input_data[key]
    return data


def _common(result: HookResult) -> dict[str, Any]:
    output: dict[str, Any] = {}
    if result.user_message:
        output["systemMessage"] = result.user_message
    if result.suppress_output:
        output["suppressOutput"] = True
    return output


def pre_tool_use(registry: HookRegistry):
    """A ``PreToolUse`` hook callback that emits ``tool:pre`` on ``registry``."""

    async def callback(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        data = _event_data(input_data, tool_use_id)
        result = await registry.emit("tool:pre", data)
        specific: dict[str, Any] = {"hookEventName": "PreToolUse"}
        if result.action == "deny":
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = result.reason or "denied by a hook"
        elif result.action == "ask_user":
            specific["permissionDecision"] = "ask"
            specific["permissionDecisionReason"] = result.approval_prompt or result.reason or ""
        final = result.data or {}
        if result.action != "deny" and final.get("tool_input") != data["tool_input"]:
            specific["updatedInput"] = final.get("tool_input")
        if result.context_injection:
            specific["additionalContext"] = result.context_injection
        output = _common(result)
        if len(specific) > 1:
            output["hookSpecificOutput"] = specific
        return output

    callback.__name__ = "hooks_pre_tool_use"
    return callback


def post_tool_use(registry: HookRegistry):
    """A ``PostToolUse`` hook callback that emits ``tool:post`` on ``registry``."""

    async def callback(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        data = _event_data(input_data, tool_use_id)
        data["tool_result"] = input_data.get("tool_response")
        result = await registry.emit("tool:post", data)
        output = _common(result)
        if result.action == "deny":
            output["decision"] = "block"
            output["reason"] = result.reason or "blocked by a hook"
        if result.context_injection:
            output["hookSpecificOutput"] = {
                "hookEventName": "PostToolUse",
                "additionalContext": result.context_injection,
            }
        return output

    callback.__name__ = "hooks_post_tool_use"
    return callback


def agent_hooks(source: Any, *, matcher: str | None = None) -> dict[str, list[Any]]:
    """``ClaudeAgentOptions.hooks`` running ``source`` (a ``HookRegistry`` or a hooks file's
    path) on every tool call (or those ``matcher`` names, Claude Code's matcher syntax)."""
    from claude_agent_sdk import HookMatcher

    registry = _registry(source)
    return {
        "PreToolUse": [HookMatcher(matcher=matcher, hooks=[pre_tool_use(registry)], on_failure="block")],
        "PostToolUse": [HookMatcher(matcher=matcher, hooks=[post_tool_use(registry)], on_failure="block")],
    }
