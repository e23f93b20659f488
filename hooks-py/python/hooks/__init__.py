"""Hooks for AI-agent applications: a registry of async handlers with a Rust kernel.

``HookRegistry`` and ``HookResult`` have the Python API of amplifier-core's hooks, so code
written against it runs by changing its import::

    from hooks import HookRegistry, HookResult

    registry = HookRegistry()

    async def no_rm(event, data):
        if "rm -rf" in data.get("tool_input", {}).get("command", ""):
            return HookResult(action="deny", reason="no rm -rf")
        return HookResult()

    unregister = registry.register(HookRegistry.TOOL_PRE, no_rm, priority=10)
    result = await registry.emit("tool:pre", {"tool_name": "Bash", "tool_input": {...}})

Where the semantics differ from the reference on purpose, see the README ("Differences from
amplifier-core").
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from . import _native
from ._native import ALIASES, HookResult, redact
from . import safety

__all__ = ["ALIASES", "HookRegistry", "HookResult", "load", "redact", "safety"]

_log = logging.getLogger("hooks")


class HookRegistry(_native.HookRegistry):
    """The registry of hook handlers (see ``hooks._native.HookRegistry`` for the methods).

    ``emit`` runs the handlers one after another on the caller's event loop and merges their
    answers; ``emit_and_collect`` runs them concurrently and gathers their data.
    """

    async def emit_and_collect(
        self, event: str, data: dict[str, Any], timeout: float | None = 1.0
    ) -> list[Any]:
        """Runs every handler of ``event`` concurrently, each within ``timeout`` seconds
        (``None``: no limit), and returns the non-None ``data`` of their results in
        registration order. A handler that raises, times out or answers something other than
        a ``HookResult`` is logged and left out."""
        handlers = self._handlers(event)
        if not handlers:
            return []
        prepared = self._prepare(data)
        canonical = _native.ALIASES.get(event, event)

        async def one(name: str | None, handler: Any) -> Any:
            try:
                answer = handler(canonical, prepared)
                if hasattr(answer, "__await__"):
                    answer = await asyncio.wait_for(_awaited(answer), timeout)
            except asyncio.TimeoutError:
                _log.warning("hook %s on %s timed out after %ss", name, canonical, timeout)
                return None
            except Exception:  # a handler's failure is logged and skipped
                _log.exception("hook %s on %s raised", name, canonical)
                return None
            if not isinstance(answer, HookResult):
                _log.warning(
                    "hook %s on %s returned %s, not a HookResult",
                    name,
                    canonical,
                    type(answer).__name__,
                )
                return None
            return answer.data

        answers = await asyncio.gather(*(one(name, handler) for name, handler in handlers))
        return [answer for answer in answers if answer is not None]


def load(
    path: Any,
    *,
    priority: int = 0,
    registry: HookRegistry | None = None,
    layers: bool = True,
) -> HookRegistry:
    """Loads a hooks file (``hooks.yaml``: ``modules:`` and ``hooks:``) into ``registry``
    (a new ``HookRegistry`` by default) and returns it.

    With ``layers`` (the default) the machine's managed and user hooks files apply over it, and
    each event is decided as the ``hooks`` binary's guard decides it (a lower file's rewrite is
    put to the managed rules again); ``layers=False`` loads the file alone. Each event the
    policy handles gets one handler at ``priority`` that decides it on the Rust kernel (named
    after the policy's hooks, joined by ``+``). A file that does not load raises
    ``ValueError`` naming each problem's line; so does a managed or user file that is there
    but does not load."""
    target = HookRegistry() if registry is None else registry
    return _native.load(path, priority=priority, registry=target, layers=layers)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
